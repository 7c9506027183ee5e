#include "convert/tools/trace_preview_file.h"

#include <sys/stat.h>

#include <string_view>

#include "convert/base/file_bytes.h"

namespace tbprof {
namespace {

constexpr char kMagic[] = "TBPTRV";
constexpr size_t kMagicBytes = 6;
constexpr uint16_t kFileVersion = 1;
constexpr size_t kHeaderBytes = kKeptFileHeadBytes + 2 * 8 + 2 * 8;

struct BuildStamp {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  bool known() const { return size != 0; }
};

// The running executable's size and mtime: a rebuilt tbprof has others.
BuildStamp RunningBuild() {
  static const BuildStamp stamp = [] {
    struct stat st {};
    if (::stat("/proc/self/exe", &st) != 0) return BuildStamp{};
    return BuildStamp{static_cast<uint64_t>(st.st_size),
                      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  }();
  return stamp;
}

}  // namespace

Status WriteTracePreviewFile(const std::string& path, const ProfileIdentity& identity, const TracePreview& preview) {
  const BuildStamp build = RunningBuild();
  if (!build.known()) return Unavailable("trace preview not written: this tbprof cannot tell its own build");
  const std::string payload = SerializeTracePreview(preview);
  std::string header;
  PutKeptFileHead(header, std::string_view(kMagic, kMagicBytes), kFileVersion, identity);
  PutFixed(header, build.size, 8);
  PutFixed(header, static_cast<uint64_t>(build.mtime_ns), 8);
  PutFixed(header, payload.size(), 8);
  PutFixed(header, PayloadChecksum(payload), 8);
  return WriteSummaryFileInPieces(path, [&](const ByteSink& sink) {
    RETURN_IF_ERROR(sink(header));
    return sink(payload);
  });
}

namespace {

// The header's checks: of this profile, this build, and whole.
Status CheckHeader(std::string_view head, const ProfileIdentity& expected) {
  RETURN_IF_ERROR(CheckKeptFileHead(head.substr(0, kKeptFileHeadBytes), std::string_view(kMagic, kMagicBytes),
                                    kFileVersion, expected, "trace preview"));
  if (head.size() < kHeaderBytes) return DataLoss("a damaged trace preview (cut short)");
  const BuildStamp build = RunningBuild();
  if (!build.known() || GetFixed(head, 32, 8) != build.size ||
      static_cast<int64_t>(GetFixed(head, 40, 8)) != build.mtime_ns) {
    return InvalidArgument("a trace preview written by another tbprof build");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<TracePreview> ReadTracePreviewFile(const std::string& path, const ProfileIdentity& expected) {
  ASSIGN_OR_RETURN(std::string bytes, ReadSummaryFile(path));
  const std::string_view all(bytes);
  RETURN_IF_ERROR(CheckHeader(all, expected));
  const std::string_view payload = all.substr(kHeaderBytes);
  if (GetFixed(all, 48, 8) != payload.size()) return DataLoss("a damaged trace preview (cut short or too long)");
  if (PayloadChecksum(payload) != GetFixed(all, 56, 8)) return DataLoss("a damaged trace preview (checksum differs)");
  return DeserializeTracePreview(payload);
}

std::optional<uint64_t> ValidTracePreviewBytes(const std::string& profile_path, const ProfileIdentity& identity,
                                               const SummaryPolicy& policy) {
  if (!policy.read) return std::nullopt;
  for (const std::string& candidate : SummaryCandidates(profile_path, policy, kTracePreviewSuffix)) {
    auto fd = OpenSummaryFile(candidate);
    struct stat st {};
    if (!fd.ok() || ::fstat(fd->get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    std::string head(kHeaderBytes, '\0');
    if (ReadFullyAt(fd->get(), 0, head.data(), head.size()) != 0) continue;
    if (CheckHeader(head, identity).ok()) return static_cast<uint64_t>(st.st_size);
  }
  return std::nullopt;
}

std::optional<TracePreview> ReadTracePreviewFor(const std::string& profile_path, const ProfileIdentity& identity,
                                                const SummaryPolicy& policy) {
  for (const std::string& candidate : SummaryCandidates(profile_path, policy, kTracePreviewSuffix)) {
    auto preview = ReadTracePreviewFile(candidate, identity);
    if (preview.ok()) return std::move(*preview);
    if (preview.status().code() != ErrorCode::kNotFound) {
      LogSummaryLine(policy, "trace preview " + candidate + " ignored: " + preview.status().message());
    }
  }
  return std::nullopt;
}

}  // namespace tbprof
