// op_roofline: FLOPs and bytes from recorded shapes, against hand-computed
// cases and TraceLens's own GEMM report of two real H100 traces.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>

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
  AppendOpRooflineJson({{0, "h", &r}}, json);
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

// One GPU of the named part running, one call each (kernel times in µs):
// bf16 mm 4096×4096×4096 (500), fp16 mm 16×4096×4096 (20), fp32 mm
// 1024×1024×1024 (200), bf16 add of two 4096×4096 (100).
std::unique_ptr<XSpaceModel> FourOpsOn(const std::string& device_name) {
  TraceWriter t;
  t.Properties(R"({"id": 0, "name": ")" + device_name +
               R"(", "totalGlobalMem": 85899345920, "computeMajor": 8, "computeMinor": 0, "numSms": 108, "warpSize": 32})");
  struct Op {
    std::string name, dims, types;
    int64_t kernel_us;
  };
  const std::vector<Op> ops = {
      {"aten::mm", "[[4096, 4096], [4096, 4096]]", R"(["c10::BFloat16", "c10::BFloat16"])", 500},
      {"aten::mm", "[[16, 4096], [4096, 4096]]", R"(["c10::Half", "c10::Half"])", 20},
      {"aten::mm", "[[1024, 1024], [1024, 1024]]", R"(["float", "float"])", 200},
      {"aten::add", "[[4096, 4096], [4096, 4096], []]", R"(["c10::BFloat16", "c10::BFloat16", "Scalar"])", 100},
  };
  int64_t at = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const int id = static_cast<int>(i) + 1;
    const int64_t dur = ops[i].kernel_us * 1000;
    t.Host("cpu_op", ops[i].name, at, dur + 20'000,
           R"("External id": )" + std::to_string(id) + R"(, "Input Dims": )" + ops[i].dims + R"(, "Input type": )" +
               ops[i].types);
    t.Launch(at + 1'000, 2'000, at + 5'000, dur, "kernel_" + std::to_string(id), id, id);
    at += dur + 30'000;
  }
  return Import(t.Json());
}

const OpRooflineRow& RowWithDims(const OpRoofline& r, std::string_view dims) {
  for (const OpRooflineRow& row : r.rows) {
    if (row.input_dims == dims) return row;
  }
  ADD_FAILURE() << "no row " << dims;
  return r.rows.front();
}

