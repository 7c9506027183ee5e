// The working memory a request is expected to need, by which the server
// admits it (Deferred::working_bytes): the rules of thumb per input byte, and
// their application to a /data plan, a run's summary and a model load. A
// tool's share comes from its ToolSpec's WorkCost.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "convert/base/file_bytes.h"
#include "convert/tools/tool_registry.h"
#include "plugin/catalogue/logdir.h"

namespace tbprof {

class ArtifactCache;
struct DataPlan;  // plugin/route_util.h

// The rules, by file size (and what a gzip'ed file inflates to, when it is).
// Decoding a whole model: the inflated bytes are held while they are decoded.
// A PyTorch trace's JSON makes a model of a fraction of its size (`format`
// says which importer reads the file).
uint64_t DecodedModelBytes(uint64_t file_size, std::optional<uint64_t> inflated_size,
                           ProfileFormat format = ProfileFormat::kXPlane);
// A tool's answer beside its model, at most twice the response limit
// (`params`: the request's, which bound a trace window's answer).
uint64_t ToolAnswerBytes(WorkCost cost, uint64_t file_size, uint64_t max_response_bytes,
                         const ToolParams& params = {});
// A legacy file read whole, parsed or sent with a gzip'ed copy.
uint64_t LegacyFileBytes(uint64_t file_size, uint64_t inflated_size);

// What the estimates read files under.
struct WorkLimits {
  std::shared_ptr<const ConfinedRoot> confined_root;
  uint64_t max_inflated_bytes = 0;
  uint64_t max_response_bytes = 0;
};

// Loading the whole model of one profile (0 when `cache` holds it).
uint64_t ModelLoadBytes(ArtifactCache& cache, const WorkLimits& limits, const std::string& path,
                        const FileIdentity& id);
// Computing a /data plan: each file's model and answer, or a legacy file's reading.
uint64_t WorkingBytes(ArtifactCache& cache, const WorkLimits& limits, const DataPlan& plan);
// Reading a profile's summary: what a gzip'ed xplane inflates to; else 0.
uint64_t SummaryBytes(const WorkLimits& limits, const RunFile& file);
// Loading the first profile of a run (0 when none or cached).
uint64_t FirstModelLoadBytes(ArtifactCache& cache, const WorkLimits& limits, const RunContents& contents);

// Whether the estimate counts what a gzip'ed profile inflates to (its
// trailer's word, which a cut file makes up: Deferred::estimate_unconfirmed).
bool EstimateRestsOnGzip(const WorkLimits& limits, const DataPlan& plan);
bool EstimateRestsOnGzip(const WorkLimits& limits, const std::string& path);

}  // namespace tbprof
