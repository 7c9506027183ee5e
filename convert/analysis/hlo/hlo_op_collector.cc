#include "convert/analysis/hlo/hlo_op_collector.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

namespace tbprof {

HloOpCollector::HloOpCollector(const XSpaceModel& space)
    : ids(space),
      model_flops(space.Find("model_flops")),
      breakdown(space.Find("memory_access_breakdown")),
      dedup(space.Find("deduplicated_name")),
      source_stack(space.Find("source_stack")),
      space_(space) {
  db_.programs = LoadHloPrograms(space);
  db_.peaks = DevicePeaksOf(space);
}

HloOpMetrics& HloOpCollector::OpFor(uint64_t program_id, const std::string& name) {
  auto [it, fresh] = index_.try_emplace({program_id, name}, db_.ops.size());
  if (fresh) {
    db_.ops.emplace_back();
    db_.ops.back().program_id = program_id;
    db_.ops.back().name = name;
  }
  return db_.ops[it->second];
}

void HloOpCollector::FromHlo(const HloProgram* program, const HloInstruction* inst, HloOpMetrics& m) {
  if (program == nullptr || inst == nullptr) return;
  m.instruction = inst;
  if (m.expression.empty()) m.expression = InstructionExpression(*program, *inst);
  if (m.category.empty()) m.category = HloCategoryOf(*program, *inst);
  if (m.provenance.empty()) m.provenance = inst->metadata().op_name();
  if (m.deduplicated_name.empty()) m.deduplicated_name = inst->metadata().deduplicated_name();
  if (m.source_info.empty()) m.source_info = InstructionSourceInfo(*inst);
}

uint64_t HloOpCollector::AddPlaneTime(uint64_t op_ps, uint64_t total_ps) {
  total_ps = std::max(op_ps, total_ps);
  db_.total_time_ps += total_ps;
  return total_ps - op_ps;
}

HloOpDb HloOpCollector::Finish(uint64_t idle_ps) && {
  db_.has_device_ops = !db_.ops.empty();
  if (idle_ps > 0) {
    HloOpMetrics m;
    m.name = m.category = "IDLE";
    m.is_idle = true;
    m.time_ps = m.self_time_ps = idle_ps;
    db_.ops.push_back(std::move(m));
  }
  return std::move(db_);
}

void AddMemoryBreakdown(std::string_view bytes, double times, HloOpMetrics& m) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  while (uint32_t tag = in.ReadTag()) {
    if (tag != ((1 << 3) | 2)) {
      if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) return;
      continue;
    }
    uint32_t len = 0;
    if (!in.ReadVarint32(&len)) return;
    auto limit = in.PushLimit(static_cast<int>(len));
    uint64_t op = 0, space = 0, n = 0;
    while (uint32_t t = in.ReadTag()) {
      uint64_t v = 0;
      if ((t & 7) != 0) {
        if (!google::protobuf::internal::WireFormatLite::SkipField(&in, t)) return;
        continue;
      }
      if (!in.ReadVarint64(&v)) return;
      if ((t >> 3) == 1) op = v;
      if ((t >> 3) == 2) space = v;
      if ((t >> 3) == 3) n = v;
    }
    in.PopLimit(limit);
    double b = static_cast<double>(n) * times;
    m.has_breakdown = true;
    bool read = op == 1, write = op == 2;
    if (space == 1) {
      m.hbm_bytes += b;
      continue;
    }
    if (space == 2 && read) m.cmem_rd += b;
    if (space == 2 && write) m.cmem_wr += b;
    if (space == 3 && read) m.vmem_rd += b;
    if (space == 3 && write) m.vmem_wr += b;
    if (read) m.onchip_rd += b;
    if (write) m.onchip_wr += b;
  }
}

}  // namespace tbprof
