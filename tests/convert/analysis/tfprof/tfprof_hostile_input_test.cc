// Hostile tfprof input: patterns that make a backtracking engine hang or
// recurse per character, profiles whose trees are deep enough to overflow a
// worker's stack through recursion, and a name whose scope tree is quadratic
// in its length. Each gets a clear error or a fast answer, never a crash.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "convert/analysis/tfprof/tfprof_advisor.h"
#include "convert/base/cancellation.h"
#include "convert/base/memory_grant.h"
#include "convert/tools/tfprof_tools.h"

#include "tests/convert/analysis/tfprof/tfprof_test_util.h"

namespace tbprof::tfprof_test {
namespace {

using tfprof_fixtures::ProfileWriter;

const char* const kGpu = "/job:w/replica:0/task:0/device:gpu:0";

std::string Repeat(const std::string& piece, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += piece;
  return out;
}

// One op that ran, named `name`, beside an ordinary one.
tfprof::Model ProfileWithName(const std::string& name) {
  ProfileWriter w;
  w.Node(name, "Add").Node("plain", "MatMul");
  w.Run(name, 0, ProfileWriter::Exec{kGpu, 1, {10}, {}, 0, 0, 0, 0});
  w.Run("plain", 0, ProfileWriter::Exec{kGpu, 20, {5}, {}, 0, 0, 0, 0});
  return ReadFixture(w);
}

TEST(TfprofHostileRegex, DeeplyNestedGroupsAreRefusedNamingTheOption) {
  const std::string pattern = Repeat("(", 400) + "." + Repeat(")", 400) + "*";
  for (const char* option : {"show_name_regexes", "start_name_regexes", "trim_name_regexes", "hide_name_regexes",
                             "account_type_regexes"}) {
    tfprof::Options o;
    Status s = tfprof::SetOption(o, option, pattern);
    ASSERT_FALSE(s.ok()) << option;
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(s.message().find(std::string("-") + option), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("nested 400 deep"), std::string::npos) << s.message();
  }
}

TEST(TfprofHostileRegex, AnOverLongPatternIsRefused) {
  tfprof::Options o;
  Status s = tfprof::SetOption(o, "show_name_regexes", Repeat("a", 5000));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("5000 bytes"), std::string::npos) << s.message();
  // Counted repetition makes a small pattern whose program is huge.
  s = tfprof::SetOption(o, "show_name_regexes", "((a{100}){100}){100}");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("-show_name_regexes"), std::string::npos) << s.message();
}

TEST(TfprofHostileRegex, GroupsInsideBracketsOrEscapedDoNotCountAsNesting) {
  tfprof::Options o;
  EXPECT_TRUE(tfprof::SetOption(o, "show_name_regexes", "[(]" + Repeat("\\(", 100) + "a").ok());
}

// (.*)*x backtracks exponentially in the name's length before failing; (a|b)*
// recurses once per character in a recursive engine.
TEST(TfprofHostileRegex, CatastrophicPatternsMatchInLinearTime) {
  const std::string long_name = Repeat("ab", 10000);
  tfprof::Model model = ProfileWithName(long_name);
  tfprof::Options o;
  ASSERT_TRUE(tfprof::ParseOptionWords({"-show_name_regexes", "(.*)*x"}, o).ok());
  auto scope = tfprof::ShowView(model, "scope", o);
  ASSERT_TRUE(scope.ok()) << scope.status().message();
  EXPECT_EQ(scope->graph.children_size(), 0);  // nothing ends in x

  ASSERT_TRUE(tfprof::ParseOptionWords({"-show_name_regexes", "(a|b)*"}, o).ok());
  auto shown = tfprof::ShowView(model, "scope", o);
  ASSERT_TRUE(shown.ok()) << shown.status().message();
  EXPECT_NE(shown->text.find(long_name.substr(0, 100)), std::string::npos);
  EXPECT_EQ(shown->text.find("plain"), std::string::npos);
  tfprof::RegexList list = tfprof::RegexList::Parse("hide_name_regexes", "(a|aa)*c").value();
  EXPECT_FALSE(list.Matches(std::string(50000, 'a')));
  EXPECT_TRUE(list.Matches(std::string(50000, 'a') + "c"));
}

TEST(TfprofHostileRegex, MatchingStopsWhenTheRequestIsCancelled) {
  tfprof::Model model = ProfileWithName("a/b/c");
  auto token = std::make_shared<CancellationToken>();
  token->Cancel();
  CancellationScope scope(token);
  tfprof::Options o;
  ASSERT_TRUE(tfprof::ParseOptionWords({"-show_name_regexes", ".*b.*"}, o).ok());
  for (const char* view : {"scope", "op"}) {
    auto shown = tfprof::ShowView(model, view, o);
    ASSERT_FALSE(shown.ok()) << view;
    EXPECT_EQ(shown.status().code(), ErrorCode::kUnavailable) << view;
  }
}

