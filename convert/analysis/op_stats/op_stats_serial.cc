#include "convert/analysis/op_stats/op_stats_serial.h"

#include "convert/analysis/device/device_peaks_serial.h"
#include "convert/base/run_both.h"
#include "convert/base/varint_codec.h"

namespace tbprof {
namespace {

std::vector<std::string> GetStrings(VarintReader& s) {
  std::vector<std::string> v;
  GetVec(s, v, [](VarintReader& in) { return in.S(); });
  return v;
}
void PutStrings(VarintWriter& s, const std::vector<std::string>& v) {
  PutSeq(s, v, [](VarintWriter& out, const std::string& e) { out.S(e); });
}

void PutOp(VarintWriter& s, const OpMetrics& m) {
  s.S(m.name), s.S(m.category), s.S(m.provenance), s.I(m.hlo_module_id), s.B(m.is_eager);
  s.U(m.occurrences), s.U(m.time_ps), s.U(m.self_time_ps), s.U(m.min_time_ps);
  s.D(m.flops), s.U(m.bytes_accessed), s.B(m.flops_unknown);
}
OpMetrics GetOp(VarintReader& s) {
  OpMetrics m;
  m.name = s.S(), m.category = s.S(), m.provenance = s.S(), m.hlo_module_id = s.I(), m.is_eager = s.B();
  m.occurrences = s.U(), m.time_ps = s.U(), m.self_time_ps = s.U(), m.min_time_ps = s.U();
  m.flops = s.D(), m.bytes_accessed = s.U(), m.flops_unknown = s.B();
  return m;
}

void PutDb(VarintWriter& s, const OpMetricsDb& db) {
  PutSeq(s, db.ops, [](VarintWriter& out, const auto& kv) { out.S(kv.first), PutOp(out, kv.second); });
  s.U(db.total_time_ps), s.U(db.total_op_time_ps), s.U(db.busy_time_ps), s.U(db.idle_time_ps);
  s.U(db.total_host_infeed_enq_duration_ps), s.U(db.total_host_infeed_enq_start_timestamp_ps_diff);
}
OpMetricsDb GetDb(VarintReader& s) {
  OpMetricsDb db;
  GetMap(s, db.ops, [](VarintReader& in) { return in.S(); }, GetOp);
  db.total_time_ps = s.U(), db.total_op_time_ps = s.U(), db.busy_time_ps = s.U(), db.idle_time_ps = s.U();
  db.total_host_infeed_enq_duration_ps = s.U(), db.total_host_infeed_enq_start_timestamp_ps_diff = s.U();
  return db;
}

std::string DbBytes(const OpMetricsDb& db) {
  VarintWriter s;
  PutDb(s, db);
  return s.Take();
}
bool DbFromBytes(std::string_view bytes, OpMetricsDb& db) {
  VarintReader s(bytes);
  db = GetDb(s);
  return s.ok() && s.done();
}

// Below this the second thread costs more than it saves.
constexpr size_t kTwoThreadDecodeBytes = size_t{1} << 20;

// The op tables and the kernels, most of a large payload's bytes, shared
// between two threads by their sizes (the device ops' table is often half
// the payload, then best alone). False when any is garbled.
bool DecodeLargeParts(std::string_view host_db, std::string_view device_db, std::string_view tf_db,
                      std::string_view kernels, OpStats& o) {
  const std::string_view parts[] = {host_db, device_db, tf_db, kernels};
  OpMetricsDb* const dbs[] = {&o.host_op_metrics_db, &o.device_op_metrics_db, &o.device_tf_op_metrics_db};
  bool ok[4] = {};
  auto decode = [&](size_t i) {
    ok[i] = i < 3 ? DbFromBytes(parts[i], *dbs[i])
                  : o.kernel_stats_db.ParseFromArray(kernels.data(), static_cast<int>(kernels.size()));
  };
  if (host_db.size() + device_db.size() + tf_db.size() + kernels.size() < kTwoThreadDecodeBytes) {
    for (size_t i = 0; i < 4; ++i) decode(i);
  } else {
    ForEachOnBoth(4, [&](size_t i) { return parts[i].size(); }, decode);
  }
  return ok[0] && ok[1] && ok[2] && ok[3];
}

void PutStep(VarintWriter& s, const StepInfo& st) {
  s.I(st.step_num), s.S(st.step_name), s.I(st.begin_ps), s.U(st.duration_ps);
  PutSeq(s, st.type_ps, [](VarintWriter& out, const auto& kv) { out.I(kv.first), out.U(kv.second); });
  PutSeq(s, st.category_ps, [](VarintWriter& out, const auto& kv) { out.S(kv.first), out.U(kv.second); });
}
StepInfo GetStep(VarintReader& s) {
  StepInfo st;
  st.step_num = s.I(), st.step_name = s.S(), st.begin_ps = s.I(), st.duration_ps = s.U();
  GetMap(s, st.type_ps, [](VarintReader& in) { return static_cast<int>(in.I()); }, [](VarintReader& in) { return in.U(); });
  GetMap(s, st.category_ps, [](VarintReader& in) { return in.S(); }, [](VarintReader& in) { return in.U(); });
  return st;
}

void PutAllReduce(VarintWriter& s, const AllReduceInfo& a) { s.U(a.id), s.U(a.start_time_ps), s.U(a.end_time_ps); }
AllReduceInfo GetAllReduce(VarintReader& s) {
  AllReduceInfo a;
  a.id = s.U(), a.start_time_ps = s.U(), a.end_time_ps = s.U();
  return a;
}

void PutPerCore(VarintWriter& s, const PerCoreStepInfo& p) {
  s.I(p.step_num);
  PutSeq(s, p.step_info_per_core, [](VarintWriter& out, const auto& kv) { out.U(kv.first), PutStep(out, kv.second); });
  PutSeq(s, p.all_reduce_per_core, [](VarintWriter& out, const auto& kv) {
    out.U(kv.first);
    PutSeq(out, kv.second, PutAllReduce);
  });
}
PerCoreStepInfo GetPerCore(VarintReader& s) {
  PerCoreStepInfo p;
  p.step_num = s.I();
  GetMap(s, p.step_info_per_core, [](VarintReader& in) { return in.U32(); }, GetStep);
  GetMap(s, p.all_reduce_per_core, [](VarintReader& in) { return in.U32(); }, [](VarintReader& in) {
    std::vector<AllReduceInfo> v;
    GetVec(in, v, GetAllReduce);
    return v;
  });
  return p;
}

void PutCore(VarintWriter& s, const CoreDetails& c) {
  s.S(c.hostname), s.U(c.device_ordinal), s.U(c.core_num), s.U(c.local_chip_id), s.U(c.global_chip_id);
  s.U(c.global_core_id), s.B(c.is_sparse_core);
}
CoreDetails GetCore(VarintReader& s) {
  CoreDetails c;
  c.hostname = s.S(), c.device_ordinal = s.U32(), c.core_num = s.U32(), c.local_chip_id = s.U32();
  c.global_chip_id = s.U32(), c.global_core_id = s.U32(), c.is_sparse_core = s.B();
  return c;
}


void PutEnv(VarintWriter& s, const RunEnvironment& e) {
  PutSeq(s, e.hostnames, [](VarintWriter& out, const std::string& h) { out.S(h); });
  s.I(e.host_count), s.I(e.task_count), s.S(e.device_type), s.S(e.hardware_type), s.I(e.device_core_count);
  s.U(e.is_training ? (*e.is_training ? 2 : 1) : 0);
  PutSeq(s, e.sessions, [](VarintWriter& out, const auto& kv) { out.S(kv.first), out.U(kv.second.start_ns), out.U(kv.second.stop_ns); });
}
RunEnvironment GetEnv(VarintReader& s) {
  RunEnvironment e;
  for (uint64_t i = 0, n = s.Count(); i < n && s.ok(); ++i) e.hostnames.insert(s.S());
  e.host_count = s.Int(), e.task_count = s.Int(), e.device_type = s.S(), e.hardware_type = s.S();
  e.device_core_count = s.Int();
  const uint64_t training = s.U();
  if (training > 2) s.Fail();
  if (training != 0) e.is_training = training == 2;
  GetMap(s, e.sessions, [](VarintReader& in) { return in.S(); }, [](VarintReader& in) {
    RunEnvironment::Session session;
    session.start_ns = in.U(), session.stop_ns = in.U();
    return session;
  });
  return e;
}


void PutTorch(VarintWriter& s, const OpStats& o) {
  s.B(o.torch_gpu.has_value());
  if (o.torch_gpu) {
    s.OptD(o.torch_gpu->utilization_percent), s.OptD(o.torch_gpu->sm_efficiency_percent);
    s.OptD(o.torch_gpu->achieved_occupancy_percent);
  }
  s.B(o.torch_steps.has_value());
  if (!o.torch_steps) return;
  PutStrings(s, o.torch_steps->categories), PutStrings(s, o.torch_steps->step_names);
  PutSeq(s, o.torch_steps->category_ms,
         [](VarintWriter& out, const std::vector<double>& row) { PutSeq(out, row, [](VarintWriter& o2, double d) { o2.D(d); }); });
}
void GetTorch(VarintReader& s, OpStats& o) {
  if (s.B()) {
    TorchGpuSummary g;
    g.utilization_percent = s.OptD(), g.sm_efficiency_percent = s.OptD();
    g.achieved_occupancy_percent = s.OptD();
    o.torch_gpu = g;
  }
  if (!s.B()) return;
  TorchStepTable t;
  t.categories = GetStrings(s), t.step_names = GetStrings(s);
  GetVec(s, t.category_ms, [](VarintReader& in) {
    std::vector<double> row;
    GetVec(in, row, [](VarintReader& in2) { return in2.D(); });
    return row;
  });
  o.torch_steps = std::move(t);
}

}  // namespace

std::string SerializeOpStats(const OpStats& o) {
  VarintWriter s;
  s.S(DbBytes(o.host_op_metrics_db)), s.S(DbBytes(o.device_op_metrics_db)), s.S(DbBytes(o.device_tf_op_metrics_db));
  s.S(o.kernel_stats_db.SerializeAsString());
  PutSeq(s, o.steps, [](VarintWriter& out, const HostSteps& h) { out.S(h.hostname), PutSeq(out, h.steps, PutStep); });
  PutSeq(s, o.tpu_step_db, PutPerCore);
  s.B(o.empty_step_intersection);
  PutSeq(s, o.core_id_to_details, [](VarintWriter& out, const auto& kv) { out.U(kv.first), PutCore(out, kv.second); });
  PutEnv(s, o.run_environment), PutDevicePeaks(s, o.peaks);
  s.U(o.compute_16bit_ps), s.U(o.compute_32bit_ps), s.U(o.compute_unknown_precision_ps);
  PutStrings(s, o.errors), PutStrings(s, o.warnings);
  PutTorch(s, o);
  return s.Take();
}

StatusOr<OpStats> DeserializeOpStats(std::string_view bytes) {
  VarintReader s(bytes);
  OpStats o;
  const std::string_view host_db = s.View(), device_db = s.View(), tf_db = s.View(), kernels = s.View();
  if (!s.ok() || !DecodeLargeParts(host_db, device_db, tf_db, kernels, o)) s.Fail();
  GetVec(s, o.steps, [](VarintReader& in) {
    HostSteps h;
    h.hostname = in.S();
    GetVec(in, h.steps, GetStep);
    return h;
  });
  GetVec(s, o.tpu_step_db, GetPerCore);
  o.empty_step_intersection = s.B();
  GetMap(s, o.core_id_to_details, [](VarintReader& in) { return in.U32(); }, GetCore);
  o.run_environment = GetEnv(s), o.peaks = GetDevicePeaks(s);
  o.compute_16bit_ps = s.U(), o.compute_32bit_ps = s.U(), o.compute_unknown_precision_ps = s.U();
  o.errors = GetStrings(s), o.warnings = GetStrings(s);
  GetTorch(s, o);
  if (!s.ok() || !s.done()) return DataLoss("damaged op statistics: cut short or garbled");
  return o;
}

}  // namespace tbprof
