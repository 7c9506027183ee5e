#include "convert/tools/xla_tools.h"

#include <algorithm>
#include <charconv>

#include "convert/analysis/hlo/graph_viewer.h"
#include "convert/analysis/hlo/memory_viewer.h"
#include "convert/analysis/hlo/op_profile.h"
#include "convert/analysis/hlo/roofline.h"
#include "convert/analysis/op_stats_pages/step_diagnostics.h"
#include "convert/base/json.h"
#include "convert/tools/cached_loads.h"
#include "convert/load/profile_file.h"

namespace tbprof {
namespace {

ToolOutput Output(std::string body, bool csv) {
  ToolOutput out;
  out.body = std::move(body);
  if (csv) out.content_type = "text/csv";
  return out;
}

bool WantsCsv(const ToolInput& in) { return in.csv; }

bool ParamFlag(const ToolParams& p, const std::string& key) {
  std::string v = ParamStr(p, key);
  return v == "1" || v == "true" || v == "True";
}

// A module is named by its metadata name (what module_list lists), its HLO
// module name, or xprof's "<module>(<program id>)" of either.
bool ProgramNamed(const HloProgram& p, std::string_view name) {
  return p.name() == name || p.module().name() == name || ProgramDisplayName(p.name(), p.program_id()) == name ||
         ProgramDisplayName(p.module().name(), p.program_id()) == name;
}

bool ProgramHasNode(const HloProgram& p, std::string_view node) {
  return p.FindInstruction(node) != nullptr || p.FindComputationByName(node) != nullptr;
}

// graph_viewer's `type=programs`: the programs a link could mean, as JSON
// [{"moduleName", "programId"}], sorted by name then id: those named
// `module_name` (any program when empty) that hold `node_name` (when given).
// A link from a trace event names its module without the program id, and one
// module name can belong to several compiled programs.
std::string MatchingProgramsJson(const HloPrograms& programs, std::string_view module, std::string_view node) {
  std::vector<const HloProgram*> found;
  for (const auto& [id, p] : programs.by_id) {
    if ((module.empty() || ProgramNamed(*p, module)) && (node.empty() || ProgramHasNode(*p, node))) found.push_back(p.get());
  }
  std::stable_sort(found.begin(), found.end(), [](auto* a, auto* b) {
    return a->name() != b->name() ? a->name() < b->name() : a->program_id() < b->program_id();
  });
  std::string out = "[";
  for (const HloProgram* p : found) {
    if (out.size() > 1) out += ',';
    AppendJsonStringMember(out, "{\"moduleName\":", p->name());
    AppendJsonStringMember(out, ",\"programId\":", std::to_string(p->program_id()));
    out += '}';
  }
  return out + "]";
}

// The program a memory_viewer or graph_viewer request is about. The returned
// pointer lives as long as `db`.
StatusOr<const HloProgram*> SelectProgram(const HloOpDb& db, const ToolParams& params, std::string_view node_name) {
  const HloPrograms& programs = db.programs;
  if (programs.empty()) return NotFound("the profile holds no HLO module (no 'Hlo Proto' in /host:metadata)");
  std::string module = ParamStr(params, "module_name");
  if (!module.empty()) {
    for (const auto& [id, p] : programs.by_id) {
      if (ProgramNamed(*p, module)) return p.get();
    }
    return NotFound("no HLO module named '" + module + "'");
  }
  // Program ids use all 64 bits (TPU ids pass 2^63), so the id is read unsigned.
  std::string id_text = ParamStr(params, "program_id");
  if (!id_text.empty()) {
    uint64_t program_id = 0;
    auto [end, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), program_id);
    if (ec != std::errc() || end != id_text.data() + id_text.size()) return InvalidArgument("program_id '" + id_text + "' is not a program id");
    if (const HloProgram* p = programs.Find(program_id)) return p;
    return NotFound("no HLO module with program id " + id_text);
  }
  std::vector<const HloProgram*> sorted;
  for (const auto& [id, p] : programs.by_id) sorted.push_back(p.get());
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name() < b->name(); });
  if (!node_name.empty()) {
    // A node named without its module (a trace event's hlo_op): the first module that has it.
    for (const HloProgram* p : sorted) {
      if (ProgramHasNode(*p, node_name)) return p;
    }
    return NotFound("no HLO module has an instruction or computation named '" + std::string(node_name) + "'");
  }
  return sorted.front();
}

StatusOr<std::shared_ptr<const HloOpDb>> FirstHostDb(const ToolInput& in) {
  if (in.profile_paths.empty()) return InvalidArgument("no xplane file selected");
  return LoadHloOpDbCached(in.profile_paths.front(), in.cache);
}

}  // namespace

StatusOr<std::shared_ptr<const HloOpDb>> HloOpDbForPaths(const ToolInput& in) {
  if (in.profile_paths.empty()) return InvalidArgument("no xplane file selected");
  std::vector<std::shared_ptr<const HloOpDb>> per_host;
  for (const std::string& path : in.profile_paths) {
    ASSIGN_OR_RETURN(auto db, LoadHloOpDbCached(path, in.cache));
    per_host.push_back(std::move(db));
  }
  if (per_host.size() == 1) return per_host.front();
  return std::shared_ptr<const HloOpDb>(std::make_shared<const HloOpDb>(CombineHloOpDbs(per_host)));
}

