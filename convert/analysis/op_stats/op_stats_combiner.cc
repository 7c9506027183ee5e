#include "convert/analysis/op_stats/op_stats_combiner.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "convert/analysis/op_stats/framework_op_metrics.h"
#include "convert/analysis/op_stats/step_intersection.h"
#include "convert/analysis/kernels/xspace_to_kernel_stats.h"

namespace tbprof {
namespace {

using tensorflow::profiler::KernelReport;

// A TPU step's span over all its cores (xprof StepTimespan).
StepSpan TpuStepSpan(const PerCoreStepInfo& step) {
  uint64_t begin = std::numeric_limits<uint64_t>::max(), end = 0;
  for (const auto& [core, info] : step.step_info_per_core) {
    uint64_t b = static_cast<uint64_t>(std::max<int64_t>(0, info.begin_ps));
    begin = std::min(begin, b);
    end = std::max(end, b + info.duration_ps);
  }
  return begin < end ? StepSpan{begin, end} : StepSpan{};
}

}  // namespace

void CombineOpMetricsDb(const OpMetricsDb& src, OpMetricsDb& dst) {
  for (const auto& [name, m] : src.ops) {
    OpMetrics& d = dst.ops[name];
    if (d.name.empty()) {
      d = m;
      continue;
    }
    d.occurrences += m.occurrences;
    d.time_ps += m.time_ps;
    d.self_time_ps += m.self_time_ps;
    d.min_time_ps = std::min(d.min_time_ps, m.min_time_ps);
    d.flops += m.flops;
    d.bytes_accessed += m.bytes_accessed;
    d.flops_unknown |= m.flops_unknown;
    d.is_eager |= m.is_eager;
    if (d.category.empty()) d.category = m.category;
    if (d.provenance.empty()) d.provenance = m.provenance;
  }
  dst.total_time_ps += src.total_time_ps;
  dst.busy_time_ps += src.busy_time_ps;
  dst.idle_time_ps += src.idle_time_ps;
  dst.total_op_time_ps += src.total_op_time_ps;
  dst.total_host_infeed_enq_duration_ps += src.total_host_infeed_enq_duration_ps;
  dst.total_host_infeed_enq_start_timestamp_ps_diff += src.total_host_infeed_enq_start_timestamp_ps_diff;
}


OpStats CombineOpStats(const std::vector<std::shared_ptr<const OpStats>>& hosts) {
  OpStatsFold fold;
  for (const auto& h : hosts) fold.Add(*h);
  return std::move(fold).Finish();
}

void OpStatsFold::Add(const OpStats& host) {
  AddSums(host);
  hosts_.push_back({.cpu_only = host.run_environment.hardware_type == "CPU_ONLY",
                    .steps = host.steps,
                    .tpu_step_db = host.tpu_step_db,
                    .core_id_to_details = host.core_id_to_details});
}

void OpStatsFold::Add(OpStats&& host) {
  AddSums(host);
  hosts_.push_back({.cpu_only = host.run_environment.hardware_type == "CPU_ONLY",
                    .steps = std::move(host.steps),
                    .tpu_step_db = std::move(host.tpu_step_db),
                    .core_id_to_details = std::move(host.core_id_to_details)});
}

void OpStatsFold::AddSums(const OpStats& h) {
  OpStats& out = out_;
  // The GPU figures of several PyTorch traces are not combined: unknown then
  // (Finish tells one trace's from several).
  if (h.torch_gpu) out.torch_gpu = *h.torch_gpu;
  // Several traces (ranks) of a PyTorch run: each trace's steps, one after
  // the other, so averages are over every rank's steps.
  if (h.torch_steps && !out.torch_steps) {
    out.torch_steps = h.torch_steps;
  } else if (h.torch_steps) {
    out.torch_steps->step_names.insert(out.torch_steps->step_names.end(), h.torch_steps->step_names.begin(),
                                       h.torch_steps->step_names.end());
    out.torch_steps->category_ms.insert(out.torch_steps->category_ms.end(), h.torch_steps->category_ms.begin(),
                                        h.torch_steps->category_ms.end());
  }
  CombineOpMetricsDb(h.host_op_metrics_db, out.host_op_metrics_db);
  CombineOpMetricsDb(h.device_op_metrics_db, out.device_op_metrics_db);
  out.compute_16bit_ps += h.compute_16bit_ps;
  out.compute_32bit_ps += h.compute_32bit_ps;
  out.compute_unknown_precision_ps += h.compute_unknown_precision_ps;
  out.errors.insert(out.errors.end(), h.errors.begin(), h.errors.end());
  out.warnings.insert(out.warnings.end(), h.warnings.begin(), h.warnings.end());
  const RunEnvironment& env = h.run_environment;
  out.run_environment.hostnames.insert(env.hostnames.begin(), env.hostnames.end());
  out.run_environment.task_count += env.task_count;
  out.run_environment.device_core_count += env.device_core_count;
  // Training when one host trains; known false only when some host could tell.
  if (env.is_training.has_value()) {
    out.run_environment.is_training = out.run_environment.is_training.value_or(false) || *env.is_training;
  }
  out.run_environment.sessions.insert(env.sessions.begin(), env.sessions.end());
  // A coordinator's "CPU" and an unknown "Device" do not name the run's
  // devices (CombineRunEnvironment); the hardware type is the highest seen.
  if (env.device_type != "CPU" && env.device_type != "Device") out.run_environment.device_type = env.device_type;
  if (env.hardware_type != "CPU_ONLY") out.run_environment.hardware_type = env.hardware_type;
  // One device model per run: the first host with devices gives the peaks.
  if (out.peaks.kind == DeviceKind::kUnknown) out.peaks = h.peaks;
  for (const KernelReport& r : h.kernel_stats_db.reports()) {
    std::vector<uint32_t> dims(r.block_dim().begin(), r.block_dim().end());
    dims.insert(dims.end(), r.grid_dim().begin(), r.grid_dim().end());
    KernelKey key(r.is_kernel_using_tensor_core(), r.is_op_tensor_core_eligible(), std::move(dims),
                  r.registers_per_thread(), r.static_shmem_bytes(), r.dynamic_shmem_bytes(), r.name(), r.op_name());
    auto [it, inserted] = kernels_.try_emplace(std::move(key), r);
    if (inserted) continue;
    KernelReport& d = it->second;
    d.set_total_duration_ns(d.total_duration_ns() + r.total_duration_ns());
    d.set_min_duration_ns(std::min(d.min_duration_ns(), r.min_duration_ns()));
    d.set_max_duration_ns(std::max(d.max_duration_ns(), r.max_duration_ns()));
    d.set_occurrences(d.occurrences() + r.occurrences());
  }
}

OpStats OpStatsFold::Finish() && {
  if (hosts_.empty()) return OpStats{};
  if (out_.torch_gpu && hosts_.size() > 1) out_.torch_gpu = TorchGpuSummary{};
  out_.run_environment.host_count = static_cast<int>(out_.run_environment.hostnames.size());
  out_.device_tf_op_metrics_db = DeviceTfOpMetricsDb(out_.device_op_metrics_db, /*with_idle=*/true);
  CombineGenericSteps();
  CombineTpuSteps();
  std::vector<KernelReport*> all;
  for (auto& [k, r] : kernels_) all.push_back(&r);
  SortKernelReports(all);
  for (const KernelReport* r : all) *out_.kernel_stats_db.add_reports() = *r;
  return std::move(out_);
}

// Steps: the ones every host took part in, matched by time (xprof
// StepIntersection). Each host's common steps keep their own spans and
// breakdowns and take the chief host's step numbers, so that one step has
// one number (and one index) on every host. (xprof renumbers them 0..n-1;
// the chief's numbers are the ones the user's program printed.)
// A host without devices in a run that has some is a coordinator (xprof's
// IsCoordinator): its steps are no worker's, and left out.
void OpStatsFold::CombineGenericSteps() {
  const bool accelerators =
      std::any_of(hosts_.begin(), hosts_.end(), [](const HostStepsKept& h) { return !h.cpu_only; });
  std::vector<HostSteps*> per_host;
  for (HostStepsKept& h : hosts_) {
    if (accelerators && h.cpu_only) continue;
    for (HostSteps& hs : h.steps) per_host.push_back(&hs);
  }
  std::vector<std::vector<StepSpan>> spans(per_host.size());
  for (size_t i = 0; i < per_host.size(); ++i) {
    for (const StepInfo& st : per_host[i]->steps) {
      uint64_t begin = static_cast<uint64_t>(std::max<int64_t>(0, st.begin_ps));
      spans[i].push_back({begin, begin + st.duration_ps});
    }
  }
  StepIntersection intersection(std::numeric_limits<uint32_t>::max(), spans);
  out_.empty_step_intersection = intersection.EmptyIntersect();
  for (size_t i = 0; i < per_host.size(); ++i) {
    HostSteps kept;
    kept.hostname = per_host[i]->hostname;
    uint32_t first = intersection.FirstStepIndex(i);
    for (uint32_t k = 0; k < intersection.NumSteps(); ++k) {
      StepInfo st = per_host[i]->steps[first + k];
      const StepInfo& chief = per_host[intersection.ChiefHost()]->steps[intersection.FirstChiefIndex() + k];
      st.step_num = chief.step_num;
      kept.steps.push_back(std::move(st));
    }
    out_.steps.push_back(std::move(kept));
  }
}

// TPU steps and cores of several hosts (xprof CombineStepDatabase and
// CombineCoreIdMap): the steps every host took part in, matched by time as
// the generic steps are and numbered as the chief's; a core of host h becomes
// h * kMaxCoresPerHost + its id. A single host is kept as it is.
void OpStatsFold::CombineTpuSteps() {
  OpStats& out = out_;
  if (hosts_.size() == 1) {
    out.tpu_step_db = std::move(hosts_[0].tpu_step_db);
    out.core_id_to_details = std::move(hosts_[0].core_id_to_details);
    return;
  }
  auto global_core = [](size_t host, uint32_t core) { return static_cast<uint32_t>(host) * kMaxCoresPerHost + core; };
  std::vector<std::vector<StepSpan>> spans(hosts_.size());
  bool any_steps = false;
  for (size_t h = 0; h < hosts_.size(); ++h) {
    for (const auto& [core, details] : hosts_[h].core_id_to_details) {
      out.core_id_to_details[global_core(h, core)] = details;
    }
    for (const PerCoreStepInfo& step : hosts_[h].tpu_step_db) spans[h].push_back(TpuStepSpan(step));
    any_steps |= !spans[h].empty();
  }
  if (!any_steps) return;
  StepIntersection intersection(std::numeric_limits<uint32_t>::max(), spans);
  out.empty_step_intersection |= intersection.EmptyIntersect();
  for (uint32_t k = 0; k < intersection.NumSteps(); ++k) {
    PerCoreStepInfo& dst = out.tpu_step_db.emplace_back();
    dst.step_num = hosts_[intersection.ChiefHost()].tpu_step_db[intersection.FirstChiefIndex() + k].step_num;
    for (size_t h = 0; h < hosts_.size(); ++h) {
      const PerCoreStepInfo& src = hosts_[h].tpu_step_db[intersection.FirstStepIndex(h) + k];
      for (const auto& [core, info] : src.step_info_per_core) {
        StepInfo& d = dst.step_info_per_core[global_core(h, core)] = info;
        d.step_num = dst.step_num;
      }
      for (const auto& [core, all_reduces] : src.all_reduce_per_core) {
        dst.all_reduce_per_core[global_core(h, core)] = all_reduces;
      }
    }
  }
}

}  // namespace tbprof
