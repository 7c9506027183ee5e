#include "convert/analysis/op_stats/torch_overview.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "convert/base/cancellation.h"
#include "convert/model/kineto_names.h"
#include "convert/model/schema.h"

namespace tbprof {
namespace {

using Range = std::pair<int64_t, int64_t>;
using Ranges = std::vector<Range>;

// Sorted, disjoint, touching ranges joined.
Ranges Merge(Ranges r) {
  std::sort(r.begin(), r.end());
  Ranges out;
  for (const Range& x : r) {
    if (!out.empty() && x.first <= out.back().second) {
      out.back().second = std::max(out.back().second, x.second);
    } else {
      out.push_back(x);
    }
  }
  return out;
}

// The first of merged `r` that ends after `t`.
size_t FirstEndingAfter(const Ranges& r, int64_t t) {
  return static_cast<size_t>(
      std::upper_bound(r.begin(), r.end(), t, [](int64_t x, const Range& y) { return x < y.second; }) - r.begin());
}

// Both merged. Each side starts at the first range that can meet the other's
// first: a step's window against a whole trace's ranges costs its overlap, not
// the trace (a step at a time, that was steps × ranges).
Ranges Intersect(const Ranges& a, const Ranges& b) {
  Ranges out;
  if (a.empty() || b.empty()) return out;
  size_t i = FirstEndingAfter(a, b.front().first), j = FirstEndingAfter(b, a.front().first);
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo < hi) out.push_back({lo, hi});
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return out;
}

Ranges Subtract(const Ranges& a, const Ranges& b) {
  Ranges out;
  size_t j = 0;
  for (Range r : a) {
    while (j < b.size() && b[j].second <= r.first) ++j;
    size_t k = j;
    while (k < b.size() && b[k].first < r.second) {
      if (b[k].first > r.first) out.push_back({r.first, b[k].first});
      r.first = std::max(r.first, b[k].second);
      ++k;
    }
    if (r.first < r.second) out.push_back(r);
  }
  return out;
}

int64_t Sum(const Ranges& r) {
  int64_t s = 0;
  for (const Range& x : r) s += x.second - x.first;
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

struct DeviceOp {
  int64_t begin, end;
};

struct Runtime {
  int64_t begin, end;
  int64_t correlation;
  int64_t external;  // -1: none
};

// A compute kernel, its precision by name and what links it to its op.
struct ComputeKernel {
  int64_t begin, end;
  TorchPrecision by_name;
  int64_t external, correlation;  // -1: none
};

// What the overview reads of the model, in torch-tb-profiler's event types.
struct Events {
  Ranges roles[kTorchRoles - 1];
  std::vector<TorchStep> steps;
  std::vector<Runtime> runtimes;
  std::unordered_map<int64_t, std::vector<uint32_t>> device_ops_of_correlation;
  std::vector<DeviceOp> device_ops;
  Ranges collective_kernels;
  std::vector<ComputeKernel> compute_kernels;
  std::unordered_map<int64_t, TorchPrecision> precision_of_external;  // by the op's input types
  int64_t host_min = std::numeric_limits<int64_t>::max(), host_max = std::numeric_limits<int64_t>::min();
};

// The `cat` the importer kept, per event metadata.
std::vector<std::string> CategoriesOf(const XSpaceModel& space, const XPlaneModel& p, StrId cat_stat) {
  std::vector<std::string> cats(p.event_metadata.size());
  for (size_t m = 0; m < p.event_metadata.size(); ++m) {
    auto [b, e] = p.MetadataStatsOf(static_cast<uint32_t>(m));
    for (const Stat* s = b; s != e; ++s) {
      if (s->name == cat_stat && s->kind == StatKind::kStr) cats[m] = Lower(space.Str(s->str));
    }
  }
  return cats;
}

int64_t IntStatOr(const XPlaneModel& p, uint32_t e, StrId name, int64_t otherwise) {
  const Stat* s = name == kNoStr ? nullptr : p.FindStat(e, name);
  return s != nullptr && s->IsInteger() ? s->IntValue() : otherwise;
}

void ReadHost(const XSpaceModel& space, const XPlaneModel& p, StrId cat_stat, StrId correlation, Events& ev) {
  const std::vector<std::string> cats = CategoriesOf(space, p, cat_stat);
  const StrId external = space.Find(schema::kKinetoExternalId), input_type = space.Find(schema::kKinetoInputType);
  CancellationPoll cancel;
  for (uint32_t e = 0; e < p.events.size(); ++e) {
    if (cancel.Due()) return;  // the caller discards what was read
    const std::string& cat = cats[p.events[e].metadata];
    std::string_view name = space.Str(p.EventName(e));
    const int64_t b = p.events[e].begin_ps, en = p.events[e].end_ps();
    const bool op = cat == "cpu_op" || cat == "operator";
    const bool annotation = cat == "user_annotation";
    const bool python = cat == "python";  // PyTorch ≤1.9's Python ops (not python_function)
    if ((op || annotation) && name.starts_with("ProfilerStep#")) {
      TorchStep s;
      s.name = std::string(name.substr(13));
      for (char c : s.name) s.number = c >= '0' && c <= '9' ? s.number * 10 + (c - '0') : s.number;
      s.begin_ps = b;
      s.end_ps = en;
      ev.steps.push_back(s);
    } else if ((op || annotation) && name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) {
      ev.roles[kTorchDataLoader].push_back({b, en});
    } else if ((op || annotation) && IsCommunicationOp(name)) {
      ev.roles[kTorchCommunication].push_back({b, en});
    } else if (op || python || annotation) {
      // record_function ranges are host code the user marked: torch-tb-profiler's CPU Exec.
      ev.roles[kTorchCpuExec].push_back({b, en});
    } else if (cat == "cuda_runtime" || cat == "runtime") {
      ev.roles[kTorchRuntime].push_back({b, en});
      ev.runtimes.push_back({b, en, IntStatOr(p, e, correlation, -1), IntStatOr(p, e, external, -1)});
    }
    if (op && input_type != kNoStr) {
      const Stat* t = p.FindStat(e, input_type);
      const int64_t id = IntStatOr(p, e, external, -1);
      if (t != nullptr && t->kind == StatKind::kStr && id > 0) {
        ev.precision_of_external[id] = PrecisionOfInputTypes(space.Str(t->str));
      }
    }
    if (op || python) {
      ev.host_min = std::min(ev.host_min, b);
      ev.host_max = std::max(ev.host_max, en);
    }
  }
}

// Kernels, copies and sets of one GPU plane; the kernels' figures go to `gpu`.
struct KernelSample {
  int64_t begin, end;
  std::optional<double> blocks_per_sm, occupancy;
};

void ReadDevice(const XSpaceModel& space, const XPlaneModel& p, StrId cat_stat, StrId correlation, Events& ev,
                std::vector<KernelSample>& kernels) {
  const std::vector<std::string> cats = CategoriesOf(space, p, cat_stat);
  const StrId blocks = space.Find(schema::kKinetoBlocksPerSm), occupancy = space.Find(schema::kKinetoOccupancy);
  const StrId external = space.Find(schema::kKinetoExternalId);
  CancellationPoll cancel;
  for (uint32_t e = 0; e < p.events.size(); ++e) {
    if (cancel.Due()) return;  // the caller discards what was read
    const std::string& cat = cats[p.events[e].metadata];
    TorchRole role = kTorchOther;
    const bool kernel = cat == "kernel";
    if (kernel) role = IsCommunicationKernel(space.Str(p.EventName(e))) ? kTorchCommunication : kTorchKernel;
    if (cat == "memcpy" || cat == "gpu_memcpy") role = kTorchMemcpy;
    if (cat == "memset" || cat == "gpu_memset") role = kTorchMemset;
    if (role == kTorchOther) continue;
    const int64_t b = p.events[e].begin_ps, en = p.events[e].end_ps();
    ev.roles[role].push_back({b, en});
    if (role == kTorchCommunication) ev.collective_kernels.push_back({b, en});
    if (role == kTorchKernel) {
      ev.compute_kernels.push_back({b, en, PrecisionOfKernelName(space.Str(p.EventName(e))),
                                    IntStatOr(p, e, external, -1), IntStatOr(p, e, correlation, -1)});
    }
    const Stat* c = correlation == kNoStr ? nullptr : p.FindStat(e, correlation);
    if (c != nullptr) ev.device_ops_of_correlation[c->IntValue()].push_back(static_cast<uint32_t>(ev.device_ops.size()));
    ev.device_ops.push_back({b, en});
    if (kernel) {  // collectives too: torch-tb-profiler's GPU figures count every kernel
      KernelSample k{b, en, std::nullopt, std::nullopt};
      if (const Stat* s = blocks == kNoStr ? nullptr : p.FindStat(e, blocks)) k.blocks_per_sm = s->DoubleValue();
      if (const Stat* s = occupancy == kNoStr ? nullptr : p.FindStat(e, occupancy)) k.occupancy = s->DoubleValue();
      kernels.push_back(k);
    }
  }
}

// Steps in device time, and the trailing ones the profiler cut short dropped.
void MoveStepsToDeviceTime(Events& ev) {
  std::vector<TorchStep>& steps = ev.steps;
  std::stable_sort(steps.begin(), steps.end(), [](const TorchStep& a, const TorchStep& b) { return a.begin_ps < b.begin_ps; });
  std::stable_sort(ev.runtimes.begin(), ev.runtimes.end(), [](const Runtime& a, const Runtime& b) { return a.begin < b.begin; });
  constexpr int64_t kNoTime = std::numeric_limits<int64_t>::max();
  std::vector<Range> device_span(steps.size(), {kNoTime, std::numeric_limits<int64_t>::min()});
  std::vector<size_t> matched(steps.size(), 0);
  std::vector<uint8_t> in_a_step(ev.device_ops.size(), 0);
  // A runtime wholly inside a host step launched its device ops for that step.
  size_t r = 0;
  for (size_t s = 0; s < steps.size(); ++s) {
    while (r < ev.runtimes.size() && ev.runtimes[r].begin < steps[s].begin_ps) ++r;
    for (size_t k = r; k < ev.runtimes.size() && ev.runtimes[k].begin < steps[s].end_ps; ++k) {
      if (ev.runtimes[k].end > steps[s].end_ps) continue;
      auto it = ev.device_ops_of_correlation.find(ev.runtimes[k].correlation);
      if (it == ev.device_ops_of_correlation.end()) continue;
      for (uint32_t d : it->second) {
        device_span[s].first = std::min(device_span[s].first, ev.device_ops[d].begin);
        device_span[s].second = std::max(device_span[s].second, ev.device_ops[d].end);
        in_a_step[d] = 1;
        ++matched[s];
      }
    }
  }
  const bool uses_gpu = std::any_of(matched.begin(), matched.end(), [](size_t m) { return m > 0; });
  if (!uses_gpu || steps.empty()) return;
  int64_t prev_end = steps[0].begin_ps;
  if (device_span[0].first != kNoTime) {
    // Work launched before the first step that ends before its device work began delays that step.
    for (size_t d = 0; d < ev.device_ops.size(); ++d) {
      if (!in_a_step[d] && ev.device_ops[d].end < device_span[0].first) prev_end = std::max(prev_end, ev.device_ops[d].end);
    }
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    int64_t begin = std::max(prev_end, steps[s].begin_ps);
    int64_t end = device_span[s].first == kNoTime ? std::max(steps[s].end_ps, begin)
                                                   : std::max({steps[s].end_ps, device_span[s].second, begin});
    steps[s].begin_ps = begin;
    steps[s].end_ps = end;
    prev_end = end;
  }
  if (steps.size() > 1) {
    size_t last = steps.size();
    while (last > 0 && matched[last - 1] == 0) --last;
    if (last > 0) {
      size_t keep = last;
      if (last > 1 && static_cast<double>(matched[last - 2]) * 0.8 > static_cast<double>(matched[last - 1])) keep = last - 1;
      steps.resize(keep);
    }
  }
}

// Σ over time slices of min(Σ blocks per SM of the kernels running, 1), within `window`.
double SmEfficiencyPs(const std::vector<KernelSample>& kernels, Range window) {
  std::vector<std::pair<int64_t, double>> edges;  // (time, +/- blocks per SM), starts before ends
  for (const KernelSample& k : kernels) {
    if (!k.blocks_per_sm || *k.blocks_per_sm <= 0) continue;
    edges.push_back({k.begin, *k.blocks_per_sm});
    edges.push_back({k.end, -*k.blocks_per_sm});
  }
  std::sort(edges.begin(), edges.end(), [](const std::pair<int64_t, double>& x, const std::pair<int64_t, double>& y) {
    if (x.first != y.first) return x.first < y.first;
    const bool x_starts = x.second > 0, y_starts = y.second > 0;
    return x_starts && !y_starts;
  });
  double total = 0, level = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    if (i > 0 && edges[i].first > edges[i - 1].first && level > 0) {
      int64_t lo = std::max(edges[i - 1].first, window.first), hi = std::min(edges[i].first, window.second);
      if (lo < hi) total += std::min(level, 1.0) * static_cast<double>(hi - lo);
    }
    level += edges[i].second;
  }
  return total;
}

// Compute kernel time within `window` by precision: the kernel's name, else
// the input types of the op that launched it (its External id, else its
// launch's).
void AddKernelPrecision(const Events& ev, Range window, TorchOverview& out) {
  std::unordered_map<int64_t, int64_t> external_of_correlation;
  for (const Runtime& r : ev.runtimes) {
    if (r.correlation >= 0 && r.external > 0) external_of_correlation[r.correlation] = r.external;
  }
  for (const ComputeKernel& k : ev.compute_kernels) {
    const int64_t lo = std::max(k.begin, window.first), hi = std::min(k.end, window.second);
    if (lo >= hi) continue;
    TorchPrecision precision = k.by_name;
    if (precision == TorchPrecision::kUnknown) {
      int64_t external = k.external;
      if (external <= 0) {
        auto it = external_of_correlation.find(k.correlation);
        external = it == external_of_correlation.end() ? -1 : it->second;
      }
      auto it = ev.precision_of_external.find(external);
      if (it != ev.precision_of_external.end()) precision = it->second;
    }
    out.kernel_ps_of_precision[static_cast<int>(precision)] += hi - lo;
  }
}

}  // namespace

