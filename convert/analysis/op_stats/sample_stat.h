// A sample's count, sum, spread and range, kept as values arrive: the
// statistics of TSL's Stat that the step summaries read.
#pragma once

#include <cstdint>
#include <limits>

namespace tbprof {

// A sample's running statistics as tsl::Stat<T> keeps them: min starts at
// T's max, max at numeric_limits<T>::min() (the smallest positive double for
// double), the sum in T.
template <typename T>
class SampleStat {
 public:
  void Update(T v) {
    ++count_;
    sum_ += v;
    squared_sum_ += static_cast<double>(v) * static_cast<double>(v);
    min_ = v < min_ ? v : min_;
    max_ = v > max_ ? v : max_;
    all_same_ = count_ == 1 || (all_same_ && v == first_);
    if (count_ == 1) first_ = v;
  }
  bool empty() const { return count_ == 0; }
  double avg() const { return static_cast<double>(sum_) / static_cast<double>(count_); }
  T min() const { return min_; }
  T max() const { return max_; }
  double sample_variance() const {
    if (all_same_ || count_ < 2) return 0;
    double n = static_cast<double>(count_), sum = static_cast<double>(sum_);
    return (squared_sum_ - sum * sum / n) / (n - 1);
  }

 private:
  uint64_t count_ = 0;
  T sum_{};
  double squared_sum_ = 0;
  T min_ = std::numeric_limits<T>::max(), max_ = std::numeric_limits<T>::min(), first_{};
  bool all_same_ = true;
};

}  // namespace tbprof
