#include "harness/gpu_harness.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "convert/analysis/op_names/tf_op_utils.h"
#include "convert/xplane/xspace_reader.h"
#include "harness/cupti/cupti_collector.h"
#include "harness/cupti/cupti_loader.h"
#include "harness/cupti/cupti_xplane.h"

#ifdef TBPROF_HAVE_GPU_HARNESS
#include "synthetic/cuda/gpu_workloads.h"
#endif

namespace tbprof {
namespace gpu {

std::vector<KernelRow> KernelRowsFromModel(const XSpaceModel& model) {
  constexpr int64_t kDerivedMin = 0xdeadbeef, kDerivedMax = kDerivedMin + 289;
  const StrId details_id = model.Find("kernel_details");
  const StrId tf_op_id = model.Find("tf_op");
  const StrId corr_id = model.Find("correlation_id");
  std::vector<KernelRow> rows;
  if (details_id == kNoStr) return rows;
  for (const XPlaneModel* plane : model.FindPlanesWithPrefix("/device:GPU:")) {
    for (const LineModel& line : plane->lines) {
      if (line.id >= kDerivedMin && line.id <= kDerivedMax) continue;
      for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
        const Stat* details = plane->FindStat(e, details_id);
        if (plane->events[e].duration_ps == 0 || details == nullptr || details->kind != StatKind::kStr ||
            model.Str(details->str).empty())
          continue;
        KernelRow r;
        r.name = std::string(model.Str(plane->EventName(e)));
        r.duration_ps = plane->events[e].duration_ps;
        r.stream_id = line.id;
        if (const Stat* c = corr_id != kNoStr ? plane->FindStat(e, corr_id) : nullptr) r.correlation_id = c->UintValue();
        if (const Stat* t = tf_op_id != kNoStr ? plane->FindStat(e, tf_op_id) : nullptr; t && t->kind == StatKind::kStr) {
          std::string_view full = model.Str(t->str);
          r.op_name = std::string(full.substr(0, full.find(':')));
        }
        r.uses_tensor_core = IsKernelUsingTensorCore(r.name);
        // A kernel on tensor cores makes its op eligible, as kernel_stats does.
        r.op_eligible = !r.op_name.empty() && (IsOpTensorCoreEligible(r.op_name) || r.uses_tensor_core);
        rows.push_back(std::move(r));
      }
    }
  }
  return rows;
}

}  // namespace gpu

#ifndef TBPROF_HAVE_GPU_HARNESS

int RunGpuHarness(int, char**) {
  std::fprintf(stderr,
               "tbprof harness gpu: this tbprof was built without CUDA (nvcc not found at configure time); "
               "nothing was run\n");
  return gpu::kExitNoGpu;
}

#else

