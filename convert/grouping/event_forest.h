// The event graph of one plane that the tf.data analysis walks: xla's
// group_events.cc EventForest, limited to ConnectEvents (intra-thread nesting
// and `_p`/`_c` context groups) and ConnectTfDataEvents
// (iterator events linked to the producers they consume). Edges are stored once, in the order xla adds them, so children come
// back in the same order xla's EventNode::GetChildren() lists them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "convert/model/xspace_model.h"

namespace tbprof {

// The host event types that matter here (xplane_schema.cc HostEventType).
enum class TfDataEventType : uint8_t {
  kOther = 0,
  kIterator,                    // "Iterator" and every "Iterator:…" name (FindTfOpEventType)
  kDeviceSecondIterator,        // "Iterator::Prefetch::Generator"
  kProduce,                     // PrefetchProduce, ParallelMapProduce, …
  kConsume,                     // PrefetchConsume, ParallelMapConsume, …
};

TfDataEventType ClassifyTfDataEvent(std::string_view event_name);

// ParseTfOpFullname(name).category == kTfData: the text before the first ':'
// is exactly "Iterator" (so "Iterator::Map" is, "IteratorGetNextOp::…" is not).
bool IsTfDataEventName(std::string_view event_name);

class EventForest {
 public:
  // Nests every line's events (sorted by begin asc, duration desc; `_a` async
  // events are never parents nor nested) and links `_p`/`_c` context groups.
  EventForest(const XSpaceModel& model, const XPlaneModel& plane);

  // Makes every producer iterator (first iterator child of a *Produce event,
  // keyed by its parent_id and the Produce's element_id) a child of the
  // iterator that encloses the matching *Consume event.
  void ConnectTfDataEvents();

  std::span<const uint32_t> Children(uint32_t event) const {
    return {child_list_.data() + child_begin_[event], child_list_.data() + child_begin_[event + 1]};
  }
  std::span<const uint32_t> Parents(uint32_t event) const {
    return {parent_list_.data() + parent_begin_[event], parent_list_.data() + parent_begin_[event + 1]};
  }
  // All events of the plane in xla's visiting order: line by line, each line sorted.
  const std::vector<uint32_t>& Order() const { return order_; }
  TfDataEventType Type(uint32_t event) const { return metadata_type_[plane_.events[event].metadata]; }
  bool IsIterator(uint32_t event) const {
    TfDataEventType t = Type(event);
    return t == TfDataEventType::kIterator || t == TfDataEventType::kDeviceSecondIterator;
  }
  const XPlaneModel& plane() const { return plane_; }
  const XSpaceModel& model() const { return model_; }

 private:
  void ConnectIntraThread();
  void ConnectContextGroups();
  void Index();  // rebuilds the child/parent lists from edges_
  const Stat* GetStat(uint32_t event, StrId name) const { return plane_.FindEventOrMetadataStat(event, name); }

  const XSpaceModel& model_;
  const XPlaneModel& plane_;
  std::vector<TfDataEventType> metadata_type_;  // per event metadata index
  std::vector<uint32_t> order_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;  // (parent, child) in insertion order
  std::vector<uint32_t> child_begin_, child_list_, parent_begin_, parent_list_;
};

}  // namespace tbprof
