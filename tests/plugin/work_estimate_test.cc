// The work estimate's rules, checked against figures worked out by hand from
// them: a decoded model is twice its file (plus the inflated bytes held while
// decoding), an answer its file's size (three times for the whole-trace
// tools) up to twice the response limit, a legacy file three times what it
// reads.
#include "plugin/work_estimate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "convert/tools/artifact_cache.h"
#include "convert/tools/op_stats_summary.h"
#include "convert/tools/tool_registry.h"
#include "convert/tools/trace_preview_file.h"
#include "plugin/gzip.h"
#include "plugin/route_util.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(WorkEstimate, Rules) {
  EXPECT_EQ(DecodedModelBytes(100, std::nullopt), 200u);
  EXPECT_EQ(DecodedModelBytes(100, 1000), 3000u);  // 1000 held + 2 x 1000 decoded
  EXPECT_EQ(DecodedModelBytes(100, 40), 300u);     // a trailer stating less than the file: the file counts
  EXPECT_EQ(ToolAnswerBytes(WorkCost::kModelAndTable, 100, 1000), 100u);
  EXPECT_EQ(ToolAnswerBytes(WorkCost::kWholeTrace, 100, 1000), 300u);
  EXPECT_EQ(ToolAnswerBytes(WorkCost::kWholeTrace, 1000, 1000), 2000u);  // 3000 capped at 2 x 1000
  EXPECT_EQ(LegacyFileBytes(100, 400), 1500u);
}

// A PyTorch trace's model is a fraction of its JSON (its import peaked at 0.41
// of a 500 MB trace, 0.31 of a 10 GB one): a 10 GB trace is admitted under --memory_mb 8192, which
// the xplane rule (twice the file) would refuse outright; a gzip'ed one holds
// its text whole besides.
TEST(WorkEstimate, APyTorchTraceIsEstimatedByItsImportNotAnXPlanesDecode) {
  const uint64_t ten_gb = uint64_t{10} << 30;
  EXPECT_LT(DecodedModelBytes(ten_gb, std::nullopt, ProfileFormat::kKinetoTrace), uint64_t{8} << 30);
  EXPECT_GE(DecodedModelBytes(ten_gb, std::nullopt, ProfileFormat::kKinetoTrace), ten_gb / 100 * 31);
  const uint64_t half_gb = uint64_t{500} << 20;
  EXPECT_GE(DecodedModelBytes(half_gb, std::nullopt, ProfileFormat::kKinetoTrace), uint64_t{204} << 20);
  EXPECT_GT(DecodedModelBytes(ten_gb, std::nullopt), uint64_t{8} << 30);
  const uint64_t gzipped = DecodedModelBytes(ten_gb / 20, ten_gb, ProfileFormat::kKinetoTrace);
  EXPECT_GE(gzipped, ten_gb + ten_gb / 100 * 31);
  EXPECT_LT(gzipped, 2 * ten_gb);
}

// trace_viewer@'s window at a resolution is estimated by the resolution (16
// KiB a bin), or by a whole unfiltered trace of 500k events of 1 KiB, the
// larger; never more than the whole trace's share of its file. Its searches,
// its event details and resolution 0 may be the whole trace.
TEST(WorkEstimate, ATraceWindowIsEstimatedByItsResolution) {
  const uint64_t gb = uint64_t{1} << 30;
  const uint64_t unfiltered = 500000ull * 1024;  // 512,000,000
  auto window = [&](uint64_t file, const ToolParams& params) {
    return ToolAnswerBytes(WorkCost::kTraceWindow, file, gb, params);
  };
  EXPECT_EQ(window(gb, {{"resolution", "5480"}}), unfiltered);  // 5480 x 16 KiB = 89.8 MB is less
  EXPECT_EQ(window(gb, {}), unfiltered);                         // the default 8000: 131 MB
  EXPECT_EQ(window(gb, {{"resolution", "40000"}, {"start_time_ms", "1"}}), 40000ull * 16384);
  EXPECT_EQ(window(gb, {{"resolution", "40000.7"}}), 40000ull * 16384);  // read as an integer, as the tool does
  EXPECT_EQ(window(100, {{"resolution", "5480"}}), 300u);        // a small file's whole trace is less
  for (const ToolParams& whole : std::vector<ToolParams>{{{"resolution", "0"}},
                                                         {{"resolution", "x"}},
                                                         {{"search_prefix", "conv"}},
                                                         {{"event_name", "conv"}, {"resolution", "5480"}}}) {
    EXPECT_EQ(window(gb, whole), 2 * gb) << whole.begin()->first;  // 3 GB capped at twice the response limit
  }
  // The non-streaming viewer ignores a resolution.
  EXPECT_EQ(ToolAnswerBytes(WorkCost::kWholeTrace, gb, gb, {{"resolution", "5480"}}), 2 * gb);
}

