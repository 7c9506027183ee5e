// Tools on imported PyTorch traces against other tools' answers for the same
// files: torch-tb-profiler's (result_check_file.txt, its exact JSON output for
// span 1 of its ResNet-50 sample) and TraceLens's reports of the two H100
// traces (kernel_summary.csv, gpu_timeline.csv).
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "convert/analysis/op_stats_pages/op_stats_to_overview_page.h"
#include "convert/analysis/op_stats_pages/op_stats_to_tf_stats.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/load/profile_file.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

const fs::path kTestdata = TBPROF_TESTDATA;
const fs::path kSample = kTestdata / "kineto_torch_tb_samples";

OpStats OpStatsOf(const fs::path& file) {
  auto m = LoadProfileFile(file.string());
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? ConvertXSpaceToOpStats(**m) : OpStats();
}

// Line `n` (0: overview, 2: operator table, 3: kernel table) of the plugin's answers.
json::value Expected(int n) {
  std::ifstream in(kSample / "result_check_file.txt");
  std::string line;
  for (int i = 0; i <= n; ++i) std::getline(in, line);
  return json::parse(line);
}

struct KernelTotals {
  int64_t count = 0;
  double sum_us = 0, min_us = 1e300, max_us = 0;
};

std::map<std::string, KernelTotals> TbprofKernels(const OpStats& stats) {
  std::map<std::string, KernelTotals> out;
  for (const auto& r : stats.kernel_stats_db.reports()) {
    KernelTotals& k = out[r.name()];
    k.count += r.occurrences();
    k.sum_us += static_cast<double>(r.total_duration_ns()) / 1000.0;
    k.min_us = std::min(k.min_us, static_cast<double>(r.min_duration_ns()) / 1000.0);
    k.max_us = std::max(k.max_us, static_cast<double>(r.max_duration_ns()) / 1000.0);
  }
  return out;
}

