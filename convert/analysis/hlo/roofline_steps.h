// The steps of roofline_model (roofline.h), each usable on its own: an op's
// record, the program's record, the ranked op records, a record's row of
// cells, and the table's columns and roof properties. roofline.cc runs them
// top-down: columns; for infeed/outfeed included and not, the program's row
// then the ops' rows; then the properties.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convert/analysis/device/device_peaks.h"
#include "convert/analysis/hlo/xspace_to_hlo_stats.h"
#include "convert/base/data_table.h"

namespace tbprof {

// One row's figures before they become cells.
struct RooflineRecord {
  std::string category, name, source_info, source_stack;
  uint64_t program_id = 0;
  uint32_t occurrences = 0;
  uint64_t time_ps = 0, self_time_ps = 0;
  double flops = 0, model_flops = 0, bytes = 0, hbm = 0, cmem_rd = 0, cmem_wr = 0, vmem_rd = 0, vmem_wr = 0;
  bool flops_known = false, bytes_known = false;
  int rank = 0;  // 0: the program's row
  double self_fraction = 0, cumulative_fraction = 0;
};

// An op's record (all its bytes count as HBM without a memory breakdown).
RooflineRecord RooflineRecordOf(const HloOpMetrics& m);

// The "Program" record: the innermost ops summed (IDLE and ops that contain
// others left out; infeed/outfeed too unless included), its time the
// profile's device time less the infeed/outfeed time left out. A sum is known
// only when every op in it is.
RooflineRecord ProgramRecord(const HloOpDb& db, bool include_infeed_outfeed);

// The ops by self time (the first 1000, infeed/outfeed dropped unless
// included), ranked from 1, with their self-time fractions of `total_ps`.
std::vector<RooflineRecord> OpRecords(const HloOpDb& db, bool include_infeed_outfeed, uint64_t total_ps);

// xprof's columns (the GPU table has SHM/L1 in place of CMEM/VMEM and no DMA stall).
void AddRooflineColumns(bool gpu, DataTable& t);

// A record's cells, in AddRooflineColumns' order; unknown figures are empty cells.
std::vector<DataTable::Cell> RooflineRow(const RooflineRecord& r, const DevicePeaks& pk, bool gpu, uint64_t total_ps,
                                         bool include_infeed_outfeed);

// The roofs: peak rates and ridge points as table properties (empty where unknown).
void SetRooflineProperties(const DevicePeaks& pk, bool gpu, DataTable& t);

}  // namespace tbprof
