// tfprof's number, time and memory formats (internal/tfprof_utils.cc) and the
// "Doc:" preamble that its stdout and file outputs start with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convert/analysis/tfprof/tfprof_options.h"

namespace tbprof::tfprof {

// The figure tfprof prints for a value the profile cannot give.
inline constexpr const char* kUnknownText = "--";

// < 1000 as an integer, else %.2f with k, m, b (base 1000).
std::string FormatNumber(int64_t n);
// Nus, %.2fms, %.2fsec.
std::string FormatTime(int64_t micros);
// NB, %.2fKB, %.2fMB (base 1000, nothing above MB).
std::string FormatMemory(int64_t bytes);
// Dimensions joined by 'x'.
std::string FormatShape(const std::vector<int64_t>& shape);

// "node name | <the selected figures' legends> \n" of a view's table: the
// tree views name the counts (params, float ops) first, the op and code
// views after the times; `occurrence` is the view's word for op counts.
enum class LegendOrder { kCountsFirst, kCountsAfterTimes };
std::string ViewLegend(const Options& options, LegendOrder order, const std::string& occurrence);

// "\nDoc:\n<view help>\n<one line per selected field>\n\nProfile:\n": the
// structure of tfprof's preamble, with help lines in tbprof's words.
std::string DocPreamble(const std::string& view, const Options& options);

}  // namespace tbprof::tfprof
