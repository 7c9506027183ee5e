#include "convert/analysis/op_stats/op_stats_serial.h"

#include <bit>
#include <cstring>

#include "convert/analysis/device/gpu_datasheets.h"

namespace tbprof {
namespace {

// Integers as LEB128 varints (signed ones zigzagged), doubles as their 8 bytes,
// strings and containers prefixed by their length.
class Sink {
 public:
  void U(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void I(int64_t v) { U((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void B(bool v) { U(v ? 1 : 0); }
  void D(double v) {
    const uint64_t bits = std::bit_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>(bits >> (8 * i)));
  }
  void S(std::string_view s) {
    U(s.size());
    out_.append(s);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Source {
 public:
  explicit Source(std::string_view in) : rest_(in) {}
  bool ok() const { return ok_; }
  bool done() const { return rest_.empty(); }
  uint64_t U() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (rest_.empty()) return Fail();
      const auto byte = static_cast<uint8_t>(rest_.front());
      rest_.remove_prefix(1);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return v;
    }
    return Fail();
  }
  int64_t I() {
    const uint64_t z = U();
    return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  bool B() {
    const uint64_t v = U();
    if (v > 1) Fail();
    return v == 1;
  }
  double D() {
    if (rest_.size() < 8) return static_cast<double>(Fail());
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(static_cast<uint8_t>(rest_[i])) << (8 * i);
    rest_.remove_prefix(8);
    return std::bit_cast<double>(bits);
  }
  std::string S() {
    const uint64_t n = U();
    if (!ok_ || n > rest_.size()) return Fail(), std::string();
    std::string s(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return s;
  }
  // A count of items each taking at least one byte: never more than what is
  // left, so no container grows past the payload's size.
  uint64_t Count() {
    const uint64_t n = U();
    if (!ok_ || n > rest_.size()) return Fail();
    return n;
  }
  uint64_t Fail() {
    ok_ = false;
    rest_ = {};
    return 0;
  }

 private:
  std::string_view rest_;
  bool ok_ = true;
};

// Containers, element by element through `put` / `get`.
template <typename C, typename F>
void PutSeq(Sink& s, const C& c, F put) {
  s.U(c.size());
  for (const auto& e : c) put(s, e);
}
template <typename T, typename F>
void GetVec(Source& s, std::vector<T>& v, F get) {
  const uint64_t n = s.Count();
  v.clear();
  v.reserve(n);
  for (uint64_t i = 0; i < n && s.ok(); ++i) v.push_back(get(s));
}
// A map was written in its order, so each key goes at the end: no key
// comparisons down the tree (a pod's summaries hold millions of op names).
template <typename M, typename FK, typename FV>
void GetMap(Source& s, M& m, FK key, FV value) {
  const uint64_t n = s.Count();
  m.clear();
  for (uint64_t i = 0; i < n && s.ok(); ++i) {
    auto k = key(s);
    m.insert_or_assign(m.end(), std::move(k), value(s));
  }
}
std::vector<std::string> GetStrings(Source& s) {
  std::vector<std::string> v;
  GetVec(s, v, [](Source& in) { return in.S(); });
  return v;
}
void PutStrings(Sink& s, const std::vector<std::string>& v) {
  PutSeq(s, v, [](Sink& out, const std::string& e) { out.S(e); });
}
void PutOptD(Sink& s, const std::optional<double>& v) {
  s.B(v.has_value());
  if (v) s.D(*v);
}
std::optional<double> GetOptD(Source& s) {
  if (!s.B()) return std::nullopt;
  return s.D();
}

void PutOp(Sink& s, const OpMetrics& m) {
  s.S(m.name), s.S(m.category), s.S(m.provenance), s.I(m.hlo_module_id), s.B(m.is_eager);
  s.U(m.occurrences), s.U(m.time_ps), s.U(m.self_time_ps), s.U(m.min_time_ps);
  s.D(m.flops), s.U(m.bytes_accessed), s.B(m.flops_unknown);
}
OpMetrics GetOp(Source& s) {
  OpMetrics m;
  m.name = s.S(), m.category = s.S(), m.provenance = s.S(), m.hlo_module_id = s.I(), m.is_eager = s.B();
  m.occurrences = s.U(), m.time_ps = s.U(), m.self_time_ps = s.U(), m.min_time_ps = s.U();
  m.flops = s.D(), m.bytes_accessed = s.U(), m.flops_unknown = s.B();
  return m;
}

void PutDb(Sink& s, const OpMetricsDb& db) {
  PutSeq(s, db.ops, [](Sink& out, const auto& kv) { out.S(kv.first), PutOp(out, kv.second); });
  s.U(db.total_time_ps), s.U(db.total_op_time_ps), s.U(db.busy_time_ps), s.U(db.idle_time_ps);
  s.U(db.total_host_infeed_enq_duration_ps), s.U(db.total_host_infeed_enq_start_timestamp_ps_diff);
}
OpMetricsDb GetDb(Source& s) {
  OpMetricsDb db;
  GetMap(s, db.ops, [](Source& in) { return in.S(); }, GetOp);
  db.total_time_ps = s.U(), db.total_op_time_ps = s.U(), db.busy_time_ps = s.U(), db.idle_time_ps = s.U();
  db.total_host_infeed_enq_duration_ps = s.U(), db.total_host_infeed_enq_start_timestamp_ps_diff = s.U();
  return db;
}

void PutStep(Sink& s, const StepInfo& st) {
  s.I(st.step_num), s.S(st.step_name), s.I(st.begin_ps), s.U(st.duration_ps);
  PutSeq(s, st.type_ps, [](Sink& out, const auto& kv) { out.I(kv.first), out.U(kv.second); });
  PutSeq(s, st.category_ps, [](Sink& out, const auto& kv) { out.S(kv.first), out.U(kv.second); });
}
StepInfo GetStep(Source& s) {
  StepInfo st;
  st.step_num = s.I(), st.step_name = s.S(), st.begin_ps = s.I(), st.duration_ps = s.U();
  GetMap(s, st.type_ps, [](Source& in) { return static_cast<int>(in.I()); }, [](Source& in) { return in.U(); });
  GetMap(s, st.category_ps, [](Source& in) { return in.S(); }, [](Source& in) { return in.U(); });
  return st;
}

void PutAllReduce(Sink& s, const AllReduceInfo& a) { s.U(a.id), s.U(a.start_time_ps), s.U(a.end_time_ps); }
AllReduceInfo GetAllReduce(Source& s) {
  AllReduceInfo a;
  a.id = s.U(), a.start_time_ps = s.U(), a.end_time_ps = s.U();
  return a;
}

void PutPerCore(Sink& s, const PerCoreStepInfo& p) {
  s.I(p.step_num);
  PutSeq(s, p.step_info_per_core, [](Sink& out, const auto& kv) { out.U(kv.first), PutStep(out, kv.second); });
  PutSeq(s, p.all_reduce_per_core, [](Sink& out, const auto& kv) {
    out.U(kv.first);
    PutSeq(out, kv.second, PutAllReduce);
  });
}
uint32_t GetU32(Source& s) {
  const uint64_t v = s.U();
  if (v > UINT32_MAX) s.Fail();
  return static_cast<uint32_t>(v);
}
PerCoreStepInfo GetPerCore(Source& s) {
  PerCoreStepInfo p;
  p.step_num = s.I();
  GetMap(s, p.step_info_per_core, GetU32, GetStep);
  GetMap(s, p.all_reduce_per_core, GetU32, [](Source& in) {
    std::vector<AllReduceInfo> v;
    GetVec(in, v, GetAllReduce);
    return v;
  });
  return p;
}

void PutCore(Sink& s, const CoreDetails& c) {
  s.S(c.hostname), s.U(c.device_ordinal), s.U(c.core_num), s.U(c.local_chip_id), s.U(c.global_chip_id);
  s.U(c.global_core_id), s.B(c.is_sparse_core);
}
CoreDetails GetCore(Source& s) {
  CoreDetails c;
  c.hostname = s.S(), c.device_ordinal = GetU32(s), c.core_num = GetU32(s), c.local_chip_id = GetU32(s);
  c.global_chip_id = GetU32(s), c.global_core_id = GetU32(s), c.is_sparse_core = s.B();
  return c;
}

int GetInt(Source& s) {
  const int64_t v = s.I();
  if (v < INT32_MIN || v > INT32_MAX) s.Fail();
  return static_cast<int>(v);
}

void PutEnv(Sink& s, const RunEnvironment& e) {
  PutSeq(s, e.hostnames, [](Sink& out, const std::string& h) { out.S(h); });
  s.I(e.host_count), s.I(e.task_count), s.S(e.device_type), s.S(e.hardware_type), s.I(e.device_core_count);
  s.U(e.is_training ? (*e.is_training ? 2 : 1) : 0);
  PutSeq(s, e.sessions, [](Sink& out, const auto& kv) { out.S(kv.first), out.U(kv.second.start_ns), out.U(kv.second.stop_ns); });
}
RunEnvironment GetEnv(Source& s) {
  RunEnvironment e;
  for (uint64_t i = 0, n = s.Count(); i < n && s.ok(); ++i) e.hostnames.insert(s.S());
  e.host_count = GetInt(s), e.task_count = GetInt(s), e.device_type = s.S(), e.hardware_type = s.S();
  e.device_core_count = GetInt(s);
  const uint64_t training = s.U();
  if (training > 2) s.Fail();
  if (training != 0) e.is_training = training == 2;
  GetMap(s, e.sessions, [](Source& in) { return in.S(); }, [](Source& in) {
    RunEnvironment::Session session;
    session.start_ns = in.U(), session.stop_ns = in.U();
    return session;
  });
  return e;
}

void PutPeaks(Sink& s, const DevicePeaks& p) {
  s.U(static_cast<uint64_t>(p.kind)), s.S(p.device_type), s.I(p.device_count), s.D(p.peak_tflops), s.D(p.hbm_gbps);
  s.D(p.sram_rd_gbps), s.D(p.sram_wr_gbps), s.D(p.cmem_rd_gbps), s.D(p.cmem_wr_gbps), s.D(p.vmem_rd_gbps);
  s.D(p.vmem_wr_gbps), s.B(p.megacore), s.B(p.has_cmem), s.B(p.has_merged_vmem);
  s.S(p.gpu_name);  // its datasheet is found again by it
}
DevicePeaks GetPeaks(Source& s) {
  DevicePeaks p;
  const uint64_t kind = s.U();
  if (kind > static_cast<uint64_t>(DeviceKind::kTpu)) s.Fail();
  p.kind = static_cast<DeviceKind>(kind);
  p.device_type = s.S(), p.device_count = GetInt(s), p.peak_tflops = s.D(), p.hbm_gbps = s.D();
  p.sram_rd_gbps = s.D(), p.sram_wr_gbps = s.D(), p.cmem_rd_gbps = s.D(), p.cmem_wr_gbps = s.D();
  p.vmem_rd_gbps = s.D(), p.vmem_wr_gbps = s.D(), p.megacore = s.B(), p.has_cmem = s.B();
  p.has_merged_vmem = s.B();
  p.gpu_name = s.S();
  p.datasheet = GpuDatasheetOf(p.gpu_name);
  return p;
}

void PutTorch(Sink& s, const OpStats& o) {
  s.B(o.torch_gpu.has_value());
  if (o.torch_gpu) {
    PutOptD(s, o.torch_gpu->utilization_percent), PutOptD(s, o.torch_gpu->sm_efficiency_percent);
    PutOptD(s, o.torch_gpu->achieved_occupancy_percent);
  }
  s.B(o.torch_steps.has_value());
  if (!o.torch_steps) return;
  PutStrings(s, o.torch_steps->categories), PutStrings(s, o.torch_steps->step_names);
  PutSeq(s, o.torch_steps->category_ms,
         [](Sink& out, const std::vector<double>& row) { PutSeq(out, row, [](Sink& o2, double d) { o2.D(d); }); });
}
void GetTorch(Source& s, OpStats& o) {
  if (s.B()) {
    TorchGpuSummary g;
    g.utilization_percent = GetOptD(s), g.sm_efficiency_percent = GetOptD(s);
    g.achieved_occupancy_percent = GetOptD(s);
    o.torch_gpu = g;
  }
  if (!s.B()) return;
  TorchStepTable t;
  t.categories = GetStrings(s), t.step_names = GetStrings(s);
  GetVec(s, t.category_ms, [](Source& in) {
    std::vector<double> row;
    GetVec(in, row, [](Source& in2) { return in2.D(); });
    return row;
  });
  o.torch_steps = std::move(t);
}

}  // namespace

std::string SerializeOpStats(const OpStats& o) {
  Sink s;
  PutDb(s, o.host_op_metrics_db), PutDb(s, o.device_op_metrics_db), PutDb(s, o.device_tf_op_metrics_db);
  PutSeq(s, o.steps, [](Sink& out, const HostSteps& h) { out.S(h.hostname), PutSeq(out, h.steps, PutStep); });
  PutSeq(s, o.tpu_step_db, PutPerCore);
  s.B(o.empty_step_intersection);
  PutSeq(s, o.core_id_to_details, [](Sink& out, const auto& kv) { out.U(kv.first), PutCore(out, kv.second); });
  s.S(o.kernel_stats_db.SerializeAsString());
  PutEnv(s, o.run_environment), PutPeaks(s, o.peaks);
  s.U(o.compute_16bit_ps), s.U(o.compute_32bit_ps), s.U(o.compute_unknown_precision_ps);
  PutStrings(s, o.errors), PutStrings(s, o.warnings);
  PutTorch(s, o);
  return s.Take();
}

StatusOr<OpStats> DeserializeOpStats(std::string_view bytes) {
  Source s(bytes);
  OpStats o;
  o.host_op_metrics_db = GetDb(s), o.device_op_metrics_db = GetDb(s), o.device_tf_op_metrics_db = GetDb(s);
  GetVec(s, o.steps, [](Source& in) {
    HostSteps h;
    h.hostname = in.S();
    GetVec(in, h.steps, GetStep);
    return h;
  });
  GetVec(s, o.tpu_step_db, GetPerCore);
  o.empty_step_intersection = s.B();
  GetMap(s, o.core_id_to_details, GetU32, GetCore);
  const std::string kernels = s.S();
  if (s.ok() && !o.kernel_stats_db.ParseFromString(kernels)) s.Fail();
  o.run_environment = GetEnv(s), o.peaks = GetPeaks(s);
  o.compute_16bit_ps = s.U(), o.compute_32bit_ps = s.U(), o.compute_unknown_precision_ps = s.U();
  o.errors = GetStrings(s), o.warnings = GetStrings(s);
  GetTorch(s, o);
  if (!s.ok() || !s.done()) return DataLoss("damaged op statistics: cut short or garbled");
  return o;
}

}  // namespace tbprof