TorchPrecision PrecisionOfKernelName(std::string_view kernel_name) {
  const std::string name = Lower(kernel_name);
  auto has = [&](std::string_view part) { return name.find(part) != std::string::npos; };
  for (std::string_view part : {"bf16", "f16", "half", "bfloat16", "h884", "h1688", "hmma", "e4m3", "e5m2", "fp8",
                                "int8", "i8816", "i16832"}) {
    if (has(part)) return TorchPrecision::k16Bit;
  }
  for (std::string_view part : {"float", "f32", "tf32", "sgemm", "double", "f64", "dgemm"}) {
    if (has(part)) return TorchPrecision::k32Bit;
  }
  return TorchPrecision::kUnknown;
}

TorchPrecision PrecisionOfInputTypes(std::string_view input_types) {
  for (std::string_view t : {"BFloat16", "Half", "Float8"}) {
    if (input_types.find(t) != std::string_view::npos) return TorchPrecision::k16Bit;
  }
  for (std::string_view t : {"\"float\"", "\"double\""}) {
    if (input_types.find(t) != std::string_view::npos) return TorchPrecision::k32Bit;
  }
  return TorchPrecision::kUnknown;
}

bool IsCommunicationKernel(std::string_view kernel_name) {
  const std::string name = Lower(kernel_name);
  return name.starts_with("nccl") || name.starts_with("rccl");
}

