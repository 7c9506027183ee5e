// A profile file's summary on disk (convert/tools/op_stats_summary.h) and the
// OpStats it carries (convert/analysis/op_stats/op_stats_serial.h): OpStats
// comes back field by field as it went in (a real profile's, a synthetic one's
// with every field set); a summary of another version, of another profile or
// a damaged one is refused, never parsed into something; a summary is written
// atomically, so a reader sees the old one or the new one, never half.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "convert/analysis/device/gpu_datasheets.h"
#include "convert/analysis/op_stats/op_stats_serial.h"
#include "convert/analysis/op_stats/xspace_to_op_stats.h"
#include "convert/analysis/trace_analysis/trace_analysis_serial.h"
#include "convert/load/profile_file.h"
#include "convert/tools/op_stats_summary.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;

// Doubles by their bits: a NaN or -0.0 must come back as it went.
void ExpectSameDouble(double a, double b, const std::string& what) {
  EXPECT_EQ(std::bit_cast<uint64_t>(a), std::bit_cast<uint64_t>(b)) << what << ": " << a << " vs " << b;
}
void ExpectSameOptDouble(const std::optional<double>& a, const std::optional<double>& b, const std::string& what) {
  ASSERT_EQ(a.has_value(), b.has_value()) << what;
  if (a) ExpectSameDouble(*a, *b, what);
}

// Doubles as their bits in the tuples below, so that a NaN or -0.0 compares as it went.
uint64_t Bits(double d) { return std::bit_cast<uint64_t>(d); }

// Each struct's fields as one tuple: a round trip must give every one back (gtest prints both tuples).
auto Fields(const OpMetrics& m) {
  return std::make_tuple(m.name, m.category, m.provenance, m.hlo_module_id, m.is_eager, m.occurrences, m.time_ps,
                         m.self_time_ps, m.min_time_ps, Bits(m.flops), m.bytes_accessed, m.flops_unknown);
}
auto Fields(const OpMetricsDb& d) {
  return std::make_tuple(d.total_time_ps, d.total_op_time_ps, d.busy_time_ps, d.idle_time_ps,
                         d.total_host_infeed_enq_duration_ps, d.total_host_infeed_enq_start_timestamp_ps_diff);
}
auto Fields(const StepInfo& s) {
  return std::make_tuple(s.step_num, s.step_name, s.begin_ps, s.duration_ps, s.type_ps, s.category_ps);
}
auto Fields(const RunEnvironment& e) {
  return std::make_tuple(e.hostnames, e.host_count, e.task_count, e.device_type, e.hardware_type, e.device_core_count,
                         e.is_training);
}
auto Fields(const DevicePeaks& p) {
  return std::make_tuple(p.kind, p.device_type, p.device_count, p.gpu_name, p.datasheet, Bits(p.peak_tflops),
                         Bits(p.hbm_gbps), Bits(p.sram_rd_gbps), Bits(p.sram_wr_gbps), Bits(p.cmem_rd_gbps),
                         Bits(p.cmem_wr_gbps), Bits(p.vmem_rd_gbps), Bits(p.vmem_wr_gbps), p.megacore, p.has_cmem,
                         p.has_merged_vmem);
}
auto Fields(const CoreDetails& c) {
  return std::make_tuple(c.hostname, c.device_ordinal, c.core_num, c.local_chip_id, c.global_chip_id,
                         c.global_core_id, c.is_sparse_core);
}

void ExpectSameDb(const OpMetricsDb& a, const OpMetricsDb& b, const std::string& what) {
  ASSERT_EQ(a.ops.size(), b.ops.size()) << what;
  for (auto ia = a.ops.begin(), ib = b.ops.begin(); ia != a.ops.end(); ++ia, ++ib) {
    EXPECT_EQ(ia->first, ib->first) << what;
    EXPECT_EQ(Fields(ia->second), Fields(ib->second)) << what << " op " << ia->first;
  }
  EXPECT_EQ(Fields(a), Fields(b)) << what;
}

void ExpectSameStep(const StepInfo& a, const StepInfo& b, const std::string& what) {
  EXPECT_EQ(Fields(a), Fields(b)) << what;
}

