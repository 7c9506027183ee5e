#include "convert/analysis/op_stats_to_pod_viewer.h"

#include <array>
#include <map>

#include "convert/base/data_table.h"
#include "convert/base/json.h"

namespace tbprof {
namespace {

// GenericEventType ids 1..9 and their display names.
constexpr std::array<const char*, 9> kGenericEventNames = {
    "Device compute", "Device to device", "Device collective communication", "Host compute", "Kernel launch",
    "Input",          "Output",           "Compilation",                     "All others"};
// Core ids per host: kDefaultGpuLocalCoreId (1) offset by host.
constexpr uint32_t kMaxCoresPerHost = 1000;
constexpr uint32_t kDefaultGpuLocalCoreId = 1;

std::array<double, 9> GenericBreakdownUs(const StepInfo& s) {
  auto ps = [&](int t) {
    auto it = s.type_ps.find(t);
    return it == s.type_ps.end() ? 0.0 : static_cast<double>(it->second);
  };
  std::array<double, 9> us = {
      ps(DEVICE_COMPUTE_16) + ps(DEVICE_COMPUTE_32),
      ps(DEVICE_TO_DEVICE) + ps(DEVICE_WAIT_DEVICE),
      ps(DEVICE_COLLECTIVES),
      ps(HOST_COMPUTE),
      ps(HOST_PREPARE),
      ps(HOST_WAIT_INPUT) + ps(HOST_TO_DEVICE) + ps(DEVICE_WAIT_HOST),
      ps(DEVICE_TO_HOST),
      ps(HOST_COMPILE),
      ps(UNKNOWN_TIME)};
  for (double& v : us) v /= 1e6;
  return us;
}

}  // namespace

std::string ConvertOpStatsToPodViewerJson(const OpStats& op_stats) {
  // step number -> (core id -> (host, step)).
  std::map<int64_t, std::map<uint32_t, std::pair<const std::string*, const StepInfo*>>> by_step;
  for (size_t h = 0; h < op_stats.steps.size(); ++h) {
    uint32_t core = static_cast<uint32_t>(h) * kMaxCoresPerHost + kDefaultGpuLocalCoreId;
    for (const StepInfo& s : op_stats.steps[h].steps) {
      by_step[s.step_num][core] = {&op_stats.steps[h].hostname, &s};
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
    for (const auto& [core, host_step] : cores) {
      if (!first_core) out += ",";
      first_core = false;
      const StepInfo& s = *host_step.second;
      std::array<double, 9> us = GenericBreakdownUs(s);
      size_t worst = 0;
      for (size_t i = 1; i < us.size(); ++i) {
        if (us[i] > us[worst]) worst = i;
      }
      out += "\"" + std::to_string(core) + "\":{\"hostName\":";
      AppendJsonString(out, *host_step.first);
      out += ",\"chipId\":0,\"nodeId\":" + std::to_string(core / kMaxCoresPerHost) +
             ",\"stepNum\":" + std::to_string(step_num) +
             ",\"totalDurationUs\":" + JsonNumber(static_cast<double>(s.duration_ps) / 1e6) + ",\"stepBreakdownUs\":{";
      for (size_t i = 0; i < us.size(); ++i) {
        if (i) out += ",";
        out += "\"" + std::to_string(i + 1) + "\":" + JsonNumber(us[i]);
      }
      AppendJsonStringMember(out, "},\"bottleneck\":", kGenericEventNames[worst]);
      out += "}";
    }
    out += "}}";
  }
  out += "]},\"summary\":{\"warnings\":[]},\"diagnostics\":{\"info\":[],\"warnings\":[";
  if (by_step.empty()) out += "\"No step marker observed and hence the step time is unknown.\"";
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
