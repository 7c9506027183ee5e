// Minimal flag parsing shared by the subcommands: `--name value`,
// `--name=value`, boolean `--name`, and positional arguments. Every flag is
// declared with a help line so `tbprof <cmd> --help` lists all of them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tbprof::cli {

class Flags {
 public:
  Flags(std::string command, std::string usage, std::string summary)
      : command_(std::move(command)), usage_(std::move(usage)), summary_(std::move(summary)) {}

  // Declares a flag. Boolean flags take no value.
  void Add(const std::string& name, const std::string& default_value, const std::string& help,
           bool boolean = false);

  // Parses argv (after the subcommand). Returns false and prints why on error;
  // sets wants_help() when --help/-h was given.
  bool Parse(int argc, char** argv);
  bool wants_help() const { return help_; }
  void PrintHelp() const;

  const std::string& Get(const std::string& name) const;
  bool Has(const std::string& name) const { return given_.count(name) > 0; }
  bool Bool(const std::string& name) const;
  // Integer flag; on garbage prints an error and returns false.
  bool Int(const std::string& name, int64_t& out) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  struct Spec {
    std::string default_value, help;
    bool boolean = false;
  };
  std::string command_, usage_, summary_;
  std::vector<std::string> order_;
  std::map<std::string, Spec> specs_;
  std::map<std::string, std::string> values_;
  std::map<std::string, bool> given_;
  std::vector<std::string> positional_;
  bool help_ = false;
};

}  // namespace tbprof::cli
