#include "convert/analysis/kernels/xspace_to_kernel_stats.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "convert/base/cancellation.h"
#include "convert/analysis/op_names/tf_op_utils.h"
#include "convert/analysis/kernels/kernel_launch_params.h"
#include "convert/base/json.h"
#include "convert/grouping/group_events.h"
#include "convert/model/kineto_names.h"
#include "convert/model/schema.h"

namespace tbprof {

using tensorflow::profiler::KernelReport;
using tensorflow::profiler::KernelStatsDb;

namespace {


// Step 2: the framework op of an XLA kernel, as an index into names() (0 for
// a kernel of no XLA op): its HLO instruction's op_name metadata where the
// profile holds the module (as xprof names it), else the annotation's `name`
// stat, which JAX fills with that op_name. Each (program id, hlo_op,
// hlo_module, name) is looked up once.
class XlaKernelOpNames {
 public:
  XlaKernelOpNames(const XSpaceModel& space, const schema::StatIds& ids, const HloPrograms& programs)
      : space_(space), ids_(ids), programs_(programs) {}

  uint32_t IndexOf(const XPlaneModel& p, uint32_t e) {
    StrId hlo_op = schema::StatIds::StrOf(p, e, ids_.hlo_op);
    if (hlo_op == kNoStr) return 0;
    const std::optional<int64_t> program = ids_.ProgramId(p, e);
    StrId module = schema::StatIds::StrOf(p, e, ids_.hlo_module), annotation = schema::StatIds::StrOf(p, e, ids_.name);
    auto [it, fresh] = index_.try_emplace(std::make_tuple(program, hlo_op, module, annotation),
                                          static_cast<uint32_t>(names_.size()));
    if (!fresh) return it->second;
    std::string name(annotation == kNoStr ? std::string_view() : space_.Str(annotation));
    if (const HloProgram* hlo = FindProgramOf(programs_, program, space_.Str(module))) {
      const HloInstruction* inst = hlo->FindInstruction(HloOpInstructionName(space_.Str(hlo_op)));
      if (inst != nullptr && !inst->metadata().op_name().empty()) name = inst->metadata().op_name();
    }
    names_.push_back(std::move(name));
    return it->second;
  }
  const std::string& Name(uint32_t index) const { return names_[index]; }

 private:
  const XSpaceModel& space_;
  const schema::StatIds& ids_;
  const HloPrograms& programs_;
  std::map<std::tuple<std::optional<int64_t>, StrId, StrId, StrId>, uint32_t> index_;
  std::vector<std::string> names_{std::string()};  // [0]: no name
};

// Step 3: which op a kernel runs and whether it may and does use TensorCores.
struct KernelOp {
  std::string name;
  bool uses_tensor_core = false, eligible = false;
};

// `framework_op`: the kernel's framework op name (empty: none); `equation`
// its einsum equation; `xla_op`: its XLA op's framework op (empty: none),
// which names the op when there is one.
KernelOp ClassifyKernelOp(const std::string& kernel_name, const std::string* framework_op, std::string_view equation,
                          const std::string& xla_op) {
  KernelOp op;
  op.uses_tensor_core = IsKernelUsingTensorCore(kernel_name);
  if (framework_op != nullptr) {
    op.name = *framework_op;
    op.eligible = IsEinsumTensorCoreEligible(equation) || IsOpTensorCoreEligible(op.name);
  }
  if (!xla_op.empty()) {
    op.name = xla_op;
    op.eligible |= IsOpTensorCoreEligible(op.name);
  }
  // A kernel that uses TensorCores proves its op eligible, whatever its name.
  if (op.uses_tensor_core && !op.name.empty()) op.eligible = true;
  return op;
}

// A kernel report as its first launch makes it.
KernelReport NewKernelReport(const std::string& name, const KernelOp& op, const KernelLaunchParams& lp,
                             uint64_t dur_ns) {
  KernelReport r;
  r.set_name(name);
  if (lp.regs) r.set_registers_per_thread(*lp.regs);
  if (lp.static_shmem) r.set_static_shmem_bytes(*lp.static_shmem);
  if (lp.dynamic_shmem) r.set_dynamic_shmem_bytes(*lp.dynamic_shmem);
  for (int i = 0; i < 3; ++i) r.add_block_dim(lp.block[i]);
  for (int i = 0; i < 3; ++i) r.add_grid_dim(lp.grid[i]);
  r.set_is_kernel_using_tensor_core(op.uses_tensor_core);
  r.set_is_op_tensor_core_eligible(op.eligible);
  r.set_op_name(op.name);
  if (lp.occupancy) r.set_occupancy_pct(static_cast<float>(*lp.occupancy));
  r.set_min_duration_ns(dur_ns);
  r.set_max_duration_ns(dur_ns);
  return r;
}

// Step 4: one more launch of a report's kernel.
void AddLaunch(uint64_t dur_ns, KernelReport& r) {
  r.set_total_duration_ns(r.total_duration_ns() + dur_ns);
  r.set_min_duration_ns(std::min<uint64_t>(r.min_duration_ns(), dur_ns));
  r.set_max_duration_ns(std::max<uint64_t>(r.max_duration_ns(), dur_ns));
  r.set_occurrences(r.occurrences() + 1);
}

}  // namespace

// Walks the kernels of each plane (step 1: their launch, kernel_launch_params.h;
// 2: their XLA op's name; 3: their op; 4: their launches added up) into one
// report per distinct kernel; events that share their stats share a report,
// found once per plane.
struct KernelStatsCollector::Impl {
  Impl(const XSpaceModel& space, const HloPrograms& programs)
      : space_(space),
        ids_(space),
        xla_op_names_(space, ids_, programs),
        zero_length_calls_(schema::IsKinetoTrace(space)) {}

