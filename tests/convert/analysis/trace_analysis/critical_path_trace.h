// A hand-built PyTorch trace whose critical path is worked out by hand, for
// the critical-path tests and the trace viewer's critical-path flows.
#pragma once

#include <string>

#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof::testing_kineto {

// Step 1 (0–100 µs): aten::mm (10–30) launches K1 at 12 (runs 20–70);
// aten::add (35–45) launches K2 at 37, which waits for K1 (runs 72–80);
// cudaDeviceSynchronize (50–85) waits for K2. Step 2 (100–130) only has CPU work.
//
// Along the CPU alone the step is 65 µs of work (the sync's 35 µs are the
// GPU's); the longest path goes step start → mm start (10, the step's) →
// launch start (2, mm's) → K1 start (8, the launch delay) → K1 (50) → K2
// start (2, the stream's gap after K1) → K2 (8) → the sync's end (5, the
// CPU's return) → the step's end (15, the step's): 100 µs.
inline std::string CriticalPathTrace() {
  TraceWriter t;
  t.Host("user_annotation", "ProfilerStep#1", 0, 100'000, R"("External id": 1)");
  t.Host("cpu_op", "aten::mm", 10'000, 20'000, R"("External id": 2)");
  t.Launch(12'000, 5'000, 20'000, 50'000, "K1", 11, 2);
  t.Host("cpu_op", "aten::add", 35'000, 10'000, R"("External id": 3)");
  t.Launch(37'000, 3'000, 72'000, 8'000, "K2", 12, 3);
  t.Host("cuda_runtime", "cudaDeviceSynchronize", 50'000, 35'000, R"("correlation": 13, "External id": 1)");
  t.Host("user_annotation", "ProfilerStep#2", 100'000, 30'000, R"("External id": 4)");
  t.Host("cpu_op", "aten::zeros", 105'000, 20'000, R"("External id": 5)");
  return t.Json();
}

}  // namespace tbprof::testing_kineto
