#include "convert/analysis/op_stats/xplane_to_step_events.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/op_names/tf_op_utils.h"
#include "convert/analysis/self_time/op_self_time.h"
#include "convert/base/strings.h"
#include "convert/model/schema.h"

namespace tbprof {
namespace {

int ClassifyGpuEvent(std::string_view name, std::string_view shapes) {
  TfOp op = ParseTfOpFullname(name);
  if (op.category == TfOpCategory::kMemcpyHToD) return HOST_TO_DEVICE;
  if (op.category == TfOpCategory::kMemcpyDToH) return DEVICE_TO_HOST;
  if (op.category == TfOpCategory::kMemcpyDToD) return DEVICE_TO_DEVICE;
  // CUPTI's copy names as PyTorch's profiler writes them ("Memcpy HtoD (Pageable -> Device)").
  if (name.starts_with("Memcpy HtoD")) return HOST_TO_DEVICE;
  if (name.starts_with("Memcpy DtoH")) return DEVICE_TO_HOST;
  if (name.starts_with("Memcpy DtoD") || name.starts_with("Memcpy PtoP")) return DEVICE_TO_DEVICE;
  if (StartsWithIgnoringAsciiCase(name, "nccl")) return DEVICE_COLLECTIVES;
  if (shapes.empty()) {
    return name.find("half") != std::string_view::npos || name.find("fp16") != std::string_view::npos
               ? DEVICE_COMPUTE_16
               : DEVICE_COMPUTE_32;
  }
  return shapes.find("half") != std::string_view::npos ? DEVICE_COMPUTE_16 : DEVICE_COMPUTE_32;
}

bool IsExplicitHostStepMarker(std::string_view name) {
  return (name.starts_with("train") || name.starts_with("test") || name.starts_with("TraceContext")) &&
         name.find('/') == std::string_view::npos;
}

bool IsRealCpuCompute(std::string_view name) {
  bool not_real = name.starts_with("EagerExecute") || name.starts_with("EagerLocalExecute") ||
                  name.starts_with("EagerKernelExecute") || name.starts_with("FunctionRun") ||
                  IsExplicitHostStepMarker(name);
  return !not_real;
}

int ClassifyCpuEvent(std::string_view name, bool has_device, bool has_correlation_id) {
  TfOp op = ParseTfOpFullname(name);
  if (op.category == TfOpCategory::kMemcpyHToD || op.type.starts_with("InfeedEnqueue")) return HOST_TO_DEVICE;
  if (op.category == TfOpCategory::kMemcpyHToH) return HOST_TO_HOST;
  if (has_device && (has_correlation_id || StartsWithIgnoringAsciiCase(name, "ExecutorState::Process"))) return HOST_PREPARE;
  if (StartsWithIgnoringAsciiCase(name, "IteratorGetNext")) return HOST_WAIT_INPUT;
  return HOST_COMPUTE;
}

}  // namespace

void AddGpuStepEvents(const XSpaceModel& space, const schema::StatIds& ids, const EventGroups& groups,
                      size_t pi, StepEvents& out) {
  const XPlaneModel& p = space.planes[pi];
  struct Item {
    int64_t begin, end;
    int32_t group;
    uint32_t e;
  };
  std::vector<Item> items;
  for (const LineModel& line : p.lines) {
    if (schema::IsDerivedThreadId(line.id)) continue;
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      int32_t g = groups.Group(pi, e);
      if (g == kNoGroup) continue;
      items.push_back({p.events[e].begin_ps, p.events[e].end_ps(), g, e});
    }
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  // DeriveStepEventsFromGroups: consecutive events of one group form a marker.
  std::map<int64_t, std::vector<Span>> markers;
  for (size_t i = 0; i < items.size();) {
    Span span{items[i].begin, items[i].end};
    int32_t g = items[i].group;
    size_t j = i + 1;
    for (; j < items.size() && items[j].group == g; ++j) span.end = std::max(span.end, items[j].end);
    markers[g].push_back(span);
    i = j;
  }
  for (auto& [g, spans] : markers) {
    GroupStepEvents& ge = out[g];
    ge.device_markers.insert(ge.device_markers.end(), spans.begin(), spans.end());
  }
  // Event types by (kernel name, shape): classified once, not per event.
  std::unordered_map<uint64_t, int> event_types;
  for (const Item& it : items) {
    if (ids.correlation_id == kNoStr || !p.FindStat(it.e, ids.correlation_id)) continue;
    StrId shape_id = schema::StatIds::StrOf(p, it.e, ids.shape);
    uint64_t key = (uint64_t{p.events[it.e].metadata} << 32) | shape_id;
    auto [cached, fresh] = event_types.try_emplace(key, 0);
    if (fresh) cached->second = ClassifyGpuEvent(space.Str(p.EventName(it.e)), space.Str(shape_id));
    out[it.group].events.push_back({cached->second, {it.begin, it.end}});
  }
}

void AddHostStepEvents(const XSpaceModel& space, const schema::StatIds& ids, const EventGroups& groups,
                       size_t pi, StepEvents& out) {
  const XPlaneModel& p = space.planes[pi];
  const auto& named = groups.has_step_name[pi];
  for (const LineModel& line : p.lines) {
    if (schema::IsDerivedThreadId(line.id)) continue;
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      int32_t g = groups.Group(pi, e);
      if (g == kNoGroup) continue;
      std::string_view name = space.Str(p.EventName(e));
      Span span{p.events[e].begin_ps, p.events[e].end_ps()};
      if (IsExplicitHostStepMarker(name) || (!named.empty() && named[e])) {
        out[g].host_markers.push_back(span);
      } else if (IsRealCpuCompute(name)) {
        bool has_correlation = ids.correlation_id != kNoStr && p.FindStat(e, ids.correlation_id) != nullptr;
        out[g].events.push_back({ClassifyCpuEvent(name, false, has_correlation), span});
      }
    }
  }
}

