// OpStats-based tools load files keeping only the stats OpStatsReadsEventStat accepts. Their
// output must be byte-for-byte what the whole model gives (the path taken when
// the server's cache already holds the model), on the real profiles and on a
// synthetic GPU training profile (steps, tf.data, launches, kernels, memory).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/tools/cached_loads.h"
#include "convert/tools/tool_registry.h"
#include "convert/grouping/group_events.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xspace_builder.h"
#include "synthetic/profile_generator.h"
#include "tests/testing/grouping_fixtures.h"
#include "tests/testing/ops_fixtures.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using test_files::SynthShape;

const char* const kOpStatsTools[] = {"overview_page", "input_pipeline_analyzer", "framework_op_stats", "kernel_stats",
                                     "pod_viewer"};

std::string RunTool(const std::string& tool, const std::string& path, ArtifactCache* cache) {
  ToolInput in;
  in.profile_paths = {path};
  in.cache = cache;
  auto out = FindProfileTool(tool)->run(in);
  EXPECT_TRUE(out.ok()) << tool << " on " << path << ": " << out.status().message();
  return out.ok() ? out->body : "";
}

void ExpectProjectionChangesNothing(const std::string& path) {
  ArtifactCache with_whole_model(size_t{1} << 30);
  ASSERT_TRUE(LoadModelCached(path, &with_whole_model).ok());
  ASSERT_NE(PeekModelCached(path, &with_whole_model), nullptr);
  for (const char* tool : kOpStatsTools) {
    std::string whole = RunTool(tool, path, &with_whole_model);
    std::string projected = RunTool(tool, path, nullptr);
    ASSERT_FALSE(whole.empty()) << tool;
    EXPECT_EQ(whole, projected) << tool << " on " << path;
  }
}

TEST(OpsProjection, RealProfilesGiveTheSameTools) {
  const std::vector<std::string> files = test_files::RealXPlaneFiles();
  if (files.empty()) GTEST_FAIL() << "required: testdata not found: " << test_files::RealXPlaneDir();
  for (const std::string& path : files) ExpectProjectionChangesNothing(path);
  EXPECT_GE(files.size(), 4u);
}

TEST(OpsProjection, SyntheticGpuTrainingGivesTheSameTools) {
  const std::string path = test_files::TempPath("projection/worker0.xplane.pb");
  test_files::WriteSyntheticFile(path, SynthShape(/*gpus=*/2, /*steps=*/6, /*events=*/60000, /*seed=*/7));
  ExpectProjectionChangesNothing(path);
  fs::remove_all(fs::path(path).parent_path());
}

// Grouping reads stats on every plane that no tool reads itself: the implied
// launch contexts of TPU programs (run_id, queue_id, device_ordinal,
// core_type), a root's graph_type, EagerKernelExecute's is_func.
TEST(OpsProjection, GroupingScenariosGiveTheSameTools) {
  ExpectProjectionChangesNothing(ops_test::WriteSpace(grouping_test::MergeHostStepsSpace(), "projection_tpu_launches"));
  ExpectProjectionChangesNothing(ops_test::WriteSpace(grouping_test::EagerAndFunctionSpace(), "projection_eager"));
}

// The groups themselves, where no tool shows them: a sub-process consumer
// naming the host's process (`_pid`) and a thread pool region (`_c` on its
// StartRegion) group the same when the OpStats tools' projection loads them.
TEST(OpsProjection, ProcessesAndRegionsGroupAlike) {
  using tensorflow::profiler::XSpace;
  XSpace space;
  XPlaneBuilder host = AddPlane(space, "/host:CPU", 0);
  host.Int("process_id", 100);
  XLineBuilder main = host.AddLine(0, "main");
  main.AddEvent("train", 0, 1000).Int("_r", 1).Int("step_num", 1);
  main.AddEvent("send:Send", 100, 100).Int("_pt", 0).Int("_p", 7);
  main.AddEvent("ThreadpoolListener::Record", 150, 0).Int("_pt", 15).Int("_p", 8);
  XLineBuilder pool = host.AddLine(1, "pool");
  pool.AddEvent("ThreadpoolListener::StartRegion", 300, 0).Int("_ct", 15).Int("_c", 8);
  pool.AddEvent("work:MatMul", 310, 50);
  pool.AddEvent("ThreadpoolListener::StopRegion", 400, 0);
  XPlaneBuilder sub = AddPlane(space, "/host:CPU [200]", 1);
  sub.Int("process_id", 200);
  XLineBuilder worker = sub.AddLine(5, "worker");
  worker.AddEvent("serve", 300, 200).Int("_ct", 0).Int("_c", 7).Int("_pid", 100);
  worker.AddEvent("compute:MatMul", 320, 100);
  const std::string path = ops_test::WriteSpace(space, "projection_processes");
  auto whole = LoadXSpaceFile(path);
  auto projected = LoadXSpaceFile(path, OpStatsLoadOptions());
  ASSERT_TRUE(whole.ok() && projected.ok());
  const EventGroups a = GroupEvents(**whole), b = GroupEvents(**projected);
  EXPECT_EQ(a.group_of, b.group_of);
  // Both links took: all of the work is in the step.
  for (const auto& plane : a.group_of) {
    for (int32_t g : plane) EXPECT_EQ(g, 0);
  }
}

