// roofline_model: xprof's two DataTables, [roofline table, diagnostics], from
// the HLO op table. Rows: the whole program first ("Program", rank 0, innermost
// ops summed), then every op by self time (at most 1000), for the profile
// duration ("Total"), once with infeed/outfeed ops and once without. The GPU
// table has xprof's GPU columns (SHM/L1 in place of CMEM/VMEM). Rates: GFLOP/s
// and GiB/s; fractions (self time %, roofline efficiency, …) in 0..1 as xprof
// writes them. Roofs are table properties: peak_flop_rate (GFLOP/s), peak_hbm_bw
// and the other memories' peaks (GiB/s), and the ridge points in FLOP/byte
// (peak FLOP/s over peak bytes/s).
// Not built: the per-step and average-step program rows of a TPU profile with
// steps (they need each step's own op table). A figure that cannot be
// computed (unknown FLOPs or bytes, of an op or of one op the program sums;
// unknown peak) is an empty cell. No GPU or TPU: an empty table. The
// diagnostics table lists the step warnings given (xprof's: the profile's
// step diagnostics), then a warning of unknown peaks.
#pragma once

#include <string>
#include <vector>

#include "convert/analysis/hlo/xspace_to_hlo_stats.h"

namespace tbprof {

std::string ConvertHloOpDbToRooflineJson(const HloOpDb& db, const std::vector<std::string>& step_warnings = {});
// CSV of the roofline table (the first DataTable).
std::string ConvertHloOpDbToRooflineCsv(const HloOpDb& db);

}  // namespace tbprof
