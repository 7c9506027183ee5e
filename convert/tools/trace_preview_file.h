// A large trace's first picture on disk (convert/analysis/trace_viewer/
// trace_preview.h), kept where its summary is as `<file>.tbprof-trace`, so
// that a restarted server answers the trace viewer's first request for a
// summarized profile without reading its model. Written by `tbprof summarize`
// for the profiles whose model image pays and whose trace is down-sampled.
//
// Layout: "TBPTRV", u16 file version, the profile's identity (u64 size, i64
// mtime ns, u64 digest, as a summary's), the tbprof build that wrote it (its
// executable's u64 size and i64 mtime ns: the preview holds JSON that build's
// renderer wrote, which another build may write otherwise), u64 payload
// length and checksum, then the payload. One of another version, profile or
// build, or a damaged one, is ignored (one log line) and the index built.
#pragma once

#include <optional>
#include <string>

#include "convert/analysis/trace_viewer/trace_preview.h"
#include "convert/base/status.h"
#include "convert/tools/op_stats_summary.h"

namespace tbprof {

inline constexpr char kTracePreviewSuffix[] = ".tbprof-trace";

Status WriteTracePreviewFile(const std::string& path, const ProfileIdentity& identity, const TracePreview& preview);
StatusOr<TracePreview> ReadTracePreviewFile(const std::string& path, const ProfileIdentity& expected);

// The size of the first preview among the places `policy` says whose head
// holds for `identity` and this tbprof build (only its head is read: what a
// request's memory estimate may count on); none when there is none.
std::optional<uint64_t> ValidTracePreviewBytes(const std::string& profile_path, const ProfileIdentity& identity,
                                               const SummaryPolicy& policy);

// The preview of the first file valid for `identity` among the places
// `policy` says; none when there is none (each one present but ignored is logged).
std::optional<TracePreview> ReadTracePreviewFor(const std::string& profile_path, const ProfileIdentity& identity,
                                                const SummaryPolicy& policy);

}  // namespace tbprof
