// A rank's trace_analysis sections as a summary keeps them
// (trace_analysis_serial.h): the answer joined from sections read back from
// their bytes is byte for byte the answer computed from the models, for every
// rank alone and all side by side (ALL_HOSTS), on a synthetic multi-host GPU
// run and on PyTorch traces of several ranks (real ones, and built ones that
// state their rank or leave it to the host's position); any cut or garbling
// of the bytes is refused, never a crash nor a huge allocation.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/trace_analysis.h"
#include "convert/analysis/trace_analysis/trace_analysis_serial.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/load/profile_file.h"
#include "synthetic/profile_generator.h"
#include "tests/convert/kineto/kineto_trace_writer.h"
#include "tests/testing/test_files.h"
#include "tests/testing/test_paths.h"

namespace tbprof::trace_analysis {
namespace {

namespace fs = std::filesystem;

struct Host {
  std::string name;
  std::unique_ptr<XSpaceModel> model;
};

// The answer for `hosts` (each at its position), from the models and from
// the sections' bytes; `top` kernels per type.
void ExpectSameAnswers(const std::vector<const Host*>& hosts, size_t top) {
  std::vector<RankModel> models;
  std::vector<RankSections> read_back;
  for (size_t i = 0; i < hosts.size(); ++i) {
    models.push_back({hosts[i]->model.get(), hosts[i]->name, static_cast<int64_t>(i)});
    auto back = DeserializeRankSections(SerializeRankSections(ComputeRankSections(*hosts[i]->model)));
    ASSERT_TRUE(back.ok()) << hosts[i]->name << ": " << back.status().message();
    read_back.push_back(std::move(*back));
    AssignRank(read_back.back(), static_cast<int64_t>(i), hosts[i]->name);
  }
  TraceAnalysisOptions options;
  options.top_kernels = top;
  const std::vector<HostLeftOut> left_out = {HostLeftOut{"gone", "unreadable"}};
  const std::string from_models = TraceAnalysisJson(models, left_out, options);
  const std::string from_bytes = CombineRanksJson(std::move(read_back), left_out, top);
  EXPECT_GT(from_models.size(), 500u);
  EXPECT_EQ(from_bytes, from_models);
}

// Every host alone, then all of them, at a few top_kernels.
void ExpectSameAnswersForEveryChoice(const std::vector<Host>& hosts) {
  std::vector<const Host*> all;
  for (const Host& h : hosts) {
    SCOPED_TRACE(h.name);
    ExpectSameAnswers({&h}, 10);
    all.push_back(&h);
  }
  for (size_t top : {size_t{1}, size_t{10}, size_t{100000}}) {
    SCOPED_TRACE("all hosts, top " + std::to_string(top));
    ExpectSameAnswers(all, top);
  }
}

Host Loaded(const std::string& name, const std::string& path) {
  auto m = LoadProfileFile(path);
  EXPECT_TRUE(m.ok()) << path << ": " << m.status().message();
  return {name, m.ok() ? std::move(*m) : std::make_unique<XSpaceModel>()};
}

// One step: an aten::addmm launching a GEMM, and an NCCL kernel on another
// stream beside it; `stated_rank` < 0: the trace states none.
std::unique_ptr<XSpaceModel> BuiltRank(int64_t step_us, int stated_rank) {
  testing_kineto::TraceWriter t;
  if (stated_rank >= 0) t.Rank(stated_rank);
  t.Host("user_annotation", "ProfilerStep#1", 0, step_us * 1000, R"("External id": 1)");
  t.Host("cpu_op", "aten::addmm", 1'000, 30'000,
         R"("External id": 2, "Input Dims": [[8, 4], [8, 16], [16, 4]], "Input type": ["float", "float", "float"])");
  t.Launch(2'000, 3'000, 10'000, 25'000, "volta_sgemm_128x64_nn", 5, 2);
  t.Launch(6'000, 2'000, 12'000, 40'000, "ncclDevKernel_AllReduce_Sum_f32", 6, 2, "", 8);
  auto m = ParseKinetoTrace(t.Json(), "rank.pt.trace.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : std::make_unique<XSpaceModel>();
}

TEST(TraceAnalysisSerial, SyntheticMultiHostGpuRunAnswersTheSameFromBytes) {
  SynthOptions pod;
  pod.out_dir = test_files::TempPath("ta_serial_pod");
  fs::remove_all(pod.out_dir);
  pod.run = "pod", pod.hosts = 3, pod.gpus = 2, pod.steps = 4, pod.events = 4000;
  auto files = GenerateSyntheticLogdir(pod);
  ASSERT_TRUE(files.ok()) << files.status().message();
  std::vector<Host> hosts;
  for (const std::string& f : *files) hosts.push_back(Loaded(fs::path(f).filename().string(), f));
  ExpectSameAnswersForEveryChoice(hosts);
  fs::remove_all(pod.out_dir);
}

TEST(TraceAnalysisSerial, PyTorchRanksAnswerTheSameFromBytes) {
  const fs::path real = TBPROF_TESTDATA;
  std::vector<Host> hosts;
  hosts.push_back(Loaded("base", (real / "kineto_hta/trace_compare/base.json.gz").string()));
  hosts.push_back(Loaded("test", (real / "kineto_hta/trace_compare/test.json.gz").string()));
  hosts.push_back(Loaded("bert", (real / "kineto_nvidia/h100_bert_small.pt.trace.json.gz").string()));
  hosts.push_back(Loaded("mi250", (real / "kineto_hta/amd/mi250_minitoy_train_ROCm6_2_kineto.json.gz").string()));
  hosts.push_back({"stated3", BuiltRank(100, 3)});
  hosts.push_back({"unstated", BuiltRank(150, -1)});
  ExpectSameAnswersForEveryChoice(hosts);
}

// A small rank's bytes with every section filled (a path, a roofline row, launches, two kernel types).
std::string SomeBytes() { return SerializeRankSections(ComputeRankSections(*BuiltRank(100, 3))); }

TEST(TraceAnalysisSerial, EveryCutIsRefused) {
  const std::string bytes = SomeBytes();
  ASSERT_GT(bytes.size(), 300u);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto cut = DeserializeRankSections(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(cut.ok()) << "cut to " << n << " of " << bytes.size() << " bytes was accepted";
    EXPECT_EQ(cut.status().code(), ErrorCode::kDataLoss);
  }
  EXPECT_FALSE(DeserializeRankSections(bytes + '\0').ok()) << "a trailing byte was accepted";
}

// Garbled bytes decode to DataLoss or to some sections (a summary's checksum
// refuses those first); whatever they decode to, the answer is written
// without reading past any table.
TEST(TraceAnalysisSerial, GarbledBytesNeverCrashTheAnswer) {
  const std::string bytes = SomeBytes();
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::string garbled = bytes;
    garbled[at] = static_cast<char>(garbled[at] ^ 0x41);
    auto r = DeserializeRankSections(garbled);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), ErrorCode::kDataLoss);
      continue;
    }
    std::vector<RankSections> one;
    one.push_back(std::move(*r));
    AssignRank(one.back(), 0, "garbled");
    EXPECT_FALSE(CombineRanksJson(std::move(one), {}, 10).empty());
  }
}

TEST(TraceAnalysisSerial, CountsLargerThanThePayloadAreRefusedWithoutAllocating) {
  // No stated rank, an empty framework, 0 kernels, the temporal row, then the
  // overlap classes and the first kernel type's count: 2^62.
  std::string huge = std::string("\x00\x00\x00", 3) + std::string(5, '\x00') + std::string(16, '\x00');
  huge += std::string(8, '\xff') + '\x3f';
  auto r = DeserializeRankSections(huge);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kDataLoss);
}

}  // namespace
}  // namespace tbprof::trace_analysis
