// libFuzzer target over the XSpace wire decoder: any input must either be
// rejected with an error naming the source and byte offset, or produce a model
// whose internal indices are all in range.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "convert/xplane/xspace_reader.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void CheckModel(const tbprof::XSpaceModel& m) {
  const size_t strings = m.strings.size();
  for (const tbprof::XPlaneModel& p : m.planes) {
    Check(p.name < strings);
    uint64_t covered = 0;
    for (const tbprof::LineModel& l : p.lines) {
      Check(l.name < strings && l.display_name < strings);
      Check(uint64_t{l.first_event} + l.num_events <= p.events.size());
      covered += l.num_events;
    }
    Check(covered == p.events.size());
    for (uint32_t e = 0; e < p.events.size(); ++e) {
      Check(p.events[e].metadata < p.event_metadata.size());
      auto [b, end] = p.StatsOf(e);
      Check(b <= end && end <= p.event_stats.data() + p.event_stats.size());
      for (const tbprof::Stat* s = b; s < end; ++s) {
        Check(s->name < strings);
        if (s->kind == tbprof::StatKind::kStr) Check(s->str < strings);
        if (s->kind == tbprof::StatKind::kBytes) Check(s->blob < m.blobs.size());
      }
      (void)m.Str(p.EventName(e));
    }
    for (uint32_t md = 0; md < p.event_metadata.size(); ++md) {
      auto [b, end] = p.MetadataStatsOf(md);
      Check(b <= end && end <= p.metadata_stats.data() + p.metadata_stats.size());
    }
    for (const auto& [idx, n] : p.occurrences) Check(idx < p.events.size() && n >= 0);
  }
}

}  // namespace

// Each input is decoded three ways: one thread, two threads (planes split
// between them, then merged), and two threads keeping only some event stats.
// All three accept or reject it alike.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tbprof::LoadOptions serial, two_threads, projected;
  two_threads.parallel_min_bytes = 0;
  projected.parallel_min_bytes = 0;
  projected.keep_event_stat = [](std::string_view plane, std::string_view stat) {
    return stat == "correlation_id" || stat == "group_id" || (plane != "/host:CPU" && stat == "tf_op");
  };
  int accepted = 0;
  for (const tbprof::LoadOptions* options : {&serial, &two_threads, &projected}) {
    auto model = tbprof::ParseXSpace(bytes, "fuzz", *options);
    if (model.ok()) {
      CheckModel(**model);
      ++accepted;
    } else {
      const std::string& msg = model.status().message();
      Check(msg.rfind("fuzz: ", 0) == 0);
      Check(size == 0 || msg.find("byte offset") != std::string::npos);
    }
  }
  Check(accepted == 0 || accepted == 3);
  return 0;
}
