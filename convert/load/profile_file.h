// One entry for loading a profile file whatever wrote it: an XSpace
// (`*.xplane.pb[.gz]`) or a PyTorch profiler trace (`*.pt.trace.json[.gz]`,
// or any `*.json[.gz]` whose content is a Kineto trace). Every loader (the
// tools' cache, the CLI) calls it, so all of them accept the same files.
#pragma once

#include <memory>
#include <string>

#include "convert/base/status.h"
#include "convert/load/profile_format.h"
#include "convert/model/xspace_model.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {

// Loads `path` with the importer its format (profile_format.h) names: a JSON
// name goes to the Kineto importer (which says clearly when it is no trace),
// any other to the xplane reader; a tfprof profile is refused, naming the
// tool that reads it.
StatusOr<std::unique_ptr<XSpaceModel>> LoadProfileFile(const std::string& path, const LoadOptions& options = {});

// How many times LoadProfileFile was called in this process (so a test can tell
// that an answer came from summaries, without a profile being imported).
uint64_t ProfileFileLoads();

}  // namespace tbprof
