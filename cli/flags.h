// Flag parsing shared by the subcommands: `--name value`, `--name=value`,
// boolean `--name`, and positional arguments. Every flag is declared with a
// help line so `tbprof <cmd> --help` lists all of them, and integer flags are
// declared with their range so that every command refuses a bad value with the
// same kind of message, before it does anything.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
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
  // Declares an integer flag that must lie in [min, max].
  void AddInt(const std::string& name, int64_t default_value, int64_t min, int64_t max, const std::string& help);
  // The flag may be given several times; the values are joined by `joiner`.
  void JoinRepeats(const std::string& name, std::string joiner) { specs_.at(name).joiner = std::move(joiner); }
  // The flag must be given a non-empty value.
  void Require(const std::string& name) { required_.push_back(name); }
  // Printed after the flag list by --help.
  void SetHelpFooter(std::string footer) { footer_ = std::move(footer); }

  // Parses argv (after the subcommand) and checks required flags and integer
  // ranges. Returns the exit code when the command must stop now: 0 after
  // printing --help, 2 after printing why a flag is wrong. nullopt: go on.
  std::optional<int> Parse(int argc, char** argv);

  const std::string& Get(const std::string& name) const;
  bool Has(const std::string& name) const { return given_.count(name) > 0; }
  bool Bool(const std::string& name) const;
  // The value of an AddInt flag (checked by Parse).
  int64_t Int(const std::string& name) const { return ints_.at(name); }
  const std::vector<std::string>& positional() const { return positional_; }
  // Prints "tbprof <command>: <message>" to stderr.
  void Error(const std::string& message) const;

 private:
  struct Spec {
    std::string default_value, help;
    bool boolean = false;
    bool integer = false;
    int64_t min = 0, max = 0;
    std::string joiner;  // empty: a repeated flag replaces the earlier value
  };
  void PrintHelp() const;
  bool CheckValues();

  std::string command_, usage_, summary_, footer_;
  std::vector<std::string> order_, required_;
  std::map<std::string, Spec> specs_;
  std::map<std::string, std::string> values_;
  std::map<std::string, int64_t> ints_;
  std::map<std::string, bool> given_;
  std::vector<std::string> positional_;
};

}  // namespace tbprof::cli
