# CUDA workloads and the GPU harness. Included by the top-level CMakeLists when
# TBPROF_WITH_CUDA is ON; everything here is skipped, with a message, when no
# usable nvcc or CUDA toolkit (with CUPTI headers) is found, so CPU-only
# machines configure and build as before.
include(CheckLanguage)
if(DEFINED CMAKE_CUDA_COMPILER AND CMAKE_CUDA_COMPILER AND IS_ABSOLUTE "${CMAKE_CUDA_COMPILER}"
   AND NOT EXISTS "${CMAKE_CUDA_COMPILER}")
  message(STATUS "tbprof: CMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER} does not exist; GPU harness left out")
  return()
endif()
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "tbprof: no CUDA compiler (nvcc) found; GPU harness left out")
  return()
endif()
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND)
  find_path(TBPROF_CUPTI_INCLUDE_DIR cupti.h HINTS ${CUDAToolkit_INCLUDE_DIRS}
            ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/include)
endif()
if(NOT CUDAToolkit_FOUND OR NOT TBPROF_CUPTI_INCLUDE_DIR OR NOT TARGET CUDA::cudart_static)
  message(STATUS "tbprof: CUDA toolkit without cupti.h or static cudart; GPU harness left out")
  return()
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  # CUDA 13 starts at Turing; 90 covers H100/H200.
  set(CMAKE_CUDA_ARCHITECTURES "75;80;90")
endif()
enable_language(CUDA)
message(STATUS "tbprof: GPU harness enabled (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, archs ${CMAKE_CUDA_ARCHITECTURES})")

file(GLOB TBPROF_CUDA_SRCS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/synthetic/cuda/*.cu)
add_library(tbprof_cuda_workloads STATIC ${TBPROF_CUDA_SRCS})
set_target_properties(tbprof_cuda_workloads PROPERTIES
  CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON CUDA_RUNTIME_LIBRARY Static POSITION_INDEPENDENT_CODE ON)
target_compile_options(tbprof_cuda_workloads PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
target_include_directories(tbprof_cuda_workloads PUBLIC ${CMAKE_SOURCE_DIR})
# The static runtime loads libcuda.so.1 itself at first use, so tbprof still
# starts on machines without a driver; cuBLAS and CUPTI are dlopen'd.
target_link_libraries(tbprof_cuda_workloads PUBLIC CUDA::cudart_static ${CMAKE_DL_LIBS})

# The harness library (harness/*.cc, globbed by the top level) gets the CUPTI
# headers, the workloads, and the define that makes the CLI dispatch
# `tbprof harness gpu`.
target_include_directories(tbprof_harness PRIVATE ${CUDAToolkit_INCLUDE_DIRS} ${TBPROF_CUPTI_INCLUDE_DIR})
target_compile_definitions(tbprof_harness PRIVATE TBPROF_HAVE_CUPTI_HEADERS PUBLIC TBPROF_HAVE_GPU_HARNESS)
target_link_libraries(tbprof_harness PUBLIC tbprof_cuda_workloads)
