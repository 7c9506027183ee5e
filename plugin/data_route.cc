// /data and /data_csv: planned on the network thread (inputs resolved, each
// file identified once, cache key made), answered there when the cache has
// the result or the failure, computed on a worker otherwise. Warm-up computes
// plans directly.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "convert/base/cancellation.h"
#include "convert/base/file_bytes.h"
#include "convert/base/file_name.h"
#include "convert/base/memory_grant.h"
#include "convert/base/strings.h"
#include "convert/model/xspace_model.h"
#include "convert/tools/tfprof_tools.h"
#include "plugin/gzip.h"
#include "plugin/route_util.h"
#include "plugin/routes.h"
#include "plugin/catalogue/run_tools.h"

namespace tbprof {
namespace fs = std::filesystem;

namespace {

// Query parameters that select inputs; they are part of a cache key through the files.
const std::set<std::string, std::less<>> kInputParams = {"run", "tag", "host", "hosts", "session_path", "run_path"};

HttpResponse NoData() { return Text(404, "No Data"); }

std::string MiB(uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

std::string CsvFileName(const std::string& tool, const std::string& run, const std::string& host) {
  // xprof: "<tool>_<run>_<host suffix>.csv", host suffix after the last '-'.
  std::string host_suffix = host.substr(host.rfind('-') == std::string::npos ? 0 : host.rfind('-') + 1);
  std::string name = tool + "_" + run + "_" + host_suffix;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  }
  return name + ".csv";
}

}  // namespace

namespace {

// The files of a run's profiles that serve `spec` for the host(s) asked, as
// xprof's _get_valid_hosts picks them: a listed host set for the trace
// viewers, else ALL_HOSTS (or no host) for all files, else the one host named
// (for the tools /hosts offers for ALL_HOSTS only too: each host answers on its
// own, so one damaged file does not hide the others); or the answer refusing the
// request (a tool the run's format cannot fill, a host the run does not have).
std::variant<HttpResponse, std::vector<const RunFile*>> SelectProfileFiles(
    const RunContents& contents, const ToolSpec& spec, const std::string& run, const std::string& host,
    const std::vector<std::string>& wanted_hosts) {
  const RunFile& first = contents.profiles.front();
  if (Status s = CheckToolReads(spec, first.format, FileNameOfPath(first.path)); !s.ok()) {
    return Text(404, s.message() + " (run: " + run + ")");
  }
  const std::string& tag = spec.name;
  std::vector<const RunFile*> files;
  auto find_host = [&](const std::string& h) -> const RunFile* {
    for (const RunFile& f : contents.profiles) {
      if (f.host == h) return &f;
    }
    return nullptr;
  };
  // A host the run does not have is refused, naming the hosts it has, rather than answered with another.
  std::string host_names;
  for (const RunFile& f : contents.profiles) host_names += (host_names.empty() ? "" : ", ") + f.host;
  auto unknown_host = [&](const std::string& h) {
    return Text(404, "No xplane file found for host: " + h + " in run: " + run + " (its hosts: " + host_names + ")");
  };
  if (!wanted_hosts.empty() && SelectsHostsByList(tag)) {
    for (const std::string& h : wanted_hosts) {
      const RunFile* f = find_host(h);
      if (f == nullptr) return unknown_host(h);
      files.push_back(f);
    }
  } else if (host == kAllHosts && !spec.all_hosts && contents.profiles.size() > 1) {
    return Text(404, tag + " shows one host at a time: choose one of run " + run + "'s hosts (" + host_names +
                         ") instead of " + std::string(kAllHosts));
  } else if (!host.empty() && host != kAllHosts && find_host(host) == nullptr) {
    return unknown_host(host);
  } else if (host.empty() || host == kAllHosts) {
    // A converter that cannot combine hosts (ToolSpec::all_hosts) gets the first when none is named.
    for (const RunFile& f : contents.profiles) {
      if (files.empty() || spec.all_hosts) files.push_back(&f);
    }
  } else {
    files.push_back(find_host(host));
  }
  return files;
}

}  // namespace

std::variant<HttpResponse, ProfileService::DataPlan> ProfileService::PlanData(
    const Query& q, bool csv, bool accepts_gzip, const ListedRun* listed) {
  DataPlan plan;
  plan.csv = csv;
  std::string tag = q.Get("tag"), run = q.Get("run"), host = q.Get("host"), hosts_param = q.Get("hosts");
  if (tag.empty()) return Text(400, "missing query parameter 'tag' (the tool name)");
  if (auto s = CheckPlainName("tag", tag); !s.ok()) return FromStatus(s);
  if (tag.size() > 1 && tag.back() == '^') tag.pop_back();  // TBP 2.13–2.18 tool names
  if (tag == "compare") return PlanCompare(q, csv);
  if (run.empty()) return Text(400, "missing query parameter 'run'");
  if (!host.empty()) {
    if (auto s = CheckPlainName("host", host); !s.ok()) return FromStatus(s);
  }
  // A host named twice is read and sent once (a URL repeating one host
  // hundreds of times must not multiply the response).
  std::vector<std::string> wanted_hosts;
  if (!hosts_param.empty() && hosts_param != "none") {
    for (std::string_view piece : SplitNonEmpty(hosts_param, ',')) {
      std::string h(piece);
      if (auto s = CheckPlainName("host", h); !s.ok()) return FromStatus(s);
      if (std::find(wanted_hosts.begin(), wanted_hosts.end(), h) == wanted_hosts.end()) wanted_hosts.push_back(h);
    }
  }
  auto found = ListRun(run, q.Scope(), listed);
  if (!found.ok()) return FromStatus(found.status());
  const RunContents& contents = *found->contents;
  if (contents.out_of_descriptors) {
    return FromStatus(Unavailable("out of file descriptors while listing run " + run + "; try again"));
  }

  ToolParams params = q.params;
  plan.input.csv = csv;
  std::string param_key = csv ? "csv|" : "";
  for (const auto& [k, v] : params) {
    if (!kInputParams.count(k)) param_key += k + "=" + v + "&";
  }
  auto identify = [&](const RunFile& f) -> StatusOr<std::string> {
    auto id = FileIdentityOf(f.path);
    if (!id.ok()) return id.status();
    plan.files.emplace_back(f.path, *id);
    return FileIdentityKey(f.path, *id);
  };

  const ToolSpec* spec = FindProfileTool(tag);
  if (csv && spec != nullptr && !spec->csv) return Text(400, "CSV format not supported for this tool type");
  std::vector<const RunFile*> legacy;
  for (const RunFile& f : contents.legacy) {
    if (LegacyFileServesTag(f, tag) && IsServableLegacy(f)) legacy.push_back(&f);
  }
  if (spec != nullptr && !contents.profiles.empty()) {
    auto selected = SelectProfileFiles(contents, *spec, run, host, wanted_hosts);
    if (auto* refused = std::get_if<HttpResponse>(&selected)) return std::move(*refused);
    const std::vector<const RunFile*>& files = std::get<std::vector<const RunFile*>>(selected);
    plan.key = "data|" + tag + "|";
    for (const RunFile* f : files) {
      auto id = identify(*f);
      if (!id.ok()) return FromStatus(id.status());
      plan.key += *id + "|";
      plan.input.hosts.push_back(f->host);
      plan.input.profile_paths.push_back(f->path);
      plan.input.profile_formats.push_back(f->format);
    }
    plan.key += param_key;
    plan.spec = spec;
    plan.input.params = std::move(params);
    plan.input.cache = &cache_;
    plan.input.max_output_bytes = max_response_bytes_;
  } else if (spec != nullptr && tag == kTfprofToolName && !contents.tfprof_profiles.empty()) {
    // tfprof's own files: one profile_<N> at a time, the first unless one is named.
    const RunFile* file = &contents.tfprof_profiles.front();
    if (!host.empty() && host != kAllHosts) {
      file = nullptr;
      for (const RunFile& f : contents.tfprof_profiles) {
        if (f.host == host) file = &f;
      }
      if (file == nullptr) return Text(404, "No tfprof profile " + host + " in run: " + run);
    }
    auto id = identify(*file);
    if (!id.ok()) return FromStatus(id.status());
    plan.key = "data|" + tag + "|" + *id + "|" + param_key;
    plan.input.hosts.push_back(file->host);
    plan.input.profile_paths.push_back(file->path);
    plan.input.profile_formats.push_back(file->format);
    plan.spec = spec;
    plan.input.params = std::move(params);
    plan.input.cache = &cache_;
    plan.input.max_output_bytes = max_response_bytes_;
  } else if (!legacy.empty()) {
    const RunFile* file = nullptr;
    for (const RunFile* f : legacy) {
      if (host.empty() || host == kAllHosts || f->host == host) {
        file = f;
        break;
      }
    }
    if (file == nullptr) return Text(404, "No " + tag + " file found for host: " + host + " in run: " + run);
    auto id = identify(*file);
    if (!id.ok()) return FromStatus(id.status());
    // Legacy files are read (or parsed) whole: one larger than a response may
    // be is refused before any of it is read.
    if (plan.files.back().second.size > max_response_bytes_) {
      return FromStatus(ResourceExhausted(file->path.substr(file->path.rfind('/') + 1) + " is " +
                                          MiB(plan.files.back().second.size) + ", over the response limit of " +
                                          MiB(max_response_bytes_) + " (--max_response_mb)"));
    }
    if (const LegacyToolSpec* legacy_spec = FindLegacySuffix(file->suffix); legacy_spec && legacy_spec->run) {
      plan.legacy_converter = legacy_spec;
    }
    if (plan.legacy_converter == nullptr && csv) return Text(400, "CSV format not supported for this tool type");
    plan.legacy_path = file->path;
    plan.legacy_gzip = plan.legacy_converter == nullptr && file->suffix.ends_with(".gz");
    // A client that cannot take gzip gets the file inflated, by a worker, bounded.
    plan.inflate_for_client = plan.legacy_gzip && !accepts_gzip;
    plan.key = "legacy|" + tag + "|" + *id + "|" + param_key + (plan.inflate_for_client ? "|inflated" : "");
    plan.input.params = std::move(params);
  } else {
    return Text(404, csv ? "No Data Found" : "No Data");
  }
  plan.tag = tag;
  plan.run = run;
  plan.host = host;
  return plan;
}

namespace {

HttpResponse AnswerOf(const std::string& tag, const std::string& run, const std::string& host, bool csv,
                      const std::vector<std::string>& hosts, const StatusOr<std::shared_ptr<const CachedOutput>>& r) {
  if (!r.ok()) {
    const Status& s = r.status();
    if (csv && s.code() == ErrorCode::kUnimplemented) return Text(404, "No Data Found: " + s.message());
    return FromStatus(s);
  }
  const CachedOutput& result = **r;
  if (result.out.body.empty() && result.out.content_encoding.empty()) return NoData();
  HttpResponse answer = FromCached(*r);
  if (csv) {
    if (!answer.content_type.starts_with("text/csv")) return Text(400, "CSV format not supported for this tool type");
    answer.headers.emplace_back(
        "Content-Disposition",
        "attachment; filename=\"" + CsvFileName(tag, run, hosts.empty() ? host : hosts.front()) + "\"");
  }
  return answer;
}

// Names the versions of the files a failure came from (see HttpResponse::failed_files): a server
// error, or a damaged profile file (422), which the operator should hear of once, not per request.
HttpResponse WithFailedFiles(const std::vector<std::pair<std::string, FileIdentity>>& files, HttpResponse answer) {
  const bool file_failure = answer.status == 422 || (answer.status >= 500 && answer.status != 503);
  if (!file_failure) return answer;  // 503: transient, worth seeing each time
  for (const auto& [path, id] : files) answer.failed_files += FileIdentityKey(path, id) + "\n";
  return answer;
}

// A failure's message may carry the path of the file it came from; the client sees it relative
// to the logdir (the run and file it asked for), never where the server keeps it.
HttpResponse WithoutServerPaths(const std::string& root, HttpResponse answer) {
  if (answer.status < 400 || root.empty()) return answer;
  const std::string prefix = root.back() == '/' ? root : root + "/";
  for (size_t at = answer.body.find(prefix); at != std::string::npos; at = answer.body.find(prefix, at)) {
    answer.body.erase(at, prefix.size());
  }
  return answer;
}

}  // namespace

std::optional<HttpResponse> ProfileService::CachedData(const DataPlan& plan) {
  std::shared_ptr<const CachedOutput> value;
  Status failure;
  if (!cache_.Peek<CachedOutput>(plan.key, &value, &failure)) return std::nullopt;
  StatusOr<std::shared_ptr<const CachedOutput>> r = value ? StatusOr<std::shared_ptr<const CachedOutput>>(value)
                                                          : StatusOr<std::shared_ptr<const CachedOutput>>(failure);
  return WithFailedFiles(plan.files, WithoutServerPaths(logdir_.root(), AnswerOf(plan.tag, plan.run, plan.host,
                                                                                  plan.csv, plan.input.hosts, r)));
}

HttpResponse ProfileService::ComputeData(const DataPlan& plan) {
  // Opens confined to the logdir; the files' identities taken when planning
  // are the ones read (a file changed since is refused, not mixed in).
  FileAccessScope scope(logdir_.confined_root(), max_inflated_bytes_);
  for (const auto& [path, id] : plan.files) {
    scope.Remember(path, id);
    // Inflated no further than its estimate assumed.
    if (auto cap = GzipInflationCap(path, id.size, max_inflated_bytes_)) scope.LimitInflation(path, *cap);
  }
  auto compute = [&]() -> StatusOr<ToolOutput> {
    if (plan.spec != nullptr) return plan.spec->run(plan.input);
    if (plan.legacy_converter != nullptr) return plan.legacy_converter->run(plan.legacy_path, plan.input);
    // Ready JSON from the old profiler, served as it is; .json.gz stays compressed.
    auto bytes = ReadWholeFile(plan.legacy_path, max_response_bytes_);
    if (!bytes.ok()) return bytes.status();
    ToolOutput out;
    out.content_type = "application/json";
    if (plan.inflate_for_client) {
      auto plain = Inflate(*bytes, plan.legacy_path, max_response_bytes_);
      if (!plain.ok()) return plain.status();
      out.body = std::move(*plain);
    } else {
      out.body = std::move(*bytes);
      if (plan.legacy_gzip) out.content_encoding = "gzip";
    }
    return out;
  };
  auto result = cache_.Get<CachedOutput>(plan.key, ArtifactCache::Compute<CachedOutput>([&] {
    StatusOr<ToolOutput> out = compute();
    // A tool that stopped at a checkpoint may have made a partial answer of what it had.
    if (CancelRequested()) return StatusOr<CacheValue<CachedOutput>>(CancelledError(plan.tag));
    if (out.ok() && out->body.size() > max_response_bytes_) {
      return StatusOr<CacheValue<CachedOutput>>(
          ResourceExhausted(plan.tag + ": the answer is " + MiB(out->body.size()) + ", over the response limit of " +
                            MiB(max_response_bytes_) + " (--max_response_mb); ask for less (a host, a time window)"));
    }
    return MakeCachedOutput(std::move(out));
  }));
  const std::shared_ptr<MemoryGrant> grant = CurrentMemoryGrant();
  ReturnFreedMemory(grant ? grant->peak_claimed() : 0);
  return WithFailedFiles(plan.files, WithoutServerPaths(logdir_.root(), AnswerOf(plan.tag, plan.run, plan.host,
                                                                                  plan.csv, plan.input.hosts, result)));
}

std::variant<HttpResponse, ProfileService::Deferred> ProfileService::PlanAndComputeData(const Query& q, bool csv,
                                                                                     bool accepts_gzip) {
  auto plan = PlanData(q, csv, accepts_gzip);
  if (auto* answer = std::get_if<HttpResponse>(&plan)) return std::move(*answer);
  if (auto cached = CachedData(std::get<DataPlan>(plan))) return std::move(*cached);
  return ComputeDataLater(std::move(std::get<DataPlan>(plan)));
}

ProfileService::Deferred ProfileService::ComputeDataLater(DataPlan plan) {
  const uint64_t bytes = WorkingBytes(cache_, EstimateLimits(), plan);
  const bool unconfirmed = EstimateRestsOnGzip(EstimateLimits(), plan);
  return Deferred{[this, plan = std::move(plan)]() -> Outcome { return ComputeData(plan); }, bytes,
                  WorkLane::kConversion, unconfirmed};
}

WorkLimits ProfileService::EstimateLimits() const {
  return WorkLimits{logdir_.confined_root(), max_inflated_bytes_, max_response_bytes_};
}

void ProfileService::ReturnFreedMemory(uint64_t work_peak_bytes) {
  // malloc keeps what evicted entries and a conversion's temporaries freed in
  // its per-thread arenas; without this the process stays at its peak, RSS is
  // a multiple of --cache_mb, and the next large conversion on another
  // worker's arena adds its peak to the last one's. Trimming walks the
  // arenas, so it is done after a conversion that held 64 MB or more, or once
  // per 64 MB evicted, by one worker at a time.
  constexpr uint64_t kTrimEveryBytes = uint64_t{64} << 20;
  const uint64_t evicted = cache_.evicted_bytes();
  std::unique_lock<std::mutex> lock(trim_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  if (work_peak_bytes < kTrimEveryBytes && evicted - evicted_at_last_trim_ < kTrimEveryBytes) return;
  evicted_at_last_trim_ = evicted;
  malloc_trim(0);
}

int ProfileService::Warm(int max_runs, const std::function<std::optional<HttpResponse>(Deferred)>& admit) {
  auto index = RunIndexOf(RunScope{});
  if (!index.ok()) return 0;
  // Newest first by the run directory's modification time (the profiler
  // writes each run's files once, so that is when it was captured).
  std::vector<std::pair<fs::file_time_type, RunRef>> by_time;
  for (const RunRef& r : (*index)->runs) {
    std::error_code ec;
    by_time.emplace_back(fs::last_write_time(r.dir, ec), r);
  }
  std::stable_sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  int computed = 0;
  for (int i = 0; i < max_runs && i < static_cast<int>(by_time.size()); ++i) {
    for (const char* tool : {"overview_page", "trace_viewer@"}) {
      Query q;
      q.params = {{"run", by_time[i].second.name}, {"tag", tool}};
      auto plan = PlanData(q, /*csv=*/false, /*accepts_gzip=*/true);
      auto* p = std::get_if<DataPlan>(&plan);
      if (p == nullptr || CachedData(*p).has_value()) continue;  // nothing to compute, or done already
      if (!admit) {
        if (ComputeData(*p).status == 200) ++computed;
        continue;
      }
      std::optional<HttpResponse> answer = admit(ComputeDataLater(*p));
      if (answer && answer->status == 200) ++computed;
    }
  }
  return computed;
}

}  // namespace tbprof
