#include "convert/base/file_bytes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "convert/base/cancellation.h"
#include "convert/base/file_name.h"
#include "convert/base/memory_grant.h"

namespace tbprof {

bool HasGzipMagic(std::string_view head) {
  return head.size() >= 2 && static_cast<uint8_t>(head[0]) == 0x1f && static_cast<uint8_t>(head[1]) == 0x8b;
}

int ReadFullyAt(int fd, uint64_t offset, char* out, size_t n) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, out, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) return ENODATA;
    out += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return 0;
}

StatusOr<std::string> Inflate(std::string_view in, const std::string& path, uint64_t max_bytes) {
  uint64_t claimed = 0;
  StatusOr<std::string> out = InflateKeepingClaim(in, path, max_bytes, &claimed);
  ReleaseMemory(claimed);
  return out;
}

namespace {

// Deflate writes at least one bit per 258 bytes out: a stream inflates to
// at most 1032 times its size.
constexpr uint64_t kMaxDeflateRatio = 1032;

// The size modulo 4 GiB that a single-member gzip file's last four bytes state.
uint64_t GzipTrailerSize(std::string_view in) {
  const auto* tail = reinterpret_cast<const unsigned char*>(in.data() + in.size() - 4);
  return uint64_t{tail[0]} | uint64_t{tail[1]} << 8 | uint64_t{tail[2]} << 16 | uint64_t{tail[3]} << 24;
}

// Whether `in`, having inflated to `produced` bytes, contradicts its own
// trailer: past the stated size, the true size can only be that plus a
// multiple of 4 GiB, which a file this small cannot hold. A file cut short
// ends in compressed data, so its "trailer" states anything.
bool TrailerRulesOut(std::string_view in, uint64_t produced) {
  if (in.size() < 18) return false;
  const uint64_t stated = GzipTrailerSize(in);
  return produced > stated && stated + (uint64_t{1} << 32) > uint64_t{in.size()} * kMaxDeflateRatio;
}

// The rest of a stream whose trailer is ruled out, inflated into a scratch
// buffer (kept nowhere: the file is damaged either way) to say how: cut short,
// corrupt, or whole but with a trailer that is not its size. Bounded: the
// file is too small to inflate past 1032 times itself.
Status DamageOfTheRest(z_stream& zs, std::string_view in, size_t fed, const std::string& path) {
  std::vector<unsigned char> scratch(1 << 20);
  while (true) {
    if (CancelRequested()) return CancelledError("inflating " + FileNameOfPath(path));
    zs.next_out = scratch.data();
    zs.avail_out = static_cast<uInt>(scratch.size());
    const int rc = inflate(&zs, Z_NO_FLUSH);
    // zlib checks the trailer at the stream's end: a size that is not the stream's is its "length check".
    if (rc == Z_STREAM_END || (rc == Z_DATA_ERROR && zs.msg != nullptr &&
                               std::string_view(zs.msg) == "incorrect length check")) {
      return DamagedProfileFile(path, in.size(),
                                "its gzip data inflates to " + std::to_string(zs.total_out) + " bytes, not the " +
                                    std::to_string(GzipTrailerSize(in)) + " its last bytes state");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return DamagedProfileFile(path, in.size(), "its gzip data is corrupt after byte " + std::to_string(zs.total_in));
    }
    if (zs.avail_in > 0) continue;
    if (fed < in.size()) {
      const size_t more = std::min<size_t>(in.size() - fed, 1u << 30);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + fed));
      zs.avail_in = static_cast<uInt>(more);
      fed += more;
    } else if (zs.avail_out > 0) {
      return DamagedProfileFile(path, in.size(), "it ends inside its gzip data");
    }
  }
}

}  // namespace

