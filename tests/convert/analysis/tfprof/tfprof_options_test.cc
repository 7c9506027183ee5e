// Every tfprof option on a small hand-built profile whose figures are counted
// by hand below; each expectation differs from what the same view shows
// without the option, so each test fails if the option is ignored.
//
//   a/x  Conv2D      cpu 100 us, accelerator 50 us, requested 1000 B, peak 800,
//                    residual 300, output 200, 10 flops per run, 1 run (step 0);
//                    step 1: cpu 300 us, same bytes and run
//   a/y  MatMul      cpu 5 + 5 us (2 runs), accelerator 5 us, 100/80/30/20 B
//   b    VariableV2  shape 2x3 (6 params), cpu 1000 us, 1 run
//   c/d/e Add        never ran
// Synthetic scope parents: a, c, c/d.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <sstream>

#include "convert/analysis/tfprof/tfprof_timeline.h"
#include "convert/tools/tfprof_tools.h"

#include "tests/convert/analysis/tfprof/tfprof_test_util.h"

namespace tbprof::tfprof_test {
namespace {

using tfprof_fixtures::ProfileWriter;

const char* const kCpu = "/job:w/replica:0/task:0/device:gpu:0";

ProfileWriter SmallProfile() {
  ProfileWriter w;
  w.Node("a/x", "Conv2D", {"b"}).FloatOps("a/x", 10).OutputShape("a/x", {4});
  w.Node("a/y", "MatMul", {"a/x", "b"}).OutputShape("a/y", {4});
  w.Node("b", "VariableV2").Shape("b", {2, 3}).OutputShape("b", {2, 3});
  w.Node("c/d/e", "Add", {"a/y"});
  w.Run("a/x", 0, ProfileWriter::Exec{kCpu, 10, {100}, {50}, 1000, 800, 300, 200});
  w.Run("a/x", 1, ProfileWriter::Exec{kCpu, 10, {300}, {50}, 1000, 800, 300, 200});
  w.Run("a/y", 0, ProfileWriter::Exec{kCpu, 200, {5, 5}, {5}, 100, 80, 30, 20});
  w.Run("b", 0, ProfileWriter::Exec{kCpu, 1, {1000}, {}, 0, 0, 0, 0});
  return w;
}

// The names of a tree view's text, in display order, with their indentation.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> names;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // legend
  while (std::getline(in, line)) names.push_back(line.substr(0, line.find(" (")));
  return names;
}

class TfprofOptions : public ::testing::Test {
 protected:
  tfprof::Model model_ = ReadFixture(SmallProfile());
  std::vector<std::string> Scope(const std::vector<std::string>& words) {
    tfprof::Options o;  // account .*, every node, name order, micros
    Status s = tfprof::ParseOptionWords(words, o);
    EXPECT_TRUE(s.ok()) << s.message();
    return Lines(Show(model_, "scope", o).text);
  }
  std::string ScopeText(const std::vector<std::string>& words) {
    tfprof::Options o;
    EXPECT_TRUE(tfprof::ParseOptionWords(words, o).ok());
    return Show(model_, "scope", o).text;
  }
};

using Names = std::vector<std::string>;
const Names kAll = {"_TFProfRoot", "  a", "    a/x", "    a/y", "  b", "  c", "    c/d", "      c/d/e"};

TEST_F(TfprofOptions, WithoutOptionsEveryNodeShows) { EXPECT_EQ(Scope({}), kAll); }

TEST_F(TfprofOptions, MaxDepth) { EXPECT_EQ(Scope({"-max_depth", "2"}), (Names{"_TFProfRoot", "  a", "  b", "  c"})); }

TEST_F(TfprofOptions, MinBytes) { EXPECT_EQ(Scope({"-min_bytes", "500"}), (Names{"_TFProfRoot", "  a", "    a/x"})); }

TEST_F(TfprofOptions, MinPeakBytes) {
  EXPECT_EQ(Scope({"-min_peak_bytes", "850"}), (Names{"_TFProfRoot", "  a"}));  // a: 880, a/x: 800
}

TEST_F(TfprofOptions, MinResidualBytes) {
  EXPECT_EQ(Scope({"-min_residual_bytes", "310"}), (Names{"_TFProfRoot", "  a"}));  // a: 330
}

TEST_F(TfprofOptions, MinOutputBytes) {
  EXPECT_EQ(Scope({"-min_output_bytes", "100"}), (Names{"_TFProfRoot", "  a", "    a/x"}));
}

// Step -1 is the mean of a/x's two steps: cpu (100 + 300) / 2 = 200 us.
TEST_F(TfprofOptions, MinMicros) {
  EXPECT_EQ(Scope({"-min_micros", "300"}), (Names{"_TFProfRoot", "  b"}));  // a: 265, a/x: 250
}

TEST_F(TfprofOptions, MinAcceleratorMicros) {
  EXPECT_EQ(Scope({"-min_accelerator_micros", "10"}), (Names{"_TFProfRoot", "  a", "    a/x"}));
}

TEST_F(TfprofOptions, MinCpuMicros) {
  EXPECT_EQ(Scope({"-min_cpu_micros", "201"}), (Names{"_TFProfRoot", "  a", "  b"}));  // a: 210, a/x: 200
}

// min_params, min_float_ops and min_occurrence compare the node's own values.
TEST_F(TfprofOptions, MinParams) { EXPECT_EQ(Scope({"-min_params", "1"}), (Names{"_TFProfRoot", "  b"})); }

TEST_F(TfprofOptions, MinFloatOps) { EXPECT_EQ(Scope({"-min_float_ops", "1"}), (Names{"_TFProfRoot", "  a/x"})); }

TEST_F(TfprofOptions, MinOccurrence) { EXPECT_EQ(Scope({"-min_occurrence", "2"}), (Names{"_TFProfRoot", "  a/y"})); }

TEST_F(TfprofOptions, Step) {
  // Root cpu: step -1: 200 + 10 + 1000 = 1.21ms; step 1: only a/x ran, 300 us.
  EXPECT_NE(ScopeText({"-select", "cpu_micros"}).find("_TFProfRoot (--/1.21ms)"), std::string::npos);
  EXPECT_NE(ScopeText({"-step", "1", "-select", "cpu_micros"}).find("_TFProfRoot (--/300us)"), std::string::npos);
}

TEST_F(TfprofOptions, OrderBy) {
  EXPECT_EQ(Scope({"-order_by", "micros", "-max_depth", "2"}), (Names{"_TFProfRoot", "  b", "  a", "  c"}));
}

TEST_F(TfprofOptions, AccountTypeRegexes) {
  EXPECT_EQ(Scope({"-account_type_regexes", "Conv2D"}), (Names{"_TFProfRoot", "  a", "    a/x"}));
  EXPECT_NE(ScopeText({"-account_type_regexes", "Conv2D"}).find("  a (--/250us"), std::string::npos);
}

TEST_F(TfprofOptions, StartNameRegexes) {
  EXPECT_EQ(Scope({"-start_name_regexes", "c/d"}), (Names{"_TFProfRoot", "  c/d", "    c/d/e"}));
}

TEST_F(TfprofOptions, TrimNameRegexes) {
  EXPECT_EQ(Scope({"-trim_name_regexes", "a,c"}), (Names{"_TFProfRoot", "  a", "  b", "  c"}));
}

TEST_F(TfprofOptions, ShowNameRegexes) {
  EXPECT_EQ(Scope({"-show_name_regexes", "a/.*"}), (Names{"_TFProfRoot", "  a/x", "  a/y"}));
}

TEST_F(TfprofOptions, HideNameRegexes) {
  EXPECT_EQ(Scope({"-hide_name_regexes", "a,c.*"}), (Names{"_TFProfRoot", "  a/x", "  a/y", "  b"}));
}

TEST_F(TfprofOptions, AccountDisplayedOpOnly) {
  // Only a/y shown: the root counts 10 us cpu; without the option all 1.21ms.
  EXPECT_NE(ScopeText({"-show_name_regexes", "a/y", "-account_displayed_op_only", "-select", "cpu_micros"})
                .find("_TFProfRoot (--/10us)"),
            std::string::npos);
  EXPECT_NE(ScopeText({"-show_name_regexes", "a/y", "-select", "cpu_micros"}).find("_TFProfRoot (--/1.21ms)"),
            std::string::npos);
}

TEST_F(TfprofOptions, Select) {
  const std::string text = ScopeText({"-select", "bytes,occurrence,device,op_types", "-max_depth", "2"});
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "node name | requested bytes | assigned devices | op types | op count (run|defined)");
  EXPECT_NE(text.find("  b (0B/0B, /job:w/replica:0/task:0/device:gpu:0, /job:w/replica:0/task:0/device:gpu:0|"
                      "VariableV2, 1/1|1/1)"),
            std::string::npos)
      << text;
}

