#include "cli/flags.h"

#include <charconv>
#include <cstdio>

namespace tbprof::cli {

void Flags::Add(const std::string& name, const std::string& default_value, const std::string& help,
                bool boolean) {
  order_.push_back(name);
  specs_[name] = Spec{default_value, help, boolean};
  values_[name] = default_value;
}

bool Flags::Parse(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      help_ = true;
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
      std::fprintf(stderr, "tbprof %s: unknown flag --%s (see tbprof %s --help)\n", command_.c_str(),
                   name.c_str(), command_.c_str());
      return false;
    }
    if (it->second.boolean) {
      values_[name] = has_value ? value : "true";
    } else if (has_value) {
      values_[name] = value;
    } else if (i + 1 < argc) {
      values_[name] = argv[++i];
    } else {
      std::fprintf(stderr, "tbprof %s: flag --%s needs a value\n", command_.c_str(), name.c_str());
      return false;
    }
    given_[name] = true;
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
}

const std::string& Flags::Get(const std::string& name) const { return values_.at(name); }

bool Flags::Bool(const std::string& name) const {
  const std::string& v = values_.at(name);
  return v == "true" || v == "1" || v == "yes";
}

bool Flags::Int(const std::string& name, int64_t& out) const {
  const std::string& v = values_.at(name);
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size()) {
    std::fprintf(stderr, "tbprof %s: --%s expects an integer, got '%s'\n", command_.c_str(), name.c_str(),
                 v.c_str());
    return false;
  }
  return true;
}

}  // namespace tbprof::cli