TEST(WorkEstimate, PlanOfEachKind) {
  const std::string plain = test_files::TempPath("work_estimate_plain.xplane.pb");
  const std::string gzipped = test_files::TempPath("work_estimate_gzipped.xplane.pb.gz");
  WriteBytes(plain, std::string(1000, 'x'));
  auto packed = GzipCompress(std::string(5000, 'x'));
  ASSERT_TRUE(packed.ok());
  ASSERT_LT(packed->size(), 5000u);
  WriteBytes(gzipped, *packed);
  auto plain_id = FileIdentityOf(plain);
  auto gzipped_id = FileIdentityOf(gzipped);
  ASSERT_TRUE(plain_id.ok() && gzipped_id.ok());
  const uint64_t g = gzipped_id->size;
  // What the gzip'ed file may inflate to: its trailer's 5000 bytes, and one
  // more so that a stream of exactly the stated size passes.
  const uint64_t cap = 5001;

  ArtifactCache cache(1 << 20);
  const WorkLimits limits{nullptr, /*max_inflated_bytes=*/1 << 20, /*max_response_bytes=*/1 << 20};
  EXPECT_EQ(ModelLoadBytes(cache, limits, plain, *plain_id), 2000u);
  EXPECT_EQ(ModelLoadBytes(cache, limits, gzipped, *gzipped_id), 3 * cap);  // held + 2 x decoded

  DataPlan overview;
  overview.spec = FindProfileTool("overview_page");
  ASSERT_NE(overview.spec, nullptr);
  overview.files = {{plain, *plain_id}, {gzipped, *gzipped_id}};
  EXPECT_EQ(WorkingBytes(cache, limits, overview), (2000u + 1000u) + (3 * cap + g));

  DataPlan trace = overview;
  trace.spec = FindProfileTool("trace_viewer");
  ASSERT_NE(trace.spec, nullptr);
  EXPECT_EQ(WorkingBytes(cache, limits, trace), (2000u + 3000u) + (3 * cap + 3 * g));

  DataPlan legacy;
  legacy.files = {{gzipped, *gzipped_id}};
  EXPECT_EQ(WorkingBytes(cache, limits, legacy), 3 * (g + cap));  // inflated by a converter
  legacy.legacy_gzip = true;  // sent as it is
  EXPECT_EQ(WorkingBytes(cache, limits, legacy), 3 * g);
  legacy.inflate_for_client = true;
  EXPECT_EQ(WorkingBytes(cache, limits, legacy), 3 * g + (1u << 20));

  RunContents run;
  run.profiles.push_back(RunFile{});
  run.profiles.back().path = gzipped;
  run.profiles.back().format = ProfileFormat::kXPlane;
  EXPECT_EQ(SummaryBytes(limits, run.profiles.back()), cap);
  EXPECT_EQ(FirstModelLoadBytes(cache, limits, run), 3 * cap);
  EXPECT_EQ(FirstModelLoadBytes(cache, limits, RunContents{}), 0u);
}

