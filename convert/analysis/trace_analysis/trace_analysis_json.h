// The JSON members every section of trace_analysis writes alike: times in
// microseconds (the model keeps picoseconds), shares in percent, and null
// for what is unknown (never 0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tbprof::trace_analysis {

inline double PsToUs(int64_t ps) { return static_cast<double>(ps) / 1e6; }

// `,"key":<value>` or `,"key":null`.
void AppendNumberMember(std::string& out, std::string_view key, std::optional<double> value);
// `,"key":<ps in µs>`, null unless `known`.
void AppendUsMember(std::string& out, std::string_view key, int64_t ps, bool known = true);
// `,"key":<100·part/whole>`, null unless `known` and whole > 0.
void AppendPctgMember(std::string& out, std::string_view key, int64_t part, int64_t whole, bool known = true);
// `,"key":"<text>"` (escaped).
void AppendStringMember(std::string& out, std::string_view key, std::string_view text);

}  // namespace tbprof::trace_analysis