namespace gpu {
namespace {

struct Args {
  std::string workload = "all";
  int iters = 10;
  std::string logdir = "tbprof_gpu_logdir";
  bool check = false;
  // Run the workloads with no CUPTI collector and write no profile, so that
  // a profiler of its own (Nsight Compute, which takes CUPTI for itself) can
  // measure the kernels; TFLOP/s from CUDA events only.
  bool untraced = false;
};

void PrintUsage() {
  std::printf(
      "usage: tbprof harness gpu [--workload NAME|all] [--iters N] [--logdir DIR] [--check | --untraced]\n"
      "  --workload  one of the workloads below, or all (default all)\n"
      "  --iters     timed iterations per workload (default 10)\n"
      "  --logdir    where the run is written: DIR/plugins/profile/<run>/<host>.xplane.pb (default tbprof_gpu_logdir)\n"
      "  --check     verify TensorCore use/eligibility, CUPTI vs CUDA-event timing (5%%) and tracing overhead (5%%)\n"
      "  --untraced  run without CUPTI and write no profile (for Nsight Compute to measure the kernels)\n"
      "workloads:\n");
  for (const WorkloadInfo& w : Workloads()) std::printf("  %-18s %s\n", w.name.c_str(), w.description.c_str());
  std::printf("exit codes: 0 ok, 1 check failed, 2 usage, 3 no GPU/CUPTI (nothing run), 4 CUDA error\n");
}

// Returns -1 to continue, else an exit code.
int ParseArgs(int argc, char** argv, Args& a) {
  int i = 0;
  // Tolerate the dispatcher passing the subcommand words along.
  while (i < argc && (std::string_view(argv[i]) == "harness" || std::string_view(argv[i]) == "gpu")) ++i;
  for (; i < argc; ++i) {
    std::string f = argv[i], v;
    const size_t eq = f.find('=');
    if (eq != std::string::npos) v = f.substr(eq + 1), f = f.substr(0, eq);
    auto value = [&]() -> bool {
      if (eq != std::string::npos) return true;
      if (i + 1 >= argc) return false;
      v = argv[++i];
      return true;
    };
    if (f == "--help" || f == "-h") {
      PrintUsage();
      return 0;
    } else if (f == "--check") {
      a.check = true;
    } else if (f == "--untraced") {
      a.untraced = true;
    } else if (f == "--workload" && value()) {
      a.workload = v;
    } else if (f == "--logdir" && value()) {
      a.logdir = v;
    } else if (f == "--iters" && value()) {
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (end == v.c_str() || *end != '\0' || n < 1 || n > 100000) {
        std::fprintf(stderr, "tbprof harness gpu: --iters wants an integer in 1..100000, got '%s'\n", v.c_str());
        return kExitUsage;
      }
      a.iters = static_cast<int>(n);
    } else {
      std::fprintf(stderr, "tbprof harness gpu: unknown or incomplete flag '%s' (see --help)\n", argv[i]);
      return kExitUsage;
    }
  }
  if (a.check && a.untraced) {
    std::fprintf(stderr, "tbprof harness gpu: --check reads the CUPTI trace, which --untraced does not take\n");
    return kExitUsage;
  }
  if (a.workload != "all") {
    bool known = false;
    for (const WorkloadInfo& w : Workloads()) known |= w.name == a.workload;
    if (!known) {
      std::fprintf(stderr, "tbprof harness gpu: unknown workload '%s' (see --help)\n", a.workload.c_str());
      return kExitUsage;
    }
  }
  return -1;
}

class NoAnnotator : public OpAnnotator {
 public:
  void Push(const char*) override {}
  void Pop() override {}
};

// --untraced: the workloads alone, timed by CUDA events.
int RunUntraced(const Args& args) {
  NoAnnotator none;
  std::printf("\n%-18s %10s %9s %9s\n", "workload", "event_ms", "TFLOP/s", "GB/s");
  for (const WorkloadInfo& w : Workloads()) {
    if (args.workload != "all" && args.workload != w.name) continue;
    WorkloadRun run;
    if (Status s = RunWorkload(w.name, args.iters, none, run); !s.ok()) {
      std::fprintf(stderr, "tbprof harness gpu: workload %s failed: %s\n", w.name.c_str(), s.message().c_str());
      return kExitCudaError;
    }
    if (!run.skipped.empty()) {
      std::printf("%-18s skipped: %s\n", w.name.c_str(), run.skipped.c_str());
      continue;
    }
    // A rate the workload has no count for (a copy's FLOPs, a GEMM's bytes) is "-", not 0.
    auto rate = [&](double per_iter, double unit) {
      char buf[32] = "-";
      if (per_iter > 0 && run.event_ms > 0) std::snprintf(buf, sizeof buf, "%.2f", per_iter * run.iters / (run.event_ms * 1e-3) / unit);
      return std::string(buf);
    };
    std::printf("%-18s %10.3f %9s %9s\n", w.name.c_str(), run.event_ms, rate(run.flops_per_iter, 1e12).c_str(),
                rate(run.bytes_per_iter, 1e9).c_str());
  }
  return 0;
}

class CollectorAnnotator : public OpAnnotator {
 public:
  explicit CollectorAnnotator(CuptiCollector* c) : c_(c) {}
  void Push(const char* name) override { c_->PushAnnotation(name); }
  void Pop() override { c_->PopAnnotation(); }

