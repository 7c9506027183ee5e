// `tbprof tfprof FILE... [view] [options]`: tfprof's command line over xplane
// files or a tfprof ProfileProto file, with tfprof's option syntax
// (-max_depth 3 -select micros,bytes ...). Without a view it reads commands
// ("scope -max_depth 3", "set -step 2", "advise", "help", "quit") from the
// standard input, prompting "tfprof> " when it is a terminal.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "convert/analysis/tfprof/tfprof_advisor.h"
#include "convert/analysis/tfprof/tfprof_format.h"
#include "convert/analysis/tfprof/tfprof_pprof.h"
#include "convert/analysis/tfprof/tfprof_timeline.h"
#include "convert/base/strings.h"
#include "convert/tools/tfprof_tools.h"
#include "plugin/gzip.h"

namespace tbprof::cli {
namespace {

const char kUsage[] =
    "usage: tbprof tfprof FILE... [scope|graph|op|code|advise] [options]\n\n"
    "TensorFlow's tfprof views over xplane files (FILE.xplane.pb, several hosts combined) or over one\n"
    "tfprof profile file (ProfileProto: ProfileContext's profile_<N>, Profiler.serialize_to_string()).\n"
    "Without a view, commands are read from the standard input (a 'tfprof> ' prompt on a terminal):\n"
    "  scope|graph|op|code [options]   show a view\n"
    "  advise [Checker,...]            run the advisor's checkers\n"
    "  set [options]                   change the options of the following commands\n"
    "  help                            this text;  quit / exit / end of input: stop\n\n"
    "Options (tfprof's; defaults of tfprof's command line):\n"
    "  -max_depth 4 -min_bytes 0 -min_peak_bytes 0 -min_residual_bytes 0 -min_output_bytes 0\n"
    "  -min_micros 0 -min_accelerator_micros 0 -min_cpu_micros 0 -min_params 0 -min_float_ops 0\n"
    "  -min_occurrence 0 -step -1 -order_by name -account_type_regexes Variable,VariableV2\n"
    "  -start_name_regexes .* -trim_name_regexes '' -show_name_regexes .*\n"
    "  -hide_name_regexes 'IsVariableInitialized_[0-9]+,save\\/.*,^zeros[0-9_]*'\n"
    "  -account_displayed_op_only false -select params\n"
    "  -output stdout|none|file:outfile=F|timeline:outfile=F (scope/code views; written to F_<step>)\n"
    "          |pprof:outfile=F (code view, one -select field: a gzip'ed pprof profile)\n"
    "order_by: name bytes peak_bytes residual_bytes output_bytes micros accelerator_micros cpu_micros\n"
    "          params float_ops occurrence\n"
    "select:   bytes micros params float_ops device op_types occurrence input_shapes accelerator_micros\n"
    "          cpu_micros peak_bytes residual_bytes output_bytes\n"
    "Figures a profile cannot give (bytes and params of an xplane profile) print as --.\n";

bool IsCommandWord(const std::string& w) {
  return w == "scope" || w == "graph" || w == "op" || w == "code" || w == "advise" || w == "set" ||
         w == "help" || w == "quit" || w == "exit";
}

// -output pprof:outfile=F: the code view as a gzip'ed pprof profile.
bool WritePprof(const tfprof::Model& model, const std::string& view, const tfprof::Options& options) {
  auto profile = tfprof::CodeViewPprof(model, view, options);
  if (!profile.ok()) {
    std::fprintf(stderr, "tbprof tfprof: %s\n", profile.status().message().c_str());
    return false;
  }
  auto gzipped = GzipCompress(profile->SerializeAsString());
  if (!gzipped.ok()) {
    std::fprintf(stderr, "tbprof tfprof: %s\n", gzipped.status().message().c_str());
    return false;
  }
  std::ofstream out(options.outfile, std::ios::binary | std::ios::trunc);
  out << *gzipped;
  if (!out.good()) {
    std::fprintf(stderr, "tbprof tfprof: cannot write %s\n", options.outfile.c_str());
    return false;
  }
  std::printf("pprof profile written to %s (%d samples); view it with: pprof -http=: -sample_index=1 %s\n",
              options.outfile.c_str(), profile->sample_size(), options.outfile.c_str());
  return true;
}

// The model each command reads: a ProfileProto file's one model holds its
// steps; an xplane profile's -step N is a model of its own, made when first
// asked for (LoadTfprofModel) and kept for the next command.
class Models {
 public:
  explicit Models(std::vector<std::string> files) : files_(std::move(files)) {
    per_step_ = std::all_of(files_.begin(), files_.end(), [](const std::string& f) {
      return ProfileFormatOfFile(f) == ProfileFormat::kXPlane;
    });
  }
  // nullptr after printing why the model cannot be made.
  const tfprof::Model* For(int64_t step) {
    const int64_t key = per_step_ && step >= 0 ? step : -1;
    auto it = by_step_.find(key);
    if (it == by_step_.end()) {
      auto model = LoadTfprofModel(files_, nullptr, key);
      if (!model.ok()) {
        std::fprintf(stderr, "tbprof tfprof: %s\n", model.status().message().c_str());
        return nullptr;
      }
      it = by_step_.emplace(key, std::move(*model)).first;
    }
    return &it->second;
  }

