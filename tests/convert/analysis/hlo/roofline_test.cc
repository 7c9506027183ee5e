// The roofline_model table from an HLO op table built by hand, every expected
// figure worked out below from the ops' times, FLOPs and bytes (xprof has no
// test of its roofline converter to port). Units are xprof's: FLOP rates in
// GFLOP/s (FLOPs per ns), bandwidths in GiB/s, fractions in 0..1.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <optional>
#include <string>

#include "convert/analysis/hlo/roofline.h"
#include "convert/analysis/op_stats_pages/step_diagnostics.h"
#include "convert/analysis/hlo/xspace_to_hlo_stats.h"

namespace tbprof {
namespace {

namespace json = boost::json;

constexpr uint64_t kMs = 1000000000;  // ps
constexpr double kGiB = 1024.0 * 1024 * 1024;

HloOpMetrics Op(std::string name, std::string category, uint64_t time_ps, uint64_t self_ps, uint32_t occurrences) {
  HloOpMetrics m;
  m.name = std::move(name), m.category = std::move(category);
  m.time_ps = time_ps, m.self_time_ps = self_ps, m.occurrences = occurrences;
  m.program_id = 5;
  return m;
}

// A TPU of 100 TFLOP/s, 1000 GB/s HBM and a merged VMEM read at 4000 GB/s,
// two cores, over 10 ms: a fusion (4 ms, 2e11 FLOPs, 1e9 HBM and 1.2e10 VMEM
// read bytes), an infeed (1 ms, FLOPs unknown, 1e8 bytes not broken down), a
// while loop (5 ms, 0.5 ms its own; its FLOPs and bytes are its body's) and
// 0.5 ms idle.
HloOpDb Db() {
  HloOpDb db;
  db.total_time_ps = 10 * kMs;
  db.has_device_ops = true;
  db.peaks.kind = DeviceKind::kTpu;
  db.peaks.device_type = "TPU v9";
  db.peaks.device_count = 2;
  db.peaks.peak_tflops = 100, db.peaks.hbm_gbps = 1000, db.peaks.vmem_rd_gbps = 4000;
  db.peaks.has_merged_vmem = true;
  HloOpMetrics fusion = Op("fusion.1", "loop fusion", 4 * kMs, 4 * kMs, 2);
  fusion.flops = 2e11, fusion.model_flops = 1e11, fusion.bytes_accessed = 1.3e10;
  fusion.has_breakdown = true, fusion.hbm_bytes = 1e9, fusion.vmem_rd = 1.2e10;
  fusion.flops_known = fusion.bytes_known = true;
  fusion.source_info = "model.py:12", fusion.source_stack = "f <a>\n'g'";
  HloOpMetrics infeed = Op("infeed.1", "infeed", 1 * kMs, 1 * kMs, 1);
  infeed.bytes_accessed = 1e8, infeed.bytes_known = true;
  HloOpMetrics loop = Op("while.1", "while", 5 * kMs, kMs / 2, 1);
  loop.flops = 2e11, loop.bytes_accessed = 1.3e10, loop.has_breakdown = true, loop.hbm_bytes = 1e9, loop.vmem_rd = 1.2e10;
  loop.flops_known = loop.bytes_known = true;
  HloOpMetrics idle = Op("IDLE", "IDLE", kMs / 2, kMs / 2, 0);
  idle.is_idle = true;
  db.ops = {fusion, infeed, loop, idle};
  return db;
}

class Table {
 public:
  explicit Table(const json::value& t) : t_(t.as_object()) {}
  size_t Rows() const { return t_.at("rows").as_array().size(); }
  std::string Label(const std::string& id) const {
    for (const json::value& c : t_.at("cols").as_array()) {
      if (c.at("id").as_string() == id) return std::string(c.at("label").as_string());
    }
    return "(no column " + id + ")";
  }
  const json::value& Cell(size_t row, const std::string& id) const {
    const json::array& cols = t_.at("cols").as_array();
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].at("id").as_string() == id) {
        const json::object& cell = t_.at("rows").as_array().at(row).at("c").as_array().at(i).as_object();
        static const json::value kNull;
        return cell.contains("v") ? cell.at("v") : kNull;
      }
    }
    ADD_FAILURE() << "no column " << id;
    static const json::value kNull;
    return kNull;
  }
  std::optional<double> Number(size_t row, const std::string& id) const {
    const json::value& v = Cell(row, id);
    if (v.is_null()) return std::nullopt;
    return v.to_number<double>();
  }
  std::string Text(size_t row, const std::string& id) const { return std::string(Cell(row, id).as_string()); }
  std::string Property(const std::string& key) const { return std::string(t_.at("p").at(key).as_string()); }

 private:
  const json::object& t_;
};