StatusOr<std::string> InflateKeepingClaim(std::string_view in, const std::string& path, uint64_t max_bytes,
                                          uint64_t* kept_claim) {
  *kept_claim = 0;
  if (const FileAccessScope* scope = FileAccessScope::Current()) {
    max_bytes = std::min(max_bytes, scope->InflationLimitOf(path));
  }
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return Internal(path + ": zlib init failed");
  std::string out;
  // The buffer is claimed before each growth (both held while it is copied),
  // so a bomb stops at the thread's memory grant as well as at `max_bytes`.
  uint64_t claimed = 0;
  auto fail = [&](Status s) {
    inflateEnd(&zs);
    out = std::string();
    ReleaseMemory(claimed);
    return s;
  };
  auto grow = [&](uint64_t size) {
    RETURN_IF_ERROR(ClaimMemory(size, "decompressing " + FileNameOfPath(path)));
    out.resize(size);
    ReleaseMemory(claimed);
    claimed = size;
    return Status();
  };
  if (Status s = grow(std::min<uint64_t>(std::max<uint64_t>(uint64_t{in.size()} * 4, 1 << 16),
                                         std::max<uint64_t>(max_bytes, 1)));
      !s.ok()) {
    return fail(s);
  }
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), 1u << 30));
  size_t fed = zs.avail_in;
  size_t produced = 0;
  int rc = Z_OK;
  while (true) {
    if (produced == out.size()) {
      if (out.size() >= max_bytes) {
        if (TrailerRulesOut(in, produced)) {
          out = std::string();
          ReleaseMemory(claimed);
          claimed = 0;
          return fail(DamageOfTheRest(zs, in, fed, path));
        }
        return fail(ResourceExhausted(path + ": more than " + std::to_string(max_bytes) + " bytes when decompressed"));
      }
      if (Status s = grow(std::min<uint64_t>(out.size() * 2, max_bytes)); !s.ok()) return fail(s);
    }
    if (CancelRequested()) return fail(CancelledError("inflating " + FileNameOfPath(path)));
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    // 16 MiB at a time (tens of ms): the cancellation checkpoint's interval.
    zs.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - produced, 16u << 20));
    size_t before = zs.avail_out;
    rc = inflate(&zs, Z_NO_FLUSH);
    produced += before - zs.avail_out;
    if (zs.avail_in == 0 && fed < in.size()) {
      size_t more = std::min<size_t>(in.size() - fed, 1u << 30);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + fed));
      zs.avail_in = static_cast<uInt>(more);
      fed += more;
    }
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return fail(
          DamagedProfileFile(path, in.size(), "its gzip data is corrupt after byte " + std::to_string(zs.total_in)));
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && fed >= in.size()) {
      return fail(DamagedProfileFile(path, in.size(), "it ends inside its gzip data"));
    }
  }
  inflateEnd(&zs);
  out.resize(produced);
  *kept_claim = claimed;
  return out;
}

// --- identity ----------------------------------------------------------------

namespace {

FileIdentity IdentityOfStat(const struct stat& st) {
  FileIdentity id;
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  id.inode = st.st_ino;
  id.device = st.st_dev;
  return id;
}

thread_local FileAccessScope* t_scope = nullptr;

}  // namespace

std::string FileIdentityKey(const std::string& path, const FileIdentity& id) {
  return path + "|" + std::to_string(id.size) + "|" + std::to_string(id.mtime_ns) + "|" + std::to_string(id.inode);
}

namespace {

// `path` as a failure names it: relative to the logdir of the active scope
// (a server's client never learns where the logdir is), else as the caller
// gave it (the CLI's user named it).
std::string PathShown(const std::string& path) {
  const FileAccessScope* scope = FileAccessScope::Current();
  if (scope != nullptr && scope->root() != nullptr) {
    const std::string& root = scope->root()->path();
    if (root == "/" && path.size() > 1 && path[0] == '/') return path.substr(1);
    if (path.size() > root.size() + 1 && path.starts_with(root) && path[root.size()] == '/') {
      return path.substr(root.size() + 1);
    }
    return FileNameOfPath(path);
  }
  return path;
}

}  // namespace

StatusOr<FileIdentity> FileIdentityOf(const std::string& path) {
  if (const FileAccessScope* scope = FileAccessScope::Current()) {
    if (const FileIdentity* known = scope->Known(path)) return *known;
  }
  struct stat st;
  if (fstatat(AT_FDCWD, path.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return NotFound(PathShown(path) + ": " + std::strerror(errno));
  }
  // Only a file listed before can have become a link: a server's listing,
  // whose answer names the file alone when no request's scope says the logdir.
  if (S_ISLNK(st.st_mode)) {
    const bool scoped = FileAccessScope::Current() != nullptr && FileAccessScope::Current()->root() != nullptr;
    return PermissionDenied((scoped ? PathShown(path) : FileNameOfPath(path)) + ": is a symbolic link now");
  }
  return IdentityOfStat(st);
}

StatusOr<std::string> FileIdentityKey(const std::string& path) {
  auto id = FileIdentityOf(path);
  if (!id.ok()) return id.status();
  return FileIdentityKey(path, *id);
}

// --- descriptors and confinement ----------------------------------------------

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) close(fd_);
}

