// /data?tag=compare over a logdir the test builds: two synthetic xplane runs
// and two legacy runs whose step tables are written here by hand. The second
// run is resolved like the first, so a base_run that leaves the logdir is
// refused, and the answer is cached under both runs' files.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <set>

#include "plugin/routes.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

using namespace testing_plugin;

// A legacy input-pipeline file with these step times (ms), device compute half of each.
void WriteLegacySteps(const fs::path& path, std::initializer_list<double> step_ms) {
  using namespace tensorflow::profiler;
  InputPipelineAnalysisResult r;
  double sum = 0;
  int number = 0;
  for (double ms : step_ms) {
    PerGenericStepDetails d;
    d.set_step_number(number++);
    d.set_step_time_ms(ms);
    d.set_device_compute_ms(ms / 2);
    r.add_step_details()->PackFrom(d);
    sum += ms;
  }
  r.mutable_step_time_summary()->set_average(sum / step_ms.size());
  WriteFile(path, r.SerializeAsString());
}

constexpr const char* kSpan1 = "worker0.1623143089861";
constexpr const char* kSpan2 = "worker0.1623143566756";

class CompareRoute : public testing_plugin::ServiceTest {
 protected:
  void SetUp() override {
    fs::path runs = base_ / "logdir/plugins/profile";
    WriteSyntheticXPlane(runs / "run_a/host1.xplane.pb", 1);
    WriteSyntheticXPlane(runs / "run_b/host1.xplane.pb", 2);
    WriteLegacySteps(runs / "legacy_a/localhost.input_pipeline.pb", {10, 20});
    WriteLegacySteps(runs / "legacy_b/localhost.input_pipeline.pb", {12, 26, 40});
    WriteSyntheticXPlane(base_ / "outside/plugins/profile/secret/host1.xplane.pb", 3);
    // torch-tb-profiler's layout: a directory of one worker's spans is a run,
    // each span a host of it; HTA's pair as two hosts of one run.
    const fs::path data = TBPROF_TESTDATA;
    fs::create_directories(base_ / "logdir/torch");
    for (const char* span : {kSpan1, kSpan2}) {
      fs::copy_file(data / "kineto_torch_tb_samples/resnet50_num_workers_0" / (std::string(span) + ".pt.trace.json.gz"),
                    base_ / "logdir/torch" / (std::string(span) + ".pt.trace.json.gz"));
    }
    fs::create_directories(base_ / "logdir/hta");
    for (const char* side : {"base", "test"}) {
      fs::copy_file(data / "kineto_hta/trace_compare" / (std::string(side) + ".json.gz"),
                    base_ / "logdir/hta" / (std::string(side) + ".pt.trace.json.gz"));
    }
    StartService(base_ / "logdir", uint64_t{256} << 20);
  }
  double StepTimeAverage(const std::string& run, const std::string& host = "") {
    json::value v = GetJson("/data?tag=input_pipeline_analyzer&run=" + run + (host.empty() ? "" : "&host=" + host));
    double sum = 0;
    size_t n = 0;
    for (const auto& row : v.as_array()[1].at("rows").as_array()) {
      sum += row.at("c").as_array().back().at("v").to_number<double>();  // stepTimeMs, the last column
      ++n;
    }
    return sum / n;
  }
};

double Delta(const json::value& c, const char* table, const char* name) {
  for (const auto& m : c.at(table).as_array()) {
    if (m.at("name") == name) return m.at("delta").is_null() ? NAN : m.at("delta").to_number<double>();
  }
  return NAN;
}

TEST_F(CompareRoute, ComparesTwoXPlaneRuns) {
  json::value c = GetJson("/data?tag=compare&run=run_b&host=host1&base_run=run_a&base_host=host1");
  EXPECT_EQ(c.at("run_a"), "run_a (host1)");
  EXPECT_EQ(c.at("run_b"), "run_b (host1)");
  EXPECT_NEAR(Delta(c, "steps", "step_time_ms"), StepTimeAverage("run_b") - StepTimeAverage("run_a"), 1e-6);
  EXPECT_FALSE(c.at("kernels").as_array().empty());
  // Every host by default, as ALL_HOSTS.
  json::value all = GetJson("/data/plugin/profile/data?tag=compare&run=run_b&base_run=run_a");
  EXPECT_EQ(all.at("run_a"), "run_a");
  EXPECT_EQ(Delta(all, "steps", "step_time_ms"), Delta(c, "steps", "step_time_ms"));
  json::value self = GetJson("/data?tag=compare&run=run_a&base_run=run_a");
  for (const auto& r : self.at("framework_ops").as_array()) {
    EXPECT_EQ(r.at("presence"), "both");
    EXPECT_EQ(r.at("delta_us").to_number<double>(), 0.0);
  }
}