TEST(RooflineTable, ColumnsAndDevicePropertiesInXprofsUnits) {
  json::value tables = json::parse(ConvertHloOpDbToRooflineJson(Db()));
  Table t(tables.as_array().at(0));
  EXPECT_EQ(t.Label("measured_flop_rate"), "Normalized FLOP Rate (GFLOP/s)");
  EXPECT_EQ(t.Label("model_flop_rate"), "Model FLOP Rate (GFLOP/s)");
  EXPECT_EQ(t.Label("optimal_flop_rate"), "Optimal FLOP Rate (GFLOP/s)");
  EXPECT_EQ(t.Label("hbm_bw"), "HBM BW (GiB/s)");
  // 100 TFLOP/s = 1e5 GFLOP/s; 1000 GB/s = 1e12 / 2^30 GiB/s; ridge 1e14 / 1e12 = 100 FLOP/byte.
  EXPECT_DOUBLE_EQ(std::stod(t.Property("peak_flop_rate")), 1e5);
  EXPECT_NEAR(std::stod(t.Property("peak_hbm_bw")), 1e12 / kGiB, 1e-9);
  EXPECT_NEAR(std::stod(t.Property("hbm_ridge_point")), 100, 1e-9);
  EXPECT_NEAR(std::stod(t.Property("vmem_read_ridge_point")), 25, 1e-9);  // 1e14 / 4e12
  EXPECT_EQ(t.Property("has_merged_vmem"), "1");
  EXPECT_EQ(t.Property("device_type"), "TPU v9");
}

