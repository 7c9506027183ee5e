#include "convert/analysis/hlo/roofline.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "convert/analysis/hlo/roofline_steps.h"
#include "convert/base/data_table.h"
#include "convert/base/math_util.h"
#include "convert/base/strings.h"

namespace tbprof {
namespace {

constexpr size_t kMaxRecords = 1000;

bool IsInfeedOrOutfeed(std::string_view category) { return category == "infeed" || category == "outfeed"; }
bool MayHaveInnerOps(std::string_view category) {
  return category == "while" || category == "call" || category == "conditional";
}

// xprof's roofline writes an op's source as an HTML cell, "file:line" with the
// stack as its title (the tooltip), everything escaped; empty without a source.
std::string SourceInfoCell(std::string_view source_info, std::string_view stack) {
  if (source_info.empty()) return {};
  return "<div class='source-info-cell' title='" + EscapeMarkup(stack) + "'>" + EscapeMarkup(source_info) + "</div>";
}

}  // namespace

RooflineRecord RooflineRecordOf(const HloOpMetrics& m) {
  RooflineRecord r;
  r.category = m.category, r.name = m.name, r.source_info = m.source_info, r.source_stack = m.source_stack;
  r.program_id = m.program_id;
  r.occurrences = m.occurrences, r.time_ps = m.time_ps, r.self_time_ps = m.self_time_ps;
  r.flops = m.flops, r.model_flops = m.model_flops, r.bytes = m.bytes_accessed;
  r.hbm = m.has_breakdown ? m.hbm_bytes : m.bytes_accessed;
  r.cmem_rd = m.cmem_rd, r.cmem_wr = m.cmem_wr, r.vmem_rd = m.vmem_rd, r.vmem_wr = m.vmem_wr;
  r.flops_known = m.flops_known, r.bytes_known = m.bytes_known;
  return r;
}

void AddRooflineColumns(bool gpu, DataTable& t) {
  auto col = [&](std::string id, const char* type, std::string label) {
    t.AddColumn(std::move(id), std::move(label), type);
  };
  col("step", "string", "Step");
  col("rank", "number", "Rank");
  col("category", "string", "Category");
  col("operation", "string", "Operation");
  col("occurrences", "number", "# Occurrences");
  col("total_time", "number", "Total Time (us)");
  col("avg_time", "number", "Avg. time (us)");
  col("total_self_time", "number", "Total self time (us)");
  col("avg_self_time", "number", "Avg. self time (us)");
  col("total_self_time_percent", "number", "Total self time (%)");
  col("cumulative_total_self_time_percent", "number", "Cumulative total self time (%)");
  if (!gpu) col("dma_stall_percent", "number", "%time stalled by DMA");
  col("measured_flop_rate", "number", "Normalized FLOP Rate (GFLOP/s)");
  col("model_flop_rate", "number", "Model FLOP Rate (GFLOP/s)");
  // The memories besides HBM with a bandwidth and an operational intensity
  // column each: a GPU's shared memory/L1 (xprof's vmem_write ids), a TPU's
  // CMEM and VMEM.
  struct Memory {
    const char* id;
    const char* label;
  };
  static constexpr Memory kGpuMemories[] = {{"vmem_write", "SHM/L1"}};
  static constexpr Memory kTpuMemories[] = {{"cmem_read", "CMEM Read"},
                                            {"cmem_write", "CMEM Write"},
                                            {"vmem_read", "VMEM Read"},
                                            {"vmem_write", "VMEM Write"}};
  const std::span<const Memory> memories =
      gpu ? std::span<const Memory>(kGpuMemories) : std::span<const Memory>(kTpuMemories);
  col("measured_memory_bw", "number", "Memory BW (GiB/s)");
  col("hbm_bw", "number", "HBM BW (GiB/s)");
  for (const Memory& m : memories) col(std::string(m.id) + "_bw", "number", std::string(m.label) + " BW (GiB/s)");
  col("operational_intensity", "number", "Operational Intensity (FLOP/Byte)");
  col("hbm_operational_intensity", "number", "HBM Operational Intensity (FLOP/Byte)");
  for (const Memory& m : memories) {
    col(std::string(m.id) + "_operational_intensity", "number",
        std::string(m.label) + " Operational Intensity (FLOP/Byte)");
  }
  col("bottleneck_operational_intensity", "number", "Bottleneck Operational Intensity (FLOP/Byte)");
  col("bound_by", "string", "Bound by");
  col("total_time_per_core", "number", "Total Time per core (us)");
  col("total_time_in_percentage", "number", "Total Time (%)");
  col("optimal_flop_rate", "number", "Optimal FLOP Rate (GFLOP/s)");
  col("roofline_efficiency", "number", "Roofline efficiency (%)");
  col("compute_efficiency", "number", "FLOP Rate / Peak (%)");
  col("max_mem_bw_utilization", "number", "Max memory BW utilization (among supported memories) (%)");
  col("include_infeed_outfeed", "boolean", "Include Infeed/Outfeed");
  col("hlo_module_id", "string", "Program ID");
  col("source_info", "string", "Source Info");
}

RooflineRecord ProgramRecord(const HloOpDb& db, bool include_infeed_outfeed) {
  uint64_t infeed_outfeed_ps = 0;
  RooflineRecord program;
  program.name = program.category = "Program";
  program.occurrences = 1;
  // The program's FLOPs (bytes) are a sum: known when every op in it has
  // known FLOPs (bytes). One op of unknown FLOPs (a library custom call the
  // cost model cannot count) leaves the program's rate unknown, where xprof
  // shows the sum of the others as if the rest were 0.
  bool any_op = false, all_flops = true, all_bytes = true;
  for (const HloOpMetrics& m : db.ops) {
    if (m.is_idle || MayHaveInnerOps(m.category)) continue;
    if (!include_infeed_outfeed && IsInfeedOrOutfeed(m.category)) {
      infeed_outfeed_ps += m.time_ps;
      continue;
    }
    RooflineRecord r = RooflineRecordOf(m);
    program.flops += r.flops, program.model_flops += r.model_flops, program.bytes += r.bytes;
    program.hbm += r.hbm, program.cmem_rd += r.cmem_rd, program.cmem_wr += r.cmem_wr;
    program.vmem_rd += r.vmem_rd, program.vmem_wr += r.vmem_wr;
    any_op = true, all_flops &= r.flops_known, all_bytes &= r.bytes_known;
  }
  program.flops_known = any_op && all_flops, program.bytes_known = any_op && all_bytes;
  program.time_ps = db.total_time_ps - std::min(db.total_time_ps, infeed_outfeed_ps);
  return program;
}

std::vector<RooflineRecord> OpRecords(const HloOpDb& db, bool include_infeed_outfeed, uint64_t total_ps) {
  std::vector<RooflineRecord> records;
  double cumulative = 0;
  int rank = 0;
  size_t n = 0;
  for (const HloOpMetrics* m : SortedHloOps(db)) {
    if (++n > kMaxRecords) break;
    if (!include_infeed_outfeed && IsInfeedOrOutfeed(m->category)) continue;
    RooflineRecord r = RooflineRecordOf(*m);
    r.rank = ++rank;
    r.self_fraction = SafeDivide(static_cast<double>(r.self_time_ps), static_cast<double>(total_ps));
    cumulative += r.self_fraction;
    r.cumulative_fraction = cumulative;
    records.push_back(std::move(r));
  }
  return records;
}

std::vector<DataTable::Cell> RooflineRow(const RooflineRecord& r, const DevicePeaks& pk, bool gpu,
                                         uint64_t total_ps, bool include_infeed_outfeed) {
  using Cell = DataTable::Cell;
  Cell unknown;
  double time_us = static_cast<double>(r.time_ps) / 1e6, self_us = static_cast<double>(r.self_time_ps) / 1e6;
  double time_ns = static_cast<double>(r.time_ps) / 1e3;
  auto gibps = [&](double b) { return GigaToGibi(SafeDivide(b, time_ns)); };
  double gflops = SafeDivide(r.flops, time_ns);
  double model_gflops = SafeDivide(r.model_flops, time_ns);
  RooflineUse use;
  use.time_ps = static_cast<double>(r.time_ps);
  use.flops = r.flops;  // a lower bound when not known: the ops' known FLOPs
  use.bytes = r.bytes;
  use.hbm_bytes = r.hbm;
  use.flops_known = r.flops_known, use.bytes_known = r.bytes_known;
  use.cmem_rd = r.cmem_rd, use.cmem_wr = r.cmem_wr, use.vmem_rd = r.vmem_rd, use.vmem_wr = r.vmem_wr;
  const RooflineBottleneck b = FindRooflineBottleneck(use, pk);
  const double flops_util = b.flops_utilization, mem_util = b.memory_utilization;
  const std::string bound(b.resource);
  const double bottleneck_oi = b.operational_intensity;
  bool peaks_known = pk.peak_tflops > 0 && pk.hbm_gbps > 0;
  double efficiency = std::max(mem_util, flops_util);
  auto known = [&](bool k, double v) { return k ? Cell(v) : unknown; };
  bool fk = r.flops_known, bk = r.bytes_known, fbk = fk && bk;
  std::vector<Cell> row = {std::string("Total"), static_cast<double>(r.rank), r.category, r.name,
                           static_cast<double>(r.occurrences), time_us, SafeDivide(time_us, r.occurrences),
                           self_us, SafeDivide(self_us, r.occurrences), r.self_fraction, r.cumulative_fraction};
  // The profile has no DMA stall time of an op: unknown, not 0.
  if (!gpu) row.push_back(unknown);
  row.insert(row.end(), {known(fk, gflops), known(fk, model_gflops), known(bk, gibps(r.bytes)),
                         known(bk, gibps(r.hbm))});
  if (gpu) {
    row.push_back(unknown);
  } else {
    for (double b : {r.cmem_rd, r.cmem_wr, r.vmem_rd, r.vmem_wr}) row.push_back(known(bk, gibps(b)));
  }
  row.insert(row.end(), {known(fbk, SafeDivide(r.flops, r.bytes)), known(fbk, SafeDivide(r.flops, r.hbm))});
  if (gpu) {
    row.push_back(unknown);
  } else {
    for (double b : {r.cmem_rd, r.cmem_wr, r.vmem_rd, r.vmem_wr}) row.push_back(known(fbk, SafeDivide(r.flops, b)));
  }
  row.insert(row.end(),
             {known(fbk && peaks_known, bottleneck_oi), bound,
              SafeDivide(time_us, std::max(1, pk.device_count)),
              SafeDivide(static_cast<double>(r.time_ps), static_cast<double>(total_ps)),
              // The efficiency is the larger utilisation: both figures are needed.
              known(fbk && peaks_known, SafeDivide(gflops, efficiency)), known(fbk && peaks_known, efficiency),
              known(fk && pk.peak_tflops > 0, flops_util), known(bk && pk.hbm_gbps > 0, mem_util),
              include_infeed_outfeed, std::to_string(r.program_id), SourceInfoCell(r.source_info, r.source_stack)});
  return row;
}

void SetRooflineProperties(const DevicePeaks& pk, bool gpu, DataTable& t) {
  auto num = [](double v) { return v < 0 ? std::string() : JsonNumber(v); };
  double peak_hbm_gib = pk.hbm_gbps > 0 ? GigaToGibi(pk.hbm_gbps) : -1;
  auto ridge = [&](double gbps) {
    return pk.peak_tflops > 0 && gbps > 0 ? JsonNumber(pk.peak_tflops * 1e12 / (gbps * 1e9)) : std::string();
  };
  t.SetProperty("device_type", pk.device_type);
  t.SetProperty("peak_flop_rate", num(pk.peak_tflops > 0 ? pk.peak_tflops * 1e3 : -1));  // GFLOP/s
  t.SetProperty("peak_hbm_bw", num(peak_hbm_gib));
  t.SetProperty("hbm_ridge_point", ridge(pk.hbm_gbps));
  auto gib = [&](double gbps) { return gbps > 0 ? JsonNumber(GigaToGibi(gbps)) : std::string(); };
  if (gpu) {
    // The shared memory / L1 peak under the VMEM write name, as xprof's GPU table has it.
    t.SetProperty("peak_vmem_write_bw", gib(pk.sram_wr_gbps));
    t.SetProperty("vmem_write_ridge_point", ridge(pk.sram_wr_gbps));
    return;
  }
  t.SetProperty("megacore", pk.megacore ? "1" : "0");
  t.SetProperty("has_cmem", pk.has_cmem ? "1" : "0");
  t.SetProperty("has_merged_vmem", pk.has_merged_vmem ? "1" : "0");
  // A chip with CMEM has its CMEM roofs; one without, its merged VMEM's.
  const bool vmem = pk.has_merged_vmem && !pk.has_cmem;
  auto only = [](bool counts, double gbps) { return counts ? gbps : -1.0; };
  const double cmem_rd = only(pk.has_cmem, pk.cmem_rd_gbps), cmem_wr = only(pk.has_cmem, pk.cmem_wr_gbps);
  const double vmem_rd = only(vmem, pk.vmem_rd_gbps), vmem_wr = only(vmem, pk.vmem_wr_gbps);
  t.SetProperty("peak_cmem_read_bw", gib(cmem_rd));
  t.SetProperty("peak_cmem_write_bw", gib(cmem_wr));
  t.SetProperty("peak_vmem_read_bw", gib(vmem_rd));
  t.SetProperty("peak_vmem_write_bw", gib(vmem_wr));
  t.SetProperty("cmem_read_ridge_point", ridge(cmem_rd));
  t.SetProperty("cmem_write_ridge_point", ridge(cmem_wr));
  t.SetProperty("vmem_read_ridge_point", ridge(vmem_rd));
  t.SetProperty("vmem_write_ridge_point", ridge(vmem_wr));
}

namespace {

// The roofline table: the program's row, then its ops', with infeed and
// outfeed and without them; empty where no accelerator ran.
DataTable RooflineTable(const HloOpDb& db) {
  const bool gpu = db.peaks.kind == DeviceKind::kGpu;
  DataTable t;
  AddRooflineColumns(gpu, t);
  // Only accelerators have a roofline: a profile without GPU or TPU planes
  // gets an empty table, as xprof's.
  if (db.peaks.kind == DeviceKind::kUnknown) return t;
  for (const bool include_infeed_outfeed : {true, false}) {
    const RooflineRecord program = ProgramRecord(db, include_infeed_outfeed);
    t.AddRow(RooflineRow(program, db.peaks, gpu, program.time_ps, include_infeed_outfeed));
    for (const RooflineRecord& r : OpRecords(db, include_infeed_outfeed, program.time_ps)) {
      t.AddRow(RooflineRow(r, db.peaks, gpu, program.time_ps, include_infeed_outfeed));
    }
  }
  return t;
}

// The diagnostics table: the step warnings, then a warning of unknown peaks.
DataTable RooflineDiagnostics(const HloOpDb& db, const std::vector<std::string>& step_warnings) {
  DataTable diagnostics;
  diagnostics.AddColumn("severity", "Severity", "string");
  diagnostics.AddColumn("message", "Message", "string");
  if (db.peaks.kind == DeviceKind::kUnknown) return diagnostics;
  for (const std::string& w : step_warnings) diagnostics.AddRow({std::string("WARNING"), w});
  if (db.peaks.peak_tflops < 0 || db.peaks.hbm_gbps < 0) {
    diagnostics.AddRow({std::string("WARNING"),
                        std::string("The device's peak FLOP rate or memory bandwidth is unknown: utilisations "
                                    "and bound-by are left empty.")});
  }
  return diagnostics;
}

}  // namespace

std::string ConvertHloOpDbToRooflineJson(const HloOpDb& db, const std::vector<std::string>& step_warnings) {
  DataTable table = RooflineTable(db);
  SetRooflineProperties(db.peaks, db.peaks.kind == DeviceKind::kGpu, table);
  const DataTable diagnostics = RooflineDiagnostics(db, step_warnings);
  return DataTablesToJson({&table, &diagnostics});
}

std::string ConvertHloOpDbToRooflineCsv(const HloOpDb& db) { return RooflineTable(db).ToCsv(); }

}  // namespace tbprof
