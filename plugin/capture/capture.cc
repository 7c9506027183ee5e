#include "plugin/capture/capture.h"

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <thread>

#include "convert/base/file_bytes.h"
#include "convert/base/strings.h"
#include "proto/profiler_service.grpc.pb.h"

namespace tbprof::capture {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::system_clock;

// The tools TSL's client lists in every request. Current servers ignore them
// and send the XSpace (emit_xspace); TPU servers converted to them.
constexpr const char* kRequestedTools[] = {"trace_viewer",  "op_profile",     "input_pipeline",
                                           "kernel_stats",  "memory_viewer",  "memory_profile",
                                           "overview_page", "pod_viewer",     "tensorflow_stats",
                                           "xplane.pb"};
constexpr uint64_t kMaxEvents = 1000000;  // what TSL's client asks for

// TSL names runs by the local time the capture started.
std::string RunNameNow() {
  std::time_t now = Clock::to_time_t(Clock::now());
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y_%m_%d_%H_%M_%S", &tm);
  return stamp;
}

// The run directory and its parent, held open: every file of the capture is
// made relative to them, so nothing swapped in for a link meanwhile can send
// a write outside the logdir.
struct RunDirectory {
  UniqueFd profile;  // <logdir>/plugins/profile
  UniqueFd run;      // <logdir>/plugins/profile/<run>
};

// Opens `name` under `parent` as a directory, making it first when missing;
// a symlink there is refused, not followed (it could lead out of the logdir).
StatusOr<UniqueFd> OpenOrMakeDirectory(int parent, const char* name, const std::string& shown) {
  if (::mkdirat(parent, name, 0755) != 0 && errno != EEXIST) {
    return Internal("cannot create " + shown + ": " + std::strerror(errno));
  }
  UniqueFd fd(::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ELOOP || errno == ENOTDIR) {
      return Internal(shown + " is a symlink or not a directory; a capture does not write through it");
    }
    return Internal("cannot open " + shown + ": " + std::strerror(errno));
  }
  return fd;
}