// By hand on an A100 SXM4 80GB (datasheet: FP32 19.5, BF16/FP16 tensor 312
// TFLOP/s, HBM 2,039 GB/s): ridge points 312e12 / 2039e9 = 153.016… and
// 19.5e12 / 2039e9 = 9.5635… FLOP/byte.
TEST(OpRoofline, GemmsAndAnAddOnAnA100ByHand) {
  auto model = FourOpsOn("NVIDIA A100-SXM4-80GB");
  OpRoofline r = RooflineOf(*model);
  ASSERT_EQ(r.rows.size(), 4u);
  const double ridge_tensor = 312e12 / 2039e9, ridge_fp32 = 19.5e12 / 2039e9;

  // bf16 4096³: 2·4096³ = 137,438,953,472 FLOPs over 3·4096²·2 = 100,663,296
  // bytes, 1,365.33 FLOP/byte: right of the ridge, compute bound; 274.88
  // TFLOP/s achieved in 500 µs, 88.1 % of the 312 roof.
  const OpRoofs big = RoofsOf(RowWithDims(r, "[[4096,4096],[4096,4096]]"), r.peaks);
  EXPECT_EQ(big.precision, RoofPrecision::kBf16);
  EXPECT_DOUBLE_EQ(*big.arithmetic_intensity, 137438953472.0 / 100663296.0);
  EXPECT_DOUBLE_EQ(*big.ridge_intensity, ridge_tensor);
  EXPECT_EQ(big.bound, "compute");
  EXPECT_DOUBLE_EQ(*big.compute_roof_tflops, 312);
  EXPECT_DOUBLE_EQ(*big.roof_tflops, 312);
  EXPECT_NEAR(*big.achieved_tflops, 274.877906944, 1e-9);
  EXPECT_NEAR(*big.roof_pctg, 100 * 274.877906944 / 312, 1e-9);

  // fp16 16×4096×4096: 536,870,912 FLOPs over (16·4096·2 + 4096²)·2 =
  // 33,816,576 bytes, 15.876 FLOP/byte: left of the ridge, memory bound
  // under a roof of 15.876 × 2,039 GB/s = 32.37 TFLOP/s.
  const OpRoofs skinny = RoofsOf(RowWithDims(r, "[[16,4096],[4096,4096]]"), r.peaks);
  EXPECT_EQ(skinny.precision, RoofPrecision::kFp16);
  EXPECT_EQ(skinny.bound, "memory");
  EXPECT_NEAR(*skinny.roof_tflops, 536870912.0 / 33816576.0 * 2039 / 1000, 1e-9);

  // fp32 1024³: 2,147,483,648 FLOPs over 12,582,912 bytes, 170.67 FLOP/byte:
  // compute bound on the CUDA cores' 19.5 (TF32 is off for matmuls).
  const OpRoofs fp32 = RoofsOf(RowWithDims(r, "[[1024,1024],[1024,1024]]"), r.peaks);
  EXPECT_EQ(fp32.precision, RoofPrecision::kFp32);
  EXPECT_DOUBLE_EQ(*fp32.ridge_intensity, ridge_fp32);
  EXPECT_EQ(fp32.bound, "compute");
  EXPECT_DOUBLE_EQ(*fp32.roof_tflops, 19.5);

  // add: 16,777,216 FLOPs over 3·4096²·2 bytes, 1/6 FLOP/byte: memory bound,
  // roof 2,039 / 6 GFLOP/s.
  const OpRoofs add = RoofsOf(RowWithDims(r, "[[4096,4096],[4096,4096],[]]"), r.peaks);
  EXPECT_EQ(add.precision, RoofPrecision::kFp32);
  EXPECT_DOUBLE_EQ(*add.arithmetic_intensity, 1.0 / 6);
  EXPECT_EQ(add.bound, "memory");
  EXPECT_NEAR(*add.roof_tflops, 2039.0 / 6 / 1000, 1e-12);

  // The JSON: the device's roofs, and each row's.
  std::string json;
  AppendOpRooflineJson({{0, "h", &r}}, json);
  const boost::json::object doc = boost::json::parse("{" + json + "}").as_object().at("op_roofline").as_object();
  const boost::json::object& peaks = doc.at("peaks").as_object();
  EXPECT_EQ(peaks.at("gpu_name"), "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(peaks.at("datasheet"), "A100 SXM4 80GB");
  EXPECT_EQ(peaks.at("memory_gbps").to_number<double>(), 2039);
  EXPECT_EQ(peaks.at("tflops").to_number<double>(), 312);
  EXPECT_EQ(peaks.at("fp32_tflops").to_number<double>(), 19.5);
  EXPECT_EQ(peaks.at("tf32_tflops").to_number<double>(), 156);
  int bound = 0;
  for (const auto& row : doc.at("rows").as_array()) {
    EXPECT_EQ(row.at("host"), "h");
    if (row.at("input_dims") == "[[4096,4096],[4096,4096]]") {
      EXPECT_EQ(row.at("bound"), "compute");
      EXPECT_EQ(row.at("roof_precision"), "bf16");
      EXPECT_EQ(row.at("roof_tflops").to_number<double>(), 312);
      EXPECT_NEAR(row.at("ridge_intensity").to_number<double>(), ridge_tensor, 1e-9);
      ++bound;
    }
  }
  EXPECT_EQ(bound, 1);
}

// A part the table does not know: FLOPs and bytes stay known, every roof and
// bound unknown (null), not 0.
TEST(OpRoofline, UnknownDeviceLeavesRoofsUnknown) {
  auto model = FourOpsOn("NVIDIA A100-PG509-200");
  OpRoofline r = RooflineOf(*model);
  ASSERT_EQ(r.rows.size(), 4u);
  for (const OpRooflineRow& row : r.rows) {
    const OpRoofs roofs = RoofsOf(row, r.peaks);
    EXPECT_TRUE(roofs.arithmetic_intensity.has_value());
    EXPECT_FALSE(roofs.roof_tflops.has_value());
    EXPECT_FALSE(roofs.ridge_intensity.has_value());
    EXPECT_TRUE(roofs.bound.empty());
  }
  std::string json;
  AppendOpRooflineJson({{0, "h", &r}}, json);
  EXPECT_NE(json.find(R"("datasheet":null,"tflops":null,"memory_gbps":null)"), std::string::npos) << json;
  EXPECT_EQ(json.find(R"("bound":"memory")"), std::string::npos);
  EXPECT_EQ(json.find(R"("bound":"compute")"), std::string::npos);
}

OpRoofline RealRoofline(const std::string& trace) {
  auto model = LoadProfileFile((fs::path(TBPROF_TESTDATA) / trace).string());
  EXPECT_TRUE(model.ok()) << model.status().message();
  return model.ok() ? RooflineOf(**model) : OpRoofline{};
}

// vLLM on a B200 (HGX B200 brief: BF16 tensor 2,250 TFLOP/s dense, 8 TB/s):
// the o_proj addmm, bias [640] + [888, 2880] × [2880, 640] in bf16, is
// 2·888·640·2880 + 888·640 = 3,274,091,520 FLOPs over (888·2880 + 2880·640 +
// 888·640 + 640)·2 = 9,939,200 bytes a call: 329.4 FLOP/byte, right of the
// ridge at 2,250e12 / 8,000e9 = 281.25, so compute bound under 2,250.
TEST(OpRoofline, RealB200TraceHasDatasheetRoofs) {
  OpRoofline r = RealRoofline("kineto_nvidia/b200_vllm_eager.pt.trace.json.gz");
  ASSERT_NE(r.peaks.datasheet, nullptr);
  EXPECT_EQ(r.peaks.gpu_name, "NVIDIA B200");
  const OpRooflineRow& addmm = RowWithDims(r, "[[640],[888,2880],[2880,640],[],[]]");
  ASSERT_EQ(addmm.op, "aten::addmm");
  ASSERT_GT(addmm.count, 0);
  const double calls = static_cast<double>(addmm.count);
  EXPECT_DOUBLE_EQ(*addmm.flops / calls, 3274091520.0);
  EXPECT_DOUBLE_EQ(*addmm.bytes / calls, 9939200.0);
  const OpRoofs roofs = RoofsOf(addmm, r.peaks);
  EXPECT_EQ(roofs.precision, RoofPrecision::kBf16);
  EXPECT_DOUBLE_EQ(*roofs.ridge_intensity, 281.25);
  EXPECT_EQ(roofs.bound, "compute");
  EXPECT_DOUBLE_EQ(*roofs.roof_tflops, 2250);
  // Every row with known FLOPs and bytes and a precision has a bound: the
  // trace's three addmm shapes, the lm_head mm and one integer aten::sub
  // (the trace's other ops have no formula: MoE, collectives, copies, norms).
  int bounded = 0;
  for (const OpRooflineRow& row : r.rows) {
    const OpRoofs o = RoofsOf(row, r.peaks);
    if (o.arithmetic_intensity && o.precision != RoofPrecision::kUnknown) {
      EXPECT_FALSE(o.bound.empty()) << row.op;
      ++bounded;
    }
  }
  EXPECT_EQ(bounded, 5);
}

// ResNet-50 on a DGX Station's V100 (SXM2: FP32 15.7 TFLOP/s, 900 GB/s): the
// residual add_ of two [32, 256, 56, 56] fp32 tensors, 25,690,112 FLOPs a call
// over 3 × 25,690,112 × 4 bytes, 1/12 FLOP/byte: memory bound left of the
// ridge at 15.7e12 / 900e9 = 17.44, under a roof of 900 / 12 GFLOP/s.
TEST(OpRoofline, RealV100TraceHasDatasheetRoofs) {
  OpRoofline r = RealRoofline("kineto_torch_tb_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz");
  ASSERT_NE(r.peaks.datasheet, nullptr);
  EXPECT_EQ(r.peaks.gpu_name, "Tesla V100-DGXS-32GB");
  const OpRooflineRow* add = nullptr;
  for (const OpRooflineRow& row : r.rows) {
    if (row.op == "aten::add_" && row.input_dims == "[[32,256,56,56],[32,256,56,56],[]]") add = &row;
  }
  ASSERT_NE(add, nullptr);
  const double calls = static_cast<double>(add->count);
  EXPECT_DOUBLE_EQ(*add->flops / calls, 25690112.0);
  EXPECT_DOUBLE_EQ(*add->bytes / calls, 3 * 25690112.0 * 4);
  const OpRoofs roofs = RoofsOf(*add, r.peaks);
  EXPECT_EQ(roofs.bound, "memory");
  EXPECT_DOUBLE_EQ(*roofs.ridge_intensity, 15.7e12 / 900e9);
  EXPECT_NEAR(*roofs.roof_tflops, 900.0 / 12 / 1000, 1e-12);
}

// Meta's A100-PG509-200 (HTA's Triton trace) is in no public datasheet: its roofs stay unknown.
TEST(OpRoofline, RealTraceOfAnUnlistedPartHasNoRoofs) {
  OpRoofline r = RealRoofline("kineto_hta/triton/triton_example.json.gz");
  EXPECT_EQ(r.peaks.gpu_name, "NVIDIA A100-PG509-200");
  EXPECT_EQ(r.peaks.datasheet, nullptr);
  for (const OpRooflineRow& row : r.rows) EXPECT_TRUE(RoofsOf(row, r.peaks).bound.empty()) << row.op;
}

TEST(OpRoofline, NotAPyTorchTraceHasNoRowsAndSaysWhy) {
  XSpaceModel empty;
  OpRoofline r = RooflineOf(empty);
  EXPECT_FALSE(r.pytorch);
  std::string json;
  AppendOpRooflineJson({{0, "h", &r}}, json);
  EXPECT_NE(json.find(R"("rows":[])"), std::string::npos);
  EXPECT_NE(json.find("not a PyTorch trace"), std::string::npos);
}

}  // namespace
}  // namespace tbprof::trace_analysis
