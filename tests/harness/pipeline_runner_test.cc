// Costs configuration, the --check rules (with hand-written analysis
// results), and the report formats.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "harness/pipeline_report.h"
#include "harness/pipeline_runner.h"
#include "harness/pipeline_validation.h"

namespace tbprof::harness {
namespace {

namespace fs = std::filesystem;

TEST(HarnessRunner, CostsFromJsonAndKeys) {
  PipelineCosts c;
  EXPECT_TRUE(SetPipelineCost(c, "decode_us", 12.5).ok());
  EXPECT_DOUBLE_EQ(c.decode_us, 12.5);
  EXPECT_TRUE(SetPipelineCost(c, "num_parallel_calls", -1).ok());
  EXPECT_EQ(c.num_parallel_calls, -1);
  EXPECT_FALSE(SetPipelineCost(c, "decode_us", -1).ok());
  Status unknown = SetPipelineCost(c, "nope", 1);
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("decode_us"), std::string::npos) << "lists the known keys";

  fs::path dir = fs::temp_directory_path() / ("tbprof-runner-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "ok.json") << R"({"batch_size": 8, "model_us": 300, "read_us": 0})";
  std::ofstream(dir / "zero.json") << R"({"batch_size": 0})";
  std::ofstream(dir / "array.json") << "[1, 2]";
  std::ofstream(dir / "broken.json") << "{\"batch_size\": ";
  PipelineCosts loaded;
  ASSERT_TRUE(LoadPipelineCosts((dir / "ok.json").string(), loaded).ok());
  EXPECT_EQ(loaded.batch_size, 8);
  EXPECT_DOUBLE_EQ(loaded.model_us, 300);
  EXPECT_DOUBLE_EQ(loaded.read_us, 0);
  EXPECT_EQ(loaded.num_files, PipelineCosts{}.num_files) << "keys not given keep their defaults";
  for (const char* bad : {"zero.json", "array.json", "broken.json", "missing.json"}) {
    PipelineCosts c2;
    EXPECT_FALSE(LoadPipelineCosts((dir / bad).string(), c2).ok()) << bad;
  }
  fs::remove_all(dir);
}

TEST(HarnessRunner, VariantsAreComplete) {
  std::vector<std::string> names;
  int optimised = 0;
  for (const PipelineVariant& v : PipelineVariants()) {
    names.push_back(v.name);
    if (v.expected_bottleneck.empty()) ++optimised;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"naive", "prefetch", "parallel_map", "parallel_interleave", "cache",
                                             "map_after_batch"}));
  EXPECT_EQ(optimised, 1);
  EXPECT_EQ(FindPipelineVariant("nope"), nullptr);
}

VariantRun MakeRun(int64_t root_calls, int64_t slow_calls) {
  VariantRun r;
  r.variant = "v";
  r.root_calls = root_calls;
  r.slow_calls = slow_calls;
  r.elements_per_s = 1000;
  return r;
}

PipelineAnalysis Analysis(bool input_bound, std::string bottleneck, int64_t calls, int64_t slow) {
  PipelineAnalysis a;
  a.is_input_bound = input_bound;
  a.bottleneck_iterator = std::move(bottleneck);
  a.num_calls = calls;
  a.num_slow_calls = slow;
  return a;
}

TEST(HarnessRunner, CheckRules) {
  PipelineVariant map_bound{"naive", "", "Map", nullptr};
  PipelineVariant optimised{"cache", "", "", nullptr};
  EXPECT_TRUE(CheckVariant(map_bound, MakeRun(40, 40), Analysis(true, "Map", 40, 40)).ok);
  EXPECT_FALSE(CheckVariant(map_bound, MakeRun(40, 40), Analysis(true, "TFRecord", 40, 40)).ok);
  EXPECT_FALSE(CheckVariant(map_bound, MakeRun(40, 40), Analysis(false, "Map", 40, 40)).ok);
  // The analysis counting a call the harness timed at <= 50 µs as slow.
  CheckResult miscounted = CheckVariant(map_bound, MakeRun(40, 39), Analysis(true, "Map", 40, 40));
  EXPECT_FALSE(miscounted.ok);
  EXPECT_NE(miscounted.message.find("slow"), std::string::npos);
  EXPECT_FALSE(CheckVariant(map_bound, MakeRun(40, 40), Analysis(true, "Map", 41, 40)).ok);

  EXPECT_TRUE(CheckVariant(optimised, MakeRun(40, 0), Analysis(false, "Prefetch", 40, 0)).ok);
  // Rare slow calls (<= 1 in 10) are read as noise, and the message says so.
  CheckResult noisy = CheckVariant(optimised, MakeRun(40, 4), Analysis(true, "Prefetch", 40, 4));
  EXPECT_TRUE(noisy.ok);
  EXPECT_NE(noisy.message.find("4 of 40"), std::string::npos) << noisy.message;
  EXPECT_FALSE(CheckVariant(optimised, MakeRun(40, 5), Analysis(true, "Prefetch", 40, 5)).ok);
}

TEST(HarnessRunner, ReportFormats) {
  VariantReport a;
  a.run = MakeRun(10, 10);
  a.run.variant = "naive";
  a.run.elements_per_s = 500;
  a.analysis = Analysis(true, "Map", 10, 10);
  a.check = CheckResult{true, "bottleneck Map as injected"};
  VariantReport b;
  b.run = MakeRun(10, 0);
  b.run.variant = "cache<&>";
  b.run.elements_per_s = 2000;
  b.analysis_error = "analysis not built in";
  std::vector<VariantReport> reports = {a, b};

  std::string table = ComparisonTable(reports);
  EXPECT_NE(table.find("elements/s"), std::string::npos);
  EXPECT_NE(table.find("10/10"), std::string::npos);
  EXPECT_NE(table.find("Map  [check ok"), std::string::npos) << table;
  EXPECT_NE(table.find("n/a (analysis not built in)"), std::string::npos) << table;

  boost::json::value v = boost::json::parse(ReportsToJson(reports, PipelineCosts{}));
  EXPECT_EQ(v.at("variants").as_array().size(), 2u);
  EXPECT_EQ(v.at("variants").at(0).at("analysis").at("bottleneck_iterator").as_string(), "Map");
  EXPECT_TRUE(v.at("variants").at(1).at("analysis").is_null());
  EXPECT_EQ(v.at("check_ok").as_bool(), true);
  EXPECT_EQ(v.at("costs").at("batch_size").as_int64(), PipelineCosts{}.batch_size);

  std::string svg = ThroughputSvg(reports);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("cache&lt;&amp;&gt;"), std::string::npos) << "names are escaped";
  EXPECT_NE(svg.find(">2000<"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

}  // namespace
}  // namespace tbprof::harness
