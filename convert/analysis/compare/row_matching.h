// The matching rules of the comparison's tables: how one run's results
// become rows (framework ops by where, type and name; HLO ops by category and
// name; kernels by name; memory by allocator) and how rows of two runs pair.
#pragma once

#include <vector>

#include "convert/analysis/compare/delta_rows.h"
#include "convert/analysis/hlo/xspace_to_hlo_stats.h"
#include "convert/analysis/host_events/xspace_to_memory_profile.h"
#include "proto/kernel_stats.pb.h"
#include "proto/tf_stats.pb.h"

namespace tbprof {

// One run's rows, its figures in the *_a fields; rows with the same key are summed.
std::vector<OpDeltaRow> FrameworkOpRows(const tensorflow::profiler::TfStatsDatabase& db);
std::vector<OpDeltaRow> HloOpRows(const HloOpDb& db);
std::vector<OpDeltaRow> KernelRows(const tensorflow::profiler::KernelStatsDb& db);

// Pairs the rows of A and B (each from the functions above) by (where, type,
// name) and sorts them by |delta|. A null side is a table the run cannot give.
std::vector<OpDeltaRow> MatchOpRows(const std::vector<OpDeltaRow>* a, const std::vector<OpDeltaRow>* b);

// Per memory id of either run: the peak, its stack/heap/free breakdown and
// fragmentation at the peak, the lifetime peak and the capacity.
std::vector<MetricRow> MemoryRows(const MemoryProfile* a, const MemoryProfile* b);

}  // namespace tbprof
