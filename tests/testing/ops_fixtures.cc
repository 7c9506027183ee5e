#include "tests/testing/ops_fixtures.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/tools/tool_registry.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"

namespace tbprof::ops_test {

using tensorflow::profiler::XSpace;

// Host thread 1 (all times in µs):
//   train#step_num=1,_r=1#            [0, 100)
//     model/dense/MatMul:MatMul        [10, 40)
//       …/ReadVariableOp               [12, 14)
//       cuLaunchKernel corr=101        [15, 20)
//       cuMemcpyHtoDAsync corr=103     [22, 23)
//     model/relu:Relu                  [50, 60)
//       cuLaunchKernel corr=102        [52, 53)
//   train#step_num=2,_r=1#            [200, 300)
//     model/dense/MatMul:MatMul        [210, 230)
//       cuLaunchKernel corr=201        [212, 214)
//       cuLaunchKernel corr=202        [215, 216)
// GPU:0 stream 7:
//   MemcpyH2D corr=103                 [25, 30)
//   volta_h884gemm (MatMul) corr=101   [30, 70)
//   relu_kernel (Relu) corr=102        [75, 85)
//   volta_h884gemm (MatMul) corr=201   [220, 250)
//   einsum_kernel (Einsum ab,bc->ac)   [250, 255) corr=202
XSpace GpuTwoStepSpace() {
  XSpace space;
  space.add_hostnames("testhost");
  {
    XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
    XLineBuilder t = host.AddLine(1, "python");
    t.AddEvent("train", 0, 100 * kUs).Int("step_num", 1).Int("_r", 1);
    t.AddEvent("model/dense/MatMul:MatMul", 10 * kUs, 30 * kUs);
    t.AddEvent("model/dense/MatMul/ReadVariableOp:ReadVariableOp", 12 * kUs, 2 * kUs);
    t.AddEvent("cuLaunchKernel", 15 * kUs, 5 * kUs).Int("correlation_id", 101).Int("device_id", 0);
    t.AddEvent("cuMemcpyHtoDAsync", 22 * kUs, 1 * kUs).Int("correlation_id", 103).Int("device_id", 0);
    t.AddEvent("model/relu:Relu", 50 * kUs, 10 * kUs);
    t.AddEvent("cuLaunchKernel", 52 * kUs, 1 * kUs).Int("correlation_id", 102).Int("device_id", 0);
    t.AddEvent("train", 200 * kUs, 100 * kUs).Int("step_num", 2).Int("_r", 1);
    t.AddEvent("model/dense/MatMul:MatMul", 210 * kUs, 20 * kUs);
    t.AddEvent("cuLaunchKernel", 212 * kUs, 2 * kUs).Int("correlation_id", 201).Int("device_id", 0);
    t.AddEvent("cuLaunchKernel", 215 * kUs, 1 * kUs).Int("correlation_id", 202).Int("device_id", 0);
  }
  {
    XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 0);
    gpu.Int("compute_cap_major", 7).Int("compute_cap_minor", 0);
    XLineBuilder s = gpu.AddLine(7, "Stream #7(Compute,MemcpyH2D)");
    s.AddEvent("MemcpyH2D", 25 * kUs, 5 * kUs)
        .Int("correlation_id", 103)
        .Ref("memcpy_details", "kind_src:pinned kind_dst:device size:1024 dest:0 async:1");
    const char* gemm_details = "regs:32 static_shared:0 dynamic_shared:1024 grid:8,1,1 block:128,1,1 occ_pct:50";
    s.AddEvent("volta_h884gemm_kernel", 30 * kUs, 40 * kUs)
        .Int("correlation_id", 101)
        .Str("tf_op", "model/dense/MatMul:MatMul")
        .Ref("kernel_details", gemm_details);
    s.AddEvent("relu_kernel", 75 * kUs, 10 * kUs)
        .Int("correlation_id", 102)
        .Str("tf_op", "model/relu:Relu")
        .Ref("kernel_details", "regs:16 static_shared:0 dynamic_shared:0 grid:4,1,1 block:256,1,1 occ_pct:100");
    s.AddEvent("volta_h884gemm_kernel", 220 * kUs, 30 * kUs)
        .Int("correlation_id", 201)
        .Str("tf_op", "model/dense/MatMul:MatMul")
        .Ref("kernel_details", gemm_details);
    s.AddEvent("einsum_kernel", 250 * kUs, 5 * kUs)
        .Int("correlation_id", 202)
        .Str("tf_op", "model/einsum/Einsum:Einsum")
        .Str("equation", "ab,bc->ac")
        .Ref("kernel_details", "regs:24 static_shared:256 dynamic_shared:0 grid:2,2,1 block:64,2,1 occ_pct:25");
  }
  return space;
}

// Thread 1:
//   train#step_num=7,_r=1#                       [0, 100)
//     a:A                                       [10, 50)
//     IteratorGetNext:IteratorGetNext           [50, 80)
// Thread 2 (tf.data):
//   Iterator::Prefetch                           [55, 75)
//     Iterator::Prefetch::TFRecord               [60, 70)
XSpace CpuInputBoundSpace() {
  XSpace space;
  space.add_hostnames("cpuhost");
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  XLineBuilder t = host.AddLine(1, "main");
  t.AddEvent("train", 0, 100 * kUs).Int("step_num", 7).Int("_r", 1);
  t.AddEvent("a:A", 10 * kUs, 40 * kUs);
  t.AddEvent("IteratorGetNext:IteratorGetNext", 50 * kUs, 30 * kUs);
  XLineBuilder d = host.AddLine(2, "tf_data_iterator_get_next");
  d.AddEvent("Iterator::Prefetch", 55 * kUs, 20 * kUs);
  d.AddEvent("Iterator::Prefetch::TFRecord", 60 * kUs, 10 * kUs);
  return space;
}

std::unique_ptr<XSpaceModel> ToModel(const XSpace& space) {
  auto model = ParseXSpace(space.SerializeAsString(), "test");
  EXPECT_TRUE(model.ok()) << model.status().message();
  return model.ok() ? std::move(*model) : std::make_unique<XSpaceModel>();
}

OpStats OpStatsOf(const XSpace& space) { return ConvertXSpaceToOpStats(*ToModel(space)); }

namespace {

// One folder per test process for the files WriteSpace writes, removed when
// the process exits, so test runs leave nothing in the temporary directory.
struct ProcessScratchDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("tbprof_ops_" + std::to_string(::getpid()));
  ~ProcessScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

std::string WriteSpace(const XSpace& space, const std::string& name) {
  static const ProcessScratchDir scratch;
  static std::atomic<int> counter{0};
  std::filesystem::path dir = scratch.path / std::to_string(counter++);
  std::filesystem::create_directories(dir);
  std::string path = (dir / (name + ".xplane.pb")).string();
  std::ofstream(path, std::ios::binary) << space.SerializeAsString();
  return path;
}

boost::json::value RunXPlaneTool(const std::string& tool, const std::string& path) {
  ToolInput in;
  in.profile_paths = {path};
  auto out = FindProfileTool(tool)->run(in);
  EXPECT_TRUE(out.ok()) << tool << " on " << path << ": " << out.status().message();
  return out.ok() ? boost::json::parse(out->body) : boost::json::value();
}

}  // namespace tbprof::ops_test
