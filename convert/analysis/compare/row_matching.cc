#include "convert/analysis/compare/row_matching.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace tbprof {
namespace {

using RowKey = std::tuple<std::string, std::string, std::string>;  // where, type, name

RowKey KeyOf(const OpDeltaRow& r) { return {r.where, r.type, r.name}; }

Figure Sum(Figure x, Figure y) {
  if (!x) return y;
  if (!y) return x;
  return *x + *y;
}

// Rows of one run keyed, rows with one key summed.
std::vector<OpDeltaRow> Merged(std::vector<OpDeltaRow> rows) {
  std::map<RowKey, OpDeltaRow> by_key;
  for (OpDeltaRow& r : rows) {
    auto [it, fresh] = by_key.try_emplace(KeyOf(r), r);
    if (fresh) continue;
    OpDeltaRow& m = it->second;
    m.occurrences_a = Sum(m.occurrences_a, r.occurrences_a);
    m.time_us_a = Sum(m.time_us_a, r.time_us_a);
    m.self_time_us_a = Sum(m.self_time_us_a, r.self_time_us_a);
  }
  std::vector<OpDeltaRow> merged;
  merged.reserve(by_key.size());
  for (auto& [key, r] : by_key) merged.push_back(std::move(r));
  return merged;
}

void MoveToSideB(OpDeltaRow& r) {
  r.occurrences_b = r.occurrences_a;
  r.time_us_b = r.time_us_a;
  r.self_time_us_b = r.self_time_us_a;
  r.tensor_core_share_b = r.tensor_core_share_a;
  r.occurrences_a = r.time_us_a = r.self_time_us_a = r.tensor_core_share_a = std::nullopt;
}

}  // namespace

std::vector<OpDeltaRow> FrameworkOpRows(const tensorflow::profiler::TfStatsDatabase& db) {
  std::vector<OpDeltaRow> rows;
  for (const auto& rec : db.with_idle().tf_stats_record()) {
    OpDeltaRow r;
    r.where = rec.host_or_device();
    r.type = rec.op_type();
    r.name = rec.op_name();
    r.occurrences_a = static_cast<double>(rec.occurrences());
    r.time_us_a = rec.total_time_in_us();
    r.self_time_us_a = rec.total_self_time_in_us();
    rows.push_back(std::move(r));
  }
  return Merged(std::move(rows));
}

std::vector<OpDeltaRow> HloOpRows(const HloOpDb& db) {
  std::vector<OpDeltaRow> rows;
  // The ops hlo_stats shows (the idle time is not an op there).
  for (const HloOpMetrics* op : SortedHloOps(db)) {
    OpDeltaRow r;
    r.type = op->category;
    r.name = op->name;
    r.occurrences_a = op->occurrences;
    r.time_us_a = static_cast<double>(op->time_ps) / 1e6;
    r.self_time_us_a = static_cast<double>(op->self_time_ps) / 1e6;
    rows.push_back(std::move(r));
  }
  return Merged(std::move(rows));
}

