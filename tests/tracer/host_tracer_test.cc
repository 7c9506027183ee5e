#include "tracer/host_tracer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

namespace tbprof::harness {
namespace {

const TracedThread* FindThread(const TraceSession& s, const std::string& name) {
  for (const TracedThread& t : s.threads)
    if (t.name == name) return &t;
  return nullptr;
}

TEST(HarnessTracer, OffModeRecordsNothing) {
  ASSERT_FALSE(TracingActive());
  { TraceMe t("before_session"); }
  bool fn_called = false;
  {
    TraceMe t([&] {
      fn_called = true;
      return std::string("lazy");
    });
  }
  EXPECT_FALSE(fn_called) << "the name callable must not run while tracing is off";
  ASSERT_TRUE(StartTracing());
  TraceSession s = StopTracing();
  for (const TracedThread& t : s.threads) EXPECT_TRUE(t.events.empty()) << t.name;
  // Events after the session are not recorded in the next one either.
  { TraceMe t("after_session"); }
  ASSERT_TRUE(StartTracing());
  s = StopTracing();
  for (const TracedThread& t : s.threads)
    for (const TracedEvent& e : t.events) EXPECT_NE(e.name, "after_session");
}

TEST(HarnessTracer, NestingAndTimes) {
  SetCurrentThreadName("harness_test_main");
  ASSERT_TRUE(StartTracing());
  EXPECT_FALSE(StartTracing()) << "a second concurrent session must be refused";
  {
    TraceMe outer("outer");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    {
      TraceMe inner(TraceMeEncode("inner", {{"step_num", 7}, {"_r", 1}}));
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  TraceSession s = StopTracing();
  const TracedThread* t = FindThread(s, "harness_test_main");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->events.size(), 2u);
  const TracedEvent& inner = t->events[0];  // completion order
  const TracedEvent& outer = t->events[1];
  EXPECT_EQ(inner.name, "inner#step_num=7,_r=1#");
  EXPECT_EQ(outer.name, "outer");
  EXPECT_LE(outer.start_ns, inner.start_ns);
  EXPECT_GE(outer.end_ns, inner.end_ns);
  EXPECT_GE(inner.end_ns - inner.start_ns, 300'000);
  EXPECT_GE(outer.end_ns - outer.start_ns, 700'000);
  EXPECT_GE(outer.start_ns, s.start_walltime_ns);
  EXPECT_LE(outer.end_ns, s.stop_walltime_ns + 1'000'000);
  EXPECT_GT(t->tid, 0);
}

TEST(HarnessTracer, ThreadsGetTheirOwnLines) {
  ASSERT_TRUE(StartTracing());
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([i] {
      SetCurrentThreadName("harness_worker_" + std::to_string(i));
      for (int k = 0; k < 3000; ++k) TraceMe t(TraceMeEncode("work", {{"k", k}}));
    });
  }
  for (auto& t : threads) t.join();
  TraceSession s = StopTracing();
  std::set<int64_t> tids;
  for (int i = 0; i < 4; ++i) {
    const TracedThread* t = FindThread(s, "harness_worker_" + std::to_string(i));
    ASSERT_NE(t, nullptr) << i;
    ASSERT_EQ(t->events.size(), 3000u) << "events span several buffer chunks";
    EXPECT_EQ(t->events[2999].name, "work#k=2999#");
    tids.insert(t->tid);
  }
  EXPECT_EQ(tids.size(), 4u);
}

TEST(HarnessTracer, EncodeAndParseLikeTsl) {
  EXPECT_EQ(TraceMeEncode("name", {}), "name");
  EXPECT_EQ(TraceMeEncode("a", {{"x", 1}, {"y", "s"}}), "a#x=1,y=s#");
  EXPECT_EQ(TraceMeAppend("a#x=1#", {{"z", int64_t{-3}}}), "a#x=1,z=-3#");

  ParsedTraceName p = ParseTraceName(" Iterator::Map #id=3, parent_id = 2 ,=bad,novalue=,flag,shape=[1,2],t=(a,b)#");
  EXPECT_EQ(p.name, "Iterator::Map");
  ASSERT_EQ(p.stats.size(), 4u);
  EXPECT_EQ(p.stats[0], (std::pair<std::string_view, std::string_view>{"id", "3"}));
  EXPECT_EQ(p.stats[1], (std::pair<std::string_view, std::string_view>{"parent_id", "2"}));
  EXPECT_EQ(p.stats[2], (std::pair<std::string_view, std::string_view>{"shape", "[1,2]"}));
  EXPECT_EQ(p.stats[3], (std::pair<std::string_view, std::string_view>{"t", "(a,b)"}));

  EXPECT_EQ(ParseTraceName("plain").name, "plain");
  EXPECT_TRUE(ParseTraceName("plain").stats.empty());
  // Without the trailing '#', '#' is part of the name.
  EXPECT_EQ(ParseTraceName("a#b=1").name, "a#b=1");
  // Only the first metadata section counts.
  ParsedTraceName two = ParseTraceName("n#a=1#b=2#");
  EXPECT_EQ(two.name, "n");
  ASSERT_EQ(two.stats.size(), 1u);
  EXPECT_EQ(two.stats[0].first, "a");
  ParsedTraceName quoted = ParseTraceName("q#s=\"x,y\",k='a,b'#");
  ASSERT_EQ(quoted.stats.size(), 2u);
  EXPECT_EQ(quoted.stats[0].second, "\"x,y\"");
  EXPECT_EQ(quoted.stats[1].second, "'a,b'");
}

}  // namespace
}  // namespace tbprof::harness
