// Issue 46 item 6, on a real `tbprof serve` given a large synthetic PyTorch
// trace: a client that disconnects stops its conversion (the process's CPU
// time stops growing), and SIGTERM during a conversion ends the process
// within a couple of seconds. Before the importer and analyses looked at the
// token, the conversion ran to its end after the client left, and SIGTERM
// waited for it. Figures are compared with the CPU a whole conversion of the
// same trace takes on the same server, so the bounds hold on any machine.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/convert/kineto/kineto_trace_writer.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using testing_plugin::RawClient;
using testing_plugin::ScratchDir;
using testing_plugin::ServeProcess;

std::string OverviewRequest(const std::string& run) {
  return "GET /data?run=" + run + "&tag=overview_page HTTP/1.1\r\nHost: localhost\r\n\r\n";
}

// Two runs of one trace (a hard link: the server keys its work by path):
// `whole`, converted to the end to measure it, and `cut`. 600 steps of 500
// ops: 900,000 events, about 150 MB of JSON.
void WriteRuns(const ScratchDir& t) {
  const fs::path whole = t.path() / "plugins/profile/whole/rank0.pt.trace.json";
  testing_plugin::WriteFile(whole, testing_kineto::TrainingLoopTrace(600, 500));
  fs::create_directories(t.path() / "plugins/profile/cut");
  fs::create_hard_link(whole, t.path() / "plugins/profile/cut/rank0.pt.trace.json");
}

std::unique_ptr<ServeProcess> Serve(const ScratchDir& t) {
  return std::make_unique<ServeProcess>(
      std::vector<std::string>{"--logdir", t.path().string(), "--warm", "0", "--memory_mb", "4096"},
      (t.path() / "stderr.log").string());
}

void Sleep(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

// The CPU the server spends on run `whole`'s overview, answered in full.
double WholeConversionCpu(const ServeProcess& server) {
  RawClient c(server.port());
  EXPECT_EQ(c.Get("/runs")->status, 200);
  const double before = server.CpuSeconds();
  auto r = c.Get("/data?run=whole&tag=overview_page");
  EXPECT_TRUE(r.has_value() && r->status == 200);
  return server.CpuSeconds() - before;
}

// Waits (up to 60 s) until the server has spent `seconds` of CPU beyond `from`: the conversion runs.
bool WaitForCpu(const ServeProcess& server, double from, double seconds) {
  for (int i = 0; i < 3000; ++i) {
    if (server.CpuSeconds() - from >= seconds) return true;
    Sleep(0.02);
  }
  return false;
}

// Waits (up to 60 s) until the server's CPU time has not grown for half a
// second; its CPU time then.
double CpuWhenIdle(const ServeProcess& server) {
  double last = server.CpuSeconds();
  for (int i = 0; i < 120; ++i) {
    Sleep(0.5);
    const double now = server.CpuSeconds();
    if (now - last < 0.015) return now;  // at most one clock tick
    last = now;
  }
  return last;
}

// A server that has converted run `whole` (taking `whole` CPU-s) and is a
// quarter into converting run `cut` for `client`.
class CancellationProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteRuns(t_);
    server_ = Serve(t_);
    ASSERT_GT(server_->port(), 0);
    whole_ = WholeConversionCpu(*server_);
    const double idle = server_->CpuSeconds();
    client_ = std::make_unique<RawClient>(server_->port());
    ASSERT_TRUE(client_->SendRaw(OverviewRequest("cut")));
    ASSERT_TRUE(WaitForCpu(*server_, idle, whole_ / 4));
  }

  ScratchDir t_;
  std::unique_ptr<ServeProcess> server_;
  double whole_ = 0;
  std::unique_ptr<RawClient> client_;
};

TEST_F(CancellationProcess, AClientThatLeavesStopsItsConversion) {
  ServeProcess* server = server_.get();
  const double whole = whole_;
  client_.reset();  // the client disconnects a quarter into the conversion
  const double at_close = server->CpuSeconds();
  Sleep(1.0);
  const double after_1s = server->CpuSeconds();
  const double at_idle = CpuWhenIdle(*server);
  std::printf("whole conversion %.2f CPU-s; after the disconnect the server used %.2f s in the next second, "
              "%.2f s in all\n",
              whole, after_1s - at_close, at_idle - at_close);
  // Running to its end it would use about three quarters of `whole` more.
  EXPECT_LT(at_idle - at_close, whole / 4);
  EXPECT_LT(at_idle - after_1s, 0.05);  // stopped within the first second
  RawClient later(server->port());
  auto alive = later.Get("/runs");
  ASSERT_TRUE(alive.has_value());
  EXPECT_EQ(alive->status, 200);
}

TEST_F(CancellationProcess, SigtermDuringAConversionEndsTheProcessPromptly) {
  ServeProcess* server = server_.get();  // its client stays connected: only the signal can stop the work
  const double whole = whole_;
  const double at_signal = server->CpuSeconds();
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(server->pid(), SIGTERM), 0);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(server->pid()), &info, WEXITED | WNOWAIT), 0);  // exited, not reaped
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  const double at_exit = server->CpuSeconds();  // a zombie's /proc stat keeps its times
  std::printf("SIGTERM a quarter into a conversion of %.2f CPU-s: exited after %.2f s, %.2f CPU-s after the signal "
              "(status %d)\n",
              whole, seconds, at_exit - at_signal, info.si_status);
  EXPECT_EQ(info.si_code, CLD_EXITED);
  EXPECT_EQ(info.si_status, 0);
  EXPECT_LT(seconds, 5.0);  // the guarantee is 2 s; the margin is for a loaded machine
  EXPECT_LT(at_exit - at_signal, whole / 4);
  EXPECT_EQ(server->Stop(), 0);  // reaps it
}

// `serve` converts its newest run's overview and trace at start (--warm 1,
// the default) with no client waiting: the signal cancels that work too.
TEST(CancellationProcessWarmUp, SigtermDuringTheWarmUpEndsTheProcessPromptly) {
  ScratchDir t;
  WriteRuns(t);
  ServeProcess server({"--logdir", t.path().string(), "--warm", "1", "--memory_mb", "4096"},
                      (t.path() / "stderr.log").string());
  ASSERT_GT(server.port(), 0);
  ASSERT_TRUE(WaitForCpu(server, 0, 0.3));
  const double at_signal = server.CpuSeconds();
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(server.pid(), SIGTERM), 0);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(server.pid()), &info, WEXITED | WNOWAIT), 0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  const double after = server.CpuSeconds() - at_signal;
  std::printf("SIGTERM during the warm-up: exited after %.2f s, %.2f CPU-s after the signal\n", seconds, after);
  EXPECT_LT(seconds, 5.0);
  // The warm-up's two conversions take over 2 CPU-s here; cancelled, they stop at once.
  EXPECT_LT(after, 0.3);
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace tbprof
