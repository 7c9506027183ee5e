#include "convert/analysis/tfprof/tfprof_options.h"

#include <algorithm>
#include <charconv>

#include <re2/re2.h>

#include "convert/base/strings.h"

namespace tbprof::tfprof {

const std::vector<std::string> kOrderBy = {"name",   "bytes",      "peak_bytes",         "residual_bytes",
                                           "output_bytes", "micros", "accelerator_micros", "cpu_micros",
                                           "params", "float_ops",  "occurrence"};
const std::vector<std::string> kShown = {"bytes",        "micros",       "params",       "float_ops",
                                         "tensor_value", "device",       "op_types",     "occurrence",
                                         "input_shapes", "accelerator_micros", "cpu_micros", "peak_bytes",
                                         "residual_bytes", "output_bytes"};
const std::vector<std::string> kOptionNames = {
    "max_depth",          "min_bytes",          "min_peak_bytes",    "min_residual_bytes",
    "min_output_bytes",   "min_micros",         "min_accelerator_micros", "min_cpu_micros",
    "min_params",         "min_float_ops",      "min_occurrence",    "step",
    "order_by",           "account_type_regexes", "start_name_regexes", "trim_name_regexes",
    "show_name_regexes",  "hide_name_regexes",  "account_displayed_op_only", "select",
    "output"};
const std::vector<std::string> kViews = {"scope", "graph", "code", "op"};

namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A long value is cut in the message, so the reason stays readable.
Status BadValue(const std::string& name, const std::string& value, const std::string& why) {
  constexpr size_t kShown = 60;
  const std::string shown = value.size() <= kShown + 20 ? value
                                                        : value.substr(0, kShown) + "... (" +
                                                              std::to_string(value.size()) + " bytes)";
  return InvalidArgument("Invalid option '-" + name + "' value: '" + shown + "' (" + why + ")");
}

// Quotes around a list are dropped, as tfprof's StripQuote does.
std::string StripQuotes(const std::string& s) {
  size_t start = s.find_first_not_of("\"'");
  size_t end = s.find_last_not_of("\"'");
  if (start == std::string::npos || end == std::string::npos) return "";
  return s.substr(start, end - start + 1);
}

std::vector<std::string> ListOf(const std::string& value) {
  const std::string stripped = StripQuotes(value);  // the pieces point into it
  std::vector<std::string> out;
  for (auto piece : SplitNonEmpty(stripped, ',')) out.emplace_back(piece);
  return out;
}

StatusOr<int64_t> ParseInt(const std::string& name, const std::string& value) {
  int64_t v = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (value.empty() || ec != std::errc() || ptr != end) return BadValue(name, value, "not an integer");
  return v;
}

StatusOr<bool> ParseBool(const std::string& name, const std::string& value) {
  std::string v = AsciiLowered(value);
  if (v == "true" || v == "t" || v == "yes" || v == "y" || v == "1") return true;
  if (v == "false" || v == "f" || v == "no" || v == "n" || v == "0") return false;
  return BadValue(name, value, "not a boolean");
}

// "stdout", "none", or "file|timeline|pprof:outfile=PATH".
Status ParseOutput(const std::string& value, Options& options) {
  size_t colon = value.find(':');
  std::string type = value.substr(0, colon);
  if (type == "stdout" || type == "none") {
    if (colon != std::string::npos) return BadValue("output", value, "'" + type + "' takes no options");
    options.output_type = type;
    options.outfile.clear();
    return Status::Ok();
  }
  if (type != "file" && type != "timeline" && type != "pprof") {
    return BadValue("output", value, "the output is one of stdout, none, file:outfile=F, timeline:outfile=F, "
                                     "pprof:outfile=F");
  }
  std::string rest = colon == std::string::npos ? "" : value.substr(colon + 1);
  if (rest.rfind("outfile=", 0) != 0 || rest.size() == 8) {
    return BadValue("output", value, "'" + type + "' needs outfile=PATH");
  }
  options.output_type = type;
  options.outfile = rest.substr(8);
  return Status::Ok();
}

StatusOr<int64_t*> IntegerField(Options& o, const std::string& name) {
  static const std::map<std::string, int64_t Options::*> kFields = {
      {"max_depth", &Options::max_depth},
      {"min_bytes", &Options::min_bytes},
      {"min_peak_bytes", &Options::min_peak_bytes},
      {"min_residual_bytes", &Options::min_residual_bytes},
      {"min_output_bytes", &Options::min_output_bytes},
      {"min_micros", &Options::min_micros},
      {"min_accelerator_micros", &Options::min_accelerator_micros},
      {"min_cpu_micros", &Options::min_cpu_micros},
      {"min_params", &Options::min_params},
      {"min_float_ops", &Options::min_float_ops},
      {"min_occurrence", &Options::min_occurrence},
      {"step", &Options::step},
  };
  auto it = kFields.find(name);
  if (it == kFields.end()) return NotFound(name);
  return &(o.*(it->second));
}

StatusOr<RegexList*> RegexField(Options& o, const std::string& name) {
  if (name == "account_type_regexes") return &o.account_type_regexes;
  if (name == "start_name_regexes") return &o.start_name_regexes;
  if (name == "trim_name_regexes") return &o.trim_name_regexes;
  if (name == "show_name_regexes") return &o.show_name_regexes;
  if (name == "hide_name_regexes") return &o.hide_name_regexes;
  return NotFound(name);
}

}  // namespace

