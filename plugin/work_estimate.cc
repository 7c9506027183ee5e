#include "plugin/work_estimate.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/trace_viewer/trace_index.h"
#include "convert/base/file_name.h"
#include "convert/load/profile_format.h"
#include "convert/model/xspace_model.h"
#include "convert/tools/artifact_cache.h"
#include "convert/tools/model_image_file.h"
#include "convert/tools/op_stats_summary.h"
#include "convert/tools/trace_analysis_tools.h"
#include "convert/tools/trace_preview_file.h"
#include "convert/tools/trace_viewer_tools.h"
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
// A PyTorch trace's import peaks at 204 MiB on a 500 MiB trace (0.41) and
// 3207 MiB on a 10 GiB one (0.31): kineto_load_bench's peak RSS, the model
// and the pending events and stats as they are copied into it and handed
// back, the text's pages handed back as they are read. 0.35 of the JSON
// and 64 MiB cover both.
constexpr uint64_t kKinetoImportBytesPerHundredJsonBytes = 35;
constexpr uint64_t kKinetoImportFixedBytes = uint64_t{64} << 20;
// A model read from its image holds the image's bytes and a quarter more
// (the string table's chunks and hash slots, vectors' slack).
constexpr uint64_t kModelImageIndexShare = 4;

// What a profile's name says of its importer; a `*.json` the catalogue listed is a trace.
ProfileFormat ImporterOf(const std::string& path) {
  const ProfileFileName name = ParseProfileFileName(FileNameOfPath(path));
  return name.content_decides ? ProfileFormat::kKinetoTrace : name.format;
}

// OpStats read from a summary: its tables decoded (maps of strings, about
// three times the varint-packed bytes) and the page written from them.
constexpr uint64_t kOpStatsBytesPerSummaryByte = 4;

// A trace_viewer@ window at resolution R holds about 2R events per row and
// depth of the trace, unless the trace is too small to be down-sampled
// (kTraceStreamingThreshold events), when it may hold all of them. Measured
// with reopen_bench at R = 5480 (the UI's first request, a 1600 px canvas):
// 11.6 MB of JSON for a 1 GB synthetic xplane (2.1 KB a bin), 4.4 MB for a
// 1 GB PyTorch trace (0.8 KB a bin); a 345k-event PyTorch trace unfiltered
// took 530 bytes an event. Each figure with room to spare: a window past
// its estimate is stopped by its memory grant, not taken past the bound.
constexpr uint64_t kTraceWindowBytesPerBin = 16 << 10;
constexpr uint64_t kUnfilteredTraceBytesPerEvent = 1024;

// The answer of a trace window at a resolution; none when the request may
// return the whole trace (resolution 0) or is not a window (a search, one
// event's details, a malformed resolution the tool refuses).
std::optional<uint64_t> TraceWindowAnswerBytes(const ToolParams& params) {
  if (!ParamStr(params, "search_prefix").empty() || !ParamStr(params, "event_name").empty()) return std::nullopt;
  double resolution = 8000;  // the tool's default
  if (const std::string text = ParamStr(params, "resolution"); !text.empty()) {
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), resolution);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(resolution)) return std::nullopt;
  }
  resolution = std::floor(resolution);
  if (!(resolution >= 1) || resolution > 1e9) return std::nullopt;
  return std::max(static_cast<uint64_t>(resolution) * kTraceWindowBytesPerBin,
                  static_cast<uint64_t>(kTraceStreamingThreshold) * kUnfilteredTraceBytesPerEvent);
}

// One file's share of an op-statistics page when no model is decoded for it:
// the page written from its OpStats when the cache holds them (about their
// size), else what its summary on disk decodes to; none when there is no
// summary (the model is loaded then).
std::optional<uint64_t> OpStatsWithoutModelBytes(ArtifactCache& cache, const std::string& path,
                                                 const FileIdentity& id) {
  if (auto cached = cache.Peek<OpStats>("op_stats|" + FileIdentityKey(path, id))) return cached->ApproxBytes();
  const std::optional<uint64_t> summary = PresentSummaryBytes(path, CurrentSummaryPolicy());
  if (!summary) return std::nullopt;
  return *summary * kOpStatsBytesPerSummaryByte;
}

// trace_analysis' sections read from a summary: their rows decoded and the
// answer written from them, each a few times the varint-packed bytes; the
// whole summary (its OpStats too) is counted, which bounds the sections'.
constexpr uint64_t kSectionsBytesPerSummaryByte = 4;

// The trace viewer's first request answered from a trace preview: the
// preview read (its JSON and candidates, about the file), held in the cache,
// and the answer, at most its JSON.
constexpr uint64_t kPreviewBytesPerFileByte = 3;

