// `tbprof convert --memory_mb N` stops a conversion that would claim more than
// N MiB with an error naming the flag, instead of growing: a gzip bomb (2 GiB
// of whitespace in 2 MB, which inflated to 4 GiB before failing) and a PyTorch
// trace whose one name is 192 MB (held three times over before). The child's
// peak RSS is taken from wait4.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/hostile_inputs.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;

struct ChildResult {
  int exit_code = -1;
  uint64_t peak_rss_bytes = 0;
  std::string err;
};

// Runs `tbprof ARGS`, stderr to a file, and reports its exit and peak memory.
ChildResult RunTbprof(std::vector<std::string> args, const fs::path& err_path) {
  args.insert(args.begin(), TBPROF_BINARY);
  const pid_t pid = fork();
  if (pid == 0) {
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(err, 2);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  ChildResult r;
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) == pid && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.peak_rss_bytes = static_cast<uint64_t>(usage.ru_maxrss) * 1024;
  r.err = testing_plugin::ReadFile(err_path);
  return r;
}

constexpr uint64_t kBoundMb = 256;
// The process's own pages (binary, libraries, the mapped input) beside its claims.
constexpr uint64_t kSlackBytes = uint64_t{96} << 20;

TEST(ConvertMemoryCommand, GzipBombStopsAtTheMemoryBound) {
  testing_plugin::ScratchDir t;
  const fs::path bomb = t.path() / "h.pt.trace.json.gz";
  bench::WriteGzipStream(bomb, "{\"traceEvents\":[", uint64_t{2} << 30, ' ', "]}", 9);
  ChildResult r = RunTbprof({"convert", bomb.string(), "--tool", "overview_page", "--memory_mb",
                             std::to_string(kBoundMb), "--out", "/dev/null"},
                            t.path() / "err.txt");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("decompressing h.pt.trace.json.gz: needs more than --memory_mb 256 MiB"), std::string::npos)
      << r.err;
  EXPECT_LT(r.peak_rss_bytes, (kBoundMb << 20) + kSlackBytes);
}

TEST(ConvertMemoryCommand, AHugeNameStopsAtTheMemoryBound) {
  testing_plugin::ScratchDir t;
  const fs::path trace = t.path() / "h.pt.trace.json";
  {
    std::ofstream out(trace, std::ios::binary);
    out << "{\"schemaVersion\":1,\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":1,"
           "\"dur\":2,\"name\":\"";
    const std::string block(1 << 20, 'a');
    for (int i = 0; i < 192; ++i) out << block;
    out << "\"}]}\n";
  }
  ChildResult r = RunTbprof({"convert", trace.string(), "--tool", "overview_page", "--memory_mb",
                             std::to_string(kBoundMb), "--out", "/dev/null"},
                            t.path() / "err.txt");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("needs more than --memory_mb 256 MiB; raise --memory_mb"), std::string::npos) << r.err;
  // The name is claimed once as it is read; the mapped file's pages count too.
  EXPECT_LT(r.peak_rss_bytes, (kBoundMb << 20) + (uint64_t{192} << 20) + kSlackBytes);
}

TEST(ConvertMemoryCommand, HelpStatesTheDefaultBound) {
  auto r = test_files::RunCommand(std::string(TBPROF_BINARY) + " convert --help 2>&1");
  EXPECT_NE(r.output.find("--memory_mb"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("half of this machine's physical memory"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace tbprof