TEST(OpsProjection, LeftOutStatsAreNotStoredButStillValidated) {
  const std::string path = std::string(TBPROF_TESTDATA) + "/xplane/jax_rocm_mi300_gemm/tw003.xplane.pb";
  if (!fs::exists(path)) GTEST_FAIL() << "required: testdata not found: " << path;
  auto whole = LoadXSpaceFile(path);
  ASSERT_TRUE(whole.ok());
  LoadOptions options;
  options.keep_event_stat = [](std::string_view, std::string_view stat) { return stat == "correlation_id"; };
  auto projected = LoadXSpaceFile(path, options);
  ASSERT_TRUE(projected.ok());
  ASSERT_EQ((*projected)->planes.size(), (*whole)->planes.size());
  size_t kept = 0, expected = 0;
  for (size_t p = 0; p < (*whole)->planes.size(); ++p) {
    const XPlaneModel& a = (*whole)->planes[p];
    const XPlaneModel& b = (*projected)->planes[p];
    ASSERT_EQ(a.events.size(), b.events.size());
    EXPECT_EQ(a.plane_stats.size(), b.plane_stats.size());
    EXPECT_EQ(a.metadata_stats.size(), b.metadata_stats.size());
    for (const Stat& s : a.event_stats) expected += (*whole)->Str(s.name) == "correlation_id";
    for (const Stat& s : b.event_stats) {
      EXPECT_EQ((*projected)->Str(s.name), "correlation_id");
      ++kept;
    }
  }
  EXPECT_GT(expected, 0u);
  EXPECT_EQ(kept, expected);

  // Left-out stats are decoded all the same: the corrupt profile is still rejected.
  const std::string corrupt = std::string(TBPROF_TESTDATA) + "/xplane/corrupt";
  for (const auto& e : fs::directory_iterator(corrupt)) {
    auto bad = LoadXSpaceFile(e.path().string(), options);
    EXPECT_FALSE(bad.ok()) << e.path();
  }
}

// TF's allocator writes a `tf_op` on every allocation and deallocation event:
// in a training profile most of the host's events. The OpStats load must not
// store them (they are what the host op metrics never read), while a load
// keeping the stat on the whole plane does. The synthetic profile's host
// writes `tf_op` on allocator events only.
TEST(OpsProjection, HostTfOpIsNotStoredOnAllocatorEvents) {
  const std::string path = test_files::TempPath("projection_alloc/worker0.xplane.pb");
  test_files::WriteSyntheticFile(path, SynthShape(/*gpus=*/1, /*steps=*/3, /*events=*/20000, /*seed=*/3));
  auto host_tf_op_stats = [](const XSpaceModel& m) {
    size_t n = 0;
    for (const XPlaneModel& p : m.planes) {
      if (m.Str(p.name) != "/host:CPU") continue;
      for (const Stat& s : p.event_stats) n += m.Str(s.name) == "tf_op";
    }
    return n;
  };
  LoadOptions whole_plane;
  whole_plane.keep_event_stat = OpStatsReadsEventStat;
  auto wide = LoadXSpaceFile(path, whole_plane);
  auto narrow = LoadXSpaceFile(path, OpStatsLoadOptions());
  ASSERT_TRUE(wide.ok() && narrow.ok());
  EXPECT_GT(host_tf_op_stats(**wide), 0u);
  EXPECT_EQ(host_tf_op_stats(**narrow), 0u);
  fs::remove_all(fs::path(path).parent_path());
}

}  // namespace
}  // namespace tbprof
