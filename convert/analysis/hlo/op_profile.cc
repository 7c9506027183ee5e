#include "convert/analysis/hlo/op_profile.h"

#include "convert/base/json.h"

namespace tbprof {

namespace {

std::string TreeJson(const HloOpDb& db, OpProfileGrouping grouping, bool exclude_idle, int k) {
  op_profile::Node root = op_profile::BuildTree(db, grouping, exclude_idle);
  // Only the levels below the grouping ones are cut; a framework-op path has
  // no fixed depth, so that tree is not cut at all.
  const int grouping_levels = grouping == OpProfileGrouping::kByCategory  ? 1
                              : grouping == OpProfileGrouping::kByProgram ? 2
                                                                          : 100;
  op_profile::SortAndPrune(root, grouping_levels, k);
  std::string out;
  op_profile::WriteTree(root, db.peaks, root.totals.time_ps, out);
  return out;
}

}  // namespace

OpProfileGrouping OpProfileGroupingFromParam(std::string_view group_by) {
  if (group_by == "category") return OpProfileGrouping::kByCategory;
  if (group_by == "provenance") return OpProfileGrouping::kByProvenance;
  return OpProfileGrouping::kByProgram;
}

std::string ConvertHloOpDbToOpProfileJson(const HloOpDb& db, OpProfileGrouping group_by, int children_per_node) {
  // HardwareType's names, as the profile names its device.
  std::string device_type = db.peaks.kind == DeviceKind::kTpu   ? "TPU"
                            : db.peaks.kind == DeviceKind::kGpu ? "GPU"
                                                                : "CPU_ONLY";
  auto tree = [&](bool exclude_idle) { return TreeJson(db, group_by, exclude_idle, children_per_node); };
  // Members in the order of their field numbers, as protobuf writes them.
  std::string out = "{";
  switch (group_by) {
    case OpProfileGrouping::kByCategory:
      out += "\"byCategory\":" + tree(false);
      AppendJsonStringMember(out, ",\"deviceType\":", device_type);
      out += ",\"byCategoryExcludeIdle\":" + tree(true);
      break;
    case OpProfileGrouping::kByProgram:
      out += "\"byProgram\":" + tree(false);
      AppendJsonStringMember(out, ",\"deviceType\":", device_type);
      out += ",\"byProgramExcludeIdle\":" + tree(true);
      break;
    case OpProfileGrouping::kByProvenance:
      AppendJsonStringMember(out, "\"deviceType\":", device_type);
      out += ",\"byProvenance\":" + tree(false);
      out += ",\"byProvenanceExcludeIdle\":" + tree(true);
      break;
  }
  out += "}";
  return out;
}

}  // namespace tbprof
