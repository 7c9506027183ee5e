#include "cli/flags.h"

#include <charconv>
#include <cstdio>

namespace tbprof::cli {

void Flags::Add(const std::string& name, const std::string& default_value, const std::string& help,
                bool boolean) {
  order_.push_back(name);
  Spec& spec = specs_[name];
  spec.default_value = default_value;
  spec.help = help;
  spec.boolean = boolean;
  values_[name] = default_value;
}

void Flags::AddInt(const std::string& name, int64_t default_value, int64_t min, int64_t max,
                   const std::string& help) {
  Add(name, std::to_string(default_value), help);
  Spec& spec = specs_[name];
  spec.integer = true;
  spec.min = min;
  spec.max = max;
}

void Flags::Error(const std::string& message) const {
  std::fprintf(stderr, "tbprof %s: %s\n", command_.c_str(), message.c_str());
}

std::optional<int> Flags::Parse(int argc, char** argv) {
  bool help = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      help = true;
      continue;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    auto it = specs_.find(name);
    if (it == specs_.end()) {
      Error("unknown flag --" + name + " (see tbprof " + command_ + " --help)");
      return 2;
    }
    if (it->second.boolean) {
      value = has_value ? value : "true";
    } else if (!has_value && i + 1 < argc) {
      value = argv[++i];
    } else if (!has_value) {
      Error("flag --" + name + " needs a value");
      return 2;
    }
    const bool join = given_.count(name) && !it->second.joiner.empty() && !value.empty();
    values_[name] = join ? values_[name] + it->second.joiner + value : value;
    given_[name] = true;
  }
  if (help) {
    PrintHelp();
    return 0;
  }
  if (!CheckValues()) return 2;
  return std::nullopt;
}

bool Flags::CheckValues() {
  for (const std::string& name : required_) {
    if (values_.at(name).empty()) {
      Error("--" + name + " is required (see tbprof " + command_ + " --help)");
      return false;
    }
  }
  for (const std::string& name : order_) {
    const Spec& spec = specs_.at(name);
    if (!spec.integer) continue;
    const std::string& v = values_.at(name);
    int64_t parsed = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), parsed);
    if (ec != std::errc() || p != v.data() + v.size() || v.empty() || parsed < spec.min || parsed > spec.max) {
      Error("--" + name + " expects an integer in [" + std::to_string(spec.min) + ", " + std::to_string(spec.max) +
            "], got '" + v + "'");
      return false;
    }
    ints_[name] = parsed;
  }
  return true;
}

void Flags::PrintHelp() const {
  std::printf("usage: tbprof %s %s\n\n%s\n\nflags:\n", command_.c_str(), usage_.c_str(), summary_.c_str());
  for (const std::string& n : order_) {
    const Spec& s = specs_.at(n);
    std::string left = "  --" + n + (s.boolean ? "" : " VALUE");
    std::printf("%-28s %s", left.c_str(), s.help.c_str());
    if (!s.boolean && !s.default_value.empty()) std::printf(" (default: %s)", s.default_value.c_str());
    std::printf("\n");
  }
  if (!footer_.empty()) std::printf("\n%s", footer_.c_str());
}

const std::string& Flags::Get(const std::string& name) const { return values_.at(name); }

bool Flags::Bool(const std::string& name) const {
  const std::string& v = values_.at(name);
  return v == "true" || v == "1" || v == "yes";
}

}  // namespace tbprof::cli