TEST(KinetoKnownAnswers, ResNet50StepsAreTorchTbProfilersInTheStepTable) {
  const OpStats stats = OpStatsOf(kSample / "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  ASSERT_EQ(stats.steps.size(), 1u);
  const json::value expected = Expected(0);
  const json::array& rows = expected.at("steps").at("rows").as_array();
  const std::vector<StepInfo>& steps = stats.steps[0].steps;
  ASSERT_EQ(steps.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const json::array& row = rows[i].as_array();
    int64_t total_us = 0;
    for (int part = 0; part < 7; ++part) total_us += row[1 + 2 * part].to_number<int64_t>();
    EXPECT_EQ(steps[i].duration_ps, static_cast<uint64_t>(total_us) * 1'000'000) << i;
    auto type_us = [&](int type) {
      auto it = steps[i].type_ps.find(type);
      return it == steps[i].type_ps.end() ? 0 : static_cast<int64_t>(it->second / 1'000'000);
    };
    EXPECT_EQ(type_us(DEVICE_COMPUTE_32), row[1].to_number<int64_t>()) << "Kernel, step " << i;
    EXPECT_EQ(type_us(DEVICE_TO_DEVICE), row[3].to_number<int64_t>() + row[5].to_number<int64_t>()) << "Memcpy+Memset";
    EXPECT_EQ(type_us(HOST_PREPARE), row[7].to_number<int64_t>()) << "Runtime, step " << i;
    EXPECT_EQ(type_us(HOST_WAIT_INPUT), row[9].to_number<int64_t>()) << "DataLoader, step " << i;
    EXPECT_EQ(type_us(HOST_COMPUTE), row[11].to_number<int64_t>()) << "CPU Exec, step " << i;
  }
}

// The kernel table's rows: name, calls, total, mean, max, min (µs, rounded as the plugin printed them).
TEST(KinetoKnownAnswers, ResNet50KernelTableIsTorchTbProfilers) {
  const OpStats stats = OpStatsOf(kSample / "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  std::map<std::string, KernelTotals> ours = TbprofKernels(stats);
  const json::value expected = Expected(3);
  const json::array& rows = expected.at("data").at("rows").as_array();
  ASSERT_EQ(ours.size(), rows.size());
  for (const json::value& v : rows) {
    const json::array& row = v.as_array();
    const std::string name(row[0].as_string());
    ASSERT_TRUE(ours.count(name)) << name;
    const KernelTotals& k = ours[name];
    EXPECT_EQ(std::llround(k.sum_us), row[3].to_number<int64_t>()) << name;
    EXPECT_EQ(std::llround(k.max_us), row[5].to_number<int64_t>()) << name;
    // Kernels the trace's integer µs wrote as 0 µs long are calls too (min 0).
    EXPECT_EQ(k.count, row[2].to_number<int64_t>()) << name;
    // The plugin rounded the mean half to even (Python's round).
    EXPECT_EQ(static_cast<int64_t>(std::nearbyint(k.sum_us / static_cast<double>(k.count))), row[4].to_number<int64_t>())
        << name;
    EXPECT_EQ(std::llround(k.min_us), row[6].to_number<int64_t>()) << name;
  }
}

// The operator table's device self time, calls and host total of each operator (µs).
TEST(KinetoKnownAnswers, ResNet50OperatorDeviceTimesAreTorchTbProfilers) {
  const OpStats stats = OpStatsOf(kSample / "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  std::map<std::string, std::pair<uint64_t, int64_t>> device;  // name -> (self ps, occurrences)
  // A device row is one (operator, kernel); its provenance is the importer's "<op>:<op>".
  for (const auto& [key, m] : stats.device_op_metrics_db.ops) {
    device[m.provenance.substr(0, m.provenance.size() / 2)].first += m.self_time_ps;
  }
  std::map<std::string, std::pair<uint64_t, int64_t>> host;  // name -> (total ps, occurrences)
  for (const auto& [key, m] : stats.host_op_metrics_db.ops) {
    auto& h = host[m.name];
    h.first += m.time_ps;
    h.second += static_cast<int64_t>(m.occurrences);
  }
  const json::value expected = Expected(2);
  const json::array& ops = expected.at("data").as_array();
  int checked = 0;
  for (const json::value& v : ops) {
    const json::object& op = v.as_object();
    const std::string name(op.at("name").as_string());
    const int64_t device_self = op.at("device_self_duration").to_number<int64_t>();
    EXPECT_EQ(std::llround(static_cast<double>(device[name].first) / 1e6), device_self) << name;
    EXPECT_EQ(host[name].second, op.at("calls").to_number<int64_t>()) << name;
    EXPECT_EQ(std::llround(static_cast<double>(host[name].first) / 1e6), op.at("host_total_duration").to_number<int64_t>())
        << name;
    if (++checked == 10) break;  // the top rows
  }
}

// TraceLens's kernel summary, per kernel name (its rows split a kernel by parent op and stream).
std::map<std::string, KernelTotals> TraceLensKernels(const fs::path& csv) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  std::map<std::string, KernelTotals> out;
  while (std::getline(in, line)) {
    // CSV with quoted fields: category, parent, kernel, stream, sum, count, mean, min, max, ...
    std::vector<std::string> f;
    std::string cur;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (c == '"') {
        if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          quoted = !quoted;
        }
      } else if (c == ',' && !quoted) {
        f.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    f.push_back(cur);
    if (f.size() < 9) continue;
    KernelTotals& k = out[f[2]];
    k.sum_us += std::stod(f[4]);
    k.count += std::stoll(f[5]);
    k.min_us = std::min(k.min_us, std::stod(f[7]));
    k.max_us = std::max(k.max_us, std::stod(f[8]));
  }
  return out;
}

double TraceLensMs(const fs::path& csv, const std::string& row) {
  std::ifstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(row + ",", 0) == 0) return std::stod(line.substr(row.size() + 1));
  }
  ADD_FAILURE() << row << " not in " << csv;
  return -1;
}

