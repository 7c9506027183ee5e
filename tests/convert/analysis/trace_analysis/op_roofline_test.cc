// op_roofline: FLOPs and bytes from recorded shapes, against hand-computed
// cases and TraceLens's own GEMM report of two real H100 traces.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "convert/analysis/trace_analysis/op_roofline.h"
#include "convert/analysis/trace_analysis/op_shape_cost.h"
#include "convert/kineto/kineto_reader.h"
#include "convert/load/profile_file.h"
#include "tests/convert/kineto/kineto_trace_writer.h"

namespace tbprof::trace_analysis {
namespace {

using testing_kineto::TraceWriter;
namespace fs = std::filesystem;

OpCost CostOf(std::string_view op, std::string_view dims, std::string_view types, std::string_view concrete = "[]") {
  return OpCostOf(op, ParseOpArgs(dims, types), ParseConcreteInputs(concrete));
}

TEST(OpShapeCost, GemmConvAttentionElementwiseByHand) {
  // addmm: bias [N], A [M,K], B [K,N]: 2MNK + MN FLOPs; (MK + KN + MN + N) × 2 bytes.
  OpCost addmm = CostOf("aten::addmm", "[[512], [141, 512], [512, 512], [], []]",
                        R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
  EXPECT_DOUBLE_EQ(*addmm.flops, 2.0 * 141 * 512 * 512 + 141 * 512);
  EXPECT_DOUBLE_EQ(*addmm.bytes, (141.0 * 512 + 512 * 512 + 141 * 512 + 512) * 2);
  // bmm in float: [B,M,K] × [B,K,N].
  OpCost bmm = CostOf("aten::bmm", "[[4, 8, 16], [4, 16, 32]]", R"(["float", "float"])");
  EXPECT_DOUBLE_EQ(*bmm.flops, 4.0 * 2 * 8 * 32 * 16);
  EXPECT_DOUBLE_EQ(*bmm.bytes, 4.0 * (8 * 16 + 16 * 32 + 8 * 32) * 4);
  // conv2d 3×3, stride 2, padding 1: 32×32 → 16×16; N=2, C=3, K=8, bias.
  OpCost conv = CostOf("aten::convolution", "[[2, 3, 32, 32], [8, 3, 3, 3], [8], [], [], [], [], [], []]",
                       R"(["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
                       R"(["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])");
  const double out = 2.0 * 8 * 16 * 16;
  EXPECT_DOUBLE_EQ(*conv.flops, 2 * out * 3 * 9 + out);
  EXPECT_DOUBLE_EQ(*conv.bytes, (2.0 * 3 * 32 * 32 + 8 * 3 * 9 + 8 + out) * 4);
  // Without the stride and padding the output is unknown.
  EXPECT_FALSE(CostOf("aten::convolution", "[[2, 3, 32, 32], [8, 3, 3, 3], [8]]", R"(["float", "float", "float"])")
                   .flops.has_value());
  // Flash attention [B, N, H, d], causal (the 9th concrete input): 4·B·H·N²·d / 2.
  OpCost flash = CostOf("aten::_flash_attention_forward", "[[1, 141, 8, 64], [1, 141, 8, 64], [1, 141, 8, 64]]",
                        R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])",
                        R"(["", "", "", "", "", "141", "141", "0.", "True", "False", "0.125"])");
  EXPECT_DOUBLE_EQ(*flash.flops, 4.0 * 8 * 141 * 141 * 64 / 2);
  EXPECT_DOUBLE_EQ(*flash.bytes, 4.0 * 141 * 8 * 64 * 2);
  // Elementwise: broadcast add, one FLOP per output element.
  OpCost add = CostOf("aten::add", "[[4, 1, 8], [3, 1], []]", R"(["float", "float", "Scalar"])");
  EXPECT_DOUBLE_EQ(*add.flops, 4.0 * 3 * 8);
  EXPECT_DOUBLE_EQ(*add.bytes, (32.0 + 3 + 96) * 4);
  // No formula, or no shapes: unknown.
  EXPECT_FALSE(CostOf("aten::index_select", "[[30522, 512], [], [141]]", R"(["float", "Scalar", "long int"])").flops);
  EXPECT_FALSE(CostOf("aten::mm", "", "").flops);
}

OpRoofline RooflineOf(const XSpaceModel& space) { return ComputeOpRoofline(space, ExtractRankKernels(space, 0, "h")); }

