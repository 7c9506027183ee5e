// /data?tag=compare: run B (`run`, `host`) against the baseline run A
// (`base_run`, `base_host`). Both runs are resolved and listed by the same
// confined Logdir code as every other /data request, so neither name can
// lead outside the logdir, and both runs' files are identified once and
// named in the cache key, so a rewritten file is never compared stale.
#include "convert/tools/compare_tools.h"
#include "plugin/route_util.h"
#include "plugin/routes.h"
#include "plugin/run_tools.h"

namespace tbprof {
namespace {

// Query parameters that select inputs: the cache key names their files instead.
bool SelectsInput(const std::string& key) {
  return key == "run" || key == "tag" || key == "host" || key == "hosts" || key == "base_run" ||
         key == "base_host" || key == "session_path" || key == "run_path";
}

// A PyTorch profiler trace: one span of one worker, not a host of a step
// shared with the run's other files, so a run of them is never combined.
bool IsPyTorchTrace(const RunFile& f) { return f.suffix.starts_with("pt.trace.json"); }

}  // namespace

std::variant<HttpResponse, ProfileService::DataPlan> ProfileService::PlanCompare(const Query& q, bool csv) {
  DataPlan plan;
  plan.csv = csv;
  plan.spec = FindProfileTool("compare");
  const std::string run = q.Get("run"), base_run = q.Get("base_run");
  if (run.empty()) return Text(400, "missing query parameter 'run' (run B)");
  if (base_run.empty()) return Text(400, "missing query parameter 'base_run' (the baseline run A)");
  plan.key = std::string("data|compare|") + (csv ? "csv|" : "");
  // One side: its run listed, its host's files (every host for none or
  // ALL_HOSTS), or the run's legacy files when it has no xplane file.
  // `host` is set to the file chosen when a PyTorch run's first trace stands for the run.
  auto side = [&](const std::string& run_name, std::string& host, std::vector<std::string>& hosts,
                  std::vector<std::string>& xplanes, std::vector<std::string>& legacy) -> Status {
    if (!host.empty()) RETURN_IF_ERROR(CheckPlainName("host", host));
    ASSIGN_OR_RETURN(ListedRun listed, ListRun(run_name, q.Scope(), nullptr));
    const auto& files_of_run = listed.contents->profiles;
    // Spans are compared one at a time (torch-tb-profiler showed them so): without a host, the first.
    if ((host.empty() || host == kAllHosts) && !files_of_run.empty() && IsPyTorchTrace(files_of_run.front())) {
      host = files_of_run.front().host;
    }
    const bool every_host = host.empty() || host == kAllHosts;
    std::vector<const RunFile*> files;
    for (const RunFile& f : listed.contents->profiles) {
      if (every_host || f.host == host) {
        files.push_back(&f);
        hosts.push_back(f.host);
        xplanes.push_back(f.path);
      }
    }
    if (listed.contents->profiles.empty()) {
      for (const RunFile& f : listed.contents->legacy) {
        if (!CompareReadsLegacySuffix(f.suffix) || !IsServableLegacy(f)) continue;
        // Without a host named, the legacy files of the first host that has them.
        if ((every_host && (legacy.empty() || f.host == hosts.front())) || f.host == host) {
          if (legacy.empty()) hosts.push_back(f.host);
          files.push_back(&f);
          legacy.push_back(f.path);
        }
      }
    }
    if (files.empty()) {
      return NotFound("No profile that compare reads found" + (every_host ? std::string() : " for host: " + host) +
                      " in run: " + run_name);
    }
    for (const RunFile* f : files) {
      ASSIGN_OR_RETURN(FileIdentity id, FileIdentityOf(f->path));
      plan.files.emplace_back(f->path, id);
      plan.key += FileIdentityKey(f->path, id) + "|";
    }
    return Status();
  };
  std::string host = q.Get("host"), base_host = q.Get("base_host");
  if (Status s = side(run, host, plan.input.hosts, plan.input.profile_paths, plan.input.legacy_paths); !s.ok()) {
    return FromStatus(s);
  }
  plan.key += "base|";
  if (Status s = side(base_run, base_host, plan.input.base_hosts, plan.input.base_profile_paths,
                      plan.input.base_legacy_paths);
      !s.ok()) {
    return FromStatus(s);
  }
  for (const auto& [k, v] : q.params) {
    if (!SelectsInput(k)) plan.key += k + "=" + v + "&";
  }
  // The labels the answer carries.
  plan.key += "|" + run + "|" + host + "|" + base_run + "|" + base_host;
  plan.input.params = q.params;
  // The labels name the trace a PyTorch run was compared by.
  if (!host.empty()) plan.input.params["host"] = host;
  if (!base_host.empty()) plan.input.params["base_host"] = base_host;
  plan.input.csv = csv;
  plan.input.cache = &cache_;
  plan.input.max_output_bytes = max_response_bytes_;
  plan.tag = "compare";
  plan.run = run;
  plan.host = q.Get("host");
  return plan;
}

}  // namespace tbprof