 private:
  CuptiCollector* c_;
};

void Progress(size_t done, size_t total, const std::string& what) {
  constexpr int kWidth = 24;
  const int filled = total ? static_cast<int>(kWidth * done / total) : kWidth;
  std::fprintf(stderr, "\r[%s%s] %zu/%zu %-20s", std::string(filled, '#').c_str(),
               std::string(kWidth - filled, ' ').c_str(), done, total, what.c_str());
  if (done == total) std::fprintf(stderr, "\n");
}

std::string RunName() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y_%m_%d_%H_%M_%S", &tm);
  return buf;
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

struct WorkloadOutcome {
  const WorkloadInfo* info;
  WorkloadRun run;
  uint64_t begin_ns = 0, end_ns = 0;  // CUPTI clock window of its launches
};

// Minimum wall time of `reps` loops of `count` small kernels.
Status SmallLoopSeconds(int count, int reps, double& best) {
  best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double s = 0;
    if (Status st = RunSmallKernelLoop(count, s); !st.ok()) return st;
    best = std::min(best, s);
  }
  return Status::Ok();
}

}  // namespace
}  // namespace gpu

int RunGpuHarness(int argc, char** argv) {
  using namespace gpu;
  Args args;
  if (int rc = ParseArgs(argc, argv, args); rc >= 0) return rc;

  auto probe = ProbeGpu();
  if (!probe.ok()) {
    std::fprintf(stderr, "tbprof harness gpu: no GPU available, nothing was run.\n  %s\n",
                 probe.status().message().c_str());
    return kExitNoGpu;
  }
  int major = 0, minor = 0;
  std::string device;
  if (Status s = DeviceComputeCapability(major, minor, device); !s.ok()) {
    std::fprintf(stderr, "tbprof harness gpu: CUDA runtime cannot use the GPU, nothing was run.\n  %s\n",
                 s.message().c_str());
    return kExitNoGpu;
  }
  std::printf("device 0: %s (compute %d.%d), driver %d, %d device(s)\n", device.c_str(), major, minor,
              probe->driver_version, probe->device_count);
  if (args.untraced) return RunUntraced(args);
  if (auto cupti = DescribeCuptiLibrary(); cupti.ok()) std::printf("CUPTI: %s\n", cupti->c_str());

  constexpr int kSmallKernels = 2000, kSmallReps = 5;
  double untraced_s = 0;
  if (args.check) {
    double warm = 0;
    if (Status s = SmallLoopSeconds(kSmallKernels, 1, warm); !s.ok()) {
      std::fprintf(stderr, "tbprof harness gpu: %s\n", s.message().c_str());
      return kExitCudaError;
    }
    if (Status s = SmallLoopSeconds(kSmallKernels, kSmallReps, untraced_s); !s.ok()) {
      std::fprintf(stderr, "tbprof harness gpu: %s\n", s.message().c_str());
      return kExitCudaError;
    }
  }

  auto collector = CuptiCollector::Start();
  if (!collector.ok()) {
    std::fprintf(stderr, "tbprof harness gpu: cannot trace with CUPTI, nothing was run.\n  %s\n",
                 collector.status().message().c_str());
    return kExitNoGpu;
  }
  CuptiCollector& c = **collector;
  CollectorAnnotator annotator(&c);

  std::vector<WorkloadOutcome> outcomes;
  for (const WorkloadInfo& w : Workloads())
    if (args.workload == "all" || args.workload == w.name) outcomes.push_back({&w, {}, 0, 0});
  const size_t first = args.check ? 1 : 0, total = outcomes.size() + first;
  // Traced small-kernel loop right after the untraced one, before the heavy
  // workloads warm the GPU, so both run at the same clocks.
  double traced_s = 0;
  if (args.check) {
    Progress(0, total, "tracing overhead");
    ScopedOpAnnotation op(&c, "model/small_kernels/Mul:Mul");
    if (Status s = SmallLoopSeconds(kSmallKernels, kSmallReps, traced_s); !s.ok()) {
      std::fprintf(stderr, "\ntbprof harness gpu: %s\n", s.message().c_str());
      (void)c.Stop();
      return kExitCudaError;
    }
  }
  for (size_t i = 0; i < outcomes.size(); ++i) {
    WorkloadOutcome& o = outcomes[i];
    Progress(first + i, total, o.info->name);
    o.begin_ns = c.NowNs();
    Status s = RunWorkload(o.info->name, args.iters, annotator, o.run);
    o.end_ns = c.NowNs();
    if (!s.ok()) {
      std::fprintf(stderr, "\ntbprof harness gpu: workload %s failed: %s\n", o.info->name.c_str(), s.message().c_str());
      (void)c.Stop();
      return kExitCudaError;
    }
  }
  Progress(total, total, "done");

  auto trace = c.Stop();
  if (!trace.ok()) {
    std::fprintf(stderr, "tbprof harness gpu: %s\n", trace.status().message().c_str());
    return kExitCudaError;
  }
  tensorflow::profiler::XSpace space;
  AddGpuTraceToXSpace(*trace, space);
  space.add_hostnames(HostName());
  const std::filesystem::path run_dir = std::filesystem::path(args.logdir) / "plugins" / "profile" / RunName();
  std::error_code ec;
  std::filesystem::create_directories(run_dir, ec);
  const std::filesystem::path file = run_dir / (HostName() + ".xplane.pb");
  {
    std::ofstream out(file, std::ios::binary);
    if (!out || !space.SerializeToOstream(&out)) {
      std::fprintf(stderr, "tbprof harness gpu: cannot write %s\n", file.c_str());
      return kExitCudaError;
    }
  }
  std::printf("wrote %s (%zu kernels, %zu memcpy, %zu memset, %zu launches, %llu dropped records)\n", file.c_str(),
              trace->kernels.size(), trace->memcpys.size(), trace->memsets.size(), trace->api_calls.size(),
              static_cast<unsigned long long>(trace->dropped_records));

  // Everything below is read back from the written file, as xprof would.
  auto model = LoadXSpaceFile(file.string());
  if (!model.ok()) {
    std::fprintf(stderr, "tbprof harness gpu: reading back %s: %s\n", file.c_str(), model.status().message().c_str());
    return kExitCudaError;
  }
  const std::vector<KernelRow> rows = KernelRowsFromModel(**model);

  // correlation id -> workload, through the launch's time window.
  std::map<uint64_t, size_t> workload_of;
  for (const ApiCallRecord& call : trace->api_calls)
    for (size_t i = 0; i < outcomes.size(); ++i)
      if (call.start_ns >= outcomes[i].begin_ns && call.start_ns <= outcomes[i].end_ns)
        workload_of[call.correlation_id] = i;

  std::vector<std::string> failures;
  std::printf("\n%-18s %7s %10s %10s %7s %9s %-9s %-12s\n", "workload", "kernels", "kernel_ms", "event_ms", "diff%",
              "TFLOP/s", "TC used", "TC eligible");
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const WorkloadOutcome& o = outcomes[i];
    if (!o.run.skipped.empty()) {
      std::printf("%-18s skipped: %s\n", o.info->name.c_str(), o.run.skipped.c_str());
      continue;
    }
    const std::string main_op = o.info->main_op.substr(0, o.info->main_op.find(':'));
    int kernels = 0, main_kernels = 0, main_tc = 0, eligible = 0;
    double main_ps = 0;
    std::set<std::string> names;
    std::set<int64_t> streams;
    for (const KernelRow& r : rows) {
      auto it = workload_of.find(r.correlation_id);
      if (it == workload_of.end() || it->second != i || r.op_name.empty()) continue;  // warm-up: no op scope
      ++kernels;
      streams.insert(r.stream_id);
      eligible += r.op_eligible;
      // Eligibility per the reference rule: MatMul ops yes, elementwise ops no (unless on tensor cores).
      const bool expect_eligible = r.op_name.ends_with("/MatMul") || r.uses_tensor_core;
      if (r.op_eligible != expect_eligible)
        failures.push_back(o.info->name + ": op " + r.op_name + " eligibility " + (r.op_eligible ? "true" : "false"));
      const bool is_main = main_op.empty() ? r.op_name.ends_with("/MatMul") : r.op_name == main_op;
      if (!is_main) {
        if (r.uses_tensor_core)
          failures.push_back(o.info->name + ": non-matmul kernel reported on TensorCore: " + r.name);
        continue;
      }
      ++main_kernels;
      main_tc += r.uses_tensor_core;
      main_ps += static_cast<double>(r.duration_ps);
      names.insert(r.name);
    }
    const double main_ms = main_ps / 1e9;
    const double diff = o.run.event_ms > 0 ? 100.0 * (main_ms - o.run.event_ms) / o.run.event_ms : 0;
    const double tflops = main_ms > 0 ? o.run.flops_per_iter * o.run.iters / (main_ms * 1e-3) / 1e12 : 0;
    std::printf("%-18s %7d %10.3f %10.3f %7.2f %9.2f %4d/%-4d %5d/%-6d\n", o.info->name.c_str(), kernels, main_ms,
                o.run.event_ms, diff, tflops, main_tc, main_kernels, eligible, kernels);
    for (const std::string& n : names)
      std::printf("    %s %s\n", IsKernelUsingTensorCore(n) ? "[TC]  " : "[SIMT]", n.substr(0, 110).c_str());
    if (o.run.bytes_per_iter > 0) {
      std::printf("    copies: see memcpy events; %.0f MiB moved per iteration\n", o.run.bytes_per_iter / (1 << 20));
    }
    if (!args.check) continue;
    if (main_kernels > 0 && o.info->expects_tensor_core && main_tc != main_kernels)
      failures.push_back(o.info->name + ": " + std::to_string(main_kernels - main_tc) + " of " +
                         std::to_string(main_kernels) + " tensor-core kernels not reported as using TensorCore");
    if (main_kernels > 0 && !o.info->expects_tensor_core && main_tc != 0)
      failures.push_back(o.info->name + ": " + std::to_string(main_tc) + " fp32/SIMT kernels reported as TensorCore");
    if (!o.info->main_op.empty() && main_kernels == 0)
      failures.push_back(o.info->name + ": no kernels of " + o.info->main_op + " in the profile");
    if (o.run.event_ms > 0 && std::fabs(diff) > 5.0)
      failures.push_back(o.info->name + ": CUPTI kernel time differs from CUDA events by " + std::to_string(diff) + "%");
    if (o.info->name == "multi_stream" && streams.size() < 4)
      failures.push_back("multi_stream: kernels on " + std::to_string(streams.size()) + " stream lines, expected 4");
  }

  // Copies: pageable and pinned transfers must both be in the profile.
  bool saw_pageable = false, saw_pinned = false;
  const bool ran_copies = std::any_of(outcomes.begin(), outcomes.end(), [](const WorkloadOutcome& o) {
    return o.info->name == "copies";
  });
  if (StrId md = (*model)->Find("memcpy_details"); md != kNoStr) {
    for (const XPlaneModel* p : (*model)->FindPlanesWithPrefix("/device:GPU:"))
      for (uint32_t e = 0; e < p->events.size(); ++e)
        if (const Stat* s = p->FindStat(e, md); s && s->kind == StatKind::kStr) {
          std::string_view d = (*model)->Str(s->str);
          saw_pageable |= d.find("pageable") != std::string_view::npos;
          saw_pinned |= d.find("pinned") != std::string_view::npos;
        }
  }
  if (ran_copies) std::printf("memcpy: pageable %s, pinned %s\n", saw_pageable ? "seen" : "MISSING", saw_pinned ? "seen" : "MISSING");
  if (args.check && ran_copies && (!saw_pageable || !saw_pinned))
    failures.push_back("copies: memcpy_details lacks pageable or pinned transfers");

  if (args.check) {
    const double overhead = 100.0 * (traced_s - untraced_s) / untraced_s;
    std::printf("tracing overhead, %d small kernels: untraced %.3f ms, traced %.3f ms, overhead %.2f%% (limit 5%%)\n",
                kSmallKernels, untraced_s * 1e3, traced_s * 1e3, overhead);
    if (overhead > 5.0) failures.push_back("tracing overhead " + std::to_string(overhead) + "% > 5%");
    if (trace->dropped_records > 0)
      failures.push_back("CUPTI dropped " + std::to_string(trace->dropped_records) + " records");
    for (const std::string& f : failures) std::printf("CHECK FAILED: %s\n", f.c_str());
    std::printf("check: %s (%zu failure(s))\n", failures.empty() ? "PASS" : "FAIL", failures.size());
    return failures.empty() ? 0 : kExitCheckFailed;
  }
  return 0;
}

#endif  // TBPROF_HAVE_GPU_HARNESS

}  // namespace tbprof