  void AddPlane(const XPlaneModel& p) {
    CancellationPoll cancel;
    for (const LineModel& line : p.lines) {
      if (schema::IsDerivedThreadId(line.id)) continue;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        if (cancel.Due()) return;  // the caller discards what was built
        const Event& ev = p.events[e];
        uint64_t dur_ns = static_cast<uint64_t>(ev.duration_ps / 1000);
        // xprof leaves zero-length kernels out; a PyTorch trace's are kernels
        // that ran for less than its time unit (whole µs up to PyTorch 1.9).
        if (ev.duration_ps == 0 && !zero_length_calls_) continue;
        StrId details = schema::StatIds::StrOf(p, e, ids_.kernel_details);
        if (details == kNoStr || space_.Str(details).empty()) continue;
        StrId tf_op = ids_.FrameworkOp(p, e), equation = schema::StatIds::StrOf(p, e, ids_.equation);
        uint32_t xla_name = xla_op_names_.IndexOf(p, e);
        std::array<uint32_t, 5> event_key = {details, p.events[e].metadata, tf_op, equation, xla_name};
        auto [cached, fresh] = kernel_by_event_key_[&p].try_emplace(event_key, nullptr);
        if (fresh) cached->second = &ReportFor(p, e, details, tf_op, equation, xla_name, dur_ns);
        AddLaunch(dur_ns, *cached->second);
      }
    }
  }

  KernelReport& ReportFor(const XPlaneModel& p, uint32_t e, StrId details, StrId tf_op, StrId equation,
                          uint32_t xla_name, uint64_t dur_ns) {
    const KernelLaunchParams lp = ParseKernelDetails(space_.Str(details));
    const std::string name(space_.Str(p.EventName(e)));
    const KernelOp op = ClassifyKernelOp(name, tf_op != kNoStr ? &ParsedTfOp(tf_op).name : nullptr,
                                         space_.Str(equation), xla_op_names_.Name(xla_name));
    KernelKey key{op.uses_tensor_core, op.eligible, lp.block[0], lp.block[1], lp.block[2], lp.grid[0], lp.grid[1],
                  lp.grid[2], lp.regs.value_or(0), lp.static_shmem.value_or(0), lp.dynamic_shmem.value_or(0), name,
                  op.name};
    auto [it, inserted] = kernels_.try_emplace(key);
    if (inserted) it->second = NewKernelReport(name, op, lp, dur_ns);
    return it->second;
  }

  const TfOp& ParsedTfOp(StrId s) {
    auto [it, fresh] = tf_ops_.try_emplace(s);
    if (fresh) it->second = ParseTfOpFullname(space_.Str(s));
    return it->second;
  }

  void FinishKernelStats(KernelStatsDb& db) {
    std::vector<KernelReport*> all;
    for (auto& [k, r] : kernels_) all.push_back(&r);
    SortKernelReports(all);
    for (const KernelReport* r : all) *db.add_reports() = *r;
  }

  using KernelKey = std::tuple<bool, bool, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                               uint32_t, uint32_t, std::string, std::string>;
  struct ArrayHash {
    size_t operator()(const std::array<uint32_t, 5>& a) const {
      uint64_t h = 1469598103934665603ull;
      for (uint32_t v : a) h = (h ^ v) * 1099511628211ull;
      return static_cast<size_t>(h);
    }
  };

  const XSpaceModel& space_;
  schema::StatIds ids_;
  XlaKernelOpNames xla_op_names_;
  const bool zero_length_calls_;  // zero-length kernels ran (PyTorch traces)
  std::map<KernelKey, KernelReport> kernels_;
  std::unordered_map<const XPlaneModel*, std::unordered_map<std::array<uint32_t, 5>, KernelReport*, ArrayHash>>
      kernel_by_event_key_;
  std::unordered_map<StrId, TfOp> tf_ops_;
};

KernelStatsCollector::KernelStatsCollector(const XSpaceModel& space, const HloPrograms& programs)
    : impl_(std::make_unique<Impl>(space, programs)) {}
KernelStatsCollector::~KernelStatsCollector() = default;
void KernelStatsCollector::AddPlane(const XPlaneModel& gpu_plane) { impl_->AddPlane(gpu_plane); }
KernelStatsDb KernelStatsCollector::Finish() {
  KernelStatsDb db;
  impl_->FinishKernelStats(db);
  return db;
}

