#include "convert/analysis/hlo/xspace_to_hlo_stats.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "convert/analysis/common/hlo_cost_model.h"
#include "convert/analysis/common/op_self_time.h"
#include "convert/base/data_table.h"
#include "convert/base/math_util.h"
#include "convert/model/event_nesting.h"
#include "convert/grouping/group_events.h"
#include "convert/model/schema.h"

namespace tbprof {

std::string HloOpDb::ProgramName(uint64_t program_id) const {
  const HloProgram* p = programs.Find(program_id);
  if (p == nullptr) return "main";
  // xprof names a program by its HLO module's own name and the id; the
  // metadata event's name may already carry the id ("jit_f(7)"), so it is
  // only the fallback for a module proto without a name.
  return ProgramDisplayName(p->module().name().empty() ? p->name() : p->module().name(), program_id);
}

bool HloStatsReadsEventStat(std::string_view plane_name, std::string_view stat_name) {
  if (!plane_name.starts_with("/device:")) return false;
  static constexpr std::string_view kRead[] = {"hlo_op",         "hlo_module",        "program_id",
                                               "hlo_category",   "flops",             "model_flops",
                                               "bytes_accessed", "device_offset_ps",  "device_duration_ps",
                                               "tf_op",          "deduplicated_name", "memory_access_breakdown"};
  return std::find(std::begin(kRead), std::end(kRead), stat_name) != std::end(kRead);
}

namespace {

// Reads a serialized MemoryAccessBreakdown: repeated message (field 1) of
// {operation_type = 1 (1 read, 2 write), memory_space = 2, bytes_accessed = 3}.
// Memory spaces as TPUs report them: 1 HBM, 2 CMEM, 3 VMEM, others on chip.
void AddBreakdown(std::string_view bytes, double times, HloOpMetrics& m) {
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

std::string SanitizedKernelName(std::string_view name) {
  std::string s(name);
  for (char& c : s) {
    if (c == '.' || c == '-') c = '_';
  }
  return s;
}

class Builder {
 public:
  explicit Builder(const XSpaceModel& space) : space_(space), ids_(space) {
    db_.programs = LoadHloPrograms(space);
    db_.peaks = DevicePeaksOf(space);
    model_flops_ = space.Find("model_flops"), breakdown_ = space.Find("memory_access_breakdown");
    dedup_ = space.Find("deduplicated_name"), source_stack_ = space.Find("source_stack");
  }

  HloOpDb Build() && {
    uint64_t idle = 0;
    for (const XPlaneModel* p : space_.FindPlanesWithPrefix("/device:TPU:")) idle += AddTpuPlane(*p);
    for (const XPlaneModel* p : space_.FindPlanesWithPrefix("/device:GPU:")) idle += AddGpuPlane(*p);
    db_.has_device_ops = !db_.ops.empty();
    if (idle > 0) {
      HloOpMetrics m;
      m.name = m.category = "IDLE";
      m.is_idle = true;
      m.time_ps = m.self_time_ps = idle;
      db_.ops.push_back(std::move(m));
    }
    return std::move(db_);
  }

 private:
  const Stat* Any(const XPlaneModel& p, uint32_t e, StrId n) const {
    return n == kNoStr ? nullptr : p.FindEventOrMetadataStat(e, n);
  }
  std::string_view Str(const Stat* s) const {
    return s != nullptr && s->kind == StatKind::kStr ? space_.Str(s->str) : std::string_view();
  }

  HloOpMetrics& OpFor(uint64_t program_id, const std::string& name) {
    auto [it, fresh] = index_.try_emplace({program_id, name}, db_.ops.size());
    if (fresh) {
      db_.ops.emplace_back();
      db_.ops.back().program_id = program_id;
      db_.ops.back().name = name;
    }
    return db_.ops[it->second];
  }

  // Fills what the HLO tells about an op that its events did not.
  void FromHlo(const HloProgram* program, const HloInstruction* inst, HloOpMetrics& m) {
    if (program == nullptr || inst == nullptr) return;
    m.instruction = inst;
    if (m.expression.empty()) m.expression = InstructionExpression(*program, *inst);
    if (m.category.empty()) m.category = HloCategoryOf(*program, *inst);
    if (m.provenance.empty()) m.provenance = inst->metadata().op_name();
    if (m.deduplicated_name.empty()) m.deduplicated_name = inst->metadata().deduplicated_name();
    if (m.source_info.empty()) m.source_info = InstructionSourceInfo(*inst);
  }

  // Returns the idle time of the plane. Self times by nesting as OpStats
  // takes them (ForEachTpuOpSelfTime), so the op tables and framework_op_stats
  // agree; an aggregated event stands for num_occurrences runs, its FLOPs and
  // bytes are per run.
  uint64_t AddTpuPlane(const XPlaneModel& p) {
    const LineModel* ops_line = nullptr;
    for (const LineModel& l : p.lines) {
      if (space_.Str(l.name) == "XLA Ops") ops_line = &l;
    }
    if (ops_line == nullptr || ops_line->num_events == 0) return 0;
    // Ops are numbered in the order their first event begins.
    std::unordered_map<uint32_t, size_t> op_of_metadata;
    for (uint32_t e : SortedLineEvents(p, *ops_line)) {
      auto [it, fresh] = op_of_metadata.try_emplace(p.events[e].metadata, 0);
      if (fresh) it->second = TpuOp(p, e);
    }
    int64_t first = INT64_MAX, last = INT64_MIN;
    uint64_t op_time = 0;
    ForEachTpuOpSelfTime(p, ids_, *ops_line, [&](uint32_t e, const Span& span, uint64_t self) {
      HloOpMetrics& m = db_.ops[op_of_metadata.at(p.events[e].metadata)];
      const uint32_t runs = static_cast<uint32_t>(std::max<int64_t>(1, p.NumOccurrences(e)));
      m.occurrences += runs;
      m.time_ps += static_cast<uint64_t>(std::max<int64_t>(0, span.duration()));
      m.self_time_ps += self;
      AddPerOccurrence(p, e, static_cast<double>(runs), m);
      op_time += self;
      first = std::min(first, span.begin);
      last = std::max(last, span.end);
    });
    uint64_t total = std::max<uint64_t>(op_time, static_cast<uint64_t>(last - first));
    db_.total_time_ps += total;
    return total - op_time;
  }

  // The op of a TPU event's metadata; names as xprof: the display name when set, the name as the expression.
  size_t TpuOp(const XPlaneModel& p, uint32_t e) {
    const EventMetadata& md = p.event_metadata[p.events[e].metadata];
    std::string name(space_.Str(md.display_name != kNoStr ? md.display_name : md.name));
    const uint64_t program_id = static_cast<uint64_t>(ids_.ProgramId(p, e).value_or(0));
    HloOpMetrics& m = OpFor(program_id, name);
    size_t index = static_cast<size_t>(&m - db_.ops.data());
    if (m.occurrences > 0 || !m.category.empty()) return index;
    if (md.display_name != kNoStr) m.expression = std::string(space_.Str(md.name));
    m.category = std::string(Str(Any(p, e, ids_.hlo_category)));
    m.provenance = std::string(Str(Any(p, e, ids_.tf_op)));
    m.deduplicated_name = std::string(Str(Any(p, e, dedup_)));
    m.source_info = std::string(Str(Any(p, e, ids_.source_info)));
    m.source_stack = std::string(Str(Any(p, e, source_stack_)));
    const HloProgram* program = db_.programs.Find(program_id);
    FromHlo(program, program ? program->FindInstruction(name) : nullptr, m);
    return index;
  }

  // FLOPs and bytes of one TPU op event of `runs` runs: the event's per-run
  // stats, else the cost model.
  void AddPerOccurrence(const XPlaneModel& p, uint32_t e, double runs, HloOpMetrics& m) {
    const Stat* f = Any(p, e, ids_.flops);
    const Stat* mf = Any(p, e, model_flops_);
    const Stat* b = Any(p, e, ids_.bytes_accessed);
    const Stat* bd = Any(p, e, breakdown_);
    HloCost cost;
    bool have_cost = false;
    if ((f == nullptr || b == nullptr) && m.instruction != nullptr) {
      if (const HloProgram* prog = db_.programs.Find(m.program_id)) {
        cost = HloInstructionCost(*prog, *m.instruction);
        have_cost = true;
      }
    }
    if (f != nullptr) {
      m.flops += f->DoubleValue() * runs;
      m.model_flops += (mf ? mf->DoubleValue() : f->DoubleValue()) * runs;
      m.flops_known = true;
    } else if (have_cost && cost.flops_known) {
      m.flops += cost.flops * runs;
      m.model_flops += cost.flops * runs;
      m.flops_known = true;
    }
    if (b != nullptr) {
      m.bytes_accessed += b->DoubleValue() * runs;
      m.bytes_known = true;
    } else if (have_cost) {
      m.bytes_accessed += cost.bytes_accessed * runs;
      m.bytes_known = true;
    }
    if (bd != nullptr && bd->kind == StatKind::kBytes) AddBreakdown(space_.Blob(bd->blob), runs, m);
  }

  // FLOPs and bytes of one GPU kernel, as xprof's GPU op metrics count them:
  // the instruction's cost once per occurrence for each figure the cost model
  // gives, else what the profiler wrote on every kernel of the occurrence.
  void AddGpuKernel(const XPlaneModel& p, uint32_t e, const std::optional<HloCost>& cost, bool new_occurrence,
                    HloOpMetrics& m) {
    // A cost of 0 (a broadcast computes nothing) is known, but a kernel's own
    // figure, where there is one, says more.
    const FiguresFromCost from_cost = FiguresTakenFromCost(cost);
    const Stat* f = nullptr;
    if (from_cost.flops) {
      if (new_occurrence) m.flops += cost->flops, m.model_flops += cost->flops;
    } else if ((f = Any(p, e, ids_.flops)) != nullptr) {
      const Stat* mf = Any(p, e, model_flops_);
      m.flops += f->DoubleValue();
      m.model_flops += mf ? mf->DoubleValue() : f->DoubleValue();
    }
    m.flops_known |= f != nullptr || (cost && cost->flops_known);
    const Stat* b = nullptr;
    if (from_cost.bytes) {
      if (new_occurrence) m.bytes_accessed += cost->bytes_accessed;
    } else if ((b = Any(p, e, ids_.bytes_accessed)) != nullptr) {
      m.bytes_accessed += b->DoubleValue();
    }
    m.bytes_known |= b != nullptr || cost.has_value();
  }

  // A GPU kernel's op: (program, instruction), command buffers resolved by kernel name.
  size_t GpuOp(const XPlaneModel& p, uint32_t e, std::string_view hlo_op) {
    const std::optional<int64_t> id = ids_.ProgramId(p, e);
    const HloProgram* program = FindProgramOf(db_.programs, id, Str(Any(p, e, ids_.hlo_module)));
    const uint64_t program_id = program != nullptr ? program->program_id() : id.value_or(0);
    std::string name(HloOpInstructionName(hlo_op));
    const HloInstruction* inst = program ? program->FindInstruction(name) : nullptr;
    if (program != nullptr) {
      const HloComputation* body = nullptr;
      if (inst != nullptr && inst->opcode() == "call" && inst->called_computation_ids_size() == 1) {
        body = program->FindComputation(inst->called_computation_ids(0));
      } else if (inst == nullptr) {
        body = program->FindComputationByName(name);
      }
      if (body != nullptr) {
        std::string kernel = SanitizedKernelName(space_.Str(p.EventName(e)));
        for (const HloInstruction& i : body->instructions()) {
          if (!kernel.empty() && SanitizedKernelName(i.name()) == kernel) {
            inst = &i;
            name = i.name();
            break;
          }
        }
      }
    }
    HloOpMetrics& m = OpFor(program_id, name);
    size_t index = static_cast<size_t>(&m - db_.ops.data());
    if (m.occurrences == 0 && m.expression.empty()) {
      m.category = std::string(Str(Any(p, e, ids_.hlo_category)));
      FromHlo(program, inst, m);
      if (m.category.empty()) m.category = "unknown";
      if (m.provenance.empty()) m.provenance = std::string(Str(Any(p, e, ids_.tf_op)));
    }
    return index;
  }

  uint64_t AddGpuPlane(const XPlaneModel& p) {
    int64_t first = INT64_MAX, last = INT64_MIN;
    uint64_t op_time = 0;
    struct Key {
      uint64_t program;
      uint64_t op_and_metadata;
      bool operator==(const Key&) const = default;
    };
    struct KeyHash {
      size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.program * 0x9E3779B97F4A7C15ULL ^ k.op_and_metadata); }
    };
    std::unordered_map<Key, size_t, KeyHash> op_of;  // (program id stat, hlo_op string, kernel) -> op
    for (const LineModel& line : p.lines) {
      if (schema::IsDerivedThreadId(line.id)) continue;
      size_t prev = SIZE_MAX;
      for (uint32_t e : SortedLineEvents(p, line)) {
        const Event& ev = p.events[e];
        first = std::min(first, ev.begin_ps);
        last = std::max(last, ev.end_ps());
        const Stat* op_stat = Any(p, e, ids_.hlo_op);
        std::string_view hlo_op = Str(op_stat);
        if (hlo_op.empty()) {
          prev = SIZE_MAX;
          continue;
        }
        const std::optional<int64_t> pid = ids_.ProgramId(p, e);
        Key key{pid ? static_cast<uint64_t>(*pid) : ~uint64_t{0}, (uint64_t{op_stat->str} << 32) | ev.metadata};
        auto [it, fresh] = op_of.try_emplace(key, 0);
        if (fresh) {
          it->second = GpuOp(p, e, hlo_op);
          gpu_cost_.resize(db_.ops.size());
          const HloOpMetrics& op = db_.ops[it->second];
          const HloProgram* program = db_.programs.Find(op.program_id);
          if (op.instruction != nullptr && program != nullptr && !gpu_cost_[it->second]) {
            gpu_cost_[it->second] = HloInstructionCost(*program, *op.instruction);
          }
        }
        HloOpMetrics& m = db_.ops[it->second];
        uint64_t dur = static_cast<uint64_t>(std::max<int64_t>(0, ev.duration_ps));
        op_time += dur;
        m.time_ps += dur;
        m.self_time_ps += dur;
        const bool new_occurrence = prev != it->second;  // else another kernel of the same occurrence
        if (new_occurrence) m.occurrences += 1;
        AddGpuKernel(p, e, gpu_cost_[it->second], new_occurrence, m);
        prev = it->second;
      }
    }
    if (first == INT64_MAX) return 0;
    uint64_t total = std::max<uint64_t>(op_time, static_cast<uint64_t>(last - first));
    db_.total_time_ps += total;
    return total - op_time;
  }