bool IsCommunicationOp(std::string_view op_name) {
  return op_name.starts_with("nccl:") || op_name.starts_with("c10d::");
}

TorchOverview ComputeTorchOverview(const XSpaceModel& space) {
  TorchOverview out;
  const StrId cat_stat = space.Find(schema::kKinetoCategory);
  const StrId correlation = space.Find(schema::kCorrelationId);
  Events ev;
  std::map<int64_t, std::vector<KernelSample>> kernels_of_device;
  for (const XPlaneModel& p : space.planes) {
    std::string_view name = space.Str(p.name);
    if (name == schema::kHostPlane) ReadHost(space, p, cat_stat, correlation, ev);
    if (schema::IsGpuPlane(name)) {
      int64_t device = 0;
      for (char c : name.substr(schema::kGpuPlanePrefix.size())) device = device * 10 + (c - '0');
      ReadDevice(space, p, cat_stat, correlation, ev, kernels_of_device[device]);
    }
  }
  out.has_device_ops = !ev.device_ops.empty();
  if (ev.steps.empty()) {
    if (ev.host_min > ev.host_max) return out;  // no operator at all: no step
    TorchStep whole;
    whole.name = "0";
    whole.begin_ps = ev.host_min;
    whole.end_ps = ev.host_max;
    ev.steps.push_back(whole);
  }
  MoveStepsToDeviceTime(ev);
  if (ev.steps.empty()) return out;
  // Priority accounting over the union of the steps.
  Ranges slots;
  for (const TorchStep& s : ev.steps) slots.push_back({s.begin_ps, s.end_ps});
  slots = Merge(std::move(slots));
  Ranges cost[kTorchRoles];
  for (int role = 0; role < kTorchOther; ++role) {
    cost[role] = Intersect(slots, Merge(std::move(ev.roles[role])));
    slots = Subtract(slots, cost[role]);
  }
  cost[kTorchOther] = slots;
  const Ranges collective_kernels = Merge(std::move(ev.collective_kernels));
  for (TorchStep& s : ev.steps) {
    const Ranges step = {{s.begin_ps, s.end_ps}};
    for (int role = 0; role < kTorchRoles; ++role) {
      s.role_ranges[role] = Intersect(step, cost[role]);
      s.role_ps[role] = Sum(s.role_ranges[role]);
    }
    s.device_communication = Intersect(s.role_ranges[kTorchCommunication], collective_kernels);
    out.average_step_ps += static_cast<double>(s.end_ps - s.begin_ps);
    for (int role = 0; role < kTorchRoles; ++role) out.average_role_ps[role] += static_cast<double>(s.role_ps[role]);
  }
  const double n = static_cast<double>(ev.steps.size());
  out.average_step_ps /= n;
  for (double& v : out.average_role_ps) v /= n;
  out.steps = ev.steps;
  // GPU figures over [first step start, last step end].
  const Range window{out.steps.front().begin_ps, out.steps.back().end_ps};
  const double window_ps = static_cast<double>(window.second - window.first);
  AddKernelPrecision(ev, window, out);
  for (auto& [device, kernels] : kernels_of_device) {
    if (kernels.empty() || window_ps <= 0) continue;
    TorchGpuMetrics g;
    g.device = device;
    Ranges busy;
    for (const KernelSample& k : kernels) busy.push_back({k.begin, k.end});
    g.utilization = static_cast<double>(Sum(Intersect(Merge(std::move(busy)), {window}))) / window_ps;
    const bool has_blocks = std::any_of(kernels.begin(), kernels.end(), [](const KernelSample& k) { return k.blocks_per_sm.has_value(); });
    if (has_blocks) g.sm_efficiency = SmEfficiencyPs(kernels, window) / window_ps;
    double weighted = 0, time = 0;
    for (const KernelSample& k : kernels) {
      int64_t lo = std::max(k.begin, window.first), hi = std::min(k.end, window.second);
      if (!k.occupancy || *k.occupancy < 0 || lo >= hi) continue;
      weighted += *k.occupancy * static_cast<double>(hi - lo);
      time += static_cast<double>(hi - lo);
    }
    if (time > 0) g.achieved_occupancy = weighted / time;
    out.gpus.push_back(g);
  }
  return out;
}

