// A profile file's summary on disk: its per-host OpStats and its
// trace_analysis sections, written by `tbprof summarize` (or by `tbprof serve
// --write_summaries`) and read back in place of loading the profile, so
// ALL_HOSTS pages of a run of hundreds of hosts start from small files,
// possibly computed on other machines.
//
// Layout (integers little-endian), 72 bytes of header:
//   "TBPSUM", u16 summary format version, u32 OpStats layout version
//   (op_stats_serial.h), the profile's identity (u64 size, i64 mtime ns, u64
//   digest of its first and last 64 KiB), u64 OpStats payload length, u64 its
//   checksum, u32 trace_analysis sections layout version
//   (trace_analysis_serial.h), u64 sections payload length, u64 its checksum;
// then the sections' payload (at the header's end, so trace_analysis reads the
// header and it alone), then the OpStats payload (SerializeOpStats), which ends
// the file. The header's lengths must add up to the file's.
// A summary is used only when the format, OpStats layout and identity match
// and the payload read passes its checksum; one of another version or
// identity, or a damaged one, is ignored (one log line) and the profile is
// read instead. The sections have their own layout version and checksum: a
// summary whose sections are of another layout or damaged still answers
// OpStats, and trace_analysis reads that host's profile (one log line).
//
// Where: `<file>.tbprof-summary` beside the profile, or under a summary
// directory mirroring the profile's path relative to a root (the logdir, the
// run or the folder summarized). Written to a temporary file in the same
// folder and renamed, so a reader never sees half of one.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/analysis/op_stats/op_stats.h"
#include "convert/analysis/trace_analysis/rank_sections.h"
#include "convert/base/file_bytes.h"
#include "convert/base/status.h"

namespace tbprof {

inline constexpr char kSummarySuffix[] = ".tbprof-summary";
// 2: the payload checksum is taken over 8-byte words. 3: the trace_analysis sections.
inline constexpr uint16_t kSummaryFormatVersion = 3;

// What identifies the profile a summary was computed from.
struct ProfileIdentity {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t digest = 0;  // of the first and last 64 KiB
  bool operator==(const ProfileIdentity&) const = default;
};

// Stats the profile (through the active FileAccessScope) and reads its first
// and last 64 KiB for the digest; the rest of it is not read.
StatusOr<ProfileIdentity> IdentityOfProfile(const std::string& path);

std::string EncodeSummary(const ProfileIdentity& identity, const OpStats& stats,
                          const trace_analysis::RankSections& sections);
// The OpStats of a summary of the profile `expected` identifies.
// InvalidArgument when it is of another version or identity, DataLoss when
// damaged (cut short, garbled, a wrong checksum).
StatusOr<OpStats> DecodeSummary(std::string_view bytes, const ProfileIdentity& expected);
// Its trace_analysis sections (rank and host not assigned), refused as
// DecodeSummary refuses and also when the sections are of another layout.
StatusOr<trace_analysis::RankSections> DecodeSummarySections(std::string_view bytes, const ProfileIdentity& expected);

// How OpStats loads use summaries (process-wide; `tbprof serve` sets it from
// its flags before serving). Read beside the file by default; written never
// unless asked.
struct SummaryPolicy {
  bool read = true;
  bool write = false;
  // Empty: beside each profile. Else summaries live here, a profile's at its
  // path relative to `root` (reading also tries each folder between `root`
  // and the profile as the root, so summaries made of a run or of one of its
  // folders are found too).
  std::string summary_dir;
  std::string root;
  // Where a summary that is ignored or cannot be written is told; stderr when empty.
  std::function<void(const std::string&)> log;
};
void SetSummaryPolicy(SummaryPolicy policy);
SummaryPolicy CurrentSummaryPolicy();

// `<path>.tbprof-summary` beside it, or under `summary_dir` at `path`'s place
// relative to `root` (its file name alone when `path` is not under `root`).
// Another `suffix` names another file kept where the summary is (a model image).
std::string SummaryPathFor(const std::string& profile_path, const std::string& summary_dir,
                           const std::string& root, std::string_view suffix = kSummarySuffix);
// The places a summary (or the file of `suffix`) of `profile_path` is looked for under `policy`, first first.
std::vector<std::string> SummaryCandidates(const std::string& profile_path, const SummaryPolicy& policy,
                                           std::string_view suffix = kSummarySuffix);

// The OpStats of the first candidate summary that is present and valid for
// `identity`; null when none (each one present but ignored is logged).
std::shared_ptr<const OpStats> ReadSummaryFor(const std::string& profile_path, const ProfileIdentity& identity,
                                              const SummaryPolicy& policy);
// The trace_analysis sections of the first candidate summary that is present
// and whose header and sections are valid for `identity` (only the header and
// the sections are read); none when none is (each one present but ignored is
// logged).
std::optional<trace_analysis::RankSections> ReadSummarySectionsFor(const std::string& profile_path,
                                                                   const ProfileIdentity& identity,
                                                                   const SummaryPolicy& policy);
// The size of the first candidate summary (or file of `suffix`) that exists,
// whether or not it turns out valid; none when there is none or the policy
// reads none. No byte of it or of the profile is read.
std::optional<uint64_t> PresentSummaryBytes(const std::string& profile_path, const SummaryPolicy& policy,
                                            std::string_view suffix = kSummarySuffix);

// The bytes of a summary file (at most 1 GiB; a summary beside a profile is
// opened as confined as the profile); NotFound when there is none.
StatusOr<std::string> ReadSummaryFile(const std::string& path);
// Tells `line` where `policy` says (stderr by default, as a warning).
void LogSummaryLine(const SummaryPolicy& policy, const std::string& line);

// Writes `bytes` to `summary_path` atomically (temp file + rename), making its folders.
Status WriteSummaryFile(const std::string& summary_path, std::string_view bytes);
// The same for a file written in pieces: `write` hands each piece to the sink
// it is given; an error from either leaves no file behind.
using ByteSink = std::function<Status(std::string_view bytes)>;
Status WriteSummaryFileInPieces(const std::string& summary_path, const std::function<Status(const ByteSink&)>& write);
// Opens a file of summaries as ReadSummaryFile does (confined beside a profile,
// never through a final symlink under a summary folder).
StatusOr<UniqueFd> OpenSummaryFile(const std::string& path);

// The checksum of a payload kept on disk beside a profile (a summary's, a trace preview's).
uint64_t PayloadChecksum(std::string_view bytes);

// The head of a file kept beside a profile for it (a model image, a trace
// preview): a 6-byte magic, a u16 file version, the profile's identity (u64
// size, i64 mtime ns, u64 digest). `what` names the kind in the errors.
inline constexpr size_t kKeptFileHeadBytes = 6 + 2 + 3 * 8;
void PutKeptFileHead(std::string& out, std::string_view magic, uint16_t version, const ProfileIdentity& identity);
// DataLoss when `head` (the file's first kKeptFileHeadBytes, fewer when it
// is shorter) is not such a head; InvalidArgument when it is of another
// version or of another version of the profile.
Status CheckKeptFileHead(std::string_view head, std::string_view magic, uint16_t version,
                         const ProfileIdentity& expected, std::string_view what);

// The headers' fixed-width little-endian integers (`bytes` of them), for the
// summary and the model image file alike.
void PutFixed(std::string& out, uint64_t v, int bytes);
uint64_t GetFixed(std::string_view in, size_t at, int bytes);

}  // namespace tbprof