StatusOr<std::shared_ptr<const HloOpDb>> LoadHloOpDbCached(const std::string& xplane_path, ArtifactCache* cache) {
  return GetForFile<HloOpDb>(cache, "hlo_op_db", xplane_path, [&]() -> StatusOr<CacheValue<HloOpDb>> {
    std::shared_ptr<const XSpaceModel> model = PeekModelCached(xplane_path, cache);
    if (!model) {
      LoadOptions options;
      options.keep_event_stat = HloStatsReadsEventStat;
      ASSIGN_OR_RETURN(auto loaded, LoadProfileFile(xplane_path, options));
      model = std::move(loaded);
    }
    auto db = std::make_shared<const HloOpDb>(ConvertXSpaceToHloOpDb(*model));
    size_t bytes = sizeof(HloOpDb) + db->ops.size() * (sizeof(HloOpMetrics) + 256);
    for (const auto& [id, p] : db->programs.by_id) bytes += p->proto().SpaceUsedLong() * 2;
    return CacheValue<HloOpDb>{std::move(db), bytes, {}};
  });
}

StatusOr<ToolOutput> HloStatsTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto db, HloOpDbForPaths(in));
  return WantsCsv(in) ? Output(HloStatsToCsv(*db), true) : Output(HloStatsToJson(*db), false);
}

StatusOr<ToolOutput> OpProfileTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto db, HloOpDbForPaths(in));
  OpProfileGrouping group_by = OpProfileGroupingFromParam(ParamStr(in.params, "group_by"));
  return Output(ConvertHloOpDbToOpProfileJson(*db, group_by), false);
}

StatusOr<ToolOutput> RooflineModelTool(const ToolInput& in) {
  ASSIGN_OR_RETURN(auto db, HloOpDbForPaths(in));
  if (WantsCsv(in)) return Output(ConvertHloOpDbToRooflineCsv(*db), true);
  // The diagnostics table says what xprof's does about the profile's steps.
  ASSIGN_OR_RETURN(auto op_stats, OpStatsForPaths(in.profile_paths, in.cache));
  return Output(ConvertHloOpDbToRooflineJson(*db, StepWarnings(*op_stats)), false);
}

StatusOr<ToolOutput> MemoryViewerTool(const ToolInput& in) {
  if (ParamFlag(in.params, "view_memory_allocation_timeline")) {
    return Unimplemented("the allocation timeline is a Graphviz rendering, which tbprof does not make");
  }
  ASSIGN_OR_RETURN(auto db, FirstHostDb(in));
  ASSIGN_OR_RETURN(const HloProgram* program, SelectProgram(*db, in.params, {}));
  MemoryViewerOptions options;
  options.memory_color = ParamInt(in.params, "memory_space", 0);
  ASSIGN_OR_RETURN(MemoryViewerResult result, ComputeMemoryViewer(program->proto(), options));
  return Output(MemoryViewerToJson(result), false);
}

StatusOr<ToolOutput> GraphViewerTool(const ToolInput& in) {
  std::string type = ParamStr(in.params, "type", "graph");
  GraphViewerOptions options;
  options.node_name = ParamStr(in.params, "node_name");
  ASSIGN_OR_RETURN(auto db, FirstHostDb(in));
  if (type == "programs") {
    if (db->programs.empty()) return NotFound("the profile holds no HLO module (no 'Hlo Proto' in /host:metadata)");
    return Output(MatchingProgramsJson(db->programs, ParamStr(in.params, "module_name"), options.node_name), false);
  }
  ASSIGN_OR_RETURN(const HloProgram* program, SelectProgram(*db, in.params, options.node_name));
  ToolOutput out;
  out.content_type = "text/plain";
  if (type == "short_txt" || type == "long_txt") {
    out.body = HloModuleText(*program, type == "long_txt" || ParamFlag(in.params, "show_metadata"));
    return out;
  }
  if (type != "graph") return InvalidArgument("Unknown graph viewer type option: " + type);
  options.graph_width = static_cast<int>(std::clamp<int64_t>(ParamInt(in.params, "graph_width", 3), 0, 1000));
  options.show_metadata = ParamFlag(in.params, "show_metadata");
  options.merge_fusion = ParamFlag(in.params, "merge_fusion");
  std::string format = ParamStr(in.params, "format", "dot");
  if (format != "dot" && format != "json") {
    return InvalidArgument("graph_viewer format '" + format +
                           "' needs a Graphviz renderer, which tbprof does not have; use format=dot or format=json");
  }
  ASSIGN_OR_RETURN(HloGraph graph, BuildHloGraph(*program, options));
  if (format == "json") return Output(HloGraphToJson(graph), false);
  out.body = HloGraphToDot(graph, options.show_metadata);
  return out;
}

}  // namespace tbprof