// `view` of `model`, with the default options, is refused as data loss for `why`.
void ExpectViewRefused(const tfprof::Model& model, const std::string& view, const std::string& why) {
  auto shown = tfprof::ShowView(model, view, tfprof::Options{});
  ASSERT_FALSE(shown.ok());
  EXPECT_EQ(shown.status().code(), ErrorCode::kDataLoss);
  EXPECT_NE(shown.status().message().find(why), std::string::npos) << shown.status().message();
}

// A call stack of 200,000 frames: the code view (and the advisor, which runs
// it) is refused with the stack's size.
TEST(TfprofHostileProfile, DeepCodeTraceIsRefusedNotRecursedInto) {
  ProfileWriter w;
  std::vector<ProfileWriter::Frame> frames;
  for (int i = 0; i < 200000; ++i) frames.push_back({"model.py", "f", i + 1});
  w.Node("deep", "MatMul").Trace("deep", frames);
  w.Run("deep", 0, ProfileWriter::Exec{kGpu, 1, {10}, {}, 0, 0, 0, 0});
  tfprof::Model model = ReadFixture(w);
  ExpectViewRefused(model, "code", "a call stack of 200000 frames");
  auto advice = tfprof::Advise(model, {});
  ASSERT_FALSE(advice.ok());
  EXPECT_EQ(advice.status().code(), ErrorCode::kDataLoss);
}

// Each node reads the one before: the graph view's tree is the chain.
tfprof::Model InputChain(int length) {
  ProfileWriter w;
  w.Node("n0", "Const");
  for (int i = 1; i < length; ++i) w.Node("n" + std::to_string(i), "Add", {"n" + std::to_string(i - 1)});
  w.Run("n0", 0, ProfileWriter::Exec{kGpu, 1, {10}, {}, 0, 0, 0, 0});
  return ReadFixture(w);
}

TEST(TfprofHostileProfile, DeepInputChainIsRefusedNotRecursedInto) {
  tfprof::Model model = InputChain(30000);  // three times the bound (the reported file had 200,000)
  ExpectViewRefused(model, "graph", "deeper than 10000 levels");
}

TEST(TfprofHostileProfile, ChainsUpToTheBoundAreShown) {
  tfprof::Model model = InputChain(5000);
  tfprof::Options o;
  auto graph = tfprof::ShowView(model, "graph", o);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  auto json = TfprofViewToJson(*graph, o);
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"n0\""), std::string::npos);
}

TEST(TfprofHostileProfile, NameOfTooManyScopesIsRefused) {
  tfprof::Model model = ProfileWithName(Repeat("a/", 20000) + "a");
  ExpectViewRefused(model, "scope", "more than 10000 scopes");
}

// a/a/.../a of 8,000 scopes is a 16 KB name whose scope view prints 8,000
// ever longer names (~64 MB of text, as much again in JSON): under a grant of
// 32 MiB that may not grow, the view is refused with the grant's error.
TEST(TfprofHostileProfile, QuadraticAnswerIsRefusedByTheMemoryGrant) {
  tfprof::Model model = ProfileWithName(Repeat("a/", 8000) + "a");
  auto grant = std::make_shared<MemoryGrant>(uint64_t{32} << 20, [](uint64_t, uint64_t) {
    return ResourceExhausted("over the test's bound");
  });
  MemoryGrantScope in_grant(grant);
  tfprof::Options o;
  auto scope = tfprof::ShowView(model, "scope", o);
  Status s = scope.ok() ? TfprofViewToJson(*scope, o).status() : scope.status();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(s.message().find("tfprof"), std::string::npos) << s.message();
  EXPECT_LE(grant->peak_claimed(), uint64_t{32} << 20);
  // A shallow look at the same profile fits.
  MemoryGrantScope in_second(std::make_shared<MemoryGrant>(uint64_t{32} << 20, nullptr));
  ASSERT_TRUE(tfprof::ParseOptionWords({"-max_depth", "3"}, o).ok());
  auto shallow = tfprof::ShowView(model, "scope", o);
  ASSERT_TRUE(shallow.ok()) << shallow.status().message();
  EXPECT_TRUE(TfprofViewToJson(*shallow, o).ok());
}

}  // namespace
}  // namespace tbprof::tfprof_test
