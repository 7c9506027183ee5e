#include "convert/base/data_table.h"

#include <iterator>
#include "convert/base/json.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace tbprof {

void DataTable::AddColumn(std::string id, std::string label, std::string type, std::string role) {
  columns_.push_back({std::move(id), std::move(label), std::move(type), std::move(role)});
}

void DataTable::AddColumns(std::vector<Column> columns) {
  columns_.insert(columns_.end(), std::make_move_iterator(columns.begin()), std::make_move_iterator(columns.end()));
}

void DataTable::AddRow(std::vector<Cell> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "0.0";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, end);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

namespace {

void AppendCellValue(std::string& out, const DataTable::Cell& cell) {
  if (const double* d = std::get_if<double>(&cell)) {
    out += JsonNumber(*d);
  } else if (const std::string* s = std::get_if<std::string>(&cell)) {
    AppendJsonString(out, *s);
  } else if (const bool* b = std::get_if<bool>(&cell)) {
    out += *b ? "true" : "false";
  } else {
    out += "null";
  }
}

// Whether `s` is a plain decimal number ("-1.5", "+2", "-3e-7"), which a
// spreadsheet reads as a number, never as a formula.
bool IsPlainNumber(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exponent = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exponent;
    if (exponent == 0) return false;
  }
  return i == s.size();
}

std::string CsvField(const DataTable::Cell& cell) {
  std::string text;
  bool formula = false;
  if (const double* d = std::get_if<double>(&cell)) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), std::isfinite(*d) ? *d : 0.0);
    text.assign(buf, end);
  } else if (const std::string* s = std::get_if<std::string>(&cell)) {
    text = ValidUtf8(*s);
    // Text a spreadsheet would run as a formula (a crafted op name such as
    // "=HYPERLINK(...)" or "@SUM(...)"), neutralised as OWASP's CSV-injection
    // advice says: a leading quote makes it text, and the field is quoted.
    // Numbers stay numbers: a negative number in a text cell is no formula.
    if (!text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos &&
        !IsPlainNumber(text)) {
      text.insert(text.begin(), '\'');
      formula = true;
    }
  } else if (const bool* b = std::get_if<bool>(&cell)) {
    text = *b ? "true" : "false";
  }
  if (!formula && text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  return quoted;
}

}  // namespace

std::string DataTable::ToJson() const {
  std::string out = "{\"cols\":[";
  for (size_t i = 0; i < columns_.size(); ++i) {
    const Column& c = columns_[i];
    if (i) out.push_back(',');
    AppendJsonStringMember(out, "{\"id\":", c.id);
    AppendJsonStringMember(out, ",\"label\":", c.label);
    if (!c.role.empty()) {
      AppendJsonStringMember(out, ",\"p\":{\"role\":", c.role);
      out += "}";
    }
    AppendJsonStringMember(out, ",\"type\":", c.type);
    out.push_back('}');
  }
  out += "]";
  if (!properties_.empty()) {
    out += ",\"p\":{";
    bool first = true;
    for (const auto& [k, v] : properties_) {
      if (!first) out.push_back(',');
      first = false;
      AppendJsonString(out, k);
      out.push_back(':');
      AppendJsonString(out, v);
    }
    out += "}";
  }
  out += ",\"rows\":[";
  for (size_t r = 0; r < rows_.size(); ++r) {
    if (r) out.push_back(',');
    out += "{\"c\":[";
    for (size_t i = 0; i < rows_[r].size(); ++i) {
      if (i) out.push_back(',');
      out += "{\"v\":";
      AppendCellValue(out, rows_[r][i]);
      out.push_back('}');
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

std::string DataTable::ToCsv() const {
  std::string out;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (i) out.push_back(',');
    out += CsvField(columns_[i].label);
  }
  out += "\r\n";
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out.push_back(',');
      out += CsvField(row[i]);
    }
    out += "\r\n";
  }
  return out;
}

std::string DataTablesToJson(const std::vector<const DataTable*>& tables) {
  std::string out = "[";
  for (size_t i = 0; i < tables.size(); ++i) {
    if (i) out.push_back(',');
    out += tables[i] ? tables[i]->ToJson() : "{}";
  }
  out += "]";
  return out;
}

std::string FixedDigits(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, std::isfinite(v) ? v : 0.0);
  return buf;
}

}  // namespace tbprof
