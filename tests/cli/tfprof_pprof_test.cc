// `tbprof tfprof ... code -output pprof:outfile=F`: the file is gunzipped with
// zlib and parsed by libprotobuf as a pprof profile, then checked as pprof
// checks one (string 0 empty, every index in range, every location and
// function id defined) and against hand counts: the samples' stacks and
// their sum, which equals the code view's root total.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <zlib.h>

#include <fstream>
#include <map>
#include <set>

#include "proto/profile.pb.h"
#include "tests/testing/test_files.h"
#include "tests/testing/tfprof_fixtures.h"

namespace tbprof {
namespace {

using perftools::profiles::Profile;
using test_files::RunCommand;
using tfprof_fixtures::ProfileWriter;

constexpr const char* kDevice = "/job:localhost/replica:0/task:0/device:cpu:0";

std::string Tbprof(const std::string& args) { return std::string(TBPROF_BINARY) + " tfprof " + args; }

std::string Gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[1 << 14];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
  }
  inflateEnd(&z);
  EXPECT_EQ(rc, Z_STREAM_END) << "not a whole gzip stream";
  return out;
}

Profile ReadPprof(const std::string& path) {
  Profile p;
  EXPECT_TRUE(p.ParseFromString(Gunzip(test_files::ReadAll(path)))) << "libprotobuf cannot parse " << path;
  return p;
}

// What pprof's own reader requires of a profile.
void ExpectValidProfile(const Profile& p) {
  ASSERT_GT(p.string_table_size(), 0);
  EXPECT_EQ(p.string_table(0), "");
  auto in_table = [&](int64_t i) { return i >= 0 && i < p.string_table_size(); };
  ASSERT_EQ(p.sample_type_size(), 2);
  for (const auto& t : p.sample_type()) EXPECT_TRUE(in_table(t.type()) && in_table(t.unit()));
  std::set<uint64_t> functions, locations;
  for (const auto& f : p.function()) {
    EXPECT_NE(f.id(), 0u);
    EXPECT_TRUE(functions.insert(f.id()).second) << "function id " << f.id() << " twice";
    EXPECT_TRUE(in_table(f.name()) && in_table(f.filename()) && in_table(f.system_name()));
  }
  for (const auto& l : p.location()) {
    EXPECT_NE(l.id(), 0u);
    EXPECT_TRUE(locations.insert(l.id()).second) << "location id " << l.id() << " twice";
    ASSERT_EQ(l.line_size(), 1);
    EXPECT_TRUE(functions.count(l.line(0).function_id())) << "location " << l.id() << " names no function";
  }
  for (const auto& s : p.sample()) {
    EXPECT_EQ(s.value_size(), p.sample_type_size());
    EXPECT_FALSE(s.location_id().empty());
    for (uint64_t id : s.location_id()) EXPECT_TRUE(locations.count(id)) << "sample names location " << id;
    for (const auto& label : s.label()) EXPECT_TRUE(in_table(label.key()) && in_table(label.str()));
  }
}

// "file:line function" of each frame of a sample, leaf first.
std::vector<std::string> StackOf(const Profile& p, const perftools::profiles::Sample& s) {
  std::map<uint64_t, const perftools::profiles::Function*> functions;
  for (const auto& f : p.function()) functions[f.id()] = &f;
  std::map<uint64_t, const perftools::profiles::Location*> locations;
  for (const auto& l : p.location()) locations[l.id()] = &l;
  std::vector<std::string> stack;
  for (uint64_t id : s.location_id()) {
    const auto& line = locations.at(id)->line(0);
    const auto* f = functions.at(line.function_id());
    stack.push_back(p.string_table(f->filename()) + ":" + std::to_string(line.line()) + " " +
                    p.string_table(f->name()));
  }
  return stack;
}

// Two nodes made at model.py lines 20 and 30 by build(), called from
// main.py:10, and a gradient of the first (hung under a " (gradient)" copy
// of the first one's stack): 100 + 50 + 40 us of cpu time.
TEST(TfprofPprof, CodeViewSamplesWithCallStacks) {
  ProfileWriter w = tfprof_fixtures::CallStacksWriter(kDevice, "minimize");
  const std::string in = test_files::TempPath("pprof_profile_1");
  std::ofstream(in, std::ios::binary) << w.Serialize();
  const std::string out = test_files::TempPath("tfprof.pprof.gz");
  auto r = RunCommand(Tbprof(in + " code -account_type_regexes '.*' -select cpu_micros -output pprof:outfile=" + out));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  Profile p = ReadPprof(out);
  ExpectValidProfile(p);
  EXPECT_EQ(p.string_table(p.sample_type(0).type()), "count");
  EXPECT_EQ(p.string_table(p.sample_type(1).type()), "cpu_micros");
  EXPECT_EQ(p.string_table(p.sample_type(1).unit()), "microseconds");
  std::map<std::string, std::pair<std::vector<std::string>, int64_t>> by_node;
  int64_t sum = 0;
  for (const auto& s : p.sample()) {
    ASSERT_EQ(s.label_size(), 1);
    EXPECT_EQ(p.string_table(s.label(0).key()), "graph node:");
    EXPECT_EQ(s.value(0), 1);
    by_node[p.string_table(s.label(0).str())] = {StackOf(p, s), s.value(1)};
    sum += s.value(1);
  }
  ASSERT_EQ(by_node.size(), 3u);
  using Stack = std::vector<std::string>;
  EXPECT_EQ(by_node["n1"], std::make_pair(Stack{"/src/model.py:20 model:build", "/src/main.py:10 main:main"},
                                          int64_t{100}));
  EXPECT_EQ(by_node["n2"], std::make_pair(Stack{"/src/model.py:30 model:build", "/src/main.py:10 main:main"},
                                          int64_t{50}));
  EXPECT_EQ(by_node["gradients/n1_grad/Conv2DBackpropInput"],
            std::make_pair(Stack{"/src/model.py:20 model:build (gradient)", "/src/main.py:10 main:main (gradient)"},
                           int64_t{40}));
  EXPECT_EQ(sum, 190);  // the code view's root total, counted by hand
}

