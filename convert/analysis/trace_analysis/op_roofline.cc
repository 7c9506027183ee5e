#include "convert/analysis/trace_analysis/op_roofline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "convert/analysis/trace_analysis/host_category.h"
#include "convert/analysis/trace_analysis/op_shape_cost.h"
#include "convert/base/json.h"
#include "convert/model/event_nesting.h"
#include "convert/model/kineto_names.h"
#include "convert/model/schema.h"

namespace tbprof::trace_analysis {
namespace {

// GPU time of the device op each launch's correlation id started, as the
// room's kernel reading links them.
std::unordered_map<int64_t, int64_t> DevicePsByCorrelation(const RankKernels& rank) {
  std::unordered_map<int64_t, int64_t> out;
  for (const Launch& l : rank.launches) {
    const GpuKernel& k = rank.streams[l.stream].kernels[l.kernel];
    out[l.correlation] += k.end_ps - k.begin_ps;
  }
  return out;
}

// An arg's JSON text without the whitespace outside its strings: pretty-printed
// traces and compact ones give the same row.
std::string CompactJson(std::string_view text) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < text.size()) {
        out.push_back(text[++i]);
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
      out.push_back(c);
    } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
      out.push_back(c);
    }
  }
  return out;
}

StrId StrStat(const XPlaneModel& plane, uint32_t e, StrId name) {
  const Stat* s = plane.FindStat(e, name);
  return s != nullptr && s->kind == StatKind::kStr ? s->str : kNoStr;
}

// Per host op event, the GPU time of the kernels it launched (by the rule in the header).
std::unordered_map<uint32_t, int64_t> KernelPsByOp(const XSpaceModel& space, const XPlaneModel& host,
                                                   const std::unordered_map<int64_t, int64_t>& device_ps) {
  std::unordered_map<uint32_t, int64_t> by_op;
  const StrId category = space.Find(schema::kKinetoCategory);
  const StrId correlation = space.Find(schema::kCorrelationId);
  std::vector<char> is_op(host.event_metadata.size(), 0), has_formula(host.event_metadata.size(), 0);
  for (uint32_t m = 0; m < host.event_metadata.size(); ++m) {
    auto [b, end] = host.MetadataStatsOf(m);
    for (const Stat* s = b; s != end; ++s) {
      if (s->name == category && s->kind == StatKind::kStr &&
          HostCategoryOf(space.Str(s->str)) == HostCategory::kOperator) {
        is_op[m] = 1;
      }
    }
    has_formula[m] = is_op[m] && HasCostFormula(space.Str(host.event_metadata[m].name));
  }
  std::vector<uint32_t> open;  // enclosing cpu_ops, outermost first
  for (const LineModel& line : host.lines) {
    open.clear();
    for (uint32_t e : SortedLineEvents(host, line)) {
      const Event& ev = host.events[e];
      while (!open.empty() && host.events[open.back()].end_ps() < ev.end_ps()) open.pop_back();
      if (is_op[ev.metadata]) {
        open.push_back(e);
        continue;
      }
      const Stat* c = correlation == kNoStr ? nullptr : host.FindStat(e, correlation);
      if (c == nullptr || open.empty()) continue;
      auto d = device_ps.find(c->IntValue());
      if (d == device_ps.end()) continue;
      uint32_t owner = open.back();
      for (auto it = open.rbegin(); it != open.rend(); ++it) {
        if (has_formula[host.events[*it].metadata]) {
          owner = *it;
          break;
        }
      }
      by_op[owner] += d->second;
    }
  }
  return by_op;
}

}  // namespace

