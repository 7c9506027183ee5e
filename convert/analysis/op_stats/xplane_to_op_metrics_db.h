// XSpace -> op metrics databases (xprof xplane_to_op_metrics_db.cc): host
// TF ops by self time on each thread, GPU kernels by framework or HLO op, TPU
// XLA ops by nesting, and each device's duty cycle.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>

#include "convert/analysis/op_stats/duty_cycle_tracker.h"
#include "convert/analysis/hlo_program/hlo_cost_model.h"
#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/op_names/tf_op_utils.h"
#include "convert/analysis/self_time/op_self_time.h"
#include "convert/grouping/group_events.h"
#include "convert/model/schema.h"
#include "convert/model/xspace_model.h"

namespace tbprof {

class OpMetricsDbBuilder {
 public:
  // `groups` may be empty (no step grouping): then every kernel is its own
  // occurrence, and an op is eager only by its own `is_eager` stat.
  // `programs`, the profile's HLO modules (may be empty), tell a GPU XLA op's
  // category, framework op and cost.
  OpMetricsDbBuilder(const XSpaceModel& space, const schema::StatIds& ids, const EventGroups& groups,
                     const HloPrograms& programs);

  // ConvertHostThreadsXPlaneToOpMetricsDb: TF ops ("name:type" event names)
  // by self time on each thread, IDLE for the rest of each thread's span.
  // `host_plane`: an index into the space's planes.
  void AddHostPlane(size_t host_plane, OpMetricsDb& db) const;
  // ConvertDeviceTraceXPlaneToOpMetricsDb: kernels keyed by their HLO op, or
  // by framework op and kernel name.
  void AddGpuPlane(size_t plane_index, OpMetricsDb& db);
  // A TPU TensorCore plane's XLA ops.
  void AddTpuPlane(const XPlaneModel& tpu, OpMetricsDb& db) const;

 private:
  const TfOp& ParsedTfOp(StrId s);
  std::string_view StrStat(const XPlaneModel& p, uint32_t e, StrId id) const {
    return space_.Str(schema::StatIds::StrOf(p, e, id));
  }
  const Stat* Find(const XPlaneModel& p, uint32_t e, StrId id) const {
    return id == kNoStr ? nullptr : p.FindStat(e, id);
  }

  // A GPU op's row, and the cost of one of its runs where its HLO
  // instruction tells it.
  struct GpuOpRow {
    OpMetrics* op = nullptr;
    std::optional<HloCost> cost;
  };
  GpuOpRow NewGpuOpRow(const XPlaneModel& p, uint32_t e, StrId tf_op, StrId hlo_op, std::optional<int64_t> program,
                       OpMetricsDb& db);

  const XSpaceModel& space_;
  const schema::StatIds& ids_;
  const EventGroups& groups_;
  const HloPrograms& hlo_programs_;
  std::unordered_map<size_t, std::unordered_map<uint64_t, GpuOpRow>> device_ops_;
  std::unordered_map<int64_t, uint64_t> program_index_;  // program id -> 1, 2, … (device_ops_ keys)
  std::unordered_map<StrId, TfOp> tf_ops_;
};

// Adds `idle_ps` to the db's IDLE row.
void AddIdle(OpMetricsDb& db, uint64_t idle_ps);

// How busy one device plane was (xprof ConstructDutyCycleTracker): on TPU,
// XLA ops are active unless off-duty (infeed, outfeed, host send/recv),
// SparseCore ops active, XLA and SparseCore modules only present; on GPU,
// every kernel and copy is active over the plane's traced span.
DutyCycleTracker ConstructDutyCycleTracker(const XSpaceModel& space, const schema::StatIds& ids,
                                           const XPlaneModel& device);

}  // namespace tbprof
