#include "convert/analysis/op_stats/framework_op_metrics.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "convert/analysis/op_names/tf_op_utils.h"

namespace tbprof {

std::vector<const OpMetrics*> SortedOps(const OpMetricsDb& db, size_t limit) {
  std::vector<const OpMetrics*> v;
  v.reserve(db.ops.size());
  for (const auto& [name, m] : db.ops) v.push_back(&m);
  auto less = [](const OpMetrics* a, const OpMetrics* b) {
    return a->self_time_ps != b->self_time_ps ? a->self_time_ps > b->self_time_ps : a->name < b->name;
  };
  if (v.size() > limit) {
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(limit), v.end(), less);
    v.resize(limit);
  } else {
    std::sort(v.begin(), v.end(), less);
  }
  return v;
}

void CountOperatorCalls(const OpMetricsDb& host_db, OpMetricsDb& device_tf_db) {
  for (auto& [name, m] : device_tf_db.ops) {
    auto host = host_db.ops.find(name);
    if (host != host_db.ops.end() && !IsIdle(m)) m.occurrences = host->second.occurrences;
  }
}

OpMetricsDb DeviceTfOpMetricsDb(const OpMetricsDb& device_db, bool with_idle) {
  OpMetricsDb out;
  // A framework op runs as several HLO ops of one program: its count is
  // theirs, the largest (xprof's rule). The same framework op in several
  // programs (one jit function compiled for several shapes) ran in each:
  // their counts add up, where xprof's largest-of-all would count 1 for a
  // function called once per shape.
  std::map<std::pair<std::string, int64_t>, uint64_t> per_program;
  for (const auto& [name, m] : device_db.ops) {
    std::string tf_name, tf_type;
    if (IsIdle(m)) {
      if (!with_idle) continue;
      tf_name = "IDLE";
      tf_type = "IDLE";
    } else if (m.provenance.empty()) {
      tf_name = m.name;
      tf_type = "Unknown";
    } else {
      TfOp op = ParseTfOpFullname(m.provenance);
      tf_name = op.name;
      tf_type = op.type;
      // JAX op names carry no ":type"; their type is the last scope component.
      if (op.category == TfOpCategory::kUnknown) {
        std::string derived = DeriveOpType(m.provenance);
        tf_type = derived.substr(0, derived.find('['));
      }
    }
    OpMetrics& d = out.ops[tf_name];
    if (d.name.empty()) {
      d.name = tf_name;
      d.category = tf_type;
    }
    d.is_eager = m.is_eager;
    uint64_t& program_occurrences = per_program[{tf_name, m.hlo_module_id}];
    program_occurrences = std::max(program_occurrences, m.occurrences);
    d.time_ps += m.time_ps;
    d.self_time_ps += m.self_time_ps;
    d.flops += m.flops;
    d.bytes_accessed += m.bytes_accessed;
    d.flops_unknown |= m.flops_unknown;
  }
  for (const auto& [op_and_program, occurrences] : per_program) out.ops[op_and_program.first].occurrences += occurrences;
  out.total_op_time_ps = device_db.total_op_time_ps;
  out.total_time_ps = with_idle ? device_db.total_time_ps : device_db.total_op_time_ps;
  return out;
}

}  // namespace tbprof
