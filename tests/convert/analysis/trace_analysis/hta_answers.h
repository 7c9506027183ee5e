// HTA's answers for the shared PyTorch traces (tests/realdata/hta_answers/),
// read from the CSV files HTA wrote, and the traces they answer, loaded and
// read as trace_analysis reads them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "convert/analysis/trace_analysis/trace_analysis_kernels.h"
#include "convert/load/profile_file.h"
#include "convert/model/schema.h"

namespace tbprof::trace_analysis::testing {

namespace fs = std::filesystem;

inline const fs::path& Testdata() {
  static const fs::path p = TBPROF_TESTDATA;
  return p;
}

// One CSV file as rows of fields (quotes as pandas writes them: a field with
// a comma or quote is quoted, a quote doubled).
inline std::vector<std::vector<std::string>> ReadCsv(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"', ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true, any = true;
    } else if (c == ',') {
      row.push_back(field), field.clear(), any = true;
    } else if (c == '\n') {
      row.push_back(field), field.clear();
      rows.push_back(row), row.clear(), any = false;
    } else if (c != '\r') {
      field += c, any = true;
    }
  }
  if (any) row.push_back(field), rows.push_back(row);
  return rows;
}

// A number HTA wrote; NaN for an empty field (pandas' NaN).
inline double Num(const std::string& s) { return s.empty() ? std::nan("") : std::stod(s); }

struct HtaCase {
  std::string answers;  // folder under hta_answers/
  std::string trace;    // path under the test data
};

inline std::vector<HtaCase> HtaCases() {
  return {{"base", "kineto_hta/trace_compare/base.json.gz"},
          {"test", "kineto_hta/trace_compare/test.json.gz"},
          {"mi250", "kineto_hta/amd/mi250_minitoy_train_ROCm6_2_kineto.json.gz"},
          {"triton", "kineto_hta/triton/triton_example.json.gz"},
          {"bert", "kineto_nvidia/h100_bert_small.pt.trace.json.gz"},
          {"b200", "kineto_nvidia/b200_vllm_eager.pt.trace.json.gz"},
          {"resnet0", "kineto_torch_tb_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"}};
}

inline std::vector<std::vector<std::string>> Answer(const HtaCase& c, const std::string& file) {
  return ReadCsv(Testdata() / "hta_answers" / c.answers / file);
}

struct LoadedRank {
  std::unique_ptr<XSpaceModel> model;
  RankKernels rank;
};

inline LoadedRank LoadRank(const std::string& trace, int64_t fallback_rank = 0) {
  LoadedRank r;
  auto m = LoadProfileFile((Testdata() / trace).string());
  EXPECT_TRUE(m.ok()) << trace << ": " << m.status().message();
  if (!m.ok()) return r;
  r.model = std::move(*m);
  r.rank = ExtractRankKernels(*r.model, RankOfModel(*r.model, fallback_rank), trace);
  return r;
}

// HTA's input: with two or more ProfilerSteps, HTA keeps only the device ops
// whose launch began inside a step ([start, end) of a `ProfilerStep#N` host
// event), the last step included; a device op launched outside every step,
// or with no launch in the trace, is left out. tbprof keeps every device op
// the trace holds, so its own answer is compared on this selection too.
inline RankKernels AsHtaSelects(const LoadedRank& r, size_t hta_steps) {
  if (hta_steps < 2) return r.rank;
  std::vector<std::pair<int64_t, int64_t>> steps;
  const XPlaneModel* host = r.model->FindPlane(schema::kHostPlane);
  for (uint32_t e = 0; host != nullptr && e < host->events.size(); ++e) {
    if (r.model->Str(host->EventName(e)).starts_with("ProfilerStep#")) {
      steps.push_back({host->events[e].begin_ps, host->events[e].end_ps()});
    }
  }
  auto in_step = [&](int64_t t) {
    for (auto [b, e] : steps) {
      if (b <= t && t < e) return true;
    }
    return false;
  };
  RankKernels out = r.rank;
  out.launches.clear();
  out.num_kernels = 0;
  for (GpuStream& s : out.streams) s.kernels.clear();
  std::vector<std::vector<std::pair<const GpuKernel*, uint32_t>>> per_stream(out.streams.size());
  for (const Launch& l : r.rank.launches) {
    if (!in_step(l.begin_ps)) continue;
    per_stream[l.stream].push_back({&r.rank.streams[l.stream].kernels[l.kernel], static_cast<uint32_t>(out.launches.size())});
    out.launches.push_back(l);
  }
  for (uint32_t s = 0; s < per_stream.size(); ++s) {
    std::sort(per_stream[s].begin(), per_stream[s].end(),
              [](const auto& a, const auto& b) { return a.first->begin_ps < b.first->begin_ps; });
    for (auto [k, launch] : per_stream[s]) {
      out.launches[launch].kernel = static_cast<uint32_t>(out.streams[s].kernels.size());
      GpuKernel copy = *k;
      copy.launch = launch;
      out.streams[s].kernels.push_back(copy);
      ++out.num_kernels;
    }
  }
  return out;
}

}  // namespace tbprof::trace_analysis::testing
