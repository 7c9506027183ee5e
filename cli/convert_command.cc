#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "cli/commands.h"
#include "cli/flags.h"
#include "convert/tools/tool_registry.h"

namespace tbprof::cli {
namespace {

// "<dir>/<host>.xplane.pb[.gz]" or "<dir>/<worker>.pt.trace.json[.gz]" -> "<host>"
std::string HostFromPath(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  for (const char* suffix : {".xplane.pb.gz", ".xplane.pb", ".pt.trace.json.gz", ".pt.trace.json", ".json.gz", ".json"}) {
    std::string s(suffix);
    if (base.size() > s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0) {
      return base.substr(0, base.size() - s.size());
    }
  }
  return base;
}

}  // namespace

int ConvertCommand(int argc, char** argv) {
  Flags flags("convert", "FILE.xplane.pb|FILE.pt.trace.json[.gz] [FILE2 …] --tool NAME [--out F] [--param k=v …]",
              "Runs one converter over one host's XSpace or PyTorch (Kineto) trace (several files combine\n"
              "hosts, as ALL_HOSTS does) and writes the tool's output, exactly as `tbprof serve` returns it from /data.");
  flags.Add("tool", "", "tool name (overview_page, input_pipeline_analyzer, framework_op_stats, …)");
  flags.Add("out", "-", "output file, or - for standard output");
  flags.Add("param", "", "query parameters as in a URL: k=v separated by '&', %XX-decoded (e.g. resolution=8000);\n"
            "      may be repeated");
  flags.JoinRepeats("param", "&");
  flags.Add("list", "", "list the available tools", true);
  if (auto exit_code = flags.Parse(argc, argv)) return *exit_code;
  if (flags.Bool("list")) {
    for (const ToolSpec& t : ProfileTools()) std::printf("%s\n", t.name.c_str());
    return 0;
  }
  const std::string tool = flags.Get("tool");
  if (tool.empty() || flags.positional().empty()) {
    flags.Error("need FILE and --tool (see --help)");
    return 2;
  }
  const ToolSpec* spec = FindProfileTool(tool);
  if (spec == nullptr) {
    std::fprintf(stderr, "tbprof convert: tool '%s' is not available from xplane files; available:", tool.c_str());
    for (const ToolSpec& t : ProfileTools()) std::fprintf(stderr, " %s", t.name.c_str());
    std::fprintf(stderr, "%s\n", ProfileTools().empty() ? " (none yet)" : "");
    return 2;
  }
  ToolInput in;
  for (const std::string& f : flags.positional()) {
    in.profile_paths.push_back(f);
    in.hosts.push_back(HostFromPath(f));
  }
  // The same parser as the server's query strings: --param takes what a URL would hold.
  auto params = ParseQuery(flags.Get("param"));
  if (!params.ok()) {
    std::fprintf(stderr, "tbprof convert: --param: %s\n", params.status().message().c_str());
    return 2;
  }
  in.params = std::move(*params);
  // The registry's converters turn their own exceptions into errors; this
  // catches what escapes around them (argument copies, output) the same way.
  StatusOr<ToolOutput> out = Internal("not run");
  try {
    out = spec->run(in);
  } catch (const std::exception& e) {
    out = Internal(tool + ": conversion failed: " + e.what());
  }
  if (!out.ok()) {
    flags.Error(out.status().message());
    return 1;
  }
  const std::string& dest = flags.Get("out");
  if (dest == "-") {
    std::fwrite(out->body.data(), 1, out->body.size(), stdout);
    if (!out->body.empty() && out->body.back() != '\n' && out->content_encoding.empty()) std::fputc('\n', stdout);
    return 0;
  }
  std::ofstream f(dest, std::ios::binary);
  f.write(out->body.data(), static_cast<std::streamsize>(out->body.size()));
  if (!f) {
    std::fprintf(stderr, "tbprof convert: cannot write %s\n", dest.c_str());
    return 1;
  }
  return 0;
}

}  // namespace tbprof::cli
