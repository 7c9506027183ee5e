#include "convert/analysis/op_stats/xspace_to_op_stats.h"

#include <algorithm>
#include <optional>
#include <set>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/op_stats/framework_op_metrics.h"
#include "convert/analysis/op_stats/model_tracker.h"
#include "convert/analysis/op_stats/step_events_to_steps_db.h"
#include "convert/analysis/op_stats/torch_overview.h"
#include "convert/analysis/op_stats/tpu_step_breakdown.h"
#include "convert/analysis/op_stats/xplane_to_op_metrics_db.h"
#include "convert/analysis/op_stats/xplane_to_run_environment.h"
#include "convert/analysis/op_stats/xplane_to_step_events.h"
#include "convert/analysis/kernels/xspace_to_kernel_stats.h"
#include "convert/base/cancellation.h"
#include "convert/base/run_both.h"
#include "convert/grouping/group_events.h"
#include "convert/model/kineto_names.h"
#include "convert/model/schema.h"
#include "proto/op_stats.pb.h"

namespace tbprof {
namespace {

// The chip a device plane belongs to: a SparseCore plane
// ("/device:TPU:0 SparseCore 1") shares its TensorCore's chip.
std::string_view ChipOf(std::string_view plane_name) {
  size_t sc = plane_name.find(schema::kSparseCorePlaneInfix);
  return sc == std::string_view::npos ? plane_name : plane_name.substr(0, sc);
}

// Where a TPU core is, from its plane's core_details stat (a serialized
// CoreDetails), on host `hostname`; none when the plane has no such stat.
std::optional<CoreDetails> CoreDetailsOf(const XSpaceModel& space, const XPlaneModel& p, const std::string& hostname) {
  StrId name = space.Find("core_details");
  const Stat* stat = name == kNoStr ? nullptr : p.FindPlaneStat(name);
  if (!stat || stat->kind != StatKind::kBytes) return std::nullopt;
  tensorflow::profiler::CoreDetails proto;
  std::string_view bytes = space.Blob(stat->blob);
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return std::nullopt;
  CoreDetails d;
  d.hostname = hostname;
  d.device_ordinal = proto.device_ordinal();
  d.core_num = proto.core_num();
  d.local_chip_id = proto.local_chip_id();
  d.global_chip_id = proto.global_chip_id();
  d.global_core_id = proto.global_core_id();
  d.is_sparse_core = schema::IsSparseCorePlane(space.Str(p.name));
  return d;
}

class OpStatsBuilder {
 public:
  OpStatsBuilder(const XSpaceModel& space, std::shared_ptr<const EventGroups> groups)
      : space_(space), ids_(space), shared_groups_(std::move(groups)) {
    for (size_t pi = 0; pi < space.planes.size(); ++pi) {
      if (space.Str(space.planes[pi].name) == schema::kHostPlane) host_planes_.push_back(pi);
    }
    // Parsed only when present: most GPU and CPU profiles have no HLO module.
    if (HasHloModules(space)) programs_ = LoadHloPrograms(space);
  }

  // The groups the statistics were built from (given or computed).
  std::shared_ptr<const EventGroups> groups() const { return shared_groups_; }

  // Kernel stats and host op metrics need no event groups, so a second
  // thread computes them while the events are grouped. Only where grouping
  // finds TF ops run eagerly are the host op metrics made again, with it.
  OpStats Build() {
    OpStats s;
    tensorflow::profiler::KernelStatsDb kernel_stats;
    RunBoth(
        [&] {
          if (!shared_groups_) shared_groups_ = std::make_shared<const EventGroups>(GroupEvents(space_));
          BuildGrouped(s);
        },
        [&] {
          static const EventGroups kNoGroups;
          s.host_op_metrics_db = HostOpMetrics(kNoGroups);
          KernelStatsCollector kernels(space_, programs_);
          for (const XPlaneModel& p : space_.planes) {
            if (CancelRequested()) break;  // the caller discards what was built
            if (schema::IsGpuPlane(space_.Str(p.name))) kernels.AddPlane(p);
          }
          kernel_stats = kernels.Finish();
        });
    const bool eager_host_ops = std::any_of(host_planes_.begin(), host_planes_.end(),
                                            [&](size_t pi) { return shared_groups_->IsEagerPlane(pi); });
    if (eager_host_ops) s.host_op_metrics_db = HostOpMetrics(*shared_groups_);
    s.kernel_stats_db = std::move(kernel_stats);
    s.device_tf_op_metrics_db = DeviceTfOpMetricsDb(s.device_op_metrics_db, /*with_idle=*/true);
    if (schema::IsKinetoTrace(space_)) CountOperatorCalls(s.host_op_metrics_db, s.device_tf_op_metrics_db);
    if (!s.run_environment.is_training.has_value()) {
      // Without programs, the framework ops the profile recorded tell (the same rule, model_tracker). Both
      // tables are whole only here: the host's is made beside BuildGrouped, the framework ops' from the device's.
      TrainingByOps by_ops;
      for (const OpMetricsDb* db : {&s.host_op_metrics_db, &s.device_tf_op_metrics_db}) {
        for (const auto& [key, op] : db->ops) by_ops.Add(op.name, op.category);
      }
      s.run_environment.is_training = by_ops.IsTraining();
    }
    return s;
  }

