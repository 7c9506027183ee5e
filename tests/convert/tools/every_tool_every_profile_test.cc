// `tbprof convert` of every tool on every real profile in testdata (and on
// hand-built profiles that once crashed it or broke its JSON) exits 0 or 1,
// never by a signal, and prints UTF-8 that parses as JSON; a failure prints a
// message. The real profiles are in tests/realdata: without them the test
// fails instead of skipping.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <boost/json.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "convert/base/json.h"
#include "convert/tools/tool_registry.h"
#include "proto/xspace_builder.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using tensorflow::profiler::XSpace;
using test_files::RealXPlaneDir;
using test_files::RealXPlaneFiles;

struct ConvertRun {
  int exit_code = -1;
  int signal = 0;
  std::string out, err;
};

std::string Slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// A scratch folder removed when the test program exits, so runs leave
// nothing behind in the temporary directory.
struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("tbprof-every-tool-" + std::to_string(::getpid()));
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

fs::path TempDir() {
  static const ScratchDir dir;
  return dir.path;
}

ConvertRun Convert(const std::vector<std::string>& files, const std::string& tool) {
  fs::path out = TempDir() / "out", err = TempDir() / "err";
  std::string cmd = std::string(TBPROF_BINARY) + " convert";
  for (const std::string& file : files) cmd += " '" + file + "'";
  cmd += " --tool '" + tool + "' >" + out.string() + " 2>" + err.string();
  int status = std::system(cmd.c_str());
  ConvertRun r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  // std::system runs a shell: a child killed by a signal shows as 128 + signal.
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (r.exit_code > 128) r.signal = r.exit_code - 128;
  r.out = Slurp(out);
  r.err = Slurp(err);
  return r;
}

ConvertRun Convert(const std::string& file, const std::string& tool) {
  return Convert(std::vector<std::string>{file}, tool);
}

void ExpectEveryToolAnswers(const std::vector<std::string>& files) {
  for (const ToolSpec& tool : ProfileTools()) {
    SCOPED_TRACE(tool.name + " on " + files.front() + (files.size() > 1 ? " and others" : ""));
    ConvertRun r = Convert(files, tool.name);
    EXPECT_EQ(r.signal, 0) << r.err;
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "exit " << r.exit_code << ": " << r.err;
    if (r.exit_code == 1) {
      EXPECT_NE(r.err.find("tbprof convert: "), std::string::npos) << "no message: " << r.err;
      continue;
    }
    EXPECT_TRUE(IsValidUtf8(r.out));
    boost::system::error_code ec;
    boost::json::parse(r.out, ec);
    EXPECT_FALSE(ec) << ec.message() << ": " << r.out.substr(0, 200);
  }
}

std::string Write(const XSpace& space, const std::string& name) {
  fs::path p = TempDir() / name;
  std::ofstream(p, std::ios::binary) << space.SerializeAsString();
  return p.string();
}

TEST(EveryToolEveryProfile, RealProfilesInTestdata) {
  ASSERT_TRUE(fs::is_directory(RealXPlaneDir()))
      << "testdata missing at " << RealXPlaneDir()
      << " (the real profiles cannot be rebuilt; they are kept in tests/realdata)";
  const std::vector<std::string> files = RealXPlaneFiles(/*include_corrupt=*/true);
  ASSERT_GE(files.size(), 5u);  // four real profiles and the corrupt one
  for (const std::string& f : files) ExpectEveryToolAnswers({f});
}

// The good real profiles opened together, as the hosts of one run: separate
// jobs reuse program ids for different modules, and op_profile once followed a
// pointer into a program that the combined host's data no longer held.
TEST(EveryToolEveryProfile, RealProfilesTogetherAsOneRun) {
  std::vector<std::string> good;
  for (const std::string& f : RealXPlaneFiles()) good.push_back(f);
  ASSERT_GE(good.size(), 4u) << "testdata missing at " << RealXPlaneDir();
  ExpectEveryToolAnswers(good);
}

