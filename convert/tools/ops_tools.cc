#include "convert/tools/ops_tools.h"

#include "convert/analysis/op_stats_pages/op_stats_to_input_pipeline.h"
#include "convert/analysis/op_stats_pages/op_stats_to_overview_page.h"
#include "convert/analysis/op_stats_pages/op_stats_to_pod_viewer.h"
#include "convert/analysis/op_stats_pages/op_stats_to_tf_stats.h"
#include "convert/analysis/kernels/xspace_to_kernel_stats.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/base/file_name.h"
#include "convert/tools/cached_loads.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {
namespace {

ToolOutput Json(std::string body) {
  ToolOutput out;
  out.body = std::move(body);
  return out;
}

ToolOutput Csv(std::string body) {
  ToolOutput out;
  out.body = std::move(body);
  out.content_type = "text/csv";
  return out;
}

}  // namespace

StatusOr<ToolOutput> OverviewPageTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto stats, OpStatsForPaths(in.profile_paths, in.cache));
  return Json(OverviewPageToJson(ConvertOpStatsToOverviewPage(*stats), stats->torch_gpu, stats->torch_steps));
}

StatusOr<ToolOutput> InputPipelineTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto stats, OpStatsForPaths(in.profile_paths, in.cache));
  return Json(InputPipelineToJson(ConvertOpStatsToInputPipelineAnalysis(*stats), stats->torch_steps));
}

StatusOr<ToolOutput> FrameworkOpStatsTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto stats, OpStatsForPaths(in.profile_paths, in.cache));
  RETURN_IF_ERROR(ClaimOpTableNames(*stats));
  auto db = ConvertOpStatsToTfStats(*stats);
  // The task is the overview's "Is training job", from the same OpStats.
  const bool pytorch = stats->torch_steps.has_value();
  return in.csv ? Csv(TfStatsToCsv(db, pytorch)) : Json(TfStatsToJson(db, stats->run_environment.is_training, pytorch));
}

StatusOr<ToolOutput> KernelStatsTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto stats, OpStatsForPaths(in.profile_paths, in.cache));
  const auto& db = stats->kernel_stats_db;
  return in.csv ? Csv(KernelStatsToCsv(db)) : Json(KernelStatsToJson(db, /*complete=*/true));
}

StatusOr<ToolOutput> PodViewerTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto stats, OpStatsForPaths(in.profile_paths, in.cache));
  return Json(ConvertOpStatsToPodViewerJson(*stats));
}

StatusOr<ToolOutput> LegacyOverviewPage(const std::string& path, const ToolInput&) {
  ASSIGN_OR_RETURN(auto page, ReadLegacyProto<tensorflow::profiler::OverviewPage>(path));
  MarkUnrecordedShares(page);
  return Json(OverviewPageToJson(page));
}

StatusOr<ToolOutput> LegacyInputPipeline(const std::string& path, const ToolInput&) {
  ASSIGN_OR_RETURN(auto ipa, ReadLegacyProto<tensorflow::profiler::InputPipelineAnalysisResult>(path));
  return Json(InputPipelineToJson(ipa));
}

StatusOr<ToolOutput> LegacyTfStats(const std::string& path, const ToolInput& in) {
  ASSIGN_OR_RETURN(auto db, ReadLegacyProto<tensorflow::profiler::TfStatsDatabase>(path));
  return in.csv ? Csv(TfStatsToCsv(db)) : Json(TfStatsToJson(db));
}

StatusOr<ToolOutput> LegacyKernelStats(const std::string& path, const ToolInput& in) {
  ASSIGN_OR_RETURN(auto db, ReadLegacyProto<tensorflow::profiler::KernelStatsDb>(path));
  // These files come from TensorFlow's CUDA tracer, which recorded every
  // kernel's shared memory; proto3 leaves a 0 out, so an absent size is 0
  // bytes. An absent register count or occupancy stays unknown (the older
  // files have no occupancy at all).
  for (auto& r : *db.mutable_reports()) {
    if (!r.has_static_shmem_bytes() && !r.has_dynamic_shmem_bytes()) r.set_static_shmem_bytes(0);
  }
  return in.csv ? Csv(KernelStatsToCsv(db)) : Json(KernelStatsToJson(db));
}

}  // namespace tbprof