// An op-statistics page of a file whose summary is on disk decodes no model:
// four times the summary; the trace viewer of the same file still loads it.
TEST(WorkEstimate, OpStatsPagesOfASummarizedFileDecodeNoModel) {
  const std::string profile = test_files::TempPath("work_estimate_summarized.xplane.pb");
  const std::string summary = profile + kSummarySuffix;
  WriteBytes(profile, std::string(1000, 'x'));
  WriteBytes(summary, std::string(300, 's'));
  auto id = FileIdentityOf(profile);
  ASSERT_TRUE(id.ok());
  ArtifactCache cache(1 << 20);
  const WorkLimits limits{nullptr, /*max_inflated_bytes=*/1 << 20, /*max_response_bytes=*/1 << 20};
  for (const char* tool : {"overview_page", "input_pipeline_analyzer", "framework_op_stats", "tensorflow_stats",
                           "kernel_stats", "pod_viewer"}) {
    DataPlan page;
    page.spec = FindProfileTool(tool);
    ASSERT_NE(page.spec, nullptr) << tool;
    page.files = {{profile, *id}};
    EXPECT_EQ(WorkingBytes(cache, limits, page), 1200u) << tool;
  }
  DataPlan trace;
  trace.spec = FindProfileTool("trace_viewer");
  trace.files = {{profile, *id}};
  EXPECT_EQ(WorkingBytes(cache, limits, trace), 2000u + 3000u);
  DataPlan hlo = trace;
  hlo.spec = FindProfileTool("hlo_stats");
  EXPECT_EQ(WorkingBytes(cache, limits, hlo), 2000u + 1000u);
  // trace_analysis of the default step: its sections from the summary, four times it too;
  // another step's critical path needs the model (twice the file) and an answer of about the file.
  DataPlan analysis = hlo;
  analysis.spec = FindProfileTool("trace_analysis");
  EXPECT_EQ(WorkingBytes(cache, limits, analysis), 1200u);
  analysis.input.params["step"] = "3";
  EXPECT_EQ(WorkingBytes(cache, limits, analysis), 2000u + 1000u);
  // A policy that reads no summary: the model again.
  SummaryPolicy not_reading;
  not_reading.read = false;
  SetSummaryPolicy(not_reading);
  DataPlan overview = hlo;
  overview.spec = FindProfileTool("overview_page");
  EXPECT_EQ(WorkingBytes(cache, limits, overview), 2000u + 1000u);
  SetSummaryPolicy(SummaryPolicy{});
  std::filesystem::remove(profile);
  std::filesystem::remove(summary);
}

// The trace viewer's first request for a file with a valid trace preview
// reads no model: three times the preview's file. A window, or a preview of
// another version of the profile, needs the model (twice the file) and an answer.
TEST(WorkEstimate, TheFirstPictureFromAValidTracePreviewDecodesNoModel) {
  const std::string profile = test_files::TempPath("work_estimate_previewed.xplane.pb");
  const std::string preview = profile + kTracePreviewSuffix;
  WriteBytes(profile, std::string(1000, 'x'));
  auto id = FileIdentityOf(profile);
  auto identity = IdentityOfProfile(profile);
  ASSERT_TRUE(id.ok() && identity.ok());
  TracePreview kept;
  kept.num_events = 600000, kept.max_ps = 1000000;
  kept.events_json = std::string(50, 'j');
  kept.events = {PreviewEvent{TraceCandidate{0, 10, 0, 5}, 0, 50}};
  ASSERT_TRUE(WriteTracePreviewFile(preview, *identity, kept).ok());
  const uint64_t preview_bytes = std::filesystem::file_size(preview);
  ArtifactCache cache(1 << 20);
  const WorkLimits limits{nullptr, /*max_inflated_bytes=*/1 << 20, /*max_response_bytes=*/1 << 20};
  DataPlan first;
  first.spec = FindProfileTool("trace_viewer@");
  ASSERT_NE(first.spec, nullptr);
  first.files = {{profile, *id}};
  first.input.params["resolution"] = "5480";
  EXPECT_EQ(WorkingBytes(cache, limits, first), 3 * preview_bytes);
  DataPlan window = first;
  window.input.params["start_time_ms"] = "1";
  window.input.params["end_time_ms"] = "2";
  EXPECT_EQ(WorkingBytes(cache, limits, window), 2000u + 3000u);
  ProfileIdentity other = *identity;
  other.mtime_ns += 1;
  ASSERT_TRUE(WriteTracePreviewFile(preview, other, kept).ok());
  EXPECT_EQ(WorkingBytes(cache, limits, first), 2000u + 3000u);
  std::filesystem::remove(profile);
  std::filesystem::remove(preview);
}

}  // namespace
}  // namespace tbprof
