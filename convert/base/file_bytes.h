// The bytes of a profile file: mapped read-only (never copied, never
// written), or inflated when the file is gzip'ed. Files are read while other
// programs may rewrite them, so:
//  - a mapped file that shrinks under a reader does not kill the process: the
//    SIGBUS of a read past the new end is caught, the missing pages read as
//    zeros, and the load reports the change (MappedFile::CheckUnchanged);
//  - a file's identity (size, mtime, inode) is taken from the open descriptor
//    before and after a load, so a file rewritten meanwhile gives an error,
//    never a model mixing old and new bytes;
//  - while a FileAccessScope is active on a thread, every open of a path under
//    its root walks the path one component at a time from the root's
//    descriptor without following symlinks, so a file or directory swapped for
//    a link after it was listed cannot lead outside the root.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "convert/base/status.h"

namespace tbprof {

bool HasGzipMagic(std::string_view head);

// Inflates a gzip stream; `path` names it in errors. More than `max_bytes` out
// (or than the active FileAccessScope allows) is ResourceExhausted, found
// while inflating, so a small bomb never allocates more than the limit. The
// buffer is claimed from the thread's memory grant as it grows (a refusal ends
// the inflation) and released on return.
StatusOr<std::string> Inflate(std::string_view in, const std::string& path, uint64_t max_bytes);

// Inflate, the claim of the returned buffer kept: `*claimed` is what the
// caller releases when it drops the bytes (0 on error). inflate_claimed.h
// holds the bytes claimed while a loader decodes them.
StatusOr<std::string> InflateKeepingClaim(std::string_view in, const std::string& path, uint64_t max_bytes,
                                          uint64_t* claimed);

// What identifies one version of a file: a rewrite changes the size or the
// modification time, a replacement the inode.
struct FileIdentity {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t inode = 0;
  uint64_t device = 0;
  bool operator==(const FileIdentity&) const = default;
};

// "<path>|<size>|<mtime ns>|<inode>", the form cache keys use.
std::string FileIdentityKey(const std::string& path, const FileIdentity& id);
// The identity of `path` itself (a symlink is an error, not followed), or the
// identity the active FileAccessScope recorded for it; NotFound when missing.
StatusOr<FileIdentity> FileIdentityOf(const std::string& path);
// FileIdentityKey(path, FileIdentityOf(path)).
StatusOr<std::string> FileIdentityKey(const std::string& path);

// Reads exactly `n` bytes at `offset` into `out`, through interrupted and
// short reads: 0 when all were read, else the errno of the failure, or
// ENODATA when the file ended first.
int ReadFullyAt(int fd, uint64_t offset, char* out, size_t n);

// An open file descriptor, closed on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// A directory that opens may be confined to (a logdir); opened once.
class ConfinedRoot {
 public:
  // `canonical_path` must be an absolute path without symlinks.
  static StatusOr<std::shared_ptr<const ConfinedRoot>> Open(const std::string& canonical_path);
  const std::string& path() const { return path_; }
  int fd() const { return fd_.get(); }

 private:
  ConfinedRoot(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  std::string path_;
  UniqueFd fd_;
};

// How the calling thread may read files while it lives (scopes nest; the
// innermost wins): opens confined to `root` (when set), inflation bounded by
// `max_inflated_bytes`, and the identities of files already stat'ed for this
// request reused instead of stat'ed again.
class FileAccessScope {
 public:
  FileAccessScope(std::shared_ptr<const ConfinedRoot> root, uint64_t max_inflated_bytes);
  ~FileAccessScope();
  FileAccessScope(const FileAccessScope&) = delete;
  FileAccessScope& operator=(const FileAccessScope&) = delete;

  void Remember(const std::string& path, const FileIdentity& id) { identities_[path] = id; }
  // Inflating `path` stops at `max_bytes` (below max_inflated_bytes): the
  // size its working memory was estimated for.
  void LimitInflation(const std::string& path, uint64_t max_bytes) { inflation_limits_[path] = max_bytes; }
  // The most `path` may inflate to under this scope.
  uint64_t InflationLimitOf(const std::string& path) const;
  static FileAccessScope* Current();

  const ConfinedRoot* root() const { return root_.get(); }
  uint64_t max_inflated_bytes() const { return max_inflated_bytes_; }
  const FileIdentity* Known(const std::string& path) const;

 private:
  std::shared_ptr<const ConfinedRoot> root_;
  uint64_t max_inflated_bytes_;
  std::map<std::string, FileIdentity> identities_;
  std::map<std::string, uint64_t> inflation_limits_;
  FileAccessScope* outer_;
};

// Opens `path` read-only, confined by the active FileAccessScope: a path
// under its root is opened from the root without following any symlink
// (PermissionDenied otherwise); a path outside it is PermissionDenied.
// `directory` opens a directory (for listing) instead of a file.
StatusOr<UniqueFd> OpenForRead(const std::string& path, bool directory = false);

// A regular file mapped read-only for its lifetime.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  // Files over `max_bytes` are refused before anything is mapped; so is a file
  // whose identity differs from the one the active scope recorded for it.
  Status Open(const std::string& path, uint64_t max_bytes);
  // The same for a file its caller opened (its own confinement rules); `path` names it in errors.
  Status Open(UniqueFd fd, const std::string& path, uint64_t max_bytes);
  std::string_view view() const;
  const FileIdentity& identity() const { return identity_; }
  // Unavailable when the file shrank while it was read (pages past its new
  // end read as zeros) or when its identity changed since Open; call it after
  // the last read of view() and before trusting anything decoded from it.
  Status CheckUnchanged() const;

 private:
  std::string path_;
  int fd_ = -1;
  void* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;  // size_ rounded up to whole pages
  int guard_slot_ = -1;
  std::string copy_;   // the bytes read instead of mapped, when no guard slot was free
  FileIdentity identity_;
};

}  // namespace tbprof
