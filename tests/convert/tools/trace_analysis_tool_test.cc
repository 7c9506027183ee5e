// The trace_analysis tool: its JSON over two ranks side by side (ALL_HOSTS),
// a host that cannot be read, and a JAX GPU xplane profile. Figures are hand
// computed from the traces written here (times in µs).
#include "convert/tools/trace_analysis_tools.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "convert/load/profile_file.h"
#include "convert/tools/tool_registry.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using testing_kineto::TraceWriter;

constexpr int64_t kUs = 1000;

struct Scratch {
  fs::path path = fs::temp_directory_path() / ("tbprof-trace-analysis-" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(path); }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

// Rank 0: two kernels [10,20] and [30,40], 10 idle in a span of 30.
// Rank 3: one kernel [5,25] and an NCCL kernel [15,35] on stream 20: span 30, no idle,
// compute 20, communication 20 of which 10 under computation.
std::string RankZero() {
  TraceWriter w;
  w.Rank(0);
  w.Launch(0, 2 * kUs, 10 * kUs, 10 * kUs, "gemm", 1, 1);
  w.Launch(3 * kUs, 2 * kUs, 30 * kUs, 10 * kUs, "gemm", 2, 2);
  return w.Json();
}
std::string RankThree() {
  TraceWriter w;
  w.Rank(3);
  w.Launch(0, 2 * kUs, 5 * kUs, 20 * kUs, "gemm", 1, 1);
  w.Launch(1 * kUs, 2 * kUs, 15 * kUs, 20 * kUs, "ncclDevKernel_AllGather_RING_LL", 2, 2, "", 20);
  return w.Json();
}

json::object RunTool(const ToolInput& in) {
  auto out = FindProfileTool("trace_analysis")->run(in);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  return json::parse(out->body).as_object();
}

const json::object& RowOfRank(const json::array& rows, int64_t rank) {
  for (const json::value& r : rows) {
    if (r.at("rank").to_number<int64_t>() == rank) return r.as_object();
  }
  static const json::object none;
  ADD_FAILURE() << "no row of rank " << rank;
  return none;
}

TEST(TraceAnalysisTool, AllHostsListsEveryRankSideBySide) {
  Scratch s;
  ToolInput in;
  in.hosts = {"rank 0", "rank 3"};
  in.profile_paths = {s.Write("a.pt.trace.json", RankZero()), s.Write("b.pt.trace.json", RankThree())};
  const json::object out = RunTool(in);
  EXPECT_EQ(out.at("framework").as_string(), "PyTorch");
  const json::array& ranks = out.at("ranks").as_array();
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].at("rank").to_number<int64_t>(), 0);
  EXPECT_EQ(ranks[1].at("rank").to_number<int64_t>(), 3);  // the trace's own rank, not its position
  const json::object& temporal = out.at("temporal_breakdown").as_object();
  EXPECT_TRUE(temporal.at("include_last_profiler_step").as_bool());
  const json::array& rows = temporal.at("rows").as_array();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(RowOfRank(rows, 0).at("idle_time_us").to_number<double>(), 10);
  EXPECT_DOUBLE_EQ(RowOfRank(rows, 0).at("kernel_time_us").to_number<double>(), 30);
  EXPECT_DOUBLE_EQ(RowOfRank(rows, 3).at("idle_time_us").to_number<double>(), 0);
  EXPECT_DOUBLE_EQ(RowOfRank(rows, 3).at("compute_time_us").to_number<double>(), 20);
  EXPECT_DOUBLE_EQ(RowOfRank(rows, 3).at("non_compute_time_us").to_number<double>(), 10);
  const json::array& overlap = out.at("comm_comp_overlap").at("rows").as_array();
  EXPECT_TRUE(RowOfRank(overlap, 0).at("comp_comm_overlap_pctg").is_null());  // no communication: unknown
  EXPECT_DOUBLE_EQ(RowOfRank(overlap, 3).at("comp_comm_overlap_pctg").to_number<double>(), 50);
  // Idle and queue rows per rank and stream: rank 0 has stream 7; rank 3 streams 7 and 20.
  const json::array& idle = out.at("idle_time_breakdown").at("rows").as_array();
  EXPECT_EQ(idle.size(), 3u * 3);
  EXPECT_EQ(out.at("idle_time_breakdown").at("thresholds").at("consecutive_kernel_delay_us").to_number<int64_t>(), 30);
  EXPECT_EQ(out.at("queue_length").at("rows").as_array().size(), 3u);
  EXPECT_EQ(out.at("queue_length").at("max_queue_length").to_number<int64_t>(), 1024);
  EXPECT_EQ(out.at("kernel_launch").at("launches_total").to_number<int64_t>(), 4);
  // Rank 3's kernel types: computation alone [5,15], both [15,25], communication alone [25,35].
  int64_t classes = 0;
  for (const json::value& r : out.at("kernel_breakdown").at("kernel_types").as_array()) {
    if (r.at("rank").to_number<int64_t>() != 3) continue;
    ++classes;
    EXPECT_DOUBLE_EQ(r.at("sum_us").to_number<double>(), 10) << r.at("kernel_type").as_string();
  }
  EXPECT_EQ(classes, 3);
}