TEST(KinetoKnownAnswers, H100KernelStatsAreTraceLenss) {
  for (std::string trace : {"h100_bert_small", "h100_qwen1.5_0.5b"}) {
    const fs::path dir = kTestdata / "kineto_nvidia";
    const OpStats stats = OpStatsOf(dir / (trace + ".pt.trace.json.gz"));
    std::map<std::string, KernelTotals> ours = TbprofKernels(stats);
    std::map<std::string, KernelTotals> theirs = TraceLensKernels(dir / (trace + "_tracelens_csvs/kernel_summary.csv"));
    ASSERT_FALSE(theirs.empty());
    EXPECT_EQ(ours.size(), theirs.size()) << trace;
    for (const auto& [name, t] : theirs) {
      ASSERT_TRUE(ours.count(name)) << trace << ": " << name;
      const KernelTotals& o = ours[name];
      EXPECT_EQ(o.count, t.count) << name;
      EXPECT_NEAR(o.sum_us, t.sum_us, 0.001 * static_cast<double>(t.count)) << name;  // ns rounding per kernel
      EXPECT_NEAR(o.min_us, t.min_us, 0.001) << name;
      EXPECT_NEAR(o.max_us, t.max_us, 0.001) << name;
    }
    // TraceLens's GPU timeline spans the step (the gpu_user_annotation copy of
    // ProfilerStep#N): busy = the union of kernels, copies and sets in it,
    // computation = that of kernels and sets.
    auto m = LoadProfileFile((dir / (trace + ".pt.trace.json.gz")).string());
    ASSERT_TRUE(m.ok());
    const XPlaneModel* gpu = (*m)->FindPlane("/device:GPU:0");
    ASSERT_NE(gpu, nullptr);
    std::pair<int64_t, int64_t> window{0, 0};
    std::vector<std::pair<int64_t, int64_t>> all, compute;
    for (const LineModel& l : gpu->lines) {
      for (uint32_t e = l.first_event; e < l.first_event + l.num_events; ++e) {
        const Event& ev = gpu->events[e];
        if (l.id == kKinetoGpuAnnotationLineId) {
          window = {ev.begin_ps, ev.end_ps()};
          continue;
        }
        all.push_back({ev.begin_ps, ev.end_ps()});
        if (!(*m)->Str(gpu->EventName(e)).starts_with("Memcpy")) compute.push_back({ev.begin_ps, ev.end_ps()});
      }
    }
    auto union_in_window_ms = [&](std::vector<std::pair<int64_t, int64_t>> r) {
      std::sort(r.begin(), r.end());
      int64_t total = 0, lo = 0, hi = -1;
      for (auto [b, e] : r) {
        b = std::max(b, window.first);
        e = std::min(e, window.second);
        if (b >= e) continue;
        if (b > hi) {
          if (hi > lo) total += hi - lo;
          lo = b;
          hi = e;
        } else {
          hi = std::max(hi, e);
        }
      }
      if (hi > lo) total += hi - lo;
      return static_cast<double>(total) / 1e9;
    };
    const fs::path timeline = dir / (trace + "_tracelens_csvs/gpu_timeline.csv");
    // TraceLens sums in single precision: its ms figures are off by up to ~10 ns.
    constexpr double kRoundingMs = 2e-5;
    EXPECT_NEAR(static_cast<double>(window.second - window.first) / 1e9, TraceLensMs(timeline, "total_time"), kRoundingMs);
    EXPECT_NEAR(union_in_window_ms(all), TraceLensMs(timeline, "busy_time"), kRoundingMs) << trace;
    EXPECT_NEAR(union_in_window_ms(compute), TraceLensMs(timeline, "computation_time"), kRoundingMs) << trace;
  }
}

