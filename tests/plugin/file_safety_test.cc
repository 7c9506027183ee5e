// Files that change under the server (issue 14, findings 1, 2 and 4): a
// profile truncated while it is decoded, a file or directory swapped for a
// symlink after it was listed, gzip bombs. Each loop below crashed the process,
// served a file from outside the logdir, or inflated without bound before.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <variant>

#include <gtest/gtest.h>

#include "convert/base/file_bytes.h"
#include "convert/xplane/xspace_reader.h"
#include "plugin/routes.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using testing_plugin::WriteFile;

// A logdir with one run "r" (plugins/profile/r) in a fresh temporary directory.
class ScratchLogdir {
 public:
  ScratchLogdir() {
    char tmpl[] = "/tmp/tbprof_safety_XXXXXX";
    base_ = mkdtemp(tmpl);
    fs::create_directories(run_dir());
  }
  ~ScratchLogdir() {
    std::error_code ec;
    fs::remove_all(base_, ec);
  }
  fs::path base() const { return base_; }
  fs::path logdir() const { return base_ / "logdir"; }
  fs::path run_dir() const { return logdir() / "plugins/profile/r"; }
  // `runs_ttl` 0: every request looks at the files again (a run listed
  // within runs_ttl is answered from its listing on the network thread).
  std::unique_ptr<ProfileService> Service(ProfileServiceOptions o = {},
                                          std::chrono::milliseconds runs_ttl = std::chrono::milliseconds(0)) {
    o.logdir = logdir();
    o.runs_ttl = runs_ttl;
    auto s = ProfileService::Create(o);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(*s) : nullptr;
  }

 private:
  fs::path base_;
};

HttpResponse Get(ProfileService& service, const std::string& target, bool accepts_gzip = true) {
  HttpRequest r;
  r.target = target;
  if (accepts_gzip) r.headers["accept-encoding"] = "gzip";
  return service.Handle(r);
}

// Replaces `target` atomically by `make` (which creates `tmp`).
template <typename Make>
void AtomicReplace(const fs::path& target, Make&& make) {
  fs::path tmp = target;
  tmp += ".swap";
  std::error_code ec;
  fs::remove(tmp, ec);
  make(tmp);
  fs::rename(tmp, target);
}

// --- finding 1: SIGBUS -------------------------------------------------------

TEST(PluginFileSafety, ReadingPastTheEndOfATruncatedMappingIsAnErrorNotACrash) {
  ScratchLogdir d;
  const fs::path file = d.run_dir() / "f.bin";
  WriteFile(file, std::string(1 << 20, 'x'));
  MappedFile f;
  ASSERT_TRUE(f.Open(file, 1 << 30).ok());
  ASSERT_EQ(truncate(file.c_str(), 4096), 0);
  // Touching every page past the new end raised SIGBUS (and killed the process) before.
  uint64_t sum = 0;
  for (size_t i = 0; i < f.view().size(); i += 4096) sum += static_cast<unsigned char>(f.view()[i]);
  EXPECT_EQ(sum, uint64_t{'x'});  // the first page still holds the file; the rest read as zeros
  Status s = f.CheckUnchanged();
  EXPECT_EQ(s.code(), ErrorCode::kUnavailable) << s.message();
  EXPECT_NE(s.message().find("shrank"), std::string::npos) << s.message();
}

TEST(PluginFileSafety, AFileRewrittenDuringALoadIsReportedNotMixedIn) {
  ScratchLogdir d;
  const fs::path file = d.run_dir() / "f.bin";
  WriteFile(file, std::string(8192, 'a'));
  MappedFile f;
  ASSERT_TRUE(f.Open(file, 1 << 30).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a distinct modification time
  WriteFile(file, std::string(8192, 'b'));                     // same size, in place (O_TRUNC)
  EXPECT_EQ(f.CheckUnchanged().code(), ErrorCode::kUnavailable);
}

TEST(PluginFileSafety, ProfilesTruncatedWhileDecodedOnTwoThreadsGiveErrorsNotCrashes) {
  ScratchLogdir d;
  const fs::path pristine = d.base() / "pristine.xplane.pb";
  // ≥ 32 MB: decoded by two threads, as the issue's 89 MB file was.
  testing_plugin::WriteSyntheticXPlane(pristine, 7, 400000);
  ASSERT_GE(fs::file_size(pristine), uint64_t{32} << 20);
  auto service = d.Service();
  const fs::path file = d.run_dir() / "host.xplane.pb";
  int errors = 0, answers = 0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    fs::copy_file(pristine, file, fs::copy_options::overwrite_existing);
    std::thread truncator([&, attempt] {
      std::this_thread::sleep_for(std::chrono::milliseconds(2 + 4 * attempt));
      ASSERT_EQ(truncate(file.c_str(), 10 << 20), 0);
    });
    // Distinct parameters: a new result each time, so the file is loaded again.
    HttpResponse r = Get(*service, "/data?run=r&tag=trace_viewer@&attempt=" + std::to_string(attempt));
    truncator.join();
    if (r.status == 200) {
      ++answers;
    } else {
      ++errors;
      // A truncated protobuf is DataLoss (a 422: the file is damaged) once it is whole and short; during
      // the load it is "changed" (503).
      EXPECT_TRUE(r.status == 503 || r.status == 422) << r.status << " " << r.Body();
    }
  }
  EXPECT_GT(errors, 0) << "no attempt was truncated during its load; the loop proves nothing";
  // Still serving: the current (truncated) file is refused cleanly, and a whole one loads.
  fs::copy_file(pristine, file, fs::copy_options::overwrite_existing);
  EXPECT_EQ(Get(*service, "/data?run=r&tag=trace_viewer@").status, 200);
  std::printf("truncation loop: %d errors, %d answers before the truncation\n", errors, answers);
}

