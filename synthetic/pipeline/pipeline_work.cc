#include "synthetic/pipeline/pipeline_work.h"

#include <time.h>

#include <chrono>
#include <thread>

namespace tbprof::pipeline {
namespace {

constexpr uint64_t kFnvOffset = 1469598103934665603ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

// Hashing rounds of a 1 KiB buffer per microsecond, measured once.
double RoundsPerMicro() {
  static const double rate = [] {
    std::string buf(1024, 'x');
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<char>(i * 31);
    int64_t rounds = 0;
    volatile uint64_t sink = 0;
    // Thread CPU time, not wall time: on a loaded machine the calibration
    // must not mistake time spent descheduled for slow hashing.
    auto cpu_us = [] {
      timespec ts{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) / 1e3;
    };
    const double t0 = cpu_us();
    auto elapsed = [&] { return cpu_us() - t0; };
    while (elapsed() < 3000) {
      sink = sink + HashBytes(buf, 16);
      rounds += 16;
    }
    return double(rounds) / elapsed();
  }();
  return rate;
}

}  // namespace

uint64_t HashBytes(std::string_view data, int64_t rounds) {
  uint64_t h = kFnvOffset;
  for (int64_t r = 0; r < rounds; ++r) {
    for (unsigned char c : data) h = (h ^ c) * kFnvPrime;
    h ^= h >> 29;
  }
  return h;
}

uint64_t CpuWork(std::string_view data, double micros) {
  if (micros <= 0) return 0;
  // Work is counted in rounds over 1 KiB, whatever the payload size.
  std::string block(1024, '\0');
  for (size_t i = 0; i < block.size(); ++i) block[i] = data.empty() ? char(i) : data[i % data.size()];
  int64_t rounds = static_cast<int64_t>(micros * RoundsPerMicro());
  return HashBytes(block, rounds < 1 ? 1 : rounds);
}

std::string DecodeRecord(std::string_view record, int out_bytes, double micros) {
  std::string out(static_cast<size_t>(out_bytes > 0 ? out_bytes : 0), '\0');
  uint64_t state = HashBytes(record);
  for (size_t i = 0; i < out.size(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    unsigned char src = record.empty() ? 0 : static_cast<unsigned char>(record[i % record.size()]);
    out[i] = static_cast<char>(src ^ (state >> 56));
  }
  uint64_t digest = CpuWork(out, micros);
  if (out.size() >= sizeof digest) {
    for (size_t b = 0; b < sizeof digest; ++b) out[b] = static_cast<char>(digest >> (8 * b));
  }
  return out;
}

void IoWait(double micros) {
  if (micros <= 0) return;
  if (micros >= kSleepAtLeastMicros) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<int64_t>(micros * 1000)));
    return;
  }
  // Short latencies are polled, as fast devices are: a sleep's wake-up on a
  // busy machine would take longer than the latency being modelled.
  auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(static_cast<int64_t>(micros * 1000));
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace tbprof::pipeline