TEST(RooflineTable, RowsWithInfeedOutfeed) {
  json::value tables = json::parse(ConvertHloOpDbToRooflineJson(Db()));
  Table t(tables.as_array().at(0));
  // Program, 3 ops; then program, 2 ops without the infeed.
  ASSERT_EQ(t.Rows(), 7u);
  // The program: 10 ms, the innermost ops' sums (fusion + infeed; the while
  // loop's figures are its body's). The infeed's FLOPs are unknown, so the
  // program's are: no FLOP rate, compute efficiency, optimal rate or
  // bottleneck intensity. Its bytes are all known: HBM 1.1e9 B / 1e7 ns = 110
  // GB/s (0.11 of the peak); VMEM read 1.2e10 / 1e7 ns = 1200 GB/s (0.3). The
  // known FLOPs, 2e11 in 10 ms, are 0.2 of the peak: the unknown rest could
  // make compute the bound, so the bound and the roofline efficiency (the
  // larger utilisation) are unknown.
  EXPECT_EQ(t.Text(0, "step"), "Total");
  EXPECT_EQ(t.Text(0, "category"), "Program");
  EXPECT_EQ(*t.Number(0, "rank"), 0);
  EXPECT_DOUBLE_EQ(*t.Number(0, "total_time"), 10000);
  EXPECT_FALSE(t.Number(0, "measured_flop_rate").has_value());
  EXPECT_FALSE(t.Number(0, "model_flop_rate").has_value());
  EXPECT_FALSE(t.Number(0, "compute_efficiency").has_value());
  EXPECT_FALSE(t.Number(0, "optimal_flop_rate").has_value());
  EXPECT_FALSE(t.Number(0, "bottleneck_operational_intensity").has_value());
  EXPECT_NEAR(*t.Number(0, "hbm_bw"), 110e9 / kGiB, 1e-9);
  EXPECT_NEAR(*t.Number(0, "vmem_read_bw"), 1200e9 / kGiB, 1e-9);
  EXPECT_EQ(t.Text(0, "bound_by"), "Unknown");
  EXPECT_FALSE(t.Number(0, "roofline_efficiency").has_value());
  EXPECT_NEAR(*t.Number(0, "max_mem_bw_utilization"), 0.3, 1e-12);
  EXPECT_DOUBLE_EQ(*t.Number(0, "total_time_per_core"), 5000);  // two cores
  EXPECT_TRUE(t.Cell(0, "include_infeed_outfeed").as_bool());
  // The fusion, most self time: 4 ms of 10 (0.4). 2e11 / 4e6 ns = 50000
  // GFLOP/s (0.5); model 25000; HBM 1e9 / 4e6 = 250 GB/s; VMEM read 3000 GB/s
  // (0.75): bound by VMEM read, optimal 50000 / 0.75. HBM intensity 2e11 / 1e9.
  EXPECT_EQ(t.Text(1, "operation"), "fusion.1");
  EXPECT_EQ(*t.Number(1, "rank"), 1);
  EXPECT_DOUBLE_EQ(*t.Number(1, "avg_time"), 2000);
  EXPECT_DOUBLE_EQ(*t.Number(1, "total_self_time_percent"), 0.4);
  EXPECT_DOUBLE_EQ(*t.Number(1, "measured_flop_rate"), 50000);
  EXPECT_DOUBLE_EQ(*t.Number(1, "model_flop_rate"), 25000);
  EXPECT_NEAR(*t.Number(1, "hbm_bw"), 250e9 / kGiB, 1e-9);
  EXPECT_DOUBLE_EQ(*t.Number(1, "hbm_operational_intensity"), 200);
  EXPECT_NEAR(*t.Number(1, "operational_intensity"), 2e11 / 1.3e10, 1e-12);
  EXPECT_EQ(t.Text(1, "bound_by"), "VMEM Read");
  EXPECT_NEAR(*t.Number(1, "roofline_efficiency"), 0.75, 1e-12);
  EXPECT_NEAR(*t.Number(1, "optimal_flop_rate"), 50000 / 0.75, 1e-6);
  EXPECT_DOUBLE_EQ(*t.Number(1, "total_time_in_percentage"), 0.4);
  // The source as xprof's HTML cell, the stack its (escaped) title; none for an op without a source.
  EXPECT_EQ(t.Text(1, "source_info"), "<div class='source-info-cell' title='f &lt;a&gt;\n&#39;g&#39;'>model.py:12</div>");
  EXPECT_EQ(t.Text(2, "source_info"), "");
  // No DMA stall time in the profile: unknown, not 0.
  EXPECT_FALSE(t.Number(1, "dma_stall_percent").has_value());
  // The infeed: FLOPs unknown, so no FLOP rate, compute efficiency or bound;
  // its 1e8 bytes are HBM's (no breakdown): 100 GB/s, 0.1 of the peak.
  EXPECT_EQ(t.Text(2, "operation"), "infeed.1");
  EXPECT_FALSE(t.Number(2, "measured_flop_rate").has_value());
  EXPECT_FALSE(t.Number(2, "compute_efficiency").has_value());
  EXPECT_NEAR(*t.Number(2, "hbm_bw"), 100e9 / kGiB, 1e-9);
  EXPECT_EQ(t.Text(2, "bound_by"), "Unknown");
  EXPECT_DOUBLE_EQ(*t.Number(2, "cumulative_total_self_time_percent"), 0.5);
  // The while loop: its own 0.5 ms; 2e11 / 5e6 ns = 40000 GFLOP/s.
  EXPECT_EQ(t.Text(3, "operation"), "while.1");
  EXPECT_DOUBLE_EQ(*t.Number(3, "measured_flop_rate"), 40000);
  EXPECT_DOUBLE_EQ(*t.Number(3, "total_self_time_percent"), 0.05);
}