// mkdir of the leaf is atomic, so two captures in the same second (or a run
// already there) get different directories instead of sharing one.
StatusOr<RunDirectory> CreateRunDirectory(const std::string& logdir, CaptureResult& result) {
  UniqueFd root(::open(logdir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) return Internal("cannot open the logdir " + logdir + ": " + std::strerror(errno));
  const fs::path plugins = fs::path(logdir) / "plugins";
  ASSIGN_OR_RETURN(UniqueFd plugins_fd, OpenOrMakeDirectory(root.get(), "plugins", plugins.string()));
  const fs::path profile = plugins / "profile";
  RunDirectory dirs;
  ASSIGN_OR_RETURN(dirs.profile, OpenOrMakeDirectory(plugins_fd.get(), "profile", profile.string()));
  const std::string base = RunNameNow();
  for (int n = 0; n < 1000; ++n) {
    std::string name = n == 0 ? base : base + "_" + std::to_string(n);
    fs::path dir = profile / name;
    if (::mkdirat(dirs.profile.get(), name.c_str(), 0755) == 0) {
      dirs.run = UniqueFd(::openat(dirs.profile.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (dirs.run.get() < 0) return Internal("cannot open " + dir.string() + ": " + std::strerror(errno));
      result.run = name;
      result.run_dir = dir.string();
      return dirs;
    }
    if (errno != EEXIST) return Internal("cannot create " + dir.string() + ": " + std::strerror(errno));
  }
  return Internal("no free run name under " + profile.string() + " for " + base);
}

// Writes a file that must not exist yet, in the directory `dir_fd`: the bytes
// go to a temporary name and are linked into place, which fails rather than
// replace an existing file, and readers never see a half-written profile.
Status WriteNewFile(int dir_fd, const std::string& name, const fs::path& shown, const std::string& bytes) {
  const std::string tmp = name + ".partial-" + std::to_string(::getpid());
  const std::string shown_tmp = shown.string() + ".partial-" + std::to_string(::getpid());
  int fd = ::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return Internal("cannot create " + shown_tmp + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      ::unlinkat(dir_fd, tmp.c_str(), 0);
      return Internal("cannot write " + shown_tmp + ": " + why);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    return Internal("cannot write " + shown_tmp + ": " + std::strerror(errno));
  }
  int linked = ::linkat(dir_fd, tmp.c_str(), dir_fd, name.c_str(), 0);
  int link_errno = errno;
  ::unlinkat(dir_fd, tmp.c_str(), 0);
  if (linked != 0) {
    return Internal(link_errno == EEXIST ? shown.string() + " already exists; it is left as it was"
                                         : "cannot write " + shown.string() + ": " + std::strerror(link_errno));
  }
  return Status::Ok();
}

struct WorkerReply {
  grpc::Status status;
  tensorflow::ProfileResponse response;
};

WorkerReply CallProfile(const std::string& address, const tensorflow::ProfileRequest& request,
                        Clock::time_point deadline) {
  grpc::ChannelArguments args;
  // A trace is often larger than gRPC's 4 MiB default.
  args.SetMaxReceiveMessageSize(std::numeric_limits<int32_t>::max());
  auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  auto stub = tensorflow::ProfilerService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(deadline);
  WorkerReply reply;
  reply.status = stub->Profile(&context, request, &reply.response);
  return reply;
}

std::string DescribeFailure(const grpc::Status& s, int64_t waited_ms) {
  switch (s.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return "unreachable: no ProfilerService answered there (" + s.error_message() + ")";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "timed out: no answer within " + std::to_string(waited_ms) + " ms";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "busy: another profiling session is running there (" + s.error_message() + ")";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "not a ProfilerService (" + s.error_message() + ")";
    default:
      return "the server failed (gRPC code " + std::to_string(static_cast<int>(s.error_code())) + "): " +
             s.error_message();
  }
}

// A tool file name from a server: one path component, nothing hidden.
bool IsPlainFileName(const std::string& name) {
  return !name.empty() && name.front() != '.' && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

// Saves what one worker returned. Returns a local I/O error (which stops the
// capture); per-worker problems go to host.error.
Status SaveReply(const WorkerReply& reply, const RunDirectory& dirs, const std::string& run_dir,
                 const std::string& session_dir_of_server, CapturedHost& host) {
  const tensorflow::ProfileResponse& r = reply.response;
  const std::string file = XPlaneFileName(host.service_address);
  const fs::path path = fs::path(run_dir) / file;
  if (r.has_xspace()) {
    std::string bytes;
    if (!r.xspace().SerializeToString(&bytes)) return Internal("cannot serialize the trace of " + host.service_address);
    RETURN_IF_ERROR(WriteNewFile(dirs.run.get(), file, path, bytes));
    host.path = path.string();
    host.bytes = bytes.size();
  }
  // Servers that convert to tools answer with files; TSL's client saves each
  // as <host>.<name>, "xplane.pb" among them.
  std::string prefix = file.substr(0, file.size() - std::string_view(".xplane.pb").size());
  for (const tensorflow::ProfileToolData& tool : r.tool_data()) {
    if (!IsPlainFileName(tool.name())) continue;
    const std::string tool_file = prefix + "." + tool.name();
    fs::path tool_path = fs::path(run_dir) / tool_file;
    if (tool_path == path && !host.path.empty()) continue;
    RETURN_IF_ERROR(WriteNewFile(dirs.run.get(), tool_file, tool_path, tool.data()));
    if (tool_path == path) {
      host.path = path.string();
      host.bytes = tool.data().size();
    }
  }
  if (!host.path.empty()) return Status::Ok();
  // A server that predates emit_xspace saves the trace itself under the
  // request's repository_root, which is our run directory only when it shares
  // our file system.
  struct stat st{};
  if (::fstatat(dirs.run.get(), file.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
    host.path = path.string();
    host.bytes = static_cast<uint64_t>(st.st_size);
    return Status::Ok();
  }
  host.error = "it reports a trace but neither sent it nor wrote it here: an older profiler server saves it on its "
               "own machine under " + session_dir_of_server + "/" + file;
  return Status::Ok();
}

}  // namespace

std::string XPlaneFileName(std::string_view service_address) {
  std::string name(service_address);
  for (char& c : name) {
    if (c == ':') c = '_';
  }
  return name + ".xplane.pb";
}

StatusOr<std::vector<std::string>> ParseServiceAddresses(std::string_view list) {
  std::vector<std::string> out;
  for (std::string_view part : SplitNonEmpty(list, ',')) {
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.starts_with("grpc://")) part.remove_prefix(7);
    if (part.empty()) continue;
    size_t colon = part.rfind(':');
    std::string_view port = colon == std::string_view::npos ? std::string_view() : part.substr(colon + 1);
    bool port_ok = !port.empty() && port.size() <= 5 &&
                   port.find_first_not_of("0123456789") == std::string_view::npos && std::stoi(std::string(port)) <= 65535;
    if (colon == 0 || !port_ok || part.find("://") != std::string_view::npos) {
      return InvalidArgument("Could not interpret \"" + std::string(part) + "\" as a host-port pair.");
    }
    // A worker named twice is traced once (its file name would clash).
    if (std::find(out.begin(), out.end(), part) == out.end()) out.emplace_back(part);
  }
  if (out.empty()) return InvalidArgument("No service address provided.");
  return out;
}

StatusOr<CaptureResult> CaptureProfile(const CaptureOptions& options) {
  if (options.service_addresses.empty()) return InvalidArgument("No service address provided.");
  if (options.duration_ms <= 0) return InvalidArgument("duration_ms must be greater than zero.");
  if (options.delay_ms < 0) return InvalidArgument("delay_ms must not be negative.");
  if (options.num_tracing_attempts < 1) return InvalidArgument("the number of attempts must be at least 1.");
  if (options.logdir.empty()) return InvalidArgument("logdir is not set, abort capturing.");
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };

  CaptureResult result;
  ASSIGN_OR_RETURN(RunDirectory dirs, CreateRunDirectory(options.logdir, result));
  const std::string repository_root = (fs::path(options.logdir) / "plugins" / "profile").string();
  const size_t n = options.service_addresses.size();
  const int64_t wait_ms = std::max(options.min_grace_ms, 2 * options.duration_ms) + options.delay_ms;

  Status io_error;
  bool any_trace = false;
  for (int attempt = 1; attempt <= options.num_tracing_attempts && !any_trace; ++attempt) {
    result.attempts = attempt;
    log("attempt " + std::to_string(attempt) + " of " + std::to_string(options.num_tracing_attempts) + ": tracing " +
        std::to_string(options.duration_ms) + " ms on " + std::to_string(n) + " worker(s)" +
        (options.delay_ms > 0 ? " after " + std::to_string(options.delay_ms) + " ms" : ""));
    tensorflow::ProfileRequest request;
    request.set_duration_ms(static_cast<uint64_t>(options.duration_ms));
    request.set_max_events(kMaxEvents);
    for (const char* tool : kRequestedTools) request.add_tools(tool);
    request.set_repository_root(repository_root);
    request.set_session_id(result.run);
    request.set_emit_xspace(true);
    tensorflow::ProfileOptions* opts = request.mutable_opts();
    opts->set_version(1);
    opts->set_include_dataset_ops(options.include_dataset_ops);
    opts->set_host_tracer_level(options.host_tracer_level);
    opts->set_device_tracer_level(options.device_tracer_level);
    opts->set_python_tracer_level(options.python_tracer_level);
    opts->set_duration_ms(static_cast<uint64_t>(options.duration_ms));
    const Clock::time_point now = Clock::now();
    opts->set_start_timestamp_ns(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            (now + std::chrono::milliseconds(options.delay_ms)).time_since_epoch())
            .count()));
    const Clock::time_point deadline = now + std::chrono::milliseconds(wait_ms);

    std::vector<WorkerReply> replies(n);
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        tensorflow::ProfileRequest mine = request;
        mine.set_host_name(options.service_addresses[i]);  // names the file a saving server writes
        replies[i] = CallProfile(options.service_addresses[i], mine, deadline);
      });
    }
    for (std::thread& t : threads) t.join();

    result.hosts.assign(n, CapturedHost{});
    for (size_t i = 0; i < n; ++i) {
      CapturedHost& host = result.hosts[i];
      host.service_address = options.service_addresses[i];
      const WorkerReply& reply = replies[i];
      if (!reply.status.ok()) {
        host.error = DescribeFailure(reply.status, wait_ms);
      } else if (reply.response.empty_trace()) {
        host.error = "empty trace: no event was recorded during the " + std::to_string(options.duration_ms) + " ms";
      } else {
        io_error = SaveReply(reply, dirs, result.run_dir, repository_root + "/" + result.run, host);
        if (!io_error.ok()) break;
      }
      if (!host.path.empty()) any_trace = true;
      log(host.service_address + ": " + (host.path.empty() ? host.error : "wrote " + host.path));
    }
    if (!io_error.ok()) break;
    if (!any_trace && attempt < options.num_tracing_attempts) log("No trace event is collected. Automatically retrying.");
  }
  if (any_trace && io_error.ok()) return result;

  ::unlinkat(dirs.profile.get(), result.run.c_str(), AT_REMOVEDIR);  // only succeeds while it is empty
  if (!io_error.ok()) return io_error;
  std::string why;
  for (const CapturedHost& h : result.hosts) why += (why.empty() ? "" : "; ") + h.service_address + ": " + h.error;
  return Status(ErrorCode::kNotFound, "No trace event was collected after " + std::to_string(result.attempts) +
                                          " attempt(s) (" + why + ").");
}

}  // namespace tbprof::capture
