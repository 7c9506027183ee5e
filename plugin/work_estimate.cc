#include "plugin/work_estimate.h"

#include <algorithm>

#include "convert/model/xspace_model.h"
#include "convert/tools/artifact_cache.h"
#include "plugin/route_util.h"

namespace tbprof {
namespace {

// Working memory per byte of input, measured with `tbprof convert` on a
// 300k-event synthetic profile (25 MB; peak RSS less the idle process): a
// whole decoded model is about twice its file (tools computing op statistics
// load less, 1.4x in all); memory_profile's tables add about one file size; a
// whole-trace JSON about two more (and its gzip'ed copy when it is cached).
constexpr uint64_t kModelBytesPerFileByte = 2;
constexpr uint64_t kTraceJsonBytesPerFileByte = 3;
constexpr uint64_t kAnswerBytesPerFileByte = 1;
constexpr uint64_t kLegacyBytesPerFileByte = 3;

}  // namespace

uint64_t DecodedModelBytes(uint64_t file_size, std::optional<uint64_t> inflated_size) {
  if (!inflated_size) return file_size * kModelBytesPerFileByte;
  const uint64_t decoded = std::max(file_size, *inflated_size);
  return decoded + decoded * kModelBytesPerFileByte;
}

uint64_t ToolAnswerBytes(WorkCost cost, uint64_t file_size, uint64_t max_response_bytes) {
  // trace_viewer and trace_viewer@ (whose window may be the whole trace).
  const uint64_t per_byte = cost == WorkCost::kWholeTrace ? kTraceJsonBytesPerFileByte : kAnswerBytesPerFileByte;
  return std::min(file_size * per_byte, 2 * max_response_bytes);
}

uint64_t LegacyFileBytes(uint64_t file_size, uint64_t inflated_size) {
  return (file_size + inflated_size) * kLegacyBytesPerFileByte;
}

uint64_t ModelLoadBytes(ArtifactCache& cache, const WorkLimits& limits, const std::string& path,
                        const FileIdentity& id) {
  if (cache.Peek<XSpaceModel>("model|" + FileIdentityKey(path, id)) != nullptr) return 0;
  FileAccessScope confined(limits.confined_root, limits.max_inflated_bytes);
  return DecodedModelBytes(id.size, GzipInflatedEstimate(path, id.size, limits.max_inflated_bytes));
}

uint64_t WorkingBytes(ArtifactCache& cache, const WorkLimits& limits, const DataPlan& plan) {
  uint64_t bytes = 0;
  if (plan.spec != nullptr) {
    for (const auto& [path, id] : plan.files) {
      bytes += ModelLoadBytes(cache, limits, path, id) +
               ToolAnswerBytes(plan.spec->cost, id.size, limits.max_response_bytes);
    }
    return bytes;
  }
  FileAccessScope confined(limits.confined_root, limits.max_inflated_bytes);
  for (const auto& [path, id] : plan.files) {
    // A gzip'ed legacy file (trace.json.gz sent as it is, or a .pb.gz a converter reads) inflates first.
    const uint64_t inflated =
        plan.legacy_gzip ? 0 : GzipInflatedEstimate(path, id.size, limits.max_inflated_bytes).value_or(0);
    bytes += LegacyFileBytes(id.size, inflated);
  }
  if (plan.inflate_for_client) bytes += limits.max_response_bytes;  // inflated up to the response limit
  return bytes;
}

uint64_t SummaryBytes(const WorkLimits& limits, const RunFile& file) {
  if (file.format != ProfileFormat::kXPlane) return 0;
  FileAccessScope confined(limits.confined_root, limits.max_inflated_bytes);
  auto id = FileIdentityOf(file.path);
  if (!id.ok()) return 0;
  return GzipInflatedEstimate(file.path, id->size, limits.max_inflated_bytes).value_or(0);
}

uint64_t FirstModelLoadBytes(ArtifactCache& cache, const WorkLimits& limits, const RunContents& contents) {
  if (contents.profiles.empty()) return 0;
  FileAccessScope confined(limits.confined_root, limits.max_inflated_bytes);
  auto id = FileIdentityOf(contents.profiles.front().path);
  return id.ok() ? ModelLoadBytes(cache, limits, contents.profiles.front().path, *id) : 0;
}

bool EstimateRestsOnGzip(const WorkLimits& limits, const std::string& path) {
  FileAccessScope confined(limits.confined_root, limits.max_inflated_bytes);
  auto id = FileIdentityOf(path);
  return id.ok() && GzipInflatedEstimate(path, id->size, limits.max_inflated_bytes).has_value();
}

bool EstimateRestsOnGzip(const WorkLimits& limits, const DataPlan& plan) {
  if (plan.spec == nullptr && plan.legacy_gzip) return false;  // sent as it is, or inflated up to the response limit
  for (const auto& [path, id] : plan.files) {
    if (EstimateRestsOnGzip(limits, path)) return true;
  }
  return false;
}

}  // namespace tbprof
