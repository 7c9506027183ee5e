// Streaming trace viewer on a large synthetic profile (≥ 10M events):
//   BM_LoadXSpace            decode the file into the model (the baseline)
//   BM_BuildTraceIndex       build the per-host index      (target ≤ 1.5× load)
//                            index_over_file counter       (target ≤ 0.5)
//   BM_StreamingWindow       a random window at resolution 8000, warm, JSON
//                            included                      (target ≤ 100 ms)
//   BM_StreamingFullTrace    the first request of the UI (whole trace)
//   BM_SearchPrefix          search over every event
// The profile is written once to $TMPDIR/tbprof_trace_bench_<events>.xplane.pb
// (TBPROF_TRACE_BENCH_EVENTS overrides the size). It is encoded here, straight
// to the wire format, shaped like a GPU training job: a host thread of steps
// and nested ops, a launch thread (cuLaunchKernel with correlation_id), and
// GPU streams of kernels that carry the matching correlation_id.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "convert/trace_index.h"
#include "convert/trace_viewer_tools.h"
#include "convert/xspace_reader.h"

namespace tbprof {
namespace {

// --- a minimal protobuf wire writer for XSpace ------------------------------
void Varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void Tag(std::string& out, int field, int wire) { Varint(out, static_cast<uint64_t>(field) << 3 | wire); }
void VarintField(std::string& out, int field, uint64_t v) {
  Tag(out, field, 0);
  Varint(out, v);
}
void BytesField(std::string& out, int field, std::string_view s) {
  Tag(out, field, 2);
  Varint(out, s.size());
  out.append(s);
}

struct PlaneWriter {
  std::string lines;                        // serialized XLine fields (field 3)
  std::vector<std::string> event_names;     // metadata id = index + 1
  std::vector<std::string> stat_names;

