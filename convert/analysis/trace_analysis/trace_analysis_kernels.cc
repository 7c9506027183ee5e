#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <queue>
#include <unordered_map>
#include <utility>

#include "convert/analysis/op_names/tf_op_utils.h"
#include "convert/grouping/launch_table.h"
#include "convert/model/kineto_names.h"
#include "convert/model/schema.h"

namespace tbprof::trace_analysis {

std::string_view KernelTypeName(KernelType type) {
  switch (type) {
    case KernelType::kCommunication: return "COMMUNICATION";
    case KernelType::kMemory: return "MEMORY";
    case KernelType::kComputation: break;
  }
  return "COMPUTATION";
}

KernelType KernelTypeOfName(std::string_view name) {
  // NCCL's kernels ("ncclKernel_…", "ncclDevKernel_…") and RCCL's and HCCL's.
  if (name.starts_with("nccl") || name.starts_with("rccl") || name.starts_with("hccl") ||
      name.find("ncclKernel") != std::string_view::npos || name.find("ncclDevKernel") != std::string_view::npos) {
    return KernelType::kCommunication;
  }
  if (name.starts_with("Memcpy") || name.starts_with("Memset") || name.starts_with("hipMemcpy") ||
      name.starts_with("hipMemset") || name.starts_with("dma")) {
    return KernelType::kMemory;
  }
  return KernelType::kComputation;
}

bool IsCollectiveHloOp(std::string_view op) {
  for (std::string_view c : {"all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
                             "collective-broadcast", "ragged-all-to-all"}) {
    if (op.starts_with(c)) return true;
  }
  return false;
}

LaunchKind LaunchKindOfName(std::string_view n) {
  if (n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC") return LaunchKind::kKernel;
  if (n == "cudaMemcpyAsync" || n == "cudaMemsetAsync") return LaunchKind::kCopy;
  if (n == "cuLaunchKernel" || n == "cuLaunchKernelEx") return LaunchKind::kDriver;
  // The driver's asynchronous copies and sets that TensorFlow's and JAX's CUPTI traces hold
  // ("cuMemcpyHtoDAsync_v2", "cuMemsetD32Async", …).
  const bool async = n.find("Async") != std::string_view::npos;
  if ((n.starts_with("cuMemcpy") || n.starts_with("cuMemset")) && async) return LaunchKind::kDriver;
  if ((n.starts_with("hipMemcpy") || n.starts_with("hipMemset")) && async) return LaunchKind::kHip;
  if (n == "hipLaunchKernel" || n == "hipExtLaunchKernel" || n == "hipModuleLaunchKernel" ||
      n == "hipExtModuleLaunchKernel" || n == "hipMemcpyWithStream" || n == "hipLaunchCooperativeKernel") {
    return LaunchKind::kHip;
  }
  return LaunchKind::kOther;
}

std::optional<int64_t> StatedRankOfModel(const XSpaceModel& space) {
  for (std::string_view h : space.hostnames) {
    if (!h.starts_with("rank ")) continue;
    int64_t r = 0;
    auto [p, ec] = std::from_chars(h.data() + 5, h.data() + h.size(), r);
    if (ec == std::errc() && p == h.data() + h.size()) return r;
  }
  return std::nullopt;
}

int64_t RankOfModel(const XSpaceModel& space, int64_t fallback) { return StatedRankOfModel(space).value_or(fallback); }

std::string_view FrameworkOfModel(const XSpaceModel& space) {
  if (schema::IsKinetoTrace(space)) return "PyTorch";
  // By the framework ops the GPU kernels name, the first few thousand.
  const StrId tf_op = space.Find(schema::kTfOp);
  int64_t jax = 0, tf = 0;
  for (const XPlaneModel& p : space.planes) {
    if (!schema::IsGpuPlane(space.Str(p.name)) || tf_op == kNoStr) continue;
    for (const LineModel& line : p.lines) {
      if (schema::IsDerivedThreadId(line.id)) continue;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events && jax + tf < 4096; ++e) {
        const StrId op = schema::StatIds::StrOf(p, e, tf_op);
        if (op == kNoStr) continue;
        // JAX names its ops by the traced function ("jit(train_step)/dot_general").
        const std::string_view text = space.Str(op);
        if (text.starts_with("XlaModule:")) continue;  // XLA's module, either framework's
        const bool traced = text.find("jit(") != std::string_view::npos || text.find("pmap(") != std::string_view::npos;
        const TfOpCategory c = ParseTfOpFullname(text).category;
        if (traced || c == TfOpCategory::kJax) {
          ++jax;
        } else if (c == TfOpCategory::kTensorFlow && text.find(':') != std::string_view::npos) {
          ++tf;
        }
      }
    }
  }
  if (jax != tf) return jax > tf ? "JAX" : "TensorFlow";
  return space.Find(schema::kHloModule) != kNoStr ? "JAX" : "TensorFlow";
}

namespace {

bool IsEventLine(const LineModel& line, StrId counters) {
  return !schema::IsDerivedThreadId(line.id) && line.name != counters && line.num_events > 0;
}

int DeviceOrdinal(std::string_view plane_name) {
  int d = 0;
  std::string_view digits = plane_name.substr(schema::kGpuPlanePrefix.size());
  std::from_chars(digits.data(), digits.data() + digits.size(), d);
  return d;
}

// Kernel names by interned name (and whether an HLO collective made it
// communication): one entry per distinct name of the rank, each plane's
// metadata resolved once.
class NameIndex {
 public:
  NameIndex(const XSpaceModel& space, RankKernels& out) : space_(space), out_(out) {}
  void StartPlane(const XPlaneModel& p) {
    by_metadata_.assign(p.event_metadata.size() * 2, kUnset);
    plane_ = &p;
  }
  uint32_t Of(uint32_t metadata, bool collective) {
    uint32_t& slot = by_metadata_[metadata * 2 + (collective ? 1 : 0)];
    if (slot != kUnset) return slot;
    const StrId name = plane_->event_metadata[metadata].name;
    std::string_view text = space_.Str(name);
    KernelType type = KernelTypeOfName(text);
    if (collective && type == KernelType::kComputation) type = KernelType::kCommunication;
    const uint64_t key = (static_cast<uint64_t>(name) << 2) | static_cast<uint64_t>(type);
    auto [it, fresh] = global_.try_emplace(key, static_cast<uint32_t>(out_.names.size()));
    if (fresh) out_.names.push_back({text, type});
    slot = it->second;
    return slot;
  }
  bool NameHasOwnType(uint32_t metadata) const {
    return KernelTypeOfName(space_.Str(plane_->event_metadata[metadata].name)) != KernelType::kComputation;
  }

