#include "harness/pipeline_runner.h"

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "harness/host_plane_writer.h"
#include "tracer/host_tracer.h"
#include "synthetic/pipeline/pipeline_work.h"

namespace tbprof::harness {
namespace {

using pipeline::Dataset;
using pipeline::Element;

// TensorFlow's context type for its executor (kTfExecutor in the profiler's ContextType enum).
constexpr int kTfExecutorContext = 2;

struct CostField {
  const char* name;
  std::function<void(PipelineCosts&, double)> set;
};

template <typename T>
CostField Field(const char* name, T PipelineCosts::* member) {
  return {name, [member](PipelineCosts& c, double v) { c.*member = static_cast<T>(v); }};
}

const std::vector<CostField>& CostFields() {
  static const std::vector<CostField> fields = {
      Field("num_files", &PipelineCosts::num_files),
      Field("records_per_file", &PipelineCosts::records_per_file),
      Field("record_bytes", &PipelineCosts::record_bytes),
      Field("read_us", &PipelineCosts::read_us),
      Field("decode_us", &PipelineCosts::decode_us),
      Field("decoded_bytes", &PipelineCosts::decoded_bytes),
      Field("vectorized_fixed_us", &PipelineCosts::vectorized_fixed_us),
      Field("vectorized_per_element_us", &PipelineCosts::vectorized_per_element_us),
      Field("batch_size", &PipelineCosts::batch_size),
      Field("prefetch_buffer", &PipelineCosts::prefetch_buffer),
      Field("num_parallel_calls", &PipelineCosts::num_parallel_calls),
      Field("cycle_length", &PipelineCosts::cycle_length),
      Field("model_us", &PipelineCosts::model_us),
  };
  return fields;
}

pipeline::MapFn Decode(const PipelineCosts& c) {
  return [us = c.decode_us, bytes = c.decoded_bytes](Element& e) { e.bytes = pipeline::DecodeRecord(e.bytes, bytes, us); };
}

// One map call over a whole batch: a fixed cost plus a smaller per-element one.
pipeline::MapFn VectorizedDecode(const PipelineCosts& c) {
  return [c](Element& e) {
    double us = c.vectorized_fixed_us + c.vectorized_per_element_us * static_cast<double>(e.values.size());
    e.bytes = pipeline::DecodeRecord(e.bytes, c.decoded_bytes * static_cast<int>(e.values.size()), us);
  };
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t idx = static_cast<size_t>(std::ceil(p / 100.0 * double(v.size()))) - 1;
  return v[std::min(idx, v.size() - 1)];
}

// Serves GetNext requests on a thread named like TensorFlow's, the way
// IteratorGetNextOp runs asynchronously from the training loop.
class GetNextThread {
 public:
  explicit GetNextThread(pipeline::Iterator* root) : root_(root), thread_([this] { Run(); }) {}
  ~GetNextThread() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  bool GetNext(int64_t step, Element& out) {
    std::unique_lock<std::mutex> lock(mu_);
    step_ = step;
    requested_ = true;
    done_ = false;
    cv_.notify_all();
    cv_.wait(lock, [&] { return done_; });
    out = std::move(result_);
    return ok_;
  }

 private:
  void Run() {
    SetCurrentThreadName("tf_data_iterator_get_next");
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return quit_ || requested_; });
      if (quit_) return;
      requested_ = false;
      int64_t step = step_;
      lock.unlock();
      Element e;
      bool ok;
      {
        // As TensorFlow's iterator op: its id and iter_num match the step's ExecutorState::Process (see
        // the step below), which is how a profile reader (xprof's grouping) puts this call into the step.
        TraceMe op([&] { return TraceMeEncode("IteratorGetNextOp::DoCompute", {{"id", step}, {"iter_num", 0}}); });
        ok = root_->GetNext(e);
      }
      lock.lock();
      result_ = std::move(e);
      ok_ = ok;
      done_ = true;
      cv_.notify_all();
    }
  }

  pipeline::Iterator* root_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool requested_ = false, done_ = false, ok_ = false, quit_ = false;
  int64_t step_ = 0;
  Element result_;
  std::thread thread_;
};

double NowUs() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Status SetPipelineCost(PipelineCosts& costs, std::string_view key, double value) {
  for (const CostField& f : CostFields()) {
    if (key == f.name) {
      if (!std::isfinite(value)) return InvalidArgument("pipeline cost '" + std::string(key) + "' is not finite");
      if (value < 0 && key != "num_parallel_calls")
        return InvalidArgument("pipeline cost '" + std::string(key) + "' must be >= 0");
      f.set(costs, value);
      return Status::Ok();
    }
  }
  std::string known;
  for (const CostField& f : CostFields()) known += std::string(known.empty() ? "" : ", ") + f.name;
  return InvalidArgument("unknown pipeline cost '" + std::string(key) + "' (known: " + known + ")");
}

