// A small writer of Kineto (PyTorch profiler) traces for tests: events are
// added one by one and written as the Chrome-trace JSON torch.profiler emits,
// in either time convention (absolute integer µs, or fractional µs relative
// to baseTimeNanoseconds).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tbprof::testing_kineto {

class TraceWriter {
 public:
  // Times are given in ns from the trace's start.
  TraceWriter& Host(std::string cat, std::string name, int64_t ts_ns, int64_t dur_ns, std::string args = "",
                    int tid = 100) {
    events_.push_back({"X", std::move(cat), std::move(name), "1234", std::to_string(tid), ts_ns, dur_ns, std::move(args)});
    return *this;
  }
  TraceWriter& Device(std::string cat, std::string name, int64_t ts_ns, int64_t dur_ns, std::string args,
                      int device = 0) {
    events_.push_back({"X", std::move(cat), std::move(name), std::to_string(device), "7", ts_ns, dur_ns, std::move(args)});
    return *this;
  }
  TraceWriter& Instant(std::string name, int64_t ts_ns, std::string args, int tid = 100) {
    events_.push_back({"i", "cpu_instant_event", std::move(name), "1234", std::to_string(tid), ts_ns, -1, std::move(args)});
    return *this;
  }
  // A kernel launched by `cudaLaunchKernel` on the host, linked by `correlation`
  // and attributed to the op with `external_id`.
  TraceWriter& Launch(int64_t host_ts, int64_t host_dur, int64_t kernel_ts, int64_t kernel_dur, std::string kernel,
                      int correlation, int external_id, std::string kernel_args = "") {
    std::string link = "\"correlation\": " + std::to_string(correlation) + ", \"External id\": " + std::to_string(external_id);
    Host("cuda_runtime", "cudaLaunchKernel", host_ts, host_dur, link);
    return Device("kernel", std::move(kernel), kernel_ts, kernel_dur,
                  link + ", \"device\": 0, \"stream\": 7" + (kernel_args.empty() ? "" : ", " + kernel_args));
  }
  TraceWriter& Properties(std::string json) {
    device_properties_ = std::move(json);
    return *this;
  }

  // `base_ns` 0: absolute integer µs (ns must be whole µs); otherwise fractional µs after base_ns.
  std::string Json(int64_t absolute_origin_ns = 1'600'000'000'000'000'000, bool relative = true) const {
    std::string out = "{\"schemaVersion\": 1, \"deviceProperties\": [" + device_properties_ + "],\n";
    if (relative) out += "\"baseTimeNanoseconds\": " + std::to_string(absolute_origin_ns) + ",\n";
    out += "\"traceEvents\": [\n";
    for (size_t i = 0; i < events_.size(); ++i) {
      const Ev& e = events_[i];
      out += "{\"ph\": \"" + e.ph + "\", \"cat\": \"" + e.cat + "\", \"name\": \"" + e.name + "\", \"pid\": " + e.pid +
             ", \"tid\": " + e.tid + ", \"ts\": " + Time(e.ts, absolute_origin_ns, relative);
      if (e.dur >= 0) out += ", \"dur\": " + Time(e.dur, 0, relative);
      if (e.ph == "i") out += ", \"s\": \"t\"";
      out += ", \"args\": {" + e.args + "}}" + (i + 1 < events_.size() ? ",\n" : "\n");
    }
    out += "]}\n";
    return out;
  }

 private:
  struct Ev {
    std::string ph, cat, name, pid, tid;
    int64_t ts, dur;
    std::string args;
  };
  static std::string Time(int64_t ns, int64_t origin, bool relative) {
    if (!relative) return std::to_string((origin + ns) / 1000);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
    return buf;
  }
  std::vector<Ev> events_;
  std::string device_properties_;
};

// torch-tb-profiler's test_profiler.py "test_all_categories" (its times, in µs):
// one step [50, 450) on two threads with every category. aten::nll_loss_backward
// launches a copy (10 µs), a set (5) and a kernel (15); aten::to runs 60 µs
// inside the DataLoader's 180.
inline TraceWriter TbPluginAllCategories() {
  constexpr int64_t us = 1000;
  TraceWriter w;
  w.Host("Operator", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100 * us, 180 * us,
         "\"External id\": 2", 123);
  w.Host("Operator", "aten::to", 200 * us, 60 * us, "\"External id\": 3, \"Input Dims\": [[2, 8, 5], [], []]", 123);
  w.Host("Operator", "aten::nll_loss_backward", 340 * us, 70 * us, "\"External id\": 4", 456);
  w.Host("Operator", "ProfilerStep#1", 50 * us, 400 * us, "\"External id\": 1", 123);
  w.Device("Memcpy", "Memcpy HtoD (Pageable -> Device)", 405 * us, 10 * us, "\"stream\": 7, \"correlation\": 334, \"external id\": 4");
  w.Host("Runtime", "cudaMemcpyAsync", 360 * us, 20 * us, "\"correlation\": 334, \"external id\": 4", 456);
  w.Device("Memset", "Memset (Device)", 420 * us, 5 * us, "\"stream\": 7, \"correlation\": 40344, \"external id\": 4");
  w.Host("Runtime", "cudaMemsetAsync", 390 * us, 10 * us, "\"correlation\": 40344, \"external id\": 4", 456);
  w.Device("Kernel", "void cunn_ClassNLLCriterion_updateGradInput_kernel<float>", 430 * us, 15 * us,
           "\"correlation\": 40348, \"external id\": 4, \"device\": 0");
  w.Host("Runtime", "cudaLaunchKernel", 405 * us, 5 * us, "\"correlation\": 40348, \"external id\": 4", 456);
  return w;
}

}  // namespace tbprof::testing_kineto