StatusOr<std::shared_ptr<const ConfinedRoot>> ConfinedRoot::Open(const std::string& canonical_path) {
  int fd = open(canonical_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return NotFound(canonical_path + ": " + std::strerror(errno));
  std::string path = canonical_path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return std::shared_ptr<const ConfinedRoot>(new ConfinedRoot(std::move(path), UniqueFd(fd)));
}

uint64_t FileAccessScope::InflationLimitOf(const std::string& path) const {
  auto it = inflation_limits_.find(path);
  return it == inflation_limits_.end() ? max_inflated_bytes_ : std::min(it->second, max_inflated_bytes_);
}

FileAccessScope::FileAccessScope(std::shared_ptr<const ConfinedRoot> root, uint64_t max_inflated_bytes)
    : root_(std::move(root)), max_inflated_bytes_(max_inflated_bytes), outer_(t_scope) {
  t_scope = this;
}

FileAccessScope::~FileAccessScope() { t_scope = outer_; }

FileAccessScope* FileAccessScope::Current() { return t_scope; }

const FileIdentity* FileAccessScope::Known(const std::string& path) const {
  auto it = identities_.find(path);
  return it == identities_.end() ? nullptr : &it->second;
}

namespace {

Status OpenError(const std::string& path, int err) {
  // ELOOP: the last component is a symlink; ENOTDIR: an intermediate one is
  // (O_NOFOLLOW|O_DIRECTORY on a link fails that way).
  if (err == ELOOP || err == ENOTDIR || err == EMLINK) {
    return PermissionDenied(PathShown(path) + ": a symbolic link on the way (files are only read inside the logdir)");
  }
  if (err == EMFILE || err == ENFILE || err == ENOMEM) return Unavailable(PathShown(path) + ": " + std::strerror(err));
  return NotFound(PathShown(path) + ": " + std::strerror(err));
}

}  // namespace

StatusOr<UniqueFd> OpenForRead(const std::string& path, bool directory) {
  // O_NONBLOCK: a FIFO swapped in for a profile must not block the reader
  // forever (callers check that what they opened is a regular file).
  const int final_flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (directory ? O_DIRECTORY : 0);
  const FileAccessScope* scope = FileAccessScope::Current();
  if (scope == nullptr || scope->root() == nullptr) {
    int fd = open(path.c_str(), final_flags);
    if (fd < 0) return OpenError(path, errno);
    return UniqueFd(fd);
  }
  const std::string& root = scope->root()->path();
  std::string_view rel;
  if (path == root) {
    rel = ".";
  } else if (root == "/" && path.size() > 1 && path[0] == '/') {
    rel = std::string_view(path).substr(1);
  } else if (path.size() > root.size() + 1 && path.starts_with(root) && path[root.size()] == '/') {
    rel = std::string_view(path).substr(root.size() + 1);
  } else {
    return PermissionDenied(path + ": outside the logdir");
  }
  if (rel == ".") {
    int fd = openat(scope->root()->fd(), ".", final_flags);
    if (fd < 0) return OpenError(path, errno);
    return UniqueFd(fd);
  }
  UniqueFd dir;  // empty while at the root (whose descriptor the scope owns)
  size_t start = 0;
  while (true) {
    size_t slash = rel.find('/', start);
    std::string name(rel.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (name.empty() || name == "." || name == "..") return PermissionDenied(path + ": not a plain path");
    const int at = dir.get() >= 0 ? dir.get() : scope->root()->fd();
    const bool last = slash == std::string_view::npos;
    int fd = openat(at, name.c_str(), last ? final_flags | O_NOFOLLOW : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return OpenError(path, errno);
    dir = UniqueFd(fd);
    if (last) return dir;
    start = slash + 1;
  }
}

// --- SIGBUS guard ---------------------------------------------------------------
//
// A mapped file truncated by another program turns reads past its new end
// into SIGBUS. Each live mapping owns a slot; the handler finds the slot of
// the faulting address, maps zero pages over the rest of that mapping (so the
// read, and every later one, completes) and marks the slot. Faults outside
// every slot are real bugs and get the default action.

namespace {

struct GuardSlot {
  std::atomic<bool> used{false};
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<bool> faulted{false};
};
constexpr int kGuardSlots = 256;
GuardSlot g_slots[kGuardSlots];
struct sigaction g_previous_sigbus;

void OnSigbus(int sig, siginfo_t* info, void* context) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (GuardSlot& slot : g_slots) {
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    const uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (begin == 0 || addr < begin || addr >= end) continue;
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t from = addr & ~(page - 1);
    void* zeros = mmap(reinterpret_cast<void*>(from), end - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                       -1, 0);
    if (zeros == MAP_FAILED) break;
    slot.faulted.store(true, std::memory_order_release);
    return;
  }
  // Not a guarded mapping: whatever was installed before us, else the default
  // action (returning re-executes the faulting access, which then kills).
  if ((g_previous_sigbus.sa_flags & SA_SIGINFO) != 0 && g_previous_sigbus.sa_sigaction != nullptr) {
    g_previous_sigbus.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous_sigbus.sa_handler != SIG_DFL && g_previous_sigbus.sa_handler != SIG_IGN &&
      g_previous_sigbus.sa_handler != nullptr) {
    g_previous_sigbus.sa_handler(sig);
    return;
  }
  signal(SIGBUS, SIG_DFL);
}

void InstallSigbusGuard() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = OnSigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_previous_sigbus);
  });
}

