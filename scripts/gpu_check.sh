#!/usr/bin/env bash
# The GPU checks of issue 7 in one go, for a session that holds a GPU machine.
#
#   scripts/gpu_check.sh                   configure + build with CUDA into build-gpu/, then run
#   scripts/gpu_check.sh --bundle          (on a CPU machine) build, then pack the binaries and the
#                                          non-system libraries they need into build-gpu-bundle/
#   scripts/gpu_check.sh --prebuilt DIR    run binaries packed by --bundle (for GPU machines that
#                                          lack protobuf/Boost/GTest to build tbprof)
#
# Runs the Gpu* GoogleTest suites (the GpuDevice ones run the harness on the GPU), then
# `tbprof harness gpu --check` when this tbprof has the subcommand, and prints the figures.
# Exit status: that of the first failing step; 3 means no GPU/CUPTI was usable.
set -uo pipefail
cd "$(dirname "$0")/.."

mode=build
dir=build-gpu
iters=10
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) mode=bundle ;;
    --prebuilt) mode=prebuilt; dir="${2:?--prebuilt needs a directory}"; shift ;;
    --iters) iters="${2:?--iters needs a number}"; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "gpu_check.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

if [ "$mode" != prebuilt ]; then
  echo "== configure + build (CUDA on, archs 75;80;90) into build-gpu/"
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBPROF_WITH_CUDA=ON \
        -DTBPROF_BUILD_BENCH=OFF 2>&1 | grep -E "tbprof:|Error" || true
  if ! grep -q "TBPROF_HAVE_GPU_HARNESS" build-gpu/build.ninja 2>/dev/null; then
    echo "gpu_check.sh: CMake left the GPU harness out (see the 'tbprof:' line above)" >&2
    exit 3
  fi
  cmake --build build-gpu -j "$(nproc)" --target tbprof_tests tbprof || exit 1
  dir=build-gpu
fi

if [ "$mode" = bundle ]; then
  out=build-gpu-bundle
  rm -rf "$out" && mkdir -p "$out/runtime-libs"
  cp build-gpu/tbprof_tests build-gpu/tbprof "$out/"
  # Everything the binaries load that a stock CUDA image may lack (protobuf, Boost, ...).
  for bin in "$out/tbprof_tests" "$out/tbprof"; do
    ldd "$bin" | awk '/=> \// {print $3}' | grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so' |
      while read -r lib; do cp -Ln "$lib" "$out/runtime-libs/" 2>/dev/null || true; done
  done
  strip --strip-debug "$out/tbprof_tests" "$out/tbprof" 2>/dev/null || true
  du -sh "$out"
  echo "packed $out/; on the GPU machine run: scripts/gpu_check.sh --prebuilt $out"
  exit 0
fi

# CUPTI, cuBLAS and the driver are opened at run time: point the loader at them.
libdirs=""
for pattern in 'libcupti.so*' 'libcublas.so*' 'libcublasLt.so*'; do
  found=$(find /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64 /usr/local /opt /usr/lib \
               -name "$pattern" \( -type f -o -type l \) -print -quit 2>/dev/null)
  [ -n "$found" ] && libdirs="$libdirs:$(dirname "$found")"
done
[ -d "$dir/runtime-libs" ] && libdirs="$libdirs:$PWD/$dir/runtime-libs"
export LD_LIBRARY_PATH="${libdirs#:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "== LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

status=0
echo "== Gpu* tests"
log=$(mktemp)
"$dir/tbprof_tests" --gtest_filter='Gpu*' 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if grep -q '^\[  SKIPPED \] GpuDevice' "$log"; then
  echo "== NO GPU: the GpuDevice tests were skipped, so nothing ran on a GPU (exit 3)"
  rm -f "$log"
  exit 3
fi
rm -f "$log"

if "$dir/tbprof" harness gpu --help >/dev/null 2>&1; then
  echo "== tbprof harness gpu --check --iters $iters"
  "$dir/tbprof" harness gpu --check --iters "$iters" --logdir "$dir/gpu_logdir"
  rc=$?
  [ $status -eq 0 ] && status=$rc
else
  echo "== this tbprof has no 'harness gpu' subcommand yet (cli dispatch not merged);"
  echo "   the figures are in GpuDevice.HarnessCheckPassesOnARealGpu's output above"
fi
echo "== gpu_check.sh exit status $status"
exit $status
