#include "convert/analysis/op_stats/xplane_to_run_environment.h"

#include <optional>

#include "convert/analysis/device/device_peaks.h"
#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/op_stats/model_tracker.h"
#include "convert/model/schema.h"

namespace tbprof {
namespace {

std::string_view PlaneStrStat(const XSpaceModel& space, const XPlaneModel& p, std::string_view name) {
  StrId id = space.Find(name);
  const Stat* s = id == kNoStr ? nullptr : p.FindPlaneStat(id);
  return s && s->kind == StatKind::kStr ? space.Str(s->str) : std::string_view();
}

int PlaneIntStat(const XSpaceModel& space, const XPlaneModel& p, std::string_view name) {
  StrId id = space.Find(name);
  const Stat* s = id == kNoStr ? nullptr : p.FindPlaneStat(id);
  return s ? static_cast<int>(s->IntValue()) : 0;
}

const Stat* PlaneStat(const XSpaceModel& space, const XPlaneModel& p, std::string_view name) {
  StrId id = space.Find(name);
  return id == kNoStr ? nullptr : p.FindPlaneStat(id);
}

// The profiler writes both stats when the session ends; a profile without
// them (older profilers, other writers) has no known session.
std::optional<RunEnvironment::Session> ProfilerSession(const XSpaceModel& space) {
  const XPlaneModel* env = space.FindPlane(schema::kTaskEnvironmentPlane);
  if (env == nullptr) return std::nullopt;
  const Stat* start = PlaneStat(space, *env, schema::kProfileStartTime);
  const Stat* stop = PlaneStat(space, *env, schema::kProfileStopTime);
  if (start == nullptr || stop == nullptr || start->UintValue() == 0 || stop->UintValue() < start->UintValue()) {
    return std::nullopt;
  }
  return RunEnvironment::Session{start->UintValue(), stop->UintValue()};
}

}  // namespace

RunEnvironment ConvertXSpaceToRunEnvironment(const XSpaceModel& space, const HloPrograms& programs) {
  RunEnvironment env;
  const std::string hostname = space.hostnames.empty() ? "localhost" : space.hostnames[0];
  env.hostnames.insert(hostname);
  if (auto session = ProfilerSession(space)) env.sessions[hostname] = *session;
  if (!programs.empty()) env.is_training = IsTraining(programs);
  env.host_count = 1;
  env.task_count = 1;
  int gpus = 0, tpus = 0;
  const XPlaneModel* first_gpu = nullptr;
  const XPlaneModel* first_tpu = nullptr;
  for (const XPlaneModel& p : space.planes) {
    std::string_view n = space.Str(p.name);
    if (schema::IsGpuPlane(n)) {
      ++gpus;
      if (!first_gpu) first_gpu = &p;
    }
    if (schema::IsTpuCorePlane(n)) {
      ++tpus;
      if (!first_tpu) first_tpu = &p;
    }
  }
  if (first_tpu) {
    // xprof takes TPU planes first: a TPU host may also carry GPU-like planes.
    env.hardware_type = "TPU";
    std::string_view type = PlaneStrStat(space, *first_tpu, schema::kDeviceTypeString);
    env.device_type = type.empty() ? "TPU" : std::string(type);
    env.device_core_count = tpus;
  } else if (first_gpu) {
    env.hardware_type = "GPU";
    env.device_core_count = gpus;
    // Collectors before the device_vendor stat (TensorFlow up to 2.5) were
    // CUDA's only, and a compute capability is CUDA's notion: Nvidia.
    std::string_view vendor = PlaneStrStat(space, *first_gpu, schema::kDeviceVendor);
    int major = PlaneIntStat(space, *first_gpu, schema::kComputeCapMajor);
    if (vendor.empty() && major > 0) vendor = schema::kVendorNvidia;
    std::string model = GpuModelName(vendor, major,
                                     PlaneIntStat(space, *first_gpu, schema::kComputeCapMinor),
                                     PlaneStrStat(space, *first_gpu, schema::kGpuDeviceName));
    // A plane without a known vendor (older collectors) is still a GPU.
    env.device_type = model.empty() ? "GPU" : model;
  }
  return env;
}

}  // namespace tbprof
