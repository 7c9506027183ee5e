// One entry for loading a profile file whatever wrote it: an XSpace
// (`*.xplane.pb[.gz]`) or a PyTorch profiler trace (`*.pt.trace.json[.gz]`,
// or any `*.json[.gz]` whose content is a Kineto trace). Every loader (the
// tools' cache, the CLI) calls it, so all of them accept the same files.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "convert/base/status.h"
#include "convert/model/xspace_model.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {

// `*.pt.trace.json` or `*.pt.trace.json.gz`: what torch.profiler's tensorboard_trace_handler writes.
bool IsKinetoTraceFileName(std::string_view file_name);
// Any `*.json` or `*.json.gz` (read as a Kineto trace; other JSON is rejected with a clear error).
bool IsJsonFileName(std::string_view file_name);
// Whether the start of a (decompressed) JSON file is a Kineto trace: an
// object with a "traceEvents", "schemaVersion" or "deviceProperties" member
// among its first bytes.
bool LooksLikeKinetoTrace(std::string_view head);
// Whether the file at `path` is a Kineto trace by its content (reads at most
// 64 KB of it, inflating a gzip'ed one only that far).
bool FileLooksLikeKinetoTrace(const std::string& path);

// Loads `path` with the reader its name says (JSON: the Kineto importer; anything else: the xplane reader).
StatusOr<std::unique_ptr<XSpaceModel>> LoadProfileFile(const std::string& path, const LoadOptions& options = {});

}  // namespace tbprof
