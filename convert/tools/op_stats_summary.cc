#include "convert/tools/op_stats_summary.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "convert/analysis/op_stats/op_stats_serial.h"
#include "convert/analysis/trace_analysis/trace_analysis_serial.h"
#include "convert/base/file_bytes.h"

namespace tbprof {
namespace {

constexpr char kMagic[] = "TBPSUM";
constexpr size_t kMagicBytes = 6;
constexpr size_t kHeaderBytes = kMagicBytes + 2 + 4 + 8 + 8 + 8 + 8 + 8 + 4 + 8 + 8;
constexpr size_t kDigestSpan = 64 * 1024;
// A host's OpStats is a few MB; a "summary" far larger is no summary of ours.
constexpr uint64_t kMaxSummaryBytes = uint64_t{1} << 30;

uint64_t Fnv1a(std::string_view bytes, uint64_t h = 0xcbf29ce484222325ull) {
  for (char c : bytes) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

}  // namespace

// FNV-1a's step over 8-byte words (then the tail's bytes): a pod's ALL_HOSTS
// page checks hundreds of MB of summaries, which byte-wise FNV-1a made a
// sixth of its time. Each step is a bijection of the state, so any one
// changed byte changes the sum.
uint64_t PayloadChecksum(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  size_t at = 0;
  for (; at + 8 <= bytes.size(); at += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + at, 8);
    h = (h ^ word) * 0x100000001b3ull;
  }
  return Fnv1a(bytes.substr(at), h);
}

namespace {

Status ReadAt(int fd, uint64_t offset, size_t n, std::string& out, const std::string& path) {
  out.resize(n);
  if (ReadFullyAt(fd, offset, out.data(), n) != 0) {
    return Unavailable(path + " could not be read (it changed while it was read?)");
  }
  return Status::Ok();
}

bool UnderScopeRoot(const std::string& path) {
  const FileAccessScope* scope = FileAccessScope::Current();
  if (scope == nullptr || scope->root() == nullptr) return false;
  const std::string& root = scope->root()->path();
  return path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/';
}

// A summary beside the profile is opened as the profile is (confined to the
// logdir); one under the server's summary folder, which a request never
// names, is opened without following a final symlink.
}  // namespace

StatusOr<UniqueFd> OpenSummaryFile(const std::string& path) {
  if (UnderScopeRoot(path)) return OpenForRead(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return errno == ENOENT ? NotFound(path) : PermissionDenied(path + ": " + std::strerror(errno));
  return UniqueFd(fd);
}

namespace {

// A summary file opened, and its size, once it is a regular file of a summary's size.
struct OpenSummary {
  UniqueFd fd;
  uint64_t size = 0;
};
StatusOr<OpenSummary> OpenSummaryOfSize(const std::string& path) {
  ASSIGN_OR_RETURN(UniqueFd fd, OpenSummaryFile(path));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return DataLoss(path + " is not a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxSummaryBytes) return DataLoss(path + " is too large to be a summary");
  return OpenSummary{std::move(fd), size};
}

}  // namespace

StatusOr<std::string> ReadSummaryFile(const std::string& path) {
  ASSIGN_OR_RETURN(OpenSummary file, OpenSummaryOfSize(path));
  std::string bytes;
  RETURN_IF_ERROR(ReadAt(file.fd.get(), 0, file.size, bytes, path));
  return bytes;
}

void LogSummaryLine(const SummaryPolicy& policy, const std::string& line) {
  if (policy.log) return policy.log(line);
  std::fprintf(stderr, "[W] %s\n", line.c_str());
}

namespace {

std::mutex& PolicyMutex() {
  static std::mutex mu;
  return mu;
}
SummaryPolicy& PolicySlot() {
  static SummaryPolicy policy;
  return policy;
}

// `path` relative to `root` ("" when not under it).
std::string RelativeTo(const std::string& path, const std::string& root) {
  if (root.empty()) return "";
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  if (path.size() <= r.size() + 1 || path.compare(0, r.size(), r) != 0 || path[r.size()] != '/') return "";
  return path.substr(r.size() + 1);
}

}  // namespace

StatusOr<ProfileIdentity> IdentityOfProfile(const std::string& path) {
  ASSIGN_OR_RETURN(FileIdentity id, FileIdentityOf(path));
  ASSIGN_OR_RETURN(UniqueFd fd, OpenForRead(path));
  ProfileIdentity out{.size = id.size, .mtime_ns = id.mtime_ns, .digest = 0};
  std::string head, tail;
  RETURN_IF_ERROR(ReadAt(fd.get(), 0, std::min<uint64_t>(id.size, kDigestSpan), head, path));
  const uint64_t tail_at = std::max<uint64_t>(head.size(), id.size > kDigestSpan ? id.size - kDigestSpan : 0);
  RETURN_IF_ERROR(ReadAt(fd.get(), tail_at, id.size - tail_at, tail, path));
  out.digest = Fnv1a(tail, Fnv1a(head));
  return out;
}

std::string EncodeSummary(const ProfileIdentity& identity, const OpStats& stats,
                          const trace_analysis::RankSections& sections) {
  const std::string payload = SerializeOpStats(stats);
  const std::string sections_payload = trace_analysis::SerializeRankSections(sections);
  std::string out(kMagic, kMagicBytes);
  PutFixed(out, kSummaryFormatVersion, 2);
  PutFixed(out, kOpStatsSerialVersion, 4);
  PutFixed(out, identity.size, 8);
  PutFixed(out, static_cast<uint64_t>(identity.mtime_ns), 8);
  PutFixed(out, identity.digest, 8);
  PutFixed(out, payload.size(), 8);
  PutFixed(out, PayloadChecksum(payload), 8);
  PutFixed(out, trace_analysis::kRankSectionsSerialVersion, 4);
  PutFixed(out, sections_payload.size(), 8);
  PutFixed(out, PayloadChecksum(sections_payload), 8);
  out.reserve(out.size() + sections_payload.size() + payload.size());
  return out.append(sections_payload).append(payload);
}

namespace {

// What a summary's header says, once it is known to be a summary of the profile.
struct SummaryHeader {
  uint64_t stats_length = 0, stats_checksum = 0;
  uint64_t sections_layout = 0, sections_length = 0, sections_checksum = 0;
};

// `head`: the file's first kHeaderBytes (fewer when it is shorter); `file_size`: all of it.
StatusOr<SummaryHeader> ParseSummaryHeader(std::string_view head, const ProfileIdentity& expected, uint64_t file_size) {
  if (head.size() < kHeaderBytes || head.substr(0, kMagicBytes) != std::string_view(kMagic, kMagicBytes)) {
    return DataLoss("not a tbprof summary (no header)");
  }
  const uint64_t format = GetFixed(head, 6, 2), layout = GetFixed(head, 8, 4);
  if (format != kSummaryFormatVersion || layout != kOpStatsSerialVersion) {
    return InvalidArgument("a summary of another version (" + std::to_string(format) + "." +
                              std::to_string(layout) + "; this tbprof reads " +
                              std::to_string(kSummaryFormatVersion) + "." + std::to_string(kOpStatsSerialVersion) + ")");
  }
  const ProfileIdentity id{.size = GetFixed(head, 12, 8),
                           .mtime_ns = static_cast<int64_t>(GetFixed(head, 20, 8)),
                           .digest = GetFixed(head, 28, 8)};
  if (!(id == expected)) return InvalidArgument("a summary of another version of the profile (size, mtime or bytes differ)");
  SummaryHeader h{.stats_length = GetFixed(head, 36, 8),
                  .stats_checksum = GetFixed(head, 44, 8),
                  .sections_layout = GetFixed(head, 52, 4),
                  .sections_length = GetFixed(head, 56, 8),
                  .sections_checksum = GetFixed(head, 64, 8)};
  // Each length checked against what is left before adding it, so no sum wraps.
  const uint64_t after_header = file_size - kHeaderBytes;
  if (h.sections_length > after_header || h.stats_length != after_header - h.sections_length) {
    return DataLoss("a damaged summary (cut short or too long)");
  }
  return h;
}

StatusOr<trace_analysis::RankSections> SectionsOfPayload(const SummaryHeader& h, std::string_view payload) {
  if (h.sections_layout != trace_analysis::kRankSectionsSerialVersion) {
    return InvalidArgument("trace_analysis sections of another version (" + std::to_string(h.sections_layout) +
                           "; this tbprof reads " + std::to_string(trace_analysis::kRankSectionsSerialVersion) + ")");
  }
  if (PayloadChecksum(payload) != h.sections_checksum) {
    return DataLoss("damaged trace_analysis sections (checksum differs)");
  }
  return trace_analysis::DeserializeRankSections(payload);
}

StatusOr<OpStats> StatsOfPayload(const SummaryHeader& h, std::string_view payload) {
  if (PayloadChecksum(payload) != h.stats_checksum) return DataLoss("a damaged summary (checksum differs)");
  return DeserializeOpStats(payload);
}

}  // namespace

StatusOr<OpStats> DecodeSummary(std::string_view bytes, const ProfileIdentity& expected) {
  ASSIGN_OR_RETURN(SummaryHeader h, ParseSummaryHeader(bytes, expected, bytes.size()));
  return StatsOfPayload(h, bytes.substr(kHeaderBytes + h.sections_length));
}

StatusOr<trace_analysis::RankSections> DecodeSummarySections(std::string_view bytes, const ProfileIdentity& expected) {
  ASSIGN_OR_RETURN(SummaryHeader h, ParseSummaryHeader(bytes, expected, bytes.size()));
  return SectionsOfPayload(h, bytes.substr(kHeaderBytes, h.sections_length));
}

namespace {

enum class SummaryPart { kSections, kOpStats };

// One summary file's header and one of its payloads, decoded from the file
// mapped (the page cache's pages read in place: a copy of tens of megabytes
// into fresh memory costs a reopened host's overview a fifth of its time),
// the other payload not touched: a page of op statistics needs none of the
// trace_analysis sections, nor they its OpStats.
template <typename T>
StatusOr<T> DecodePartOfFile(const std::string& path, const ProfileIdentity& expected, SummaryPart part,
                             StatusOr<T> (*decode)(const SummaryHeader&, std::string_view)) {
  ASSIGN_OR_RETURN(OpenSummary file, OpenSummaryOfSize(path));
  MappedFile mapped;
  RETURN_IF_ERROR(mapped.Open(std::move(file.fd), path, kMaxSummaryBytes));
  const std::string_view bytes = mapped.view();
  ASSIGN_OR_RETURN(SummaryHeader h, ParseSummaryHeader(bytes.substr(0, kHeaderBytes), expected, bytes.size()));
  const bool sections = part == SummaryPart::kSections;
  StatusOr<T> decoded = decode(h, sections ? bytes.substr(kHeaderBytes, h.sections_length)
                                           : bytes.substr(kHeaderBytes + h.sections_length));
  RETURN_IF_ERROR(mapped.CheckUnchanged());
  return decoded;
}

StatusOr<trace_analysis::RankSections> ReadSectionsOfFile(const std::string& path, const ProfileIdentity& expected) {
  return DecodePartOfFile<trace_analysis::RankSections>(path, expected, SummaryPart::kSections, SectionsOfPayload);
}

StatusOr<OpStats> ReadStatsOfFile(const std::string& path, const ProfileIdentity& expected) {
  return DecodePartOfFile<OpStats>(path, expected, SummaryPart::kOpStats, StatsOfPayload);
}

}  // namespace

std::optional<trace_analysis::RankSections> ReadSummarySectionsFor(const std::string& profile_path,
                                                                   const ProfileIdentity& identity,
                                                                   const SummaryPolicy& policy) {
  for (const std::string& candidate : SummaryCandidates(profile_path, policy)) {
    auto sections = ReadSectionsOfFile(candidate, identity);
    if (sections.ok()) return std::move(*sections);
    if (sections.status().code() != ErrorCode::kNotFound) {
      LogSummaryLine(policy, "summary " + candidate + " ignored for trace_analysis: " + sections.status().message());
    }
  }
  return std::nullopt;
}

void SetSummaryPolicy(SummaryPolicy policy) {
  std::lock_guard<std::mutex> lock(PolicyMutex());
  PolicySlot() = std::move(policy);
}

SummaryPolicy CurrentSummaryPolicy() {
  std::lock_guard<std::mutex> lock(PolicyMutex());
  return PolicySlot();
}

std::string SummaryPathFor(const std::string& profile_path, const std::string& summary_dir,
                           const std::string& root, std::string_view suffix) {
  if (summary_dir.empty()) return profile_path + std::string(suffix);
  std::string rel = RelativeTo(profile_path, root);
  if (rel.empty()) rel = std::filesystem::path(profile_path).filename().string();
  return (std::filesystem::path(summary_dir) / rel).string() + std::string(suffix);
}

std::vector<std::string> SummaryCandidates(const std::string& profile_path, const SummaryPolicy& policy,
                                           std::string_view suffix) {
  if (policy.summary_dir.empty()) return {profile_path + std::string(suffix)};
  std::vector<std::string> out{SummaryPathFor(profile_path, policy.summary_dir, policy.root, suffix)};
  // Each folder from the root down to the profile's own, taken as the root.
  std::string rel = RelativeTo(profile_path, policy.root);
  for (size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
    out.push_back((std::filesystem::path(policy.summary_dir) / rel.substr(slash + 1)).string() + std::string(suffix));
  }
  if (rel.empty()) out.push_back(SummaryPathFor(profile_path, policy.summary_dir, "", suffix));
  return out;
}

std::optional<uint64_t> PresentSummaryBytes(const std::string& profile_path, const SummaryPolicy& policy,
                                            std::string_view suffix) {
  if (!policy.read) return std::nullopt;
  for (const std::string& candidate : SummaryCandidates(profile_path, policy, suffix)) {
    struct stat st {};
    if (::lstat(candidate.c_str(), &st) == 0) return static_cast<uint64_t>(st.st_size);
  }
  return std::nullopt;
}

std::shared_ptr<const OpStats> ReadSummaryFor(const std::string& profile_path, const ProfileIdentity& identity,
                                              const SummaryPolicy& policy) {
  for (const std::string& candidate : SummaryCandidates(profile_path, policy)) {
    auto stats = ReadStatsOfFile(candidate, identity);
    if (stats.ok()) return std::make_shared<const OpStats>(std::move(*stats));
    if (stats.status().code() != ErrorCode::kNotFound) {
      LogSummaryLine(policy, "summary " + candidate + " ignored: " + stats.status().message());
    }
  }
  return nullptr;
}

Status WriteSummaryFile(const std::string& summary_path, std::string_view bytes) {
  return WriteSummaryFileInPieces(summary_path, [&](const ByteSink& sink) { return sink(bytes); });
}

Status WriteSummaryFileInPieces(const std::string& summary_path, const std::function<Status(const ByteSink&)>& write) {
  const std::filesystem::path target(summary_path);
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  static std::atomic<uint64_t> serial{0};
  const std::string temp = summary_path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return PermissionDenied("cannot write " + temp + ": " + std::strerror(errno));
  int write_errno = 0;
  const ByteSink sink = [&](std::string_view bytes) -> Status {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        write_errno = w < 0 ? errno : ENOSPC;
        return Unavailable("cannot write " + summary_path + ": " + std::strerror(write_errno));
      }
      done += static_cast<size_t>(w);
    }
    return Status::Ok();
  };
  Status written = write(sink);
  if (written.ok() && ::fsync(fd) != 0) written = Unavailable("cannot write " + summary_path + ": " + std::strerror(errno));
  ::close(fd);
  if (written.ok() && ::rename(temp.c_str(), summary_path.c_str()) != 0) {
    written = Unavailable("cannot write " + summary_path + ": " + std::strerror(errno));
  }
  if (!written.ok()) ::unlink(temp.c_str());
  return written;
}

void PutKeptFileHead(std::string& out, std::string_view magic, uint16_t version, const ProfileIdentity& identity) {
  out.append(magic);
  PutFixed(out, version, 2);
  PutFixed(out, identity.size, 8);
  PutFixed(out, static_cast<uint64_t>(identity.mtime_ns), 8);
  PutFixed(out, identity.digest, 8);
}

Status CheckKeptFileHead(std::string_view head, std::string_view magic, uint16_t version,
                         const ProfileIdentity& expected, std::string_view what) {
  const std::string kind(what);
  if (head.size() < kKeptFileHeadBytes || head.substr(0, magic.size()) != magic) {
    return DataLoss("not a tbprof " + kind + " (no header)");
  }
  const uint64_t found = GetFixed(head, magic.size(), 2);
  if (found != version) {
    return InvalidArgument("a " + kind + " of another version (" + std::to_string(found) + "; this tbprof reads " +
                           std::to_string(version) + ")");
  }
  const size_t at = magic.size() + 2;
  const ProfileIdentity id{.size = GetFixed(head, at, 8),
                           .mtime_ns = static_cast<int64_t>(GetFixed(head, at + 8, 8)),
                           .digest = GetFixed(head, at + 16, 8)};
  if (!(id == expected)) {
    return InvalidArgument("a " + kind + " of another version of the profile (size, mtime or bytes differ)");
  }
  return Status::Ok();
}

void PutFixed(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetFixed(std::string_view in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return v;
}

}  // namespace tbprof
