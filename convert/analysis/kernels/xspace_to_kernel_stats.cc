#include "convert/analysis/kernels/xspace_to_kernel_stats.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "convert/analysis/common/tf_op_utils.h"
#include "convert/grouping/group_events.h"
#include "convert/model/schema.h"

namespace tbprof {

using tensorflow::profiler::KernelReport;
using tensorflow::profiler::KernelStatsDb;

namespace {

constexpr size_t kMaxNumOfKernels = 1000;

}  // namespace

struct KernelStatsCollector::Impl {
  Impl(const XSpaceModel& space, const HloPrograms& programs) : space_(space), ids_(space), programs_(programs) {}

  StrId StrIdStat(const XPlaneModel& p, uint32_t e, StrId id) const { return schema::StatIds::StrOf(p, e, id); }
  const TfOp& ParsedTfOp(StrId s) {
    auto [it, fresh] = tf_ops_.try_emplace(s);
    if (fresh) it->second = ParseTfOpFullname(space_.Str(s));
    return it->second;
  }

  // A figure the details do not give is unknown (nullopt), not 0.
  struct LaunchParams {
    std::optional<uint32_t> regs, static_shmem, dynamic_shmem;
    uint32_t block[3] = {1, 1, 1}, grid[3] = {1, 1, 1};
    std::optional<double> occupancy;
  };

  static std::optional<uint32_t> ParseCount(const std::string& v) {
    char* end = nullptr;
    unsigned long x = std::strtoul(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || v[0] == '-' || x > UINT32_MAX) return std::nullopt;
    return static_cast<uint32_t>(x);
  }

