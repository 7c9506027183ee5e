// Bad input gets an error naming the problem; and the code view on a small
// profile with call stacks, its lines counted by hand.
#include <gtest/gtest.h>

#include "tests/convert/analysis/tfprof/tfprof_test_util.h"

namespace tbprof::tfprof_test {
namespace {

using tfprof_fixtures::ProfileWriter;

const char* const kDevice = "/job:w/replica:0/task:0/device:gpu:0";

void ExpectError(const Status& s, const std::string& names) {
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(names), std::string::npos) << s.message();
}

TEST(TfprofBadInput, InvalidRegexNamesOptionAndPattern) {
  tfprof::Options o;
  Status s = tfprof::ParseOptionWords({"-show_name_regexes", "ok,a(("}, o);
  ExpectError(s, "-show_name_regexes");
  ExpectError(s, "'a((' is not a valid regular expression");
}

TEST(TfprofBadInput, UnknownOptionsAndValues) {
  tfprof::Options o;
  ExpectError(tfprof::ParseOptionWords({"-max_dept", "3"}, o), "Unknown option '-max_dept'");
  ExpectError(tfprof::ParseOptionWords({"-select", "micros,bogus"}, o), "unknown select field 'bogus'");
  ExpectError(tfprof::ParseOptionWords({"-max_depth", "three"}, o), "Invalid option '-max_depth' value: 'three'");
  ExpectError(tfprof::ParseOptionWords({"-order_by", "speed"}, o), "Invalid option '-order_by' value: 'speed'");
  ExpectError(tfprof::ParseOptionWords({"-account_displayed_op_only", "maybe"}, o), "not a boolean");
  ExpectError(tfprof::ParseOptionWords({"-min_bytes"}, o), "'-min_bytes'");
  ExpectError(tfprof::ParseOptionWords({"scope"}, o), "Expected an option");
}

TEST(TfprofBadInput, DamagedProfileProto) {
  ExpectError(tfprof::ReadProfileProto(std::string("\xff\xff\xff", 3), "p").status(), "p: not a valid ProfileProto");
  std::string bytes = tfprof_fixtures::AdvisorTestWriter().Serialize();
  bytes.pop_back();  // cut inside the last node
  ExpectError(tfprof::ReadProfileProto(bytes, "profile_100").status(), "profile_100: not a valid ProfileProto");
  ExpectError(tfprof::ReadProfileProto("", "empty").status(), "empty: the ProfileProto has no nodes");
}

TEST(TfprofBadInput, DanglingReferences) {
  auto proto = tfprof_fixtures::AdvisorTestWriter().Build();
  (*(*proto.mutable_nodes())[0].mutable_inputs())[0] = 99;
  ExpectError(tfprof::ReadProfileProto(proto.SerializeAsString(), "f").status(),
              "input 0 refers to node id 99, which the file does not have");
  auto traced = tfprof_fixtures::AdvisorTestWriter().Build();
  (*traced.mutable_nodes())[1].mutable_trace()->add_traces()->set_file_id(7);
  ExpectError(tfprof::ReadProfileProto(traced.SerializeAsString(), "f").status(), "string id 7");
}

TEST(TfprofBadInput, MissingStepAndViewNeeds) {
  auto model = ReadFixture(tfprof_fixtures::AdvisorTestWriter());
  tfprof::Options o;
  o.step = 5;
  ExpectError(tfprof::ShowView(model, "scope", o).status(), "-step 5 is not in the profile (its steps: 0)");
  ExpectError(tfprof::ShowView(model, "timeline", tfprof::Options{}).status(), "unknown view 'timeline'");
  ExpectError(tfprof::ShowView(model, "graph", tfprof::Options{}).status(), "the graph view needs the graph's inputs");
  ExpectError(tfprof::ShowView(model, "code", tfprof::Options{}).status(), "the code view needs source call stacks");
}

// n1 and n2 are created by build() at model.py lines 20 and 30, called from
// main.py:10; the gradient of n1 hangs under a " (gradient)" copy of n1's
// stack. Totals: 100 + 50 under main, 40 under its gradient copy, 190 in all.
TEST(TfprofCodeView, TreeOfCallStacks) {
  ProfileWriter w = tfprof_fixtures::CallStacksWriter(kDevice, "a_really_long_function_name");
  auto model = ReadFixture(w);
  tfprof::Options o;
  o.select = {"cpu_micros"};
  EXPECT_EQ(Show(model, "code", o).text,
            "node name | cpu execution time\n"
            "_TFProfRoot (--/190us)\n"
            "  main.py:10:main (0us/150us)\n"
            "    model.py:20:build (100us/100us)\n"
            "    model.py:30:build (50us/50us)\n"
            "  main.py:10:main (gradient) (0us/40us)\n"
            "    model.py:20:build (gradient) (40us/40us)\n");
}

TEST(TfprofCodeView, LongFunctionNamesAreCut) {
  ProfileWriter w;
  w.Node("n", "Add").Trace("n", {{"/src/train.py", "a_really_long_function_name", 5}});
  auto model = ReadFixture(w);
  tfprof::Options o;
  o.select = {"params"};
  EXPECT_EQ(Show(model, "code", o).text,
            "node name | # parameters\n_TFProfRoot (--/0 params)\n  train.py:5:a_really_long_fun... (0/0 params)\n");
}

}  // namespace
}  // namespace tbprof::tfprof_test
