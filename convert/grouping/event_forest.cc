#include "convert/grouping/event_forest.h"

#include "convert/model/event_nesting.h"
#include "convert/model/schema.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

namespace tbprof {

namespace {

constexpr std::array<std::string_view, 6> kProduceNames = {
    "PrefetchProduce",   "ParallelInterleaveProduce", "ParallelMapProduce",
    "MapAndBatchProduce", "ParseExampleProduce",      "ParallelBatchProduce"};
constexpr std::array<std::string_view, 6> kConsumeNames = {
    "PrefetchConsume",   "ParallelInterleaveConsume", "ParallelMapConsume",
    "MapAndBatchConsume", "ParseExampleConsume",      "ParallelBatchConsume"};

// xla gives up on a context group this large in both directions (a cross
// product of that size is noise, not causality).
constexpr size_t kMaxContextGroupSide = 64;

int ProduceConsumeRank(std::string_view name, const std::array<std::string_view, 6>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

bool IsTfDataEventName(std::string_view event_name) {
  size_t colon = event_name.find(':');
  return colon != std::string_view::npos && event_name.substr(0, colon) == "Iterator";
}

TfDataEventType ClassifyTfDataEvent(std::string_view event_name) {
  // Exact names from the host event type map win over the TF-op fallback.
  if (event_name == "Iterator::Prefetch::Generator") return TfDataEventType::kDeviceSecondIterator;
  if (event_name == "Iterator" || IsTfDataEventName(event_name)) return TfDataEventType::kIterator;
  if (ProduceConsumeRank(event_name, kProduceNames) >= 0) return TfDataEventType::kProduce;
  if (ProduceConsumeRank(event_name, kConsumeNames) >= 0) return TfDataEventType::kConsume;
  return TfDataEventType::kOther;
}

EventForest::EventForest(const XSpaceModel& model, const XPlaneModel& plane) : model_(model), plane_(plane) {
  metadata_type_.resize(plane.event_metadata.size());
  for (size_t m = 0; m < plane.event_metadata.size(); ++m) {
    metadata_type_[m] = ClassifyTfDataEvent(model.Str(plane.event_metadata[m].name));
  }
  order_.reserve(plane.events.size());
  for (const LineModel& line : plane.lines) {
    // xla sorts each line by Timespan order before grouping (begin asc, longer first).
    std::vector<uint32_t> sorted = SortedLineEvents(plane, line);
    order_.insert(order_.end(), sorted.begin(), sorted.end());
  }
  ConnectIntraThread();
  ConnectContextGroups();
  Index();
}

void EventForest::ConnectIntraThread() {
  StrId async_id = model_.Find(schema::kIsAsync);
  size_t pos = 0;
  for (const LineModel& line : plane_.lines) {
    std::vector<uint32_t> sorted(order_.begin() + pos, order_.begin() + pos + line.num_events);
    pos += line.num_events;
    NestLineEvents(plane_, sorted, async_id, [&](uint32_t parent, uint32_t child) { edges_.emplace_back(parent, child); });
  }
}

void EventForest::ConnectContextGroups() {
  StrId producer_type_id = model_.Find(schema::kProducerType), producer_id_id = model_.Find(schema::kProducerId);
  StrId consumer_type_id = model_.Find(schema::kConsumerType), consumer_id_id = model_.Find(schema::kConsumerId);
  if ((producer_type_id == kNoStr || producer_id_id == kNoStr) &&
      (consumer_type_id == kNoStr || consumer_id_id == kNoStr)) {
    return;
  }
  struct Group {
    std::vector<uint32_t> producers, consumers;
  };
  std::map<std::pair<int64_t, int64_t>, Group> groups;
  for (uint32_t e : order_) {
    const Stat* pt = GetStat(e, producer_type_id);
    const Stat* p = GetStat(e, producer_id_id);
    if (pt != nullptr && p != nullptr) groups[{pt->IntValue(), p->IntValue()}].producers.push_back(e);
    const Stat* ct = GetStat(e, consumer_type_id);
    const Stat* c = GetStat(e, consumer_id_id);
    if (ct != nullptr && c != nullptr) groups[{ct->IntValue(), c->IntValue()}].consumers.push_back(e);
  }
  for (const auto& [key, group] : groups) {
    if (group.producers.size() >= kMaxContextGroupSide && group.consumers.size() >= kMaxContextGroupSide) continue;
    for (uint32_t parent : group.producers) {
      for (uint32_t child : group.consumers) edges_.emplace_back(parent, child);
    }
  }
}

void EventForest::ConnectTfDataEvents() {
  StrId element_id_id = model_.Find(schema::kElementId);
  StrId parent_id_id = model_.Find(schema::kParentId);
  StrId id_id = model_.Find(schema::kId);
  if (element_id_id == kNoStr || id_id == kNoStr) return;

  // xla visits the event types one after another, each in plane order.
  auto by_kind = [&](TfDataEventType type, const std::array<std::string_view, 6>& names) {
    std::vector<uint32_t> out;
    for (uint32_t e : order_) {
      if (Type(e) == type) out.push_back(e);
    }
    std::stable_sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) {
      return ProduceConsumeRank(model_.Str(plane_.EventName(a)), names) <
             ProduceConsumeRank(model_.Str(plane_.EventName(b)), names);
    });
    return out;
  };

  std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> producer_iterators;  // (parent_id, element_id)
  for (uint32_t produce : by_kind(TfDataEventType::kProduce, kProduceNames)) {
    const Stat* element_id = GetStat(produce, element_id_id);
    if (element_id == nullptr) continue;
    for (uint32_t child : Children(produce)) {
      if (!IsIterator(child)) continue;
      const Stat* parent_id = GetStat(child, parent_id_id);
      if (parent_id != nullptr) producer_iterators[{parent_id->IntValue(), element_id->IntValue()}].push_back(child);
      break;
    }
  }
  if (producer_iterators.empty()) return;

  size_t added = 0;
  for (uint32_t consume : by_kind(TfDataEventType::kConsume, kConsumeNames)) {
    const Stat* element_id = GetStat(consume, element_id_id);
    if (element_id == nullptr) continue;
    auto parents = Parents(consume);
    if (parents.empty()) continue;
    // The Consume is nested in the consuming iterator's GetNext and has no other parent.
    uint32_t consume_iterator = parents[0];
    if (!IsIterator(consume_iterator)) continue;
    const Stat* iterator_id = GetStat(consume_iterator, id_id);
    if (iterator_id == nullptr) continue;
    auto it = producer_iterators.find({iterator_id->IntValue(), element_id->IntValue()});
    if (it == producer_iterators.end()) continue;
    for (uint32_t producer : it->second) {
      edges_.emplace_back(consume_iterator, producer);
      ++added;
    }
  }
  if (added > 0) Index();
}

void EventForest::Index() {
  size_t n = plane_.events.size();
  auto build = [&](bool by_parent, std::vector<uint32_t>& begin, std::vector<uint32_t>& list) {
    begin.assign(n + 1, 0);
    for (const auto& [parent, child] : edges_) ++begin[(by_parent ? parent : child) + 1];
    for (size_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
    list.resize(edges_.size());
    std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
    // Counting sort keeps insertion order within each node: the order xla appends in.
    for (const auto& [parent, child] : edges_) {
      uint32_t key = by_parent ? parent : child;
      list[fill[key]++] = by_parent ? child : parent;
    }
  };
  build(true, child_begin_, child_list_);
  build(false, parent_begin_, parent_list_);
}

}  // namespace tbprof