  const XSpaceModel& space_;
  HloOpDb db_;
  std::map<std::pair<uint64_t, std::string>, size_t> index_;
  const schema::StatIds ids_;
  StrId model_flops_, breakdown_, dedup_, source_stack_;  // stats only this step reads
  std::vector<std::optional<HloCost>> gpu_cost_;          // by op index: the instruction's cost, when found
};

}  // namespace

HloOpDb ConvertXSpaceToHloOpDb(const XSpaceModel& space) { return Builder(space).Build(); }

HloOpDb CombineHloOpDbs(const std::vector<std::shared_ptr<const HloOpDb>>& dbs) {
  HloOpDb out;
  std::map<std::pair<uint64_t, std::string>, size_t> index;
  for (const auto& db : dbs) {
    if (out.peaks.kind == DeviceKind::kUnknown) out.peaks = db->peaks;
    if (db != dbs.front()) out.peaks.device_count += db->peaks.device_count;
    out.total_time_ps += db->total_time_ps;
    out.has_device_ops |= db->has_device_ops;
    for (const auto& [id, prog] : db->programs.by_id) {
      out.programs.by_id.emplace(id, prog);
      out.combined_programs.push_back(prog);
    }
    out.combined_programs.insert(out.combined_programs.end(), db->combined_programs.begin(), db->combined_programs.end());
    for (const HloOpMetrics& m : db->ops) {
      auto [it, fresh] = index.try_emplace({m.program_id, m.is_idle ? std::string() : m.name}, out.ops.size());
      if (fresh) {
        out.ops.push_back(m);
        continue;
      }
      HloOpMetrics& t = out.ops[it->second];
      t.occurrences += m.occurrences;
      t.time_ps += m.time_ps;
      t.self_time_ps += m.self_time_ps;
      t.flops += m.flops, t.model_flops += m.model_flops, t.bytes_accessed += m.bytes_accessed;
      t.hbm_bytes += m.hbm_bytes, t.cmem_rd += m.cmem_rd, t.cmem_wr += m.cmem_wr;
      t.vmem_rd += m.vmem_rd, t.vmem_wr += m.vmem_wr, t.onchip_rd += m.onchip_rd, t.onchip_wr += m.onchip_wr;
      t.has_breakdown |= m.has_breakdown, t.flops_known |= m.flops_known, t.bytes_known |= m.bytes_known;
    }
  }
  // IDLE last, as one op.
  std::stable_partition(out.ops.begin(), out.ops.end(), [](const HloOpMetrics& m) { return !m.is_idle; });
  return out;
}