void ExpectSameTpuSteps(const std::vector<PerCoreStepInfo>& a, const std::vector<PerCoreStepInfo>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].step_num, b[i].step_num);
    ASSERT_EQ(a[i].step_info_per_core.size(), b[i].step_info_per_core.size());
    for (auto ia = a[i].step_info_per_core.begin(), ib = b[i].step_info_per_core.begin();
         ia != a[i].step_info_per_core.end(); ++ia, ++ib) {
      EXPECT_EQ(ia->first, ib->first);
      ExpectSameStep(ia->second, ib->second, "tpu step " + std::to_string(i));
    }
    ASSERT_EQ(a[i].all_reduce_per_core.size(), b[i].all_reduce_per_core.size());
    for (auto ia = a[i].all_reduce_per_core.begin(), ib = b[i].all_reduce_per_core.begin();
         ia != a[i].all_reduce_per_core.end(); ++ia, ++ib) {
      EXPECT_EQ(ia->first, ib->first);
      ASSERT_EQ(ia->second.size(), ib->second.size());
      for (size_t k = 0; k < ia->second.size(); ++k) {
        EXPECT_EQ(ia->second[k].id, ib->second[k].id);
        EXPECT_EQ(ia->second[k].start_time_ps, ib->second[k].start_time_ps);
        EXPECT_EQ(ia->second[k].end_time_ps, ib->second[k].end_time_ps);
      }
    }
  }
}

void ExpectSameEnvironment(const RunEnvironment& a, const RunEnvironment& b) {
  EXPECT_EQ(Fields(a), Fields(b));
  ASSERT_EQ(a.sessions.size(), b.sessions.size());
  for (auto ia = a.sessions.begin(), ib = b.sessions.begin(); ia != a.sessions.end(); ++ia, ++ib) {
    EXPECT_EQ(ia->first, ib->first);
    EXPECT_EQ(ia->second.start_ns, ib->second.start_ns);
    EXPECT_EQ(ia->second.stop_ns, ib->second.stop_ns);
  }
}

void ExpectSamePeaks(const DevicePeaks& a, const DevicePeaks& b) { EXPECT_EQ(Fields(a), Fields(b)); }

void ExpectSameTorch(const OpStats& a, const OpStats& b) {
  ASSERT_EQ(a.torch_gpu.has_value(), b.torch_gpu.has_value());
  if (a.torch_gpu) {
    ExpectSameOptDouble(a.torch_gpu->utilization_percent, b.torch_gpu->utilization_percent, "utilization");
    ExpectSameOptDouble(a.torch_gpu->sm_efficiency_percent, b.torch_gpu->sm_efficiency_percent, "sm efficiency");
    ExpectSameOptDouble(a.torch_gpu->achieved_occupancy_percent, b.torch_gpu->achieved_occupancy_percent, "occupancy");
  }
  ASSERT_EQ(a.torch_steps.has_value(), b.torch_steps.has_value());
  if (!a.torch_steps) return;
  EXPECT_EQ(a.torch_steps->categories, b.torch_steps->categories);
  EXPECT_EQ(a.torch_steps->step_names, b.torch_steps->step_names);
  ASSERT_EQ(a.torch_steps->category_ms.size(), b.torch_steps->category_ms.size());
  for (size_t i = 0; i < a.torch_steps->category_ms.size(); ++i) {
    ASSERT_EQ(a.torch_steps->category_ms[i].size(), b.torch_steps->category_ms[i].size());
    for (size_t k = 0; k < a.torch_steps->category_ms[i].size(); ++k) {
      ExpectSameDouble(a.torch_steps->category_ms[i][k], b.torch_steps->category_ms[i][k], "torch step ms");
    }
  }
}