int ClaimGuardSlot() {
  for (int i = 0; i < kGuardSlots; ++i) {
    bool expected = false;
    if (g_slots[i].used.compare_exchange_strong(expected, true)) {
      g_slots[i].faulted.store(false);
      return i;
    }
  }
  return -1;
}

}  // namespace

MappedFile::~MappedFile() {
  if (guard_slot_ >= 0) {
    GuardSlot& slot = g_slots[guard_slot_];
    slot.begin.store(0, std::memory_order_release);
    slot.end.store(0, std::memory_order_release);
  }
  if (data_ != nullptr && data_ != MAP_FAILED) munmap(data_, mapped_);
  if (guard_slot_ >= 0) g_slots[guard_slot_].used.store(false, std::memory_order_release);
  if (fd_ >= 0) close(fd_);
}

Status MappedFile::Open(const std::string& path, uint64_t max_bytes) {
  auto fd = OpenForRead(path);
  if (!fd.ok()) return fd.status();
  return Open(std::move(*fd), path, max_bytes);
}

Status MappedFile::Open(UniqueFd fd, const std::string& path, uint64_t max_bytes) {
  path_ = path;
  fd_ = fd.release();
  struct stat st;
  if (fstat(fd_, &st) != 0) return NotFound(path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument(path + ": not a regular file");
  identity_ = IdentityOfStat(st);
  if (const FileAccessScope* scope = FileAccessScope::Current()) {
    const FileIdentity* listed = scope->Known(path);
    if (listed != nullptr && !(*listed == identity_)) {
      return Unavailable(path + ": the file changed after it was listed (being rewritten?); try again");
    }
  }
  if (identity_.size > max_bytes) {
    return ResourceExhausted(path + ": file is " + std::to_string(identity_.size) + " bytes; files over " +
                             std::to_string(max_bytes) + " bytes are not supported");
  }
  size_ = static_cast<size_t>(identity_.size);
  if (size_ == 0) return Status::Ok();
  InstallSigbusGuard();
  guard_slot_ = ClaimGuardSlot();
  if (guard_slot_ < 0) {
    // Every slot busy (hundreds of loads at once): read instead of mapping.
    copy_.resize(size_);
    const int error = ReadFullyAt(fd_, 0, copy_.data(), size_);
    if (error == ENODATA) return Unavailable(path + ": the file shrank while it was read; try again");
    if (error != 0) return Internal(path + ": read failed: " + std::strerror(error));
    return Status::Ok();
  }
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  mapped_ = (size_ + page - 1) & ~(page - 1);
  data_ = mmap(nullptr, mapped_, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (data_ == MAP_FAILED) {
    data_ = nullptr;
    return Internal(path + ": mmap failed: " + std::strerror(errno));
  }
  GuardSlot& slot = g_slots[guard_slot_];
  slot.end.store(reinterpret_cast<uintptr_t>(data_) + mapped_, std::memory_order_release);
  slot.begin.store(reinterpret_cast<uintptr_t>(data_), std::memory_order_release);
  madvise(data_, size_, MADV_SEQUENTIAL);
  return Status::Ok();
}

std::string_view MappedFile::view() const {
  if (size_ == 0) return {};
  if (data_ == nullptr) return copy_;
  return std::string_view(static_cast<const char*>(data_), size_);
}

Status MappedFile::CheckUnchanged() const {
  if (guard_slot_ >= 0 && g_slots[guard_slot_].faulted.load(std::memory_order_acquire)) {
    return Unavailable(path_ + ": the file shrank while it was read (being rewritten?); try again");
  }
  if (fd_ < 0) return Status::Ok();
  struct stat st;
  if (fstat(fd_, &st) != 0 || !(IdentityOfStat(st) == identity_)) {
    return Unavailable(path_ + ": the file changed while it was read (being rewritten?); try again");
  }
  return Status::Ok();
}

}  // namespace tbprof