// --- finding 2: confinement at open time -----------------------------------

TEST(PluginFileSafety, AFileSwappedForASymlinkAfterListingIsNeverServed) {
  ScratchLogdir d;
  WriteFile(d.base() / "outside/secret.json", "{\"SECRET\":1}");
  const fs::path target = d.run_dir() / "s.pod_viewer.json";
  auto service = d.Service();
  int served = 0;
  for (int attempt = 0; attempt < 40; ++attempt) {
    // A fresh real file (new identity: not cached) listed by the request...
    AtomicReplace(target, [&](const fs::path& tmp) { WriteFile(tmp, "{\"ok\":" + std::to_string(attempt) + "}"); });
    std::atomic<bool> go{false};
    std::thread swapper([&] {
      while (!go) std::this_thread::yield();
      // ...then swapped for a link out of the logdir while the request runs.
      AtomicReplace(target, [&](const fs::path& tmp) { fs::create_symlink(d.base() / "outside/secret.json", tmp); });
    });
    go = true;
    HttpResponse r = Get(*service, "/data?run=r&tag=pod_viewer&n=" + std::to_string(attempt));
    swapper.join();
    EXPECT_EQ(r.Body().find("SECRET"), std::string::npos) << "attempt " << attempt;
    served += r.status == 200;
    // With the link in place, every path to it is refused.
    HttpResponse after = Get(*service, "/data?run=r&tag=pod_viewer&after=" + std::to_string(attempt));
    EXPECT_NE(after.status, 200);
    EXPECT_EQ(after.Body().find("SECRET"), std::string::npos);
  }
  std::printf("file swap loop: %d of 40 answered with the real file\n", served);
}

TEST(PluginFileSafety, ARunDirectorySwappedForASymlinkAfterListingIsNeverRead) {
  ScratchLogdir d;
  WriteFile(d.base() / "outside/s.pod_viewer.json", "{\"SECRET\":1}");
  auto service = d.Service();
  const fs::path run = d.run_dir();
  for (int attempt = 0; attempt < 40; ++attempt) {
    fs::remove_all(run);
    WriteFile(run / "s.pod_viewer.json", "{\"ok\":" + std::to_string(attempt) + "}");
    std::atomic<bool> go{false};
    std::thread swapper([&] {
      while (!go) std::this_thread::yield();
      fs::path moved = run;
      moved += ".old";
      std::error_code ec;
      fs::remove_all(moved, ec);
      fs::rename(run, moved);
      fs::create_directory_symlink(d.base() / "outside", run);
    });
    go = true;
    HttpResponse r = Get(*service, "/data?run=r&tag=pod_viewer&n=" + std::to_string(attempt));
    swapper.join();
    EXPECT_EQ(r.Body().find("SECRET"), std::string::npos) << "attempt " << attempt;
    HttpResponse after = Get(*service, "/data?run=r&tag=pod_viewer&after=" + std::to_string(attempt));
    EXPECT_EQ(after.Body().find("SECRET"), std::string::npos) << "attempt " << attempt;
    fs::remove(run);  // the link
  }
}