void ExpectSameOpStats(const OpStats& a, const OpStats& b) {
  ExpectSameDb(a.host_op_metrics_db, b.host_op_metrics_db, "host ops");
  ExpectSameDb(a.device_op_metrics_db, b.device_op_metrics_db, "device ops");
  ExpectSameDb(a.device_tf_op_metrics_db, b.device_tf_op_metrics_db, "device framework ops");
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t h = 0; h < a.steps.size(); ++h) {
    EXPECT_EQ(a.steps[h].hostname, b.steps[h].hostname);
    ASSERT_EQ(a.steps[h].steps.size(), b.steps[h].steps.size());
    for (size_t i = 0; i < a.steps[h].steps.size(); ++i) {
      ExpectSameStep(a.steps[h].steps[i], b.steps[h].steps[i], "host " + std::to_string(h) + " step " + std::to_string(i));
    }
  }
  ExpectSameTpuSteps(a.tpu_step_db, b.tpu_step_db);
  EXPECT_EQ(a.empty_step_intersection, b.empty_step_intersection);
  ASSERT_EQ(a.core_id_to_details.size(), b.core_id_to_details.size());
  for (auto ia = a.core_id_to_details.begin(), ib = b.core_id_to_details.begin(); ia != a.core_id_to_details.end();
       ++ia, ++ib) {
    EXPECT_EQ(ia->first, ib->first);
    EXPECT_EQ(Fields(ia->second), Fields(ib->second)) << "core " << ia->first;
  }
  // libprotobuf's own bytes of the kernel table (no maps in it: deterministic).
  EXPECT_EQ(a.kernel_stats_db.reports_size(), b.kernel_stats_db.reports_size());
  EXPECT_EQ(a.kernel_stats_db.SerializeAsString(), b.kernel_stats_db.SerializeAsString());
  ExpectSameEnvironment(a.run_environment, b.run_environment);
  ExpectSamePeaks(a.peaks, b.peaks);
  EXPECT_EQ(a.compute_16bit_ps, b.compute_16bit_ps);
  EXPECT_EQ(a.compute_32bit_ps, b.compute_32bit_ps);
  EXPECT_EQ(a.compute_unknown_precision_ps, b.compute_unknown_precision_ps);
  EXPECT_EQ(a.errors, b.errors);
  EXPECT_EQ(a.warnings, b.warnings);
  ExpectSameTorch(a, b);
}

OpMetrics SomeOp(const std::string& name, uint64_t base) {
  OpMetrics m;
  m.name = name;
  m.category = "MatMul";
  m.provenance = "model/dense/" + name + ":MatMul";
  m.hlo_module_id = -7;  // zigzagged: a negative id must survive
  m.is_eager = true;
  m.occurrences = base;
  m.time_ps = base * 1000;
  m.self_time_ps = base * 700;
  m.min_time_ps = UINT64_MAX;  // the largest varint
  m.flops = -0.0;
  m.bytes_accessed = base << 40;
  m.flops_unknown = true;
  return m;
}

