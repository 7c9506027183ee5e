// The HLO programs of one XSpace: the `/host:metadata` plane holds one event
// metadata per compiled module whose `Hlo Proto` stat is a serialized
// xla.HloProto. A program is keyed by its program id: the module's
// `program_id` stat when present, else the number its name ends with in
// parentheses ("train_step (12345)"), else the event metadata's id. Programs
// are indexed for the lookups the per-op tools do (instruction by name,
// computation by id).
//
// libtpu 0.0.37 wrote the stat as `HLO Proto` and gave the metadata ids that
// are not the program ids, only the names carrying them; xprof repairs such
// files before any tool (its HLO fixer), and the rules above read them alike.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "convert/base/status.h"
#include "convert/model/xspace_model.h"
#include "proto/hlo.pb.h"

namespace tbprof {

inline constexpr std::string_view kHloProtoStatName = "Hlo Proto";
inline constexpr std::string_view kHloProtoStatNameLegacy = "HLO Proto";

using HloInstruction = xla::HloInstructionProto;
using HloComputation = xla::HloComputationProto;

class HloProgram {
 public:
  // Parses `bytes` (a serialized xla.HloProto); `name` is the metadata's module name.
  static StatusOr<std::shared_ptr<const HloProgram>> Parse(uint64_t program_id, std::string name,
                                                           std::string_view bytes);

  uint64_t program_id() const { return program_id_; }
  const std::string& name() const { return name_; }
  const xla::HloProto& proto() const { return proto_; }
  const xla::HloModuleProto& module() const { return proto_.hlo_module(); }

  const HloInstruction* FindInstruction(std::string_view name) const;
  const HloComputation* FindComputation(int64_t id) const;
  const HloComputation* FindComputationByName(std::string_view name) const;
  // The computation holding `inst`.
  const HloComputation* ComputationOf(const HloInstruction& inst) const;
  // Operand `i` of `inst` (operands live in the same computation), or null.
  const HloInstruction* Operand(const HloInstruction& inst, int i) const;
  // The root instruction of a computation, or null.
  const HloInstruction* Root(const HloComputation& comp) const;

 private:
  HloProgram() = default;
  void BuildIndex();

  uint64_t program_id_ = 0;
  std::string name_;
  xla::HloProto proto_;
  std::unordered_map<std::string_view, const HloInstruction*> by_name_;
  std::unordered_map<const HloInstruction*, const HloComputation*> computation_of_;
  std::unordered_map<int64_t, const HloComputation*> computations_;
  std::unordered_map<std::string_view, const HloComputation*> computations_by_name_;
  // (computation id, instruction id) -> instruction; ids are unique per computation.
  std::map<std::pair<int64_t, int64_t>, const HloInstruction*> by_id_;
};

struct HloPrograms {
  std::map<uint64_t, std::shared_ptr<const HloProgram>> by_id;
  std::vector<std::string> parse_errors;  // one per module that did not parse

  const HloProgram* Find(uint64_t program_id) const;
  // By module name (GPU kernels name their module); the first match.
  const HloProgram* FindByName(std::string_view module_name) const;
  bool empty() const { return by_id.empty(); }
};

// The program a device op ran in: by its program id (the `program_id` stat as
// StatIds::ProgramId reads it), else by its module's name (older GPU profiles
// name only the module); null when neither is loaded.
const HloProgram* FindProgramOf(const HloPrograms& programs, std::optional<int64_t> program_id,
                                std::string_view module_name);
// The instruction name in a device op's hlo_op stat, which may be qualified
// by its computation ("region_0.12::fusion.3").
std::string_view HloOpInstructionName(std::string_view hlo_op);

// Parses every module of the metadata plane. Modules that fail to parse are
// named in parse_errors and left out; the others are still returned.
HloPrograms LoadHloPrograms(const XSpaceModel& space);

// Whether the space carries any HLO module, and their names sorted,
// without parsing the protos (for run_tools and /module_list).
bool HasHloModules(const XSpaceModel& space);
std::vector<std::string> HloModuleNames(const XSpaceModel& space);

// "<module>(<program id>)", the way xprof names a program.
std::string ProgramDisplayName(std::string_view module_name, uint64_t program_id);

// HLO category of an instruction ("loop fusion", "convolution", "data
// formatting", …), for devices whose events carry none (GPU).
std::string HloCategoryOf(const HloProgram& program, const HloInstruction& inst);

// "<file basename>:<line>" of the Python line that made the instruction, as
// xprof shows an op's source; empty when its metadata names no file.
std::string InstructionSourceInfo(const HloInstruction& inst);

// Bytes of one element of `type` (sub-byte types rounded up to a byte); 0 for
// tuples, tokens and opaque values.
int64_t PrimitiveTypeBytes(xla::PrimitiveType type);
std::string_view PrimitiveTypeName(xla::PrimitiveType type);
int64_t ElementCount(const xla::ShapeProto& shape);  // 1 for scalars; tuples: sum over elements
int64_t ShapeBytes(const xla::ShapeProto& shape);    // arrays: elements × element size; tuples: sum
// XLA's text form, e.g. "bf16[8,128]{1,0}" or "(f32[2], s32[])".
std::string ShapeToString(const xla::ShapeProto& shape);
// One line close to XLA's HloInstruction::ToString: "%name = shape opcode(shape %operand, …), attrs".
// The attributes printed are the ones the tools show (fusion kind, called computations,
// custom-call target); metadata and backend configs are left out.
std::string InstructionExpression(const HloProgram& program, const HloInstruction& inst);

}  // namespace tbprof