namespace {

// RE2's compiled program for one pattern stays well under this; a pattern
// that needs more (a{1000}{1000}, ...) is refused rather than built.
constexpr int64_t kPatternMaxMem = 8 << 20;

// How deep the pattern's groups nest (escaped and bracketed parentheses do
// not count).
int GroupNesting(const std::string& pattern) {
  int depth = 0, deepest = 0;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') ++i;  // "[]...]" holds a ']'
    } else if (c == '(') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ')') {
      depth = std::max(0, depth - 1);
    }
  }
  return deepest;
}

StatusOr<std::shared_ptr<const re2::RE2>> Compile(const std::string& option, const std::string& value,
                                                  const std::string& pattern) {
  if (pattern.size() > RegexList::kMaxPatternBytes) {
    return BadValue(option, value, "a pattern of " + std::to_string(pattern.size()) + " bytes; at most " +
                                       std::to_string(RegexList::kMaxPatternBytes) + " are accepted");
  }
  if (int nesting = GroupNesting(pattern); nesting > RegexList::kMaxPatternNesting) {
    return BadValue(option, value, "groups nested " + std::to_string(nesting) + " deep; at most " +
                                       std::to_string(RegexList::kMaxPatternNesting) + " are accepted");
  }
  re2::RE2::Options re_options;
  re_options.set_log_errors(false);
  re_options.set_max_mem(kPatternMaxMem);
  auto re = std::make_shared<const re2::RE2>(pattern, re_options);
  if (!re->ok()) {
    return BadValue(option, value, "'" + pattern + "' is not a valid regular expression: " + re->error());
  }
  return re;
}

}  // namespace

StatusOr<RegexList> RegexList::Parse(const std::string& option, const std::string& value) {
  RegexList list;
  for (std::string& pattern : ListOf(value)) {
    ASSIGN_OR_RETURN(auto re, Compile(option, value, pattern));
    list.compiled_.push_back(std::move(re));
    list.patterns_.push_back(std::move(pattern));
  }
  return list;
}

RegexList RegexList::Of(std::vector<std::string> patterns) {
  RegexList list;
  for (const auto& p : patterns) list.compiled_.push_back(std::make_shared<const re2::RE2>(p));
  list.patterns_ = std::move(patterns);
  return list;
}

bool RegexList::Matches(std::string_view name) const {
  const re2::StringPiece text(name.data(), name.size());
  for (const auto& re : compiled_) {
    if (re2::RE2::FullMatch(text, *re)) return true;
  }
  return false;
}

Options CommandLineDefaults() {
  Options o;
  o.max_depth = 4;
  o.account_type_regexes = RegexList::Of({"Variable", "VariableV2"});
  o.hide_name_regexes = RegexList::Of({"IsVariableInitialized_[0-9]+", "save\\/.*", "^zeros[0-9_]*"});
  o.select = {"params"};
  return o;
}

Status SetOption(Options& options, const std::string& name, const std::string& value) {
  if (auto field = IntegerField(options, name); field.ok()) {
    ASSIGN_OR_RETURN(**field, ParseInt(name, value));
    return Status::Ok();
  }
  if (auto field = RegexField(options, name); field.ok()) {
    ASSIGN_OR_RETURN(**field, RegexList::Parse(name, value));
    return Status::Ok();
  }
  if (name == "order_by") {
    if (std::find(kOrderBy.begin(), kOrderBy.end(), value) == kOrderBy.end()) {
      return BadValue(name, value, "order_by is one of " + Join(kOrderBy));
    }
    options.order_by = value;
    return Status::Ok();
  }
  if (name == "account_displayed_op_only") {
    ASSIGN_OR_RETURN(options.account_displayed_op_only, ParseBool(name, value));
    return Status::Ok();
  }
  if (name == "select") {
    std::set<std::string> fields;
    for (std::string& field : ListOf(value)) {
      if (std::find(kShown.begin(), kShown.end(), field) == kShown.end()) {
        return BadValue(name, value, "unknown select field '" + field + "'; the fields are " + Join(kShown));
      }
      fields.insert(std::move(field));
    }
    options.select = std::move(fields);
    return Status::Ok();
  }
  if (name == "output") return ParseOutput(value, options);
  return InvalidArgument("Unknown option '-" + name + "'; the options are -" + Join(kOptionNames));
}

Status ParseOptionWords(const std::vector<std::string>& words, Options& options) {
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word.size() < 2 || word[0] != '-') {
      return InvalidArgument("Expected an option such as -max_depth, got '" + word + "'");
    }
    std::string name = word.substr(word[1] == '-' ? 2 : 1);
    std::string value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {  // also accept -name=value
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (name == "account_displayed_op_only" && !has_value) {
      // Alone, or followed by another option, it means true (as tfprof).
      if (i + 1 == words.size() || words[i + 1].rfind('-', 0) == 0) {
        options.account_displayed_op_only = true;
        continue;
      }
    }
    if (!has_value) {
      if (std::find(kOptionNames.begin(), kOptionNames.end(), name) == kOptionNames.end()) {
        return SetOption(options, name, "");  // names the unknown option
      }
      if (i + 1 == words.size()) return InvalidArgument("Invalid option '-" + name + "' value: '' (missing)");
      value = words[++i];
    }
    RETURN_IF_ERROR(SetOption(options, name, value));
  }
  return Status::Ok();
}

std::vector<std::string> SplitWords(const std::string& line) {
  std::vector<std::string> words;
  for (auto w : SplitNonEmpty(line, ' ')) {
    std::string word(w);
    while (!word.empty() && (word.back() == '\n' || word.back() == '\r' || word.back() == '\t')) word.pop_back();
    if (!word.empty()) words.push_back(std::move(word));
  }
  return words;
}

}  // namespace tbprof::tfprof
