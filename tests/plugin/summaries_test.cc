// Profile summaries as the server uses them (convert/tools/op_stats_summary.h,
// `tbprof summarize`, `serve --summary_dir` / `--write_summaries`), over HTTP:
//   - every tool of every host of multi-host runs (a synthetic pod, real GPU
//     xplanes as three hosts, two PyTorch ranks), ALL_HOSTS included, answers
//     the same bytes with summaries as without;
//   - with summaries, the op-statistics pages and the listings import no
//     profile (ProfileFileLoads);
//   - a summary of a changed profile, of another version or a damaged one is
//     ignored with a log line, and the answer is the profile's own;
//   - the server writes nothing unless --write_summaries; `tbprof summarize
//     --summary_dir` mirrors the logdir and writes nothing under it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "convert/load/profile_file.h"
#include "convert/tools/op_stats_summary.h"
#include "plugin/catalogue/summarize_job.h"
#include "plugin/routes.h"
#include "synthetic/profile_generator.h"
#include "tests/plugin/plugin_test_util.h"

namespace tbprof {
namespace {

using namespace testing_plugin;

// The tools whose answer is computed from OpStats alone.
const std::vector<std::string> kOpStatsTools = {"overview_page",  "input_pipeline_analyzer", "framework_op_stats",
                                                "tensorflow_stats", "kernel_stats",            "pod_viewer"};

std::vector<std::string> Strings(const json::value& v) {
  std::vector<std::string> out;
  for (const json::value& s : v.as_array()) out.emplace_back(s.as_string());
  return out;
}

// Every file under `dir`, relative to it.
std::set<std::string> FilesUnder(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_directory()) out.insert(fs::relative(e.path(), dir).string());
  }
  return out;
}

// The host a profile file serves: its name before the first dot.
std::string HostOf(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  return name.substr(0, name.find('.'));
}

std::set<std::string> SummariesUnder(const fs::path& dir) {
  std::set<std::string> out;
  for (const std::string& f : FilesUnder(dir)) {
    if (f.ends_with(kSummarySuffix) || f.find(".tmp.") != std::string::npos) out.insert(f);
  }
  return out;
}

// Summaries neither read nor written: every answer computed from the profiles.
SummaryPolicy NotReading() {
  SummaryPolicy p;
  p.read = false;
  return p;
}

class Summaries : public ::testing::Test {
 protected:
  void SetUp() override {
    logdir_ = fs::canonical(scratch_.path()) / "logdir";
    const SynthOptions pod{
        .out_dir = logdir_.string(), .run = "pod", .hosts = 3, .gpus = 2, .steps = 4, .events = 4000};
    auto written = GenerateSyntheticLogdir(pod);
    ASSERT_TRUE(written.ok()) << written.status().message();
    pod_files_ = *written;
    const fs::path real = TBPROF_TESTDATA;
    const fs::path gpu_run = logdir_ / "plugins/profile/real_gpu";
    fs::create_directories(gpu_run);
    fs::copy(real / "xplane/jax_rocm_mi300_conv_8gpu/tw003.xplane.pb", gpu_run / "conv8.xplane.pb");
    fs::copy(real / "xplane/jax_rocm_mi300_gemm/tw003.xplane.pb", gpu_run / "gemm.xplane.pb");
    fs::copy(real / "xplane/jax_rocm_mi355_fused_attn/934987a2fc2f.xplane.pb", gpu_run / "attn.xplane.pb");
    fs::create_directories(logdir_ / "hta");
    fs::copy(real / "kineto_hta/trace_compare/base.json.gz", logdir_ / "hta/rank-0.json.gz");
    fs::copy(real / "kineto_hta/trace_compare/test.json.gz", logdir_ / "hta/rank-1.json.gz");
    UsePolicy(SummaryPolicy{});
  }
  void TearDown() override { SetSummaryPolicy(SummaryPolicy{}); }