// An XSpace with nothing set serialises to no bytes; a file of 0 bytes,
// though, is a capture that wrote nothing: every tool names it empty rather
// than drawing an empty-looking page.
TEST(EveryToolEveryProfile, EmptyFileIsNamedEmpty) {
  std::string path = Write(XSpace(), "empty.xplane.pb");
  ASSERT_EQ(fs::file_size(path), 0u);
  for (const ToolSpec& tool : ProfileTools()) {
    SCOPED_TRACE(tool.name);
    ConvertRun r = Convert(path, tool.name);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("this profile file is empty (0 bytes)"), std::string::npos) << r.err;
  }
}

// A TPU core whose step is named by a 20-digit number (past int64) and
// tf_op stats holding bytes that are not UTF-8. (Names of event metadata must
// be UTF-8: a file with bad bytes there is rejected as not an XSpace, as
// libprotobuf rejects it.)
TEST(EveryToolEveryProfile, TwentyDigitStepNameAndNonUtf8OpNames) {
  XSpace space;
  space.add_hostnames("host");
  {
    XPlaneBuilder tpu = AddPlane(space, "/device:TPU:0", 1);
    tpu.AddLine(1, "Steps").AddEvent("18446744073709551616", 0, 1000000);
    XLineBuilder ops = tpu.AddLine(2, "XLA Ops");
    ops.AddEvent("fusion.1", 100, 5000).Str("hlo_category", "convolution").Str("tf_op", "a\xff\xfe:Conv2D");
  }
  {
    XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 2);
    gpu.Str("device_vendor", "Nvidia").Int("compute_cap_major", 9);
    XLineBuilder s = gpu.AddLine(7, "Stream #7");
    s.AddEvent("nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT", 1000, 4000)
        .Int("correlation_id", 1)
        .Str("tf_op", "model/\xc3\x28/MatMul:MatMul")
        .Ref("kernel_details", "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:128,1,1 occ_pct:50");
  }
  {
    XPlaneBuilder host = AddPlane(space, "/host:CPU", 3);
    XLineBuilder t = host.AddLine(1, "python");
    t.AddEvent("train", 0, 10000).Int("step_num", 1).Int("_r", 1);
    t.AddEvent("model/MatMul:MatMul", 10, 500).Int("correlation_id", 1).Str("tf_op", "bad\xe2\x82:Op");
  }
  ExpectEveryToolAnswers({Write(space, "odd.xplane.pb")});
  // The CSV outputs are UTF-8 too.
  for (const char* tool : {"framework_op_stats", "kernel_stats"}) {
    ToolInput in;
    in.profile_paths = {(TempDir() / "odd.xplane.pb").string()};
    in.csv = true;
    auto out = FindProfileTool(tool)->run(in);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(IsValidUtf8(out->body)) << tool;
  }
}

// A converter's exception becomes an error value at the tool boundary (the
// server answers it with a 500 and the message, the CLI exits 1 with it).
TEST(EveryToolEveryProfile, ExceptionsBecomeErrorsAtTheToolBoundary) {
  ToolFn throws = Guarded("some_tool", [](const ToolInput&) -> StatusOr<ToolOutput> {
    return std::string("x").substr(5), ToolOutput();
  });
  auto out = throws(ToolInput());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), ErrorCode::kInternal);
  EXPECT_NE(out.status().message().find("some_tool: conversion failed: "), std::string::npos)
      << out.status().message();
  ToolFn fine = Guarded("fine", [](const ToolInput&) -> StatusOr<ToolOutput> { return ToolOutput(); });
  EXPECT_TRUE(fine(ToolInput()).ok());
}

TEST(EveryToolEveryProfile, MissingFileIsAMessageNotACrash) {
  for (const ToolSpec& tool : ProfileTools()) {
    SCOPED_TRACE(tool.name);
    ConvertRun r = Convert((TempDir() / "does-not-exist.xplane.pb").string(), tool.name);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("does-not-exist"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace tbprof