Status LoadPipelineCosts(const std::string& json_path, PipelineCosts& costs) {
  std::ifstream in(json_path);
  if (!in) return NotFound("cannot read pipeline config " + json_path);
  std::stringstream ss;
  ss << in.rdbuf();
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(ss.str(), ec);
  if (ec) return InvalidArgument(json_path + ": invalid JSON: " + ec.message());
  if (!v.is_object()) return InvalidArgument(json_path + ": expected a JSON object of cost names to numbers");
  for (const auto& kv : v.as_object()) {
    if (!kv.value().is_number())
      return InvalidArgument(json_path + ": value of '" + std::string(kv.key()) + "' is not a number");
    Status s = SetPipelineCost(costs, kv.key(), kv.value().to_number<double>());
    if (!s.ok()) return InvalidArgument(json_path + ": " + s.message());
  }
  if (costs.batch_size < 1 || costs.num_files < 1 || costs.records_per_file < 1)
    return InvalidArgument(json_path + ": batch_size, num_files and records_per_file must be >= 1");
  return Status::Ok();
}

const std::vector<PipelineVariant>& PipelineVariants() {
  static const std::vector<PipelineVariant> variants = {
      {"naive", "records -> map -> batch, all on the consumer's thread", "Map",
       [](const PipelineCosts& c, const std::vector<std::string>& files) {
         return pipeline::Records(files, c.read_us).Repeat().Map(Decode(c)).Batch(c.batch_size);
       }},
      {"prefetch", "naive + prefetch: input overlaps the model, the map still bounds it", "Map",
       [](const PipelineCosts& c, const std::vector<std::string>& files) {
         return pipeline::Records(files, c.read_us).Repeat().Map(Decode(c)).Batch(c.batch_size).Prefetch(
             c.prefetch_buffer);
       }},
      {"parallel_map", "parallel map (autotune): the map's cores are the limit", "ParallelMapV2",
       [](const PipelineCosts& c, const std::vector<std::string>& files) {
         return pipeline::Records(files, c.read_us)
             .Repeat()
             .ParallelMap(Decode(c), c.num_parallel_calls)
             .Batch(c.batch_size)
             .Prefetch(c.prefetch_buffer);
       }},
      {"parallel_interleave", "files read in parallel, parallel map", "ParallelMapV2",
       [](const PipelineCosts& c, const std::vector<std::string>& files) {
         return pipeline::Range(0, static_cast<int64_t>(files.size()))
             .Repeat()
             .ParallelInterleave(
                 [files, c](const Element& e) { return pipeline::Records({files[e.values.at(0)]}, c.read_us); },
                 c.cycle_length)
             .ParallelMap(Decode(c), c.num_parallel_calls)
             .Batch(c.batch_size)
             .Prefetch(c.prefetch_buffer);
       }},
      {"cache", "decoded elements cached in memory after the first epoch (fully optimised)", "",
       [](const PipelineCosts& c, const std::vector<std::string>& files) {
         return pipeline::Records(files, c.read_us)
             .ParallelMap(Decode(c), c.num_parallel_calls)
             .Cache()
             .Repeat()
             .Batch(c.batch_size)
             .Prefetch(c.prefetch_buffer);
       }},
      {"map_after_batch", "vectorized map on whole batches, no prefetch: the record reader is left as the bottleneck",
       "TFRecord",
       [](const PipelineCosts& c, const std::vector<std::string>& files) {
         return pipeline::Records(files, c.read_us).Repeat().Batch(c.batch_size).Map(VectorizedDecode(c));
       }},
  };
  return variants;
}

const PipelineVariant* FindPipelineVariant(std::string_view name) {
  for (const PipelineVariant& v : PipelineVariants()) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

StatusOr<std::vector<std::string>> WritePipelineData(const std::string& dir, const PipelineCosts& costs) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Internal("cannot create " + dir + ": " + ec.message());
  std::vector<std::string> files;
  for (int f = 0; f < costs.num_files; ++f) {
    std::string path = (std::filesystem::path(dir) / ("records-" + std::to_string(f) + ".rec")).string();
    if (!pipeline::WriteRecordFile(path, int64_t{f} * costs.records_per_file, costs.records_per_file,
                                   costs.record_bytes))
      return Internal("cannot write record file " + path);
    files.push_back(path);
  }
  return files;
}

