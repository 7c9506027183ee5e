// A PyTorch trace that is empty, damaged or cut short is told as such
// (DataLoss: the server's 422, in the README's words); times at the ends of
// int64 are refused, not wrapped; and the importer claims what it holds, so
// a trace of many devices, one huge name or millions of args stops at the
// memory bound (ResourceExhausted: 413) instead of passing it.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "bench/hostile_inputs.h"
#include "convert/base/memory_grant.h"
#include "convert/kineto/kineto_reader.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof {
namespace {

using testing_kineto::TraceWriter;

Status StatusOf(std::string_view json, std::string_view source = "r.pt.trace.json") {
  return ParseKinetoTrace(json, source).status();
}

TEST(KinetoLimits, AnEmptyTraceSaysEmpty) {
  const Status s = StatusOf("");
  EXPECT_EQ(s.code(), ErrorCode::kDataLoss);
  EXPECT_NE(s.message().find("r.pt.trace.json: this profile file is empty (0 bytes)"), std::string::npos)
      << s.message();
}

TEST(KinetoLimits, DamagedOrCutTracesAreDamagedFilesNamingTheirSize) {
  TraceWriter w;
  w.Host("cpu_op", "aten::mm", 0, 10'000);
  w.Host("cpu_op", "aten::add", 20'000, 10'000);
  const std::string good = w.Json();
  for (size_t cut : {size_t{1}, good.size() / 2, good.size() - 3}) {
    const Status s = StatusOf(good.substr(0, cut), "/logs/run/r.pt.trace.json");
    EXPECT_EQ(s.code(), ErrorCode::kDataLoss) << cut;
    EXPECT_NE(s.message().find("r.pt.trace.json: this profile file is damaged or incomplete (" + std::to_string(cut) +
                               " bytes; it ends before its JSON closes"),
              std::string::npos)
        << s.message();
    EXPECT_EQ(s.message().find("/logs/"), std::string::npos) << "names a server path: " << s.message();
  }
  const Status bad = StatusOf("{\"traceEvents\": [], } ");
  EXPECT_EQ(bad.code(), ErrorCode::kDataLoss);
  EXPECT_NE(bad.message().find("damaged or incomplete (22 bytes; not valid JSON"), std::string::npos) << bad.message();
}

// -9.2e15 µs and +9.2e15 µs each fit int64 ns, their distance does not.
TEST(KinetoLimits, TimesNearTheEndsOfInt64AreRefusedNotWrapped) {
  const std::string json =
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
      "\"ts\": -9200000000000000, \"dur\": 1}, {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"b\", \"pid\": 1, "
      "\"tid\": 1, \"ts\": 9200000000000000, \"dur\": 1}]}";
  const Status s = StatusOf(json);
  EXPECT_EQ(s.code(), ErrorCode::kDataLoss) << s.message();
  EXPECT_NE(s.message().find("beyond what a profile spans"), std::string::npos) << s.message();
}

// A grant of `reserved` bytes that gives nothing more.
std::shared_ptr<MemoryGrant> Bounded(uint64_t reserved) {
  return std::make_shared<MemoryGrant>(reserved, [](uint64_t more, uint64_t) {
    return ResourceExhausted("needs " + std::to_string(more) + " bytes more");
  });
}

// Imports `json` under a bound of `bound` bytes: the status, and the most the
// import claimed.
std::pair<Status, uint64_t> ImportBounded(const std::string& json, uint64_t bound) {
  auto grant = Bounded(bound);
  MemoryGrantScope scope(grant);
  Status s = ParseKinetoTrace(json, "big.pt.trace.json").status();
  return {s, grant->peak_claimed()};
}

// Each shape loads with room, claiming at least what it must hold, and
// stops at half of that: the claims are what the import holds, not a guess.
void ExpectHeldToTheBound(const std::string& json, uint64_t must_hold) {
  auto [ok, used] = ImportBounded(json, uint64_t{4} << 30);
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_GE(used, must_hold);
  auto [refused, claimed] = ImportBounded(json, used / 2);
  EXPECT_EQ(refused.code(), ErrorCode::kResourceExhausted) << refused.message();
  EXPECT_LE(claimed, used / 2);
}

TEST(KinetoLimits, ManyDevicesStopAtTheBound) {
  const std::string json = bench::ManyDevicesTrace(20'000);
  // A plane per device, with its line, event and two stats.
  ExpectHeldToTheBound(json, 20'000 * (sizeof(XPlaneModel) + sizeof(LineModel) + sizeof(Event) + 2 * sizeof(Stat)));
  auto m = ParseKinetoTrace(json, "big.pt.trace.json");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((*m)->planes.size(), 20'001u);  // and the host's (empty)
}

TEST(KinetoLimits, AHugeNameStopsAtTheBound) {
  const size_t name_bytes = size_t{24} << 20;
  const std::string json = "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" +
                           std::string(name_bytes, 'a') + "\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,"
                           "\"args\":{\"External id\":1}}]}";
  // The name, and the operator named by it twice ("<op>:<op>").
  ExpectHeldToTheBound(json, 3 * name_bytes);
}

std::string OneEventWithArgs(const std::string& args) {
  return "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
         "\"ts\":1,\"dur\":2,\"args\":{" + args + "}}]}";
}

TEST(KinetoLimits, MillionsOfArgsStopAtTheBound) {
  std::string args;
  for (int i = 0; i < 2'000'000; ++i) args += "\"k" + std::to_string(i) + "\":1,";
  ExpectHeldToTheBound(OneEventWithArgs(args + "\"k\":1"), 2'000'000 * sizeof(Stat));
}

// The stats of the one event of `json`, by name.
std::map<std::string, int64_t> ArgsOf(const std::string& json) {
  auto m = ParseKinetoTrace(json, "r.pt.trace.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  std::map<std::string, int64_t> args;
  if (!m.ok()) return args;
  for (const XPlaneModel& plane : (*m)->planes) {
    for (uint32_t e = 0; e < plane.events.size(); ++e) {
      for (auto [s, end] = plane.StatsOf(e); s != end; ++s) {
        if (s->IsInteger()) args[std::string((*m)->Str(s->name))] = s->IntValue();
      }
    }
  }
  return args;
}

// A key written twice is one arg with the last value, as json.loads reads
// it: 2 million copies of one key hold one stat, not 2 million.
TEST(KinetoLimits, ARepeatedArgIsOneArgWithTheLastValue) {
  EXPECT_EQ(ArgsOf(OneEventWithArgs("\"k\":1,\"j\":5,\"k\":2")), (std::map<std::string, int64_t>{{"j", 5}, {"k", 2}}));
  std::string many;
  for (int i = 0; i < 40; ++i) many += "\"k" + std::to_string(i % 20) + "\":" + std::to_string(i) + ",";
  std::map<std::string, int64_t> want;
  for (int i = 20; i < 40; ++i) want["k" + std::to_string(i % 20)] = i;
  want["z"] = 1;
  EXPECT_EQ(ArgsOf(OneEventWithArgs(many + "\"z\":1")), want);  // past the keys scanned in place
  std::string copies;
  for (int i = 0; i < 2'000'000; ++i) copies += "\"k\":" + std::to_string(i % 7) + ",";
  auto [ok, used] = ImportBounded(OneEventWithArgs(copies + "\"k\":9"), uint64_t{4} << 30);
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_LT(used, copies.size());  // its stats would be 2M x sizeof(Stat), more than its text
  EXPECT_EQ(ArgsOf(OneEventWithArgs(copies + "\"k\":9")), (std::map<std::string, int64_t>{{"k", 9}}));
}

// The trace's strings past a MiB (a name of any size) are claimed before
// they are copied: under a bound smaller than one, nothing of it is held.
TEST(KinetoLimits, AHugeNameIsClaimedBeforeItIsCopied) {
  const size_t name_bytes = size_t{8} << 20;
  const std::string json = "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"" +
                           std::string(name_bytes, 'a') + "\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]}";
  auto [refused, claimed] = ImportBounded(json, name_bytes / 2);
  EXPECT_EQ(refused.code(), ErrorCode::kResourceExhausted) << refused.message();
  EXPECT_NE(refused.message().find("a string of 8 MiB"), std::string::npos) << refused.message();
  EXPECT_LE(claimed, name_bytes / 2);
}

}  // namespace
}  // namespace tbprof
