// The synthetic generator: libprotobuf and our reader see the same events, and
// the profile has the structure of a TF GPU training job.
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "convert/xplane/xspace_reader.h"
#include "synthetic/profile_generator.h"
#include "tests/convert/xplane/xspace_equivalence.h"
#include "tests/testing/test_files.h"

namespace tbprof {
namespace {

namespace fs = std::filesystem;
using test_files::SynthShape;
using tensorflow::profiler::XPlane;
using tensorflow::profiler::XSpace;
using tensorflow::profiler::XStat;

std::string Generate(const SynthOptions& o, int host = 0) {
  std::ostringstream out;
  Status st = WriteSyntheticXSpace(o, host, out);
  EXPECT_TRUE(st.ok()) << st.message();
  return out.str();
}

// Stat lookups on the proto side, by name through the plane's metadata map.
struct ProtoPlane {
  const XPlane& p;
  std::string StatName(const XStat& s) const {
    auto it = p.stat_metadata().find(s.metadata_id());
    return it == p.stat_metadata().end() ? "" : it->second.name();
  }
  const XStat* Find(const google::protobuf::RepeatedPtrField<XStat>& stats, const std::string& name) const {
    for (const XStat& s : stats) {
      if (StatName(s) == name) return &s;
    }
    return nullptr;
  }
  std::string Str(const XStat& s) const {
    if (s.value_case() == XStat::kRefValue) return p.stat_metadata().at(static_cast<int64_t>(s.ref_value())).name();
    return s.str_value();
  }
  std::string EventName(int64_t metadata_id) const { return p.event_metadata().at(metadata_id).name(); }
};

const XPlane* FindPlane(const XSpace& space, const std::string& name) {
  for (const XPlane& p : space.planes()) {
    if (p.name() == name) return &p;
  }
  return nullptr;
}

TEST(SynthRoundTrip, LibprotobufAndOurReaderSeeTheSameEvents) {
  const SynthOptions o = SynthShape(/*gpus=*/2, /*steps=*/6, /*events=*/30000, /*seed=*/7);
  const std::string bytes = Generate(o);
  XSpace space;
  ASSERT_TRUE(space.ParseFromString(bytes));
  auto ours = ParseXSpace(bytes, "synthetic");
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  testing::ExpectSameSpace(space, **ours);
  // libprotobuf re-serializes it to an equivalent message.
  XSpace again;
  ASSERT_TRUE(again.ParseFromString(space.SerializeAsString()));
  EXPECT_EQ(testing::CountProto(again).events, testing::CountProto(space).events);
}

// Lines streamed through the temporary spill file come back byte-identical.
TEST(SynthRoundTrip, SpilledLinesMatchInMemoryOnes) {
  SynthOptions o = SynthShape(/*gpus=*/2, /*steps=*/4, /*events=*/20000);
  const std::string in_memory = Generate(o);
  o.spill_bytes = 4096;
  const std::string spilled = Generate(o);
  EXPECT_EQ(spilled, in_memory);
  XSpace space;
  ASSERT_TRUE(space.ParseFromString(spilled));
  auto ours = ParseXSpace(spilled, "spilled");
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  testing::ExpectSameSpace(space, **ours);
}

TEST(SynthRoundTrip, GzippedFileLoadsTheSame) {
  const SynthOptions o = SynthShape(/*gpus=*/1, /*steps=*/3, /*events=*/8000);
  const std::string bytes = Generate(o);
  fs::path p = fs::temp_directory_path() / ("tbprof_synth_gz_" + std::to_string(getpid()) + ".xplane.pb.gz");
  gzFile gz = gzopen(p.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  gzclose(gz);
  auto ours = LoadXSpaceFile(p.string());
  fs::remove(p);
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  XSpace space;
  ASSERT_TRUE(space.ParseFromString(bytes));
  testing::ExpectSameSpace(space, **ours);
}

TEST(SynthRoundTrip, DeterministicForASeed) {
  SynthOptions o;
  o.events = 5000;
  o.seed = 3;
  const std::string a = Generate(o), b = Generate(o);
  EXPECT_EQ(a, b);
  o.seed = 4;
  EXPECT_NE(Generate(o), a);
  EXPECT_NE(Generate(o, 1), Generate(o, 0));  // hosts differ
}

TEST(SynthStructure, EventBudgetIsApproximatelyMet) {
  for (int64_t events : {2000, 50000, 200000}) {
    for (int gpus : {1, 4}) {
      const SynthOptions o = SynthShape(gpus, /*steps=*/5, events);
      XSpace space;
      ASSERT_TRUE(space.ParseFromString(Generate(o)));
      double n = static_cast<double>(testing::CountProto(space).events);
      EXPECT_GT(n, events * 0.7) << events << " events, " << gpus << " gpus";
      EXPECT_LT(n, events * 1.3) << events << " events, " << gpus << " gpus";
    }
  }
}

// The kernel launches of a host plane.
struct HostLaunches {
  // correlation_id -> (device_id, launching op name) from host launch events,
  // and the launch events' own names.
  std::map<uint64_t, std::pair<uint64_t, std::string>> by_correlation;
  std::map<uint64_t, std::string> names;
};

// The host plane of 2 GPUs' 8 steps: steps, tf.data's iterators, the ops on
// each GPU's executor thread with their allocator events and launches.
void CheckHostPlane(const XPlane* host, HostLaunches& found) {
  ProtoPlane hp{*host};
  std::map<std::string, int> thread_names;
  auto& launches = found.by_correlation;
  auto& launch_names = found.names;
  std::vector<int64_t> step_nums;
  std::set<int64_t> produced, consumed;
  int get_next = 0, iterators = 0, allocations = 0, frees = 0, ops = 0;
  const std::vector<std::string> memory_stats = {
      "allocator_name", "bytes_reserved", "bytes_allocated", "bytes_available", "fragmentation",
      "peak_bytes_in_use", "requested_bytes", "allocation_bytes", "addr", "tf_op", "region_type", "data_type",
      "shape", "id"};
  for (const auto& line : host->lines()) {
    ++thread_names[line.name()];
    std::vector<std::pair<int64_t, std::string>> open_ops;  // (end, name): the enclosing framework op
    for (const auto& e : line.events()) {
      const std::string name = hp.EventName(e.metadata_id());
      const int64_t begin = line.timestamp_ns() * 1000 + e.offset_ps();
      EXPECT_EQ(hp.Find(e.stats(), "group_id"), nullptr) << "grouping is the analysis' job";
      if (name == "train") {
        ASSERT_NE(hp.Find(e.stats(), "_r"), nullptr);
        EXPECT_EQ(hp.Find(e.stats(), "_r")->int64_value(), 1);
        step_nums.push_back(hp.Find(e.stats(), "step_num")->int64_value());
      } else if (name == "IteratorGetNextOp::DoCompute") {
        ++get_next;
        EXPECT_EQ(line.name(), "tf_data_iterator_get_next");
        EXPECT_NE(hp.Find(e.stats(), "id"), nullptr);
        EXPECT_NE(hp.Find(e.stats(), "iter_num"), nullptr);
      } else if (name.rfind("Iterator::", 0) == 0) {
        ++iterators;
        EXPECT_NE(hp.Find(e.stats(), "id"), nullptr) << name;
        if (name != "Iterator::Root") {
          EXPECT_NE(hp.Find(e.stats(), "parent_id"), nullptr) << name;
        }
      } else if (name == "PrefetchProduce") {
        produced.insert(hp.Find(e.stats(), "element_id")->int64_value());
      } else if (name == "PrefetchConsume") {
        consumed.insert(hp.Find(e.stats(), "element_id")->int64_value());
      } else if (name == "MemoryAllocation" || name == "MemoryDeallocation") {
        (name == "MemoryAllocation" ? allocations : frees)++;
        EXPECT_EQ(e.duration_ps(), 0);
        for (const std::string& s : memory_stats) EXPECT_NE(hp.Find(e.stats(), s), nullptr) << s;
        EXPECT_EQ(hp.Find(e.stats(), "fragmentation")->value_case(), XStat::kDoubleValue);
        // TF's TraceMe text parses a user-space address as int64; xprof reads
        // the address with IntValue, which sees 0 in a uint64 stat.
        EXPECT_EQ(hp.Find(e.stats(), "addr")->value_case(), XStat::kInt64Value);
        EXPECT_GT(hp.Find(e.stats(), "addr")->int64_value(), 0);
      } else if (hp.Find(e.stats(), "correlation_id")) {
        while (!open_ops.empty() && open_ops.back().first < begin) open_ops.pop_back();
        ASSERT_FALSE(open_ops.empty()) << name << " outside any op";
        const XStat* dev = hp.Find(e.stats(), "device_id");
        ASSERT_NE(dev, nullptr);
        const uint64_t corr = hp.Find(e.stats(), "correlation_id")->uint64_value();
        EXPECT_TRUE(launches.emplace(corr, std::make_pair(dev->uint64_value(), open_ops.back().second)).second)
            << "correlation ids are unique";
        launch_names[corr] = name;
      } else if (name.find(':') != std::string::npos && name.find("::") == std::string::npos) {
        EXPECT_EQ(line.name(), "tf_Compute") << name;
        ++ops;
        open_ops.emplace_back(begin + e.duration_ps(), name);
      }
    }
  }
  EXPECT_EQ(thread_names["tf_Compute"], 2);
  EXPECT_EQ(thread_names["tf_data_iterator_get_next"], 1);
  EXPECT_EQ(thread_names["tf_data_iterator_resource"], 1);
  ASSERT_EQ(step_nums.size(), 8u);
  for (int s = 0; s < 8; ++s) EXPECT_EQ(step_nums[static_cast<size_t>(s)], s);
  EXPECT_EQ(get_next, 8);
  EXPECT_EQ(iterators, 8 * 4);
  EXPECT_EQ(produced, consumed);
  EXPECT_EQ(produced.size(), 8u);
  EXPECT_GT(ops, 100);
  EXPECT_EQ(allocations, ops);
  EXPECT_EQ(frees, ops - 2 * 8);  // the first op of each step has nothing to free
}

// Device planes: every kernel and memcpy matches one host launch of its GPU,
// carries the launching op as tf_op, and kernel_details in the CUPTI format.
void CheckDevicePlanes(const XSpace& space, const HostLaunches& host) {
  const auto& launches = host.by_correlation;
  const auto& launch_names = host.names;
  const std::regex details(
      R"(regs:\d+ static_shared:\d+ dynamic_shared:\d+ grid:\d+,\d+,\d+ block:\d+,\d+,\d+ occ_pct:[0-9.]+)");
  size_t device_events = 0, tensor_core = 0, memcpys = 0;
  for (int g = 0; g < 2; ++g) {
    const XPlane* dev = FindPlane(space, "/device:GPU:" + std::to_string(g));
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->id(), g);
    ProtoPlane dp{*dev};
    for (const char* cap : {"clock_rate", "core_count", "memory_bandwidth", "memory_size", "compute_cap_major",
                            "compute_cap_minor"}) {
      ASSERT_NE(dp.Find(dev->stats(), cap), nullptr) << cap;
      EXPECT_GT(dp.Find(dev->stats(), cap)->uint64_value() + (std::string(cap) == "compute_cap_minor"), 0u);
    }
    EXPECT_EQ(dp.Str(*dp.Find(dev->stats(), "device_vendor")), "Nvidia");
    std::set<std::string> line_names;
    for (const auto& line : dev->lines()) {
      line_names.insert(line.name());
      int64_t prev_end = 0;
      for (const auto& e : line.events()) {
        ++device_events;
        const std::string name = dp.EventName(e.metadata_id());
        EXPECT_GE(e.offset_ps(), prev_end) << "one stream runs one thing at a time";
        prev_end = e.offset_ps() + e.duration_ps();
        const XStat* corr = dp.Find(e.stats(), "correlation_id");
        ASSERT_NE(corr, nullptr);
        auto it = launches.find(corr->uint64_value());
        ASSERT_NE(it, launches.end()) << "kernel without a launch";
        EXPECT_EQ(it->second.first, static_cast<uint64_t>(g));
        const XStat* tf_op = dp.Find(e.stats(), "tf_op");
        ASSERT_NE(tf_op, nullptr);
        EXPECT_EQ(tf_op->value_case(), XStat::kRefValue);
        EXPECT_EQ(dp.Str(*tf_op), it->second.second);
        // As TF's GPU tracer names them: a kernel's launch after the kernel, a
        // copy's after the driver call ("cu…", which Launch Stats leave out).
        const std::string& launch_name = launch_names.at(corr->uint64_value());
        if (name.rfind("Memcpy", 0) == 0) {
          EXPECT_EQ(launch_name.rfind("cuMemcpy", 0), 0u) << name;
        } else {
          EXPECT_EQ(launch_name, name);
        }
        if (name.rfind("Memcpy", 0) == 0) {
          ++memcpys;
          EXPECT_NE(dp.Str(*dp.Find(e.stats(), "memcpy_details")).find("size:"), std::string::npos);
          continue;
        }
        const XStat* kd = dp.Find(e.stats(), "kernel_details");
        ASSERT_NE(kd, nullptr);
        EXPECT_EQ(kd->value_case(), XStat::kRefValue);
        EXPECT_TRUE(std::regex_match(dp.Str(*kd), details)) << dp.Str(*kd);
        if (name.find("884gemm") != std::string::npos || name.find("xmma") != std::string::npos ||
            name.find("s16816gemm") != std::string::npos) {
          ++tensor_core;
        }
      }
    }
    EXPECT_TRUE(line_names.count("Stream #7(Compute)"));
    EXPECT_TRUE(line_names.count("Stream #13(MemcpyH2D)"));
    EXPECT_TRUE(line_names.count("Stream #14(MemcpyD2H)"));
  }
  EXPECT_EQ(device_events, launches.size()) << "every launch ran on a device";
  EXPECT_EQ(memcpys, 2u * 2 * 8);
  EXPECT_GT(tensor_core, 0u);
  EXPECT_LT(tensor_core, device_events - memcpys);  // and non-tensor-core kernels too
}

TEST(SynthStructure, LooksLikeATfGpuTrainingJob) {
  const SynthOptions o = SynthShape(/*gpus=*/2, /*steps=*/8, /*events=*/20000);
  XSpace space;
  ASSERT_TRUE(space.ParseFromString(Generate(o)));
  ASSERT_EQ(space.hostnames_size(), 1);
  EXPECT_EQ(space.hostnames(0), "worker0");
  const XPlane* host = FindPlane(space, "/host:CPU");
  const XPlane* env = FindPlane(space, "Task Environment");
  ASSERT_NE(host, nullptr);
  ASSERT_NE(env, nullptr);
  ProtoPlane envp{*env};
  const XStat* start = envp.Find(env->stats(), "profile_start_time");
  const XStat* stop = envp.Find(env->stats(), "profile_stop_time");
  ASSERT_TRUE(start && stop);
  EXPECT_GT(stop->uint64_value(), start->uint64_value());
  HostLaunches launches;
  ASSERT_NO_FATAL_FAILURE(CheckHostPlane(host, launches));
  CheckDevicePlanes(space, launches);
}

TEST(SynthStructure, RejectsBadOptions) {
  SynthOptions o;
  o.steps = 0;
  std::ostringstream out;
  EXPECT_FALSE(WriteSyntheticXSpace(o, 0, out).ok());
  o.steps = 1;
  o.gpus = -1;
  EXPECT_FALSE(WriteSyntheticXSpace(o, 0, out).ok());
  o.gpus = 0;  // a CPU-only host is fine
  XSpace space;
  ASSERT_TRUE(space.ParseFromString(Generate(o)));
  EXPECT_NE(FindPlane(space, "/host:CPU"), nullptr);
}

TEST(SynthCommand, WritesALogdirPerHost) {
  fs::path dir = fs::temp_directory_path() / ("tbprof_synth_test_" + std::to_string(getpid()));
  std::string cmd = std::string(TBPROF_BINARY) + " synth --out " + dir.string() +
                    " --hosts 2 --gpus 1 --steps 3 --events 3000 --seed 5 --run r1 2>&1";
  auto [status, out] = test_files::RunCommand(cmd);
  ASSERT_EQ(status, 0) << out;
  for (const char* host : {"worker0", "worker1"}) {
    fs::path f = dir / "plugins/profile/r1" / (std::string(host) + ".xplane.pb");
    ASSERT_TRUE(fs::exists(f)) << out;
    auto m = LoadXSpaceFile(f.string());
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_EQ((*m)->hostnames, std::vector<std::string>{host});
  }
  fs::remove_all(dir);
  EXPECT_NE(test_files::RunCommand(std::string(TBPROF_BINARY) + " synth --steps 3 2>&1").status, 0)
      << "--out is required";
}

}  // namespace
}  // namespace tbprof