  // `policy`, with its log lines kept for the test.
  void UsePolicy(SummaryPolicy policy) {
    policy.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_.push_back(line);
    };
    SetSummaryPolicy(std::move(policy));
  }
  std::vector<std::string> TakeLog() {
    std::lock_guard<std::mutex> lock(log_mu_);
    return std::exchange(log_, {});
  }

  // Each target answered by a fresh in-process server: "status\nbody".
  std::map<std::string, std::string> Answers(const std::vector<std::string>& targets) {
    InProcessServer server(logdir_, OneWorker());
    RawClient client(server.port());
    EXPECT_TRUE(client.connected());
    std::map<std::string, std::string> out;
    for (const std::string& target : targets) {
      auto r = client.Get(target);
      EXPECT_TRUE(r.has_value()) << target;
      out[target] = r ? std::to_string(r->status) + "\n" + r->body : "no answer";
    }
    return out;
  }
  std::string Answer(const std::string& target) { return Answers({target})[target]; }

  // Every tool each run lists, on every host /hosts offers and on ALL_HOSTS,
  // as the UI asks them (found by a server without summaries).
  std::vector<std::string> EveryToolTarget() {
    InProcessServer server(logdir_, OneWorker());
    RawClient client(server.port());
    auto get_json = [&](const std::string& target) {
      auto r = client.Get(target);
      EXPECT_TRUE(r && r->status == 200) << target;
      return r ? json::parse(r->body) : json::value();
    };
    std::vector<std::string> targets;
    for (const std::string& run : Strings(get_json("/runs"))) {
      for (const std::string& tool : Strings(get_json("/run_tools?run=" + PercentEncode(run)))) {
        std::set<std::string> hosts = {"ALL_HOSTS"};
        const json::value offered = get_json("/hosts?run=" + PercentEncode(run) + "&tag=" + PercentEncode(tool));
        for (const json::value& h : offered.as_array()) {
          hosts.insert(std::string(h.as_object().at("hostname").as_string()));
        }
        const std::string extra = tool.starts_with("trace_viewer") ? "&resolution=2000"
                                  : tool == "graph_viewer"          ? "&type=programs"
                                                                    : "";
        for (const std::string& host : hosts) {
          targets.push_back("/data?run=" + PercentEncode(run) + "&tag=" + PercentEncode(tool) +
                            "&host=" + PercentEncode(host) + extra);
        }
      }
    }
    return targets;
  }

  // The op-statistics pages of every run, on ALL_HOSTS and on each host.
  std::vector<std::string> OpStatsTargets() {
    std::vector<std::string> targets;
    const std::map<std::string, std::vector<std::string>> hosts = {
        {"pod", {"ALL_HOSTS"}}, {"real_gpu", {"ALL_HOSTS", "conv8", "gemm", "attn"}}, {"hta", {"ALL_HOSTS", "rank-0", "rank-1"}}};
    std::vector<std::string> pod_hosts = {"ALL_HOSTS"};
    for (const std::string& f : pod_files_) pod_hosts.push_back(HostOf(f));
    for (const auto& [run, run_hosts] : hosts) {
      for (const std::string& tool : kOpStatsTools) {
        for (const std::string& host : run == "pod" ? pod_hosts : run_hosts) {
          targets.push_back("/data?run=" + run + "&tag=" + tool + "&host=" + host);
        }
      }
    }
    return targets;
  }

  void Summarize(const std::string& summary_dir = "") {
    SummarizeJob job;
    job.paths = {logdir_.string()};
    job.summary_dir = summary_dir;
    std::vector<std::string> lines;
    EXPECT_TRUE(RunSummarizeJob(job, [&](const std::string& l) { lines.push_back(l); }));
    EXPECT_EQ(lines.size(), pod_files_.size() + 5) << "one line per profile file";
    for (const std::string& l : lines) EXPECT_TRUE(l.starts_with("summarized ")) << l;
  }

  ScratchDir scratch_;
  fs::path logdir_;
  std::vector<std::string> pod_files_;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

