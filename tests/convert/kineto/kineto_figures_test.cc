// Figures of PyTorch traces that came out wrong at the import or in the
// analyses' reading of an imported trace: zero-length calls, one row per
// NCCL collective, the memory of GPU allocators, training runs, ranks as hosts.
// Small traces are written here; real ones are torch-tb-profiler's sample and
// the H100 inference trace (torch-tb-profiler's kernel table, zero-length
// kernels included, is KinetoKnownAnswers.ResNet50KernelTableIsTorchTbProfilers).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "convert/analysis/op_names/tf_op_utils.h"
#include "convert/analysis/host_events/xspace_to_memory_profile.h"
#include "convert/analysis/op_stats/op_stats_combiner.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/load/profile_file.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using testing_kineto::TraceWriter;

std::unique_ptr<XSpaceModel> Import(const std::string& json, const std::string& source = "t.pt.trace.json") {
  auto m = ParseKinetoTrace(json, source);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : std::make_unique<XSpaceModel>();
}

std::map<std::string, uint64_t> HostOpCalls(const OpStats& stats) {
  std::map<std::string, uint64_t> calls;
  for (const auto& [key, op] : stats.host_op_metrics_db.ops) calls[op.name] += op.occurrences;
  return calls;
}

// PyTorch up to 1.9 wrote whole µs: a call or kernel under 1 µs has "dur": 0.
// Each still ran once (torch-tb-profiler counts them).
TEST(KinetoFigures, ZeroLengthCallsAndKernelsAreCounted) {
  TraceWriter w;
  int64_t t = 0;
  for (int i = 0; i < 3; ++i, t += 100'000) {
    const int ext = 10 + i;
    w.Host("cpu_op", "aten::fill_", t, i == 0 ? 5'000 : 0, "\"External id\": " + std::to_string(ext));
    w.Launch(t, i == 0 ? 3'000 : 0, t + 50'000, i == 0 ? 2'000 : 0, "fill_kernel", 100 + i, ext,
             "\"grid\": [1, 1, 1], \"block\": [128, 1, 1], \"registers per thread\": 16, \"shared memory\": 0");
  }
  auto model = Import(w.Json(1'600'000'000'000'000'000, /*relative=*/false));
  const OpStats stats = ConvertXSpaceToOpStats(*model);
  EXPECT_EQ(HostOpCalls(stats)["aten::fill_"], 3u);
  uint64_t launches = 0;
  for (const auto& r : stats.kernel_stats_db.reports()) {
    if (r.name() == "fill_kernel") launches += r.occurrences();
  }
  EXPECT_EQ(launches, 3u);
}

// Each NCCL collective is its own operator, of its own type.
TEST(KinetoFigures, EachNcclCollectiveIsItsOwnRow) {
  TraceWriter w;
  int64_t t = 0;
  for (int i = 0; i < 5; ++i, t += 100'000) {
    w.Host("cpu_op", i < 2 ? "nccl:all_reduce" : "nccl:all_to_all", t, 20'000,
           "\"External id\": " + std::to_string(i + 1));
  }
  auto model = Import(w.Json());
  const OpStats stats = ConvertXSpaceToOpStats(*model);
  std::map<std::string, std::pair<uint64_t, std::string>> rows;  // name -> (calls, type)
  for (const auto& [key, op] : stats.host_op_metrics_db.ops) rows[op.name] = {op.occurrences, op.category};
  EXPECT_EQ(rows.count("nccl"), 0u);
  EXPECT_EQ(rows["nccl:all_reduce"], std::make_pair(uint64_t{2}, std::string("nccl:all_reduce")));
  EXPECT_EQ(rows["nccl:all_to_all"], std::make_pair(uint64_t{3}, std::string("nccl:all_to_all")));
  // The importer's doubled name is one PyTorch op, colon or not.
  const TfOp op = ParseTfOpFullname("nccl:all_reduce:nccl:all_reduce");
  EXPECT_EQ(op.category, TfOpCategory::kPyTorch);
  EXPECT_EQ(op.name, "nccl:all_reduce");
}

std::string MemoryRecord(int64_t device_type, int64_t bytes, int64_t addr, int64_t total_allocated) {
  return "\"Device Type\": " + std::to_string(device_type) + ", \"Device Id\": 0, \"Bytes\": " +
         std::to_string(bytes) + ", \"Addr\": " + std::to_string(addr) +
         ", \"Total Allocated\": " + std::to_string(total_allocated) + ", \"Total Reserved\": 4000000";
}

// HIP (c10::DeviceType 6) and CUDA (1) allocations are a GPU's caching
// allocator, not "cpu"; memory held before the step is not TensorFlow's
// preallocated region.
TEST(KinetoFigures, GpuAllocationsAreTheGpusAllocatorAndEarlierMemoryIsNotPreallocation) {
  for (int64_t device_type : {1, 6}) {
    TraceWriter w;
    w.Host("cpu_op", "ProfilerStep#1", 0, 1'000'000);
    // 1 MB was allocated before the trace began; the step allocates 1000 bytes.
    w.Instant("[memory]", 100'000, MemoryRecord(device_type, 1000, 4096, 1'001'000));
    w.Instant("[memory]", 200'000, MemoryRecord(device_type, 2000, 8192, 1'003'000));
    w.Instant("[memory]", 300'000, MemoryRecord(device_type, -2000, 8192, 1'001'000));
    auto model = Import(w.Json());
    auto profile = ComputeMemoryProfile(*model);
    ASSERT_TRUE(profile.ok()) << profile.status().message();
    ASSERT_EQ(profile->memory_profile_per_allocator.size(), 1u) << device_type;
    EXPECT_EQ(profile->memory_profile_per_allocator.begin()->first, "GPU_0_caching") << device_type;
    for (const auto& [id, p] : profile->memory_profile_per_allocator) {
      bool earlier = false;
      for (const MemoryActivityMetadata& s : p.special_allocations) {
        EXPECT_NE(s.tf_op_name, "unused preallocated device memory");
        earlier |= s.tf_op_name == "allocated before the step" && s.allocation_bytes == 1'000'000;
      }
      EXPECT_TRUE(earlier) << device_type;
    }
  }
}

// A run with autograd's backward ops trains; one without infers.
TEST(KinetoFigures, BackwardOpsMeanTraining) {
  TraceWriter train;
  train.Host("cpu_op", "aten::mm", 0, 10'000, "\"External id\": 1");
  train.Host("cpu_op", "autograd::engine::evaluate_function: MmBackward0", 20'000, 10'000, "\"External id\": 2");
  train.Host("cpu_op", "MmBackward0", 21'000, 8'000, "\"External id\": 3");
  EXPECT_EQ(ConvertXSpaceToOpStats(*Import(train.Json())).run_environment.is_training, std::optional<bool>(true));
  TraceWriter infer;
  infer.Host("cpu_op", "aten::mm", 0, 10'000, "\"External id\": 1");
  EXPECT_EQ(ConvertXSpaceToOpStats(*Import(infer.Json())).run_environment.is_training, std::optional<bool>(false));
  // Real runs: torch-tb-profiler's ResNet-50 training sample (PyTorch 1.9
  // names, "CudnnConvolutionBackward") and BERT inference on an H100.
  const fs::path data(TBPROF_TESTDATA);
  auto resnet = LoadProfileFile(
      (data / "kineto_torch_tb_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz").string());
  ASSERT_TRUE(resnet.ok());
  EXPECT_EQ(ConvertXSpaceToOpStats(**resnet).run_environment.is_training, std::optional<bool>(true));
  auto bert = LoadProfileFile((data / "kineto_nvidia/h100_bert_small.pt.trace.json.gz").string());
  ASSERT_TRUE(bert.ok());
  EXPECT_EQ(ConvertXSpaceToOpStats(**bert).run_environment.is_training, std::optional<bool>(false));
}

// Two ranks' traces are two hosts: named by distributedInfo.rank, else by file.
TEST(KinetoFigures, RanksAreHosts) {
  std::vector<std::shared_ptr<const OpStats>> hosts;
  for (int rank : {0, 1}) {
    TraceWriter w;
    w.Host("cpu_op", "aten::mm", 0, 10'000, "\"External id\": 1");
    std::string json = w.Json();
    json.insert(1, "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(rank) +
                       ", \"world_size\": 2},\n");
    hosts.push_back(std::make_shared<const OpStats>(ConvertXSpaceToOpStats(*Import(json, "same.pt.trace.json"))));
  }
  const OpStats all = CombineOpStats(hosts);
  EXPECT_EQ(all.run_environment.host_count, 2);
  EXPECT_EQ(all.run_environment.task_count, 2);
  EXPECT_EQ(all.run_environment.hostnames, (std::set<std::string>{"rank 0", "rank 1"}));
  // Without a rank, the file tells them apart.
  TraceWriter w;
  w.Host("cpu_op", "aten::mm", 0, 10'000);
  auto a = Import(w.Json(), "/logs/run/worker0.1623143089861.pt.trace.json.gz");
  ASSERT_EQ(a->hostnames.size(), 1u);
  EXPECT_EQ(a->hostnames[0], "worker0.1623143089861");
}

}  // namespace
}  // namespace tbprof
