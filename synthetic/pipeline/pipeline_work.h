// Per-element work for the pipelines: real CPU work (hashing, a decode-like
// byte transform) sized in microseconds through a one-time calibration, and
// waits for modelled I/O only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tbprof::pipeline {

// 64-bit FNV-1a-style mixing hash of `data`, `rounds` times over.
uint64_t HashBytes(std::string_view data, int64_t rounds = 1);

// Hashes `data` for about `micros` of CPU time on this machine (calibrated
// once per process); the amount of work is fixed, so contention makes it
// slower in wall time, as it would real work. Returns the digest.
uint64_t CpuWork(std::string_view data, double micros);

// "Decodes" a record: expands it into `out_bytes` derived bytes (a keyed
// transform), then spends the rest of `micros` hashing the result.
std::string DecodeRecord(std::string_view record, int out_bytes, double micros);

// Modelled I/O latency: a sleep, or for latencies under kSleepAtLeastMicros
// a busy poll of the clock.
inline constexpr double kSleepAtLeastMicros = 200;
void IoWait(double micros);

}  // namespace tbprof::pipeline
