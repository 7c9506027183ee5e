// Status, StatusOr and the early-return macros; the two-thread helpers.
#include "convert/base/status.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "convert/base/math_util.h"
#include "convert/base/run_both.h"

namespace tbprof {
namespace {

StatusOr<int> Half(int v) {
  if (v % 2 != 0) return InvalidArgument(std::to_string(v) + " is odd");
  return v / 2;
}

StatusOr<int> Quarter(int v) {
  ASSIGN_OR_RETURN(int h, Half(v));
  ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int v) {
  RETURN_IF_ERROR(Half(v).status());
  return Status::Ok();
}

StatusOr<std::unique_ptr<int>> Boxed(int v) { return std::make_unique<int>(v); }

StatusOr<int> Unbox(int v) {
  ASSIGN_OR_RETURN(auto box, Boxed(v));  // move-only values move out
  return *box + 1;
}

TEST(Status, AssignOrReturnPassesValuesAndTheFirstError) {
  EXPECT_EQ(*Quarter(12), 3);
  StatusOr<int> odd = Quarter(6);  // 6 -> 3, and 3 is odd
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(odd.status().message(), "3 is odd");
  EXPECT_EQ(*Unbox(41), 42);
}

TEST(Status, ReturnIfErrorReturnsTheError) {
  EXPECT_TRUE(CheckEven(4).ok());
  Status s = CheckEven(5);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "5 is odd");
}

TEST(Status, OkStatusOfAValueHasNoMessage) {
  StatusOr<std::string> v = std::string("x");
  EXPECT_TRUE(v.ok());
  EXPECT_TRUE(v.status().ok());
  EXPECT_EQ(v.status().message(), "");
}

TEST(MathUtil, SafeDivideIsZeroOnAnEmptyTotal) {
  EXPECT_DOUBLE_EQ(SafeDivide(1, 4), 0.25);
  EXPECT_DOUBLE_EQ(SafeDivide(5, 0), 0.0);
  EXPECT_DOUBLE_EQ(SafeDivide(5, 1e-12), 0.0);
}

TEST(RunBoth, RunsBothAndRethrowsAnError) {
  int a = 0, b = 0;
  RunBoth([&] { a = 1; }, [&] { b = 2; });
  EXPECT_EQ(a + b, 3);
  bool first_finished = false;
  EXPECT_THROW(RunBoth([&] { first_finished = true; }, [] { throw std::runtime_error("second"); }),
               std::runtime_error);
  EXPECT_TRUE(first_finished);  // the other half still ran to its end
  EXPECT_THROW(RunBoth([] { throw std::logic_error("first"); }, [] {}), std::logic_error);
}

// Every item runs once; heaviest first, each to the lighter side: 9 and then
// 1 on one (10), 5 and 4 on the other (9).
TEST(RunBoth, ForEachOnBothRunsEveryItemOnceSharedByWeight) {
  const size_t weights[] = {4, 9, 1, 5};
  std::atomic<int> runs[4] = {};
  std::mutex mu;
  std::map<std::thread::id, size_t> load;
  ForEachOnBoth(
      4, [&](size_t i) { return weights[i]; },
      [&](size_t i) {
        ++runs[i];
        std::lock_guard<std::mutex> lock(mu);
        load[std::this_thread::get_id()] += weights[i];
      });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  ASSERT_EQ(load.size(), 2u);
  std::vector<size_t> sides;
  for (const auto& [thread, sum] : load) sides.push_back(sum);
  std::sort(sides.begin(), sides.end());
  EXPECT_EQ(sides, (std::vector<size_t>{9, 10}));
}

}  // namespace
}  // namespace tbprof
