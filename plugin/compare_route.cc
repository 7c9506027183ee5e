// /data?tag=compare: run B (`run`, `host`) against the baseline run A
// (`base_run`, `base_host`). Both runs are resolved and listed by the same
// confined Logdir code as every other /data request, so neither name can
// lead outside the logdir, and both runs' files are identified once and
// named in the cache key, so a rewritten file is never compared stale.
#include "convert/tools/compare_tools.h"
#include "plugin/route_util.h"
#include "plugin/routes.h"
#include "plugin/catalogue/run_tools.h"

namespace tbprof {
namespace {

// Query parameters that select inputs: the cache key names their files instead.
bool SelectsInput(const std::string& key) {
  return key == "run" || key == "tag" || key == "host" || key == "hosts" || key == "base_run" ||
         key == "base_host" || key == "session_path" || key == "run_path";
}

}  // namespace

std::variant<HttpResponse, ProfileService::DataPlan> ProfileService::PlanCompare(const Query& q, bool csv) {
  DataPlan plan;
  plan.csv = csv;
  plan.spec = FindProfileTool("compare");
  const std::string run = q.Get("run"), base_run = q.Get("base_run");
  if (run.empty()) return Text(400, "missing query parameter 'run' (run B)");
  if (base_run.empty()) return Text(400, "missing query parameter 'base_run' (the baseline run A)");
  plan.key = std::string("data|compare|") + (csv ? "csv|" : "");
  // One side: its run listed, the files the catalogue picks for compare, each identified once.
  auto side = [&](const std::string& run_name, std::string& host, std::vector<std::string>& hosts,
                  std::vector<std::string>& profiles, std::vector<std::string>& legacy) -> Status {
    if (!host.empty()) RETURN_IF_ERROR(CheckPlainName("host", host));
    ASSIGN_OR_RETURN(ListedRun listed, ListRun(run_name, q.Scope(), nullptr));
    std::vector<const RunFile*> files;
    auto picked = CompareSideOfRun(*listed.contents, host, &files);
    if (!picked.ok()) return NotFound(picked.status().message() + " in run: " + run_name);
    hosts = std::move(picked->hosts);
    profiles = std::move(picked->profile_paths);
    legacy = std::move(picked->legacy_paths);
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
