#include "convert/analysis/trace_analysis/stragglers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "convert/analysis/trace_analysis/step_spans.h"
#include "convert/base/json.h"
#include "convert/model/schema.h"

namespace tbprof::trace_analysis {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<double> MedianOf(const std::vector<StragglerInput>& ranks, std::optional<double> StragglerInput::*field) {
  std::vector<double> v;
  for (const StragglerInput& r : ranks) {
    if (r.*field) v.push_back(*(r.*field));
  }
  if (v.empty()) return std::nullopt;
  return Median(std::move(v));
}

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// What makes a straggler's step long: the figure furthest above the ranks' median.
std::string Reason(const StragglerInput& r, const std::vector<StragglerInput>& ranks, double median) {
  std::string reason = "step time " + Fixed(*r.step_time_us) + " µs is " +
                       Fixed(100.0 * (*r.step_time_us - median) / median) + " % above the median " + Fixed(median) +
                       " µs";
  struct Part {
    const char* name;
    std::optional<double> StragglerInput::*field;
  };
  const Part parts[] = {{"compute", &StragglerInput::compute_us},
                        {"communication", &StragglerInput::communication_us},
                        {"idle", &StragglerInput::idle_us}};
  const char* worst = nullptr;
  double worst_excess = 0;
  for (const Part& p : parts) {
    const std::optional<double> m = MedianOf(ranks, p.field);
    if (!m || !(r.*p.field)) continue;
    const double excess = *(r.*p.field) - *m;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = p.name;
    }
  }
  if (worst != nullptr) reason += std::string("; most of it ") + worst + " time (+" + Fixed(worst_excess) + " µs)";
  return reason;
}

int ScalarTypeBytes(std::string_view t) {
  if (t == "BFloat16" || t == "Half" || t == "Short") return 2;
  if (t == "Float" || t == "Int" || t == "UInt32") return 4;
  if (t == "Double" || t == "Long" || t == "UInt64" || t == "ComplexFloat") return 8;
  if (t == "Byte" || t == "Char" || t == "Bool" || t.starts_with("Float8")) return 1;
  return 0;
}

// NCCL's bus-bandwidth factor for a collective of n ranks (nccl-tests' rule, which TraceLens applies).
double BusFactor(std::string_view name, double n) {
  auto has = [&](std::string_view s) { return name.find(s) != std::string_view::npos; };
  if (has("allreduce") || has("all_reduce")) return 2 * (n - 1) / n;
  if (has("allgather") || has("all_gather") || has("reduce_scatter") || has("reducescatter") || has("all_to_all") ||
      has("alltoall")) {
    return (n - 1) / n;
  }
  return 1;
}

bool OutputSized(std::string_view name) {
  return name.find("allgather") != std::string_view::npos || name.find("all_gather") != std::string_view::npos;
}

}  // namespace

Stragglers FindStragglers(const std::vector<StragglerInput>& ranks) {
  Stragglers s;
  for (const StragglerInput& r : ranks) s.rows.push_back({r, false, {}});
  s.median_us = MedianOf(ranks, &StragglerInput::step_time_us);
  if (!s.median_us) return s;
  std::vector<double> deviations;
  for (const StragglerInput& r : ranks) {
    if (r.step_time_us) deviations.push_back(std::fabs(*r.step_time_us - *s.median_us));
  }
  const bool mad_tells = deviations.size() >= 3;  // two ranks' MAD is half their difference, whatever it is
  s.mad_us = Median(std::move(deviations));
  s.threshold_us = *s.median_us * kStragglerRatio;
  if (mad_tells) s.threshold_us = std::max(*s.threshold_us, *s.median_us + kStragglerMads * *s.mad_us);
  for (StragglerRow& row : s.rows) {
    if (!row.figures.step_time_us || *row.figures.step_time_us <= *s.threshold_us) continue;
    row.straggler = true;
    row.reason = Reason(row.figures, ranks, *s.median_us);
  }
  return s;
}

StragglerInput StragglerFiguresOf(const XSpaceModel& space, const RankKernels& rank, const TemporalRow& temporal,
                                  const MergedKernels& merged) {
  StragglerInput in;
  in.rank = static_cast<int>(rank.rank);
  in.host = rank.host;
  in.step_time_us = MeanStepTimeUs(space);
  if (temporal.has_kernels) {
    in.compute_us = static_cast<double>(temporal.compute_ps) / 1e6;
    in.idle_us = static_cast<double>(temporal.idle_ps) / 1e6;
    in.communication_us =
        static_cast<double>(UnionLength(merged.by_type[static_cast<int>(KernelType::kCommunication)])) / 1e6;
  }
  return in;
}

std::optional<double> MeanStepTimeUs(const XSpaceModel& space) {
  const std::vector<StepSpan> steps = HostSteps(space);
  if (steps.empty()) return std::nullopt;
  double sum = 0;
  for (const StepSpan& st : steps) sum += static_cast<double>(st.end_ps - st.begin_ps);
  return sum / static_cast<double>(steps.size()) / 1e6;
}