  void AddLine(int64_t id, std::string_view name, const std::string& events) {
    std::string line;
    VarintField(line, 1, static_cast<uint64_t>(id));
    BytesField(line, 2, name);
    VarintField(line, 3, 0);  // timestamp_ns: offsets are from the profile start
    line.append(events);
    BytesField(lines, 3, line);
  }
  std::string Serialize(int64_t id, std::string_view name) const {
    std::string plane;
    VarintField(plane, 1, static_cast<uint64_t>(id));
    BytesField(plane, 2, name);
    plane.append(lines);
    for (size_t i = 0; i < event_names.size(); ++i) {
      std::string md, entry;
      VarintField(md, 1, i + 1);
      BytesField(md, 2, event_names[i]);
      VarintField(entry, 1, i + 1);
      BytesField(entry, 2, md);
      BytesField(plane, 4, entry);
    }
    for (size_t i = 0; i < stat_names.size(); ++i) {
      std::string md, entry;
      VarintField(md, 1, i + 1);
      BytesField(md, 2, stat_names[i]);
      VarintField(entry, 1, i + 1);
      BytesField(entry, 2, md);
      BytesField(plane, 5, entry);
    }
    return plane;
  }
};

// Appends one XEvent (field 4 of XLine) with at most one int64 stat.
void AddEvent(std::string& events, uint64_t metadata_id, int64_t offset_ps, int64_t duration_ps, uint64_t stat_id = 0,
              int64_t stat_value = 0) {
  std::string e;
  VarintField(e, 1, metadata_id);
  VarintField(e, 2, static_cast<uint64_t>(offset_ps));
  VarintField(e, 3, static_cast<uint64_t>(duration_ps));
  if (stat_id != 0) {
    std::string s;
    VarintField(s, 1, stat_id);
    VarintField(s, 4, static_cast<uint64_t>(stat_value));
    BytesField(e, 4, s);
  }
  BytesField(events, 4, e);
}

// Writes a profile of about `target` events; returns the events written.
int64_t WriteProfile(const std::string& path, int64_t target) {
  std::mt19937_64 rng(42);
  constexpr int kStreams = 3;
  // Each GPU stream 20% of the events, host launches 20%, host ops the rest
  // (until the end of the GPU activity).
  const int64_t kernels_per_stream = target / 5;
  PlaneWriter gpu, host;
  for (int k = 0; k < 64; ++k) gpu.event_names.push_back("kernel_" + std::to_string(k) + "_sm90_xmma_gemm");
  gpu.stat_names = {"correlation_id"};
  host.event_names = {"train_step", "cuLaunchKernel"};
  for (int k = 0; k < 48; ++k) host.event_names.push_back("model/layer_" + std::to_string(k) + "/MatMul");
  host.stat_names = {"correlation_id", "step_num"};
  int64_t written = 0;
  int64_t correlation = 1;
  int64_t trace_end = 0;
  std::string launches;
  for (int s = 0; s < kStreams; ++s) {
    std::string events;
    int64_t t = 1000000;
    for (int64_t i = 0; i < kernels_per_stream; ++i) {
      const int64_t dur = 2000000 + static_cast<int64_t>(rng() % 48000000);  // 2–50 µs
      const uint64_t md = 1 + rng() % 64;
      if (s == 0) {
        // The launch precedes its kernel on the host.
        AddEvent(launches, 2, std::max<int64_t>(t - 3000000, 0), 1500000 + static_cast<int64_t>(rng() % 1000000), 1,
                 correlation);
        ++written;
      }
      AddEvent(events, md, t, dur, 1, s == 0 ? correlation++ : 0x100000000LL + i);
      ++written;
      t += dur + static_cast<int64_t>(rng() % 5000000);
    }
    trace_end = std::max(trace_end, t);
    gpu.AddLine(7 + s, "Stream #" + std::to_string(7 + s) + "(Compute)", events);
  }
  // Host: steps of ~100 ms, each with nested ops (depth 1) and sub-ops (depth 2).
  std::string ops;
  int64_t step_num = 0;
  for (int64_t t = 0; t < trace_end && written < target;) {
    const int64_t step_dur = 100000000000LL;  // 100 ms
    AddEvent(ops, 1, t, step_dur, 2, step_num++);
    ++written;
    int64_t u = t + 1000;
    while (u < t + step_dur - 100000000 && written < target) {
      const int64_t op_dur = 20000000 + static_cast<int64_t>(rng() % 200000000);  // 20–220 µs
      AddEvent(ops, 3 + rng() % 48, u, op_dur);
      AddEvent(ops, 3 + rng() % 48, u + 1000000, op_dur / 2);
      written += 2;
      u += op_dur + static_cast<int64_t>(rng() % 10000000);
    }
    t += step_dur;
  }
  host.AddLine(100, "python3", ops);
  host.AddLine(101, "launch_thread", launches);

  std::string host_plane = host.Serialize(0, "/host:CPU");
  std::string gpu_plane = gpu.Serialize(0, "/device:GPU:0");
  std::ofstream out(path, std::ios::binary);
  std::string head;
  Tag(head, 1, 2);
  Varint(head, host_plane.size());
  out << head << host_plane;
  head.clear();
  Tag(head, 1, 2);
  Varint(head, gpu_plane.size());
  out << head << gpu_plane;
  return written;
}

int64_t TargetEvents() {
  const char* env = std::getenv("TBPROF_TRACE_BENCH_EVENTS");
  return env ? std::max<int64_t>(std::atoll(env), 1000) : 12000000;
}

const std::string& ProfilePath() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string p = std::string(tmp ? tmp : "/tmp") + "/tbprof_trace_bench_" + std::to_string(TargetEvents()) +
                    ".xplane.pb";
    if (!std::filesystem::exists(p)) {
      std::string partial = p + ".partial";
      WriteProfile(partial, TargetEvents());
      std::filesystem::rename(partial, p);
    }
    return p;
  }();
  return path;
}

std::shared_ptr<const XSpaceModel> Model() {
  static std::shared_ptr<const XSpaceModel> model = [] {
    auto m = LoadXSpaceFile(ProfilePath());
    if (!m.ok()) {
      std::fprintf(stderr, "load failed: %s\n", m.status().message().c_str());
      std::abort();
    }
    return std::shared_ptr<const XSpaceModel>(std::move(*m));
  }();
  return model;
}

std::shared_ptr<const TraceIndex> Index() {
  static std::shared_ptr<const TraceIndex> index = TraceIndex::Build(Model());
  return index;
}

double FileBytes() { return static_cast<double>(std::filesystem::file_size(ProfilePath())); }