StepEvents TorchStepEvents(const TorchOverview& overview) {
  static constexpr int kTypeOfRole[kTorchRoles] = {DEVICE_COMPUTE_32, DEVICE_COLLECTIVES, DEVICE_TO_DEVICE,
                                                   DEVICE_TO_DEVICE,  HOST_PREPARE,       HOST_WAIT_INPUT,
                                                   HOST_COMPUTE,      UNKNOWN_TIME};
  StepEvents out;
  for (const TorchStep& s : overview.steps) {
    GroupStepEvents& g = out[s.number];
    g.step_name = s.name;
    g.device_markers.push_back(Span{s.begin_ps, s.end_ps});
    for (int role = 0; role < kTorchRoles; ++role) {
      if (role == kTorchCommunication) continue;
      for (const auto& [b, e] : s.role_ranges[role]) g.events.push_back({kTypeOfRole[role], Span{b, e}});
    }
    // Device collectives are the collective kernels' time; the rest of
    // Communication is the host inside a collective call, host compute.
    for (const auto& [b, e] : s.device_communication) g.events.push_back({DEVICE_COLLECTIVES, Span{b, e}});
    for (const auto& [b, e] : Subtract(s.role_ranges[kTorchCommunication], s.device_communication)) {
      g.events.push_back({HOST_COMPUTE, Span{b, e}});
    }
  }
  return out;
}

