// xprof's kernel-stats utility tests (openxla/xprof), checked on tbprof's
// kernel_stats: the grouping by op is called as xprof's test calls it; the
// launch-parameter parser and the merging of a kernel's launches are reached
// the way a profile reaches them, through GPU kernel events of an XSpace read
// into OpStats. Expected values are those of xprof's test.
//
// Ported scenarios (file :: test — status — result):
// xprof/utils/kernel_stats_utils_test.cc
//   TestGroupKernelReportsByOpName             ported  pass (op1: eligible, 2000 ns, 1000 ns on TensorCores;
//                                              op2: not eligible, 100 ns, 0)
//   GroupKernelReportsByOpNameMixedEligibility ported  pass (one eligible kernel makes the op eligible)
//   KernelDetailsXStatParser                   ported  pass (the kernel_details text XLA's CUPTI tracer writes)
//   KernelDetailsTokenizer                     ported  pass (unknown words between key:value pairs are skipped)
//   TestInsertOrUpdateKernelReport             ported  pass (three launches of one kernel in either order:
//                                              2600 ns total, min 500, max 1200, 3 occurrences)
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "convert/analysis/kernels/xspace_to_kernel_stats.h"
#include "proto/xspace_builder.h"
#include "tests/testing/ops_fixtures.h"

