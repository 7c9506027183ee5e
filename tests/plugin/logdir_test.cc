#include "plugin/logdir.h"

#include <gtest/gtest.h>

#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

using testing_plugin::TempLogdir;

std::vector<std::string> Names(const std::vector<RunRef>& runs) {
  std::vector<std::string> names;
  for (const RunRef& r : runs) names.push_back(r.name);
  return names;
}

TEST(PluginLogdir, DiscoversNestedRunsReverseSorted) {
  TempLogdir t;
  auto logdir = Logdir::Open(t.logdir());
  ASSERT_TRUE(logdir.ok()) << logdir.status().message();
  auto runs = logdir->ListRuns({});
  ASSERT_TRUE(runs.ok());
  // evil_link leaves the logdir and `noise` is a file: neither is a run.
  EXPECT_EQ(Names(*runs), (std::vector<std::string>{"tf22/GPU-input-bound", "tf22/GPU-compute-bound", "tf22/Cloud-TPU",
                                                    "nested/deeper/train/run_multi", "empty_run", "demo/jsononly",
                                                    "2020_08_05_13_37_44"}));
  for (const RunRef& r : *runs) EXPECT_EQ(r.dir.rfind(logdir->root() + "/", 0), 0u) << r.dir;
}

TEST(PluginLogdir, ParsesHostsWithDots) {
  std::vector<std::string> suffixes = {"xplane.pb", "trace.json.gz", "json.gz"};
  std::string host, suffix;
  ASSERT_TRUE(ParseRunFileName("host.domain.com.xplane.pb", suffixes, &host, &suffix));
  EXPECT_EQ(host, "host.domain.com");
  EXPECT_EQ(suffix, "xplane.pb");
  ASSERT_TRUE(ParseRunFileName("10.240.1.50.trace.json.gz", suffixes, &host, &suffix));
  EXPECT_EQ(host, "10.240.1.50");
  EXPECT_EQ(suffix, "trace.json.gz");  // the longest suffix wins over "json.gz"
  ASSERT_TRUE(ParseRunFileName("xplane.pb", suffixes, &host, &suffix));
  EXPECT_EQ(host, "");
  EXPECT_FALSE(ParseRunFileName("host.xplane.pb.tmp", suffixes, &host, &suffix));
  EXPECT_FALSE(ParseRunFileName("hostxplane.pb", suffixes, &host, &suffix));
}

TEST(PluginLogdir, ScanRunSplitsFilesAndSkipsOutsideLinks) {
  TempLogdir t;
  auto logdir = Logdir::Open(t.logdir());
  ASSERT_TRUE(logdir.ok());
  auto multi = logdir->FindRun("nested/deeper/train/run_multi", {});
  ASSERT_TRUE(multi.ok()) << multi.status().message();
  RunContents c = logdir->ScanRun(multi->dir);
  ASSERT_EQ(c.profiles.size(), 2u);
  EXPECT_EQ(c.profiles[0].host, "host1");
  EXPECT_EQ(c.profiles[1].host, "host2.example.com");
  EXPECT_TRUE(c.legacy.empty());

  auto gpu = logdir->FindRun("tf22/GPU-compute-bound", {});
  ASSERT_TRUE(gpu.ok());
  RunContents g = logdir->ScanRun(gpu->dir);
  // localhost.overview_page.pb and localhost.input_pipeline.pb; the leak.* link is left out.
  ASSERT_EQ(g.legacy.size(), 2u);
  for (const RunFile& f : g.legacy) EXPECT_EQ(f.host, "localhost");
}

TEST(PluginLogdir, RejectsRunNamesThatEscape) {
  TempLogdir t;
  auto logdir = Logdir::Open(t.logdir());
  ASSERT_TRUE(logdir.ok());
  const std::vector<std::string> bads = {"../logdir/plugins/profile/empty_run", "/etc", "tf22/../../x", "a/./b", "a//b",
                                        std::string("empty_run\0x", 11), "a\\b", "evil_link"};
  for (const std::string& bad : bads) {
    auto r = logdir->FindRun(bad, {});
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << bad << ": " << r.status().message();
  }
  auto unknown = logdir->FindRun("no_such_run", {});
  EXPECT_EQ(unknown.status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(logdir->FindRun("empty_run/", {}).ok());  // xprof strips a trailing '/'
}

TEST(PluginLogdir, SessionAndRunPathStayInside) {
  TempLogdir t;
  auto logdir = Logdir::Open(t.logdir());
  ASSERT_TRUE(logdir.ok());
  const std::string cloud = logdir->root() + "/tf22/plugins/profile/Cloud-TPU";
  auto session = logdir->ListRuns(RunScope{cloud, ""});
  ASSERT_TRUE(session.ok()) << session.status().message();
  EXPECT_EQ(Names(*session), std::vector<std::string>{"Cloud-TPU"});
  auto relative = logdir->ListRuns(RunScope{"tf22/plugins/profile/Cloud-TPU", ""});
  ASSERT_TRUE(relative.ok());
  EXPECT_EQ(Names(*relative), std::vector<std::string>{"Cloud-TPU"});

  auto run_path = logdir->ListRuns(RunScope{"", logdir->root() + "/tf22/plugins/profile"});
  ASSERT_TRUE(run_path.ok());
  EXPECT_EQ(Names(*run_path), (std::vector<std::string>{"GPU-input-bound", "GPU-compute-bound", "Cloud-TPU"}));
  auto found = logdir->FindRun("GPU-input-bound", RunScope{"", "tf22/plugins/profile"});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->dir, logdir->root() + "/tf22/plugins/profile/GPU-input-bound");

  for (std::string bad : {std::string("/etc"), t.base().string() + "/outside", std::string("../outside"),
                          std::string("plugins/profile/evil_link"), std::string("tf22/../tf22")}) {
    auto r = logdir->ListRuns(RunScope{bad, ""});
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << bad;
    auto p = logdir->ListRuns(RunScope{"", bad});
    EXPECT_EQ(p.status().code(), ErrorCode::kInvalidArgument) << bad;
  }
}

TEST(PluginLogdir, OpenRejectsMissingDirectory) {
  EXPECT_EQ(Logdir::Open("/nonexistent/tbprof/logdir").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(Logdir::Open("").status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace tbprof