// Every field of OpStats and of its parts set to something other than its default.
OpStats EveryFieldSet() {
  OpStats o;
  o.host_op_metrics_db.ops[OpKey("Iterator::GetNext", 3)] = SomeOp("Iterator::GetNext", 2);
  o.device_op_metrics_db.ops["fusion.1"] = SomeOp("fusion.1", 5);
  o.device_op_metrics_db.ops[std::string("with\0nul", 8)] = SomeOp(std::string("with\0nul", 8), 6);
  o.device_tf_op_metrics_db.ops["IDLE"] = SomeOp("IDLE", 9);
  o.device_tf_op_metrics_db.ops["IDLE"].flops = std::nan("");
  for (OpMetricsDb* db : {&o.host_op_metrics_db, &o.device_op_metrics_db, &o.device_tf_op_metrics_db}) {
    db->total_time_ps = 11, db->total_op_time_ps = 12, db->busy_time_ps = 13, db->idle_time_ps = 14;
    db->total_host_infeed_enq_duration_ps = 15, db->total_host_infeed_enq_start_timestamp_ps_diff = 16;
  }
  StepInfo step;
  step.step_num = -3, step.step_name = "train_step 7", step.begin_ps = -123456789, step.duration_ps = 987654321;
  step.type_ps = {{HOST_WAIT_INPUT, 10}, {DEVICE_COMPUTE_16, 20}};
  step.category_ps = {{"convolution", 30}, {"IDLE", UINT64_MAX - 5}};
  o.steps = {HostSteps{"host-a", {step, step}}, HostSteps{"host-b", {}}};
  PerCoreStepInfo tpu;
  tpu.step_num = 42;
  tpu.step_info_per_core[kSparseCoreIndexStart + 2] = step;
  tpu.all_reduce_per_core[3] = {AllReduceInfo{.id = 9, .start_time_ps = 100, .end_time_ps = 200}};
  o.tpu_step_db = {tpu};
  o.empty_step_intersection = true;
  o.core_id_to_details[1001] = CoreDetails{.hostname = "tpu-host", .device_ordinal = 1, .core_num = 2,
                                           .local_chip_id = 3, .global_chip_id = 4, .global_core_id = 5,
                                           .is_sparse_core = true};
  auto* report = o.kernel_stats_db.add_reports();
  report->set_name("volta_sgemm_128x64_nn");
  report->set_registers_per_thread(64);
  report->add_block_dim(128), report->add_grid_dim(4);
  report->set_total_duration_ns(5000), report->set_occurrences(3), report->set_occupancy_pct(37.5f);
  o.run_environment.hostnames = {"host-a", "host-b"};
  o.run_environment.host_count = 2, o.run_environment.task_count = 3;
  o.run_environment.device_type = "Nvidia GPU (Hopper)", o.run_environment.hardware_type = "GPU";
  o.run_environment.device_core_count = 16;
  o.run_environment.is_training = false;  // known and false: not the same as unknown
  o.run_environment.sessions["host-a"] = {.start_ns = 1, .stop_ns = 2};
  o.peaks = DevicePeaks{.kind = DeviceKind::kTpu, .device_type = "TPU v6 lite", .device_count = 8,
                        .peak_tflops = 918, .hbm_gbps = 1640, .sram_rd_gbps = 1.5, .sram_wr_gbps = 2.5,
                        .cmem_rd_gbps = 3.5, .cmem_wr_gbps = 4.5, .vmem_rd_gbps = 5.5, .vmem_wr_gbps = 6.5,
                        .megacore = true, .has_cmem = true, .has_merged_vmem = true,
                        .gpu_name = "NVIDIA A100-SXM4-80GB", .datasheet = GpuDatasheetOf("NVIDIA A100-SXM4-80GB")};
  o.compute_16bit_ps = 17, o.compute_32bit_ps = 18, o.compute_unknown_precision_ps = 19;
  o.errors = {"an error"}, o.warnings = {"a warning", ""};
  o.torch_gpu = TorchGpuSummary{.utilization_percent = 50.25, .sm_efficiency_percent = std::nullopt,
                                .achieved_occupancy_percent = 0.0};
  o.torch_steps = TorchStepTable{.categories = {"Kernel", "Memcpy"}, .step_names = {"1", "2"},
                                 .category_ms = {{1.25, 0}, {2.5, std::nan("")}}};
  return o;
}

OpStats ComputedFrom(const std::string& path) {
  auto model = LoadProfileFile(path, OpStatsLoadOptions());
  EXPECT_TRUE(model.ok()) << path << ": " << model.status().message();
  return model.ok() ? ConvertXSpaceToOpStats(**model) : OpStats{};
}

TEST(OpStatsSerial, SyntheticWithEveryFieldSetComesBackFieldByField) {
  const OpStats original = EveryFieldSet();
  auto back = DeserializeOpStats(SerializeOpStats(original));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSameOpStats(original, *back);
  // Defaults (absent optionals, empty tables) come back as defaults.
  auto empty = DeserializeOpStats(SerializeOpStats(OpStats{}));
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  ExpectSameOpStats(OpStats{}, *empty);
  EXPECT_FALSE(empty->run_environment.is_training.has_value());
}

TEST(OpStatsSerial, EveryRealProfileComesBackFieldByField) {
  const std::vector<std::string> files = test_files::RealXPlaneFiles();
  ASSERT_FALSE(files.empty()) << "no profiles under " << test_files::RealXPlaneDir();
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    const OpStats original = ComputedFrom(path);
    EXPECT_FALSE(original.device_op_metrics_db.ops.empty() && original.host_op_metrics_db.ops.empty())
        << "a profile with no op at all checks little";
    auto back = DeserializeOpStats(SerializeOpStats(original));
    ASSERT_TRUE(back.ok()) << back.status().message();
    ExpectSameOpStats(original, *back);
  }
}

TEST(OpStatsSerial, SyntheticProfileComesBackFieldByField) {
  const std::string path = test_files::TempPath("serial_synth.xplane.pb");
  test_files::WriteSyntheticFile(path, test_files::SynthShape(/*gpus=*/2, /*steps=*/5, /*events=*/4000, /*seed=*/7));
  const OpStats original = ComputedFrom(path);
  EXPECT_FALSE(original.kernel_stats_db.reports().empty());
  EXPECT_FALSE(original.steps.empty());
  auto back = DeserializeOpStats(SerializeOpStats(original));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSameOpStats(original, *back);
  fs::remove(path);
}

