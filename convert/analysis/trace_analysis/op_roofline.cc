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
      const std::vector<OpArgShape> args = ParseOpArgs(row.input_dims, row.input_types);
      row.cost_class = CostClassOf(row.op);
      row.float_type = FloatTypeOfArgs(args);
      cost_of_row.push_back(OpCostOf(row.op, args, ParseConcreteInputs(space.Str(std::get<3>(key)))));
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

std::string_view RoofPrecisionName(RoofPrecision p) {
  switch (p) {
    case RoofPrecision::kFp32: return "fp32";
    case RoofPrecision::kTf32: return "tf32";
    case RoofPrecision::kFp16: return "fp16";
    case RoofPrecision::kBf16: return "bf16";
    case RoofPrecision::kUnknown: break;
  }
  return "";
}

namespace {

// The rule of the header: which of the datasheet's rates an op is held to.
RoofPrecision PrecisionOf(const OpRooflineRow& row, const GpuDatasheet* sheet) {
  switch (row.cost_class) {
    case CostClass::kElementwise:
      return RoofPrecision::kFp32;
    case CostClass::kConvolution:
      if (row.float_type == FloatType::kFp32) {
        return sheet != nullptr && sheet->tf32_tflops > 0 ? RoofPrecision::kTf32 : RoofPrecision::kFp32;
      }
      [[fallthrough]];
    case CostClass::kGemm:
    case CostClass::kAttention:
      switch (row.float_type) {
        case FloatType::kFp32: return RoofPrecision::kFp32;
        case FloatType::kFp16: return RoofPrecision::kFp16;
        case FloatType::kBf16: return RoofPrecision::kBf16;
        case FloatType::kNone: break;
      }
      break;
    case CostClass::kNone:
      break;
  }
  return RoofPrecision::kUnknown;
}

std::optional<double> Known(double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; }

std::optional<double> PeakTflops(const GpuDatasheet* sheet, RoofPrecision p) {
  if (sheet == nullptr) return std::nullopt;
  switch (p) {
    case RoofPrecision::kFp32: return Known(sheet->fp32_tflops);
    case RoofPrecision::kTf32: return Known(sheet->tf32_tflops);
    case RoofPrecision::kFp16: return Known(sheet->fp16_tflops);
    case RoofPrecision::kBf16: return Known(sheet->bf16_tflops);
    case RoofPrecision::kUnknown: break;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> MemoryRoofGbps(const DevicePeaks& peaks) {
  if (peaks.hbm_gbps > 0) return peaks.hbm_gbps;
  return peaks.datasheet != nullptr ? Known(peaks.datasheet->memory_gbps) : std::nullopt;
}

OpRoofs RoofsOf(const OpRooflineRow& row, const DevicePeaks& peaks) {
  OpRoofs r;
  r.precision = PrecisionOf(row, peaks.datasheet);
  if (row.flops && row.kernel_ps > 0) {
    r.achieved_tflops = *row.flops / (static_cast<double>(row.kernel_ps) * 1e-12) / 1e12;
  }
  if (row.flops && row.bytes && *row.bytes > 0) r.arithmetic_intensity = *row.flops / *row.bytes;
  r.compute_roof_tflops = PeakTflops(peaks.datasheet, r.precision);
  const std::optional<double> gbps = MemoryRoofGbps(peaks);
  if (r.arithmetic_intensity && gbps) r.memory_roof_tflops = *r.arithmetic_intensity * *gbps * 1e9 / 1e12;
  if (r.compute_roof_tflops && gbps) r.ridge_intensity = *r.compute_roof_tflops * 1e12 / (*gbps * 1e9);
  if (r.compute_roof_tflops && r.memory_roof_tflops) {
    r.roof_tflops = std::min(*r.compute_roof_tflops, *r.memory_roof_tflops);
    r.bound = *r.arithmetic_intensity >= *r.ridge_intensity ? "compute" : "memory";
    if (r.achieved_tflops) r.roof_pctg = 100.0 * *r.achieved_tflops / *r.roof_tflops;
  }
  return r;
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

void AppendOptionalString(std::string& out, std::string_view key, std::string_view v) {
  out.append(",\"").append(key).append("\":");
  if (v.empty()) {
    out.append("null");
  } else {
    AppendJsonString(out, v);
  }
}

void AppendRow(const RankRoofline& rank, const OpRooflineRow& row, std::string& out) {
  const OpRoofs roofs = RoofsOf(row, rank.roofline->peaks);
  out.append("{\"rank\":").append(std::to_string(rank.rank));
  AppendJsonStringMember(out, ",\"host\":", rank.host);
  AppendJsonStringMember(out, ",\"op\":", row.op);
  AppendJsonStringMember(out, ",\"input_dims\":", row.input_dims);
  AppendJsonStringMember(out, ",\"input_types\":", row.input_types);
  out.append(",\"count\":").append(std::to_string(row.count)).append(",\"time_us\":");
  AppendJsonDouble(out, static_cast<double>(row.kernel_ps) / 1e6);
  AppendOptional(out, "flops", row.flops);
  AppendOptional(out, "bytes", row.bytes);
  AppendOptional(out, "tflops_per_s", roofs.achieved_tflops);
  AppendOptional(out, "arithmetic_intensity", roofs.arithmetic_intensity);
  AppendOptionalString(out, "roof_precision", RoofPrecisionName(roofs.precision));
  AppendOptional(out, "compute_roof_tflops", roofs.compute_roof_tflops);
  AppendOptional(out, "memory_roof_tflops", roofs.memory_roof_tflops);
  AppendOptional(out, "roof_tflops", roofs.roof_tflops);
  AppendOptional(out, "ridge_intensity", roofs.ridge_intensity);
  AppendOptional(out, "roof_pctg", roofs.roof_pctg);
  AppendOptionalString(out, "bound", roofs.bound);
  out.push_back('}');
}

// The device's roofs: each precision's datasheet peak, the memory bandwidth,
// and `tflops`, the highest compute roof (the one a chart draws flat).
void AppendPeaks(const DevicePeaks& peaks, std::string& out) {
  out.append("\"peaks\":{\"device\":");
  AppendJsonString(out, peaks.device_type);
  AppendOptionalString(out, "gpu_name", peaks.gpu_name);
  AppendOptionalString(out, "datasheet", peaks.datasheet != nullptr ? peaks.datasheet->model : std::string_view());
  std::optional<double> best;
  for (RoofPrecision p : {RoofPrecision::kFp32, RoofPrecision::kTf32, RoofPrecision::kFp16, RoofPrecision::kBf16}) {
    const std::optional<double> v = PeakTflops(peaks.datasheet, p);
    if (v && (!best || *v > *best)) best = v;
  }
  AppendOptional(out, "tflops", best);
  AppendOptional(out, "memory_gbps", MemoryRoofGbps(peaks));
  for (RoofPrecision p : {RoofPrecision::kFp32, RoofPrecision::kTf32, RoofPrecision::kFp16, RoofPrecision::kBf16}) {
    AppendOptional(out, std::string(RoofPrecisionName(p)) + "_tflops", PeakTflops(peaks.datasheet, p));
  }
  out.append("}");
}

}  // namespace

void AppendOpRooflineJson(const std::vector<RankRoofline>& ranks, std::string& out) {
  out.append("\"op_roofline\":{");
  AppendPeaks(ranks.empty() ? DevicePeaks{} : ranks[0].roofline->peaks, out);
  const bool any_pytorch = std::any_of(ranks.begin(), ranks.end(), [](const auto& r) { return r.roofline->pytorch; });
  out.append(",\"reason\":");
  if (any_pytorch) {
    out.append("null");
  } else {
    AppendJsonString(out, "op_roofline reads the shapes a PyTorch profiler records with its operators; "
                          "this profile is not a PyTorch trace");
  }
  out.append(",\"rows\":[");
  bool first = true;
  for (const RankRoofline& rank : ranks) {
    for (const OpRooflineRow& row : rank.roofline->rows) {
      if (!first) out.push_back(',');
      first = false;
      AppendRow(rank, row, out);
    }
  }
  out.append("]}");
}

}  // namespace tbprof::trace_analysis