// The first request's share when the trace preview answers it (one host, the
// whole trace at a resolution the preview keeps, the index not loaded, a
// preview whose head holds for the profile and this build); none otherwise.
std::optional<uint64_t> TracePreviewBytes(ArtifactCache& cache, const WorkLimits& limits, const DataPlan& plan,
                                          const std::string& path, const FileIdentity& id) {
  if (plan.spec->cost != WorkCost::kTraceWindow || plan.files.size() != 1 || !PreviewCanAnswer(plan.input.params) ||
      cache.Peek<TraceIndex>("trace_index|" + FileIdentityKey(path, id)) != nullptr) {
    return std::nullopt;
  }
  const SummaryPolicy policy = CurrentSummaryPolicy();
  if (!PresentSummaryBytes(path, policy, kTracePreviewSuffix)) return std::nullopt;
  FileAccessScope confined(limits.confined_root, limits.max_inflated_bytes);
  auto identity = IdentityOfProfile(path);
  if (!identity.ok()) return std::nullopt;
  const std::optional<uint64_t> bytes = ValidTracePreviewBytes(path, *identity, policy);
  if (!bytes) return std::nullopt;
  return *bytes * kPreviewBytesPerFileByte;
}

// One file's share of a page answered from its summary without a model
// (op statistics, trace_analysis' sections, the trace viewer's first picture);
// none when the page needs the model.
std::optional<uint64_t> WithoutModelBytes(ArtifactCache& cache, const WorkLimits& limits, const DataPlan& plan,
                                          const std::string& path, const FileIdentity& id) {
  if (plan.spec->cost == WorkCost::kOpStats) return OpStatsWithoutModelBytes(cache, path, id);
  if (plan.spec->cost == WorkCost::kTraceWindow) return TracePreviewBytes(cache, limits, plan, path, id);
  if (plan.spec->cost != WorkCost::kTraceAnalysis || !TraceAnalysisReadsSummaries(plan.input)) return std::nullopt;
  const std::optional<uint64_t> summary = PresentSummaryBytes(path, CurrentSummaryPolicy());
  if (!summary) return std::nullopt;
  return *summary * kSectionsBytesPerSummaryByte;
}

}  // namespace

uint64_t DecodedModelBytes(uint64_t file_size, std::optional<uint64_t> inflated_size, ProfileFormat format) {
  if (format == ProfileFormat::kKinetoTrace) {
    // A gzip'ed trace's text is held whole while it is read.
    const uint64_t text = inflated_size ? std::max(file_size, *inflated_size) : file_size;
    return (inflated_size ? text : 0) + text / 100 * kKinetoImportBytesPerHundredJsonBytes + kKinetoImportFixedBytes;
  }
  if (!inflated_size) return file_size * kModelBytesPerFileByte;
  const uint64_t decoded = std::max(file_size, *inflated_size);
  return decoded + decoded * kModelBytesPerFileByte;
}

uint64_t ToolAnswerBytes(WorkCost cost, uint64_t file_size, uint64_t max_response_bytes, const ToolParams& params) {
  // trace_viewer, and trace_viewer@ when its window may be the whole trace.
  const bool trace = cost == WorkCost::kWholeTrace || cost == WorkCost::kTraceWindow;
  const uint64_t whole =
      std::min(file_size * (trace ? kTraceJsonBytesPerFileByte : kAnswerBytesPerFileByte), 2 * max_response_bytes);
  if (cost != WorkCost::kTraceWindow) return whole;
  const std::optional<uint64_t> window = TraceWindowAnswerBytes(params);
  return window ? std::min(whole, *window) : whole;
}

uint64_t LegacyFileBytes(uint64_t file_size, uint64_t inflated_size) {
  return (file_size + inflated_size) * kLegacyBytesPerFileByte;
}

uint64_t ModelLoadBytes(ArtifactCache& cache, const WorkLimits& limits, const std::string& path,
                        const FileIdentity& id) {
  if (cache.Peek<XSpaceModel>("model|" + FileIdentityKey(path, id)) != nullptr) return 0;
  const ProfileFormat format = ImporterOf(path);
  // A model read back from its image (PyTorch traces and large xplanes have
  // them) is about the image: its arrays, and the strings' index beside them.
  if (const auto image = PresentSummaryBytes(path, CurrentSummaryPolicy(), kModelImageSuffix)) {
    return *image + *image / kModelImageIndexShare;
  }
  FileAccessScope confined(limits.confined_root, limits.max_inflated_bytes);
  return DecodedModelBytes(id.size, GzipInflatedEstimate(path, id.size, limits.max_inflated_bytes), format);
}

uint64_t WorkingBytes(ArtifactCache& cache, const WorkLimits& limits, const DataPlan& plan) {
  uint64_t bytes = 0;
  if (plan.spec != nullptr) {
    for (const auto& [path, id] : plan.files) {
      if (const std::optional<uint64_t> without_model = WithoutModelBytes(cache, limits, plan, path, id)) {
        bytes += *without_model;
        continue;
      }
      bytes += ModelLoadBytes(cache, limits, path, id) +
               ToolAnswerBytes(plan.spec->cost, id.size, limits.max_response_bytes, plan.input.params);
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