 private:
  // The host plane's op metrics; `groups` tell which TF ops ran eagerly.
  OpMetricsDb HostOpMetrics(const EventGroups& groups) const {
    OpMetricsDbBuilder host_ops(space_, ids_, groups, programs_);
    OpMetricsDb db;
    for (size_t pi : host_planes_) {
      if (CancelRequested()) break;  // the caller discards what was built
      host_ops.AddHostPlane(pi, db);
    }
    return db;
  }

  // Everything but the host op metrics and kernel stats.
  void BuildGrouped(OpStats& s) {
    // A profiler that hits one problem per event repeats it: keep each once (xprof dedups too).
    auto unique = [](const std::vector<std::string>& v) {
      std::vector<std::string> out;
      std::set<std::string_view> seen;
      for (const std::string& m : v) {
        if (seen.insert(m).second) out.push_back(m);
      }
      return out;
    };
    s.errors = unique(space_.errors);
    s.warnings = unique(space_.warnings);
    bool has_gpu = false, has_tpu = false;
    for (const XPlaneModel& p : space_.planes) {
      has_gpu |= schema::IsGpuPlane(space_.Str(p.name));
      has_tpu |= schema::IsTpuCorePlane(space_.Str(p.name));
    }
    const std::string hostname = space_.hostnames.empty() ? "localhost" : space_.hostnames[0];
    std::optional<size_t> host_plane;
    OpMetricsDbBuilder device_ops(space_, ids_, *shared_groups_, programs_);
    // A PyTorch trace's steps are torch-tb-profiler's (torch_overview.h).
    const bool kineto = schema::IsKinetoTrace(space_);
    StepEvents step_events;
    std::optional<TorchOverview> torch;
    if (kineto) {
      torch = ComputeTorchOverview(space_);
      step_events = TorchStepEvents(*torch);
      s.torch_gpu = TorchGpuSummaryOf(*torch);
      s.torch_steps = TorchStepTableOf(*torch);
    }
    bool first_tpu_plane = true;
    // Duty cycle per chip: the cores of a chip are busy when any of them is.
    // A TPU core's chip is the local chip id of its core_details (as xprof
    // groups them); without it, the plane's name tells.
    std::map<std::string, DutyCycleTracker> chips;
    for (size_t pi = 0; pi < space_.planes.size(); ++pi) {
      if (CancelRequested()) return;  // the caller discards what was built
      const XPlaneModel& p = space_.planes[pi];
      std::string_view name = space_.Str(p.name);
      if (name == schema::kHostPlane) {
        host_plane = pi;
        if (!has_gpu && !has_tpu && !kineto) AddHostStepEvents(space_, ids_, *shared_groups_, pi, step_events);
      } else if (schema::IsGpuPlane(name)) {
        device_ops.AddGpuPlane(pi, s.device_op_metrics_db);
        if (!kineto) AddGpuStepEvents(space_, ids_, *shared_groups_, pi, step_events);
        chips[std::string(ChipOf(name))].Union(ConstructDutyCycleTracker(space_, ids_, p));
      } else if (schema::IsTpuCorePlane(name) || schema::IsSparseCorePlane(name)) {
        if (schema::IsTpuCorePlane(name)) device_ops.AddTpuPlane(p, s.device_op_metrics_db);
        std::string chip(ChipOf(name));
        if (std::optional<CoreDetails> details = CoreDetailsOf(space_, p, hostname)) {
          chip = "local chip " + std::to_string(details->local_chip_id);
          s.core_id_to_details[static_cast<uint32_t>(p.id)] = std::move(*details);
        }
        // TPU steps are the ones every core (TensorCores and SparseCores) took
        // part in. (A core without any step is passed over; xprof's
        // intersection would drop every step.)
        StepEvents core_steps = TpuPlaneStepEvents(space_, ids_, *shared_groups_, pi, TpuCoreId(space_, p));
        if (!core_steps.empty()) {
          IntersectCombineStepEvents(std::move(core_steps), step_events, first_tpu_plane);
          first_tpu_plane = false;
        }
        chips[chip].Union(ConstructDutyCycleTracker(space_, ids_, p));
      }
    }
    for (const auto& [chip, tracker] : chips) {
      s.device_op_metrics_db.busy_time_ps += tracker.ActivePs();
      s.device_op_metrics_db.idle_time_ps += tracker.IdlePs();
    }
    if (has_tpu) {
      s.tpu_step_db = ConvertTpuStepEventsToStepDb(step_events);
      if (host_plane) {
        StepEvents host_step_events;
        AddHostStepEvents(space_, ids_, *shared_groups_, *host_plane, host_step_events);
        MayFixTpuStepAnalysis(host_step_events, s.device_op_metrics_db, s.tpu_step_db, s.core_id_to_details);
      }
    } else {
      HostSteps host;
      host.hostname = hostname;
      host.steps = ConvertStepEventsToStepDb(step_events, has_gpu, shared_groups_->group_names, s.compute_16bit_ps,
                                             s.compute_32bit_ps);
      if (torch) {
        // The kernels' precision, not the step events' one type for all kernels.
        s.compute_16bit_ps = static_cast<uint64_t>(torch->kernel_ps_of_precision[static_cast<int>(TorchPrecision::k16Bit)]);
        s.compute_32bit_ps = static_cast<uint64_t>(torch->kernel_ps_of_precision[static_cast<int>(TorchPrecision::k32Bit)]);
        s.compute_unknown_precision_ps =
            static_cast<uint64_t>(torch->kernel_ps_of_precision[static_cast<int>(TorchPrecision::kUnknown)]);
      }
      s.steps.push_back(std::move(host));
    }
    s.run_environment = ConvertXSpaceToRunEnvironment(space_, programs_);
    s.peaks = DevicePeaksOf(space_);
  }

