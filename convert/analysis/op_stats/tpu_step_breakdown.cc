#include "convert/analysis/op_stats/tpu_step_breakdown.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "convert/analysis/op_stats/sample_stat.h"
#include "convert/base/math_util.h"

namespace tbprof {

using tensorflow::profiler::PerTpuStepDetails;

namespace {

// HLO categories (XLA's opcode names as the profiler writes them).
constexpr std::string_view kInfeed = "infeed", kOutfeed = "outfeed", kSc0Infeed = "sparsecorev0 infeed",
                           kSc0Outfeed = "sparsecorev0 outfeed", kSc0InfeedWait = "sparsecorev0 infeed wait",
                           kSc0InfeedTransform = "sparsecorev0 infeed transform";

double PsToMs(double ps) { return ps / 1e9; }

uint64_t CategoryPs(const std::map<std::string, uint64_t>& by_category, std::string_view category) {
  auto it = by_category.find(std::string(category));
  return it == by_category.end() ? 0 : it->second;
}

uint64_t CategoriesPs(const std::map<std::string, uint64_t>& by_category,
                      std::initializer_list<std::string_view> categories) {
  uint64_t ps = 0;
  for (std::string_view c : categories) ps += CategoryPs(by_category, c);
  return ps;
}

// The tpu_step_breakdown_utils sums.
uint64_t ScV0InfeedDurationPs(const TpuStepBreakdown& t) {
  return static_cast<uint64_t>(static_cast<double>(t.wait_for_scv0_duration_ps) * t.scv0_infeed_percent / 100.0);
}
uint64_t ScV0ComputeDurationPs(const TpuStepBreakdown& t) {
  return t.wait_for_scv0_duration_ps - ScV0InfeedDurationPs(t);
}
uint64_t TcPlusScV0InfeedDurationPs(const TpuStepBreakdown& t) {
  return t.infeed_duration_ps + ScV0InfeedDurationPs(t);
}
uint64_t HostSendRecvDurationPs(const TpuStepBreakdown& t) { return t.host_send_duration_ps + t.host_recv_duration_ps; }
uint64_t WaitForHostOrScV0DurationPs(const TpuStepBreakdown& t) {
  return t.infeed_duration_ps + t.host_outfeed_ps + HostSendRecvDurationPs(t) + t.tc_idle_ps +
         t.wait_for_scv0_duration_ps;
}

struct AllReduceBreakdown {
  uint64_t compute_duration_ps = 0, sync_duration_ps = 0;
  uint64_t DurationPs() const { return compute_duration_ps + sync_duration_ps; }
};

// Each core's all-reduce time split into compute (the fastest core's time
// for the same all-reduce) and synchronization (the rest).
std::map<uint32_t, AllReduceBreakdown> AllReduceBreakdownAcrossCores(const PerCoreStepInfo& step) {
  std::map<uint64_t, uint64_t> min_duration;  // all-reduce id -> shortest duration on any core
  for (const auto& [core, all_reduces] : step.all_reduce_per_core) {
    for (const AllReduceInfo& a : all_reduces) {
      uint64_t d = a.end_time_ps - a.start_time_ps;
      auto [it, fresh] = min_duration.try_emplace(a.id, d);
      if (!fresh) it->second = std::min(it->second, d);
    }
  }
  std::map<uint32_t, AllReduceBreakdown> out;
  for (const auto& [core, all_reduces] : step.all_reduce_per_core) {
    AllReduceBreakdown& b = out[core];
    for (const AllReduceInfo& a : all_reduces) {
      uint64_t d = a.end_time_ps - a.start_time_ps, min = min_duration[a.id];
      b.compute_duration_ps += min;
      b.sync_duration_ps += d - min;
    }
  }
  return out;
}

}  // namespace

// The tpu_step_details_utils sums (ms).
double InfeedTimeMs(const PerTpuStepDetails& d) { return d.tc_infeed_time_ms() + d.scv0_infeed_time_ms(); }
double AllReduceTimeMs(const PerTpuStepDetails& d) {
  return d.all_reduce_compute_time_ms() + d.all_reduce_sync_time_ms();
}

namespace {

double NonIdleTimeMs(const PerTpuStepDetails& d) {
  return d.tc_compute_time_ms() + d.scv0_compute_time_ms() + InfeedTimeMs(d) + AllReduceTimeMs(d) +
         d.tc_outfeed_time_ms();
}

}  // namespace

double StepTimeMs(const PerTpuStepDetails& d) { return NonIdleTimeMs(d) + d.tc_idle_time_ms(); }

TpuStepBreakdown TpuStepBreakdownOf(const std::map<std::string, uint64_t>& category_ps, uint64_t step_time_ps) {
  std::map<std::string, uint64_t> c;
  uint64_t total = 0;
  for (const auto& [category, ps] : category_ps) {
    if (category == kIdleCategory) continue;
    c[category] += ps;
    total += ps;
  }
  // SparseCoreV0 infeed is waiting for SparseCoreV0 plus transforming its
  // output, which costs about what the outfeed to it does.
  if (auto it = c.find(std::string(kSc0Infeed)); it != c.end()) {
    uint64_t infeed = it->second;
    c.erase(it);
    if (infeed != 0) {
      uint64_t transform = std::min(infeed, CategoryPs(c, kSc0Outfeed));
      c[std::string(kSc0InfeedWait)] = infeed - transform;
      c[std::string(kSc0InfeedTransform)] = transform;
    }
  }
  TpuStepBreakdown t;
  t.infeed_duration_ps = CategoryPs(c, kInfeed);
  t.host_outfeed_ps = CategoryPs(c, kOutfeed);
  t.wait_for_scv0_duration_ps = CategoryPs(c, kSc0InfeedWait);
  t.scv0_infeed_transform_ps = CategoryPs(c, kSc0InfeedTransform);
  t.scv0_outfeed_ps = CategoryPs(c, kSc0Outfeed);
  t.crs_duration_ps = CategoriesPs(c, {"all-reduce", "all-reduce fusion", "all-to-all"});
  t.send_duration_ps = CategoriesPs(c, {"send", "send-done"});
  t.recv_duration_ps = CategoriesPs(c, {"recv", "recv-done"});
  t.host_send_duration_ps = CategoriesPs(c, {"host send", "host send-done"});
  t.host_recv_duration_ps = CategoriesPs(c, {"host recv", "host recv-done"});
  t.wait_for_megacore_fusion_peer_duration_ps = CategoryPs(c, "megacore fusion");
  t.high_flops_compute_ps = CategoriesPs(c, {"convolution", "convolution base-dilated", "convolution window-dilated",
                                              "convolution fusion", "output fusion"});
  t.tc_idle_ps = step_time_ps - total;
  const uint64_t off_duty = t.tc_idle_ps + t.infeed_duration_ps + t.host_outfeed_ps + t.host_send_duration_ps +
                            t.host_recv_duration_ps + t.wait_for_megacore_fusion_peer_duration_ps;
  t.tc_busy_ps = step_time_ps - off_duty - t.wait_for_scv0_duration_ps;
  return t;
}

PerTpuStepDetails ComputeTpuPerStepDataAcrossCores(const PerCoreStepInfo& step,
                                                   const std::map<uint32_t, CoreDetails>& core_details) {
  PerTpuStepDetails d;
  std::map<uint32_t, AllReduceBreakdown> all_reduce = AllReduceBreakdownAcrossCores(step);
  SampleStat<double> infeed_percent;
  SampleStat<uint64_t> step_ps, optimal_step_ps, tc_outfeed_ps, sc_compute_ps, sc_step_ps, sc_idle_ps,
      host_send_recv_ps;
  uint64_t max_wait_for_scv0_infeed = 0, max_wait_for_scv0_compute = 0;
  std::optional<uint32_t> max_infeed_core;
  uint64_t max_infeed_ps = 0;
  AllReduceBreakdown max_all_reduce;
  d.set_step_number(-1);
  for (const auto& [core, info] : step.step_info_per_core) {
    if (d.step_number() < 0) d.set_step_number(static_cast<int32_t>(info.step_num));
    if (core >= kSparseCoreIndexStart) {
      // A SparseCore computes whenever it is not idle.
      uint64_t idle = CategoryPs(info.category_ps, kIdleCategory);
      sc_step_ps.Update(info.duration_ps);
      sc_compute_ps.Update(info.duration_ps - idle);
      sc_idle_ps.Update(idle);
      continue;
    }
    TpuStepBreakdown t = TpuStepBreakdownOf(info.category_ps, info.duration_ps);
    step_ps.Update(info.duration_ps);
    if (t.wait_for_scv0_duration_ps > max_wait_for_scv0_infeed + max_wait_for_scv0_compute) {
      max_wait_for_scv0_infeed = ScV0InfeedDurationPs(t);
      max_wait_for_scv0_compute = ScV0ComputeDurationPs(t);
    }
    tc_outfeed_ps.Update(t.host_outfeed_ps);
    const AllReduceBreakdown& ar = all_reduce[core];
    if (ar.DurationPs() > max_all_reduce.DurationPs()) max_all_reduce = ar;
    infeed_percent.Update(100.0 * static_cast<double>(TcPlusScV0InfeedDurationPs(t)) /
                          static_cast<double>(info.duration_ps));
    // The step without the time this core waited for the host or for
    // SparseCoreV0 (not for other TensorCores).
    optimal_step_ps.Update(info.duration_ps - WaitForHostOrScV0DurationPs(t));
    host_send_recv_ps.Update(HostSendRecvDurationPs(t));
    if (t.infeed_duration_ps > max_infeed_ps) {
      max_infeed_core = core;
      max_infeed_ps = t.infeed_duration_ps;
    }
  }
  if (!tc_outfeed_ps.empty()) d.set_tc_outfeed_time_ms(PsToMs(tc_outfeed_ps.avg()));
  // TensorCore compute: the shortest of the cores' steps without waiting.
  if (!optimal_step_ps.empty()) d.set_tc_compute_time_ms(PsToMs(static_cast<double>(optimal_step_ps.min())));
  if (!host_send_recv_ps.empty()) d.set_host_transfer_ms(PsToMs(static_cast<double>(host_send_recv_ps.max())));
  d.set_tc_infeed_time_ms(PsToMs(static_cast<double>(max_infeed_ps)));
  if (max_infeed_core) {
    d.set_coreid_max_infeed_time(*max_infeed_core);
    if (auto it = core_details.find(*max_infeed_core); it != core_details.end()) {
      d.set_max_infeed_time_core_name(it->second.hostname + ":" + std::to_string(it->second.device_ordinal));
    }
  }
  d.set_scv0_compute_time_ms(PsToMs(static_cast<double>(max_wait_for_scv0_compute)));
  d.set_scv0_infeed_time_ms(PsToMs(static_cast<double>(max_wait_for_scv0_infeed)));
  // Idle: what the shortest step leaves after the rest (all-reduce not yet set).
  if (!step_ps.empty()) d.set_tc_idle_time_ms(PsToMs(static_cast<double>(step_ps.min())) - NonIdleTimeMs(d));
  if (d.tc_idle_time_ms() < 0) d.set_tc_idle_time_ms(0);
  d.set_all_reduce_compute_time_ms(PsToMs(static_cast<double>(max_all_reduce.compute_duration_ps)));
  d.set_all_reduce_sync_time_ms(PsToMs(static_cast<double>(max_all_reduce.sync_duration_ps)));
  if (!infeed_percent.empty()) {
    d.set_infeed_percent_average(infeed_percent.avg());
    d.set_infeed_percent_minimum(infeed_percent.min());
    d.set_infeed_percent_maximum(infeed_percent.max());
  }
  if (!sc_compute_ps.empty()) d.set_sc_compute_time_ms(PsToMs(static_cast<double>(sc_compute_ps.min())));
  if (!sc_idle_ps.empty()) d.set_sc_idle_time_ms(PsToMs(sc_idle_ps.avg()));
  if (!sc_step_ps.empty()) d.set_sc_step_time_ms(PsToMs(sc_step_ps.avg()));
  if (d.sc_idle_time_ms() < 0) d.set_sc_idle_time_ms(0);
  return d;
}

void MayFixTpuStepAnalysis(const StepEvents& host_step_events, const OpMetricsDb& device_op_metrics_db,
                           std::vector<PerCoreStepInfo>& step_db, const std::map<uint32_t, CoreDetails>& core_details) {
  for (const auto& [name, m] : device_op_metrics_db.ops) {
    if (m.category == kInfeed || m.category == kSc0Infeed) return;  // input arrives by infeed
  }
  for (PerCoreStepInfo& step : step_db) {
    auto host = host_step_events.find(static_cast<uint32_t>(step.step_num));
    if (host == host_step_events.end()) continue;
    uint64_t input_ps = 0;
    for (const TypedSpan& e : host->second.events) {
      if (e.type == HOST_WAIT_INPUT || e.type == HOST_TO_DEVICE) input_ps += static_cast<uint64_t>(e.span.duration());
    }
    if (input_ps == 0) continue;
    double tc_idle_ms = ComputeTpuPerStepDataAcrossCores(step, core_details).tc_idle_time_ms();
    double input_ratio = std::min(SafeDivide(PsToMs(static_cast<double>(input_ps)), tc_idle_ms), 1.0);
    for (auto& [core, info] : step.step_info_per_core) {
      if (core >= kSparseCoreIndexStart) continue;
      auto idle = info.category_ps.find(kIdleCategory);
      if (idle == info.category_ps.end() || idle->second == 0) continue;
      uint64_t infeed = static_cast<uint64_t>(static_cast<double>(idle->second) * input_ratio);
      idle->second -= infeed;
      info.category_ps[std::string(kInfeed)] = infeed;
    }
  }
}

}  // namespace tbprof