std::vector<OpDeltaRow> KernelRows(const tensorflow::profiler::KernelStatsDb& db) {
  // Reports of one kernel name (different launch shapes or ops) are one row;
  // its TensorCore share is the part of its time in reports that use them.
  std::map<std::string, std::pair<OpDeltaRow, double>> by_name;
  for (const auto& rep : db.reports()) {
    auto& [r, tensor_core_us] = by_name[rep.name()];
    r.name = rep.name();
    double us = static_cast<double>(rep.total_duration_ns()) / 1e3;
    r.occurrences_a = Sum(r.occurrences_a, static_cast<double>(rep.occurrences()));
    r.time_us_a = Sum(r.time_us_a, us);
    if (rep.is_kernel_using_tensor_core()) tensor_core_us += us;
  }
  std::vector<OpDeltaRow> rows;
  for (auto& [name, entry] : by_name) {
    auto& [r, tensor_core_us] = entry;
    if (*r.time_us_a > 0) r.tensor_core_share_a = tensor_core_us / *r.time_us_a;
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<OpDeltaRow> MatchOpRows(const std::vector<OpDeltaRow>* a, const std::vector<OpDeltaRow>* b) {
  std::vector<OpDeltaRow> out;
  std::map<RowKey, size_t> index;
  if (a != nullptr) {
    for (const OpDeltaRow& r : *a) {
      index[KeyOf(r)] = out.size();
      out.push_back(r);
      out.back().presence = b == nullptr ? RowPresence::kOtherSideUnknown : RowPresence::kRemoved;
    }
  }
  if (b != nullptr) {
    for (const OpDeltaRow& r : *b) {
      auto it = index.find(KeyOf(r));
      if (it == index.end()) {
        out.push_back(r);
        MoveToSideB(out.back());
        out.back().presence = a == nullptr ? RowPresence::kOtherSideUnknown : RowPresence::kAdded;
        continue;
      }
      OpDeltaRow& both = out[it->second];
      both.presence = RowPresence::kBoth;
      both.occurrences_b = r.occurrences_a;
      both.time_us_b = r.time_us_a;
      both.self_time_us_b = r.self_time_us_a;
      both.tensor_core_share_b = r.tensor_core_share_a;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const OpDeltaRow& x, const OpDeltaRow& y) {
    Figure dx = x.Delta(), dy = y.Delta();
    if (dx.has_value() != dy.has_value()) return dx.has_value();
    if (dx && std::abs(*dx) != std::abs(*dy)) return std::abs(*dx) > std::abs(*dy);
    return KeyOf(x) < KeyOf(y);
  });
  return out;
}

std::vector<MetricRow> MemoryRows(const MemoryProfile* a, const MemoryProfile* b) {
  using Read = double (*)(const PerAllocatorMemoryProfile&);
  const std::pair<const char*, Read> metrics[] = {
      {"peak_bytes_in_use",
       [](const PerAllocatorMemoryProfile& p) { return double(p.profile_summary.peak_stats.peak_bytes_in_use); }},
      {"stack_reserved_bytes",
       [](const PerAllocatorMemoryProfile& p) { return double(p.profile_summary.peak_stats.stack_reserved_bytes); }},
      {"heap_allocated_bytes",
       [](const PerAllocatorMemoryProfile& p) { return double(p.profile_summary.peak_stats.heap_allocated_bytes); }},
      {"free_memory_bytes",
       [](const PerAllocatorMemoryProfile& p) { return double(p.profile_summary.peak_stats.free_memory_bytes); }},
      {"fragmentation", [](const PerAllocatorMemoryProfile& p) { return p.profile_summary.peak_stats.fragmentation; }},
      {"peak_bytes_usage_lifetime",
       [](const PerAllocatorMemoryProfile& p) { return double(p.profile_summary.peak_bytes_usage_lifetime); }},
      {"memory_capacity", [](const PerAllocatorMemoryProfile& p) { return double(p.profile_summary.memory_capacity); }},
  };
  std::set<std::string> ids;
  for (const MemoryProfile* m : {a, b}) {
    if (m == nullptr) continue;
    for (const auto& [id, per] : m->memory_profile_per_allocator) ids.insert(id);
  }
  // An allocator a run does not have is unknown there: the run may not have traced memory at all.
  auto figure = [](const MemoryProfile* m, const std::string& id, Read read) -> Figure {
    if (m == nullptr) return std::nullopt;
    auto it = m->memory_profile_per_allocator.find(id);
    if (it == m->memory_profile_per_allocator.end()) return std::nullopt;
    return read(it->second);
  };
  std::vector<MetricRow> rows;
  for (const std::string& id : ids) {
    for (const auto& [name, read] : metrics) rows.push_back({id + "/" + name, figure(a, id, read), figure(b, id, read)});
  }
  return rows;
}

}  // namespace tbprof
