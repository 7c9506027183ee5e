#include "convert/analysis/trace_analysis/trace_analysis_json.h"

#include "convert/base/json.h"

namespace tbprof::trace_analysis {

void AppendNumberMember(std::string& out, std::string_view key, std::optional<double> value) {
  out += ',';
  AppendJsonString(out, key);
  out += ':';
  if (value) {
    AppendJsonDouble(out, *value);
  } else {
    out += "null";
  }
}

void AppendUsMember(std::string& out, std::string_view key, int64_t ps, bool known) {
  AppendNumberMember(out, key, known ? std::optional<double>(PsToUs(ps)) : std::nullopt);
}

void AppendPctgMember(std::string& out, std::string_view key, int64_t part, int64_t whole, bool known) {
  const bool ok = known && whole > 0;
  AppendNumberMember(out, key,
                     ok ? std::optional<double>(100.0 * static_cast<double>(part) / static_cast<double>(whole))
                        : std::nullopt);
}

void AppendStringMember(std::string& out, std::string_view key, std::string_view text) {
  out += ',';
  AppendJsonString(out, key);
  out += ':';
  AppendJsonString(out, text);
}

}  // namespace tbprof::trace_analysis
