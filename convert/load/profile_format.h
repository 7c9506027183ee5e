// The one place that tells a profile file's format, from its name and, where
// the name does not decide, its first bytes (as Perfetto's GuessTraceType
// does). The run catalogue sets each listed file's format once with it, the
// CLI for each file it is given, and LoadProfileFile picks its importer by it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tbprof {

enum class ProfileFormat : unsigned char {
  kUnknown,
  kXPlane,          // <host>.xplane.pb[.gz]: an XSpace (TensorFlow, JAX)
  kLegacyToolFile,  // <host>.<tool suffix>: a per-tool file of the profilers before XSpace
  kKinetoTrace,     // a PyTorch profiler (Kineto) trace: Chrome-trace JSON, gzip'ed or not
  kTfprofProfile,   // tfprof's ProfileProto, named profile_<step> as ProfileContext writes it
};

// "xplane", "legacy tool file", "PyTorch (Kineto) trace", "tfprof profile", "unknown".
std::string_view ProfileFormatName(ProfileFormat format);

// The suffixes (after "<host>.", or a whole bare name) of the legacy per-tool
// files; the tool table (convert/tools/tool_registry.h) says which tool each serves.
const std::vector<std::string>& LegacyToolFileSuffixes();

// What a file's name says: its format (kUnknown when the name does not
// decide: a `*.json[.gz]` that may be a trace, or no known suffix), the host
// it belongs to and the suffix after it ("" for tfprof profiles, whose host
// is the whole name). Host names may contain dots; the longest known suffix wins.
struct ProfileFileName {
  ProfileFormat format = ProfileFormat::kUnknown;
  std::string host;
  std::string suffix;
  // A `*.json[.gz]` that is no legacy file: a Kineto trace when its first bytes say so.
  bool content_decides = false;
};
ProfileFileName ParseProfileFileName(std::string_view file_name);

// How much of a file's (inflated) start is looked at: enough for the members
// Kineto, HTA and torch's export_chrome_trace write before their events.
inline constexpr size_t kProfileSniffBytes = size_t{64} << 10;

// Whether `head` (a file's first inflated bytes) is a Chrome-trace JSON
// object as PyTorch writes it: "traceEvents", "schemaVersion" or
// "deviceProperties" among its first members.
bool LooksLikeKinetoTrace(std::string_view head);

// The format of a file named `file_name` whose first (inflated) bytes are
// `head`: the name decides when it can; else the content (a Kineto trace).
ProfileFormat ProfileFormatOf(std::string_view file_name, std::string_view head);

// The first `limit` bytes of the file, inflated when it is gzip'ed; "" when
// it cannot be read. Opens are confined by the active FileAccessScope.
std::string ReadProfileHead(const std::string& path, size_t limit = kProfileSniffBytes);

// ProfileFormatOf for a file on disk: its head is read only when its name does not decide.
ProfileFormat ProfileFormatOfFile(const std::string& path);

}  // namespace tbprof