namespace tbprof {
namespace {

using ops_test::OpStatsOf;
using tensorflow::profiler::KernelReport;
using tensorflow::profiler::KernelStatsDb;
using tensorflow::profiler::XSpace;

struct Report {
  const char* name;
  const char* op;
  uint64_t total_ns;
  bool uses_tc, eligible;
};

KernelStatsDb Db(const std::vector<Report>& reports) {
  KernelStatsDb db;
  for (const Report& r : reports) {
    KernelReport* k = db.add_reports();
    k->set_name(r.name);
    k->set_op_name(r.op);
    k->set_total_duration_ns(r.total_ns);
    k->set_is_kernel_using_tensor_core(r.uses_tc);
    k->set_is_op_tensor_core_eligible(r.eligible);
  }
  return db;
}

TEST(XprofKernelStatsUtilsPorts, TestGroupKernelReportsByOpName) {
  auto by_op = GroupKernelReportsByOpName(Db({{"op1_kernel1", "op1", 1000, true, true},
                                              {"op1_kernel2", "op1", 1000, false, true},
                                              {"op2_kernel1", "op2", 100, false, false}}));
  ASSERT_EQ(by_op.size(), 2u);
  ASSERT_TRUE(by_op.count("op1") && by_op.count("op2"));
  EXPECT_TRUE(by_op["op1"].is_op_tensor_core_eligible);
  EXPECT_EQ(by_op["op1"].total_duration_ns, 2000u);
  EXPECT_EQ(by_op["op1"].tensor_core_duration_ns, 1000u);
  EXPECT_FALSE(by_op["op2"].is_op_tensor_core_eligible);
  EXPECT_EQ(by_op["op2"].total_duration_ns, 100u);
  EXPECT_EQ(by_op["op2"].tensor_core_duration_ns, 0u);
}

// tbprof's own: a page that looks up a few ops sums only theirs, to the same figures.
TEST(XprofKernelStatsUtilsPorts, GroupKernelReportsOfSomeOpsAreThoseOfAll) {
  const KernelStatsDb db = Db({{"op1_kernel1", "op1", 1000, true, true},
                               {"op2_kernel1", "op2", 100, false, false},
                               {"op1_kernel2", "op1", 1000, false, true},
                               {"op3_kernel1", "op3", 7, true, true}});
  const std::set<std::string> only = {"op1", "op3", "not_an_op"};
  auto some = GroupKernelReportsByOpName(db, &only);
  auto all = GroupKernelReportsByOpName(db);
  ASSERT_EQ(some.size(), 2u);
  for (const char* op : {"op1", "op3"}) {
    ASSERT_TRUE(some.count(op)) << op;
    EXPECT_EQ(some[op].total_duration_ns, all[op].total_duration_ns) << op;
    EXPECT_EQ(some[op].tensor_core_duration_ns, all[op].tensor_core_duration_ns) << op;
    EXPECT_EQ(some[op].is_op_tensor_core_eligible, all[op].is_op_tensor_core_eligible) << op;
  }
  EXPECT_EQ(some["op1"].total_duration_ns, 2000u);
}

TEST(XprofKernelStatsUtilsPorts, GroupKernelReportsByOpNameMixedEligibility) {
  auto by_op = GroupKernelReportsByOpName(
      Db({{"op1_kernel1", "op1", 1000, false, false}, {"op1_kernel2", "op1", 500, true, true}}));
  ASSERT_EQ(by_op.size(), 1u);
  ASSERT_TRUE(by_op.count("op1"));
  EXPECT_TRUE(by_op["op1"].is_op_tensor_core_eligible);
  EXPECT_EQ(by_op["op1"].total_duration_ns, 1500u);
  EXPECT_EQ(by_op["op1"].tensor_core_duration_ns, 500u);
}

// One kernel launch on a GPU stream: name, duration in ns, kernel_details text.
struct Launch {
  std::string name;
  int64_t duration_ns;
  std::string details;
};

KernelStatsDb KernelStatsOf(const std::vector<Launch>& launches) {
  XSpace space;
  XPlaneBuilder gpu = AddPlane(space, "/device:GPU:0", 0);
  XLineBuilder stream = gpu.AddLine(1, "stream");
  int64_t t = 0;
  for (const Launch& l : launches) {
    stream.AddEvent(l.name, t, l.duration_ns * 1000).Str("kernel_details", l.details);
    t += 10 * l.duration_ns * 1000;
  }
  return OpStatsOf(space).kernel_stats_db;
}

const KernelReport& Named(const KernelStatsDb& db, const std::string& name) {
  for (const KernelReport& r : db.reports()) {
    if (r.name() == name) return r;
  }
  ADD_FAILURE() << "no kernel " << name;
  static const KernelReport kNone;
  return kNone;
}

std::vector<uint32_t> Dims(const google::protobuf::RepeatedField<uint32_t>& d) { return {d.begin(), d.end()}; }

TEST(XprofKernelStatsUtilsPorts, KernelDetailsXStatParser) {
  // XLA's ToXStat text for registers 10, shared 128 + 256 bytes, grid 3x2x1,
  // block 32x8x4 and 50 % occupancy.
  KernelStatsDb db = KernelStatsOf(
      {{"k", 1, "regs:10 static_shared:128 dynamic_shared:256 grid:3,2,1 block:32,8,4 occ_pct:50"}});
  const KernelReport& k = Named(db, "k");
  EXPECT_EQ(k.registers_per_thread(), 10u);
  EXPECT_EQ(k.static_shmem_bytes(), 128u);
  EXPECT_EQ(k.dynamic_shmem_bytes(), 256u);
  EXPECT_EQ(Dims(k.block_dim()), (std::vector<uint32_t>{32, 8, 4}));
  EXPECT_EQ(Dims(k.grid_dim()), (std::vector<uint32_t>{3, 2, 1}));
}

TEST(XprofKernelStatsUtilsPorts, KernelDetailsTokenizer) {
  KernelStatsDb db = KernelStatsOf({{"odd_first", 1, "odd grid:3,2,1"},
                                    {"odd_last", 1, "block:6,5,4 odd "},
                                    {"odd_between", 1, "block:1,2,3 odd grid:4,5,6"},
                                    {"shared_only", 1, "static_shared:7 dynamic_shared:8"}});
  EXPECT_EQ(Dims(Named(db, "odd_first").grid_dim()), (std::vector<uint32_t>{3, 2, 1}));
  EXPECT_EQ(Dims(Named(db, "odd_last").block_dim()), (std::vector<uint32_t>{6, 5, 4}));
  EXPECT_EQ(Dims(Named(db, "odd_between").block_dim()), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(Dims(Named(db, "odd_between").grid_dim()), (std::vector<uint32_t>{4, 5, 6}));
  EXPECT_EQ(Named(db, "shared_only").static_shmem_bytes(), 7u);
  EXPECT_EQ(Named(db, "shared_only").dynamic_shmem_bytes(), 8u);
}

// xprof merges a report of two launches (500 and 1200 ns) with one of one
// launch (900 ns), in both orders; here the three launches come in two orders.
TEST(XprofKernelStatsUtilsPorts, TestInsertOrUpdateKernelReport) {
  const std::string details = "grid:3,2,1 block:32,8,4";
  for (const std::vector<int64_t>& order : {std::vector<int64_t>{500, 1200, 900}, {900, 500, 1200}}) {
    std::vector<Launch> launches;
    for (int64_t ns : order) launches.push_back({"op1_kernel1", ns, details});
    KernelStatsDb db = KernelStatsOf(launches);
    ASSERT_EQ(db.reports_size(), 1);
    const KernelReport& k = db.reports(0);
    EXPECT_EQ(k.total_duration_ns(), 2600u);
    EXPECT_EQ(k.min_duration_ns(), 500u);
    EXPECT_EQ(k.max_duration_ns(), 1200u);
    EXPECT_EQ(k.occurrences(), 3u);
  }
}

// Not one of xprof's tests: a launch figure the tracer did not write is
// unknown, not 0. ROCm's tracer writes no registers, its kernel's LDS (AMD's
// shared memory) as group_mem, and an occupancy of 0 it did not compute;
// CUDA's writes all three, and a kernel without shared memory has 0 bytes.
TEST(KernelLaunchFigures, UnwrittenFiguresAreUnknownInTheTable) {
  KernelStatsDb db = KernelStatsOf(
      {{"rocm_gemm", 2, "grid:4096,1,1 block:256,1,1 private_mem:0 group_mem:51200 occ_pct:0"},
       {"cuda_relu", 1, "regs:32 static_shared:0 dynamic_shared:0 grid:1,1,1 block:32,1,1 occ_pct:50"},
       {"bare", 1, "grid:1,1,1 block:1,1,1"}});
  const KernelReport& rocm = Named(db, "rocm_gemm");
  EXPECT_FALSE(rocm.has_registers_per_thread());
  EXPECT_EQ(rocm.static_shmem_bytes(), 51200u);
  EXPECT_FALSE(rocm.has_occupancy_pct());
  const KernelReport& cuda = Named(db, "cuda_relu");
  EXPECT_EQ(cuda.registers_per_thread(), 32u);
  EXPECT_TRUE(cuda.has_static_shmem_bytes());
  EXPECT_FLOAT_EQ(cuda.occupancy_pct(), 50.0f);

  DataTable t = KernelStatsToDataTable(db);
  auto column = [&](const std::string& id) {
    for (size_t i = 0; i < t.columns().size(); ++i) {
      if (t.columns()[i].id == id) return i;
    }
    ADD_FAILURE() << "no column " << id;
    return size_t{0};
  };
  auto cell = [&](const std::string& kernel, const std::string& id) {
    for (const auto& row : t.rows()) {
      if (std::get<std::string>(row[column("kernel_name")]) == kernel) return row[column(id)];
    }
    ADD_FAILURE() << "no row " << kernel;
    return DataTable::Cell();
  };
  using Cell = DataTable::Cell;
  EXPECT_EQ(cell("rocm_gemm", "registers_per_thread"), Cell());
  EXPECT_EQ(cell("rocm_gemm", "shmem_bytes"), Cell(51200.0));
  EXPECT_EQ(cell("rocm_gemm", "occupancy_pct"), Cell());
  EXPECT_EQ(cell("cuda_relu", "registers_per_thread"), Cell(32.0));
  EXPECT_EQ(cell("cuda_relu", "shmem_bytes"), Cell(0.0));
  EXPECT_EQ(cell("cuda_relu", "occupancy_pct"), Cell(50.0));
  EXPECT_EQ(cell("bare", "registers_per_thread"), Cell());
  EXPECT_EQ(cell("bare", "shmem_bytes"), Cell());
  EXPECT_EQ(cell("bare", "occupancy_pct"), Cell());
}

}  // namespace
}  // namespace tbprof
