// OpStatsFold: hosts added one at a time, each gone once added, combine as
// CombineOpStats combines them all at once, on a run whose hosts' steps
// differ (counted by hand below).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/op_stats/op_stats_combiner.h"
#include "convert/analysis/op_stats/op_stats_serial.h"

namespace tbprof {
namespace {

constexpr int64_t kUs = 1000000;

OpMetrics Op(const std::string& name, uint64_t occurrences, uint64_t time_ps, uint64_t self_ps, uint64_t min_ps) {
  OpMetrics m;
  m.name = name;
  m.category = "MatMul";
  m.occurrences = occurrences, m.time_ps = time_ps, m.self_time_ps = self_ps, m.min_time_ps = min_ps;
  return m;
}

void AddKernel(OpStats& s, uint32_t block, uint64_t total_ns, uint64_t min_ns, uint64_t max_ns, uint32_t times) {
  auto* r = s.kernel_stats_db.add_reports();
  r->set_name("volta_sgemm_128x64_nn");
  r->set_op_name("dense/MatMul");
  r->add_block_dim(block), r->add_grid_dim(4);
  r->set_total_duration_ns(total_ns), r->set_min_duration_ns(min_ns), r->set_max_duration_ns(max_ns);
  r->set_occurrences(times);
}

// `n` steps of 100 µs numbered from `first_num`, the first at `first_begin_us`.
OpStats Host(const std::string& name, const std::string& hardware, int64_t first_num, int64_t first_begin_us, int n) {
  OpStats s;
  s.run_environment.hostnames = {name};
  s.run_environment.hardware_type = hardware;
  HostSteps hs;
  hs.hostname = name;
  for (int i = 0; i < n; ++i) {
    StepInfo st;
    st.step_num = first_num + i;
    st.begin_ps = (first_begin_us + 100 * i) * kUs;
    st.duration_ps = 100 * kUs;
    st.type_ps[DEVICE_COMPUTE_32] = static_cast<uint64_t>(10 + i);
    hs.steps.push_back(st);
  }
  s.steps.push_back(hs);
  return s;
}

// Host a: steps 1..4 over 0-400 µs; b: 101..103 over 100-400 µs; c: 201..203
// over 200-500 µs; a coordinator (no devices) with steps far later. b and c
// span the least time, b first: the chief. Common to a, b and c are 200-400
// µs: a's steps 3 and 4, b's 102 and 103, c's 201 and 202, each numbered as
// b's. The coordinator's steps are left out (the run has GPUs).
std::vector<OpStats> FourHosts() {
  std::vector<OpStats> hosts;
  hosts.push_back(Host("a", "GPU", 1, 0, 4));
  hosts.push_back(Host("b", "GPU", 101, 100, 3));
  hosts.push_back(Host("c", "GPU", 201, 200, 3));
  hosts.push_back(Host("coordinator", "CPU_ONLY", 1, 5000, 2));
  hosts[0].host_op_metrics_db.ops["MatMul"] = Op("MatMul", 2, 10, 8, 3);
  hosts[1].host_op_metrics_db.ops["MatMul"] = Op("MatMul", 1, 5, 5, 5);
  hosts[2].host_op_metrics_db.ops["Conv2D"] = Op("Conv2D", 7, 70, 60, 9);
  for (OpStats& h : hosts) h.host_op_metrics_db.total_time_ps = 1000;
  AddKernel(hosts[0], 128, 100, 10, 40, 4);
  AddKernel(hosts[1], 256, 70, 70, 70, 1);  // other launch dims: a row of its own
  AddKernel(hosts[2], 128, 50, 5, 30, 2);
  return hosts;
}

TEST(OpStatsFold, HostsAddedOneAtATimeAndDroppedCombineAsAllAtOnce) {
  std::vector<std::shared_ptr<const OpStats>> all;
  for (OpStats& h : FourHosts()) all.push_back(std::make_shared<const OpStats>(std::move(h)));
  OpStatsFold fold;
  {
    std::vector<OpStats> hosts = FourHosts();
    for (OpStats& h : hosts) {
      fold.Add(std::move(h));
      h = OpStats{};  // what a caller that drops each host leaves behind
    }
  }
  const OpStats folded = std::move(fold).Finish();

  ASSERT_EQ(folded.steps.size(), 3u);
  const char* names[] = {"a", "b", "c"};
  const int64_t first_begin_us[] = {200, 200, 200};
  const uint64_t first_compute[] = {12, 11, 10};  // a's third step, b's second, c's first
  for (size_t h = 0; h < 3; ++h) {
    SCOPED_TRACE(names[h]);
    EXPECT_EQ(folded.steps[h].hostname, names[h]);
    ASSERT_EQ(folded.steps[h].steps.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      const StepInfo& st = folded.steps[h].steps[k];
      EXPECT_EQ(st.step_num, static_cast<int64_t>(102 + k));
      EXPECT_EQ(st.begin_ps, (first_begin_us[h] + 100 * static_cast<int64_t>(k)) * kUs);
      EXPECT_EQ(st.type_ps.at(DEVICE_COMPUTE_32), first_compute[h] + k);
    }
  }
  EXPECT_FALSE(folded.empty_step_intersection);
  const OpMetrics& matmul = folded.host_op_metrics_db.ops.at("MatMul");
  EXPECT_EQ(matmul.occurrences, 3u);
  EXPECT_EQ(matmul.time_ps, 15u);
  EXPECT_EQ(matmul.self_time_ps, 13u);
  EXPECT_EQ(matmul.min_time_ps, 3u);
  EXPECT_EQ(folded.host_op_metrics_db.ops.at("Conv2D").occurrences, 7u);
  EXPECT_EQ(folded.host_op_metrics_db.total_time_ps, 4000u);
  EXPECT_EQ(folded.run_environment.host_count, 4);
  EXPECT_EQ(folded.run_environment.hardware_type, "GPU");
  // a's and c's launches of the same kernel are one row (100 + 50 ns), b's its own.
  ASSERT_EQ(folded.kernel_stats_db.reports_size(), 2);
  const auto& merged = folded.kernel_stats_db.reports(0);
  EXPECT_EQ(merged.block_dim(0), 128u);
  EXPECT_EQ(merged.total_duration_ns(), 150u);
  EXPECT_EQ(merged.min_duration_ns(), 5u);
  EXPECT_EQ(merged.max_duration_ns(), 40u);
  EXPECT_EQ(merged.occurrences(), 6u);
  EXPECT_EQ(folded.kernel_stats_db.reports(1).block_dim(0), 256u);

  // Every field, against the hosts combined all at once from shared copies.
  EXPECT_EQ(SerializeOpStats(folded), SerializeOpStats(CombineOpStats(all)));
}

TEST(OpStatsFold, NoHostIsAnEmptyOpStats) {
  EXPECT_EQ(SerializeOpStats(OpStatsFold().Finish()), SerializeOpStats(OpStats{}));
}

}  // namespace
}  // namespace tbprof
