// Our tool JSON against real xprof responses (testdata/xprof_outputs_tpu_training):
// every DataTable xprof sends must come back from us with the same column ids,
// labels and types in the same order, and with at least xprof's `p` keys, so
// frontends written for xprof read our tables. The xprof responses are for a
// TPU training run whose xplane is not public; our input is the public TPU v6e
// profile. xprof's TPU-only tables (TensorCore/SparseCore step breakdowns)
// come from a converter path for TPU steps that tbprof answers with the
// generic step table, so those are listed and skipped by their first column.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <set>

#include "convert/tools/tool_registry.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

const std::string kXprofDir = std::string(TBPROF_TESTDATA) + "/xprof_outputs_tpu_training";
const std::string kOurInput = std::string(TBPROF_TESTDATA) + "/xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb";

// First column ids of xprof tables that only its TPU step path produces.
const std::set<std::string> kTpuOnlyTables = {"stepnum", "index"};

json::value Xprof(const std::string& tool) {
  auto body = ReadFileMaybeGzip(kXprofDir + "/" + tool + ".json.gz");
  EXPECT_TRUE(body.ok()) << body.status().message();
  return body.ok() ? json::parse(*body) : json::value();
}

json::value Ours(const std::string& tool) {
  ToolInput in;
  in.profile_paths = {kOurInput};
  auto out = FindProfileTool(tool)->run(in);
  EXPECT_TRUE(out.ok()) << tool << ": " << out.status().message();
  return out.ok() ? json::parse(out->body) : json::value();
}

std::string ColumnsOf(const json::value& table) {
  std::string s;
  for (const auto& c : table.at("cols").as_array()) {
    s += json::value_to<std::string>(c.at("id")) + "|" + json::value_to<std::string>(c.at("label")) + "|" +
         json::value_to<std::string>(c.at("type")) + "\n";
  }
  return s;
}

std::string FirstColumnId(const json::value& table) {
  const auto& cols = table.at("cols").as_array();
  return cols.empty() ? "" : json::value_to<std::string>(cols[0].at("id"));
}

bool IsDataTable(const json::value& v) { return v.is_object() && v.as_object().contains("cols"); }

// Both responses are one DataTable or an array of them (with `{}` fillers).
std::vector<const json::value*> Tables(const json::value& v) {
  std::vector<const json::value*> out;
  if (IsDataTable(v)) out.push_back(&v);
  if (v.is_array()) {
    for (const auto& t : v.as_array()) {
      if (IsDataTable(t)) out.push_back(&t);
    }
  }
  return out;
}

void ExpectSameTables(const std::string& tool) {
  json::value theirs = Xprof(tool), ours = Ours(tool);
  std::vector<const json::value*> our_tables = Tables(ours);
  size_t compared = 0;
  for (const json::value* t : Tables(theirs)) {
    std::string first = FirstColumnId(*t);
    if (kTpuOnlyTables.count(first)) continue;
    const json::value* match = nullptr;
    for (const json::value* o : our_tables) {
      if (FirstColumnId(*o) == first) match = o;
    }
    ASSERT_NE(match, nullptr) << tool << ": no table whose first column is '" << first << "'";
    EXPECT_EQ(ColumnsOf(*match), ColumnsOf(*t)) << tool << " table starting with " << first;
    if (t->as_object().contains("p")) {
      ASSERT_TRUE(match->as_object().contains("p")) << tool << " table " << first;
      for (const auto& kv : t->at("p").as_object()) {
        EXPECT_TRUE(match->at("p").as_object().contains(kv.key()))
            << tool << " table " << first << " lacks p." << std::string(kv.key());
      }
    }
    ++compared;
  }
  EXPECT_GT(compared, 0u) << tool;
}

class XprofShape : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kXprofDir) || !fs::exists(kOurInput)) GTEST_FAIL() << "required: testdata not found under " << TBPROF_TESTDATA;
  }
};

TEST_F(XprofShape, OverviewPageTables) { ExpectSameTables("overview_page"); }
TEST_F(XprofShape, InputPipelineTables) { ExpectSameTables("input_pipeline_analyzer"); }
TEST_F(XprofShape, FrameworkOpStatsTables) { ExpectSameTables("framework_op_stats"); }

// memory_profile is protobuf JSON: the keys xprof writes at each level that we
// also have data for must be spelled the same.
void ExpectKeysPresent(const json::object& theirs, const json::object& ours, const std::string& where) {
  for (const auto& kv : theirs) {
    ASSERT_TRUE(ours.contains(kv.key())) << where << "." << std::string(kv.key());
    if (kv.value().is_object() && ours.at(kv.key()).is_object()) {
      ExpectKeysPresent(kv.value().as_object(), ours.at(kv.key()).as_object(), where + "." + std::string(kv.key()));
    }
  }
}

TEST_F(XprofShape, MemoryProfileKeys) {
  json::value theirs = Xprof("memory_profile"), ours = Ours("memory_profile");
  for (const char* key : {"memoryIds", "memoryProfilePerAllocator", "numHosts", "version"}) {
    EXPECT_TRUE(ours.as_object().contains(key)) << key;
  }
  const auto& their_allocators = theirs.at("memoryProfilePerAllocator").as_object();
  const auto& our_allocators = ours.at("memoryProfilePerAllocator").as_object();
  ASSERT_FALSE(their_allocators.empty());
  ASSERT_FALSE(our_allocators.empty());
  const json::object& their_first = their_allocators.begin()->value().as_object();
  const json::object& our_first = our_allocators.begin()->value().as_object();
  for (const char* key : {"profileSummary", "activeAllocations", "specialAllocations", "sampledTimelineSnapshots"}) {
    EXPECT_TRUE(their_first.contains(key)) << key;
    EXPECT_TRUE(our_first.contains(key)) << key;
  }
  // Every field is printed, zeros included, as xprof prints them.
  ExpectKeysPresent(their_first.at("profileSummary").as_object(), our_first.at("profileSummary").as_object(),
                    "profileSummary");
  const auto& their_sample = their_first.at("sampledTimelineSnapshots").as_array();
  const auto& our_sample = our_first.at("sampledTimelineSnapshots").as_array();
  ASSERT_FALSE(their_sample.empty());
  ASSERT_FALSE(our_sample.empty());
  ExpectKeysPresent(their_sample[0].as_object(), our_sample[0].as_object(), "sampledTimelineSnapshots[0]");
}

}  // namespace
}  // namespace tbprof
