#include "convert/analysis/hlo/xspace_to_hlo_stats.h"

#include <algorithm>
#include <map>

#include "convert/analysis/hlo/hlo_op_collector.h"
#include "convert/base/data_table.h"
#include "convert/base/math_util.h"

namespace tbprof {

bool HloStatsReadsEventStat(std::string_view plane_name, std::string_view stat_name) {
  if (!plane_name.starts_with("/device:")) return false;
  static constexpr std::string_view kRead[] = {"hlo_op",         "hlo_module",        "program_id",
                                               "hlo_category",   "flops",             "model_flops",
                                               "bytes_accessed", "device_offset_ps",  "device_duration_ps",
                                               "tf_op",          "deduplicated_name", "memory_access_breakdown"};
  return std::find(std::begin(kRead), std::end(kRead), stat_name) != std::end(kRead);
}

HloOpDb ConvertXSpaceToHloOpDb(const XSpaceModel& space) {
  HloOpCollector ops(space);
  uint64_t idle_ps = 0;
  for (const XPlaneModel* p : space.FindPlanesWithPrefix("/device:TPU:")) idle_ps += CollectTpuPlaneOps(*p, ops);
  for (const XPlaneModel* p : space.FindPlanesWithPrefix("/device:GPU:")) idle_ps += CollectGpuPlaneOps(*p, ops);
  return std::move(ops).Finish(idle_ps);
}

HloOpDb CombineHloOpDbs(const std::vector<std::shared_ptr<const HloOpDb>>& dbs) {
  HloOpDb out;
  std::map<std::pair<uint64_t, std::string>, size_t> index;
  for (const auto& db : dbs) {
    if (out.peaks.kind == DeviceKind::kUnknown) out.peaks = db->peaks;
    if (db != dbs.front()) out.peaks.device_count += db->peaks.device_count;
    out.total_time_ps += db->total_time_ps;
    out.has_device_ops |= db->has_device_ops;
    for (const auto& [id, prog] : db->programs.by_id) {
      out.programs.by_id.emplace(id, prog);
      out.combined_programs.push_back(prog);
    }
    out.combined_programs.insert(out.combined_programs.end(), db->combined_programs.begin(), db->combined_programs.end());
    for (const HloOpMetrics& m : db->ops) {
      auto [it, fresh] = index.try_emplace({m.program_id, m.is_idle ? std::string() : m.name}, out.ops.size());
      if (fresh) {
        out.ops.push_back(m);
        continue;
      }
      HloOpMetrics& t = out.ops[it->second];
      t.occurrences += m.occurrences;
      t.time_ps += m.time_ps;
      t.self_time_ps += m.self_time_ps;
      t.flops += m.flops, t.model_flops += m.model_flops, t.bytes_accessed += m.bytes_accessed;
      t.hbm_bytes += m.hbm_bytes, t.cmem_rd += m.cmem_rd, t.cmem_wr += m.cmem_wr;
      t.vmem_rd += m.vmem_rd, t.vmem_wr += m.vmem_wr, t.onchip_rd += m.onchip_rd, t.onchip_wr += m.onchip_wr;
      t.has_breakdown |= m.has_breakdown, t.flops_known |= m.flops_known, t.bytes_known |= m.bytes_known;
    }
  }
  // IDLE last, as one op.
  std::stable_partition(out.ops.begin(), out.ops.end(), [](const HloOpMetrics& m) { return !m.is_idle; });
  return out;
}

std::vector<const HloOpMetrics*> SortedHloOps(const HloOpDb& db) {
  std::vector<const HloOpMetrics*> ops;
  for (const HloOpMetrics& m : db.ops) {
    if (!m.is_idle && m.occurrences > 0) ops.push_back(&m);
  }
  std::stable_sort(ops.begin(), ops.end(), [](const HloOpMetrics* a, const HloOpMetrics* b) {
    return a->self_time_ps != b->self_time_ps ? a->self_time_ps > b->self_time_ps : a->name < b->name;
  });
  return ops;
}

namespace {

bool IsRematerialization(std::string_view expression, std::string_view provenance) {
  return expression.find(".remat") != std::string_view::npos ||
         provenance.find("rematted_computation") != std::string_view::npos;
}

bool IsOutsideCompilation(std::string_view provenance, std::string_view expression) {
  if (provenance.ends_with(":XlaSendToHost") || provenance.ends_with(":XlaRecvFromHost")) return true;
  return expression.find("send-done") != std::string_view::npos &&
         expression.find("is_host_transfer=true") != std::string_view::npos;
}

DataTable BuildHloStatsTable(const HloOpDb& db) {
  DataTable t;
  static const char* kColumns[][3] = {
      {"rank", "number", "Rank"},
      {"program_id", "string", "Program id"},
      {"category", "string", "HLO op category"},
      {"hlo_op_name", "string", "HLO op name"},
      {"hlo_op_expression", "string", "HLO op text"},
      {"tf_op_name", "string", "Framework op name"},
      {"occurrences", "number", "#Occurrences"},
      {"total_time", "number", "Total time (us)"},
      {"avg_time", "number", "Avg. time (us)"},
      {"total_self_time", "number", "Total self time (us)"},
      {"avg_self_time", "number", "Avg. self time (us)"},
      {"total_self_time_percent", "number", "Total self time (%)"},
      {"cumulative_total_self_time_percent", "number", "Cumulative total self time (%)"},
      {"dma_stall_percent", "number", "%time stalled by DMA"},
      {"model_flop_rate", "number", "Model GFLOP/s"},
      {"normalized_flop_rate", "number", "Normalized GFLOP/s"},
      {"measured_memory_bw", "number", "Measured memory BW (GiB/s)"},
      {"hbm_bw", "number", "HBM BW (GiB/s)"},
      {"cmem_read_bw", "number", "CMEM Read BW (GiB/s)"},
      {"cmem_write_bw", "number", "CMEM Write BW (GiB/s)"},
      {"operational_intensity", "number", "Operational intensity (FLOPS/Byte)"},
      {"bound_by", "string", "Bound by"},
      {"hlo_rematerialization", "string", "Rematerialization"},
      {"outside_compilation", "string", "Outside Compilation"},
      {"autotuned", "string", "Autotuned"},
      {"source_info", "string", "Source Info"},
      {"source_stack", "string", "Source Stack"},
  };
  for (const auto& c : kColumns) t.AddColumn(c[0], c[2], c[1]);
  double total_us = static_cast<double>(db.total_time_ps) / 1e6;
  double cumulative = 0;
  int rank = 0;
  const bool tpu = db.peaks.kind == DeviceKind::kTpu;
  for (const HloOpMetrics* m : SortedHloOps(db)) {
    double time_us = static_cast<double>(m->time_ps) / 1e6, self_us = static_cast<double>(m->self_time_ps) / 1e6;
    double time_ns = static_cast<double>(m->time_ps) / 1e3;
    double fraction = SafeDivide(self_us, total_us);
    cumulative += fraction;
    DataTable::Cell unknown;
    auto known = [&](bool k, double v) { return k ? DataTable::Cell(v) : unknown; };
    double hbm = m->has_breakdown ? m->hbm_bytes : m->bytes_accessed;
    RooflineUse use;
    use.time_ps = static_cast<double>(m->time_ps);
    use.flops = m->flops;
    use.bytes = m->bytes_accessed;
    use.hbm_bytes = hbm;
    use.flops_known = m->flops_known, use.bytes_known = m->bytes_known;
    use.cmem_rd = m->cmem_rd, use.cmem_wr = m->cmem_wr, use.vmem_rd = m->vmem_rd, use.vmem_wr = m->vmem_wr;
    const std::string bound(FindRooflineBottleneck(use, db.peaks).resource);
    std::string hlo_op_name = m->name;
    t.AddRow({static_cast<double>(++rank), std::to_string(m->program_id), m->category, hlo_op_name,
              m->expression.empty() ? m->name : m->expression, m->provenance, static_cast<double>(m->occurrences),
              time_us, SafeDivide(time_us, m->occurrences), self_us, SafeDivide(self_us, m->occurrences),
              // No profile tbprof reads records an op's DMA stall time: unknown, not 0
              // (the roofline table says the same).
              fraction * 100.0, cumulative * 100.0, unknown,
              known(m->flops_known, SafeDivide(m->model_flops, time_ns)),
              known(m->flops_known, SafeDivide(m->flops, time_ns)),
              known(m->bytes_known, GigaToGibi(SafeDivide(m->bytes_accessed, time_ns))),
              known(m->bytes_known, GigaToGibi(SafeDivide(hbm, time_ns))),
              tpu ? DataTable::Cell(GigaToGibi(SafeDivide(m->cmem_rd, time_ns))) : unknown,
              tpu ? DataTable::Cell(GigaToGibi(SafeDivide(m->cmem_wr, time_ns))) : unknown,
              known(m->flops_known && m->bytes_known, SafeDivide(m->flops, m->bytes_accessed)), bound,
              IsRematerialization(m->expression, m->provenance) ? "Yes" : "No",
              IsOutsideCompilation(m->provenance, m->expression) ? "Yes" : "No", "No", m->source_info,
              m->source_stack});
  }
  return t;
}

}  // namespace

std::string HloStatsToJson(const HloOpDb& db) { return BuildHloStatsTable(db).ToJson(); }
std::string HloStatsToCsv(const HloOpDb& db) { return BuildHloStatsTable(db).ToCsv(); }

}  // namespace tbprof