  static bool ParseDims(std::string_view v, uint32_t out[3]) {
    uint32_t tmp[3];
    int n = 0;
    size_t pos = 0;
    while (n < 3) {
      size_t comma = v.find(',', pos);
      std::string part(v.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
      char* end = nullptr;
      unsigned long x = std::strtoul(part.c_str(), &end, 10);
      if (part.empty() || *end != '\0') return false;
      tmp[n++] = static_cast<uint32_t>(x);
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
    if (n != 3) return false;
    std::copy(tmp, tmp + 3, out);
    return true;
  }

  // CUDA's tracer writes "regs:R static_shared:S dynamic_shared:D grid:x,y,z
  // block:x,y,z occ_pct:P"; ROCm's "grid:… block:… private_mem:P group_mem:G
  // occ_pct:0". The group segment is the workgroup's LDS, AMD's shared memory
  // (xprof reads no group_mem, and so shows every AMD kernel with 0 bytes). A
  // kernel that ran had a theoretical occupancy above 0: ROCm's 0 means it
  // was not computed.
  static LaunchParams ParseKernelDetails(std::string_view details) {
    LaunchParams lp;
    size_t pos = 0;
    while (pos <= details.size()) {
      size_t end = details.find_first_of(" \n", pos);
      std::string_view token = details.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
      pos = end == std::string_view::npos ? details.size() + 1 : end + 1;
      size_t colon = token.find(':');
      if (colon == std::string_view::npos || token.find(':', colon + 1) != std::string_view::npos) continue;
      std::string_view key = token.substr(0, colon);
      std::string value(token.substr(colon + 1));
      if (key == "regs") lp.regs = ParseCount(value);
      if (key == "static_shared" || key == "group_mem") lp.static_shmem = ParseCount(value);
      if (key == "dynamic_shared") lp.dynamic_shmem = ParseCount(value);
      if (key == "block") ParseDims(value, lp.block);
      if (key == "grid") ParseDims(value, lp.grid);
      if (key == "occ_pct") {
        char* end = nullptr;
        double pct = std::strtod(value.c_str(), &end);
        if (!value.empty() && *end == '\0' && pct > 0 && pct <= 100) lp.occupancy = pct;
      }
    }
    return lp;
  }

  using KernelKey = std::tuple<bool, bool, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                               uint32_t, uint32_t, std::string, std::string>;

  void AddPlane(const XPlaneModel& p) {
    for (const LineModel& line : p.lines) {
      if (schema::IsDerivedThreadId(line.id)) continue;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        const Event& ev = p.events[e];
        uint64_t dur_ns = static_cast<uint64_t>(ev.duration_ps / 1000);
        if (ev.duration_ps == 0) continue;
        StrId details = StrIdStat(p, e, ids_.kernel_details);
        if (details == kNoStr || space_.Str(details).empty()) continue;
        StrId tf_op = ids_.FrameworkOp(p, e), equation = StrIdStat(p, e, ids_.equation);
        uint32_t xla_name = XlaOpName(p, e);
        std::array<uint32_t, 5> event_key = {details, p.events[e].metadata, tf_op, equation, xla_name};
        auto [cached, fresh] = kernel_by_event_key_[&p].try_emplace(event_key, nullptr);
        if (fresh) cached->second = &KernelReportFor(p, e, details, tf_op, equation, xla_name, dur_ns);
        KernelReport& r = *cached->second;
        r.set_total_duration_ns(r.total_duration_ns() + dur_ns);
        r.set_min_duration_ns(std::min<uint64_t>(r.min_duration_ns(), dur_ns));
        r.set_max_duration_ns(std::max<uint64_t>(r.max_duration_ns(), dur_ns));
        r.set_occurrences(r.occurrences() + 1);
      }
    }
  }

  // The framework op of an XLA kernel, as an index into xla_op_names_ (0 for
  // a kernel of no XLA op): its HLO instruction's op_name metadata where the
  // profile holds the module (as xprof names it), else the annotation's
  // `name` stat, which JAX fills with that op_name.
  uint32_t XlaOpName(const XPlaneModel& p, uint32_t e) {
    StrId hlo_op = StrIdStat(p, e, ids_.hlo_op);
    if (hlo_op == kNoStr) return 0;
    const std::optional<int64_t> program = ids_.ProgramId(p, e);
    StrId module = StrIdStat(p, e, ids_.hlo_module), annotation = StrIdStat(p, e, ids_.name);
    auto [it, fresh] = xla_op_index_.try_emplace(std::make_tuple(program, hlo_op, module, annotation),
                                                 static_cast<uint32_t>(xla_op_names_.size()));
    if (!fresh) return it->second;
    std::string name(annotation == kNoStr ? std::string_view() : space_.Str(annotation));
    if (const HloProgram* hlo = FindProgramOf(programs_, program, space_.Str(module))) {
      const HloInstruction* inst = hlo->FindInstruction(HloOpInstructionName(space_.Str(hlo_op)));
      if (inst != nullptr && !inst->metadata().op_name().empty()) name = inst->metadata().op_name();
    }
    xla_op_names_.push_back(std::move(name));
    return it->second;
  }

  KernelReport& KernelReportFor(const XPlaneModel& p, uint32_t e, StrId details, StrId tf_op, StrId equation,
                                uint32_t xla_name, uint64_t dur_ns) {
    LaunchParams lp = ParseKernelDetails(space_.Str(details));
    std::string name(space_.Str(p.EventName(e)));
    bool uses_tc = IsKernelUsingTensorCore(name);
    bool eligible = false;
    std::string op_name;
    if (tf_op != kNoStr) {
      op_name = ParsedTfOp(tf_op).name;
      eligible = IsEinsumTensorCoreEligible(space_.Str(equation)) || IsOpTensorCoreEligible(op_name);
    }
    if (xla_name != 0 && !xla_op_names_[xla_name].empty()) {
      op_name = xla_op_names_[xla_name];
      eligible |= IsOpTensorCoreEligible(op_name);
    }
    // A kernel that uses TensorCores proves its op eligible, whatever its name.
    if (uses_tc && !op_name.empty()) eligible = true;
    KernelKey key{uses_tc, eligible, lp.block[0], lp.block[1], lp.block[2], lp.grid[0], lp.grid[1], lp.grid[2],
                  lp.regs.value_or(0), lp.static_shmem.value_or(0), lp.dynamic_shmem.value_or(0), name, op_name};
    auto [it, inserted] = kernels_.try_emplace(key);
    KernelReport& r = it->second;
    if (inserted) {
      r.set_name(name);
      if (lp.regs) r.set_registers_per_thread(*lp.regs);
      if (lp.static_shmem) r.set_static_shmem_bytes(*lp.static_shmem);
      if (lp.dynamic_shmem) r.set_dynamic_shmem_bytes(*lp.dynamic_shmem);
      for (int i = 0; i < 3; ++i) r.add_block_dim(lp.block[i]);
      for (int i = 0; i < 3; ++i) r.add_grid_dim(lp.grid[i]);
      r.set_is_kernel_using_tensor_core(uses_tc);
      r.set_is_op_tensor_core_eligible(eligible);
      r.set_op_name(op_name);
      if (lp.occupancy) r.set_occupancy_pct(static_cast<float>(*lp.occupancy));
      r.set_min_duration_ns(dur_ns);
      r.set_max_duration_ns(dur_ns);
    }
    return r;
  }

  void FinishKernelStats(KernelStatsDb& db) {
    std::vector<KernelReport*> all;
    for (auto& [k, r] : kernels_) all.push_back(&r);
    SortKernelReports(all);
    for (size_t i = 0; i < all.size() && i < kMaxNumOfKernels; ++i) *db.add_reports() = *all[i];
  }

  const XSpaceModel& space_;
  schema::StatIds ids_;
  const HloPrograms& programs_;
  // XlaOpName's: by (program id, hlo_op, hlo_module, name); [0] is no name.
  std::map<std::tuple<std::optional<int64_t>, StrId, StrId, StrId>, uint32_t> xla_op_index_;
  std::vector<std::string> xla_op_names_{std::string()};
  std::map<KernelKey, KernelReport> kernels_;
  struct ArrayHash {
    size_t operator()(const std::array<uint32_t, 5>& a) const {
      uint64_t h = 1469598103934665603ull;
      for (uint32_t v : a) h = (h ^ v) * 1099511628211ull;
      return static_cast<size_t>(h);
    }
  };
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

std::map<std::string, OpKernelSummary> GroupKernelReportsByOpName(const KernelStatsDb& db) {
  std::map<std::string, OpKernelSummary> out;
  for (const KernelReport& r : db.reports()) {
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

DataTable KernelStatsToDataTable(const KernelStatsDb& db) {
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
  for (const KernelReport& r : db.reports()) {
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
  return t;
}

std::string KernelStatsToJson(const KernelStatsDb& db) { return KernelStatsToDataTable(db).ToJson(); }
std::string KernelStatsToCsv(const KernelStatsDb& db) { return KernelStatsToDataTable(db).ToCsv(); }

}  // namespace tbprof
