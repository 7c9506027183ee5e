// Google DataTable ("gviz") tables as xprof's tools emit them: {cols, p, rows},
// object keys in sorted order (xprof's C++ writer sorts keys), custom
// properties always strings, cells {"v": value}.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tbprof {

class DataTable {
 public:
  using Cell = std::variant<std::monostate, double, std::string, bool>;
  struct Column {
    std::string id, label, type;  // type: "number", "string" or "boolean"
    std::string role = "";        // column property {"role": …} when non-empty
  };

  void AddColumn(std::string id, std::string label, std::string type, std::string role = "");
  // A table's columns written as one list (xprof writes most tables' columns from such lists).
  void AddColumns(std::vector<Column> columns);
  // Cells must match the columns in number; missing cells are written as null.
  void AddRow(std::vector<Cell> cells);
  void SetProperty(const std::string& key, std::string value) { properties_[key] = std::move(value); }

  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }
  const std::map<std::string, std::string>& properties() const { return properties_; }

  std::string ToJson() const;
  // RFC 4180 CSV: a header line of column labels, then one line per row.
  std::string ToCsv() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
  std::map<std::string, std::string> properties_;
};

// JSON array of tables; a null entry is written as the empty slot `{}`.
std::string DataTablesToJson(const std::vector<const DataTable*>& tables);

// Shortest round-trip form of a double with ".0" on integral values (the way
// xprof's JSON writer prints numbers); NaN/Inf become 0.
std::string JsonNumber(double v);

// printf-style "%.Nf" helpers used for the string properties.
std::string FixedDigits(double v, int digits);
inline std::string OneDigit(double v) { return FixedDigits(v, 1); }
inline std::string TwoDigits(double v) { return FixedDigits(v, 2); }

}  // namespace tbprof
