// Reads a PyTorch profiler (Kineto) trace, the Chrome-trace JSON that
// torch.profiler writes (`*.pt.trace.json[.gz]`), into the XSpaceModel the
// xplane reader fills, so every tool reads it unchanged:
//  - `/host:CPU`: one line per (pid, tid) with the cpu_op, user_annotation,
//    python_function, cuda_runtime / cuda_driver events (args as stats), and
//    each `[memory]` record as a MemoryAllocation / MemoryDeallocation instant;
//  - `/device:GPU:<n>` per device: one line per stream with its kernels,
//    copies and sets; `deviceProperties` as the plane's capability stats; a
//    line of its own for gpu_user_annotation spans;
//  - `Task Environment`: the profiling span's start and stop.
// Links and names the analyses read: `correlation_id` on launches and device
// ops (launch ↔ kernel), `kernel_details` in the CUPTI collector's format,
// `tf_op` = "<op>:<op>" naming the cpu_op that launched a device op (or the
// cpu_op itself), `_r` / `step_num` on each host `ProfilerStep#N`.
// Times: integer absolute µs (old traces) or fractional µs relative to
// `baseTimeNanoseconds` (current Kineto); both are read to the nanosecond and
// shifted so the earliest event starts at 0.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "convert/base/status.h"
#include "convert/model/kineto_names.h"
#include "convert/model/schema.h"
#include "convert/model/xspace_model.h"
#include "convert/model/load_options.h"

namespace tbprof {

// Names of the stats the importer writes beyond the xplane schema's.
inline constexpr std::string_view kKinetoCategoryStat = schema::kKinetoCategory;  // metadata stat: `cat` as written
inline constexpr std::string_view kKinetoExternalIdStat = "External id";
inline constexpr std::string_view kKinetoOccupancyStat = schema::kKinetoOccupancy;
// The line holding a device's gpu_user_annotation spans: an id in the range
// of derived lines, so analyses of device ops skip it as they skip those.
inline constexpr int64_t kKinetoGpuAnnotationLineId = schema::kThreadIdDerivedMax;

// Decodes a Kineto trace's JSON text; `source` names it in errors. From
// options.parallel_min_bytes on, two threads read the events.
StatusOr<std::unique_ptr<XSpaceModel>> ParseKinetoTrace(std::string_view json, std::string_view source,
                                                        const LoadOptions& options = {});

// Maps (or, for gzip, inflates within options.max_bytes) and decodes a file.
StatusOr<std::unique_ptr<XSpaceModel>> LoadKinetoFile(const std::string& path, const LoadOptions& options = {});

// A cheap look at a listed trace, for marking it in host lists: "empty" (0
// bytes), "damaged" (not gzip'ed and not beginning as a JSON object, as
// binary bytes do), or "" (it begins as a trace does; decoding may still
// find damage further on).
std::string KinetoFileDamage(const std::string& path);

}  // namespace tbprof