TEST(TfprofPprof, NeedsTheCodeViewAndOneKnownFigure) {
  ProfileWriter w;
  w.Node("n", "Add").Trace("n", {{"/src/a.py", "f", 1}});
  const std::string in = test_files::TempPath("pprof_profile_2");
  std::ofstream(in, std::ios::binary) << w.Serialize();
  const std::string out = " -output pprof:outfile=" + test_files::TempPath("never.pb.gz") + " 2>&1";
  auto r = RunCommand(Tbprof(in + " scope -select micros" + out));
  EXPECT_NE(WEXITSTATUS(r.status), 0);
  EXPECT_NE(r.output.find("only for the code view"), std::string::npos) << r.output;
  r = RunCommand(Tbprof(in + " code -select micros,bytes" + out));
  EXPECT_NE(r.output.find("exactly one -select field"), std::string::npos) << r.output;
  r = RunCommand(Tbprof(in + " code -select device" + out));
  EXPECT_NE(r.output.find("cannot show 'device'"), std::string::npos) << r.output;
}

// A real JAX profile: XLA's metadata gives each HLO op the line of
// generate_gemm_trace.py that made it. The samples' accelerator time sums to
// the code view's root total, and every frame is in that script.
TEST(TfprofPprof, RealJaxProfileFromHloSourceLines) {
  const std::string xplane = test_files::RealXPlaneDir() + "/jax_rocm_mi300_gemm/tw003.xplane.pb";
  const std::string out = test_files::TempPath("gemm.pprof.gz");
  auto r = RunCommand(Tbprof(xplane + " code -account_type_regexes '.*' -max_depth 100 -select accelerator_micros "
                                      "-output pprof:outfile=" + out));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  Profile p = ReadPprof(out);
  ExpectValidProfile(p);
  ASSERT_GT(p.sample_size(), 0);
  int64_t sum = 0;
  for (const auto& s : p.sample()) sum += s.value(1);
  for (const auto& f : p.function()) {
    EXPECT_EQ(p.string_table(f.filename()), "/workspace/traces/generate_gemm_trace.py");
  }
  // The root line of the same code view, as text: "_TFProfRoot (--/<total>)".
  r = RunCommand(Tbprof(xplane + " code -account_type_regexes '.*' -select accelerator_micros"));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  const size_t root = r.output.find("_TFProfRoot (--/");
  ASSERT_NE(root, std::string::npos) << r.output;
  const std::string total = r.output.substr(root + 16, r.output.find(')', root) - root - 16);
  // The text rounds to 10 us above 1 ms: compare in the text's unit.
  ASSERT_TRUE(total.size() > 2 && total.substr(total.size() - 2) == "ms") << total;
  EXPECT_NEAR(sum / 1000.0, std::stod(total), 0.005) << total;
}

// The code view of the same profile: source lines of the script that made
// the ops (the file's HLO metadata names generate_gemm_trace.py), and a
// profile with no stack at all says so.
TEST(TfprofCodeViewOnXPlane, SourceLinesOrAClearMessage) {
  const std::string xplane = test_files::RealXPlaneDir() + "/jax_rocm_mi300_gemm/tw003.xplane.pb";
  ASSERT_NE(test_files::ReadAll(xplane).find("/workspace/traces/generate_gemm_trace.py"), std::string::npos);
  auto r = RunCommand(Tbprof(xplane + " code -account_type_regexes '.*' -max_depth 100 -select micros"));
  ASSERT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_NE(r.output.find("\n  generate_gemm_trace.py:"), std::string::npos) << r.output;

  const std::string synthetic = test_files::TempPath("nostack/host0.xplane.pb");
  test_files::WriteSyntheticFile(synthetic, test_files::SynthShape(1, 2, 2000));
  r = RunCommand(Tbprof(synthetic + " code -select micros 2>&1"));
  EXPECT_NE(WEXITSTATUS(r.status), 0);
  EXPECT_NE(r.output.find("the code view needs source call stacks, and this xplane profile has none"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace tbprof