TEST(PluginFileSafety, OpenForReadWalksFromTheRootWithoutFollowingLinks) {
  ScratchLogdir d;
  WriteFile(d.run_dir() / "a.json", "inside");
  WriteFile(d.base() / "outside/a.json", "outside");
  fs::create_directory_symlink(d.base() / "outside", d.logdir() / "plugins/profile/link");
  fs::create_symlink(d.base() / "outside/a.json", d.run_dir() / "b.json");
  auto root = ConfinedRoot::Open(fs::canonical(d.logdir()));
  ASSERT_TRUE(root.ok());
  FileAccessScope scope(*root, 1 << 20);
  const std::string r = (*root)->path();
  EXPECT_TRUE(OpenForRead(r + "/plugins/profile/r/a.json").ok());
  EXPECT_EQ(OpenForRead(r + "/plugins/profile/r/b.json").status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(OpenForRead(r + "/plugins/profile/link/a.json").status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(OpenForRead((d.base() / "outside/a.json").string()).status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(OpenForRead(r + "/plugins/../plugins/profile/r/a.json").status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(OpenForRead(r + "/plugins/profile/r/missing.json").status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(OpenForRead(r + "/plugins/profile/r", /*directory=*/true).ok());
}

// A refusal names the file relative to the logdir (or, outside any request's
// confinement, by its file name), never the directory the server keeps it in.
TEST(PluginFileSafety, AFileThatIsASymlinkNowIsNamedRelativeToTheLogdir) {
  ScratchLogdir d;
  WriteFile(d.base() / "outside/a.json", "outside");
  fs::create_symlink(d.base() / "outside/a.json", d.run_dir() / "b.json");
  const std::string logdir = fs::canonical(d.logdir()).string();
  const std::string link = logdir + "/plugins/profile/r/b.json";
  Status unconfined = FileIdentityOf(link).status();
  EXPECT_EQ(unconfined.code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(unconfined.message(), "b.json: is a symbolic link now");  // before: the absolute path
  auto root = ConfinedRoot::Open(logdir);
  ASSERT_TRUE(root.ok());
  FileAccessScope scope(*root, 1 << 20);
  EXPECT_EQ(FileIdentityOf(link).status().message(), "plugins/profile/r/b.json: is a symbolic link now");
  Status opened = OpenForRead(link).status();
  EXPECT_EQ(opened.code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(opened.message().find(d.base().string()), std::string::npos) << opened.message();
}

// --- finding 4: gzip bombs ---------------------------------------------------

std::string GzipOfZeros(size_t n) { return testing_plugin::Gzip(std::string(n, '\0')); }

TEST(PluginFileSafety, AGzipBombXPlaneIsRefusedWithinTheLimitAndTheFailureIsCached) {
  ScratchLogdir d;
  WriteFile(d.run_dir() / "host.xplane.pb", GzipOfZeros(size_t{64} << 20));  // 64 MiB of zeros in ~64 KiB
  ProfileServiceOptions o;
  o.max_inflated_bytes = 8 << 20;
  auto service = d.Service(o, std::chrono::hours(1));
  HttpRequest req;
  req.target = "/data?run=r&tag=overview_page";
  auto first = service->Begin(req);
  ASSERT_TRUE(std::holds_alternative<ProfileService::Deferred>(first));  // inflating is work for a worker
  HttpResponse r = std::get<ProfileService::Deferred>(first)();
  EXPECT_EQ(r.status, 413) << r.Body();
  EXPECT_NE(r.Body().find("decompressed"), std::string::npos) << r.Body();
  // The failure is cached for this file identity: answered at once, not inflated again.
  auto second = service->Begin(req);
  ASSERT_TRUE(std::holds_alternative<HttpResponse>(second));
  EXPECT_EQ(std::get<HttpResponse>(second).status, 413);
}

TEST(PluginFileSafety, AGzipBombTraceJsonIsInflatedByAWorkerAndBounded) {
  ScratchLogdir d;
  WriteFile(d.run_dir() / "h.trace.json.gz", GzipOfZeros(size_t{64} << 20));
  ProfileServiceOptions o;
  o.max_response_bytes = 8 << 20;
  auto service = d.Service(o, std::chrono::hours(1));
  // A client with gzip gets the file as it is (no inflation at all).
  EXPECT_EQ(Get(*service, "/data?run=r&tag=trace_viewer", true).status, 200);
  // One without gzip: inflating is deferred to a worker, stops at the limit (413), and is cached.
  HttpRequest req;
  req.target = "/data?run=r&tag=trace_viewer";
  auto first = service->Begin(req);
  ASSERT_TRUE(std::holds_alternative<ProfileService::Deferred>(first));
  EXPECT_EQ(std::get<ProfileService::Deferred>(first)().status, 413);
  auto second = service->Begin(req);
  ASSERT_TRUE(std::holds_alternative<HttpResponse>(second));
  EXPECT_EQ(std::get<HttpResponse>(second).status, 413);
}

TEST(PluginFileSafety, LegacyFilesOverTheResponseLimitAreRefusedUnread) {
  ScratchLogdir d;
  WriteFile(d.run_dir() / "h.pod_viewer.json", "[" + std::string(20000, ' ') + "]");
  ProfileServiceOptions o;
  o.max_response_bytes = 10000;
  auto service = d.Service(o, std::chrono::hours(1));
  HttpRequest req;
  req.target = "/hosts?run=r&tag=pod_viewer";
  ASSERT_EQ(service->Handle(req).status, 200);  // the run is listed (by a worker, in the server)
  req.target = "/data?run=r&tag=pod_viewer";
  auto outcome = service->Begin(req);
  // Refused from its size alone, on the spot: nothing is read.
  ASSERT_TRUE(std::holds_alternative<HttpResponse>(outcome));
  EXPECT_EQ(std::get<HttpResponse>(outcome).status, 413);
  EXPECT_NE(std::get<HttpResponse>(outcome).Body().find("--max_response_mb"), std::string::npos);
}

}  // namespace
}  // namespace tbprof