TEST(TraceAnalysisTool, UnreadableHostIsLeftOutWithWhy) {
  Scratch s;
  ToolInput in;
  in.hosts = {"rank 0", "broken"};
  in.profile_paths = {s.Write("a.pt.trace.json", RankZero()), s.Write("b.pt.trace.json", "{\"traceEvents\": [")};
  const json::object out = RunTool(in);
  const json::array& left = out.at("hosts_left_out").as_array();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].at("host").as_string(), "broken");
  EXPECT_FALSE(left[0].at("reason").as_string().empty());
  EXPECT_EQ(out.at("ranks").as_array().size(), 1u);
}

TEST(TraceAnalysisTool, NoReadableHostIsAnError) {
  Scratch s;
  ToolInput in;
  in.profile_paths = {s.Write("b.pt.trace.json", "{\"traceEvents\": [")};
  EXPECT_FALSE(FindProfileTool("trace_analysis")->run(in).ok());
}

// JAX on 8 AMD GPUs: every device op of the GPU planes' streams is read, and
// the launches are ROCm's hip… calls, linked by correlation id.
TEST(TraceAnalysisTool, JaxGpuXplaneProfile) {
  const fs::path file = fs::path(TBPROF_TESTDATA) / "xplane/jax_rocm_mi300_conv_8gpu/tw003.xplane.pb";
  ToolInput in;
  in.profile_paths = {file.string()};
  const json::object out = RunTool(in);
  EXPECT_EQ(out.at("framework").as_string(), "JAX");
  auto model = LoadProfileFile(file.string());
  ASSERT_TRUE(model.ok());
  int64_t device_ops = 0;
  for (const XPlaneModel& p : (*model)->planes) {
    if (!(*model)->Str(p.name).starts_with("/device:GPU:")) continue;
    for (const LineModel& l : p.lines) {
      if ((*model)->Str(l.name).starts_with("Stream #")) device_ops += l.num_events;
    }
  }
  ASSERT_GT(device_ops, 0);
  const json::array& ranks = out.at("ranks").as_array();
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].at("kernels").to_number<int64_t>(), device_ops);
  EXPECT_EQ(ranks[0].at("host").as_string(), "tw003.xplane.pb");
  const json::array& temporal = out.at("temporal_breakdown").at("rows").as_array();
  EXPECT_GT(temporal[0].at("kernel_time_us").to_number<double>(), 0);
  const json::array& launches = out.at("kernel_launch").at("launches").as_array();
  ASSERT_FALSE(launches.empty());
  for (const json::value& l : launches) EXPECT_EQ(l.at("launch").as_string(), "hip");
}

}  // namespace
}  // namespace tbprof