void SortKernelReports(std::vector<KernelReport*>& all) {
  auto tuple_of = [](const KernelReport* r) {
    return std::make_tuple(std::string_view(r->name()), r->grid_dim(0), r->grid_dim(1), r->grid_dim(2),
                           r->block_dim(0), r->block_dim(1), r->block_dim(2), r->registers_per_thread(),
                           r->static_shmem_bytes(), r->dynamic_shmem_bytes(), r->is_kernel_using_tensor_core(),
                           r->is_op_tensor_core_eligible(), std::string_view(r->op_name()));
  };
  std::sort(all.begin(), all.end(), [&](const KernelReport* a, const KernelReport* b) {
    if (a->total_duration_ns() != b->total_duration_ns()) return a->total_duration_ns() > b->total_duration_ns();
    return tuple_of(a) < tuple_of(b);
  });
}

std::map<std::string, OpKernelSummary> GroupKernelReportsByOpName(const KernelStatsDb& db,
                                                                  const std::set<std::string>* only_ops) {
  std::map<std::string, OpKernelSummary> out;
  for (const KernelReport& r : db.reports()) {
    if (only_ops && !only_ops->contains(r.op_name())) continue;
    OpKernelSummary& s = out[r.op_name()];
    // One eligible kernel makes its op eligible, whichever report comes first.
    s.is_op_tensor_core_eligible |= r.is_op_tensor_core_eligible();
    s.total_duration_ns += r.total_duration_ns();
    if (r.is_kernel_using_tensor_core()) s.tensor_core_duration_ns += r.total_duration_ns();
  }
  return out;
}

namespace {
std::string Dims(const google::protobuf::RepeatedField<uint32_t>& d) {
  std::string s;
  for (int i = 0; i < d.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(d[i]);
  }
  return s;
}
}  // namespace

DataTable KernelStatsToDataTable(const KernelStatsDb& db, size_t max_rows, bool complete) {
  DataTable t;
  t.AddColumns({{"rank", "Rank", "number"}, {"kernel_name", "Kernel Name", "string"},
                {"registers_per_thread", "Registers per thread", "number"},
                {"shmem_bytes", "Shared Mem bytes", "number"}, {"block_dim", "Block dim", "string"},
                {"grid_dim", "Grid dim", "string"}, {"occupancy_pct", "Theoretical Occupancy %", "number"},
                {"is_op_tensor_core_eligible", "Op is TensorCore eligible", "boolean"},
                {"is_kernel_using_tensor_core", "Kernel uses TensorCore", "boolean"},
                {"op_name", "Op Name", "string"}, {"occurrences", "Occurrences", "number"},
                {"total_duration_us", "Total Duration (μs)", "number"},
                {"avg_duration_us", "Avg Duration (μs)", "number"},
                {"min_duration_us", "Min Duration (μs)", "number"},
                {"max_duration_us", "Max Duration (μs)", "number"}});
  int rank = 0;
  // A launch figure the profile does not hold is an empty cell, not 0.
  DataTable::Cell unknown;
  auto known = [&](bool k, double v) { return k ? DataTable::Cell(v) : unknown; };
  uint64_t hidden_ns = 0, hidden_occurrences = 0;
  for (const KernelReport& r : db.reports()) {
    if (static_cast<size_t>(rank) == max_rows) {
      hidden_ns += r.total_duration_ns();
      hidden_occurrences += r.occurrences();
      continue;
    }
    uint64_t avg_ns = r.occurrences() ? r.total_duration_ns() / r.occurrences() : 0;
    t.AddRow({static_cast<double>(++rank), r.name(),
              known(r.has_registers_per_thread(), static_cast<double>(r.registers_per_thread())),
              known(r.has_static_shmem_bytes() || r.has_dynamic_shmem_bytes(),
                    static_cast<double>(r.static_shmem_bytes()) + static_cast<double>(r.dynamic_shmem_bytes())),
              Dims(r.block_dim()), Dims(r.grid_dim()),
              known(r.has_occupancy_pct(), static_cast<double>(r.occupancy_pct())),
              r.is_op_tensor_core_eligible(), r.is_kernel_using_tensor_core(), r.op_name(),
              static_cast<double>(r.occurrences()), static_cast<double>(r.total_duration_ns()) / 1000.0,
              static_cast<double>(avg_ns) / 1000.0, static_cast<double>(r.min_duration_ns()) / 1000.0,
              static_cast<double>(r.max_duration_ns()) / 1000.0});
  }
  if (complete) {
    t.SetProperty("hidden_kernels", std::to_string(db.reports_size() - rank));
    t.SetProperty("hidden_occurrences", std::to_string(hidden_occurrences));
    std::string us;
    AppendJsonDouble(us, static_cast<double>(hidden_ns) / 1000.0);
    t.SetProperty("hidden_total_duration_us", us);
  }
  return t;
}

std::string KernelStatsToJson(const KernelStatsDb& db, bool complete) {
  return KernelStatsToDataTable(db, kKernelTableRows, complete).ToJson();
}
std::string KernelStatsToCsv(const KernelStatsDb& db) { return KernelStatsToDataTable(db, SIZE_MAX).ToCsv(); }

}  // namespace tbprof
