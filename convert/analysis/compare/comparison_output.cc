#include "convert/analysis/compare/comparison_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/data_table.h"
#include "convert/base/json.h"

namespace tbprof {
namespace {

void AppendFigure(std::string& out, std::string_view key, Figure f) {
  out += ",\"";
  out += key;
  out += "\":";
  if (f) {
    AppendJsonDouble(out, *f);
  } else {
    out += "null";
  }
}

void AppendMetricRows(std::string& out, const std::vector<MetricRow>& rows) {
  out += '[';
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i) out += ',';
    out += "{\"name\":";
    AppendJsonString(out, rows[i].name);
    AppendFigure(out, "a", rows[i].a);
    AppendFigure(out, "b", rows[i].b);
    AppendFigure(out, "delta", DeltaOf(rows[i].a, rows[i].b));
    AppendFigure(out, "delta_percent", DeltaPercentOf(rows[i].a, rows[i].b));
    out += '}';
  }
  out += ']';
}

void AppendOpRows(std::string& out, const std::vector<OpDeltaRow>& rows, bool kernels) {
  out += '[';
  for (size_t i = 0; i < rows.size(); ++i) {
    const OpDeltaRow& r = rows[i];
    if (i) out += ',';
    out += "{\"name\":";
    AppendJsonString(out, r.name);
    AppendJsonStringMember(out, ",\"type\":", r.type);
    AppendJsonStringMember(out, ",\"where\":", r.where);
    AppendJsonStringMember(out, ",\"presence\":", RowPresenceName(r.presence));
    AppendFigure(out, "occurrences_a", r.occurrences_a);
    AppendFigure(out, "occurrences_b", r.occurrences_b);
    AppendFigure(out, "time_us_a", r.time_us_a);
    AppendFigure(out, "time_us_b", r.time_us_b);
    AppendFigure(out, "delta_us", r.Delta());
    AppendFigure(out, "delta_percent", r.DeltaPercent());
    if (kernels) {
      AppendFigure(out, "tensor_core_share_a", r.tensor_core_share_a);
      AppendFigure(out, "tensor_core_share_b", r.tensor_core_share_b);
    } else {
      AppendFigure(out, "self_time_us_a", r.self_time_us_a);
      AppendFigure(out, "self_time_us_b", r.self_time_us_b);
      AppendFigure(out, "self_delta_us", r.SelfDelta());
    }
    out += '}';
  }
  out += ']';
}

void AppendTfDataSide(std::string& out, const TfDataSide& side) {
  if (!side.known) {
    out += "null";
    return;
  }
  out += "{\"input_bound\":";
  out += side.input_bound ? "true" : "false";
  AppendJsonStringMember(out, ",\"iterator\":", side.iterator);
  AppendJsonStringMember(out, ",\"bottleneck_type\":", side.bottleneck_type);
  AppendFigure(out, "latency_us", side.latency_us);
  out += '}';
}

void AppendOptionalString(std::string& out, const std::string& s) {
  if (s.empty()) {
    out += "null";
  } else {
    AppendJsonString(out, s);
  }
}

void AppendOptionalNumber(std::string& out, const std::optional<int64_t>& n) {
  out += n ? std::to_string(*n) : std::string("null");
}

// `,"key":{"a":<a>,"b":<b>}`: a figure of each run, each written by `append`.
template <typename T>
void AppendSides(std::string& out, std::string_view key, const T& a, const T& b,
                 void (*append)(std::string&, const T&)) {
  out += ",\"";
  out += key;
  out += "\":{\"a\":";
  append(out, a);
  out += ",\"b\":";
  append(out, b);
  out += '}';
}

}  // namespace

