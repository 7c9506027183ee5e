#include "convert/analysis/trace_viewer/kernel_event_names.h"

#include "convert/analysis/op_names/tf_op_utils.h"

namespace tbprof::derived {

KernelStats ReadKernelStats(const XPlaneModel& p, uint32_t e, const schema::StatIds& n) {
  KernelStats k;
  auto [b, end] = p.StatsOf(e);
  for (const Stat* s = b; s != end; ++s) {
    if (s->name == kNoStr) continue;
    const bool str = s->kind == StatKind::kStr && s->str != kNoStr;
    if (s->name == n.kernel_details) {
      k.kernel |= str;
    } else if (s->name == n.cuda_graph_exec_id) {
      k.kernel |= s->IsInteger();
    } else if (s->name == n.hlo_module) {
      if (str) k.hlo_module = s->str;
    } else if (s->name == n.hlo_op) {
      if (str) k.hlo_op = s->str;
    } else if (s->name == n.program_id) {
      k.has_program_id = s->IsInteger();
      k.program_id = s->UintValue();
    } else if (s->name == n.tf_op) {
      if (str) k.framework_op = s->str;
    } else if (s->name == n.level0) {
      if (str) k.level0 = s->str;
    } else if (s->name == n.cuda_graph_id) {
      k.cuda_graph_id = s->UintValue();
    } else if (s->name == n.correlation_id) {
      k.correlation_id = s;
    } else if (s->name == n.scope_range_id) {
      if (s->IsInteger()) k.scope_range = s->IntValue();
    }
  }
  if (k.framework_op == kNoStr) k.framework_op = k.level0;
  return k;
}

const KernelEventNames::FrameworkOpEntry& KernelEventNames::FrameworkOp(std::string_view text) {
  auto [it, inserted] = framework_ops_.try_emplace(std::string(text));
  if (!inserted) return it->second;
  FrameworkOpEntry& entry = it->second;
  const TfOp op = ParseTfOpFullname(text);
  entry.scoped = op.category == TfOpCategory::kTensorFlow || op.category == TfOpCategory::kJax;
  if (entry.scoped) {
    // Every '/' component of the name but the last (the op itself).
    std::string_view rest = op.name;
    for (size_t slash = rest.find('/'); slash != std::string_view::npos; slash = rest.find('/')) {
      entry.scopes.push_back(plane_.Metadata(rest.substr(0, slash)));
      rest.remove_prefix(slash + 1);
    }
  }
  entry.op = plane_.Metadata(text, TfOpEventName(op));
  return entry;
}

const KernelEventNames::FrameworkOpEntry& KernelEventNames::FrameworkOpOfStat(StrId fullname) {
  if (fullname >= framework_op_of_stat_.size()) framework_op_of_stat_.resize(space_.strings.size(), nullptr);
  const FrameworkOpEntry*& entry = framework_op_of_stat_[fullname];
  if (entry == nullptr) entry = &FrameworkOp(space_.Str(fullname));
  return *entry;
}

const KernelEventNames::XlaOpSymbol& KernelEventNames::SymbolOfXlaOp(const KernelStats& k) {
  static const XlaOpSymbol kUnknown;
  if (!k.has_program_id) return kUnknown;
  auto [it, inserted] = symbols_.try_emplace(std::make_pair(k.program_id, k.hlo_op));
  if (!inserted) return it->second;
  const HloProgram* program = programs_.Find(k.program_id);
  if (program == nullptr) return it->second;
  std::string_view innermost = space_.Str(k.hlo_op);
  if (size_t at = innermost.rfind("::"); at != std::string_view::npos) innermost.remove_prefix(at + 2);
  const HloInstruction* inst = program->FindInstruction(innermost);
  if (inst == nullptr) return it->second;
  if (!inst->metadata().op_name().empty()) {
    it->second.op = &FrameworkOp(inst->metadata().op_name() + ":" + inst->metadata().op_type());
  }
  if (std::string source = InstructionSourceInfo(*inst); !source.empty()) {
    it->second.has_source = true;
    it->second.source = plane_.Metadata(source);
  }
  return it->second;
}

uint32_t KernelEventNames::ModuleMetadata(const KernelStats& k) {
  auto [it, inserted] = modules_.try_emplace(std::make_tuple(k.has_program_id, k.program_id, k.hlo_module), 0);
  if (inserted) {
    std::string name(space_.Str(k.hlo_module));
    if (k.has_program_id) name += "(" + std::to_string(k.program_id) + ")";
    it->second = plane_.Metadata(name);
  }
  return it->second;
}

const std::vector<uint32_t>& KernelEventNames::HloOpMetadata(const KernelStats& k) {
  const auto key = std::make_tuple(k.has_program_id, k.has_program_id ? k.program_id : 0,
                                   k.has_program_id ? kNoStr : k.hlo_module, k.hlo_op);
  auto [it, inserted] = hlo_ops_.try_emplace(key);
  if (!inserted) return it->second;
  const std::string prefix =
      (k.has_program_id ? std::to_string(k.program_id) : std::string(space_.Str(k.hlo_module))) + "/";
  std::string_view rest = space_.Str(k.hlo_op);
  constexpr std::string_view kLevelSeparator = "::";
  while (true) {
    const size_t at = rest.find(kLevelSeparator);
    const std::string_view op = rest.substr(0, at);
    it->second.push_back(plane_.Metadata(prefix + std::string(op), op));
    if (at == std::string_view::npos) break;
    rest.remove_prefix(at + kLevelSeparator.size());
  }
  return it->second;
}

}  // namespace tbprof::derived