 private:
  static constexpr uint32_t kUnset = UINT32_MAX;
  const XSpaceModel& space_;
  RankKernels& out_;
  const XPlaneModel* plane_ = nullptr;
  std::vector<uint32_t> by_metadata_;
  std::unordered_map<uint64_t, uint32_t> global_;
};

// Step 1: every GPU plane's streams, and the correlation id of each device op
// (parallel to the streams' kernels) for step 2.
void ReadStreams(const XSpaceModel& space, RankKernels& out, std::vector<std::vector<int64_t>>& correlations) {
  const StrId corr = space.Find(schema::kCorrelationId), hlo_op = space.Find(schema::kHloOp);
  const StrId counters = space.Find(schema::kCountersLine);
  const bool xla = hlo_op != kNoStr && !schema::IsKinetoTrace(space);
  NameIndex names(space, out);
  for (const XPlaneModel& p : space.planes) {
    if (!schema::IsGpuPlane(space.Str(p.name))) continue;
    names.StartPlane(p);
    for (const LineModel& line : p.lines) {
      if (!IsEventLine(line, counters)) continue;
      GpuStream s{.device = DeviceOrdinal(space.Str(p.name)), .stream = line.id, .kernels = {}};
      s.kernels.reserve(line.num_events);
      std::vector<int64_t> ids;
      ids.reserve(line.num_events);
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        const Event& ev = p.events[e];
        bool collective = false;
        if (xla && !names.NameHasOwnType(ev.metadata)) {
          const StrId op = schema::StatIds::StrOf(p, e, hlo_op);
          collective = op != kNoStr && IsCollectiveHloOp(space.Str(op));
        }
        s.kernels.push_back({ev.begin_ps, ev.end_ps(), names.Of(ev.metadata, collective), kNoLaunch});
        const Stat* c = corr == kNoStr ? nullptr : p.FindStat(e, corr);
        ids.push_back(c != nullptr && c->IsInteger() ? c->IntValue() : -1);
      }
      if (!std::is_sorted(s.kernels.begin(), s.kernels.end(),
                          [](const GpuKernel& a, const GpuKernel& b) { return a.begin_ps < b.begin_ps; })) {
        std::vector<uint32_t> order(s.kernels.size());
        for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return s.kernels[a].begin_ps < s.kernels[b].begin_ps; });
        std::vector<GpuKernel> k(order.size());
        std::vector<int64_t> c(order.size());
        for (uint32_t i = 0; i < order.size(); ++i) k[i] = s.kernels[order[i]], c[i] = ids[order[i]];
        s.kernels.swap(k);
        ids.swap(c);
      }
      out.num_kernels += s.kernels.size();
      out.streams.push_back(std::move(s));
      correlations.push_back(std::move(ids));
    }
  }
  std::vector<uint32_t> order(out.streams.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const GpuStream &x = out.streams[a], &y = out.streams[b];
    return x.device != y.device ? x.device < y.device : x.stream < y.stream;
  });
  std::vector<GpuStream> streams(order.size());
  std::vector<std::vector<int64_t>> ids(order.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    streams[i] = std::move(out.streams[order[i]]);
    ids[i] = std::move(correlations[order[i]]);
  }
  out.streams.swap(streams);
  correlations.swap(ids);
}

