// What a PyTorch trace's host event is, by the category (`cat`) Kineto wrote,
// in both spellings Kineto has used ("cpu_op" since PyTorch 1.10, "Operator"
// before; "Runtime" before "cuda_runtime").
#pragma once

#include <string_view>

namespace tbprof::trace_analysis {

enum class HostCategory { kOther, kOperator, kPython, kRuntime };

inline HostCategory HostCategoryOf(std::string_view cat) {
  if (cat == "cpu_op" || cat == "Operator") return HostCategory::kOperator;
  if (cat == "python_function" || cat == "Python") return HostCategory::kPython;
  if (cat == "cuda_runtime" || cat == "Runtime" || cat == "cuda_driver") return HostCategory::kRuntime;
  return HostCategory::kOther;
}

}  // namespace tbprof::trace_analysis