uint32_t TpuCoreId(const XSpaceModel& space, const XPlaneModel& plane) {
  const uint32_t id = static_cast<uint32_t>(plane.id);
  return schema::IsSparseCorePlane(space.Str(plane.name)) ? kSparseCoreIndexStart + id : id;
}

StepEvents TpuPlaneStepEvents(const XSpaceModel& space, const schema::StatIds& ids, const EventGroups& groups,
                              size_t plane_index, uint32_t core_id) {
  const XPlaneModel& p = space.planes[plane_index];
  bool sparse_core = schema::IsSparseCorePlane(space.Str(p.name));
  std::string_view op_line_name = sparse_core ? schema::kSparseCoreOpLine : schema::kXlaOpLine;
  const LineModel* ops_line = nullptr;
  for (const LineModel& l : p.lines) {
    if (space.Str(l.name) == op_line_name) ops_line = &l;
  }
  if (!ops_line || plane_index >= groups.tpu_steps.size()) return {};
  StepEvents markers;
  for (const EventGroups::TpuStep& step : groups.tpu_steps[plane_index]) {
    if (step.group == kNoGroup) continue;
    Span span = DeviceEventSpan(p, step.events.front(), ids);
    for (uint32_t e : step.events) {
      const Span s = DeviceEventSpan(p, e, ids);
      span = {std::min(span.begin, s.begin), std::max(span.end, s.end)};
    }
    GroupStepEvents& ge = markers[step.group];
    auto [marker, fresh] = ge.core_markers.try_emplace(core_id, span);
    if (!fresh && span.duration() > marker->second.duration()) marker->second = span;
    ge.step_name = std::string(space.Str(p.EventName(step.events.front())));
  }
  StepEvents ops;
  // Self time by category id, named once per step at the end.
  std::map<int64_t, std::unordered_map<StrId, uint64_t>> category_ps;
  StrId all_reduce_id = space.Find("all_reduce_unique_id");
  ForEachTpuOpSelfTime(p, ids, *ops_line, [&](uint32_t e, const Span& span, uint64_t self_ps) {
    const int32_t step = groups.Group(plane_index, e);
    if (step == kNoGroup) return;
    category_ps[step][HloCategoryOf(ids, p, e)] += self_ps;
    if (const Stat* id = all_reduce_id == kNoStr ? nullptr : p.FindStat(e, all_reduce_id)) {
      ops[step].core_all_reduces[core_id].push_back(
          {id->UintValue(), static_cast<uint64_t>(span.begin), static_cast<uint64_t>(span.end)});
    }
  });
  for (const auto& [step, by_id] : category_ps) {
    auto& named = ops[step].core_category_ps[core_id];
    for (const auto& [category, ps] : by_id) named[std::string(space.Str(category))] += ps;
  }
  // The steps with both a marker and ops on this core.
  if (!ops.empty()) IntersectCombineStepEvents(std::move(markers), ops, /*dst_is_empty_set=*/false);
  return ops;
}

void IntersectCombineStepEvents(StepEvents src, StepEvents& dst, bool dst_is_empty_set) {
  if (dst_is_empty_set) {
    dst = std::move(src);
    return;
  }
  for (auto it = dst.begin(); it != dst.end();) {
    auto found = src.find(it->first);
    if (found == src.end()) {
      it = dst.erase(it);
      continue;
    }
    GroupStepEvents& d = it->second;
    GroupStepEvents& s = found->second;
    d.device_markers.insert(d.device_markers.end(), s.device_markers.begin(), s.device_markers.end());
    d.host_markers.insert(d.host_markers.end(), s.host_markers.begin(), s.host_markers.end());
    for (const auto& [core, marker] : s.core_markers) d.core_markers.insert_or_assign(core, marker);
    for (const auto& [core, category_ps] : s.core_category_ps) d.core_category_ps.insert_or_assign(core, category_ps);
    d.core_all_reduces.insert(s.core_all_reduces.begin(), s.core_all_reduces.end());
    d.events.insert(d.events.end(), s.events.begin(), s.events.end());
    if (d.step_name.empty()) d.step_name = s.step_name;
    ++it;
  }
}

}  // namespace tbprof