TEST_F(CompareRoute, ComparesLegacyRunsStepByStep) {
  json::value c = GetJson("/data?tag=compare&run=legacy_b&base_run=legacy_a&align=step_number");
  EXPECT_DOUBLE_EQ(Delta(c, "steps", "step_time_ms"), 26.0 - 15.0);
  const auto& pairs = c.at("step_pairs").as_array();
  ASSERT_EQ(pairs.size(), 3u);  // steps 0 and 1 in both, step 2 in B only
  EXPECT_DOUBLE_EQ(Delta(pairs[1], "metrics", "step_time_ms"), 6.0);
  EXPECT_DOUBLE_EQ(Delta(pairs[1], "metrics", "device_compute_ms"), 3.0);
  EXPECT_TRUE(pairs[2].at("number_a").is_null());
  EXPECT_TRUE(std::isnan(Delta(pairs[2], "metrics", "step_time_ms")));
}

TEST_F(CompareRoute, CsvAnswersAsAFile) {
  HttpResponse r = Get("/data_csv?tag=compare&run=run_b&base_run=run_a");
  ASSERT_EQ(r.status, 200) << r.Body();
  EXPECT_EQ(r.content_type, "text/csv");
  EXPECT_TRUE(r.Body().starts_with("section,name,metric,")) << r.Body();
  bool disposition = false;
  for (const auto& [k, v] : r.headers) disposition |= k == "Content-Disposition" && v.find("compare_run_b") != std::string::npos;
  EXPECT_TRUE(disposition);
}

TEST_F(CompareRoute, BaseRunIsConfinedToTheLogdir) {
  for (const char* target : {"/data?tag=compare&run=run_b&base_run=..", "/data?tag=compare&run=run_b&base_run=../outside",
                             "/data?tag=compare&run=run_b&base_run=run_a/../../../outside/plugins/profile/secret",
                             "/data?tag=compare&run=run_b&base_run=%2Fetc", "/data?tag=compare&run=run_b&base_run=run_a&base_host=..",
                             "/data?tag=compare&run=..&base_run=run_a"}) {
    HttpResponse r = Get(target);
    EXPECT_EQ(r.status, 400) << target << ": " << r.Body();
  }
  EXPECT_EQ(Get("/data?tag=compare&run=run_b").status, 400);  // no base_run
  EXPECT_EQ(Get("/data?tag=compare&run=run_b&base_run=no_such_run").status, 404);
  EXPECT_EQ(Get("/data?tag=compare&run=run_b&base_run=run_a&base_host=nohost").status, 404);
  EXPECT_EQ(Get("/data?tag=compare&run=run_b&base_run=run_a&align=sideways").status, 400);
}

TEST_F(CompareRoute, ReusesTheRunsCachedResults) {
  GetJson("/data?tag=overview_page&run=run_a");
  GetJson("/data?tag=overview_page&run=run_b");
  uint64_t misses = service_->cache().misses();
  GetJson("/data?tag=compare&run=run_b&base_run=run_a&tool=input_pipeline_analyzer,framework_op_stats,kernel_stats");
  // Only the comparison itself is computed: both runs' OpStats come from the cache.
  EXPECT_EQ(service_->cache().misses() - misses, 1u);
  GetJson("/data?tag=compare&run=run_b&base_run=run_a&tool=input_pipeline_analyzer,framework_op_stats,kernel_stats");
  EXPECT_EQ(service_->cache().misses() - misses, 1u);
}