// Past a megabyte the op tables and the kernels are decoded on two threads:
// what comes back is still the whole, and a garbled byte in any part of it is refused.
OpStats WithManyOps(size_t ops) {
  OpStats o = EveryFieldSet();
  for (size_t i = 0; i < ops; ++i) {
    const std::string name = "model/block_" + std::to_string(i) + "/attention/query/MatMul";
    o.host_op_metrics_db.ops[name] = SomeOp(name, static_cast<int>(i % 7));
    o.device_op_metrics_db.ops[name + "/fusion"] = SomeOp(name + "/fusion", static_cast<int>(i % 5));
    o.device_tf_op_metrics_db.ops[name] = SomeOp(name, static_cast<int>(i % 3));
    auto* report = o.kernel_stats_db.add_reports();
    report->set_name("ampere_sgemm_128x64_nn_" + std::to_string(i));
    report->set_op_name(name);
    report->set_total_duration_ns(1000 + i);
  }
  return o;
}

TEST(OpStatsSerial, ALargePayloadComesBackWholeFromItsTwoThreads) {
  const OpStats original = WithManyOps(8000);
  const std::string bytes = SerializeOpStats(original);
  ASSERT_GT(bytes.size(), size_t{1} << 20) << "small enough to be decoded on one thread";
  auto back = DeserializeOpStats(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSameOpStats(original, *back);
  // Cut inside each part (the three tables, then the kernels): refused. (A
  // changed byte inside a name is the summary's checksum's to find.)
  for (const double at : {0.05, 0.3, 0.55, 0.9}) {
    const size_t n = static_cast<size_t>(at * static_cast<double>(bytes.size()));
    auto cut = DeserializeOpStats(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(cut.ok()) << "cut to " << n << " of " << bytes.size();
    EXPECT_EQ(cut.status().code(), ErrorCode::kDataLoss);
  }
}

// The estimate a cache charges for an OpStats scales with its tables and
// their names, though it reads only a sample of their entries.
TEST(OpStatsSerial, ApproxBytesGrowsWithTheTablesAndTheirNames) {
  const size_t small = WithManyOps(1000).ApproxBytes(), large = WithManyOps(8000).ApproxBytes();
  // Each op: three table entries of two ~45-byte names and 160 bytes of fixed part, a kernel report of two names.
  EXPECT_GT(small, 1000u * 3 * (2 * 40 + 160));
  EXPECT_GT(large, 7 * small);
  EXPECT_LT(large, 9 * small);
}

// Every cut of the payload is refused (never a crash, never a part taken for the whole).
TEST(OpStatsSerial, EveryCutShortPayloadIsRefused) {
  const std::string bytes = SerializeOpStats(EveryFieldSet());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto cut = DeserializeOpStats(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(cut.ok()) << "a payload cut to " << n << " of " << bytes.size() << " bytes was accepted";
    EXPECT_EQ(cut.status().code(), ErrorCode::kDataLoss);
  }
  EXPECT_FALSE(DeserializeOpStats(bytes + '\0').ok()) << "a trailing byte was accepted";
}

TEST(OpStatsSerial, CountsLargerThanThePayloadAreRefusedWithoutAllocating) {
  // Nine 0xff bytes then 0x01: a varint of 2^63 + ... as the first map's size.
  std::string huge(9, '\xff');
  huge += '\x01';
  auto r = DeserializeOpStats(huge);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kDataLoss);
}

// The trace_analysis sections of a small synthetic GPU profile (computed once).
const trace_analysis::RankSections& SomeSections() {
  static const trace_analysis::RankSections sections = [] {
    const std::string path = test_files::TempPath("summary_sections.xplane.pb");
    test_files::WriteSyntheticFile(path, test_files::SynthShape(/*gpus=*/2, /*steps=*/3, /*events=*/1500, /*seed=*/5));
    auto model = LoadProfileFile(path);
    EXPECT_TRUE(model.ok()) << model.status().message();
    fs::remove(path);
    return model.ok() ? trace_analysis::ComputeRankSections(**model) : trace_analysis::RankSections{};
  }();
  return sections;
}

const ProfileIdentity kIdentity{.size = 123456, .mtime_ns = 1700000000123456789, .digest = 0xfeedface12345678ull};

TEST(OpStatsSummary, DecodesOnlyTheProfileItWasMadeOf) {
  const std::string summary = EncodeSummary(kIdentity, EveryFieldSet(), SomeSections());
  auto same = DecodeSummary(summary, kIdentity);
  ASSERT_TRUE(same.ok()) << same.status().message();
  ExpectSameOpStats(EveryFieldSet(), *same);
  for (ProfileIdentity other : {ProfileIdentity{kIdentity.size + 1, kIdentity.mtime_ns, kIdentity.digest},
                                ProfileIdentity{kIdentity.size, kIdentity.mtime_ns + 1, kIdentity.digest},
                                ProfileIdentity{kIdentity.size, kIdentity.mtime_ns, kIdentity.digest ^ 1}}) {
    auto r = DecodeSummary(summary, other);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("another version of the profile"), std::string::npos) << r.status().message();
  }
}

