// The writer's XSpace, checked with libprotobuf's generated classes, with
// tbprof's own reader, and (when installed) with `protoc --decode`.
#include "harness/host_plane_writer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include "convert/xplane/xspace_reader.h"
#include "proto/xplane.pb.h"

namespace tbprof::harness {
namespace {

namespace fs = std::filesystem;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;

// 2026-01-02 03:04:05 UTC in ns.
constexpr int64_t kStart = 1767323045'000000000;

TraceSession HandMadeSession() {
  TraceSession s;
  s.start_walltime_ns = kStart;
  s.stop_walltime_ns = kStart + 10'000'000;
  TracedThread worker{42, "tf_data_iterator_resource", {}};
  // Completion order (inner first), as the tracer records them.
  worker.events.push_back({"Iterator::Root::Map#id=2,parent_id=1#", kStart + 2000, kStart + 5000});
  worker.events.push_back({"PrefetchProduce#element_id=9#", kStart + 1000, kStart + 6000});
  worker.events.push_back({"before#x=1#", kStart - 10, kStart + 5});  // began before the session: dropped
  TracedThread loop{7, "tf_train_loop", {}};
  loop.events.push_back(
      {"train#step_num=3,_r=1,big=18446744073709551615,ratio=0.5,mode=fast,neg=-4,plus=+9#", kStart + 500, kStart + 9000});
  s.threads = {worker, loop};
  return s;
}

const XPlane* FindPlane(const XSpace& space, const std::string& name) {
  for (const XPlane& p : space.planes())
    if (p.name() == name) return &p;
  return nullptr;
}

TEST(HarnessWriter, HostPlaneWithLibprotobuf) {
  XSpace space = SessionToXSpace(HandMadeSession(), "testhost");
  std::string bytes = space.SerializeAsString();
  XSpace decoded;
  ASSERT_TRUE(decoded.ParseFromString(bytes));
  ASSERT_EQ(decoded.hostnames_size(), 1);
  EXPECT_EQ(decoded.hostnames(0), "testhost");

  const XPlane* env = FindPlane(decoded, "Task Environment");
  ASSERT_NE(env, nullptr);
  std::map<std::string, uint64_t> env_stats;
  for (const auto& st : env->stats()) env_stats[env->stat_metadata().at(st.metadata_id()).name()] = st.uint64_value();
  EXPECT_EQ(env_stats["profile_start_time"], uint64_t(kStart));
  EXPECT_EQ(env_stats["profile_stop_time"], uint64_t(kStart + 10'000'000));

  const XPlane* host = FindPlane(decoded, "/host:CPU");
  ASSERT_NE(host, nullptr);
  ASSERT_EQ(host->lines_size(), 2);
  // Lines sorted by name: tf_data_iterator_resource < tf_train_loop.
  const auto& worker = host->lines(0);
  const auto& loop = host->lines(1);
  EXPECT_EQ(worker.name(), "tf_data_iterator_resource");
  EXPECT_EQ(worker.id(), 42);
  EXPECT_EQ(worker.timestamp_ns(), 0) << "normalized to the profile start";
  EXPECT_EQ(worker.duration_ps(), 10'000'000'000);
  EXPECT_EQ(loop.name(), "tf_train_loop");
  EXPECT_EQ(loop.id(), 7);

  auto name_of = [&](const tensorflow::profiler::XEvent& e) { return host->event_metadata().at(e.metadata_id()).name(); };
  auto stat_name = [&](const tensorflow::profiler::XStat& s) { return host->stat_metadata().at(s.metadata_id()).name(); };
  ASSERT_EQ(worker.events_size(), 2) << "the event that began before the session is dropped";
  // Sorted by begin: the outer Produce (1 µs) before the inner iterator (2 µs).
  EXPECT_EQ(name_of(worker.events(0)), "PrefetchProduce");
  EXPECT_EQ(worker.events(0).offset_ps(), 1'000'000);
  EXPECT_EQ(worker.events(0).duration_ps(), 5'000'000);
  EXPECT_EQ(name_of(worker.events(1)), "Iterator::Root::Map");
  EXPECT_EQ(worker.events(1).offset_ps(), 2'000'000);
  EXPECT_EQ(worker.events(1).duration_ps(), 3'000'000);
  ASSERT_EQ(worker.events(1).stats_size(), 2);
  EXPECT_EQ(stat_name(worker.events(1).stats(0)), "id");
  EXPECT_EQ(worker.events(1).stats(0).int64_value(), 2);
  EXPECT_EQ(stat_name(worker.events(1).stats(1)), "parent_id");
  EXPECT_EQ(worker.events(1).stats(1).int64_value(), 1);

  ASSERT_EQ(loop.events_size(), 1);
  const auto& train = loop.events(0);
  EXPECT_EQ(name_of(train), "train");
  ASSERT_EQ(train.stats_size(), 7);
  std::map<std::string, const tensorflow::profiler::XStat*> st;
  for (const auto& s : train.stats()) st[stat_name(s)] = &s;
  EXPECT_EQ(st["step_num"]->value_case(), tensorflow::profiler::XStat::kInt64Value);
  EXPECT_EQ(st["step_num"]->int64_value(), 3);
  EXPECT_EQ(st["_r"]->int64_value(), 1);
  EXPECT_EQ(st["big"]->value_case(), tensorflow::profiler::XStat::kUint64Value);
  EXPECT_EQ(st["big"]->uint64_value(), 18446744073709551615ull);
  EXPECT_EQ(st["ratio"]->value_case(), tensorflow::profiler::XStat::kDoubleValue);
  EXPECT_DOUBLE_EQ(st["ratio"]->double_value(), 0.5);
  EXPECT_EQ(st["neg"]->int64_value(), -4);
  EXPECT_EQ(st["plus"]->value_case(), tensorflow::profiler::XStat::kInt64Value);
  EXPECT_EQ(st["plus"]->int64_value(), 9);
  ASSERT_EQ(st["mode"]->value_case(), tensorflow::profiler::XStat::kRefValue);
  EXPECT_EQ(host->stat_metadata().at(int64_t(st["mode"]->ref_value())).name(), "fast");
}

TEST(HarnessWriter, WritesRunDirectoryThatTbprofReads) {
  fs::path logdir = fs::temp_directory_path() / ("tbprof-writer-test-" + std::to_string(::getpid()));
  fs::remove_all(logdir);
  TraceSession session = HandMadeSession();
  std::string run_dir = RunDirectoryFor(logdir.string(), session.start_walltime_ns);
  EXPECT_EQ(run_dir, (logdir / "plugins/profile/2026_01_02_03_04_05").string());
  auto path = WriteXSpace(SessionToXSpace(session, "testhost"), run_dir, "testhost");
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(*path, run_dir + "/testhost.xplane.pb");
  // A second run in the same second gets its own directory.
  EXPECT_EQ(RunDirectoryFor(logdir.string(), session.start_walltime_ns), run_dir + "_1");
  // A named run (the harness names runs after their pipeline variant) uses the name instead of the time.
  EXPECT_EQ(RunDirectoryFor(logdir.string(), session.start_walltime_ns, "prefetch"), (logdir / "plugins/profile/prefetch").string());

  auto model = LoadXSpaceFile(*path);
  ASSERT_TRUE(model.ok()) << model.status().message();
  const XSpaceModel& m = **model;
  const XPlaneModel* host = m.FindPlane("/host:CPU");
  ASSERT_NE(host, nullptr);
  ASSERT_EQ(host->lines.size(), 2u);
  EXPECT_EQ(m.Str(host->lines[0].name), "tf_data_iterator_resource");
  ASSERT_EQ(host->events.size(), 3u);
  EXPECT_EQ(m.Str(host->EventName(1)), "Iterator::Root::Map");
  EXPECT_EQ(host->events[1].begin_ps, 2'000'000);
  const Stat* parent = host->FindStat(1, m.Find("parent_id"));
  ASSERT_NE(parent, nullptr);
  EXPECT_EQ(parent->IntValue(), 1);
  const XPlaneModel* env = m.FindPlane("Task Environment");
  ASSERT_NE(env, nullptr);
  const Stat* start = env->FindPlaneStat(m.Find("profile_start_time"));
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(start->UintValue(), uint64_t(kStart));

  // Errors are values: an unwritable run directory.
  auto bad = WriteXSpace(XSpace(), "/proc/tbprof-no-such-dir/run", "h");
  EXPECT_FALSE(bad.ok());

  // protoc's own decoder shows the names, when protoc is installed.
  if (std::system("protoc --version > /dev/null 2>&1") == 0) {
    std::string out_file = (logdir / "decoded.txt").string();
    std::string cmd = std::string("protoc --decode=tensorflow.profiler.XSpace -I") + TBPROF_SOURCE_DIR +
                      " proto/xplane.proto < " + *path + " > " + out_file + " 2>&1";
    std::string cwd = fs::current_path().string();
    fs::current_path(TBPROF_SOURCE_DIR);
    int rc = std::system(cmd.c_str());
    fs::current_path(cwd);
    ASSERT_EQ(rc, 0) << cmd;
    std::ifstream in(out_file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char* expected : {"name: \"/host:CPU\"", "name: \"Task Environment\"", "name: \"tf_train_loop\"",
                                 "name: \"Iterator::Root::Map\"", "name: \"PrefetchProduce\"",
                                 "name: \"profile_start_time\"", "hostnames: \"testhost\"", "name: \"element_id\""}) {
      EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text.substr(0, 2000);
    }
  } else {
    std::printf("protoc not installed: skipped the protoc --decode check\n");
  }
  fs::remove_all(logdir);
}

}  // namespace
}  // namespace tbprof::harness
