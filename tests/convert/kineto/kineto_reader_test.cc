// The Kineto importer: small traces written by our own writer (each figure
// below is what the writer was told), the real traces (counts made with
// Python's json module, an independent reader), and bad input.
#include "convert/kineto/kineto_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "convert/kineto/json_scanner.h"
#include "convert/load/profile_file.h"
#include "convert/model/schema.h"
#include "tests/convert/kineto/kineto_trace_writer.h"


namespace tbprof {
namespace {

namespace fs = std::filesystem;
using testing_kineto::TraceWriter;

const fs::path kTestdata = TBPROF_TESTDATA;

std::string StatText(const XSpaceModel& m, const XPlaneModel& p, uint32_t e, std::string_view name) {
  const Stat* s = p.FindStat(e, m.Find(name));
  return s == nullptr ? "<none>" : m.StatToString(*s);
}

// The event of plane `p` named `name` (the first one).
uint32_t EventNamed(const XSpaceModel& m, const XPlaneModel& p, std::string_view name) {
  for (uint32_t e = 0; e < p.events.size(); ++e) {
    if (m.Str(p.EventName(e)) == name) return e;
  }
  ADD_FAILURE() << "no event " << name;
  return 0;
}

TraceWriter OneStep() {
  TraceWriter w;
  w.Properties("{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85045870592, "
               "\"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132, \"warpSize\": 32}");
  w.Host("Trace", "PyTorch Profiler (0)", 0, 200'000);
  w.Host("user_annotation", "ProfilerStep#3", 0, 100'000, "\"External id\": 1");
  w.Host("cpu_op", "aten::addmm", 10'000, 50'000, "\"External id\": 5, \"Input Dims\": [[2, 3], [3, 4]]");
  w.Launch(20'000, 5'000, 60'000, 10'500, "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32", 9, 5,
           "\"registers per thread\": 168, \"shared memory\": 99328, \"blocks per SM\": 0.5, "
           "\"grid\": [66, 1, 1], \"block\": [256, 1, 1], \"est. achieved occupancy %\": 12");
  w.Instant("[memory]", 30'000, "\"Addr\": 4096, \"Bytes\": 512, \"Total Allocated\": 1536, "
            "\"Total Reserved\": 2097152, \"Device Type\": 1, \"Device Id\": 0");
  return w;
}

TEST(KinetoReader, SmallTraceBecomesHostAndDevicePlanes) {
  auto m = ParseKinetoTrace(OneStep().Json(), "one_step");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const XSpaceModel& space = **m;
  const XPlaneModel* host = space.FindPlane(schema::kHostPlane);
  const XPlaneModel* gpu = space.FindPlane("/device:GPU:0");
  ASSERT_NE(host, nullptr);
  ASSERT_NE(gpu, nullptr);
  EXPECT_NE(space.FindPlane(schema::kTaskEnvironmentPlane), nullptr) << "no span: no environment plane";
  ASSERT_EQ(host->lines.size(), 1u);
  EXPECT_EQ(host->lines[0].id, 100);
  EXPECT_EQ(host->events.size(), 4u);  // step, op, launch, allocation
  // Nesting order: the step first, then the op inside it.
  EXPECT_EQ(space.Str(host->EventName(0)), "ProfilerStep#3");
  EXPECT_EQ(space.Str(host->EventName(1)), "aten::addmm");
  EXPECT_EQ(StatText(space, *host, 0, schema::kStepNum), "3");
  EXPECT_EQ(StatText(space, *host, 0, schema::kIsRoot), "1");
  EXPECT_EQ(StatText(space, *host, 1, schema::kTfOp), "aten::addmm:aten::addmm");
  EXPECT_EQ(StatText(space, *host, 1, "Input Dims"), "[[2, 3], [3, 4]]");
  uint32_t launch = EventNamed(space, *host, "cudaLaunchKernel");
  EXPECT_EQ(host->events[launch].begin_ps, 20'000'000);
  EXPECT_EQ(host->events[launch].duration_ps, 5'000'000);
  EXPECT_EQ(StatText(space, *host, launch, schema::kCorrelationId), "9");

  ASSERT_EQ(gpu->lines.size(), 1u);
  EXPECT_EQ(gpu->lines[0].id, 7);
  ASSERT_EQ(gpu->events.size(), 1u);
  EXPECT_EQ(gpu->events[0].begin_ps, 60'000'000);
  EXPECT_EQ(gpu->events[0].duration_ps, 10'500'000);
  EXPECT_EQ(StatText(space, *gpu, 0, schema::kCorrelationId), "9");
  EXPECT_EQ(StatText(space, *gpu, 0, schema::kTfOp), "aten::addmm:aten::addmm");
  EXPECT_EQ(StatText(space, *gpu, 0, schema::kKernelDetails),
            "regs:168 static_shared:99328 dynamic_shared:0 grid:66,1,1 block:256,1,1 occ_pct:12.000000");
  EXPECT_EQ(StatText(space, *gpu, 0, schema::kDeviceId), "0");
  auto plane_stat = [&](std::string_view name) {
    const Stat* s = gpu->FindPlaneStat(space.Find(name));
    return s ? space.StatToString(*s) : "<none>";
  };
  EXPECT_EQ(plane_stat(schema::kGpuDeviceName), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(plane_stat(schema::kComputeCapMajor), "9");
  EXPECT_EQ(plane_stat(schema::kDeviceVendor), "Nvidia");
  EXPECT_EQ(plane_stat("core_count"), "132");

  uint32_t alloc = EventNamed(space, *host, schema::kMemoryAllocationEvent);
  EXPECT_EQ(host->events[alloc].duration_ps, 0);
  EXPECT_EQ(StatText(space, *host, alloc, "allocator_name"), "GPU_0_caching");
  EXPECT_EQ(StatText(space, *host, alloc, "requested_bytes"), "512");
  EXPECT_EQ(StatText(space, *host, alloc, "bytes_allocated"), "1536");
  EXPECT_EQ(StatText(space, *host, alloc, "bytes_available"), std::to_string(2097152 - 1536));
}

TEST(KinetoReader, BothTimeConventionsGiveTheSameModel) {
  TraceWriter w = OneStep();
  auto relative = ParseKinetoTrace(w.Json(1'600'000'000'000'000'000, true), "relative");
  auto absolute = ParseKinetoTrace(w.Json(1'600'000'000'000'000'000, false), "absolute");
  ASSERT_TRUE(relative.ok() && absolute.ok());
  const XPlaneModel* a = (*relative)->FindPlane(schema::kHostPlane);
  const XPlaneModel* b = (*absolute)->FindPlane(schema::kHostPlane);
  ASSERT_EQ(a->events.size(), b->events.size());
  for (size_t i = 0; i < a->events.size(); ++i) {
    // The writer's absolute form has µs resolution: the kernel's 10.5 µs is 10 there.
    EXPECT_EQ(a->events[i].begin_ps, b->events[i].begin_ps) << i;
  }
}

TEST(KinetoReader, MicrosecondTextIsReadToTheNanosecond) {
  EXPECT_EQ(JsonMicrosToNanos("1419247332972.313"), 1419247332972313);
  EXPECT_EQ(JsonMicrosToNanos("1623142623460111"), int64_t{1623142623460111000});
  EXPECT_EQ(JsonMicrosToNanos("0.0015"), 2);  // the first dropped digit rounds
  EXPECT_EQ(JsonMicrosToNanos("-3.5"), -3500);
  EXPECT_EQ(JsonMicrosToNanos("1e3"), 1000000);
  EXPECT_FALSE(JsonMicrosToNanos("99999999999999999999").has_value());
  EXPECT_FALSE(JsonMicrosToNanos("1.").has_value());
}

TEST(KinetoReader, RealTracesKeepEveryEvent) {
  struct Case {
    std::string file;
    size_t host_events, host_lines, kernels_and_copies, steps;
    std::string device_plane;
  };
  // host events = complete events of host categories + [memory] records;
  // device events = kernels, copies, sets (gpu_user_annotation lies on a line of its own).
  const Case cases[] = {
      {"kineto_nvidia/h100_bert_small.pt.trace.json.gz", 1997 + 236, 2, 61, 1, "/device:GPU:0"},
      {"kineto_hta/amd/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 94, 2, 16, 2, "/device:GPU:2"},
      {"kineto_torch_tb_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", 35569 + 12838, 2,
       9096, 6, "/device:GPU:0"},
  };
  for (const Case& c : cases) {
    auto m = LoadProfileFile((kTestdata / c.file).string());
    ASSERT_TRUE(m.ok()) << m.status().message();
    const XSpaceModel& space = **m;
    const XPlaneModel* host = space.FindPlane(schema::kHostPlane);
    const XPlaneModel* gpu = space.FindPlane(c.device_plane);
    ASSERT_TRUE(host && gpu) << c.file;
    EXPECT_EQ(host->events.size(), c.host_events) << c.file;
    EXPECT_EQ(host->lines.size(), c.host_lines) << c.file;
    size_t device_ops = 0;
    for (const LineModel& l : gpu->lines) {
      if (l.id != kKinetoGpuAnnotationLineId) device_ops += l.num_events;
    }
    EXPECT_EQ(device_ops, c.kernels_and_copies) << c.file;
    EXPECT_EQ(space.FindPlanesWithPrefix(schema::kGpuPlanePrefix).size(), 1u) << c.file;
    size_t steps = 0;
    StrId step_num = space.Find(schema::kStepNum);
    for (uint32_t e = 0; e < host->events.size(); ++e) steps += host->FindStat(e, step_num) != nullptr;
    EXPECT_EQ(steps, c.steps) << c.file;
  }
}

TEST(KinetoReader, RocmTraceIsAmdWithoutOccupancy) {
  auto m = LoadProfileFile((kTestdata / "kineto_hta/amd/mi250_minitoy_train_ROCm6_2_kineto.json.gz").string());
  ASSERT_TRUE(m.ok()) << m.status().message();
  const XPlaneModel* gpu = (*m)->FindPlane("/device:GPU:2");
  ASSERT_NE(gpu, nullptr);
  const Stat* vendor = gpu->FindPlaneStat((*m)->Find(schema::kDeviceVendor));
  ASSERT_NE(vendor, nullptr);
  EXPECT_EQ((*m)->Str(vendor->str), schema::kVendorAmd);
  StrId details = (*m)->Find(schema::kKernelDetails);
  size_t kernels = 0;
  for (uint32_t e = 0; e < gpu->events.size(); ++e) {
    const Stat* d = gpu->FindStat(e, details);
    if (d == nullptr) continue;
    ++kernels;
    EXPECT_EQ((*m)->Str(d->str).find("occ_pct"), std::string_view::npos);
    EXPECT_EQ((*m)->Str(d->str).find("regs"), std::string_view::npos);
  }
  EXPECT_EQ(kernels, 14u);
}

// --- bad input -----------------------------------------------------------

std::string ErrorOf(std::string_view json) {
  auto m = ParseKinetoTrace(json, "bad.pt.trace.json");
  return m.ok() ? "<loaded>" : m.status().message();
}

TEST(KinetoReader, BadInputIsAClearErrorNamingTheFile) {
  const std::string good = OneStep().Json();
  for (size_t cut : {size_t{1}, good.size() / 3, good.size() / 2, good.size() - 3}) {
    std::string e = ErrorOf(good.substr(0, cut));
    EXPECT_NE(e.find("bad.pt.trace.json: "), std::string::npos) << cut << ": " << e;
    EXPECT_NE(e.find("byte"), std::string::npos) << cut << ": " << e;
  }
  EXPECT_NE(ErrorOf("[1, 2]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(ErrorOf("{\"schemaVersion\": 1}").find("no \"traceEvents\""), std::string::npos);
  EXPECT_NE(ErrorOf("{\"traceEvents\": 5}").find("not an array"), std::string::npos);
  EXPECT_NE(ErrorOf("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 5}]}")
                .find("'a' has no \"dur\""),
            std::string::npos);
  EXPECT_NE(ErrorOf("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 5, "
                    "\"dur\": 1e300}]}")
                .find("beyond what a profile spans"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"long\", \"pid\": 1, \"tid\": 1, \"ts\": 5, "
                    "\"dur\": 9000000000000000}]}")
                .find("'long' lasts"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{\"traceEvents\": [], } ").find("not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOf("{\"traceEvents\": []} x").find("text after"), std::string::npos);
  EXPECT_NE(ErrorOf("{\"traceEvents\": [\"\\q\"]}").find("bad escape"), std::string::npos);
  // Nesting as deep as the input allows must not exhaust the stack.
  std::string deep = "{\"traceEvents\": [{\"args\": {\"a\": " + std::string(100000, '[') + "}}]}";
  EXPECT_NE(ErrorOf(deep).find("nested deeper"), std::string::npos);
  // Events without a time or phase are not events; an empty trace is a model without events.
  auto empty = ParseKinetoTrace("{\"traceEvents\": [{\"name\": \"x\"}, 3]}", "empty");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->NumEvents(), 0u);
}

// The scanner's fast paths (numbers checked by hand, strings eight bytes at
// a time) accept and refuse exactly what JSON's grammar does.
TEST(JsonScannerFastPaths, NumbersFollowTheGrammar) {
  EXPECT_EQ(ShapeOfNumber("0"), NumberShape::kInteger);
  EXPECT_EQ(ShapeOfNumber("-12"), NumberShape::kInteger);
  EXPECT_EQ(ShapeOfNumber("1623142623460180.125"), NumberShape::kWithFraction);
  EXPECT_EQ(ShapeOfNumber("1.5e-3"), NumberShape::kWithExponent);
  EXPECT_EQ(ShapeOfNumber("2E+10"), NumberShape::kWithExponent);
  for (std::string_view bad : {"", "-", "1.", ".5", "1e", "1e+", "1.2.3", "--1", "+1", "1-2", "1ee2", "e5"}) {
    EXPECT_EQ(ShapeOfNumber(bad), NumberShape::kMalformed) << bad;
    const std::string input = std::string(bad) + " ";  // the scanner keeps a view of its text
    JsonScanner js(input);
    std::string_view text;
    if (js.Peek() == JsonType::kNumber) {
      EXPECT_FALSE(js.ReadNumberText(&text)) << bad;
    }
  }
  // Well-formed but beyond a double: refused, so every number read converts.
  for (std::string big : {std::string("1e999"), std::string(400, '9'), std::string(400, '9') + ".5"}) {
    JsonScanner js(big);
    std::string_view text;
    EXPECT_FALSE(js.ReadNumberText(&text)) << big.substr(0, 10);
    EXPECT_NE(js.error().find("bad number"), std::string::npos);
  }
  const std::string long_fraction = std::string(300, '1') + ".25";
  JsonScanner ok(long_fraction);
  std::string_view text;
  ASSERT_TRUE(ok.ReadNumberText(&text));
  EXPECT_TRUE(JsonNumberToDouble(text).has_value());
}

TEST(JsonScannerFastPaths, LongStringsFindEscapesAndControlsAnywhere) {
  const std::string plain(77, 'a');
  for (size_t at = 0; at <= plain.size(); ++at) {
    std::string_view out;
    const std::string escaped = "\"" + plain.substr(0, at) + "\\n" + plain.substr(at) + "\"";
    JsonScanner e(escaped);
    ASSERT_TRUE(e.ReadString(&out)) << at;
    EXPECT_EQ(out, plain.substr(0, at) + "\n" + plain.substr(at)) << at;
    const std::string control = "\"" + plain.substr(0, at) + "\t" + plain.substr(at) + "\"";
    JsonScanner c(control);
    EXPECT_FALSE(c.ReadString(&out)) << at;
    EXPECT_NE(c.error().find("control character"), std::string::npos) << at;
    const std::string quoted = "\"" + plain.substr(0, at) + "\"";
    JsonScanner q(quoted);
    ASSERT_TRUE(q.ReadString(&out)) << at;
    EXPECT_EQ(out, plain.substr(0, at));
    // UTF-8 bytes (high bit set) are text, not stops.
    const std::string utf8 = "\"" + plain.substr(0, at) + "\xc3\xa9\xe2\x82\xac" + "\"";
    JsonScanner u(utf8);
    ASSERT_TRUE(u.ReadString(&out)) << at;
    EXPECT_EQ(out.size(), at + 5);
  }
  const std::string unterminated = "\"" + plain;
  JsonScanner open(unterminated);
  std::string_view out;
  EXPECT_FALSE(open.ReadString(&out));
  EXPECT_NE(open.error().find("unterminated"), std::string::npos);
}

TEST(KinetoReader, GzipBombStopsAtTheLimit) {
  // 64 MB of zeros inflate from a few KB; a 1 MB limit stops it.
  std::string path = (fs::temp_directory_path() / ("tbprof_kineto_bomb_" + std::to_string(::getpid()) + ".pt.trace.json.gz")).string();
  gzFile gz = gzopen(path.c_str(), "wb9");
  ASSERT_NE(gz, nullptr);
  std::string chunk(1 << 20, ' ');
  for (int i = 0; i < 64; ++i) gzwrite(gz, chunk.data(), static_cast<unsigned>(chunk.size()));
  gzclose(gz);
  LoadOptions options;
  options.max_bytes = 1 << 20;
  auto m = LoadProfileFile(path, options);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find(path), std::string::npos);
  EXPECT_NE(m.status().message().find("decompressed"), std::string::npos);
  fs::remove(path);
}

TEST(KinetoReader, FilesAreRecognisedByNameAndContent) {
  EXPECT_EQ(ProfileFormatOf("worker0.1623143089861.pt.trace.json.gz", ""), ProfileFormat::kKinetoTrace);
  EXPECT_EQ(ProfileFormatOf("a.pt.trace.json", ""), ProfileFormat::kKinetoTrace);
  EXPECT_EQ(ProfileFormatOf("host.xplane.pb", "{\"traceEvents\": []}"), ProfileFormat::kXPlane);
  EXPECT_TRUE(LooksLikeKinetoTrace(" {\"schemaVersion\": 1, \"deviceProperties\": []"));
  EXPECT_TRUE(LooksLikeKinetoTrace("{\"metadata\": {}, \"traceEvents\": ["));
  EXPECT_FALSE(LooksLikeKinetoTrace("{\"displayTimeUnit\": \"ns\", \"metadata\": {}}"));
  EXPECT_FALSE(LooksLikeKinetoTrace("\x0a\x05/host"));
  EXPECT_EQ(ProfileFormatOfFile((kTestdata / "kineto_hta/trace_compare/base.json.gz").string()),
            ProfileFormat::kKinetoTrace);
  EXPECT_NE(ProfileFormatOfFile((kTestdata / "kineto_nvidia/h100_bert_small_tracelens_csvs/gpu_timeline.csv").string()),
            ProfileFormat::kKinetoTrace);
}

}  // namespace
}  // namespace tbprof
