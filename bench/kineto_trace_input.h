// A large PyTorch (Kineto) trace made at bench time, not committed: the real
// torch-tb-profiler sample's events repeated (each copy's "ts" moved past the
// previous copy) until the JSON passes `min_bytes`. The Kineto load bench and
// the reopen bench read the same kind of trace.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "convert/kineto/json_scanner.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof::bench {

inline void WriteRepeatedKinetoTrace(const std::string& out_path, uint64_t min_bytes) {
  auto text = ReadFileMaybeGzip(std::string(TBPROF_TESTDATA) +
                                "/kineto_torch_tb_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  if (!text.ok()) std::abort();
  JsonScanner js(*text);
  std::vector<std::string_view> events;
  ForEachElementOfMember(js, "traceEvents", [&] {
    std::string_view raw;
    js.SkipValue(&raw);
    events.push_back(raw);
  });
  constexpr int64_t kShiftUs = 2'000'000;  // longer than the sample's span
  std::ofstream out(out_path, std::ios::binary);
  out << "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  uint64_t written = 0;
  bool first = true;
  for (int64_t k = 0; written < min_bytes; ++k) {
    for (std::string_view e : events) {
      std::string copy(e);
      size_t at = copy.find("\"ts\": ");
      if (at != std::string::npos) {
        size_t begin = at + 6, end = copy.find_first_of(",}", begin);
        int64_t ts = std::stoll(copy.substr(begin, end - begin)) + k * kShiftUs;
        copy.replace(begin, end - begin, std::to_string(ts));
      }
      if (!first) out << ",\n";
      first = false;
      out << copy;
      written += copy.size() + 2;
    }
  }
  out << "\n]}\n";
}

}  // namespace tbprof::bench
