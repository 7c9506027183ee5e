#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <fstream>
#include <string>

#include "cli/commands.h"
#include "cli/flags.h"
#include "convert/base/file_name.h"
#include "convert/base/memory_grant.h"
#include "convert/load/profile_format.h"
#include "convert/tools/tool_registry.h"

namespace tbprof::cli {
namespace {

// Half of physical memory: a conversion may use much of the machine, never
// all of it (a gzip bomb or a 2 GB string stops before the OOM killer).
int64_t DefaultMemoryMb() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 4096;
  return std::max<int64_t>(1, (int64_t{pages} * page / 2) >> 20);
}

// The conversion's grant: all of --memory_mb reserved, nothing more given.
std::shared_ptr<MemoryGrant> CliMemoryGrant(int64_t memory_mb) {
  return std::make_shared<MemoryGrant>(static_cast<uint64_t>(memory_mb) << 20, [memory_mb](uint64_t, uint64_t) {
    return ResourceExhausted("needs more than --memory_mb " + std::to_string(memory_mb) +
                             " MiB; raise --memory_mb to convert this file");
  });
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
  flags.AddInt("memory_mb", DefaultMemoryMb(), 1, INT32_MAX,
               "memory the conversion may claim (inflated bytes, decoded events, names, answers); more stops it\n"
               "      with an error instead of growing (default: half of this machine's physical memory)");
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
    // Each file's host and format as the run catalogue would list it. A tool
    // refuses a format it cannot read; a file whose name says none is read by
    // the tool's first reader (an xplane, or a ProfileProto for tfprof).
    const ProfileFormat format = ProfileFormatOfFile(f);
    const std::string name = FileNameOfPath(f);
    const bool named = format != ProfileFormat::kUnknown && format != ProfileFormat::kLegacyToolFile;
    if (Status readable = CheckToolReads(*spec, format, name); named && !readable.ok()) {
      flags.Error(readable.message());
      return 2;
    }
    const ProfileFileName parsed = ParseProfileFileName(name);
    in.profile_paths.push_back(f);
    in.hosts.push_back(parsed.host.empty() ? name : parsed.host);
    in.profile_formats.push_back(format);
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
  MemoryGrantScope bounded(CliMemoryGrant(flags.Int("memory_mb")));
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
