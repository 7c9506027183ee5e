#include "convert/analysis/trace_analysis/trace_analysis_serial.h"

#include <array>
#include <utility>

#include "convert/analysis/device/device_peaks_serial.h"
#include "convert/base/varint_codec.h"

namespace tbprof::trace_analysis {
namespace {

using W = VarintWriter;
using R = VarintReader;

template <size_t N>
void PutInts(W& s, const std::array<int64_t, N>& a) {
  for (int64_t v : a) s.I(v);
}
template <size_t N>
void GetInts(R& s, std::array<int64_t, N>& a) {
  for (int64_t& v : a) v = s.I();
}

void PutTemporal(W& s, const TemporalRow& t) {
  s.B(t.has_kernels), s.I(t.idle_ps), s.I(t.compute_ps), s.I(t.non_compute_ps), s.I(t.kernel_ps);
}
void GetTemporal(R& s, TemporalRow& t) {
  t.has_kernels = s.B(), t.idle_ps = s.I(), t.compute_ps = s.I(), t.non_compute_ps = s.I(), t.kernel_ps = s.I();
}

void PutBreakdown(W& s, const KernelBreakdown& b) {
  PutInts(s, b.class_ps);
  for (bool seen : b.class_seen) s.B(seen);
  for (const std::vector<KernelNameStats>& type : b.kernels) {
    PutSeq(s, type, [](W& out, const KernelNameStats& k) {
      out.U(k.name), out.I(k.count), out.I(k.sum_ps), out.I(k.min_ps), out.I(k.max_ps), out.D(k.mean_us);
      out.D(k.stddev_us);
    });
  }
  PutSeq(s, b.names, [](W& out, const std::string& n) { out.S(n); });
}
void GetBreakdown(R& s, KernelBreakdown& b) {
  GetInts(s, b.class_ps);
  for (bool& seen : b.class_seen) seen = s.B();
  for (std::vector<KernelNameStats>& type : b.kernels) {
    GetVec(s, type, [](R& in) {
      KernelNameStats k;
      k.name = in.U32(), k.count = in.I(), k.sum_ps = in.I(), k.min_ps = in.I(), k.max_ps = in.I();
      k.mean_us = in.D(), k.stddev_us = in.D();
      return k;
    });
  }
  GetVec(s, b.names, [](R& in) { return in.S(); });
  for (const std::vector<KernelNameStats>& type : b.kernels) {
    for (const KernelNameStats& k : type) {
      if (k.name >= b.names.size()) s.Fail();  // a name the answer would look up past its table
    }
  }
}

void PutIdle(W& s, const IdleStreamRow& r) {
  s.I(r.device), s.I(r.stream);
  PutInts(s, r.idle_ps), PutInts(s, r.gaps);
}
IdleStreamRow GetIdle(R& s) {
  IdleStreamRow r;
  r.device = s.Int(), r.stream = s.I();
  GetInts(s, r.idle_ps), GetInts(s, r.gaps);
  return r;
}

void PutQueue(W& s, const QueueStreamRow& r) {
  s.I(r.device), s.I(r.stream), s.I(r.count), s.D(r.mean), s.D(r.std), s.D(r.min), s.D(r.p25), s.D(r.p50);
  s.D(r.p75), s.D(r.max), s.I(r.blocked_ps), s.I(r.trace_ps);
  PutSeq(s, r.series, [](W& out, const std::pair<int64_t, int64_t>& p) { out.I(p.first), out.I(p.second); });
}
QueueStreamRow GetQueue(R& s) {
  QueueStreamRow r;
  r.device = s.Int(), r.stream = s.I(), r.count = s.I(), r.mean = s.D(), r.std = s.D(), r.min = s.D();
  r.p25 = s.D(), r.p50 = s.D(), r.p75 = s.D(), r.max = s.D(), r.blocked_ps = s.I(), r.trace_ps = s.I();
  GetVec(s, r.series, [](R& in) {
    const int64_t t = in.I();
    return std::pair<int64_t, int64_t>(t, in.I());
  });
  return r;
}

void PutLaunch(W& s, const KernelLaunchSummary& l) {
  PutSeq(s, l.launches, [](W& out, const LaunchRow& r) {
    out.I(r.correlation), out.U(static_cast<uint64_t>(r.kind)), out.I(r.cpu_ps), out.I(r.gpu_ps), out.I(r.delay_ps);
  });
  s.I(l.short_kernels), s.I(l.runtime_outliers), s.I(l.launch_delay_outliers);
  s.D(l.mean_delay_us), s.D(l.p50_delay_us), s.D(l.p95_delay_us);
  PutInts(s, l.delay_bins);
}
void GetLaunch(R& s, KernelLaunchSummary& l) {
  GetVec(s, l.launches, [](R& in) {
    LaunchRow r;
    r.correlation = in.I();
    r.kind = static_cast<LaunchKind>(in.Below(static_cast<uint64_t>(LaunchKind::kHip) + 1));
    r.cpu_ps = in.I(), r.gpu_ps = in.I(), r.delay_ps = in.I();
    return r;
  });
  l.short_kernels = s.I(), l.runtime_outliers = s.I(), l.launch_delay_outliers = s.I();
  l.mean_delay_us = s.D(), l.p50_delay_us = s.D(), l.p95_delay_us = s.D();
  GetInts(s, l.delay_bins);
}

void PutStraggler(W& s, const StragglerInput& f) {
  s.OptD(f.step_time_us), s.OptD(f.compute_us), s.OptD(f.communication_us), s.OptD(f.idle_us);
}
void GetStraggler(R& s, StragglerInput& f) {
  f.step_time_us = s.OptD(), f.compute_us = s.OptD(), f.communication_us = s.OptD(), f.idle_us = s.OptD();
}

void PutCollective(W& s, const CollectiveRow& c) {
  s.S(c.name), s.I(c.count), s.D(c.bytes), s.I(c.time_ps), s.OptD(c.bus_bandwidth_gbps);
}
CollectiveRow GetCollective(R& s) {
  CollectiveRow c;
  c.name = s.S(), c.count = s.I(), c.bytes = s.D(), c.time_ps = s.I(), c.bus_bandwidth_gbps = s.OptD();
  return c;
}

void PutCriticalPath(W& s, const RankCriticalPath& r) {
  s.B(r.path.has_value()), s.S(r.reason);
  if (!r.path) return;
  const CriticalPath& p = *r.path;
  PutSeq(s, p.steps, [](W& out, int64_t step) { out.I(step); });
  s.I(p.step), s.B(p.whole_profile), s.I(p.step_begin_ps), s.I(p.step_end_ps), s.I(p.window_end_ps);
  s.I(p.length_ps);
  PutSeq(s, p.segments, [](W& out, const CriticalPathSegment& g) {
    out.U(static_cast<uint64_t>(g.kind)), out.S(g.name), out.U(g.where.plane), out.U(g.where.event);
    out.I(g.start_ps), out.I(g.duration_ps);
  });
}
void GetCriticalPath(R& s, RankCriticalPath& r) {
  const bool has_path = s.B();
  r.reason = s.S();
  if (!has_path) return;
  CriticalPath& p = r.path.emplace();
  GetVec(s, p.steps, [](R& in) { return in.I(); });
  p.step = s.I(), p.whole_profile = s.B(), p.step_begin_ps = s.I(), p.step_end_ps = s.I();
  p.window_end_ps = s.I(), p.length_ps = s.I();
  GetVec(s, p.segments, [](R& in) {
    CriticalPathSegment g;
    g.kind = static_cast<CpSegmentKind>(in.Below(static_cast<uint64_t>(CpSegmentKind::kCpuWait) + 1));
    g.name = in.S(), g.where.plane = in.U32(), g.where.event = in.U32();
    g.start_ps = in.I(), g.duration_ps = in.I();
    return g;
  });
}

void PutRoofline(W& s, const OpRoofline& o) {
  s.B(o.pytorch);
  PutDevicePeaks(s, o.peaks);
  PutSeq(s, o.rows, [](W& out, const OpRooflineRow& r) {
    out.S(r.op), out.S(r.input_dims), out.S(r.input_types), out.I(r.count), out.I(r.kernel_ps);
    out.OptD(r.flops), out.OptD(r.bytes), out.U(static_cast<uint64_t>(r.cost_class));
    out.U(static_cast<uint64_t>(r.float_type));
  });
}
void GetRoofline(R& s, OpRoofline& o) {
  o.pytorch = s.B();
  o.peaks = GetDevicePeaks(s);
  GetVec(s, o.rows, [](R& in) {
    OpRooflineRow r;
    r.op = in.S(), r.input_dims = in.S(), r.input_types = in.S(), r.count = in.I(), r.kernel_ps = in.I();
    r.flops = in.OptD(), r.bytes = in.OptD();
    r.cost_class = static_cast<CostClass>(in.Below(static_cast<uint64_t>(CostClass::kElementwise) + 1));
    r.float_type = static_cast<FloatType>(in.Below(static_cast<uint64_t>(FloatType::kBf16) + 1));
    return r;
  });
}

}  // namespace

std::string SerializeRankSections(const RankSections& r) {
  W s;
  s.B(r.stated_rank.has_value());
  if (r.stated_rank) s.I(*r.stated_rank);
  s.S(r.framework), s.U(r.num_kernels);
  PutTemporal(s, r.temporal);
  PutBreakdown(s, r.breakdown);
  s.I(r.overlap.overlap_ps), s.I(r.overlap.communication_ps);
  PutSeq(s, r.idle, PutIdle);
  PutSeq(s, r.queue, PutQueue);
  PutLaunch(s, r.launch);
  PutStraggler(s, r.straggler);
  PutSeq(s, r.collectives, PutCollective);
  PutCriticalPath(s, r.critical_path);
  PutRoofline(s, r.roofline);
  return s.Take();
}

StatusOr<RankSections> DeserializeRankSections(std::string_view bytes) {
  R s(bytes);
  RankSections r;
  if (s.B()) r.stated_rank = s.I();
  r.framework = s.S(), r.num_kernels = s.U();
  GetTemporal(s, r.temporal);
  GetBreakdown(s, r.breakdown);
  r.overlap.overlap_ps = s.I(), r.overlap.communication_ps = s.I();
  GetVec(s, r.idle, GetIdle);
  GetVec(s, r.queue, GetQueue);
  GetLaunch(s, r.launch);
  GetStraggler(s, r.straggler);
  GetVec(s, r.collectives, GetCollective);
  GetCriticalPath(s, r.critical_path);
  GetRoofline(s, r.roofline);
  if (!s.ok() || !s.done()) return DataLoss("damaged trace_analysis sections: cut short or garbled");
  return r;
}

}  // namespace tbprof::trace_analysis
