#include "convert/load/profile_format.h"

#include <zlib.h>

#include <algorithm>

#include "convert/base/file_bytes.h"
#include "convert/xplane/xspace_reader.h"

namespace tbprof {
namespace {

constexpr std::string_view kTfprofPrefix = "profile_";

// Suffixes whose name alone says the format, and the JSON ones that leave it to the content.
struct SuffixRule {
  std::string_view suffix;
  ProfileFormat format;
  bool content_decides;
};
constexpr SuffixRule kNamedSuffixes[] = {
    {"xplane.pb", ProfileFormat::kXPlane, false},
    {"xplane.pb.gz", ProfileFormat::kXPlane, false},
    // torch.profiler's tensorboard_trace_handler: "<worker>.<ms timestamp>.pt.trace.json[.gz]".
    {"pt.trace.json", ProfileFormat::kKinetoTrace, false},
    {"pt.trace.json.gz", ProfileFormat::kKinetoTrace, false},
    // HTA's "rank-<N>.json.gz", export_chrome_trace's "trace.json": a trace when the content says so.
    {"json", ProfileFormat::kUnknown, true},
    {"json.gz", ProfileFormat::kUnknown, true},
};

// Whether `name` is "<host>.<suffix>" (host non-empty) or the bare suffix.
bool HasSuffix(std::string_view name, std::string_view suffix) {
  if (name == suffix) return true;
  return name.size() > suffix.size() + 1 && name.ends_with(suffix) && name[name.size() - suffix.size() - 1] == '.';
}

bool IsTfprofProfileName(std::string_view name) {
  if (name.size() <= kTfprofPrefix.size() || !name.starts_with(kTfprofPrefix)) return false;
  return std::all_of(name.begin() + kTfprofPrefix.size(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The first `limit` bytes a gzip stream inflates to (fewer if it is shorter or corrupt).
std::string InflateHead(std::string_view in, size_t limit) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return {};
  std::string out(limit, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), 1u << 30));
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(limit);
  while (zs.avail_out > 0) {
    if (inflate(&zs, Z_NO_FLUSH) != Z_OK) break;
  }
  out.resize(limit - zs.avail_out);
  inflateEnd(&zs);
  return out;
}

}  // namespace

std::string_view ProfileFormatName(ProfileFormat format) {
  constexpr std::string_view kNames[] = {"unknown", "xplane", "legacy tool file", "PyTorch (Kineto) trace",
                                         "tfprof profile"};  // in ProfileFormat's order
  return kNames[static_cast<size_t>(format)];
}

const std::vector<std::string>& LegacyToolFileSuffixes() {
  static const std::vector<std::string> suffixes = {
      "trace.json.gz",       "overview_page.pb",      "overview_page.json",   "input_pipeline.pb",
      "input_pipeline.json", "tensorflow_stats.pb",   "kernel_stats.pb",      "memory_profile.json.gz",
      "pod_viewer.json",     "op_profile.json",       "memory_viewer.json",   "tf_data_bottleneck_analysis.json"};
  return suffixes;
}

ProfileFileName ParseProfileFileName(std::string_view name) {
  ProfileFileName out;
  if (IsTfprofProfileName(name)) {
    out.format = ProfileFormat::kTfprofProfile;
    out.host = std::string(name);
    return out;
  }
  // The longest suffix wins, so "a.trace.json.gz" (a legacy trace) never reads as some "*.json.gz".
  std::string_view best;
  for (const std::string& s : LegacyToolFileSuffixes()) {
    if (s.size() > best.size() && HasSuffix(name, s)) {
      best = s;
      out.format = ProfileFormat::kLegacyToolFile;
      out.content_decides = false;
    }
  }
  for (const SuffixRule& rule : kNamedSuffixes) {
    if (rule.suffix.size() > best.size() && HasSuffix(name, rule.suffix)) {
      best = rule.suffix;
      out.format = rule.format;
      out.content_decides = rule.content_decides;
    }
  }
  if (best.empty()) return out;
  out.suffix = std::string(best);
  if (name.size() > best.size()) out.host = std::string(name.substr(0, name.size() - best.size() - 1));
  return out;
}

bool LooksLikeKinetoTrace(std::string_view head) {
  size_t i = head.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || head[i] != '{') return false;
  // Kineto writes schemaVersion and deviceProperties first and traceEvents
  // after them; other producers (HTA, TraceLens) may put metadata first.
  for (std::string_view key : {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\""}) {
    if (head.find(key) != std::string_view::npos) return true;
  }
  return false;
}

ProfileFormat ProfileFormatOf(std::string_view file_name, std::string_view head) {
  const ProfileFileName parsed = ParseProfileFileName(file_name);
  if (!parsed.content_decides) return parsed.format;
  return LooksLikeKinetoTrace(head) ? ProfileFormat::kKinetoTrace : ProfileFormat::kUnknown;
}

std::string ReadProfileHead(const std::string& path, size_t limit) {
  MappedFile f;
  if (!f.Open(path, std::max(kMaxXSpaceBytes, kMaxKinetoTraceBytes)).ok()) return {};
  std::string_view view = f.view();
  std::string head = HasGzipMagic(view) ? InflateHead(view, limit) : std::string(view.substr(0, std::min(view.size(), limit)));
  return f.CheckUnchanged().ok() ? head : std::string();
}

ProfileFormat ProfileFormatOfFile(const std::string& path) {
  const std::string name = path.substr(path.find_last_of('/') + 1);
  if (!ParseProfileFileName(name).content_decides) return ProfileFormatOf(name, {});
  return ProfileFormatOf(name, ReadProfileHead(path));
}

}  // namespace tbprof
