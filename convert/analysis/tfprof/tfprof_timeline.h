// tfprof's `-output timeline:outfile=F` for the scope and code views
// (internal/tfprof_timeline.cc GenerateScopeTimeline / GenerateCodeTimeline):
// a Chrome trace icicle with one process per depth ("Scope:<depth>"), each
// shown node an event lasting its total execution time, children laid end to
// end from their parent's start on a synthetic clock starting at 0.
#pragma once

#include <string>

#include "convert/analysis/tfprof/tfprof_show.h"
#include "convert/base/status.h"

namespace tbprof::tfprof {

// The trace JSON of a scope or code view; other views are an error naming
// the views that have it (tfprof's graph timeline needs per-device kernel
// records, which tbprof does not draw).
StatusOr<std::string> IcicleTimelineJson(const ViewResult& result);

}  // namespace tbprof::tfprof
