// tfprof's options (tensorflow/core/profiler/tfprof_options.h and the option
// syntax of its command line, internal/tfprof_utils.cc ParseCmdLine): names,
// defaults, the select and order_by vocabularies, regex lists matched in full.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "convert/base/status.h"

namespace re2 {
class RE2;
}

namespace tbprof::tfprof {

// kOrderBy and kShown of tfprof, in their order (kShown's index is used by
// the formatters, as tfprof's).
extern const std::vector<std::string> kOrderBy;
extern const std::vector<std::string> kShown;
// The option names, without the leading '-'.
extern const std::vector<std::string> kOptionNames;
// The views: scope, graph, code, op.
extern const std::vector<std::string> kViews;

// A comma-separated list of regexes, each matched against a whole name (RE2
// FullMatch in tfprof). ".*" alone matches everything without a regex.
// Matching takes time linear in the name and never recurses (RE2's automata),
// so no pattern can hang or overflow a worker; a pattern longer than
// kMaxPatternBytes, nested deeper than kMaxPatternNesting or needing more
// than RE2's memory bound is refused by Parse with the option's name.
class RegexList {
 public:
  static constexpr size_t kMaxPatternBytes = 4096;
  static constexpr int kMaxPatternNesting = 64;

  RegexList() = default;
  static StatusOr<RegexList> Parse(const std::string& option, const std::string& value);
  static RegexList Of(std::vector<std::string> patterns);  // patterns known to be valid
  bool MatchesAll() const { return patterns_.size() == 1 && patterns_[0] == ".*"; }
  bool Matches(std::string_view name) const;  // any pattern matches in full
  const std::vector<std::string>& patterns() const { return patterns_; }

 private:
  std::vector<std::string> patterns_;
  std::vector<std::shared_ptr<const re2::RE2>> compiled_;  // immutable: shared by copies and threads
};

struct Options {
  int64_t max_depth = 10000;
  // A node is shown when its figures reach these (0: every node).
  int64_t min_bytes = 0, min_peak_bytes = 0, min_residual_bytes = 0, min_output_bytes = 0;
  int64_t min_micros = 0, min_accelerator_micros = 0, min_cpu_micros = 0;
  int64_t min_params = 0, min_float_ops = 0, min_occurrence = 0;
  int64_t step = -1;
  std::string order_by = "name";
  RegexList account_type_regexes = RegexList::Of({".*"});
  RegexList start_name_regexes = RegexList::Of({".*"});
  RegexList trim_name_regexes;
  RegexList show_name_regexes = RegexList::Of({".*"});
  RegexList hide_name_regexes;
  bool account_displayed_op_only = false;
  std::set<std::string> select = {"micros"};
  // stdout | file | timeline | pprof | none, with outfile= for the files.
  std::string output_type = "stdout";
  std::string outfile;

  bool Selected(const std::string& field) const { return select.count(field) != 0; }
};

// The defaults of tfprof's command line (g3doc/command_line.md): max_depth 4,
// Variable accounting, params, the usual hidden names.
Options CommandLineDefaults();

// Sets one option by its name (without '-') from its text value, checked as
// tfprof checks it; an error names the option and the value.
Status SetOption(Options& options, const std::string& name, const std::string& value);

// Reads tfprof's option syntax from words ("-max_depth", "3", "-select",
// "micros,bytes", "-account_displayed_op_only", ...) into `options`.
Status ParseOptionWords(const std::vector<std::string>& words, Options& options);

// Splits a command line at spaces (no quoting beyond tfprof's: quotes around a
// list are stripped by the list options).
std::vector<std::string> SplitWords(const std::string& line);

}  // namespace tbprof::tfprof