// Step 2: the host calls that carry a device op's correlation id. Only calls
// named as runtime or driver calls ("cu…", "hip…") are looked at, so the
// host's other events cost no stat lookups.
void ReadLaunches(const XSpaceModel& space, RankKernels& out, const std::vector<std::vector<int64_t>>& correlations) {
  const StrId corr = space.Find(schema::kCorrelationId);
  const XPlaneModel* host = space.FindPlane(schema::kHostPlane);
  if (corr == kNoStr || host == nullptr) return;
  size_t count = 0;
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (const std::vector<int64_t>& ids : correlations) {
    for (int64_t id : ids) {
      if (id < 0) continue;
      ++count, lo = std::min(lo, id), hi = std::max(hi, id);
    }
  }
  if (count == 0) return;
  grouping::LaunchTable device_ops(count, lo, hi);
  for (uint32_t s = 0; s < correlations.size(); ++s) {
    for (uint32_t k = 0; k < correlations[s].size(); ++k) {
      if (correlations[s][k] >= 0) device_ops.Insert(correlations[s][k], {s, k});
    }
  }
  std::vector<int8_t> kind_of(host->event_metadata.size(), -1);  // -1: not a runtime call
  for (uint32_t m = 0; m < host->event_metadata.size(); ++m) {
    std::string_view n = space.Str(host->event_metadata[m].name);
    if (n.starts_with("cu") || n.starts_with("hip")) kind_of[m] = static_cast<int8_t>(LaunchKindOfName(n));
  }
  for (const LineModel& line : host->lines) {
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const Event& ev = host->events[e];
      if (kind_of[ev.metadata] < 0) continue;
      const Stat* c = host->FindStat(e, corr);
      if (c == nullptr || !c->IsInteger()) continue;
      const int64_t id = c->IntValue();
      if (id < lo || id > hi) continue;
      const grouping::EdgeRef* op = device_ops.Find(id);
      if (op == nullptr) continue;
      GpuKernel& k = out.streams[op->plane].kernels[op->event];
      if (k.launch != kNoLaunch) continue;  // the first call of an id wins
      k.launch = static_cast<uint32_t>(out.launches.size());
      out.launches.push_back({ev.begin_ps, ev.end_ps(), id, static_cast<LaunchKind>(kind_of[ev.metadata]),
                              op->plane, op->event});
    }
  }
  std::vector<Launch>& l = out.launches;
  if (!std::is_sorted(l.begin(), l.end(), [](const Launch& a, const Launch& b) { return a.begin_ps < b.begin_ps; })) {
    std::stable_sort(l.begin(), l.end(), [](const Launch& a, const Launch& b) { return a.begin_ps < b.begin_ps; });
    for (uint32_t i = 0; i < l.size(); ++i) out.streams[l[i].stream].kernels[l[i].kernel].launch = i;
  }
}

}  // namespace

RankKernels ExtractRankKernels(const XSpaceModel& space, int64_t rank, std::string host) {
  RankKernels out;
  out.rank = rank;
  out.host = std::move(host);
  std::vector<std::vector<int64_t>> correlations;
  ReadStreams(space, out, correlations);
  ReadLaunches(space, out, correlations);
  return out;
}

int64_t TraceSpanPs(const XSpaceModel& space) {
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  const StrId counters = space.Find(schema::kCountersLine);
  for (const XPlaneModel& p : space.planes) {
    std::string_view name = space.Str(p.name);
    if (name != schema::kHostPlane && !schema::IsGpuPlane(name)) continue;
    for (const LineModel& line : p.lines) {
      if (!IsEventLine(line, counters)) continue;
      lo = std::min(lo, p.events[line.first_event].begin_ps);  // a line is by begin
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        hi = std::max(hi, p.events[e].end_ps());
      }
    }
  }
  return lo <= hi ? hi - lo : 0;
}

MergedKernels MergeKernelIntervals(const RankKernels& rank) {
  MergedKernels m;
  // Every stream is by begin: a k-way merge visits all kernels in begin order.
  using Head = std::pair<int64_t, uint32_t>;  // (begin, stream)
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  std::vector<uint32_t> next(rank.streams.size(), 0);
  for (uint32_t s = 0; s < rank.streams.size(); ++s) {
    if (!rank.streams[s].kernels.empty()) heads.push({rank.streams[s].kernels[0].begin_ps, s});
  }
  auto add = [](std::vector<Interval>& v, const GpuKernel& k) {
    if (v.empty() || k.begin_ps > v.back().end_ps) {
      v.push_back({k.begin_ps, k.end_ps});
    } else {
      v.back().end_ps = std::max(v.back().end_ps, k.end_ps);
    }
  };
  while (!heads.empty()) {
    const uint32_t s = heads.top().second;
    heads.pop();
    const std::vector<GpuKernel>& ks = rank.streams[s].kernels;
    const GpuKernel& k = ks[next[s]];
    add(m.by_type[static_cast<int>(rank.names[k.name].type)], k);
    add(m.all, k);
    if (++next[s] < ks.size()) heads.push({ks[next[s]].begin_ps, s});
  }
  return m;
}

}  // namespace tbprof::trace_analysis