std::string ComparisonToJson(const RunComparison& c, const std::string& label_a, const std::string& label_b) {
  std::string out = "{\"run_a\":";
  AppendJsonString(out, label_a);
  AppendJsonStringMember(out, ",\"run_b\":", label_b);
  AppendJsonStringMember(out, ",\"alignment\":", StepAlignmentName(c.alignment));
  out += ",\"steps\":";
  AppendMetricRows(out, c.steps);
  AppendSides(out, "step_notes", c.step_note_a, c.step_note_b, AppendOptionalString);
  out += ",\"step_pairs\":[";
  for (size_t i = 0; i < c.step_pairs.size(); ++i) {
    const StepPair& p = c.step_pairs[i];
    if (i) out += ',';
    out += "{\"metrics\":";
    AppendMetricRows(out, p.metrics);
    AppendFigure(out, "number_a", p.number_a ? Figure(*p.number_a) : std::nullopt);
    AppendFigure(out, "number_b", p.number_b ? Figure(*p.number_b) : std::nullopt);
    out += ",\"name_a\":";
    AppendOptionalString(out, p.name_a);
    out += ",\"name_b\":";
    AppendOptionalString(out, p.name_b);
    out += '}';
  }
  out += "],\"input_stages\":";
  AppendMetricRows(out, c.input_stages);
  AppendSides(out, "input_classification", c.input_classification_a, c.input_classification_b, AppendOptionalString);
  AppendSides(out, "tf_data", c.tf_data_a, c.tf_data_b, AppendTfDataSide);
  out += ",\"framework_ops\":";
  AppendOpRows(out, c.framework_ops, false);
  out += ",\"hlo_ops\":";
  AppendOpRows(out, c.hlo_ops, false);
  out += ",\"kernels\":";
  AppendOpRows(out, c.kernels, true);
  out += ",\"memory\":";
  AppendMetricRows(out, c.memory);
  // The chosen step of each run and its host events (null and [] without one).
  AppendSides(out, "step", c.step_a, c.step_b, AppendOptionalNumber);
  out += ",\"step_events\":";
  AppendOpRows(out, c.step_events, false);
  out += '}';
  return out;
}

namespace {

DataTable::Cell CellOf(Figure f) {
  if (!f) return std::monostate();
  return *f;
}

void AddMetricCsvRows(DataTable& t, const std::string& section, const std::string& name,
                      const std::vector<MetricRow>& rows) {
  for (const MetricRow& m : rows) {
    t.AddRow({section, name, m.name, std::string(), std::string(), std::string(), CellOf(m.a), CellOf(m.b),
              CellOf(DeltaOf(m.a, m.b)), CellOf(DeltaPercentOf(m.a, m.b))});
  }
}

void AddOpCsvRows(DataTable& t, const std::string& section, const std::vector<OpDeltaRow>& rows) {
  for (const OpDeltaRow& r : rows) {
    t.AddRow({section, r.name, std::string("time_us"), r.where, r.type, std::string(RowPresenceName(r.presence)),
              CellOf(r.time_us_a), CellOf(r.time_us_b), CellOf(r.Delta()), CellOf(r.DeltaPercent()),
              CellOf(r.occurrences_a), CellOf(r.occurrences_b), CellOf(r.self_time_us_a), CellOf(r.self_time_us_b),
              CellOf(r.SelfDelta()), CellOf(r.tensor_core_share_a), CellOf(r.tensor_core_share_b)});
  }
}

}  // namespace

std::string ComparisonToCsv(const RunComparison& c) {
  DataTable t;
  for (const char* id : {"section", "name", "metric", "where", "type", "presence", "a", "b", "delta", "delta_percent",
                         "occurrences_a", "occurrences_b", "self_time_us_a", "self_time_us_b", "self_delta_us",
                         "tensor_core_share_a", "tensor_core_share_b"}) {
    t.AddColumn(id, id, "string");
  }
  AddMetricCsvRows(t, "steps", "", c.steps);
  for (const StepPair& p : c.step_pairs) AddMetricCsvRows(t, "step", p.name_a + " / " + p.name_b, p.metrics);
  AddMetricCsvRows(t, "input_stages", "", c.input_stages);
  AddOpCsvRows(t, "framework_ops", c.framework_ops);
  AddOpCsvRows(t, "hlo_ops", c.hlo_ops);
  AddOpCsvRows(t, "kernels", c.kernels);
  AddMetricCsvRows(t, "memory", "", c.memory);
  AddOpCsvRows(t, "step_events", c.step_events);
  return t.ToCsv();
}

