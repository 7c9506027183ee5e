// Issue 46 item 6: every long loop of a conversion looks at the request's
// cancellation token. Per loop family (PyTorch import, both threads; gzip;
// grouping; op statistics; tfprof's op view and its matching; compare's step
// events), the whole work is counted in checkpoints, then cancelled by the
// checkpoint hook early, half-way and late: each time it
// answers cancelled (or stops where the caller drops the result) within a few
// checkpoints of the cancel.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "convert/analysis/compare/step_events.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/analysis/tfprof/tfprof_options.h"
#include "convert/analysis/tfprof/tfprof_show.h"
#include "convert/base/cancellation.h"
#include "convert/grouping/group_events.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/tools/cached_loads.h"
#include "tests/convert/analysis/tfprof/tfprof_test_util.h"
#include "tests/convert/kineto/kineto_trace_writer.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

struct CheckedRun {
  Status status;
  uint64_t checkpoints = 0;    // passed in all
  uint64_t after_cancel = 0;   // passed after the one that cancelled
};

constexpr uint64_t kNever = UINT64_MAX;

// Runs `work` under a token that the checkpoint hook cancels at checkpoint
// number `cancel_at` (from 1; kNever: not at all).
CheckedRun RunCancelledAt(uint64_t cancel_at, const std::function<Status()>& work) {
  auto token = std::make_shared<CancellationToken>();
  std::atomic<uint64_t> seen{0};
  SetCancellationCheckpointHook([&] {
    if (seen.fetch_add(1) + 1 == cancel_at) token->Cancel();
  });
  CheckedRun r;
  {
    CancellationScope scope(token);
    r.status = work();
  }
  SetCancellationCheckpointHook(nullptr);
  r.checkpoints = seen.load();
  r.after_cancel = cancel_at == kNever || r.checkpoints < cancel_at ? 0 : r.checkpoints - cancel_at;
  return r;
}

bool IsCancelled(const Status& s) {
  return s.code() == ErrorCode::kUnavailable && s.message().find("cancelled") != std::string::npos;
}

// The whole work passes at least `min_checkpoints`; cancelled at its first
// checkpoint, half-way and three quarters through (two threads pass theirs in
// no fixed order, so not at the very last), it answers cancelled within
// `slack` more.
void ExpectStopsPromptly(const char* family, uint64_t min_checkpoints, uint64_t slack,
                         const std::function<Status()>& work) {
  const CheckedRun whole = RunCancelledAt(kNever, work);
  ASSERT_TRUE(whole.status.ok()) << family << ": " << whole.status.message();
  std::printf("%s: %llu checkpoints in the whole work\n", family, static_cast<unsigned long long>(whole.checkpoints));
  ASSERT_GE(whole.checkpoints, min_checkpoints) << family;
  for (uint64_t at : {uint64_t{1}, whole.checkpoints / 2, whole.checkpoints * 3 / 4}) {
    const CheckedRun cut = RunCancelledAt(at, work);
    EXPECT_TRUE(IsCancelled(cut.status)) << family << " cancelled at " << at << ": " << cut.status.message();
    EXPECT_LE(cut.after_cancel, slack) << family << " cancelled at checkpoint " << at << " of " << whole.checkpoints;
  }
}

// 240 steps of 250 ops: 180,000 events, about 27 MB of JSON.
const std::string& BigTrace() {
  static const std::string json = testing_kineto::TrainingLoopTrace(240, 250);
  return json;
}

LoadOptions TwoThreads() {
  LoadOptions o;
  o.parallel_min_bytes = 1 << 20;
  return o;
}

TEST(CancellationCheckpoints, PyTorchImportStopsOnBothThreads) {
  // Reading (two threads, one poll each per 4096 events) and building the planes.
  ExpectStopsPromptly("kineto import", 40, 3, [] { return ParseKinetoTrace(BigTrace(), "big", TwoThreads()).status(); });
}