 private:
  std::vector<std::string> files_;
  bool per_step_ = false;
  std::map<int64_t, tfprof::Model> by_step_;
};

// Runs one command line; returns false on an error (already printed).
bool RunCommand(Models& models, const std::vector<std::string>& words, tfprof::Options& defaults) {
  const std::string& cmd = words[0];
  std::vector<std::string> rest(words.begin() + 1, words.end());
  if (cmd == "help") {
    std::fputs(kUsage, stdout);
    return true;
  }
  if (cmd == "advise") {
    std::vector<std::string> checkers;
    for (const auto& w : rest) {
      for (auto c : SplitNonEmpty(w, ',')) checkers.emplace_back(c);
    }
    const tfprof::Model* model = models.For(-1);
    if (model == nullptr) return false;
    auto advice = tfprof::Advise(*model, checkers);
    if (!advice.ok()) {
      std::fprintf(stderr, "tbprof tfprof: %s\n", advice.status().message().c_str());
      return false;
    }
    std::fputs(tfprof::FormatAdvice(*advice).c_str(), stdout);
    return true;
  }
  tfprof::Options options = defaults;
  Status parsed = tfprof::ParseOptionWords(rest, options);
  if (!parsed.ok()) {
    std::fprintf(stderr, "tbprof tfprof: %s\n", parsed.message().c_str());
    return false;
  }
  if (cmd == "set") {
    defaults = options;
    return true;
  }
  const tfprof::Model* model = models.For(options.step);
  if (model == nullptr) return false;
  if (options.output_type == "pprof") return WritePprof(*model, cmd, options);
  auto result = tfprof::ShowView(*model, cmd, options);
  if (!result.ok()) {
    std::fprintf(stderr, "tbprof tfprof: %s\n", result.status().message().c_str());
    return false;
  }
  if (options.output_type == "timeline") {
    auto trace = tfprof::IcicleTimelineJson(*result);
    if (!trace.ok()) {
      std::fprintf(stderr, "tbprof tfprof: %s\n", trace.status().message().c_str());
      return false;
    }
    // Named as tfprof names it: <outfile>_<step>.
    const std::string path = options.outfile + "_" + std::to_string(options.step);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << *trace;
    if (!out.good()) {
      std::fprintf(stderr, "tbprof tfprof: cannot write %s\n", path.c_str());
      return false;
    }
    std::printf("Timeline written to %s (open it in chrome://tracing or Perfetto).\n", path.c_str());
    return true;
  }
  // An empty table for a reason the options give is said in words instead.
  const std::string text =
      tfprof::DocPreamble(cmd, options) + (result->note.empty() ? result->text : result->note + "\n");
  if (options.output_type == "stdout") {
    std::fputs(text.c_str(), stdout);
  } else if (options.output_type == "file") {
    std::ofstream out(options.outfile, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.good()) {
      std::fprintf(stderr, "tbprof tfprof: cannot write %s\n", options.outfile.c_str());
      return false;
    }
  }
  std::fflush(stdout);
  return true;
}

int Interactive(Models& models, tfprof::Options& defaults) {
  const bool terminal = isatty(STDIN_FILENO) != 0;
  bool all_ok = true;
  std::string line;
  while (true) {
    if (terminal) {
      std::fputs("tfprof> ", stdout);
      std::fflush(stdout);
    }
    if (!std::getline(std::cin, line)) break;
    std::vector<std::string> words = tfprof::SplitWords(line);
    if (words.empty()) continue;
    if (words[0] == "quit" || words[0] == "exit") break;
    if (!IsCommandWord(words[0])) {
      std::fprintf(stderr, "tbprof tfprof: unknown command '%s'; type help\n", words[0].c_str());
      all_ok = false;
      continue;
    }
    all_ok = RunCommand(models, words, defaults) && all_ok;
  }
  if (terminal) std::fputs("\n", stdout);
  return all_ok ? 0 : 1;
}

}  // namespace

int TfprofCommand(int argc, char** argv) {
  std::vector<std::string> files, command;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (command.empty() && (arg == "--help" || arg == "-h")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (command.empty() && !IsCommandWord(arg) && arg.rfind('-', 0) != 0) {
      files.push_back(arg);
    } else {
      command.push_back(arg);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "tbprof tfprof: expected at least one FILE\n\n%s", kUsage);
    return 2;
  }
  Models models(files);
  if (models.For(-1) == nullptr) return 1;
  tfprof::Options defaults = tfprof::CommandLineDefaults();
  if (command.empty()) return Interactive(models, defaults);
  if (!IsCommandWord(command[0])) {
    // Options before the view: they become the defaults of the view.
    size_t view = 0;
    while (view < command.size() && !IsCommandWord(command[view])) ++view;
    std::vector<std::string> set = {"set"};
    set.insert(set.end(), command.begin(), command.begin() + view);
    if (!RunCommand(models, set, defaults)) return 2;
    command.erase(command.begin(), command.begin() + view);
    if (command.empty()) return Interactive(models, defaults);
  }
  if (command[0] == "quit" || command[0] == "exit") return 0;
  return RunCommand(models, command, defaults) ? 0 : 1;
}

}  // namespace tbprof::cli
