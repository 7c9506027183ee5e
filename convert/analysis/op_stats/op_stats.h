// OpStats: the per-host intermediate every step/op tool is computed from
// (xprof op_stats.proto, reduced to what overview_page, input_pipeline_analyzer,
// framework_op_stats, kernel_stats and pod_viewer read). Computed once per host
// file, combined across hosts for ALL_HOSTS.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/device/device_peaks.h"
#include "proto/kernel_stats.pb.h"

namespace tbprof {

// event_span.h EventType; a bigger number wins in overlap removal.
enum EventType : int {
  UNKNOWN_TIME = 0,
  HOST_COMPUTE = 10,
  HOST_PREPROCESS = 20,
  HOST_POSTPROCESS = 30,
  HOST_BATCH_FORMATION = 40,
  HOST_RUNTIME = 50,
  HOST_COMPILE = 60,
  HOST_TO_HOST = 70,
  HOST_TO_DEVICE = 80,
  HOST_PREPARE = 90,
  DEVICE_COLLECTIVES = 100,
  HOST_WAIT_INPUT = 110,
  DEVICE_TO_DEVICE = 120,
  DEVICE_TO_HOST = 130,
  DEVICE_COMPUTE_32 = 140,
  DEVICE_COMPUTE_16 = 150,
  DEVICE_WAIT_DEVICE = 160,
  DEVICE_WAIT_HOST = 170,
};

struct OpMetrics {
  std::string name;
  std::string category;    // framework op type, HLO category, "IDLE"
  std::string provenance;  // framework op full name of a device op ("name:type")
  // An HLO op's program id, a host input-pipeline stage's op its stage id:
  // xprof keeps such rows apart by it (OpKey). 0 for every other op.
  int64_t hlo_module_id = 0;
  bool is_eager = false;
  uint64_t occurrences = 0;
  uint64_t time_ps = 0;
  uint64_t self_time_ps = 0;
  uint64_t min_time_ps = 0;
  double flops = 0;
  uint64_t bytes_accessed = 0;
  // Some run's FLOPs could not be told (a custom call the cost model cannot
  // count, with no FLOPs from the profiler): `flops` is then a lower bound.
  bool flops_unknown = false;
};

// The key of an op in OpMetricsDb::ops: its name, and where it has one the
// id that keeps it apart from ops of the same name, as xprof keys its rows by
// (program or stage id, name). "fusion.1" of one XLA program is not
// "fusion.1" of another: each has its own framework op and its own count.
inline std::string OpKey(std::string_view name, std::optional<int64_t> id) {
  std::string key(name);
  if (id) key += '\x1f' + std::to_string(*id);
  return key;
}

struct OpMetricsDb {
  // By OpKey: the op's name, with the program id of an HLO op or the stage id
  // of an input-pipeline stage; includes "IDLE" when computed.
  std::map<std::string, OpMetrics> ops;
  uint64_t total_time_ps = 0;             // incl. idle
  uint64_t total_op_time_ps = 0;          // sum of self times of non-idle ops
  // Device duty cycle (DutyCycleTracker, summed over chips): time some op or
  // kernel ran, and the rest of the devices' traced time. Both 0 when no
  // device was traced: the duty cycle is then unknown, not 0.
  uint64_t busy_time_ps = 0;
  uint64_t idle_time_ps = 0;
  // Host TF ops: over each thread's consecutive InfeedEnqueue ops, the time
  // they ran and the time from one's start to the next's (xprof's estimate
  // of the host's share of time spent sending input to a TPU).
  uint64_t total_host_infeed_enq_duration_ps = 0;
  uint64_t total_host_infeed_enq_start_timestamp_ps_diff = 0;
};

// Core ids (xprof): a TPU TensorCore's is its plane id, a SparseCore's
// kSparseCoreIndexStart + its plane id; generic hardware (GPU, CPU) keeps a
// host's steps under kDefaultGpuLocalCoreId. Once hosts are combined, a core
// of host h is h * kMaxCoresPerHost + its id on the host (GlobalCoreId).
inline constexpr uint32_t kSparseCoreIndexStart = 1000000;
inline constexpr uint32_t kDefaultGpuLocalCoreId = 1;
inline constexpr uint32_t kMaxCoresPerHost = 1000;
inline constexpr char kIdleCategory[] = "IDLE";
// Whether a row of an op table is its IDLE row.
inline bool IsIdle(const OpMetrics& m) { return m.category == kIdleCategory; }

// One step on one host or core (xprof StepInfoResult). Its breakdown is
// either by event type (generic hardware) or, on a TPU core, by HLO category.
struct StepInfo {
  int64_t step_num = 0;
  std::string step_name;
  int64_t begin_ps = 0;
  uint64_t duration_ps = 0;
  std::map<int, uint64_t> type_ps;  // EventType -> ps inside the step
  // TPU core: self time of the step's ops by HLO category, and "IDLE": the
  // step's duration minus that sum, in unsigned arithmetic as xprof's
  // (ops that outlast their step make it wrap around).
  std::map<std::string, uint64_t> category_ps;
};

// One all-reduce on a core (xprof AllReduceInfo): the same id on every core.
struct AllReduceInfo {
  uint64_t id = 0;
  uint64_t start_time_ps = 0, end_time_ps = 0;
};

// One TPU step on every core that took part (xprof PerCoreStepInfo).
struct PerCoreStepInfo {
  int64_t step_num = 0;
  std::map<uint32_t, StepInfo> step_info_per_core;
  std::map<uint32_t, std::vector<AllReduceInfo>> all_reduce_per_core;
};

// Where a core is (xprof CoreDetails, read from a TPU plane's core_details).
struct CoreDetails {
  std::string hostname;
  uint32_t device_ordinal = 0, core_num = 0, local_chip_id = 0, global_chip_id = 0, global_core_id = 0;
  bool is_sparse_core = false;
};

// Steps of one host (or of a device core, TPU).
struct HostSteps {
  std::string hostname;
  std::vector<StepInfo> steps;
};

struct RunEnvironment {
  std::set<std::string> hostnames;
  int host_count = 0;
  int task_count = 0;
  std::string device_type = "CPU";
  std::string hardware_type = "CPU_ONLY";  // CPU_ONLY, GPU, TPU
  int device_core_count = 0;
  // Whether an HLO module of the profile computes gradients (xprof's
  // ModelTracker); empty when the profile has no HLO module to tell by.
  std::optional<bool> is_training;
  // The profiler session of each host, from the Task Environment plane's
  // profile_start_time / profile_stop_time (walltime ns); hosts whose profile
  // does not record them are absent.
  struct Session {
    uint64_t start_ns = 0;
    uint64_t stop_ns = 0;
  };
  std::map<std::string, Session> sessions;
};

// torch-tb-profiler's GPU figures of a PyTorch (Kineto) trace, in percent
// over its steps (the mean over the trace's GPUs); each absent when the
// trace lacks what it is computed from. xprof's overview has no field for
// them: they travel as extra properties of its analysis table.
struct TorchGpuSummary {
  std::optional<double> utilization_percent, sm_efficiency_percent, achieved_occupancy_percent;
};

// A PyTorch trace's steps in torch-tb-profiler's categories (Kernel, Memcpy,
// Memset, Communication, Runtime, DataLoader, CPU Exec, Other), in ms: the
// step breakdown its pages show in place of xprof's TensorFlow categories.
struct TorchStepTable {
  std::vector<std::string> categories;
  std::vector<std::string> step_names;
  std::vector<std::vector<double>> category_ms;  // [step][category]
};

struct OpStats {
  OpMetricsDb host_op_metrics_db;
  OpMetricsDb device_op_metrics_db;
  // device_op_metrics_db rolled up to framework ops, with IDLE; computed once
  // here rather than per request (CreateTfMetricsDbFromDeviceOpMetricsDb).
  OpMetricsDb device_tf_op_metrics_db;
  // Generic hardware (GPU, CPU): steps[i] holds host i's steps (xprof's
  // core kDefaultGpuLocalCoreId of that host); after combining, steps of the
  // same number share an index across hosts (intersection by time).
  std::vector<HostSteps> steps;
  // TPU: the steps every core took part in, each core's part on its own
  // (xprof step_db.step_sequence); `steps` stays empty.
  std::vector<PerCoreStepInfo> tpu_step_db;
  // Several hosts had steps but no step in common (xprof's
  // step_db.empty_intersect): the combined profile has none.
  bool empty_step_intersection = false;
  // TPU cores whose plane says where they are (xprof core_id_to_details).
  std::map<uint32_t, CoreDetails> core_id_to_details;
  tensorflow::profiler::KernelStatsDb kernel_stats_db;
  RunEnvironment run_environment;
  // The devices' peak FLOP rate and memory bandwidths (xprof's PerfEnv): the
  // roofs each op's "Bound by" is judged against.
  DevicePeaks peaks;
  uint64_t compute_16bit_ps = 0;
  uint64_t compute_32bit_ps = 0;
  // Device compute time of a precision no record tells (PyTorch kernels named
  // without a type, of ops without input types): left out of the split.
  uint64_t compute_unknown_precision_ps = 0;
  std::vector<std::string> errors, warnings;
  // Set for a PyTorch trace only (one trace: not combined across traces).
  std::optional<TorchGpuSummary> torch_gpu;
  std::optional<TorchStepTable> torch_steps;

  size_t ApproxBytes() const;
};

}  // namespace tbprof