TEST_F(CompareRoute, ComparesTwoSpansOfOneWorker) {
  const std::string target = std::string("/data?tag=compare&run=torch&host=") + kSpan2 + "&base_run=torch&base_host=" + kSpan1;
  json::value c = GetJson(target);
  EXPECT_EQ(c.at("run_a").as_string(), std::string("torch (") + kSpan1 + ")");
  EXPECT_EQ(c.at("run_b").as_string(), std::string("torch (") + kSpan2 + ")");
  // Every delta is B's figure minus A's as the single-span tools give them.
  EXPECT_NEAR(Delta(c, "steps", "step_time_ms"), StepTimeAverage("torch", kSpan2) - StepTimeAverage("torch", kSpan1),
              1e-6);
  EXPECT_FALSE(c.at("kernels").as_array().empty());
  // A span with itself: no delta but 0, nothing added or removed.
  json::value self = GetJson(std::string("/data?tag=compare&run=torch&host=") + kSpan1 + "&base_run=torch&base_host=" +
                             kSpan1 + "&tool=kernel_stats,framework_op_stats");
  for (const char* table : {"kernels", "framework_ops"}) {
    for (const auto& r : self.at(table).as_array()) {
      EXPECT_EQ(r.at("presence"), "both");
      EXPECT_EQ(r.at("delta_us").to_number<double>(), 0.0);
    }
  }
  EXPECT_EQ(Get("/data?tag=compare&run=torch&host=worker0.999&base_run=torch&base_host=" + std::string(kSpan1)).status,
            404);
  // Without a host a PyTorch run is compared by its first span, not by its spans combined.
  json::value first = GetJson(std::string("/data?tag=compare&run=torch&base_run=torch&base_host=") + kSpan2);
  EXPECT_EQ(first.at("run_b").as_string(), std::string("torch (") + kSpan1 + ")");
  EXPECT_EQ(first.at("steps"), GetJson(std::string("/data?tag=compare&run=torch&host=") + kSpan1 +
                                       "&base_run=torch&base_host=" + kSpan2).at("steps"));
}

// HTA's pair (tests/test_trace_diff.py) as two hosts of one run, step 1010:
// nccl:all_reduce removed (67 us), three ops added (HTA's stated diff).
TEST_F(CompareRoute, ComparesOneStepsHostEventsOfTwoHosts) {
  json::value c = GetJson("/data?tag=compare&run=hta&host=test&base_run=hta&base_host=base&step=1010&tool=overview_page");
  EXPECT_EQ(c.at("step").at("a"), 1010);
  EXPECT_EQ(c.at("step").at("b"), 1010);
  std::set<std::string> added, removed;
  double nccl_delta = NAN;
  for (const auto& r : c.at("step_events").as_array()) {
    if (r.at("presence") == "added") added.insert(std::string(r.at("name").as_string()));
    if (r.at("presence") == "removed") removed.insert(std::string(r.at("name").as_string()));
    if (r.at("name") == "nccl:all_reduce") nccl_delta = r.at("delta_us").to_number<double>();
  }
  EXPECT_EQ(added, (std::set<std::string>{"AddmmBackward0", "All2All_Pooled_Req", "CatBackward0"}));
  EXPECT_EQ(removed, (std::set<std::string>{"nccl:all_reduce"}));
  EXPECT_EQ(nccl_delta, -67.0);
  // Without a step there are no step rows; a step a run lacks, or a bad one, is refused clearly.
  json::value none = GetJson("/data?tag=compare&run=hta&host=test&base_run=hta&base_host=base&tool=overview_page");
  EXPECT_TRUE(none.at("step").at("a").is_null());
  EXPECT_TRUE(none.at("step_events").as_array().empty());
  HttpResponse missing = Get("/data?tag=compare&run=hta&host=test&base_run=hta&base_host=base&step=5");
  EXPECT_EQ(missing.status, 404) << missing.Body();
  EXPECT_NE(missing.Body().find("no step 5"), std::string::npos) << missing.Body();
  EXPECT_EQ(Get("/data?tag=compare&run=hta&host=test&base_run=hta&base_host=base&step=x").status, 400);
  // Legacy files hold no events.
  EXPECT_EQ(Get("/data?tag=compare&run=legacy_b&base_run=legacy_a&step=1").status, 400);
}

}  // namespace
}  // namespace tbprof