TEST(CancellationCheckpoints, GzipInflationStops) {
  testing_plugin::ScratchDir t;
  const auto path = t.path() / "big.pt.trace.json.gz";
  testing_plugin::WriteFile(path, testing_plugin::Gzip(BigTrace()));
  const CheckedRun cut = RunCancelledAt(1, [&] { return LoadKinetoFile(path.string()).status(); });
  EXPECT_TRUE(IsCancelled(cut.status)) << cut.status.message();
  EXPECT_NE(cut.status.message().find("inflating"), std::string::npos) << cut.status.message();
  EXPECT_EQ(cut.after_cancel, 0u);
}

std::shared_ptr<const XSpaceModel> BigModel() {
  static const std::shared_ptr<const XSpaceModel> model = [] {
    auto m = ParseKinetoTrace(BigTrace(), "big");
    EXPECT_TRUE(m.ok()) << m.status().message();
    return std::shared_ptr<const XSpaceModel>(m.ok() ? std::move(m).value() : std::make_unique<XSpaceModel>());
  }();
  return model;
}

TEST(CancellationCheckpoints, GroupingStopsWithEveryEventUngrouped) {
  const XSpaceModel& space = *BigModel();
  auto grouped = [&](EventGroups* out) {
    *out = GroupEvents(space);
    return CancelRequested() ? CancelledError("grouping") : Status::Ok();
  };
  EventGroups whole;
  ExpectStopsPromptly("grouping", 20, 3, [&] { return grouped(&whole); });
  // Cancelled half-way: a well-formed answer in which nothing is grouped.
  EventGroups cut;
  const CheckedRun half = RunCancelledAt(20, [&] { return grouped(&cut); });
  ASSERT_TRUE(IsCancelled(half.status));
  ASSERT_EQ(cut.group_of.size(), space.planes.size());
  for (size_t p = 0; p < space.planes.size(); ++p) {
    ASSERT_EQ(cut.group_of[p].size(), space.planes[p].events.size());
    for (int32_t g : cut.group_of[p]) ASSERT_EQ(g, kNoGroup);
  }
}

TEST(CancellationCheckpoints, OpStatisticsStop) {
  // Grouping, host and device op metrics, kernel statistics and the PyTorch
  // overview's steps, on two threads; the caller drops what a cancel cut short.
  const XSpaceModel& space = *BigModel();
  // Each step after the one cancelled passes a checkpoint or two on its way out.
  ExpectStopsPromptly("op statistics", 60, 10, [&] {
    (void)ConvertXSpaceToOpStats(space);
    return CancelRequested() ? CancelledError("op statistics") : Status::Ok();
  });
  // Through the loader, nothing cached: the cancelled statistics are an error.
  testing_plugin::ScratchDir t;
  const auto path = t.path() / "big.pt.trace.json";
  testing_plugin::WriteFile(path, BigTrace());
  const CheckedRun cut = RunCancelledAt(60, [&] { return LoadOpStatsCached(path.string(), nullptr).status(); });
  EXPECT_TRUE(IsCancelled(cut.status)) << cut.status.message();
  EXPECT_LE(cut.after_cancel, 10u);
}

TEST(CancellationCheckpoints, TfprofOpViewMatchingStops) {
  // One op type of 40,000 nodes, every one matched against the accounting regex.
  tfprof_fixtures::ProfileWriter w;
  for (int i = 0; i < 40000; ++i) {
    const std::string name = "layer" + std::to_string(i) + "/MatMul";
    w.Node(name, "MatMul");
    w.Run(name, 0, tfprof_fixtures::ProfileWriter::Exec{"/job:w/replica:0/task:0/device:gpu:0", 1, {10}, {}, 0, 0, 0, 0});
  }
  const tfprof::Model model = tfprof_test::ReadFixture(w);
  tfprof::Options o;
  ASSERT_TRUE(tfprof::ParseOptionWords({"-account_type_regexes", "Mat.*,Conv.*"}, o).ok());
  ExpectStopsPromptly("tfprof op view", 8, 3, [&] { return tfprof::ShowView(model, "op", o).status(); });
}

TEST(CancellationCheckpoints, CompareStepEventsStop) {
  const std::vector<const XSpaceModel*> hosts = {BigModel().get()};
  ExpectStopsPromptly("compare step events", 20, 2, [&] { return HostEventsOfStep(hosts, 200).status(); });
}

}  // namespace
}  // namespace tbprof
