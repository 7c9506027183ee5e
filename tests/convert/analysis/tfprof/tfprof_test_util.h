// Helpers of the tfprof tests: fixtures read through tbprof's reader, and
// options built in the order of TensorFlow's Options constructor, so the
// ported tests read like the originals.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "convert/tfprof/profile_proto_reader.h"
#include "convert/analysis/tfprof/tfprof_options.h"
#include "convert/analysis/tfprof/tfprof_show.h"
#include "tests/testing/tfprof_fixtures.h"

namespace tbprof::tfprof_test {

inline tfprof::Model ReadFixture(const tfprof_fixtures::ProfileWriter& writer) {
  auto model = tfprof::ReadProfileProto(writer.Serialize(), "fixture");
  EXPECT_TRUE(model.ok()) << model.status().message();
  return model.ok() ? std::move(model).value() : tfprof::Model{};
}

struct TfOptionsArgs {
  int64_t max_depth, min_bytes, min_peak_bytes, min_residual_bytes, min_output_bytes, min_micros,
      min_accelerator_micros, min_cpu_micros, min_params, min_float_ops, min_occurrence, step;
  std::string order_by;
  std::vector<std::string> account, start, trim, show, hide;
  bool account_displayed_op_only;
  std::vector<std::string> select;
};

// TensorFlow's Options(max_depth, min_bytes, ..., select) as one value.
inline tfprof::Options TfOptions(const TfOptionsArgs& a) {
  tfprof::Options o;
  o.max_depth = a.max_depth;
  o.min_bytes = a.min_bytes;
  o.min_peak_bytes = a.min_peak_bytes;
  o.min_residual_bytes = a.min_residual_bytes;
  o.min_output_bytes = a.min_output_bytes;
  o.min_micros = a.min_micros;
  o.min_accelerator_micros = a.min_accelerator_micros;
  o.min_cpu_micros = a.min_cpu_micros;
  o.min_params = a.min_params;
  o.min_float_ops = a.min_float_ops;
  o.min_occurrence = a.min_occurrence;
  o.step = a.step;
  o.order_by = a.order_by;
  o.account_type_regexes = tfprof::RegexList::Of(a.account);
  o.start_name_regexes = tfprof::RegexList::Of(a.start);
  o.trim_name_regexes = tfprof::RegexList::Of(a.trim);
  o.show_name_regexes = tfprof::RegexList::Of(a.show);
  o.hide_name_regexes = tfprof::RegexList::Of(a.hide);
  o.account_displayed_op_only = a.account_displayed_op_only;
  o.select = std::set<std::string>(a.select.begin(), a.select.end());
  return o;
}

inline tfprof::ViewResult Show(const tfprof::Model& model, const std::string& view, const tfprof::Options& o) {
  auto result = tfprof::ShowView(model, view, o);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : tfprof::ViewResult{};
}

inline std::string WithoutSpaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

}  // namespace tbprof::tfprof_test
