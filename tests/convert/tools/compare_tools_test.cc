// The compare tool against the single-run tools: on pairs of real profiles
// (two JAX xplane runs, two legacy TensorFlow 2.2 runs) and on the harness
// demo's pipeline variants, every delta must equal B's figure minus A's as
// framework_op_stats, hlo_stats, kernel_stats and input_pipeline_analyzer
// give them in their own JSON, read here with Boost.JSON; a run compared
// with itself has every delta 0 and no added or removed row.
#include "convert/tools/artifact_cache.h"
#include "convert/tools/compare_tools.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <tuple>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "convert/tools/model_tools.h"
#include "convert/tools/ops_tools.h"
#include "convert/tools/xla_tools.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

json::value Parse(const std::string& body) {
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  EXPECT_FALSE(ec) << body.substr(0, 200);
  return v;
}

double Num(const json::value& v) { return v.is_null() ? NAN : v.to_number<double>(); }

// A DataTable's rows as column id → cell value.
std::vector<std::map<std::string, json::value>> Rows(const json::value& table) {
  std::vector<std::string> ids;
  for (const auto& col : table.at("cols").as_array()) ids.push_back(std::string(col.at("id").as_string()));
  std::vector<std::map<std::string, json::value>> rows;
  for (const auto& row : table.at("rows").as_array()) {
    std::map<std::string, json::value> r;
    const auto& cells = row.at("c").as_array();
    for (size_t i = 0; i < ids.size() && i < cells.size(); ++i) {
      r[ids[i]] = cells[i].is_object() && cells[i].as_object().contains("v") ? cells[i].at("v") : json::value();
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string Str(const std::map<std::string, json::value>& r, const std::string& key) {
  auto it = r.find(key);
  return it == r.end() || !it->second.is_string() ? std::string() : std::string(it->second.as_string());
}

using Key = std::tuple<std::string, std::string, std::string>;
// (time, self time) per key of a single-run tool's table, summed over rows with one key.
using Times = std::map<Key, std::pair<double, double>>;

using Row = std::map<std::string, json::value>;

// Sums the `time` (and `self`, when named) columns per key over the rows of
// the tool's first table.
Times SumTimes(const StatusOr<ToolOutput>& out, const std::function<Key(const Row&)>& key_of, const char* time,
               const char* self = nullptr) {
  EXPECT_TRUE(out.ok()) << out.status().message();
  json::value v = Parse(out->body);
  const json::value& table = v.is_array() ? v.as_array()[0] : v;
  Times t;
  for (const Row& r : Rows(table)) {
    auto& [sum, self_sum] = t[key_of(r)];
    sum += Num(r.at(time));
    if (self != nullptr) self_sum += Num(r.at(self));
  }
  return t;
}

Times FrameworkOpTimes(const ToolInput& in) {
  return SumTimes(
      FrameworkOpStatsTool(in),
      [](const Row& r) { return Key{Str(r, "host_or_device"), Str(r, "type"), Str(r, "operation")}; }, "total_time",
      "total_self_time");
}

Times HloOpTimes(const ToolInput& in) {
  return SumTimes(
      HloStatsTool(in), [](const Row& r) { return Key{"", Str(r, "category"), Str(r, "hlo_op_name")}; }, "total_time",
      "total_self_time");
}

Times KernelTimes(const ToolInput& in) {
  return SumTimes(
      KernelStatsTool(in), [](const Row& r) { return Key{"", "", Str(r, "kernel_name")}; }, "total_duration_us");
}

// Every row of `rows` (compare's JSON) against the tables of A and B; returns rows checked.
int CheckOpRows(const json::array& rows, const Times& a, const Times& b, bool self_times, const std::string& what) {
  std::set<Key> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  EXPECT_EQ(rows.size(), keys.size()) << what << ": one row per key of either run";
  int checked = 0;
  for (const auto& row : rows) {
    Key k{std::string(row.at("where").as_string()), std::string(row.at("type").as_string()),
          std::string(row.at("name").as_string())};
    auto ia = a.find(k), ib = b.find(k);
    double ta = ia == a.end() ? 0 : ia->second.first, tb = ib == b.end() ? 0 : ib->second.first;
    std::string presence(row.at("presence").as_string());
    EXPECT_EQ(presence, ia == a.end() ? "added" : ib == b.end() ? "removed" : "both") << what << " " << std::get<2>(k);
    // The tools round times to what their tables print; allow that much.
    double tolerance = 1e-6 * std::max({1.0, std::abs(ta), std::abs(tb)}) + 1e-3;
    EXPECT_NEAR(Num(row.at("delta_us")), tb - ta, tolerance) << what << " " << std::get<2>(k);
    if (self_times) {
      double sa = ia == a.end() ? 0 : ia->second.second, sb = ib == b.end() ? 0 : ib->second.second;
      EXPECT_NEAR(Num(row.at("self_delta_us")), sb - sa, tolerance) << what << " " << std::get<2>(k);
    }
    ++checked;
  }
  return checked;
}

ToolInput CompareInput(const ToolInput& a, const ToolInput& b, ArtifactCache* cache, const std::string& params = "") {
  ToolInput in = b;
  in.base_hosts = a.hosts;
  in.base_profile_paths = a.profile_paths;
  in.base_legacy_paths = a.legacy_paths;
  in.cache = cache;
  auto p = ParseQuery(params);
  EXPECT_TRUE(p.ok());
  in.params = *p;
  return in;
}

json::value Compare(const ToolInput& in) {
  auto out = CompareTool(in);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? Parse(out->body) : json::value();
}

std::string RealXPlane(const std::string& run) {
  return std::string(TBPROF_TESTDATA) + "/xplane/" + run + "/tw003.xplane.pb";
}

TEST(CompareTool, RealJaxRunsDeltasAreSingleToolDifferences) {
  ArtifactCache cache(size_t{1} << 30);
  ToolInput a = test_files::OneHostInput(RealXPlane("jax_rocm_mi300_gemm"));
  ToolInput b = test_files::OneHostInput(RealXPlane("jax_rocm_mi300_conv_8gpu"));
  a.cache = b.cache = &cache;
  json::value c = Compare(CompareInput(a, b, &cache));
  ASSERT_TRUE(c.is_object());
  int hlo = CheckOpRows(c.at("hlo_ops").as_array(), HloOpTimes(a), HloOpTimes(b), true, "hlo");
  int ops = CheckOpRows(c.at("framework_ops").as_array(), FrameworkOpTimes(a), FrameworkOpTimes(b), true, "framework");
  int kernels = CheckOpRows(c.at("kernels").as_array(), KernelTimes(a), KernelTimes(b), false, "kernels");
  EXPECT_GT(hlo, 2);
  EXPECT_GT(ops, 2);
  // Different programs: some ops are in one run only.
  int added = 0, removed = 0;
  for (const auto& r : c.at("hlo_ops").as_array()) {
    added += r.at("presence") == "added";
    removed += r.at("presence") == "removed";
  }
  EXPECT_GT(added, 0);
  EXPECT_GT(removed, 0);
  (void)kernels;
}

TEST(CompareTool, RunWithItselfHasZeroDeltasOnEveryRealProfile) {
  ArtifactCache cache(size_t{1} << 30);
  for (const std::string& path : test_files::RealXPlaneFiles()) {
    ToolInput a = test_files::OneHostInput(path);
    json::value c = Compare(CompareInput(a, a, &cache, "align=order"));
    ASSERT_TRUE(c.is_object()) << path;
    for (const char* table : {"framework_ops", "hlo_ops", "kernels"}) {
      for (const auto& r : c.at(table).as_array()) {
        EXPECT_EQ(r.at("presence"), "both") << path << " " << table;
        EXPECT_EQ(Num(r.at("delta_us")), 0.0) << path << " " << table << " " << r.at("name");
      }
    }
    for (const char* table : {"steps", "input_stages", "memory"}) {
      for (const auto& m : c.at(table).as_array()) {
        if (!m.at("a").is_null()) {
          EXPECT_EQ(Num(m.at("delta")), 0.0) << path << " " << m.at("name");
        }
        EXPECT_EQ(m.at("a").is_null(), m.at("b").is_null()) << path << " " << m.at("name");
      }
    }
    for (const auto& p : c.at("step_pairs").as_array()) {
      for (const auto& m : p.at("metrics").as_array()) EXPECT_EQ(Num(m.at("delta")), 0.0) << path;
    }
  }
}

ToolInput LegacyRun(const std::string& run) {
  ToolInput in;
  std::string dir = std::string(TBPROF_TESTDATA) + "/legacy_logdir_tf22/plugins/profile/" + run;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (CompareReadsLegacySuffix(e.path().filename().string().substr(std::string("localhost.").size()))) {
      in.legacy_paths.push_back(e.path().string());
    }
  }
  std::sort(in.legacy_paths.begin(), in.legacy_paths.end());
  in.hosts = {"localhost"};
  return in;
}

// The per-step rows of input_pipeline_analyzer's JSON for a legacy file.
std::vector<std::map<std::string, json::value>> LegacySteps(const std::string& run) {
  std::string path = std::string(TBPROF_TESTDATA) + "/legacy_logdir_tf22/plugins/profile/" + run +
                     "/localhost.input_pipeline.pb";
  auto out = LegacyInputPipeline(path, ToolInput{});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return Rows(Parse(out->body).as_array()[1]);
}

TEST(CompareTool, RealLegacyRunsStepDeltasAreSingleToolDifferences) {
  ToolInput a = LegacyRun("GPU-compute-bound"), b = LegacyRun("GPU-input-bound");
  ASSERT_FALSE(a.legacy_paths.empty());
  json::value c = Compare(CompareInput(a, b, nullptr, "align=order"));
  ASSERT_TRUE(c.is_object());
  auto steps_a = LegacySteps("GPU-compute-bound"), steps_b = LegacySteps("GPU-input-bound");
  ASSERT_FALSE(steps_a.empty());
  ASSERT_FALSE(steps_b.empty());
  const auto& pairs = c.at("step_pairs").as_array();
  ASSERT_EQ(pairs.size(), std::max(steps_a.size(), steps_b.size()));
  // Step by step in order: the i-th step of each run, as the tool's step table gives it.
  const std::pair<const char*, const char*> columns[] = {
      {"step_time_ms", "stepTimeMs"}, {"input_ms", "infeedTimeMs"}, {"device_compute_ms", "deviceComputeTimeMs"},
      {"kernel_launch_ms", "kernelLaunchTimeMs"}, {"host_compute_ms", "hostComputeTimeMs"},
      {"other_ms", "otherTimeMs"}};
  for (size_t i = 0; i < std::min(steps_a.size(), steps_b.size()); ++i) {
    for (const auto& m : pairs[i].at("metrics").as_array()) {
      for (const auto& [metric, column] : columns) {
        if (m.at("name") != metric) continue;
        EXPECT_NEAR(Num(m.at("delta")), Num(steps_b[i].at(column)) - Num(steps_a[i].at(column)), 1e-9)
            << "step " << i << " " << metric;
      }
    }
  }
  // Averages: the tool prints them with one decimal.
  double avg_a = 0, avg_b = 0;
  for (const auto& s : steps_a) avg_a += Num(s.at("stepTimeMs")) / steps_a.size();
  for (const auto& s : steps_b) avg_b += Num(s.at("stepTimeMs")) / steps_b.size();
  for (const auto& m : c.at("steps").as_array()) {
    if (m.at("name") == "step_time_ms") {
      EXPECT_NEAR(Num(m.at("delta")), avg_b - avg_a, 1e-6);
    }
  }
  // GPU-compute-bound has no tensorflow_stats file: its side of the op table is unknown, never 0.
  ASSERT_FALSE(c.at("framework_ops").as_array().empty());
  for (const auto& r : c.at("framework_ops").as_array()) {
    EXPECT_EQ(r.at("presence"), "unknown");
    EXPECT_TRUE(r.at("delta_us").is_null());
    EXPECT_TRUE(r.at("time_us_a").is_null());
  }
}

TEST(CompareTool, HarnessDemoVariantsDeltasAreSingleToolDifferences) {
  std::string logdir = test_files::TempPath("compare_demo");
  auto demo = test_files::RunCommand(std::string(TBPROF_BINARY) + " harness demo --logdir " + logdir + " 2>&1");
  ASSERT_EQ(WEXITSTATUS(demo.status), 0) << demo.output;
  auto run = [&](const std::string& variant) {
    std::string dir = logdir + "/plugins/profile/" + variant;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().string().ends_with(".xplane.pb")) return test_files::OneHostInput(e.path().string());
    }
    ADD_FAILURE() << "no xplane file in " << dir;
    return ToolInput{};
  };
  ArtifactCache cache(size_t{1} << 30);
  ToolInput naive = run("naive");
  naive.cache = &cache;
  for (const char* variant : {"prefetch", "cache"}) {
    ToolInput b = run(variant);
    b.cache = &cache;
    json::value c = Compare(CompareInput(naive, b, &cache));
    ASSERT_TRUE(c.is_object());
    EXPECT_GT(CheckOpRows(c.at("framework_ops").as_array(), FrameworkOpTimes(naive), FrameworkOpTimes(b), true,
                          variant),
              0);
    // The step time of each run as input_pipeline_analyzer's step table gives it.
    auto steps = [&](const ToolInput& in) {
      auto out = InputPipelineTool(in);
      EXPECT_TRUE(out.ok());
      double sum = 0;
      auto rows = Rows(Parse(out->body).as_array()[1]);
      for (const auto& r : rows) sum += Num(r.at("stepTimeMs"));
      return rows.empty() ? NAN : sum / rows.size();
    };
    for (const auto& m : c.at("steps").as_array()) {
      if (m.at("name") == "step_time_ms") {
        EXPECT_NEAR(Num(m.at("delta")), steps(b) - steps(naive), 1e-6) << variant;
      }
    }
  }
  std::error_code ec;
  fs::remove_all(logdir, ec);
}

TEST(CompareTool, CsvHasOneRowPerFigureAndBadParametersAreRefused) {
  ToolInput a = test_files::OneHostInput(RealXPlane("jax_rocm_mi300_gemm"));
  ToolInput in = CompareInput(a, a, nullptr, "tool=hlo_stats");
  in.csv = true;
  auto out = CompareTool(in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->content_type, "text/csv");
  EXPECT_TRUE(out->body.starts_with("section,name,metric,where,type,presence,a,b,delta,delta_percent,")) << out->body;
  auto hlo = HloOpTimes(a);
  size_t lines = std::count(out->body.begin(), out->body.end(), '\n');
  // Header, 2 + 9 step rows (unknown: only HLO asked for), 5 input stages, one row per HLO op.
  EXPECT_EQ(lines, 1 + 11 + 5 + hlo.size());
  EXPECT_EQ(CompareTool(CompareInput(a, a, nullptr, "align=sideways")).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(CompareTool(CompareInput(a, a, nullptr, "tool=nope")).status().code(), ErrorCode::kInvalidArgument);
  ToolInput no_base = a;
  EXPECT_FALSE(CompareTool(no_base).ok());
}

}  // namespace
}  // namespace tbprof