// torch-tb-profiler's test_profiler.py "test_all_categories", operator part:
// aten::nll_loss_backward launched a copy (10 µs), a set (5) and a kernel (15),
// so its device self and total time are 30 µs; aten::to ran 60 µs on the host;
// aten::nll_loss_backward's host self time, 35, leaves out its runtime calls.
TEST(KinetoKnownAnswers, TbPluginAllCategoriesOperators) {
  auto m = ParseKinetoTrace(testing_kineto::TbPluginAllCategories().Json(0, false), "all_categories");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const OpStats stats = ConvertXSpaceToOpStats(**m);
  uint64_t device_ps = 0;
  for (const auto& [key, op] : stats.device_op_metrics_db.ops) {
    if (op.provenance == "aten::nll_loss_backward:aten::nll_loss_backward") device_ps += op.self_time_ps;
  }
  EXPECT_EQ(device_ps, 30u * 1'000'000);
  const auto nll = stats.host_op_metrics_db.ops.find("aten::nll_loss_backward");
  ASSERT_NE(nll, stats.host_op_metrics_db.ops.end());
  EXPECT_EQ(nll->second.occurrences, 1u);
  EXPECT_EQ(nll->second.time_ps, 70u * 1'000'000);
  EXPECT_EQ(nll->second.self_time_ps, 35u * 1'000'000);
  const auto to = stats.host_op_metrics_db.ops.find("aten::to");
  ASSERT_NE(to, stats.host_op_metrics_db.ops.end());
  EXPECT_EQ(to->second.self_time_ps, 60u * 1'000'000);
  EXPECT_EQ(stats.kernel_stats_db.reports_size(), 1);
  EXPECT_EQ(stats.kernel_stats_db.reports(0).total_duration_ns(), 15000u);
  EXPECT_EQ(stats.kernel_stats_db.reports(0).op_name(), "aten::nll_loss_backward");
}