std::vector<const HloOpMetrics*> SortedHloOps(const HloOpDb& db) {
  std::vector<const HloOpMetrics*> ops;
  for (const HloOpMetrics& m : db.ops) {
    if (!m.is_idle && m.occurrences > 0) ops.push_back(&m);
  }
  std::stable_sort(ops.begin(), ops.end(), [](const HloOpMetrics* a, const HloOpMetrics* b) {
    return a->self_time_ps != b->self_time_ps ? a->self_time_ps > b->self_time_ps : a->name < b->name;
  });
  return ops;
}

namespace {

bool IsRematerialization(std::string_view expression, std::string_view provenance) {
  return expression.find(".remat") != std::string_view::npos ||
         provenance.find("rematted_computation") != std::string_view::npos;
}

bool IsOutsideCompilation(std::string_view provenance, std::string_view expression) {
  if (provenance.ends_with(":XlaSendToHost") || provenance.ends_with(":XlaRecvFromHost")) return true;
  return expression.find("send-done") != std::string_view::npos &&
         expression.find("is_host_transfer=true") != std::string_view::npos;
}

DataTable BuildHloStatsTable(const HloOpDb& db) {
  DataTable t;
  static const char* kColumns[][3] = {
      {"rank", "number", "Rank"},
      {"program_id", "string", "Program id"},
      {"category", "string", "HLO op category"},
      {"hlo_op_name", "string", "HLO op name"},
      {"hlo_op_expression", "string", "HLO op text"},
      {"tf_op_name", "string", "Framework op name"},
      {"occurrences", "number", "#Occurrences"},
      {"total_time", "number", "Total time (us)"},
      {"avg_time", "number", "Avg. time (us)"},
      {"total_self_time", "number", "Total self time (us)"},
      {"avg_self_time", "number", "Avg. self time (us)"},
      {"total_self_time_percent", "number", "Total self time (%)"},
      {"cumulative_total_self_time_percent", "number", "Cumulative total self time (%)"},
      {"dma_stall_percent", "number", "%time stalled by DMA"},
      {"model_flop_rate", "number", "Model GFLOP/s"},
      {"normalized_flop_rate", "number", "Normalized GFLOP/s"},
      {"measured_memory_bw", "number", "Measured memory BW (GiB/s)"},
      {"hbm_bw", "number", "HBM BW (GiB/s)"},
      {"cmem_read_bw", "number", "CMEM Read BW (GiB/s)"},
      {"cmem_write_bw", "number", "CMEM Write BW (GiB/s)"},
      {"operational_intensity", "number", "Operational intensity (FLOPS/Byte)"},
      {"bound_by", "string", "Bound by"},
      {"hlo_rematerialization", "string", "Rematerialization"},
      {"outside_compilation", "string", "Outside Compilation"},
      {"autotuned", "string", "Autotuned"},
      {"source_info", "string", "Source Info"},
      {"source_stack", "string", "Source Stack"},
  };
  for (const auto& c : kColumns) t.AddColumn(c[0], c[2], c[1]);
  double total_us = static_cast<double>(db.total_time_ps) / 1e6;
  double cumulative = 0;
  int rank = 0;
  const bool tpu = db.peaks.kind == DeviceKind::kTpu;
  for (const HloOpMetrics* m : SortedHloOps(db)) {
    double time_us = static_cast<double>(m->time_ps) / 1e6, self_us = static_cast<double>(m->self_time_ps) / 1e6;
    double time_ns = static_cast<double>(m->time_ps) / 1e3;
    double fraction = SafeDivide(self_us, total_us);
    cumulative += fraction;
    DataTable::Cell unknown;
    auto known = [&](bool k, double v) { return k ? DataTable::Cell(v) : unknown; };
    double hbm = m->has_breakdown ? m->hbm_bytes : m->bytes_accessed;
    RooflineUse use;
    use.time_ps = static_cast<double>(m->time_ps);
    use.flops = m->flops;
    use.bytes = m->bytes_accessed;
    use.hbm_bytes = hbm;
    use.flops_known = m->flops_known, use.bytes_known = m->bytes_known;
    use.cmem_rd = m->cmem_rd, use.cmem_wr = m->cmem_wr, use.vmem_rd = m->vmem_rd, use.vmem_wr = m->vmem_wr;
    const std::string bound(FindRooflineBottleneck(use, db.peaks).resource);
    std::string hlo_op_name = m->name;
    t.AddRow({static_cast<double>(++rank), std::to_string(m->program_id), m->category, hlo_op_name,
              m->expression.empty() ? m->name : m->expression, m->provenance, static_cast<double>(m->occurrences),
              time_us, SafeDivide(time_us, m->occurrences), self_us, SafeDivide(self_us, m->occurrences),
              // No profile tbprof reads records an op's DMA stall time: unknown, not 0
              // (the roofline table says the same).
              fraction * 100.0, cumulative * 100.0, unknown,
              known(m->flops_known, SafeDivide(m->model_flops, time_ns)),
              known(m->flops_known, SafeDivide(m->flops, time_ns)),
              known(m->bytes_known, GigaToGibi(SafeDivide(m->bytes_accessed, time_ns))),
              known(m->bytes_known, GigaToGibi(SafeDivide(hbm, time_ns))),
              tpu ? DataTable::Cell(GigaToGibi(SafeDivide(m->cmem_rd, time_ns))) : unknown,
              tpu ? DataTable::Cell(GigaToGibi(SafeDivide(m->cmem_wr, time_ns))) : unknown,
              known(m->flops_known && m->bytes_known, SafeDivide(m->flops, m->bytes_accessed)), bound,
              IsRematerialization(m->expression, m->provenance) ? "Yes" : "No",
              IsOutsideCompilation(m->provenance, m->expression) ? "Yes" : "No", "No", m->source_info,
              m->source_stack});
  }
  return t;
}

}  // namespace

std::string HloStatsToJson(const HloOpDb& db) { return BuildHloStatsTable(db).ToJson(); }
std::string HloStatsToCsv(const HloOpDb& db) { return BuildHloStatsTable(db).ToCsv(); }

}  // namespace tbprof