TEST_F(Summaries, EveryToolAnswersTheSameBytesWithSummariesAsWithout) {
  std::vector<std::string> targets = EveryToolTarget();
  ASSERT_GT(targets.size(), 60u);
  // And the op-statistics pages on every host, those a run does not list (pod_viewer on GPUs) included.
  for (const std::string& t : OpStatsTargets()) {
    if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
  }
  const std::map<std::string, std::string> without = Answers(targets);
  int answered = 0;
  for (const auto& [target, answer] : without) answered += answer.starts_with("200\n");
  EXPECT_GT(answered, 50);
  Summarize();
  ASSERT_EQ(SummariesUnder(logdir_).size(), pod_files_.size() + 5);
  const std::map<std::string, std::string> with = Answers(targets);
  for (const std::string& target : targets) {
    EXPECT_EQ(with.at(target), without.at(target)) << target;
  }
  EXPECT_TRUE(TakeLog().empty()) << "no summary was ignored";
}

TEST_F(Summaries, WithSummariesTheOpStatsPagesAndListingsImportNoProfile) {
  Summarize();
  const uint64_t before = ProfileFileLoads();
  std::vector<std::string> targets = {"/runs", "/run_tools?run=pod", "/run_tools?run=real_gpu", "/run_tools?run=hta",
                                      "/hosts?run=pod&tag=overview_page", "/hosts?run=hta&tag=framework_op_stats"};
  for (const std::string& t : OpStatsTargets()) targets.push_back(t);
  const std::map<std::string, std::string> answers = Answers(targets);
  EXPECT_EQ(ProfileFileLoads(), before) << "a profile was imported";
  for (const auto& [target, answer] : answers) EXPECT_TRUE(answer.starts_with("200\n")) << target << ": " << answer.substr(0, 200);
  // The counter does count: without summaries the same pages import every file.
  SetSummaryPolicy(NotReading());
  (void)Answers(OpStatsTargets());
  EXPECT_EQ(ProfileFileLoads() - before, pod_files_.size() + 5);
}

// trace_analysis of every run on ALL_HOSTS and on each host.
std::vector<std::string> TraceAnalysisTargets(const std::vector<std::string>& pod_files) {
  std::vector<std::string> targets;
  std::map<std::string, std::vector<std::string>> hosts = {
      {"pod", {"ALL_HOSTS"}}, {"real_gpu", {"ALL_HOSTS", "conv8", "gemm", "attn"}}, {"hta", {"ALL_HOSTS", "rank-0", "rank-1"}}};
  for (const std::string& f : pod_files) hosts["pod"].push_back(HostOf(f));
  for (const auto& [run, run_hosts] : hosts) {
    for (const std::string& host : run_hosts) targets.push_back("/data?run=" + run + "&tag=trace_analysis&host=" + host);
  }
  return targets;
}

// Model images removed: with them, a model would be read without an import,
// and the import counter would not see it.
void RemoveModelImages(const fs::path& dir) {
  std::vector<fs::path> images;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().string().ends_with(".tbprof-model")) images.push_back(e.path());
  }
  for (const fs::path& p : images) fs::remove(p);
}

TEST_F(Summaries, TraceAnalysisFromSummariesIsTheSameBytesAndLoadsNoModel) {
  const std::vector<std::string> targets = TraceAnalysisTargets(pod_files_);
  const std::map<std::string, std::string> without = Answers(targets);
  Summarize();
  RemoveModelImages(logdir_);
  const uint64_t before = ProfileFileLoads();
  const std::map<std::string, std::string> with = Answers(targets);
  EXPECT_EQ(ProfileFileLoads(), before) << "a profile was imported";
  for (const std::string& t : targets) {
    EXPECT_TRUE(with.at(t).starts_with("200\n")) << t << ": " << with.at(t).substr(0, 200);
    EXPECT_EQ(with.at(t), without.at(t)) << t;
  }
  EXPECT_TRUE(TakeLog().empty()) << "no summary was ignored";
  // Another step's critical path is no summary's: every host is read (and the answer is still the profiles').
  const std::string step = "/data?run=hta&tag=trace_analysis&host=ALL_HOSTS&step=2";
  const std::string with_step = Answer(step);
  EXPECT_EQ(ProfileFileLoads() - before, 2u);
  UsePolicy(NotReading());
  EXPECT_EQ(with_step, Answer(step));
}