TorchStepTable TorchStepTableOf(const TorchOverview& overview) {
  static constexpr TorchRole kColumns[] = {kTorchKernel,  kTorchMemcpy,     kTorchMemset,  kTorchCommunication,
                                           kTorchRuntime, kTorchDataLoader, kTorchCpuExec, kTorchOther};
  TorchStepTable out;
  for (TorchRole role : kColumns) out.categories.push_back(kTorchRoleNames[role]);
  for (const TorchStep& s : overview.steps) {
    out.step_names.push_back(s.name);
    std::vector<double>& ms = out.category_ms.emplace_back();
    for (TorchRole role : kColumns) ms.push_back(static_cast<double>(s.role_ps[role]) / 1e9);
  }
  return out;
}

TorchGpuSummary TorchGpuSummaryOf(const TorchOverview& overview) {
  TorchGpuSummary out;
  auto mean = [&](auto figure_of) -> std::optional<double> {
    double sum = 0;
    int n = 0;
    for (const TorchGpuMetrics& g : overview.gpus) {
      if (std::optional<double> v = figure_of(g)) {
        sum += *v;
        ++n;
      }
    }
    return n > 0 ? std::optional<double>(sum / n) : std::nullopt;
  };
  // utilization and SM efficiency are fractions; occupancy is in percent already.
  out.utilization_percent = mean([](const TorchGpuMetrics& g) { return std::optional<double>(100.0 * g.utilization); });
  out.sm_efficiency_percent = mean([](const TorchGpuMetrics& g) {
    return g.sm_efficiency ? std::optional<double>(100.0 * *g.sm_efficiency) : std::nullopt;
  });
  out.achieved_occupancy_percent = mean([](const TorchGpuMetrics& g) { return g.achieved_occupancy; });
  return out;
}

}  // namespace tbprof