TEST_F(TfprofOptions, Output) {
  tfprof::Options o;
  ASSERT_TRUE(tfprof::ParseOptionWords({"-output", "file:outfile=/tmp/out.txt"}, o).ok());
  EXPECT_EQ(o.output_type, "file");
  EXPECT_EQ(o.outfile, "/tmp/out.txt");
  ASSERT_TRUE(tfprof::ParseOptionWords({"-output", "none"}, o).ok());
  EXPECT_EQ(o.output_type, "none");
  Status missing = tfprof::ParseOptionWords({"-output", "timeline"}, o);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("outfile=PATH"), std::string::npos);
}

// Op view: a row per op type, totals running down the rows.
TEST_F(TfprofOptions, OpViewRunningTotalsAndMaxDepthAsRows) {
  tfprof::Options o;
  ASSERT_TRUE(tfprof::ParseOptionWords({"-order_by", "cpu_micros", "-select", "cpu_micros"}, o).ok());
  // cpu per type: VariableV2 1000, Conv2D 200, MatMul 10, Add 0 (total 1210).
  EXPECT_EQ(WithoutSpaces(Show(model_, "op", o).text),
            "nodename|cpuexecutiontime\n"
            "VariableV21.00ms(100.00%,82.64%)\nConv2D200us(17.36%,16.53%)\nMatMul10us(0.83%,0.83%)\n"
            "Add0us(0.00%,0.00%)\n");
  ASSERT_TRUE(tfprof::ParseOptionWords({"-max_depth", "1"}, o).ok());  // rows 0 and 1
  EXPECT_EQ(WithoutSpaces(Show(model_, "op", o).text),
            "nodename|cpuexecutiontime\nVariableV21.00ms(100.00%,82.64%)\nConv2D200us(17.36%,16.53%)\n");
}

