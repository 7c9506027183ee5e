// Cold hlo_stats + op_profile against cold overview_page on one large TPU
// profile. The input is the real JAX TPU v6e profile with its `XLA Ops` device
// events replicated (each copy shifted past the previous one) until the file
// is at least 250 MB; HLO protos, peaks and host planes are the original's.
//   Overview/cold:          overview_page, nothing cached
//   HloStatsOpProfile/cold: hlo_stats then op_profile with a fresh cache (the
//                           second request reuses the HLO op table, as in the server)
//   HloStats/cold, OpProfile/cold: each alone, nothing cached
// TBPROF_BENCH_TPU_XPLANE names the source profile (default: the testdata copy
// beside the checkout); the replicated file is written once to /tmp.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "convert/tools/artifact_cache.h"
#include "convert/tools/tool_registry.h"
#include "convert/xplane/xspace_reader.h"
#include "proto/xplane.pb.h"

namespace {

namespace fs = std::filesystem;
constexpr uint64_t kTargetBytes = uint64_t{260} << 20;

std::string SourcePath() {
  if (const char* env = std::getenv("TBPROF_BENCH_TPU_XPLANE")) return env;
  return std::string(TBPROF_TESTDATA) + "/xplane/jax_tpu_v6e/tpu_inference_2.xplane.pb";
}

const std::string& InputPath() {
  static const std::string path = [] {
    std::string out = "/tmp/tbprof_bench_xla_tools.xplane.pb";
    if (fs::exists(out)) return out;
    std::string src = SourcePath();
    auto bytes = tbprof::ReadFileMaybeGzip(src);
    tensorflow::profiler::XSpace space;
    if (src.empty() || !bytes.ok() || !space.ParseFromString(*bytes)) {
      std::fprintf(stderr, "cannot read the TPU source profile (set TBPROF_BENCH_TPU_XPLANE)\n");
      std::exit(1);
    }
    // One copy's size and span, per XLA Ops line.
    struct Line {
      tensorflow::profiler::XLine* line;
      std::vector<tensorflow::profiler::XEvent> events;
      int64_t offset_stat;  // stat metadata id of device_offset_ps on this plane
    };
    std::vector<Line> lines;
    uint64_t copy_bytes = 0;
    for (auto& plane : *space.mutable_planes()) {
      if (plane.name().rfind("/device:TPU:", 0) != 0) continue;
      int64_t offset_stat = -1;
      for (const auto& [id, sm] : plane.stat_metadata()) {
        if (sm.name() == "device_offset_ps") offset_stat = id;
      }
      for (auto& line : *plane.mutable_lines()) {
        if (line.name() != "XLA Ops") continue;
        lines.push_back({&line, {line.events().begin(), line.events().end()}, offset_stat});
        copy_bytes += line.ByteSizeLong();
      }
    }
    int64_t span_ps = 0;
    for (auto& l : lines) {
      for (const auto& e : l.events) span_ps = std::max(span_ps, e.offset_ps() + e.duration_ps());
    }
    uint64_t copies = (kTargetBytes - std::min<uint64_t>(kTargetBytes, space.ByteSizeLong())) / std::max<uint64_t>(copy_bytes, 1) + 1;
    for (uint64_t c = 1; c <= copies; ++c) {
      for (auto& l : lines) {
        for (const auto& e : l.events) {
          auto* copy = l.line->add_events();
          *copy = e;
          copy->set_offset_ps(e.offset_ps() + static_cast<int64_t>(c) * span_ps);
          // Device-time stats shift with the event (they are absolute picoseconds).
          for (auto& s : *copy->mutable_stats()) {
            if (s.metadata_id() != l.offset_stat) continue;
            if (s.value_case() == tensorflow::profiler::XStat::kInt64Value) {
              s.set_int64_value(s.int64_value() + static_cast<int64_t>(c) * span_ps);
            } else if (s.value_case() == tensorflow::profiler::XStat::kUint64Value) {
              s.set_uint64_value(s.uint64_value() + static_cast<uint64_t>(c) * span_ps);
            }
          }
        }
      }
    }
    std::ofstream f(out + ".partial", std::ios::binary | std::ios::trunc);
    space.SerializeToOstream(&f);
    f.close();
    fs::rename(out + ".partial", out);
    std::fprintf(stderr, "wrote %s: %llu bytes (%llu copies of the XLA Ops events)\n", out.c_str(),
                 static_cast<unsigned long long>(fs::file_size(out)), static_cast<unsigned long long>(copies));
    return out;
  }();
  return path;
}

void RunTool(const char* tool, tbprof::ArtifactCache* cache) {
  tbprof::ToolInput in;
  in.profile_paths = {InputPath()};
  in.cache = cache;
  auto out = tbprof::FindProfileTool(tool)->run(in);
  if (!out.ok()) {
    std::fprintf(stderr, "%s: %s\n", tool, out.status().message().c_str());
    std::exit(1);
  }
  benchmark::DoNotOptimize(out->body.data());
}

void BM_Overview_cold(benchmark::State& state) {
  InputPath();
  for (auto _ : state) RunTool("overview_page", nullptr);
  state.counters["file_MB"] = static_cast<double>(fs::file_size(InputPath())) / 1e6;
}
void BM_HloStatsOpProfile_cold(benchmark::State& state) {
  InputPath();
  for (auto _ : state) {
    tbprof::ArtifactCache cache(size_t{8} << 30);
    RunTool("hlo_stats", &cache);
    RunTool("op_profile", &cache);
  }
}
void BM_HloStats_cold(benchmark::State& state) {
  InputPath();
  for (auto _ : state) RunTool("hlo_stats", nullptr);
}
void BM_OpProfile_cold(benchmark::State& state) {
  InputPath();
  for (auto _ : state) RunTool("op_profile", nullptr);
}

BENCHMARK(BM_Overview_cold)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_HloStatsOpProfile_cold)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_HloStats_cold)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_OpProfile_cold)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