OpRoofline ComputeOpRoofline(const XSpaceModel& space, const RankKernels& rank) {
  OpRoofline out;
  out.peaks = DevicePeaksOf(space);
  out.pytorch = schema::IsKinetoTrace(space);
  const XPlaneModel* host = space.FindPlane(schema::kHostPlane);
  if (!out.pytorch || host == nullptr) return out;
  const std::unordered_map<uint32_t, int64_t> by_op =
      KernelPsByOp(space, *host, DevicePsByCorrelation(rank));
  const StrId dims = space.Find("Input Dims"), types = space.Find(schema::kKinetoInputType),
              concrete = space.Find("Concrete Inputs"), flops_stat = space.Find(schema::kFlops);
  // Calls alike in name, shapes, dtypes and concrete values share a row and a cost.
  using Key = std::tuple<StrId, StrId, StrId, StrId>;
  std::map<Key, size_t> row_of;
  std::vector<OpCost> cost_of_row;
  std::vector<std::pair<uint32_t, int64_t>> ops(by_op.begin(), by_op.end());
  std::sort(ops.begin(), ops.end());
  for (const auto& [e, kernel_ps] : ops) {
    const Key key{host->EventName(e), StrStat(*host, e, dims), StrStat(*host, e, types), StrStat(*host, e, concrete)};
    auto [it, added] = row_of.try_emplace(key, out.rows.size());
    if (added) {
      OpRooflineRow row;
      row.op = std::string(space.Str(std::get<0>(key)));
      if (std::get<1>(key) != kNoStr) row.input_dims = CompactJson(space.Str(std::get<1>(key)));
      if (std::get<2>(key) != kNoStr) row.input_types = CompactJson(space.Str(std::get<2>(key)));
      row.flops = row.bytes = 0.0;
      cost_of_row.push_back(OpCostOf(row.op, ParseOpArgs(row.input_dims, row.input_types),
                                     ParseConcreteInputs(space.Str(std::get<3>(key)))));
      out.rows.push_back(std::move(row));
    }
    OpRooflineRow& row = out.rows[it->second];
    const OpCost& cost = cost_of_row[it->second];
    ++row.count;
    row.kernel_ps += kernel_ps;
    std::optional<double> call_flops = cost.flops;
    if (const Stat* f = host->FindStat(e, flops_stat); f != nullptr && f->kind != StatKind::kStr) {
      call_flops = f->DoubleValue();  // the profiler's own count wins over the formula
    }
    row.flops = row.flops && call_flops ? std::optional<double>(*row.flops + *call_flops) : std::nullopt;
    row.bytes = row.bytes && cost.bytes ? std::optional<double>(*row.bytes + *cost.bytes) : std::nullopt;
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const OpRooflineRow& a, const OpRooflineRow& b) { return a.kernel_ps > b.kernel_ps; });
  return out;
}

namespace {

void AppendOptional(std::string& out, std::string_view key, std::optional<double> v) {
  out.append(",\"").append(key).append("\":");
  if (v && std::isfinite(*v)) {
    AppendJsonDouble(out, *v);
  } else {
    out.append("null");
  }
}

void AppendRow(int rank, const OpRooflineRow& row, const DevicePeaks& peaks, std::string& out) {
  out.append("{\"rank\":").append(std::to_string(rank));
  AppendJsonStringMember(out, ",\"op\":", row.op);
  AppendJsonStringMember(out, ",\"input_dims\":", row.input_dims);
  AppendJsonStringMember(out, ",\"input_types\":", row.input_types);
  out.append(",\"count\":").append(std::to_string(row.count)).append(",\"time_us\":");
  AppendJsonDouble(out, static_cast<double>(row.kernel_ps) / 1e6);
  AppendOptional(out, "flops", row.flops);
  AppendOptional(out, "bytes", row.bytes);
  std::optional<double> tflops, intensity;
  if (row.flops && row.kernel_ps > 0) tflops = *row.flops / (static_cast<double>(row.kernel_ps) * 1e-12) / 1e12;
  if (row.flops && row.bytes && *row.bytes > 0) intensity = *row.flops / *row.bytes;
  AppendOptional(out, "tflops_per_s", tflops);
  AppendOptional(out, "arithmetic_intensity", intensity);
  out.append(",\"bound\":");
  if (intensity && peaks.peak_tflops > 0 && peaks.hbm_gbps > 0) {
    // The ridge point: the intensity at which the memory roof meets the compute roof.
    const double ridge = peaks.peak_tflops * 1e12 / (peaks.hbm_gbps * 1e9);
    out.append(*intensity >= ridge ? "\"compute\"" : "\"memory\"");
  } else {
    out.append("null");
  }
  out.push_back('}');
}

}  // namespace

void AppendOpRooflineJson(const std::vector<std::pair<int, const OpRoofline*>>& ranks, std::string& out) {
  const DevicePeaks peaks = ranks.empty() ? DevicePeaks{} : ranks[0].second->peaks;
  out.append("\"op_roofline\":{\"peaks\":{\"device\":");
  AppendJsonString(out, peaks.device_type);
  AppendOptional(out, "tflops", peaks.peak_tflops > 0 ? std::optional<double>(peaks.peak_tflops) : std::nullopt);
  AppendOptional(out, "memory_gbps", peaks.hbm_gbps > 0 ? std::optional<double>(peaks.hbm_gbps) : std::nullopt);
  out.append("}");
  const bool any_pytorch = std::any_of(ranks.begin(), ranks.end(), [](const auto& r) { return r.second->pytorch; });
  out.append(",\"reason\":");
  if (any_pytorch) {
    out.append("null");
  } else {
    AppendJsonString(out, "op_roofline reads the shapes a PyTorch profiler records with its operators; "
                          "this profile is not a PyTorch trace");
  }
  out.append(",\"rows\":[");
  bool first = true;
  for (const auto& [rank, roofline] : ranks) {
    for (const OpRooflineRow& row : roofline->rows) {
      if (!first) out.push_back(',');
      first = false;
      AppendRow(rank, row, roofline->peaks, out);
    }
  }
  out.append("]}");
}

}  // namespace tbprof::trace_analysis