std::unique_ptr<XSpaceModel> Import(const std::string& json) {
  auto m = ParseKinetoTrace(json, "test.pt.trace.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : std::make_unique<XSpaceModel>();
}

TEST(OpRoofline, KernelTimeGoesToTheInnermostOpWithAFormula) {
  TraceWriter t;
  const std::string addmm_args =
      R"("External id": 2, "Input Dims": [[512], [141, 512], [512, 512], [], []], )"
      R"("Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])";
  t.Host("cpu_op", "aten::linear", 0, 40'000,
         R"("External id": 1, "Input Dims": [[1, 141, 512], [512, 512], [512]], )"
         R"("Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
  t.Host("cpu_op", "aten::addmm", 5'000, 30'000, addmm_args);
  t.Launch(10'000, 5'000, 20'000, 5'000, "gemm_kernel", 7, 2);
  t.Host("cpu_op", "aten::index_select", 50'000, 10'000, R"("External id": 3, "Input Dims": [[30522, 512], [], [141]])");
  t.Launch(52'000, 3'000, 56'000, 2'000, "index_kernel", 8, 3);
  OpRoofline r = RooflineOf(*Import(t.Json()));
  ASSERT_TRUE(r.pytorch);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].op, "aten::addmm");  // not aten::linear, which holds it
  EXPECT_EQ(r.rows[0].count, 1);
  EXPECT_EQ(r.rows[0].kernel_ps, 5'000'000);
  EXPECT_DOUBLE_EQ(*r.rows[0].flops, 73'996'800.0);
  EXPECT_DOUBLE_EQ(*r.rows[0].bytes, 814'080.0);
  EXPECT_EQ(r.rows[1].op, "aten::index_select");
  EXPECT_EQ(r.rows[1].kernel_ps, 2'000'000);
  EXPECT_FALSE(r.rows[1].flops.has_value());
  std::string json;
  AppendOpRooflineJson({{0, &r}}, json);
  // 73,996,800 FLOPs in 5 µs: 14.79936 TFLOP/s; intensity 73996800 / 814080.
  EXPECT_NE(json.find(R"("tflops_per_s":14.79936)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("arithmetic_intensity":90.89622641509433)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("op":"aten::index_select","input_dims":"[[30522,512],[],[141]]","input_types":"","count":1,"time_us":2,"flops":null,"bytes":null,"tflops_per_s":null)"),
            std::string::npos)
      << json;
}

TEST(OpRoofline, TheProfilersOwnFlopsWin) {
  TraceWriter t;
  t.Host("cpu_op", "aten::mm", 0, 20'000,
         R"("External id": 1, "Input Dims": [[4, 4], [4, 4]], "Input type": ["float", "float"], "flops": 1000)");
  t.Launch(1'000, 2'000, 5'000, 1'000, "k", 1, 1);
  OpRoofline r = RooflineOf(*Import(t.Json()));
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*r.rows[0].flops, 1000.0);
  EXPECT_DOUBLE_EQ(*r.rows[0].bytes, 3 * 16 * 4.0);
}

// A CSV line split into fields, quotes honoured (TraceLens writes lists in quotes).
std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back().push_back(c);
    }
  }
  return out;
}

std::string NoSpaces(std::string s) {
  std::erase(s, ' ');
  return s;
}

// TraceLens's GEMM.csv for a trace: per op and shape, GFLOPs and MB (2^20
// bytes) per call, kernel time summed, calls.
void ExpectTraceLensGemms(const std::string& trace, const std::string& csv) {
  const fs::path data(TBPROF_TESTDATA);
  auto model = LoadProfileFile((data / trace).string());
  ASSERT_TRUE(model.ok()) << model.status().message();
  OpRoofline r = RooflineOf(**model);
  std::map<std::pair<std::string, std::string>, const OpRooflineRow*> ours;
  for (const OpRooflineRow& row : r.rows) ours[{row.op, NoSpaces(row.input_dims)}] = &row;
  std::ifstream in(data / csv);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = CsvFields(line);
  auto col = [&](std::string_view name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  int rows = 0;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = CsvFields(line);
    const std::string key = f[col("name")] + " " + f[col("Input Dims_first")];
    auto it = ours.find({f[col("name")], NoSpaces(f[col("Input Dims_first")])});
    ASSERT_NE(it, ours.end()) << key;
    const OpRooflineRow& row = *it->second;
    const double calls = std::stod(f[col("name_count")]);
    EXPECT_EQ(row.count, static_cast<int64_t>(calls)) << key;
    EXPECT_NEAR(*row.flops / calls, std::stod(f[col("GFLOPS_first")]) * 1e9, 1e-6 * *row.flops / calls) << key;
    EXPECT_NEAR(*row.bytes / calls / (1 << 20), std::stod(f[col("Data Moved (MB)_first")]), 1e-9) << key;
    // TraceLens's kernel times are the trace's µs as floats: within 1 ns a kernel.
    EXPECT_NEAR(static_cast<double>(row.kernel_ps) / 1e6, std::stod(f[col("Kernel Time (µs)_sum")]), 1e-3 * calls)
        << key;
    ++rows;
  }
  EXPECT_GT(rows, 3);
}

TEST(OpRoofline, MatchesTraceLensGemmReports) {
  ExpectTraceLensGemms("kineto_nvidia/h100_bert_small.pt.trace.json.gz",
                       "kineto_nvidia/h100_bert_small_tracelens_csvs/GEMM.csv");
  ExpectTraceLensGemms("kineto_nvidia/h100_qwen1.5_0.5b.pt.trace.json.gz",
                       "kineto_nvidia/h100_qwen1.5_0.5b_tracelens_csvs/GEMM.csv");
}

TEST(OpRoofline, NotAPyTorchTraceHasNoRowsAndSaysWhy) {
  XSpaceModel empty;
  OpRoofline r = RooflineOf(empty);
  EXPECT_FALSE(r.pytorch);
  std::string json;
  AppendOpRooflineJson({{0, &r}}, json);
  EXPECT_NE(json.find(R"("rows":[])"), std::string::npos);
  EXPECT_NE(json.find("not a PyTorch trace"), std::string::npos);
}

}  // namespace
}  // namespace tbprof::trace_analysis
