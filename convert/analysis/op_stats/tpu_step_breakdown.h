// A TPU step in numbers, from the op time of each of its cores by HLO
// category (xprof's tpu_step_breakdown_utils and tpu_step_details_utils):
// one core's breakdown, the step across its cores (PerTpuStepDetails), and
// the host-side fix OpStats applies to the step table when the input does not
// arrive by infeed. The TPU pages (input pipeline, overview, pod viewer) read
// these; OpStats' builder needs only the last.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/op_stats/xplane_to_step_events.h"
#include "proto/input_pipeline.pb.h"

namespace tbprof {

// One TensorCore's step in the terms of xprof's TpuStepBreakdown (ps).
struct TpuStepBreakdown {
  uint64_t infeed_duration_ps = 0, host_outfeed_ps = 0, wait_for_scv0_duration_ps = 0, scv0_infeed_transform_ps = 0,
           scv0_outfeed_ps = 0, crs_duration_ps = 0, send_duration_ps = 0, recv_duration_ps = 0,
           host_send_duration_ps = 0, host_recv_duration_ps = 0, wait_for_megacore_fusion_peer_duration_ps = 0,
           high_flops_compute_ps = 0, tc_idle_ps = 0, tc_busy_ps = 0;
  double scv0_infeed_percent = 0;
};

// The breakdown of a step of `step_time_ps` from its ops' self time by HLO
// category (IDLE ignored: idle is what the categories leave of the step, in
// unsigned arithmetic as xprof's, so ops outlasting the step wrap it).
TpuStepBreakdown TpuStepBreakdownOf(const std::map<std::string, uint64_t>& category_ps, uint64_t step_time_ps);

// The per-step sums of a PerTpuStepDetails (ms): input (TensorCore and
// SparseCoreV0 infeed), all-reduce (compute and sync), and the whole step.
double InfeedTimeMs(const tensorflow::profiler::PerTpuStepDetails& d);
double AllReduceTimeMs(const tensorflow::profiler::PerTpuStepDetails& d);
double StepTimeMs(const tensorflow::profiler::PerTpuStepDetails& d);

tensorflow::profiler::PerTpuStepDetails ComputeTpuPerStepDataAcrossCores(
    const PerCoreStepInfo& step, const std::map<uint32_t, CoreDetails>& core_details);

// Without an infeed op on the device, a TensorCore waits for its input idle:
// the step's share of host input time (HOST_WAIT_INPUT and HOST_TO_DEVICE
// of the host step with the same number) over the step's idle time moves
// that part of each TensorCore's IDLE to "infeed" (xprof MayFixTpuStepAnalysis).
void MayFixTpuStepAnalysis(const StepEvents& host_step_events, const OpMetricsDb& device_op_metrics_db,
                           std::vector<PerCoreStepInfo>& step_db, const std::map<uint32_t, CoreDetails>& core_details);

}  // namespace tbprof