double Seconds(auto fn) {
  auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void BM_LoadXSpace(benchmark::State& state) {
  ProfilePath();
  for (auto _ : state) {
    auto m = LoadXSpaceFile(ProfilePath());
    benchmark::DoNotOptimize(m);
    state.counters["events"] = static_cast<double>(m.ok() ? (*m)->NumEvents() : 0);
  }
  state.counters["file_MB"] = FileBytes() / 1e6;
}
BENCHMARK(BM_LoadXSpace)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_BuildTraceIndex(benchmark::State& state) {
  auto model = Model();
  // The load time this is measured against, best of two, in the same process.
  double load_s = 1e9;
  for (int i = 0; i < 2; ++i) load_s = std::min(load_s, Seconds([] { benchmark::DoNotOptimize(LoadXSpaceFile(ProfilePath())); }));
  double build_s = 1e9;
  size_t bytes = 0;
  int64_t events = 0;
  for (auto _ : state) {
    std::unique_ptr<TraceIndex> index;
    build_s = std::min(build_s, Seconds([&] { index = TraceIndex::Build(model); }));
    bytes = index->MemoryBytes();
    events = index->num_events();
  }
  state.counters["indexed_events"] = static_cast<double>(events);
  state.counters["index_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["index_over_file"] = static_cast<double>(bytes) / FileBytes();
  state.counters["load_ms"] = load_s * 1e3;
  state.counters["build_over_load"] = build_s / load_s;
}
BENCHMARK(BM_BuildTraceIndex)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_StreamingWindow(benchmark::State& state) {
  StreamingTraceHost host{Index(), "bench"};
  const TraceIndex& index = *host.index;
  std::mt19937_64 rng(7);
  const int64_t span = index.max_ps() - index.min_ps();
  size_t bytes = 0, n = 0;
  double worst_ms = 0, returned = 0, max_returned = 0;
  for (auto _ : state) {
    // Window widths from 1 ms to the whole trace, log-uniformly.
    const double frac = std::pow(10.0, -static_cast<double>(rng() % 5000) / 1000.0);
    const int64_t width = std::max<int64_t>(static_cast<int64_t>(static_cast<double>(span) * frac), 1000000000);
    const int64_t start = index.min_ps() + static_cast<int64_t>(rng() % static_cast<uint64_t>(std::max<int64_t>(span - width, 1)));
    ToolParams params{{"resolution", "8000"},
                      {"start_time_ms", std::to_string(static_cast<double>(start) / 1e9)},
                      {"end_time_ms", std::to_string(static_cast<double>(start + width) / 1e9)}};
    StatusOr<std::string> json = Status();
    const double s = Seconds([&] { json = StreamingTraceJson({host}, params); });
    worst_ms = std::max(worst_ms, s * 1e3);
    bytes += json.ok() ? json->size() : 0;
    if (json.ok()) {
      const std::string key = "\"returnedEventsSize\":";
      const double r = std::atof(json->c_str() + json->find(key) + key.size());
      returned += r;
      max_returned = std::max(max_returned, r);
    }
    ++n;
    benchmark::DoNotOptimize(json);
  }
  state.counters["worst_ms"] = worst_ms;
  state.counters["avg_json_MB"] = static_cast<double>(bytes) / static_cast<double>(n) / 1e6;
  state.counters["avg_returned"] = returned / static_cast<double>(n);
  state.counters["max_returned"] = max_returned;
}
BENCHMARK(BM_StreamingWindow)->Unit(benchmark::kMillisecond)->Iterations(50);

void BM_StreamingFullTrace(benchmark::State& state) {
  StreamingTraceHost host{Index(), "bench"};
  size_t returned = 0, bytes = 0;
  for (auto _ : state) {
    TraceQuery q;
    returned = host.index->Query(q).hits.size();
    auto json = StreamingTraceJson({host}, {{"resolution", "8000"}});
    bytes = json.ok() ? json->size() : 0;
    benchmark::DoNotOptimize(json);
  }
  state.counters["returned_events"] = static_cast<double>(returned);
  state.counters["json_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_StreamingFullTrace)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_SearchPrefix(benchmark::State& state) {
  auto index = Index();
  size_t hits = 0;
  for (auto _ : state) {
    bool truncated = false;
    hits = index->Search("model/layer_4", false, 1000000, &truncated).size();
  }
  state.counters["hits"] = static_cast<double>(hits);
}
BENCHMARK(BM_SearchPrefix)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace tbprof

BENCHMARK_MAIN();