TEST(OpStatsSummary, OtherVersionsAreRefusedAndSaySo) {
  const std::string summary = EncodeSummary(kIdentity, EveryFieldSet(), SomeSections());
  // The format version (2 bytes after the magic), then the OpStats layout version (4 bytes).
  for (size_t at : {size_t{6}, size_t{8}}) {
    std::string other = summary;
    other[at] = static_cast<char>(other[at] + 1);
    auto r = DecodeSummary(other, kIdentity);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("another version"), std::string::npos) << r.status().message();
  }
  std::string not_ours = summary;
  not_ours[0] = 'X';
  EXPECT_EQ(DecodeSummary(not_ours, kIdentity).status().code(), ErrorCode::kDataLoss);
}

TEST(OpStatsSummary, EveryCutAndEveryFlippedPayloadByteIsRefused) {
  const std::string summary = EncodeSummary(kIdentity, EveryFieldSet(), SomeSections());
  ASSERT_TRUE(DecodeSummarySections(summary, kIdentity).ok());
  for (size_t n = 0; n < summary.size(); ++n) {
    ASSERT_FALSE(DecodeSummary(std::string_view(summary).substr(0, n), kIdentity).ok()) << "cut to " << n;
    ASSERT_FALSE(DecodeSummarySections(std::string_view(summary).substr(0, n), kIdentity).ok()) << "cut to " << n;
  }
  // Magic 6, versions 2 + 4, identity 24, OpStats' length and checksum 16, the
  // sections' layout version 4, length and checksum 16; the sections' payload
  // comes first.
  constexpr size_t kHeaderBytes = 72;
  const size_t sections_end = kHeaderBytes + trace_analysis::SerializeRankSections(SomeSections()).size();
  for (size_t at = kHeaderBytes; at < summary.size(); ++at) {
    std::string flipped = summary;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x20);
    const Status r = at < sections_end ? DecodeSummarySections(flipped, kIdentity).status()
                                       : DecodeSummary(flipped, kIdentity).status();
    ASSERT_FALSE(r.ok()) << "a flipped byte at " << at << " was accepted";
    EXPECT_EQ(r.code(), ErrorCode::kDataLoss);
    // The other payload is untouched and still read: a damaged section costs that section only.
    if (at < sections_end) {
      EXPECT_TRUE(DecodeSummary(flipped, kIdentity).ok()) << at;
    }
  }
}

TEST(OpStatsSummary, IdentityFollowsSizeMtimeAndTheBytesAtEitherEnd) {
  const std::string path = test_files::TempPath("identity.bin");
  std::string bytes(300 * 1024, 'a');
  std::ofstream(path, std::ios::binary) << bytes;
  auto before = IdentityOfProfile(path);
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(before->size, bytes.size());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  const timespec times[2] = {st.st_atim, st.st_mtim};
  // A byte changed at the end, the size and mtime kept: the digest tells.
  bytes[bytes.size() - 10] = 'b';
  std::ofstream(path, std::ios::binary) << bytes;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  auto tail_changed = IdentityOfProfile(path);
  ASSERT_TRUE(tail_changed.ok());
  EXPECT_EQ(tail_changed->size, before->size);
  EXPECT_EQ(tail_changed->mtime_ns, before->mtime_ns);
  EXPECT_NE(tail_changed->digest, before->digest);
  // Only the mtime: the identity differs too.
  const timespec later[2] = {st.st_atim, {st.st_mtim.tv_sec + 5, st.st_mtim.tv_nsec}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), later, 0), 0);
  auto touched = IdentityOfProfile(path);
  ASSERT_TRUE(touched.ok());
  EXPECT_EQ(touched->digest, tail_changed->digest);
  EXPECT_NE(touched->mtime_ns, tail_changed->mtime_ns);
  fs::remove(path);
}

