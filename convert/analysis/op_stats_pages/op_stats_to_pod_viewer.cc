#include "convert/analysis/op_stats_pages/op_stats_to_pod_viewer.h"

#include <array>
#include <map>
#include <string_view>
#include <utility>

#include "convert/analysis/op_stats_pages/step_diagnostics.h"
#include "convert/analysis/op_stats_pages/tpu_step_analysis.h"
#include "convert/base/data_table.h"
#include "convert/base/json.h"

namespace tbprof {
namespace {

// GenericEventType ids 1..9 and their display names.
constexpr std::array<const char*, 9> kGenericEventNames = {
    "Device compute", "Device to device", "Device collective communication", "Host compute", "Kernel launch",
    "Input",          "Output",           "Compilation",                     "All others"};

using BreakdownPs = std::array<uint64_t, 9>;

BreakdownPs GenericBreakdownPs(const StepInfo& s) {
  auto ps = [&](int t) {
    auto it = s.type_ps.find(t);
    return it == s.type_ps.end() ? uint64_t{0} : it->second;
  };
  return {ps(DEVICE_COMPUTE_16) + ps(DEVICE_COMPUTE_32),
          ps(DEVICE_TO_DEVICE) + ps(DEVICE_WAIT_DEVICE),
          ps(DEVICE_COLLECTIVES),
          ps(HOST_COMPUTE),
          ps(HOST_PREPARE),
          ps(HOST_WAIT_INPUT) + ps(HOST_TO_DEVICE) + ps(DEVICE_WAIT_HOST),
          ps(DEVICE_TO_HOST),
          ps(HOST_COMPILE),
          ps(UNKNOWN_TIME)};
}

// A TPU core's step in the generic event types (CreatePodStatsRecord on a
// breakdown by HLO category): collectives, device-to-device transfers,
// input and output are their categories' time, compute the rest of the busy
// time, all others the idle time.
BreakdownPs TpuBreakdownPs(const StepInfo& s) {
  uint64_t categorized = 0;
  for (const auto& [category, ps] : s.category_ps) {
    if (category != kIdleCategory) categorized += ps;
  }
  TpuStepBreakdown t = TpuStepBreakdownOf(s.category_ps, std::max(s.duration_ps, categorized));
  uint64_t input = t.infeed_duration_ps + t.host_recv_duration_ps + t.wait_for_scv0_duration_ps +
                   t.scv0_infeed_transform_ps;
  uint64_t output = t.host_outfeed_ps + t.host_send_duration_ps + t.scv0_outfeed_ps;
  uint64_t d2d = t.send_duration_ps + t.recv_duration_ps + t.wait_for_megacore_fusion_peer_duration_ps;
  uint64_t non_compute_busy =
      t.crs_duration_ps + t.send_duration_ps + t.recv_duration_ps + t.scv0_infeed_transform_ps + t.scv0_outfeed_ps;
  uint64_t compute = t.tc_busy_ps > non_compute_busy ? t.tc_busy_ps - non_compute_busy : 0;
  return {compute, d2d, t.crs_duration_ps, 0, 0, input, output, 0, t.tc_idle_ps};
}

struct CoreRecord {
  const std::string* hostname;
  uint32_t chip_id;
  const StepInfo* step;
  BreakdownPs breakdown;
};

}  // namespace

std::string ConvertOpStatsToPodViewerJson(const OpStats& op_stats) {
  // step number -> core id -> record.
  std::map<int64_t, std::map<uint32_t, CoreRecord>> by_step;
  for (size_t h = 0; h < op_stats.steps.size(); ++h) {
    uint32_t core = static_cast<uint32_t>(h) * kMaxCoresPerHost + kDefaultGpuLocalCoreId;
    for (const StepInfo& s : op_stats.steps[h].steps) {
      by_step[s.step_num][core] = {&op_stats.steps[h].hostname, 0, &s, GenericBreakdownPs(s)};
    }
  }
  // TPU: the cores whose place is known, as xprof's pod stats.
  for (const PerCoreStepInfo& step : op_stats.tpu_step_db) {
    auto& cores = by_step[step.step_num];
    for (const auto& [core, info] : step.step_info_per_core) {
      auto details = op_stats.core_id_to_details.find(core);
      if (details == op_stats.core_id_to_details.end()) continue;
      cores[core] = {&details->second.hostname, details->second.global_chip_id, &info, TpuBreakdownPs(info)};
    }
  }
  std::string out = "{\"deviceType\":";
  AppendJsonString(out, op_stats.run_environment.device_type);
  out += ",\"podStatsSequence\":{\"podStatsMap\":[";
  bool first_step = true;
  for (const auto& [step_num, cores] : by_step) {
    if (!first_step) out += ",";
    first_step = false;
    out += "{\"stepNum\":" + std::to_string(step_num) + ",\"podStatsPerCore\":{";
    bool first_core = true;
    for (const auto& [core, record] : cores) {
      if (!first_core) out += ",";
      first_core = false;
      // The largest part, ties to the greater name (xprof sorts (ps, name)).
      size_t worst = 0;
      for (size_t i = 1; i < record.breakdown.size(); ++i) {
        if (std::pair(record.breakdown[i], std::string_view(kGenericEventNames[i])) >
            std::pair(record.breakdown[worst], std::string_view(kGenericEventNames[worst]))) {
          worst = i;
        }
      }
      out += "\"" + std::to_string(core) + "\":{\"hostName\":";
      AppendJsonString(out, *record.hostname);
      out += ",\"chipId\":" + std::to_string(record.chip_id) +
             ",\"nodeId\":" + std::to_string(core / kMaxCoresPerHost) +
             ",\"stepNum\":" + std::to_string(step_num) +
             ",\"totalDurationUs\":" + JsonNumber(static_cast<double>(record.step->duration_ps) / 1e6) +
             ",\"stepBreakdownUs\":{";
      for (size_t i = 0; i < record.breakdown.size(); ++i) {
        if (i) out += ",";
        out += "\"" + std::to_string(i + 1) + "\":" + JsonNumber(static_cast<double>(record.breakdown[i]) / 1e6);
      }
      AppendJsonStringMember(out, "},\"bottleneck\":", kGenericEventNames[worst]);
      out += "}";
    }
    out += "}}";
  }
  out += "]},\"summary\":{\"warnings\":[]},\"diagnostics\":{\"info\":[],\"warnings\":[";
  if (by_step.empty()) AppendJsonString(out, NoStepWarning(op_stats));
  out += "],\"errors\":[]},\"stepBreakdownEvents\":[";
  for (size_t i = 0; i < kGenericEventNames.size(); ++i) {
    if (i) out += ",";
    out += "{\"id\":" + std::to_string(i + 1) + ",\"name\":";
    AppendJsonString(out, kGenericEventNames[i]);
    out += "}";
  }
  out += "]}";
  return out;
}

}  // namespace tbprof
