// The device op table rolled up to framework ops (the table framework_op_stats
// and the overview's top ops show), and an op table's rows in the order every
// page lists them.
#pragma once

#include <cstddef>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"

namespace tbprof {

// Device ops rolled up to their framework op (CreateTfMetricsDbFromDeviceOpMetricsDb):
// times summed, occurrences the max over the op's kernels.
OpMetricsDb DeviceTfOpMetricsDb(const OpMetricsDb& device_db, bool with_idle);
// A PyTorch op's calls are those of its operator on the host (torch-tb-profiler's
// count), not the most launches of one of its kernels: an op whose kernel
// choice varies with the input shape launches each kernel fewer times.
void CountOperatorCalls(const OpMetricsDb& host_db, OpMetricsDb& device_tf_db);
// Ops by self time desc, then name asc; at most `limit`.
std::vector<const OpMetrics*> SortedOps(const OpMetricsDb& db, size_t limit);

}  // namespace tbprof