std::vector<std::string> FilesIn(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

TEST(OpStatsSummary, AFailedWriteLeavesNoFileBehind) {
  const fs::path dir = test_files::TempPath("summary_write_fail");
  fs::remove_all(dir);
  // A folder where the summary would go: the rename fails after the temporary file was written.
  const fs::path target = dir / "host.xplane.pb.tbprof-summary";
  fs::create_directories(target);
  const Status s = WriteSummaryFile(target.string(), EncodeSummary(kIdentity, EveryFieldSet(), SomeSections()));
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(FilesIn(dir), std::vector<std::string>{target.filename().string()}) << "a temporary file was left";
  EXPECT_TRUE(fs::is_directory(target));
  // A folder that cannot be written (skipped as root, who can write anywhere).
  if (::geteuid() != 0) {
    const fs::path locked = dir / "locked";
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_FALSE(WriteSummaryFile((locked / "h.tbprof-summary").string(), "x").ok());
    fs::permissions(locked, fs::perms::owner_all);
    EXPECT_TRUE(FilesIn(locked).empty());
  }
  fs::remove_all(dir);
}

// While one summary replaces another again and again, a reader reads one of
// them whole every time: never a cut-short one.
TEST(OpStatsSummary, AReaderNeverSeesHalfASummary) {
  const fs::path dir = test_files::TempPath("summary_atomic");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string target = (dir / "host.xplane.pb.tbprof-summary").string();
  OpStats big = EveryFieldSet();
  for (int i = 0; i < 20000; ++i) big.device_op_metrics_db.ops["op." + std::to_string(i)] = SomeOp("op", i + 1);
  const std::string a = EncodeSummary(kIdentity, EveryFieldSet(), SomeSections()), b = EncodeSummary(kIdentity, big, SomeSections());
  ASSERT_TRUE(WriteSummaryFile(target, a).ok());
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < 60; ++i) EXPECT_TRUE(WriteSummaryFile(target, i % 2 ? a : b).ok());
    done = true;
  });
  int reads = 0;
  while (!done) {
    auto bytes = ReadSummaryFile(target);
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    ASSERT_TRUE(*bytes == a || *bytes == b) << "read " << bytes->size() << " bytes, neither summary";
    ++reads;
  }
  writer.join();
  EXPECT_GT(reads, 0);
  EXPECT_EQ(FilesIn(dir), std::vector<std::string>{"host.xplane.pb.tbprof-summary"}) << "a temporary file was left";
  fs::remove_all(dir);
}

TEST(OpStatsSummary, SummaryDirMirrorsThePathUnderTheRoot) {
  EXPECT_EQ(SummaryPathFor("/logs/run/h.xplane.pb", "", "/logs"), "/logs/run/h.xplane.pb.tbprof-summary");
  EXPECT_EQ(SummaryPathFor("/logs/a/b/h.xplane.pb", "/sums", "/logs"), "/sums/a/b/h.xplane.pb.tbprof-summary");
  EXPECT_EQ(SummaryPathFor("/logs/a/b/h.xplane.pb", "/sums", "/logs/"), "/sums/a/b/h.xplane.pb.tbprof-summary");
  // Not under the root: its file name alone.
  EXPECT_EQ(SummaryPathFor("/else/h.xplane.pb", "/sums", "/logs"), "/sums/h.xplane.pb.tbprof-summary");
  // A summary made of a run (its root the run folder) is found by a server whose root is the logdir.
  SummaryPolicy policy;
  policy.summary_dir = "/sums", policy.root = "/logs";
  const std::vector<std::string> candidates = SummaryCandidates("/logs/a/b/h.xplane.pb", policy);
  EXPECT_EQ(candidates, (std::vector<std::string>{"/sums/a/b/h.xplane.pb.tbprof-summary",
                                                  "/sums/b/h.xplane.pb.tbprof-summary",
                                                  "/sums/h.xplane.pb.tbprof-summary"}));
}

}  // namespace
}  // namespace tbprof