TEST(RooflineTable, RowsWithoutInfeedOutfeed) {
  json::value tables = json::parse(ConvertHloOpDbToRooflineJson(Db()));
  Table t(tables.as_array().at(0));
  ASSERT_EQ(t.Rows(), 7u);
  // The program over 10 - 1 ms, the fusion alone (FLOPs known now): 2e11 / 9e6
  // ns GFLOP/s (0.222 of the peak); model 1e11 / 9e6; VMEM 1.2e10 / 9e6 ns =
  // 1333.3 GB/s (1/3): bound by VMEM read at 2e11 / 1.2e10 FLOP/byte.
  EXPECT_EQ(t.Text(4, "category"), "Program");
  EXPECT_FALSE(t.Cell(4, "include_infeed_outfeed").as_bool());
  EXPECT_DOUBLE_EQ(*t.Number(4, "total_time"), 9000);
  EXPECT_NEAR(*t.Number(4, "measured_flop_rate"), 2e11 / 9e6, 1e-9);
  EXPECT_NEAR(*t.Number(4, "model_flop_rate"), 1e11 / 9e6, 1e-9);
  EXPECT_NEAR(*t.Number(4, "compute_efficiency"), 2e11 / 9e6 / 1e5, 1e-12);
  EXPECT_EQ(t.Text(4, "bound_by"), "VMEM Read");
  EXPECT_NEAR(*t.Number(4, "bottleneck_operational_intensity"), 2e11 / 1.2e10, 1e-9);
  EXPECT_NEAR(*t.Number(4, "optimal_flop_rate"), 2e11 / 9e6 * 3, 1e-6);
  EXPECT_NEAR(*t.Number(4, "hbm_bw"), 1e9 / 9e6 * 1e9 / kGiB, 1e-9);
  EXPECT_NEAR(*t.Number(4, "roofline_efficiency"), 1.0 / 3, 1e-12);
  // The ops: the fusion 4 of 9 ms, the while loop 0.5 of 9; no infeed.
  EXPECT_EQ(t.Text(5, "operation"), "fusion.1");
  EXPECT_NEAR(*t.Number(5, "total_self_time_percent"), 4.0 / 9, 1e-12);
  EXPECT_NEAR(*t.Number(5, "total_time_in_percentage"), 4.0 / 9, 1e-12);
  EXPECT_EQ(t.Text(6, "operation"), "while.1");
  EXPECT_EQ(*t.Number(6, "rank"), 2);
  EXPECT_NEAR(*t.Number(6, "cumulative_total_self_time_percent"), 4.5 / 9, 1e-12);
}

// xprof's roofline diagnostics are the profile's step diagnostics: a profile
// without steps warns that the step time is unknown; hosts with steps but none
// in common say so instead; a profile with steps has no warning.
TEST(RooflineTable, DiagnosticsCarryTheStepWarnings) {
  auto diagnostics = [](const OpStats& op_stats) {
    json::value tables = json::parse(ConvertHloOpDbToRooflineJson(Db(), StepWarnings(op_stats)));
    return tables.as_array().at(1).at("rows").as_array();
  };
  OpStats no_steps;
  json::array rows = diagnostics(no_steps);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("c").at(0).at("v").as_string(), "WARNING");
  EXPECT_EQ(rows[0].at("c").at(1).at("v").as_string(), kNoStepMarkerWarning);
  OpStats disjoint;
  disjoint.empty_step_intersection = true;
  rows = diagnostics(disjoint);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("c").at(1).at("v").as_string(), kEmptyStepIntersectionWarning);
  OpStats with_steps;
  with_steps.steps.push_back(HostSteps{"host0", {StepInfo{}}});
  EXPECT_TRUE(diagnostics(with_steps).empty());
  OpStats tpu_steps;
  tpu_steps.tpu_step_db.push_back(PerCoreStepInfo{});
  EXPECT_TRUE(diagnostics(tpu_steps).empty());
}

// xprof builds no roofline for a profile without accelerators (hardware
// neither GPU nor TPU): no rows and no diagnostics, where tbprof would
// otherwise have written two all-zero program rows.
TEST(RooflineTable, NoAcceleratorNoRows) {
  HloOpDb db = Db();
  db.peaks = DevicePeaks{};
  json::value tables = json::parse(ConvertHloOpDbToRooflineJson(db, StepWarnings(OpStats{})));
  EXPECT_EQ(Table(tables.as_array().at(0)).Rows(), 0u);
  EXPECT_TRUE(tables.as_array().at(1).at("rows").as_array().empty());
}

}  // namespace
}  // namespace tbprof