// Graph view: an unaccounted node is dropped and its accounted inputs move up.
TEST_F(TfprofOptions, GraphViewDropsUnaccountedNodes) {
  tfprof::Options o;
  ASSERT_TRUE(tfprof::ParseOptionWords({"-account_type_regexes", "Conv2D,VariableV2"}, o).ok());
  // c/d/e <- a/y <- (a/x <- b, b): only a/x and b are accounted; b is reached once.
  EXPECT_EQ(Lines(Show(model_, "graph", o).text), (Names{"_TFProfRoot", "  a/x", "    b"}));
}

}  // namespace
}  // namespace tbprof::tfprof_test

namespace tbprof::tfprof_test {
namespace {

// -output timeline of the scope view: an icicle on a clock from 0, by hand:
// root 1265 us (a 265 + b 1000; c never ran and is left out), a at 0 with
// a/x (250) then a/y (15), b after a at 265.
TEST(TfprofTimeline, ScopeIcicle) {
  auto model = ReadFixture(SmallProfile());
  auto trace = tfprof::IcicleTimelineJson(Show(model, "scope", tfprof::Options{}));
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  auto events = boost::json::parse(*trace).at("traceEvents").as_array();
  std::vector<std::string> got;
  for (const auto& e : events) {
    if (e.at("ph") != "X") continue;
    got.push_back(std::string(e.at("name").as_string()) + "@" + std::to_string(e.at("pid").as_int64()) + ":" +
                  std::to_string(e.at("ts").as_int64()) + "+" + std::to_string(e.at("dur").as_int64()));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"_TFProfRoot@0:0+1265", "a@1:0+265", "a/x@2:0+250", "a/y@2:250+15",
                                           "b@1:265+1000"}));
  EXPECT_FALSE(tfprof::IcicleTimelineJson(Show(model, "op", tfprof::Options{})).ok());
}

// tfprof's command-line defaults account only variables; a profile without
// any gets a note saying so (in the view and in its JSON), one with variables
// none.
TEST(TfprofAccountingNote, DefaultsOnAProfileWithoutVariables) {
  ProfileWriter w;
  w.Node("a/x", "Conv2D").Node("a/y", "MatMul");
  w.Run("a/x", 0, ProfileWriter::Exec{kCpu, 10, {100}, {50}, 0, 0, 0, 0});
  tfprof::Model model = ReadFixture(w);
  const tfprof::Options defaults = tfprof::CommandLineDefaults();
  const std::string note =
      "no node matched -account_type_regexes Variable,VariableV2; add -account_type_regexes .* to account every op";
  for (const char* view : {"scope", "op"}) {
    tfprof::ViewResult shown = Show(model, view, defaults);
    EXPECT_EQ(shown.note, note) << view;
    auto json = TfprofViewToJson(shown, defaults);
    ASSERT_TRUE(json.ok());
    EXPECT_EQ(boost::json::parse(*json).as_object().at("note").as_string(), note) << view;
  }
  tfprof::Options every = defaults;
  ASSERT_TRUE(tfprof::SetOption(every, "account_type_regexes", ".*").ok());
  EXPECT_EQ(Show(model, "scope", every).note, "");
  EXPECT_EQ(Show(ReadFixture(SmallProfile()), "scope", defaults).note, "");  // b is a VariableV2
}

}  // namespace
}  // namespace tbprof::tfprof_test