StatusOr<VariantRun> RunPipelineVariant(const PipelineVariant& variant, const PipelineCosts& costs,
                                        const std::vector<std::string>& files, const RunOptions& options) {
  if (options.steps < 1) return InvalidArgument("--steps must be >= 1");
  if (options.self_trace && TracingActive()) return Internal("a tracing session is already active");
  SetCurrentThreadName("tf_train_loop");
  VariantRun run;
  run.variant = variant.name;
  run.traced = options.self_trace;
  std::unique_ptr<pipeline::Iterator> root = variant.build(costs, files).MakeIterator();
  std::vector<double> step_us;
  double wait_us = 0, total_us = 0;
  TraceSession session;
  {
    GetNextThread get_next(root.get());
    uint64_t sink = 0;
    auto step = [&](int64_t n, bool measured) {
      // Marked as TensorFlow marks a Keras step: a root (_r=1) named "train" with its step_num and the executor
      // context (_pt/_p) its step marker produces. The model's work is child ops ("name:type"), so the step has
      // host compute and grouping classifies it as a well-formed step.
      TraceMe train([&] {
        return TraceMeEncode("train", {{"step_num", n}, {"_r", 1}, {"_pt", kTfExecutorContext}, {"_p", n}});
      });
      double t0 = NowUs();
      Element batch;
      if (!get_next.GetNext(n, batch)) return false;
      double t1 = NowUs();
      // TensorFlow's executor runs the step's ops under ExecutorState::Process, whose step id and iteration
      // (0: no loop) the iterator op on its own thread carries too: its wait for input is then part of the step.
      TraceMe executor([&] { return TraceMeEncode("ExecutorState::Process", {{"id", n}, {"iter_num", 0}}); });
      {
        // The forward op, then its gradient under TF2's "gradient_tape" scope as Keras names it: the
        // gradient is what tells a profile's reader (xprof's ModelTracker) that this loop trains.
        TraceMe forward("model/dense/MatMul:MatMul");
        sink += pipeline::CpuWork(batch.bytes, costs.model_us / 2);
      }
      {
        TraceMe backward("gradient_tape/model/dense/MatMul/MatMul:MatMul");
        sink += pipeline::CpuWork(batch.bytes, costs.model_us / 2);
      }
      double t2 = NowUs();
      if (measured) {
        step_us.push_back(t2 - t0);
        wait_us += t1 - t0;
        total_us += t2 - t0;
        run.elements += static_cast<int64_t>(batch.values.size());
      }
      return true;
    };
    // Warm up for at least one epoch so the cache variant is measured warm.
    const int epoch_steps = (costs.num_files * costs.records_per_file + costs.batch_size - 1) / costs.batch_size;
    const int warmup_steps = options.warmup_steps > 0 ? std::max(options.warmup_steps, epoch_steps + 2) : 0;
    for (int i = 0; i < warmup_steps; ++i) {
      if (!step(i, false)) return Internal("pipeline '" + variant.name + "' ended during warm-up");
    }
    if (options.self_trace && !StartTracing()) return Internal("a tracing session is already active");
    double start = NowUs();
    for (int i = 0; i < options.steps; ++i) {
      if (!step(warmup_steps + i, true)) break;
      if (options.progress) options.progress(i + 1);
      if (options.stop && options.stop->load()) break;
    }
    run.wall_s = (NowUs() - start) / 1e6;
    if (options.self_trace) session = StopTracing();
    (void)sink;
  }
  root.reset();  // joins the pipeline's threads

  run.steps = static_cast<int>(step_us.size());
  if (run.steps == 0) return Internal("pipeline '" + variant.name + "' produced no element");
  run.elements_per_s = run.wall_s > 0 ? double(run.elements) / run.wall_s : 0;
  double sum = 0;
  for (double s : step_us) sum += s;
  run.step_mean_ms = sum / double(step_us.size()) / 1000;
  run.step_p50_ms = Percentile(step_us, 50) / 1000;
  run.step_p99_ms = Percentile(step_us, 99) / 1000;
  run.input_bound_pct = total_us > 0 ? 100.0 * wait_us / total_us : 0;
  for (const TracedThread& t : session.threads) {
    run.traced_events += static_cast<int64_t>(t.events.size());
    for (const TracedEvent& e : t.events) {
      if (e.start_ns < session.start_walltime_ns) continue;
      if (ParseTraceName(e.name).name != "Iterator::Root") continue;
      ++run.root_calls;
      int64_t dur_ns = e.end_ns - e.start_ns;
      if (dur_ns * 1000 > 50'000'000) ++run.slow_calls;  // same > 50 µs rule as xprof, in ps
      run.max_root_call_us = std::max(run.max_root_call_us, double(dur_ns) / 1000);
    }
  }
  if (options.self_trace && !options.logdir.empty()) {
    std::string host = LocalHostname();
    ASSIGN_OR_RETURN(run.xplane_path,
                     WriteXSpace(SessionToXSpace(session, host),
                                 RunDirectoryFor(options.logdir, session.start_walltime_ns, options.run_name), host));
  }
  return run;
}

}  // namespace tbprof::harness
