// The comparison written out: JSON for the server and the UI, CSV (one table
// of every section) and a terminal table for the CLI. Unknown figures are
// JSON null, an empty CSV cell and "--" in the terminal.
#pragma once

#include <string>

#include "convert/analysis/compare/run_comparison.h"

namespace tbprof {

std::string ComparisonToJson(const RunComparison& c, const std::string& label_a, const std::string& label_b);
std::string ComparisonToCsv(const RunComparison& c);
// The step table, the input stages and bottlenecks, memory, and the `top_rows`
// largest movers of each op and kernel table.
std::string ComparisonToText(const RunComparison& c, const std::string& label_a, const std::string& label_b,
                             size_t top_rows);

}  // namespace tbprof