namespace {

std::string Number(Figure f, int digits) {
  if (!f) return "--";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, *f);
  return buf;
}

std::string Signed(Figure f, int digits, const char* unit = "") {
  if (!f) return "--";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%+.*f%s", digits, *f, unit);
  return buf;
}

// Long names are cut in the middle so the columns stay aligned.
std::string Fit(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  size_t keep = width - 3;
  return s.substr(0, keep / 2) + "..." + s.substr(s.size() - (keep - keep / 2));
}

size_t CommonPrefix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// A long name cut around `at` (where it first differs from a name it would be confused with): its start, then
// the part from just before `at`, then its end if room is left.
std::string FitAround(const std::string& s, size_t width, size_t at) {
  if (s.size() <= width || width < 16) return s;
  const size_t head = (width - 6) / 4, context = 4;
  size_t from = at > context ? at - context : 0;
  if (from <= head + 3) return Fit(s, width);  // the difference is within the start that Fit keeps
  size_t room = width - head - 3;
  if (from + room >= s.size()) return s.substr(0, head) + "..." + s.substr(s.size() - room);
  return s.substr(0, head) + "..." + s.substr(from, room - 3) + "...";
}

// Fit() for each name of one table, except that names that would print alike (kernels differing only in the
// middle of a long template name) keep the part where they differ; any still alike are printed whole.
std::vector<std::string> FitDistinct(const std::vector<std::string>& names, size_t width) {
  std::vector<std::string> out;
  std::map<std::string, std::vector<size_t>> by_text;
  for (size_t i = 0; i < names.size(); ++i) {
    out.push_back(Fit(names[i], width));
    by_text[out.back()].push_back(i);
  }
  for (const auto& [text, group] : by_text) {
    if (group.size() < 2) continue;
    for (size_t i : group) {
      size_t at = 0;
      for (size_t j : group) {
        if (j != i && names[j] != names[i]) at = std::max(at, CommonPrefix(names[i], names[j]));
      }
      out[i] = FitAround(names[i], width, at);
    }
  }
  std::map<std::string, std::set<std::string>> originals;
  for (size_t i = 0; i < names.size(); ++i) originals[out[i]].insert(names[i]);
  for (size_t i = 0; i < names.size(); ++i) {
    if (originals[out[i]].size() > 1) out[i] = names[i];
  }
  return out;
}