std::vector<CollectiveRow> CollectiveBandwidth(const XSpaceModel& space, int rank, std::string_view host) {
  const StrId collective = space.Find("Collective name"), in_nelems = space.Find("In msg nelems"),
              out_nelems = space.Find("Out msg nelems"), dtype = space.Find("dtype"), group = space.Find("Group size");
  std::map<std::string, CollectiveRow> by_name;
  std::map<std::string, double> bus_bytes;  // bytes × the bus factor, summed
  std::map<std::string, bool> sized;        // every call had its group size
  if (collective == kNoStr || (in_nelems == kNoStr && out_nelems == kNoStr)) return {};
  for (const XPlaneModel& plane : space.planes) {
    if (!schema::IsGpuPlane(space.Str(plane.name))) continue;
    for (uint32_t e = 0; e < plane.events.size(); ++e) {
      const Stat* name = plane.FindStat(e, collective);
      if (name == nullptr || name->kind != StatKind::kStr) continue;
      const std::string key(space.Str(name->str));
      const Stat* elems = plane.FindStat(e, OutputSized(key) ? out_nelems : in_nelems);
      const Stat* type = plane.FindStat(e, dtype);
      const int bytes_per = type != nullptr && type->kind == StatKind::kStr ? ScalarTypeBytes(space.Str(type->str)) : 0;
      if (elems == nullptr || bytes_per == 0) continue;
      const double bytes = static_cast<double>(elems->IntValue()) * bytes_per;
      CollectiveRow& row = by_name[key];
      row.rank = rank;
      row.host = std::string(host);
      row.name = key;
      ++row.count;
      row.bytes += bytes;
      row.time_ps += plane.events[e].duration_ps;
      const Stat* n = plane.FindStat(e, group);
      auto [it, added] = sized.try_emplace(key, true);
      if (n == nullptr || n->IntValue() < 1) {
        it->second = false;
      } else {
        bus_bytes[key] += bytes * BusFactor(key, static_cast<double>(n->IntValue()));
      }
    }
  }
  std::vector<CollectiveRow> out;
  for (auto& [key, row] : by_name) {
    if (sized[key] && row.time_ps > 0) row.bus_bandwidth_gbps = bus_bytes[key] / (static_cast<double>(row.time_ps) * 1e-12) / 1e9;
    out.push_back(std::move(row));
  }
  return out;
}

void AppendStragglersJson(const Stragglers& s, const std::vector<CollectiveRow>& collectives, std::string& out) {
  auto opt = [&](std::string_view key, std::optional<double> v) {
    out.append(key);
    if (v) {
      AppendJsonDouble(out, *v);
    } else {
      out.append("null");
    }
  };
  out.append("\"stragglers\":{\"band\":{");
  AppendJsonStringMember(out, "\"rule\":",
                         "step_time_us > max(1.1 × median, median + 3 × MAD) of the ranks' step times (MAD: the "
                         "median absolute deviation from the median); with fewer than 3 ranks > 1.1 × median");
  opt(",\"median_us\":", s.median_us);
  opt(",\"mad_us\":", s.mad_us);
  opt(",\"threshold_us\":", s.threshold_us);
  out.append("},\"rows\":[");
  for (size_t i = 0; i < s.rows.size(); ++i) {
    const StragglerRow& r = s.rows[i];
    out.append(i > 0 ? ",{\"rank\":" : "{\"rank\":").append(std::to_string(r.figures.rank));
    AppendJsonStringMember(out, ",\"host\":", r.figures.host);
    opt(",\"step_time_us\":", r.figures.step_time_us);
    opt(",\"compute_us\":", r.figures.compute_us);
    opt(",\"communication_us\":", r.figures.communication_us);
    opt(",\"idle_us\":", r.figures.idle_us);
    out.append(r.straggler ? ",\"straggler\":true,\"reason\":" : ",\"straggler\":false,\"reason\":");
    if (r.reason.empty()) {
      out.append("null");
    } else {
      AppendJsonString(out, r.reason);
    }
    out.push_back('}');
  }
  out.append("],\"collectives\":[");
  for (size_t i = 0; i < collectives.size(); ++i) {
    const CollectiveRow& c = collectives[i];
    out.append(i > 0 ? ",{\"rank\":" : "{\"rank\":").append(std::to_string(c.rank));
    AppendJsonStringMember(out, ",\"host\":", c.host);
    AppendJsonStringMember(out, ",\"name\":", c.name);
    out.append(",\"count\":").append(std::to_string(c.count)).append(",\"bytes\":");
    AppendJsonDouble(out, c.bytes);
    out.append(",\"time_us\":");
    AppendJsonDouble(out, static_cast<double>(c.time_ps) / 1e6);
    opt(",\"bus_bandwidth_gbps\":", c.bus_bandwidth_gbps);
    out.push_back('}');
  }
  out.append("]}");
}

}  // namespace tbprof::trace_analysis