// A summary whose trace_analysis sections are damaged still answers the
// op-statistics pages; trace_analysis reads that host's profile alone, says
// so in one line, and its answer is the profiles'.
TEST_F(Summaries, ADamagedTraceAnalysisSectionIsIgnoredWithALogLine) {
  const std::string target = "/data?run=pod&tag=trace_analysis&host=ALL_HOSTS";
  const std::string overview = "/data?run=pod&tag=overview_page&host=ALL_HOSTS";
  const std::map<std::string, std::string> right = Answers({target, overview});
  Summarize();
  const std::string summary_path = pod_files_[1] + kSummarySuffix;
  std::string damaged = ReadFile(summary_path);
  constexpr size_t kSectionsAt = 72;  // the header's end
  damaged[kSectionsAt + 40] ^= 0x04;
  WriteFile(summary_path, damaged);
  TakeLog();
  const uint64_t before = ProfileFileLoads();
  EXPECT_EQ(Answer(overview), right.at(overview));
  EXPECT_EQ(ProfileFileLoads(), before) << "the OpStats payload is sound and was not replaced by the profile";
  EXPECT_EQ(Answer(target), right.at(target));
  EXPECT_EQ(ProfileFileLoads() - before, 1u) << "only the damaged host's profile is read";
  const std::vector<std::string> log = TakeLog();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find(summary_path + " ignored for trace_analysis: damaged trace_analysis sections (checksum differs)"),
            std::string::npos)
      << log[0];
}

TEST_F(Summaries, SummariesUnderASummaryDirMirrorTheLogdirAndServe) {
  const fs::path sums = scratch_.path() / "sums";
  const std::set<std::string> logdir_files = FilesUnder(logdir_);
  const std::string all_pod = "/data?run=pod&tag=overview_page&host=ALL_HOSTS";
  const std::string without = Answer(all_pod);
  // The command itself, as a scheduler runs it.
  auto r = test_files::RunCommand(std::string(TBPROF_BINARY) + " summarize " + logdir_.string() + " --summary_dir " +
                                  sums.string() + " 2>&1");
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  EXPECT_EQ(FilesUnder(logdir_), logdir_files) << "summarize wrote under the logdir";
  for (const std::string& f : pod_files_) {
    const std::string rel = fs::relative(f, logdir_).string();
    EXPECT_TRUE(fs::is_regular_file(sums / (rel + kSummarySuffix))) << rel << " has no mirrored summary";
  }
  EXPECT_TRUE(fs::is_regular_file(sums / "hta/rank-1.json.gz.tbprof-summary"));
  EXPECT_EQ(SummariesUnder(sums).size(), pod_files_.size() + 5);
  SummaryPolicy under_sums;
  under_sums.summary_dir = sums.string(), under_sums.root = logdir_.string();
  UsePolicy(under_sums);
  const uint64_t before = ProfileFileLoads();
  EXPECT_EQ(Answer(all_pod), without);
  EXPECT_EQ(ProfileFileLoads(), before);
}