// framework_op_stats on the ResNet-50 sample: each device row counts its
// operator's calls (aten::cudnn_convolution 318, where its most-launched
// kernel ran 90 times), and host self time leaves out the op's runtime calls,
// as torch-tb-profiler's operator table does (its top rows, µs).
TEST(KinetoKnownAnswers, ResNet50FrameworkOpCallsAndHostSelfTimeAreTorchTbProfilers) {
  const OpStats stats = OpStatsOf(kSample / "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  const tensorflow::profiler::TfStatsDatabase db = ConvertOpStatsToTfStats(stats);
  std::map<std::string, const tensorflow::profiler::TfStatsRecord*> device, host;
  for (const auto& r : db.with_idle().tf_stats_record()) (r.host_or_device() == "Device" ? device : host)[r.op_name()] = &r;
  const json::value expected = Expected(2);
  int checked = 0;
  for (const json::value& v : expected.at("data").as_array()) {
    const json::object& op = v.as_object();
    const std::string name(op.at("name").as_string());
    ASSERT_TRUE(device.count(name)) << name;
    ASSERT_TRUE(host.count(name)) << name;
    EXPECT_EQ(device[name]->occurrences(), op.at("calls").to_number<int64_t>()) << name;
    EXPECT_EQ(std::llround(host[name]->total_self_time_in_us()), op.at("host_self_duration").to_number<int64_t>())
        << name;
    if (++checked == 10) break;
  }
}

// Device IDLE is the time nothing ran on the device. A span [0, 100) µs with a
// kernel [0, 30) of aten::relu and one [50, 100) no op launched: idle 20 µs
// (it read 70 µs, the span less the kernels tied to an op).
TEST(KinetoKnownAnswers, DeviceIdleIsTheTimeNothingRan) {
  constexpr int64_t us = 1000;
  testing_kineto::TraceWriter w;
  w.Host("user_annotation", "ProfilerStep#1", 0, 100 * us);
  w.Host("cpu_op", "aten::relu", 0, 10 * us, "\"External id\": 2");
  w.Launch(1 * us, 2 * us, 0, 30 * us, "relu_kernel", 11, 2);
  w.Device("kernel", "orphan_kernel", 50 * us, 50 * us, "\"device\": 0, \"stream\": 7, \"correlation\": 99");
  auto m = ParseKinetoTrace(w.Json(), "idle");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const OpStats stats = ConvertXSpaceToOpStats(**m);
  const auto idle = stats.device_tf_op_metrics_db.ops.find("IDLE");
  ASSERT_NE(idle, stats.device_tf_op_metrics_db.ops.end());
  EXPECT_EQ(idle->second.self_time_ps, 20u * us * 1000);
}

// TensorCore eligibility of the ResNet-50 sample's operators, as
// torch-tb-profiler's operator table marks them (cuDNN convolutions, their
// backward ops, GEMMs: Yes; batch norm, ReLU, adds: No), on every kernel
// report of the op. Eligible ops hold 66.4 % of the table's device self time,
// copies and sets included; of the kernel time alone, 68 %.
TEST(KinetoKnownAnswers, ResNet50TensorCoreEligibilityIsTorchTbProfilers) {
  const OpStats stats = OpStatsOf(kSample / "resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  std::map<std::string, std::vector<bool>> eligible_of_op;
  uint64_t eligible_ns = 0, total_ns = 0;
  for (const auto& r : stats.kernel_stats_db.reports()) {
    eligible_of_op[r.op_name()].push_back(r.is_op_tensor_core_eligible());
    total_ns += r.total_duration_ns();
    if (r.is_op_tensor_core_eligible()) eligible_ns += r.total_duration_ns();
  }
  int checked = 0;
  const json::value expected = Expected(2);
  for (const json::value& v : expected.at("data").as_array()) {
    const json::object& op = v.as_object();
    const std::string name(op.at("name").as_string());
    if (op.at("device_self_duration").to_number<int64_t>() == 0) continue;  // launched no kernel itself
    if (!eligible_of_op.count(name)) continue;  // its device time is copies and sets only (aten::copy_)
    const bool expected = op.at("tc_eligible").as_string() == "Yes";
    for (bool e : eligible_of_op[name]) EXPECT_EQ(e, expected) << name;
    ++checked;
  }
  EXPECT_GT(checked, 10);
  EXPECT_NEAR(static_cast<double>(eligible_ns) / static_cast<double>(total_ns), 0.68, 0.005);
}

// A PyTorch trace records no FLOPs: the overview's roofline, bandwidth and
// MXU utilization and framework_op_stats' rates of its device ops are
// unknown (they read 0.0).
TEST(KinetoKnownAnswers, FiguresOfUnrecordedFlopsAreUnknown) {
  const OpStats stats = OpStatsOf(kTestdata / "kineto_nvidia/h100_bert_small.pt.trace.json.gz");
  json::value page = json::parse(OverviewPageToJson(ConvertOpStatsToOverviewPage(stats), stats.torch_gpu));
  const json::object& p = page.as_array()[0].at("p").as_object();
  for (const char* key : {"flop_rate_utilization_relative_to_roofline", "memory_bw_utilization_relative_to_hw_limit",
                          "mxu_utilization_percent"}) {
    EXPECT_EQ(p.at(key).as_string(), "unknown") << key;
  }
  json::value tables = json::parse(TfStatsToJson(ConvertOpStatsToTfStats(stats)));
  const json::object& table = tables.as_array()[0].as_object();
  const json::array& cols = table.at("cols").as_array();
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < cols.size(); ++i) col[std::string(cols[i].at("id").as_string())] = i;
  int device_rows = 0;
  for (const json::value& row : table.at("rows").as_array()) {
    const json::array& c = row.at("c").as_array();
    if (c[col["host_or_device"]].at("v").as_string() != "Device" || c[col["type"]].at("v").as_string() == "IDLE") continue;
    ++device_rows;
    for (const char* id : {"measured_flop_rate", "model_flop_rate", "measured_memory_bw", "operational_intensity"}) {
      const json::value& cell = c[col[id]];
      EXPECT_TRUE(cell.is_null() || !cell.as_object().contains("v") || cell.at("v").is_null()) << id;
    }
  }
  EXPECT_GT(device_rows, 0);
}

}  // namespace
}  // namespace tbprof