void AppendLine(std::string& out, const std::vector<std::pair<std::string, int>>& cells) {
  for (const auto& [text, width] : cells) {
    char buf[512];
    // Negative width: left-aligned.
    std::snprintf(buf, sizeof(buf), "%*s ", width, text.c_str());
    out += buf;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += '\n';
}

void AppendMetricTable(std::string& out, const std::string& title, const std::vector<MetricRow>& rows, int digits) {
  if (rows.empty()) return;
  out += "\n" + title + "\n";
  AppendLine(out, {{"", -34}, {"A", 16}, {"B", 16}, {"delta", 16}, {"delta %", 9}});
  for (const MetricRow& m : rows) {
    AppendLine(out, {{Fit(m.name, 34), -34}, {Number(m.a, digits), 16}, {Number(m.b, digits), 16},
                     {Signed(DeltaOf(m.a, m.b), digits), 16}, {Signed(DeltaPercentOf(m.a, m.b), 1, "%"), 9}});
  }
}

void AppendOpTable(std::string& out, const std::string& title, const std::vector<OpDeltaRow>& rows, size_t top) {
  if (rows.empty()) return;
  size_t added = 0, removed = 0;
  for (const OpDeltaRow& r : rows) {
    added += r.presence == RowPresence::kAdded;
    removed += r.presence == RowPresence::kRemoved;
  }
  out += "\n" + title + " (" + std::to_string(rows.size()) + " rows, " + std::to_string(added) + " added, " +
         std::to_string(removed) + " removed; largest |delta| first)\n";
  AppendLine(out, {{"name", -44}, {"type", -16}, {"A us", 13}, {"B us", 13}, {"delta us", 13}, {"delta %", 9},
                   {"count A", 8}, {"count B", 8}, {"", -7}});
  std::vector<std::string> shown;
  for (size_t i = 0; i < rows.size() && i < top; ++i) shown.push_back(rows[i].name);
  shown = FitDistinct(shown, 44);
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const OpDeltaRow& r = rows[i];
    std::string type = r.where.empty() ? r.type : r.type.empty() ? r.where : r.where + ":" + r.type;
    std::string mark = r.presence == RowPresence::kBoth ? "" : std::string(RowPresenceName(r.presence));
    AppendLine(out, {{shown[i], -44}, {Fit(type, 16), -16}, {Number(r.time_us_a, 1), 13},
                     {Number(r.time_us_b, 1), 13}, {Signed(r.Delta(), 1), 13}, {Signed(r.DeltaPercent(), 1, "%"), 9},
                     {Number(r.occurrences_a, 0), 8}, {Number(r.occurrences_b, 0), 8}, {mark, -7}});
  }
  if (rows.size() > top) out += "... " + std::to_string(rows.size() - top) + " more (--top N, or --format csv)\n";
}

std::string TfDataText(const TfDataSide& s) {
  if (!s.known) return "--";
  if (s.iterator.empty()) return s.input_bound ? "input bound, no bottleneck found" : "no bottleneck found";
  return s.iterator + " (" + s.bottleneck_type + ", " + Number(s.latency_us, 1) + " us)";
}

}  // namespace

std::string ComparisonToText(const RunComparison& c, const std::string& label_a, const std::string& label_b,
                             size_t top_rows) {
  std::string out = "A (baseline): " + label_a + "\nB:            " + label_b + "\n";
  AppendMetricTable(out, "Steps (averages per step, ms)", c.steps, 3);
  if (!c.step_note_a.empty()) out += "A's steps are unknown: " + c.step_note_a + "\n";
  if (!c.step_note_b.empty()) out += "B's steps are unknown: " + c.step_note_b + "\n";
  for (const StepPair& p : c.step_pairs) {
    std::string title = "Step " + (p.name_a.empty() ? std::string("--") : p.name_a) + " vs " +
                        (p.name_b.empty() ? std::string("--") : p.name_b) + " (aligned by " +
                        std::string(StepAlignmentName(c.alignment)) + ", ms)";
    AppendMetricTable(out, title, p.metrics, 3);
  }
  AppendMetricTable(out, "Input pipeline stages (us)", c.input_stages, 1);
  out += "\nInput classification:  A " + (c.input_classification_a.empty() ? "--" : c.input_classification_a) +
         "  B " + (c.input_classification_b.empty() ? "--" : c.input_classification_b) + "\n";
  out += "tf.data bottleneck:    A " + TfDataText(c.tf_data_a) + "\n                       B " +
         TfDataText(c.tf_data_b) + "\n";
  AppendOpTable(out, "Framework ops", c.framework_ops, top_rows);
  AppendOpTable(out, "HLO ops", c.hlo_ops, top_rows);
  AppendOpTable(out, "Kernels", c.kernels, top_rows);
  AppendMetricTable(out, "Memory (bytes at the peak)", c.memory, 0);
  if (c.step_a || c.step_b) {
    auto step = [](const std::optional<int64_t>& n) { return n ? std::to_string(*n) : std::string("--"); };
    AppendOpTable(out, "Host events of step " + step(c.step_a) + " (A) and step " + step(c.step_b) + " (B)",
                  c.step_events, top_rows);
  }
  return out;
}

}  // namespace tbprof