// Each way a summary can be wrong: it is ignored with a line saying why, and
// the answer is computed from the profile as if there were no summary.
TEST_F(Summaries, AWrongSummaryIsIgnoredWithALogLineAndTheAnswerIsRight) {
  const std::string host_file = pod_files_[1];
  const std::string host = HostOf(host_file);
  const std::vector<std::string> targets = {"/data?run=pod&tag=overview_page&host=ALL_HOSTS",
                                            "/data?run=pod&tag=framework_op_stats&host=" + host};
  const std::map<std::string, std::string> right = Answers(targets);
  Summarize();
  const std::string summary_path = host_file + kSummarySuffix;
  const std::string good_summary = ReadFile(summary_path);
  struct Damage {
    std::string name, why;
    std::function<void()> apply;
  };
  const std::vector<Damage> damages = {
      {"cut short", "damaged summary (cut short", [&] { WriteFile(summary_path, good_summary.substr(0, good_summary.size() - 9)); }},
      {"a flipped byte", "checksum differs", [&] {
         std::string s = good_summary;
         s[s.size() - 3] ^= 0x01;
         WriteFile(summary_path, s);
       }},
      {"another format version", "a summary of another version (", [&] {
         std::string s = good_summary;
         s[6] = static_cast<char>(s[6] + 1);
         WriteFile(summary_path, s);
       }},
      {"another layout version", "a summary of another version (", [&] {
         std::string s = good_summary;
         s[8] = static_cast<char>(s[8] + 1);
         WriteFile(summary_path, s);
       }},
      {"the profile touched", "another version of the profile", [&] {
         WriteFile(summary_path, good_summary);
         fs::last_write_time(host_file, fs::last_write_time(host_file) + std::chrono::seconds(3));
       }},
      {"no header", "not a tbprof summary", [&] { WriteFile(summary_path, "garbage"); }},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.name);
    d.apply();
    TakeLog();
    const uint64_t before = ProfileFileLoads();
    const std::map<std::string, std::string> answers = Answers(targets);
    for (const std::string& t : targets) EXPECT_EQ(answers.at(t), right.at(t)) << t;
    EXPECT_GE(ProfileFileLoads() - before, 1u) << "the profile was not read";
    const std::vector<std::string> log = TakeLog();
    ASSERT_FALSE(log.empty()) << "ignored without a line";
    EXPECT_NE(log[0].find(summary_path + " ignored: "), std::string::npos) << log[0];
    EXPECT_NE(log[0].find(d.why), std::string::npos) << log[0];
  }
}

// A profile rewritten with other content (as a re-capture would) keeps its
// old summary beside it: the answer is the new profile's, never the stale one.
TEST_F(Summaries, AChangedProfileIsNeverAnsweredFromItsOldSummary) {
  Summarize();
  const std::string host_file = pod_files_[0];
  const std::string host = HostOf(host_file);
  const std::string target = "/data?run=pod&tag=kernel_stats&host=" + host;
  const std::string old_answer = Answer(target);
  test_files::WriteSyntheticFile(host_file, test_files::SynthShape(/*gpus=*/2, /*steps=*/4, /*events=*/4000, /*seed=*/99));
  TakeLog();
  const std::string with_stale_summary = Answer(target);
  EXPECT_NE(with_stale_summary, old_answer) << "the rewritten profile should answer differently";
  const std::vector<std::string> log = TakeLog();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("ignored: a summary of another version of the profile"), std::string::npos) << log[0];
  UsePolicy(NotReading());
  EXPECT_EQ(with_stale_summary, Answer(target));
}

TEST_F(Summaries, TheServerWritesNothingUnlessToldTo) {
  const std::set<std::string> files = FilesUnder(logdir_);
  const std::string target = "/data?run=pod&tag=overview_page&host=ALL_HOSTS";
  auto ask = [&](const std::vector<std::string>& flags) {
    std::vector<std::string> args = {"--logdir", logdir_.string()};
    args.insert(args.end(), flags.begin(), flags.end());
    ServeProcess server(args, (scratch_.path() / "serve.err").string());
    RawClient client(server.port());
    auto r = client.Get(target);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 200) << r->body.substr(0, 200);
  };
  ask({});  // its start-up warm-up included
  EXPECT_EQ(FilesUnder(logdir_), files) << "the server wrote under the logdir";
  // --write_summaries: the summaries of the files it computed, beside them (and nothing else).
  ask({"--write_summaries", "--warm", "0"});
  std::set<std::string> expected;
  for (const std::string& f : pod_files_) expected.insert(fs::relative(f, logdir_).string() + kSummarySuffix);
  EXPECT_EQ(SummariesUnder(logdir_), expected);
  std::set<std::string> now = FilesUnder(logdir_);
  for (const std::string& s : expected) now.erase(s);
  EXPECT_EQ(now, files);
  // Under --summary_dir instead, mirroring the logdir.
  for (const std::string& s : expected) fs::remove(logdir_ / s);
  const fs::path sums = scratch_.path() / "served_sums";
  ask({"--write_summaries", "--warm", "0", "--summary_dir", sums.string()});
  EXPECT_EQ(FilesUnder(logdir_), files);
  EXPECT_EQ(SummariesUnder(sums), expected);
}

}  // namespace
}  // namespace tbprof
