// What a device event's stats say to the derived timelines (KernelStats),
// and the names of the derived events they make (KernelEventNames): a
// framework op with its name scopes, an XLA module, an XLA op per depth, a
// source line. Each name is one metadata of the derived plane, looked up once.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "convert/analysis/hlo_program/hlo_module.h"
#include "convert/analysis/trace_viewer/derived_line.h"
#include "convert/analysis/trace_viewer/derived_plane_builder.h"
#include "convert/model/schema.h"
#include "convert/model/xspace_model.h"

namespace tbprof::derived {

// The stats of one device event that the derivation reads.
struct KernelStats {
  bool kernel = false;  // a kernel (kernel_details) or a CUDA graph launch
  StrId hlo_module = kNoStr, hlo_op = kNoStr, framework_op = kNoStr, level0 = kNoStr;
  bool has_program_id = false;
  uint64_t program_id = 0;
  uint64_t cuda_graph_id = 0;  // a CUDA graph's node: its graph (0: none)
  const Stat* correlation_id = nullptr;
  int64_t scope_range = kNoScopeRange;
};

// The framework op is the tf_op stat, else `level 0` (TensorFlow up to 2.4).
KernelStats ReadKernelStats(const XPlaneModel& p, uint32_t e, const schema::StatIds& n);

class KernelEventNames {
 public:
  KernelEventNames(const XSpaceModel& space, const HloPrograms& programs, DerivedPlaneBuilder& plane)
      : space_(space), programs_(programs), plane_(plane) {}

  // A framework op's events: its name scopes (TensorFlow and JAX ops, one per
  // '/' component but the last) and the op itself, named "scope/name:Type"
  // and shown as its type.
  struct FrameworkOpEntry {
    bool scoped = false;
    std::vector<uint32_t> scopes;
    uint32_t op = 0;
  };
  const FrameworkOpEntry& FrameworkOp(std::string_view fullname);
  // The same, for a file string id (one pointer per string: a hash map
  // lookup per kernel cost more than the rest of the stream).
  const FrameworkOpEntry& FrameworkOpOfStat(StrId fullname);

  // What the HLO protos tell of an XLA op (xprof's symbol resolver): its
  // framework op, as its instruction's metadata names it ("op_name:op_type"),
  // and its source line; unknown program, instruction or fact: null / none.
  struct XlaOpSymbol {
    const FrameworkOpEntry* op = nullptr;
    bool has_source = false;
    uint32_t source = 0;  // metadata of the source line's event
  };
  const XlaOpSymbol& SymbolOfXlaOp(const KernelStats& k);

  // The XLA module's event: "module(program_id)".
  uint32_t ModuleMetadata(const KernelStats& k);
  // The XLA op's events per depth ("::"-separated levels): "<program id or
  // module>/<op>", shown as "<op>".
  const std::vector<uint32_t>& HloOpMetadata(const KernelStats& k);

 private:
  const XSpaceModel& space_;
  const HloPrograms& programs_;
  DerivedPlaneBuilder& plane_;
  std::unordered_map<std::string, FrameworkOpEntry> framework_ops_;  // node-based: entries stay in place
  std::vector<const FrameworkOpEntry*> framework_op_of_stat_;         // by file string id
  std::map<std::pair<uint64_t, StrId>, XlaOpSymbol> symbols_;
  std::map<std::tuple<bool, uint64_t, StrId>, uint32_t> modules_;
  std::map<std::tuple<bool, uint64_t, StrId, StrId>, std::vector<uint32_t>> hlo_ops_;
};

}  // namespace tbprof::derived
