#include "convert/analysis/hlo_program/hlo_module.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <iterator>
#include <cstdint>
#include <optional>

#include "convert/model/schema.h"

namespace tbprof {

StatusOr<std::shared_ptr<const HloProgram>> HloProgram::Parse(uint64_t program_id, std::string name,
                                                              std::string_view bytes) {
  std::shared_ptr<HloProgram> p(new HloProgram());
  p->program_id_ = program_id;
  if (!p->proto_.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return DataLoss("HLO module '" + name + "' (program " + std::to_string(program_id) +
                    "): not a serialized xla.HloProto");
  }
  p->name_ = name.empty() ? p->proto_.hlo_module().name() : std::move(name);
  p->BuildIndex();
  return std::shared_ptr<const HloProgram>(std::move(p));
}

void HloProgram::BuildIndex() {
  for (const HloComputation& c : proto_.hlo_module().computations()) {
    computations_[c.id()] = &c;
    computations_by_name_[c.name()] = &c;
    for (const HloInstruction& i : c.instructions()) {
      by_name_.emplace(i.name(), &i);
      computation_of_[&i] = &c;
      by_id_[{c.id(), i.id()}] = &i;
    }
  }
}

const HloInstruction* HloProgram::FindInstruction(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const HloComputation* HloProgram::FindComputation(int64_t id) const {
  auto it = computations_.find(id);
  return it == computations_.end() ? nullptr : it->second;
}

const HloComputation* HloProgram::FindComputationByName(std::string_view name) const {
  auto it = computations_by_name_.find(name);
  return it == computations_by_name_.end() ? nullptr : it->second;
}

const HloComputation* HloProgram::ComputationOf(const HloInstruction& inst) const {
  auto it = computation_of_.find(&inst);
  return it == computation_of_.end() ? nullptr : it->second;
}

const HloInstruction* HloProgram::Operand(const HloInstruction& inst, int i) const {
  if (i < 0 || i >= inst.operand_ids_size()) return nullptr;
  const HloComputation* c = ComputationOf(inst);
  if (c == nullptr) return nullptr;
  auto it = by_id_.find({c->id(), inst.operand_ids(i)});
  return it == by_id_.end() ? nullptr : it->second;
}

const HloInstruction* HloProgram::Root(const HloComputation& comp) const {
  auto it = by_id_.find({comp.id(), comp.root_id()});
  if (it != by_id_.end()) return it->second;
  return comp.instructions().empty() ? nullptr : &comp.instructions(comp.instructions_size() - 1);
}

const HloProgram* HloPrograms::Find(uint64_t program_id) const {
  auto it = by_id.find(program_id);
  return it == by_id.end() ? nullptr : it->second.get();
}

const HloProgram* HloPrograms::FindByName(std::string_view module_name) const {
  for (const auto& [id, p] : by_id) {
    if (p->name() == module_name || p->module().name() == module_name) return p.get();
  }
  return nullptr;
}

namespace {

// The program id a module's name ends with, "name (<id>)" (xprof's HLO
// fixer: digits, or a minus and digits, taken as the same 64 bits as xprof's
// int64 key; a number past 64 bits is not an id).
std::optional<uint64_t> ProgramIdInName(std::string_view name) {
  const size_t open = name.rfind('(');
  if (!name.ends_with(')') || open == std::string_view::npos) return std::nullopt;
  std::string_view digits = name.substr(open + 1, name.size() - open - 2);
  const bool negative = digits.starts_with('-');
  if (negative) digits.remove_prefix(1);
  uint64_t value = 0;
  const char* const last = digits.data() + digits.size();
  auto [stop, ec] = std::from_chars(digits.data(), last, value);
  if (ec != std::errc() || stop != last) return std::nullopt;
  return negative ? uint64_t{0} - value : value;
}

// Calls fn(module name, program id, proto bytes) for each module.
template <typename Fn>
void ForEachHloModule(const XSpaceModel& space, Fn fn) {
  const XPlaneModel* meta = space.FindPlane(schema::kMetadataPlane);
  const StrId hlo = space.Find(kHloProtoStatName), legacy = space.Find(kHloProtoStatNameLegacy);
  if (meta == nullptr || (hlo == kNoStr && legacy == kNoStr)) return;
  StrId program_id = space.Find(schema::kProgramId);
  for (uint32_t i = 0; i < meta->event_metadata.size(); ++i) {
    const EventMetadata& md = meta->event_metadata[i];
    auto [b, e] = meta->MetadataStatsOf(i);
    const Stat* bytes = nullptr;
    std::optional<uint64_t> id_stat;
    for (const Stat* s = b; s != e; ++s) {
      bool proto = s->name != kNoStr && (s->name == hlo || s->name == legacy);
      if (proto && s->kind == StatKind::kBytes) bytes = s;
      if (s->name == program_id && program_id != kNoStr && s->IsInteger()) id_stat = s->UintValue();
    }
    if (bytes == nullptr) continue;
    const std::string_view name = space.Str(md.name);
    const uint64_t id = id_stat ? *id_stat : ProgramIdInName(name).value_or(static_cast<uint64_t>(md.id));
    fn(name, id, space.Blob(bytes->blob));
  }
}

}  // namespace

HloPrograms LoadHloPrograms(const XSpaceModel& space) {
  HloPrograms out;
  ForEachHloModule(space, [&](std::string_view name, uint64_t id, std::string_view bytes) {
    auto p = HloProgram::Parse(id, std::string(name), bytes);
    if (p.ok()) {
      out.by_id[id] = *p;
    } else {
      out.parse_errors.push_back(p.status().message());
    }
  });
  return out;
}

bool HasHloModules(const XSpaceModel& space) {
  bool any = false;
  ForEachHloModule(space, [&](std::string_view, uint64_t, std::string_view) { any = true; });
  return any;
}

std::vector<std::string> HloModuleNames(const XSpaceModel& space) {
  std::vector<std::string> names;
  ForEachHloModule(space, [&](std::string_view name, uint64_t, std::string_view) {
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
  });
  std::sort(names.begin(), names.end());  // the metadata map's wire order is arbitrary
  return names;
}

std::string InstructionSourceInfo(const HloInstruction& inst) {
  std::string_view file = inst.metadata().source_file();
  if (file.empty()) return {};
  if (size_t slash = file.rfind('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
  return std::string(file) + ":" + std::to_string(inst.metadata().source_line());
}

std::string ProgramDisplayName(std::string_view module_name, uint64_t program_id) {
  return std::string(module_name) + "(" + std::to_string(program_id) + ")";
}

int64_t PrimitiveTypeBytes(xla::PrimitiveType type) {
  switch (type) {
    case xla::PRED:
    case xla::S1: case xla::S2: case xla::S4: case xla::S8:
    case xla::U1: case xla::U2: case xla::U4: case xla::U8:
    case xla::F8E5M2: case xla::F8E4M3: case xla::F8E4M3FN: case xla::F8E4M3B11FNUZ:
    case xla::F8E3M4: case xla::F8E5M2FNUZ: case xla::F8E4M3FNUZ: case xla::F4E2M1FN:
    case xla::F8E8M0FNU:
      return 1;
    case xla::S16: case xla::U16: case xla::F16: case xla::BF16:
      return 2;
    case xla::S32: case xla::U32: case xla::F32:
      return 4;
    case xla::S64: case xla::U64: case xla::F64: case xla::C64:
      return 8;
    case xla::C128:
      return 16;
    default:
      return 0;
  }
}

std::string_view PrimitiveTypeName(xla::PrimitiveType type) {
  switch (type) {
    case xla::PRED: return "pred";
    case xla::S1: return "s1";
    case xla::S2: return "s2";
    case xla::S4: return "s4";
    case xla::S8: return "s8";
    case xla::S16: return "s16";
    case xla::S32: return "s32";
    case xla::S64: return "s64";
    case xla::U1: return "u1";
    case xla::U2: return "u2";
    case xla::U4: return "u4";
    case xla::U8: return "u8";
    case xla::U16: return "u16";
    case xla::U32: return "u32";
    case xla::U64: return "u64";
    case xla::F16: return "f16";
    case xla::F32: return "f32";
    case xla::BF16: return "bf16";
    case xla::F64: return "f64";
    case xla::F8E5M2: return "f8e5m2";
    case xla::F8E4M3: return "f8e4m3";
    case xla::F8E4M3FN: return "f8e4m3fn";
    case xla::F8E4M3B11FNUZ: return "f8e4m3b11fnuz";
    case xla::F8E3M4: return "f8e3m4";
    case xla::F8E5M2FNUZ: return "f8e5m2fnuz";
    case xla::F8E4M3FNUZ: return "f8e4m3fnuz";
    case xla::F4E2M1FN: return "f4e2m1fn";
    case xla::F8E8M0FNU: return "f8e8m0fnu";
    case xla::C64: return "c64";
    case xla::C128: return "c128";
    case xla::TOKEN: return "token";
    case xla::OPAQUE_TYPE: return "opaque";
    default: return "unknown";
  }
}

int64_t ElementCount(const xla::ShapeProto& shape) {
  if (shape.element_type() == xla::TUPLE) {
    int64_t n = 0;
    for (const auto& s : shape.tuple_shapes()) n += ElementCount(s);
    return n;
  }
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) n *= std::max<int64_t>(d, 0);
  return n;
}

int64_t ShapeBytes(const xla::ShapeProto& shape) {
  if (shape.element_type() == xla::TUPLE) {
    int64_t n = 0;
    for (const auto& s : shape.tuple_shapes()) n += ShapeBytes(s);
    return n;
  }
  return ElementCount(shape) * PrimitiveTypeBytes(shape.element_type());
}

namespace {

void AppendInts(std::string& out, const google::protobuf::RepeatedField<int64_t>& v) {
  for (int i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(v[i]);
  }
}

void AppendShape(std::string& out, const xla::ShapeProto& shape) {
  if (shape.element_type() == xla::TUPLE) {
    out += '(';
    for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i) out += ", ";
      AppendShape(out, shape.tuple_shapes(i));
    }
    out += ')';
    return;
  }
  out += PrimitiveTypeName(shape.element_type());
  if (shape.element_type() == xla::TOKEN || shape.element_type() == xla::OPAQUE_TYPE) return;
  out += '[';
  AppendInts(out, shape.dimensions());
  out += ']';
  if (!shape.has_layout()) return;
  const xla::LayoutProto& l = shape.layout();
  out += '{';
  AppendInts(out, l.minor_to_major());
  if (l.tiles_size() > 0 || l.memory_space() != 0) {
    out += ':';
    for (const auto& t : l.tiles()) {
      out += "T(";
      AppendInts(out, t.dimensions());
      out += ')';
    }
    if (l.memory_space() != 0) out += "S(" + std::to_string(l.memory_space()) + ")";
  }
  out += '}';
}

}  // namespace

std::string ShapeToString(const xla::ShapeProto& shape) {
  std::string out;
  AppendShape(out, shape);
  return out;
}

std::string InstructionExpression(const HloProgram& program, const HloInstruction& inst) {
  std::string out = "%" + inst.name() + " = ";
  AppendShape(out, inst.shape());
  out += ' ';
  out += inst.opcode();
  out += '(';
  for (int i = 0; i < inst.operand_ids_size(); ++i) {
    if (i) out += ", ";
    if (const HloInstruction* op = program.Operand(inst, i)) {
      AppendShape(out, op->shape());
      out += " %" + op->name();
    }
  }
  out += ')';
  if (!inst.fusion_kind().empty()) out += ", kind=" + inst.fusion_kind();
  for (int64_t id : inst.called_computation_ids()) {
    if (const HloComputation* c = program.FindComputation(id)) {
      out += (inst.opcode() == "fusion" ? ", calls=%" : ", to_apply=%") + c->name();
    }
  }
  if (!inst.custom_call_target().empty()) out += ", custom_call_target=\"" + inst.custom_call_target() + "\"";
  return out;
}

const HloProgram* FindProgramOf(const HloPrograms& programs, std::optional<int64_t> program_id,
                                std::string_view module_name) {
  const HloProgram* program = program_id ? programs.Find(static_cast<uint64_t>(*program_id)) : nullptr;
  if (program == nullptr && !module_name.empty()) program = programs.FindByName(module_name);
  return program;
}

std::string_view HloOpInstructionName(std::string_view hlo_op) {
  size_t sep = hlo_op.rfind("::");
  return sep == std::string_view::npos ? hlo_op : hlo_op.substr(sep + 2);
}

namespace {

bool IsElementwise(std::string_view op) {
  static constexpr std::string_view kOps[] = {
      "add", "subtract", "multiply", "divide", "maximum", "minimum", "negate", "abs", "exponential", "log",
      "tanh", "logistic", "sqrt", "rsqrt", "power", "compare", "select", "convert", "and", "or", "xor", "not",
      "clamp", "floor", "ceil", "sign", "remainder", "cosine", "sine", "atan2", "erf"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

bool ComputationHas(const HloProgram& p, const HloInstruction& fusion, std::initializer_list<std::string_view> ops) {
  for (int64_t id : fusion.called_computation_ids()) {
    const HloComputation* c = p.FindComputation(id);
    if (c == nullptr) continue;
    for (const HloInstruction& i : c->instructions()) {
      if (std::find(ops.begin(), ops.end(), i.opcode()) != ops.end()) return true;
    }
  }
  return false;
}

}  // namespace

std::string HloCategoryOf(const HloProgram& program, const HloInstruction& inst) {
  std::string_view op = inst.opcode();
  if (op == "fusion") {
    if (ComputationHas(program, inst, {"convolution", "dot"})) return "convolution fusion";
    std::string_view kind = inst.fusion_kind();
    if (kind == "kLoop") return "loop fusion";
    if (kind == "kInput") return "input fusion";
    if (kind == "kOutput") return "output fusion";
    if (kind == "kCustom") return "custom fusion";
    return "fusion";
  }
  if (op == "dot" || op == "convolution") return "convolution";
  if (op == "copy" || op == "transpose" || op == "reshape" || op == "bitcast" || op == "pad" || op == "slice" ||
      op == "concatenate" || op == "reverse") {
    return "data formatting";
  }
  if (IsElementwise(op)) return "non-fusion elementwise";
  return std::string(op);
}

}  // namespace tbprof
