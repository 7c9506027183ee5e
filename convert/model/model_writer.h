// The one way importers fill an XPlaneModel: planes, their metadata, lines,
// events and stats.
//
// Design: the model stays the packed arrays the analyses scan (an Event of
// 24 bytes that finds its stats through `first_stat`, a line that finds its
// events through `first_event` / `num_events`, metadata that finds its stats
// likewise). Those offsets are bookkeeping every importer would otherwise
// repeat; here they are kept once, by bracketing:
//   BeginLine()  … events …                       EndLine(line)
//   BeginEvent() … AddEventStat(s) …              EndEvent(begin, duration, metadata)
//   BeginEventMetadata() … AddMetadataStat(s) …   EndEventMetadata(md)
// so an importer writes fields in whatever order its format delivers them
// (xplane's wire puts an event's stats before or after its times; Kineto
// knows the times first) and never computes an offset. The writer is a
// header-only value over one plane with no virtual calls: in the decoders'
// per-event loops it inlines to the same stores as writing the arrays by
// hand (bench/xspace_load_bench, bench/kineto_load_bench).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "convert/base/huge_pages.h"
#include "convert/base/released_pages.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

class PlaneWriter {
 public:
  PlaneWriter() = default;
  // Valid while `plane` stays where it is (a vector of planes may move it on growth).
  explicit PlaneWriter(XPlaneModel& plane) : plane_(&plane) {}
  // A new plane at the end of the space; valid until the next plane is added.
  static PlaneWriter AddTo(XSpaceModel& space, int64_t id, StrId name) {
    PlaneWriter w(space.planes.emplace_back());
    w.SetId(id);
    w.SetName(name);
    return w;
  }

  XPlaneModel& plane() const { return *plane_; }

  void SetId(int64_t id) { plane_->id = id; }
  void SetName(StrId name) { plane_->name = name; }
  void AddPlaneStat(const Stat& s) { plane_->plane_stats.push_back(s); }
  // A stat metadata entry as the file numbered it (kept for inspection and round trips).
  void AddStatMetadata(StrId name, int64_t id) { plane_->stat_metadata.emplace_back(name, id); }

  // Sizes the event arrays once, so filling them never copies.
  void Reserve(size_t events, size_t event_stats) {
    plane_->events.reserve(events);
    plane_->event_stats.reserve(event_stats);
  }

  // Reserve with huge-page advice (convert/base/huge_pages.h), for arrays
  // filled right away by a process that has already faulted in its first pages.
  void ReserveLarge(size_t events, size_t event_stats) {
    tbprof::ReserveLarge(plane_->events, events);
    tbprof::ReserveLarge(plane_->event_stats, event_stats);
  }
  // Hands back capacity Reserve took beyond what was written.
  void ShrinkToFit() {
    plane_->events.shrink_to_fit();
    plane_->event_stats.shrink_to_fit();
  }

  // Event metadata: the stats added between Begin and End are md's.
  void BeginEventMetadata() { metadata_first_stat_ = static_cast<uint32_t>(plane_->metadata_stats.size()); }
  void AddMetadataStat(const Stat& s) { plane_->metadata_stats.push_back(s); }
  // Returns the metadata's index, which events name.
  uint32_t EndEventMetadata(EventMetadata&& md) {
    md.first_stat = metadata_first_stat_;
    md.num_stats = static_cast<uint32_t>(plane_->metadata_stats.size()) - metadata_first_stat_;
    plane_->event_metadata.push_back(std::move(md));
    return static_cast<uint32_t>(plane_->event_metadata.size() - 1);
  }
  // Metadata without stats.
  uint32_t AddEventMetadata(EventMetadata&& md) {
    BeginEventMetadata();
    return EndEventMetadata(std::move(md));
  }
  uint32_t NumEventMetadata() const { return static_cast<uint32_t>(plane_->event_metadata.size()); }

  // Lines: the events added between Begin and End are the line's, their
  // begin_ps an offset from the line's timestamp_ns until EndLine adds it.
  void BeginLine() { line_first_event_ = static_cast<uint32_t>(plane_->events.size()); }
  void EndLine(LineModel line) {
    line.first_event = line_first_event_;
    line.num_events = static_cast<uint32_t>(plane_->events.size()) - line_first_event_;
    if (const int64_t base_ps = line.timestamp_ns * 1000; base_ps != 0) {
      for (uint32_t i = line.first_event; i < line.first_event + line.num_events; ++i) {
        plane_->events[i].begin_ps += base_ps;
      }
    }
    // An aggregated event has no time of its own.
    for (auto it = plane_->occurrences.rbegin(); it != plane_->occurrences.rend() && it->first >= line.first_event;
         ++it) {
      plane_->events[it->first].begin_ps = 0;
    }
    plane_->lines.push_back(line);
  }

  // Events: the stats added between Begin and End are the event's.
  void BeginEvent() { event_first_stat_ = static_cast<uint32_t>(plane_->event_stats.size()); }
  void AddEventStat(const Stat& s) { plane_->event_stats.push_back(s); }
  // Returns the event's index in the plane.
  uint32_t EndEvent(int64_t begin_ps, int64_t duration_ps, uint32_t metadata) {
    Event ev;
    ev.begin_ps = begin_ps;
    ev.duration_ps = duration_ps;
    ev.metadata = metadata;
    ev.first_stat = event_first_stat_;
    plane_->events.push_back(ev);
    return static_cast<uint32_t>(plane_->events.size() - 1);
  }
  // An aggregated event (xplane's num_occurrences) in place of a time.
  void EndAggregatedEvent(int64_t occurrences, int64_t duration_ps, uint32_t metadata) {
    plane_->occurrences.emplace_back(static_cast<uint32_t>(plane_->events.size()), occurrences);
    EndEvent(0, duration_ps, metadata);
  }
  size_t NumEvents() const { return plane_->events.size(); }

  // For an importer that lays its events out before it has their stats (a
  // Kineto trace's events go by line, their args are copied afterwards in
  // the file's order): each event is ended with the index its stats will
  // start at, then the stats are sized once, without their pages kept
  // (convert/base/released_pages.h), and written in place in any order.
  uint32_t EndLaidOutEvent(int64_t begin_ps, int64_t duration_ps, uint32_t metadata, uint32_t first_stat) {
    event_first_stat_ = first_stat;
    return EndEvent(begin_ps, duration_ps, metadata);
  }
  void SizeStatsForLaidOutEvents(size_t n) { ResizeUnresident(plane_->event_stats, n); }

 private:
  XPlaneModel* plane_ = nullptr;
  uint32_t metadata_first_stat_ = 0, line_first_event_ = 0, event_first_stat_ = 0;
};

}  // namespace tbprof