  const XSpaceModel& space_;
  const schema::StatIds ids_;
  std::shared_ptr<const EventGroups> shared_groups_;  // set before BuildGrouped runs
  HloPrograms programs_;
  std::vector<size_t> host_planes_;
};

}  // namespace

namespace {
// The bytes of `count` entries from those of the first few, scaled: walking
// every node of a large profile's tables (a hundred thousand ops and
// kernels) cost a reopened host's overview a tenth of its time again.
template <typename Range, typename EntryBytes>
size_t SampledBytes(const Range& entries, size_t count, EntryBytes entry_bytes) {
  constexpr size_t kSampled = 256;
  size_t sampled = 0, n = 0;
  for (auto it = entries.begin(); it != entries.end() && n < kSampled; ++it, ++n) sampled += entry_bytes(*it);
  return n == 0 ? 0 : sampled * count / n;
}
}  // namespace

size_t OpStats::ApproxBytes() const {
  size_t bytes = sizeof(OpStats);
  // A report's strings and its fixed part (with its dims' two small arrays).
  const auto& reports = kernel_stats_db.reports();
  bytes += SampledBytes(reports, static_cast<size_t>(reports.size()), [](const tensorflow::profiler::KernelReport& r) {
    return sizeof(r) + r.name().size() + r.op_name().size() + 64;
  });
  for (const OpMetricsDb* db : {&host_op_metrics_db, &device_op_metrics_db, &device_tf_op_metrics_db}) {
    bytes += SampledBytes(db->ops, db->ops.size(), [](const auto& entry) {
      return 2 * entry.first.size() + entry.second.category.size() + entry.second.provenance.size() + 160;
    });
  }
  for (const HostSteps& h : steps) bytes += h.steps.size() * 200;
  return bytes;
}

OpStats ConvertXSpaceToOpStats(const XSpaceModel& space, std::shared_ptr<const EventGroups>* groups) {
  OpStatsBuilder builder(space, groups != nullptr ? *groups : nullptr);
  OpStats stats = builder.Build();
  if (groups != nullptr) *groups = builder.groups();
  return stats;
}

bool OpStatsReadsEventStat(std::string_view plane_name, std::string_view stat_name) {
  // Every name GroupEvents reads, on every plane; what AddHostOps reads on
  // /host:CPU...
  static constexpr std::string_view kHost[] = {schema::kIsEager, schema::kTfOp, schema::kInputPipelineStageId,
                                               schema::kInputPipelineStageCategory};
  // ...and on device planes also by KernelStatsCollector and the device op
  // and step code. A name missing here reads as an absent stat; OpsProjection
  // tests compare the tools against whole-model results.
  static constexpr std::string_view kDeviceOnly[] = {
      schema::kTfOp,         schema::kLevel0,       schema::kHloOp,          schema::kShape,
      schema::kKernelDetails, schema::kEquation,    schema::kHloCategory,    schema::kFlops,
      schema::kBytesAccessed, schema::kName,        schema::kDeviceOffsetPs, schema::kDeviceDurationPs,
      schema::kProgramId,    schema::kHloModule};
  const std::span<const std::string_view> grouping = GroupingStatNames();
  if (std::find(grouping.begin(), grouping.end(), stat_name) != grouping.end()) return true;
  if (std::find(std::begin(kHost), std::end(kHost), stat_name) != std::end(kHost)) return true;
  return plane_name != schema::kHostPlane &&
         std::find(std::begin(kDeviceOnly), std::end(kDeviceOnly), stat_name) != std::end(kDeviceOnly);
}

LoadOptions OpStatsLoadOptions() {
  LoadOptions options;
  options.keep_event_stat = OpStatsReadsEventStat;
  // The host's `tf_op` names the op of an XLA:CPU op or launch; TF's allocator
  // writes it on every allocation and deallocation too, instants that are no
  // op's execution and, in a training profile, most of the host's events.
  options.narrowed_event_stat = [](std::string_view plane, std::string_view stat) {
    return plane == schema::kHostPlane && stat == schema::kTfOp;
  };
  options.keeps_narrowed_stats = [](std::string_view, std::string_view event_name) {
    return !schema::IsAllocatorEventName(event_name);
  };
  return options;
}

}  // namespace tbprof
