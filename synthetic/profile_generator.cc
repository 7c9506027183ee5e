// Synthetic TF GPU training job, as TF's profiler writes it after
// post-processing.
//
// Every step runs the same model (a list of op templates) on every GPU. A step
// is simulated per (step, GPU) from a hash of (seed, host, step, GPU), so each
// timeline line can be produced on its own by re-running the simulation
// instead of holding all events in memory: the host plane's lines and the GPU
// streams agree on times and correlation ids because they replay the same
// simulation.
#include "synthetic/profile_generator.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "proto/xspace_wire_writer.h"

namespace tbprof {
namespace {

constexpr int64_t kUs = 1000000;  // ps per microsecond
constexpr int64_t kNs = 1000;
constexpr int64_t kProfileStartWallNs = 1700000000000000000;  // 2023-11-14, ns since epoch
constexpr uint64_t kGpuMemoryLimit = uint64_t{40} << 30;

uint64_t Mix(uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(Mix(seed)) {}
  uint64_t Next() { return Mix(s_++); }
  int64_t Uniform(int64_t lo, int64_t hi) {  // [lo, hi]
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  double Unit() { return static_cast<double>(Next() >> 11) / 9007199254740992.0; }

 private:
  uint64_t s_;
};

struct KernelKind {
  const char* name;
  bool tensor_core;
  int regs, static_shared, dynamic_shared;
  int block;  // threads per block (x)
  double occ_pct;
  int64_t min_us, max_us;
};

// Real kernel names seen in TF/cuDNN/cuBLAS GPU profiles.
const KernelKind kKernels[] = {
    {"volta_h884gemm_256x128_ldg8_nn", true, 234, 0, 65536, 256, 12.5, 40, 300},
    {"sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel", true, 232, 0,
     81920, 128, 12.5, 30, 250},
    {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", true, 230, 0, 73728, 128, 12.5, 30, 220},
    {"sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_"
     "tensor16x8x16_kernel",
     true, 168, 0, 49152, 128, 25, 50, 400},
    {"cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_nn_align8", true, 228, 0, 98304, 256, 12.5, 40, 260},
    {"volta_sgemm_128x64_nn", false, 126, 16384, 0, 256, 25, 30, 280},
    {"void tensorflow::BiasNHWCKernel<Eigen::half>(int, Eigen::half const*, Eigen::half const*, Eigen::half*, "
     "int)",
     false, 16, 0, 0, 1024, 100, 4, 30},
    {"void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::TensorMap<Eigen::"
     "Tensor<Eigen::half, 1, 1, long>, 16, Eigen::MakePointer>, Eigen::TensorCwiseUnaryOp<Eigen::internal::scalar_"
     "max_op<Eigen::half const, Eigen::half const>, Eigen::TensorMap<Eigen::Tensor<Eigen::half const, 1, 1, "
     "long>, 16, Eigen::MakePointer> const> const> const, Eigen::GpuDevice>, long>(Eigen::TensorEvaluator<Eigen::"
     "TensorAssignOp<Eigen::TensorMap<Eigen::Tensor<Eigen::half, 1, 1, long>, 16, Eigen::MakePointer>, Eigen::"
     "TensorCwiseUnaryOp<Eigen::internal::scalar_max_op<Eigen::half const, Eigen::half const>, Eigen::TensorMap<"
     "Eigen::Tensor<Eigen::half const, 1, 1, long>, 16, Eigen::MakePointer> const> const> const, Eigen::"
     "GpuDevice>, long)",
     false, 32, 0, 0, 1024, 100, 3, 25},
    {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float, int, 512, true, 1>(cudnnTensorStruct, __half const*, "
     "cudnnTensorStruct, __half*, float const*, float const*, float, float, float*, float*, float*, float*, "
     "float, float)",
     false, 64, 2048, 0, 512, 75, 10, 80},
    {"void tensorflow::functor::BlockReduceKernel<float*, float*, 256, tensorflow::functor::Sum<float> >(float*, "
     "float*, int, tensorflow::functor::Sum<float>, std::iterator_traits<float*>::value_type)",
     false, 30, 1024, 0, 256, 100, 5, 40},
    {"void tensorflow::functor::ApplyAdamKernel<float>(int, float*, float*, float*, float const*, float const*, "
     "float const*, float const*, float const*, float const*, float const*, bool)",
     false, 40, 0, 0, 1024, 100, 3, 20},
    {"void tensorflow::(anonymous namespace)::GenerateNormalizedProb<float, float, 4>(float const*, float const*, "
     "float const*, float*, int, int, bool)",
     false, 38, 0, 0, 128, 100, 4, 30},
};

struct OpTemplate {
  std::string name;  // "model/dense_3/MatMul:MatMul" (without the replica prefix)
  std::string op_name, op_type;
  std::vector<int> kernels;  // kKernels indices, one launch each
  std::vector<std::string> kernel_details;
  int data_type = 19;  // DT_HALF
  int64_t alloc_bytes = 0;
  std::string shape;
  enum Kind { kKernelOp, kMemcpyH2D, kMemcpyD2H } kind = kKernelOp;
};

std::string KernelDetails(const KernelKind& k, Rng& rng) {
  int gx = static_cast<int>(rng.Uniform(1, 512)), gy = static_cast<int>(rng.Uniform(1, 4));
  char buf[200];
  std::snprintf(buf, sizeof buf, "regs:%d static_shared:%d dynamic_shared:%d grid:%d,%d,1 block:%d,1,1 occ_pct:%g",
                k.regs, k.static_shared, k.dynamic_shared, gx, gy, k.block, k.occ_pct);
  return buf;
}

// The model: one step's ops in execution order (forward, backward, optimizer).
std::vector<OpTemplate> BuildModel(int ops_per_step, uint64_t seed) {
  Rng rng(seed ^ 0x6d6f64656cull);
  std::vector<OpTemplate> ops;
  auto add = [&](std::string op_name, std::string type, std::vector<int> kernels, OpTemplate::Kind kind) {
    OpTemplate t;
    t.op_name = std::move(op_name);
    t.op_type = std::move(type);
    t.name = t.op_name + ":" + t.op_type;
    t.kind = kind;
    for (int k : kernels) t.kernel_details.push_back(KernelDetails(kKernels[k], rng));
    t.kernels = std::move(kernels);
    t.data_type = rng.Uniform(0, 3) == 0 ? 1 : 19;  // DT_FLOAT or DT_HALF
    int64_t rows = 32 << rng.Uniform(0, 3), cols = 64 << rng.Uniform(0, 5);
    t.alloc_bytes = rows * cols * (t.data_type == 1 ? 4 : 2);
    t.shape = "(" + std::to_string(rows) + "," + std::to_string(cols) + ")";
    ops.push_back(std::move(t));
  };
  add("IteratorGetNext/_2", "_Recv", {}, OpTemplate::kMemcpyH2D);
  int body = std::max(0, ops_per_step - 2);
  // Layer patterns: (op suffix, type, kernels).
  struct Pattern {
    const char* layer;
    const char* op;
    const char* type;
    std::vector<int> kernels;
  };
  const std::vector<Pattern> forward = {
      {"conv2d", "Conv2D", "Conv2D", {3}},
      {"conv2d", "BiasAdd", "BiasAdd", {6}},
      {"batch_normalization", "FusedBatchNormV3", "FusedBatchNormV3", {8}},
      {"re_lu", "Relu", "Relu", {7}},
      {"dense", "MatMul", "MatMul", {0}},
      {"dense", "BiasAdd", "BiasAdd", {6}},
      {"dense_fp32", "MatMul", "MatMul", {5}},
      {"attention", "Einsum", "Einsum", {1, 7}},
      {"ffn", "MatMul", "MatMul", {2}},
      {"ffn", "Relu", "Relu", {4}},
      {"softmax", "Softmax", "Softmax", {11, 9}},
      {"loss", "Sum", "Sum", {9}},
  };
  for (int i = 0; i < body; ++i) {
    const Pattern& p = forward[static_cast<size_t>(i) % forward.size()];
    int layer = i / static_cast<int>(forward.size());
    int phase = static_cast<int>(i * 3 / std::max(body, 1));  // 0 forward, 1 backward, 2 optimizer
    std::string layer_name = std::string(p.layer) + (layer ? "_" + std::to_string(layer) : "");
    if (phase == 0) {
      add("model/" + layer_name + "/" + p.op, p.type, p.kernels, OpTemplate::kKernelOp);
    } else if (phase == 1) {
      std::vector<int> grad = p.kernels;
      if (std::string_view(p.type) == "MatMul") grad.push_back(grad[0]);
      add("gradient_tape/model/" + layer_name + "/" + p.op + "/" + p.op + "Grad", std::string(p.type) + "Grad", grad,
          OpTemplate::kKernelOp);
    } else {
      add("Adam/Adam/update_" + std::to_string(i) + "/ResourceApplyAdam", "ResourceApplyAdam", {10},
          OpTemplate::kKernelOp);
    }
  }
  if (ops_per_step >= 2) add("model/loss/Mean/_10", "_Send", {}, OpTemplate::kMemcpyD2H);
  return ops;
}

struct LaunchRun {
  int64_t begin_ps, duration_ps;
  uint64_t correlation_id;
  int64_t device_begin_ps, device_duration_ps;
};

struct OpRun {
  int64_t begin_ps, duration_ps;
  uint32_t first_launch, num_launches;
  uint64_t in_use_after_alloc, in_use_after_free, peak;
  double fragmentation;
};

struct StepRun {
  std::vector<OpRun> ops;
  std::vector<LaunchRun> launches;
  int64_t host_end_ps = 0, device_end_ps = 0;
  uint64_t peak = 0;
};

struct StepPlan {
  int64_t begin_ps, end_ps;
  int64_t input_ps;  // IteratorGetNextOp::DoCompute duration
  bool input_bound;  // the prefetch buffer was empty: the element is produced during DoCompute
  int64_t ops_start_ps;
  uint64_t peak_before = 0;  // per GPU is unnecessary: the same model runs everywhere
};

class JobModel {
 public:
  JobModel(const SynthOptions& o, int host) : o_(o), host_(host) {
    const int gpus = std::max(o.gpus, 0), steps = std::max(o.steps, 1);
    int64_t per_step = std::max<int64_t>(o.events, 1) / steps;
    // Fixed events per step: 2 main thread + 4 get_next + 3 resource + per GPU
    // (ExecutorState::Process + 2 memcpy ops x 3 events); each kernel op: op,
    // alloc, free, ~1.4 launches and as many kernels.
    int64_t fixed = 9 + int64_t{gpus} * 7;
    ops_per_step_ = static_cast<int>(
        std::clamp<int64_t>(gpus > 0 ? (per_step - fixed) * 10 / (int64_t{gpus} * 58) + 2 : 2, 2, 1 << 20));
    model_ = BuildModel(ops_per_step_, o.seed);
    max_launches_ = 0;
    for (const OpTemplate& t : model_) max_launches_ += std::max<size_t>(t.kernels.size(), 1);
    // Pass A: step boundaries.
    Rng rng(Seed(0xabcdef, 0));
    int64_t t = 2000 * kUs;
    uint64_t peak = 0;
    for (int s = 0; s < steps; ++s) {
      StepPlan p;
      p.begin_ps = t;
      p.input_bound = s > 0 && rng.Uniform(0, 4) == 0;
      p.input_ps = p.input_bound ? rng.Uniform(1500, 4000) * kUs : rng.Uniform(20, 60) * kUs;
      p.ops_start_ps = p.begin_ps + 10 * kUs + p.input_ps + 5 * kUs;
      p.peak_before = peak;
      int64_t end = p.ops_start_ps;
      for (int g = 0; g < gpus; ++g) {
        StepRun r = Simulate(s, g, p);
        end = std::max({end, r.host_end_ps, r.device_end_ps});
        peak = std::max(peak, r.peak);
      }
      p.end_ps = end + 20 * kUs;
      plan_.push_back(p);
      t = p.end_ps + rng.Uniform(5, 50) * kUs;
    }
  }

  uint64_t Seed(uint64_t a, uint64_t b) const {
    return Mix(o_.seed * 0x100000001b3ull ^ Mix(static_cast<uint64_t>(host_) * 977 + a) ^ Mix(b + 0x51ed));
  }
  const std::vector<OpTemplate>& model() const { return model_; }
  const SynthOptions& options() const { return o_; }
  const std::vector<StepPlan>& plan() const { return plan_; }
  int64_t step_id(int s) const { return 1000000 + s; }
  int64_t end_ps() const { return plan_.empty() ? 0 : plan_.back().end_ps + 100 * kUs; }

  // Replays step `s` on GPU `g`: host op spans, launches and device spans.
  StepRun Simulate(int s, int g, const StepPlan& p) const {
    StepRun r;
    Rng rng(Seed(static_cast<uint64_t>(s) + 1, static_cast<uint64_t>(g) + 1));
    r.ops.reserve(model_.size());
    int64_t t = p.ops_start_ps + rng.Uniform(0, 5) * kUs;
    int64_t gpu_free = t;
    uint64_t corr = (static_cast<uint64_t>(s) * std::max(o_.gpus, 1) + static_cast<uint64_t>(g)) *
                        static_cast<uint64_t>(max_launches_) +
                    1;
    const uint64_t weights = (uint64_t{2} << 30) + static_cast<uint64_t>(model_.size()) * (1 << 16);
    uint64_t in_use = weights, prev_alloc = 0, peak = p.peak_before;
    for (const OpTemplate& tpl : model_) {
      OpRun op;
      op.begin_ps = t;
      op.first_launch = static_cast<uint32_t>(r.launches.size());
      uint64_t alloc = static_cast<uint64_t>((tpl.alloc_bytes + 255) / 256 * 256);
      in_use += alloc;
      op.in_use_after_alloc = in_use;
      peak = std::max(peak, in_use);
      op.peak = peak;
      op.fragmentation = rng.Unit() * 0.1;
      int64_t lt = t + rng.Uniform(1, 3) * kUs;
      size_t n = tpl.kind == OpTemplate::kKernelOp ? tpl.kernels.size() : 1;
      for (size_t k = 0; k < n; ++k) {
        LaunchRun l;
        l.begin_ps = lt;
        l.duration_ps = rng.Uniform(3000, 9000) * kNs;
        l.correlation_id = corr++;
        int64_t dur_us = tpl.kind == OpTemplate::kKernelOp
                             ? rng.Uniform(kKernels[tpl.kernels[k]].min_us, kKernels[tpl.kernels[k]].max_us)
                             : rng.Uniform(50, 400);
        l.device_begin_ps = std::max(gpu_free, l.begin_ps + l.duration_ps + rng.Uniform(2, 6) * kUs);
        l.device_duration_ps = dur_us * kUs + rng.Uniform(0, 999) * kNs;
        gpu_free = l.device_begin_ps + l.device_duration_ps + rng.Uniform(1, 3) * kUs;
        r.launches.push_back(l);
        lt = l.begin_ps + l.duration_ps + rng.Uniform(500, 1500) * kNs;
      }
      op.num_launches = static_cast<uint32_t>(n);
      op.duration_ps = lt - t + rng.Uniform(1, 4) * kUs;
      in_use -= prev_alloc;  // the previous op's output dies when this op finishes
      op.in_use_after_free = in_use;
      prev_alloc = alloc;
      r.ops.push_back(op);
      t = op.begin_ps + op.duration_ps + rng.Uniform(1, 3) * kUs;
    }
    r.host_end_ps = t;
    r.device_end_ps = gpu_free;
    r.peak = peak;
    return r;
  }

  std::string OpName(int g, const OpTemplate& t) const {
    return g == 0 ? t.op_name : "replica_" + std::to_string(g) + "/" + t.op_name;
  }

 private:
  const SynthOptions& o_;
  int host_;
  int ops_per_step_ = 0;
  size_t max_launches_ = 0;
  std::vector<OpTemplate> model_;
  std::vector<StepPlan> plan_;
};

std::string HostName(int host) { return "worker" + std::to_string(host); }

bool WriteGpuPlane(const JobModel& job, int g, std::ostream& out, std::string& error) {
  wire::PlaneWriter plane(g, "/device:GPU:" + std::to_string(g), job.options().spill_bytes);
  auto caps = plane.PlaneStats();
  caps.Uint("clock_rate", 1410000)
      .Uint("core_count", 108)
      .Uint("memory_bandwidth", uint64_t{1555} * 1000000000)
      .Uint("memory_size", kGpuMemoryLimit)
      .Uint("compute_cap_major", 8)
      .Uint("compute_cap_minor", 0)
      .Str("device_vendor", "Nvidia")
      .Str("gpu_device_name", "NVIDIA A100-SXM4-40GB");
  const auto& model = job.model();
  const int64_t s_corr = plane.StatId("correlation_id"), s_details = plane.StatId("kernel_details"),
                s_tf_op = plane.StatId("tf_op"), s_context = plane.StatId("context_id"),
                s_memcpy = plane.StatId("memcpy_details");
  const int64_t ctx_value = plane.StatId("$$1");
  // Per template: event metadata ids of its kernels, tf_op and kernel_details ref ids.
  std::vector<std::vector<int64_t>> kernel_ids(model.size()), details_ids(model.size());
  std::vector<int64_t> tf_op_ids(model.size()), memcpy_ids(model.size());
  for (size_t i = 0; i < model.size(); ++i) {
    const OpTemplate& t = model[i];
    tf_op_ids[i] = plane.StatId(job.OpName(g, t) + ":" + t.op_type);
    for (size_t k = 0; k < t.kernels.size(); ++k) {
      kernel_ids[i].push_back(plane.EventId(kKernels[t.kernels[k]].name));
      details_ids[i].push_back(plane.StatId(t.kernel_details[k]));
    }
    if (t.kind != OpTemplate::kKernelOp) {
      bool h2d = t.kind == OpTemplate::kMemcpyH2D;
      kernel_ids[i].push_back(plane.EventId(h2d ? "MemcpyH2D" : "MemcpyD2H"));
      memcpy_ids[i] = plane.StatId(
          std::string(h2d ? "kind_src:pageable kind_dst:device" : "kind_src:device kind_dst:pageable") +
          " size:" + std::to_string(t.alloc_bytes * 64) + " dest:" + std::to_string(h2d ? g : -1) + " async:1");
    }
  }
  const int64_t compute_stream = 7, h2d_stream = 13, d2h_stream = 14;
  const struct {
    int64_t id;
    const char* name;
    OpTemplate::Kind kind;
  } streams[] = {{h2d_stream, "Stream #13(MemcpyH2D)", OpTemplate::kMemcpyH2D},
                 {compute_stream, "Stream #7(Compute)", OpTemplate::kKernelOp},
                 {d2h_stream, "Stream #14(MemcpyD2H)", OpTemplate::kMemcpyD2H}};
  for (const auto& stream : streams) {
    plane.Line(stream.id, stream.name, 0, job.end_ps(), [&] {
      for (size_t s = 0; s < job.plan().size(); ++s) {
        StepRun r = job.Simulate(static_cast<int>(s), g, job.plan()[s]);
        for (size_t i = 0; i < model.size(); ++i) {
          const OpTemplate& t = model[i];
          if (t.kind != stream.kind) continue;
          const OpRun& op = r.ops[i];
          for (uint32_t k = 0; k < op.num_launches; ++k) {
            const LaunchRun& l = r.launches[op.first_launch + k];
            auto ev = plane.AddEventById(kernel_ids[i][k], l.device_begin_ps, l.device_duration_ps);
            ev.Uint(s_corr, l.correlation_id).RefId(s_context, ctx_value);
            if (t.kind == OpTemplate::kKernelOp) {
              ev.RefId(s_details, details_ids[i][k]);
            } else {
              ev.RefId(s_memcpy, memcpy_ids[i]);
            }
            ev.RefId(s_tf_op, tf_op_ids[i]);
          }
        }
      }
    });
  }
  return plane.Finish(out, error);
}

// The host plane's Python main thread and tf.data's consumer and producer lines.
void AddPythonAndTfDataLines(const JobModel& job, wire::PlaneWriter& plane) {
  const auto& plan = job.plan();
  const int64_t end = job.end_ps();
  // Python main thread: step markers (roots for grouping) and the tf.function call.
  plane.Line(4242, "python3", 0, end, [&] {
    for (size_t s = 0; s < plan.size(); ++s) {
      const StepPlan& p = plan[s];
      plane.AddEvent("train", p.begin_ps, p.end_ps - p.begin_ps).Int("_r", 1).Int("step_num", static_cast<int64_t>(s));
      int64_t id = job.step_id(static_cast<int>(s));
      plane.AddEvent("FunctionRun", p.begin_ps + 5 * kUs, p.end_ps - p.begin_ps - 10 * kUs)
          .Int("id", id)
          .Int("_r", 1)
          .Int("_pt", 2)
          .Int("_p", id);
    }
  });
  // Consumer side of tf.data: the GetNext op, the root iterator and the prefetch buffer.
  plane.Line(6001, "tf_data_iterator_get_next", 0, end, [&] {
    for (size_t s = 0; s < plan.size(); ++s) {
      const StepPlan& p = plan[s];
      int64_t a = p.begin_ps + 10 * kUs, d = p.input_ps;
      plane.AddEvent("IteratorGetNextOp::DoCompute", a, d)
          .Int("id", job.step_id(static_cast<int>(s)))
          .Int("iter_num", 0);
      plane.AddEvent("Iterator::Root", a + 2 * kUs, d - 4 * kUs).Int("id", 1);
      plane.AddEvent("Iterator::Root::Prefetch", a + 3 * kUs, d - 6 * kUs)
          .Int("id", 2)
          .Int("parent_id", 1)
          .Int("buffer_limit", 2);
      plane.AddEvent("PrefetchConsume", a + 4 * kUs, d - 8 * kUs).Int("element_id", static_cast<int64_t>(s));
    }
  });
  // Producer side, on the iterator's background thread: element s is produced
  // during step s-1, or, when the step is input bound, while GetNext waits.
  const int64_t resource_base_ns = 100;  // a line that starts after the profile start
  plane.Line(6002, "tf_data_iterator_resource", resource_base_ns, end - resource_base_ns * kNs, [&] {
    for (size_t s = 0; s < plan.size(); ++s) {
      const StepPlan& p = plan[s];
      int64_t b, d;
      if (p.input_bound) {
        b = p.begin_ps + 15 * kUs;
        d = p.input_ps - 15 * kUs;
      } else {
        int64_t window_begin = s == 0 ? 500 * kUs : plan[s - 1].ops_start_ps;
        int64_t window_end = s == 0 ? plan[0].begin_ps : plan[s - 1].end_ps;
        b = window_begin + 5 * kUs;
        d = std::max<int64_t>(10 * kUs, std::min<int64_t>(600 * kUs, (window_end - window_begin) * 3 / 10));
      }
      int64_t off = b - resource_base_ns * kNs;
      plane.AddEvent("PrefetchProduce", off, d).Int("element_id", static_cast<int64_t>(s));
      plane.AddEvent("Iterator::Root::Prefetch::Map", off + 1 * kUs, d - 2 * kUs).Int("id", 3).Int("parent_id", 2);
      plane.AddEvent("Iterator::Root::Prefetch::Map::TFRecord", off + 2 * kUs, (d - 4 * kUs) * 6 / 10)
          .Int("id", 4)
          .Int("parent_id", 3);
    }
  });
}

bool WriteHostPlane(const JobModel& job, const SynthOptions& o, std::ostream& out, std::string& error) {
  wire::PlaneWriter plane(0, "/host:CPU", o.spill_bytes);
  const auto& plan = job.plan();
  const int64_t end = job.end_ps();
  AddPythonAndTfDataLines(job, plane);
  // One executor thread per GPU: ops, their kernel launches and BFC allocator events.
  const auto& model = job.model();
  const int64_t s_corr = plane.StatId("correlation_id"), s_dev = plane.StatId("device_id");
  const int64_t st[] = {plane.StatId("allocator_name"),
                        plane.StatId("bytes_reserved"),
                        plane.StatId("bytes_allocated"),
                        plane.StatId("bytes_available"),
                        plane.StatId("fragmentation"),
                        plane.StatId("peak_bytes_in_use"),
                        plane.StatId("requested_bytes"),
                        plane.StatId("allocation_bytes"),
                        plane.StatId("addr"),
                        plane.StatId("tf_op"),
                        plane.StatId("id"),
                        plane.StatId("region_type"),
                        plane.StatId("data_type"),
                        plane.StatId("shape")};
  const int64_t e_alloc = plane.EventId("MemoryAllocation"), e_free = plane.EventId("MemoryDeallocation"),
                e_h2d = plane.EventId("cuMemcpyHtoDAsync_v2"), e_d2h = plane.EventId("cuMemcpyDtoHAsync_v2");
  // TF's GPU tracer names a kernel launch's host event after the kernel it
  // launches, and a copy's after the driver call (so xprof's Launch Stats,
  // which skip "cu…" names, count the launches and not the copies).
  std::vector<std::vector<int64_t>> launch_ids(model.size());
  for (size_t i = 0; i < model.size(); ++i) {
    for (int k : model[i].kernels) launch_ids[i].push_back(plane.EventId(kKernels[k].name));
  }
  for (int g = 0; g < o.gpus; ++g) {
    std::vector<int64_t> op_ids;
    for (const OpTemplate& t : model) {
      op_ids.push_back(plane.EventId(job.OpName(g, t) + ":" + t.op_type));
      plane.SetDisplayName(op_ids.back(), t.op_type);  // TF shows host ops by type
    }
    const std::string allocator = "GPU_" + std::to_string(g) + "_bfc";
    const uint64_t addr_base = 0x7f0000000000ull + (static_cast<uint64_t>(g) << 36);
    plane.Line(5000 + g, "tf_Compute", 0, end, [&] {
      for (size_t s = 0; s < plan.size(); ++s) {
        const StepPlan& p = plan[s];
        StepRun r = job.Simulate(static_cast<int>(s), g, p);
        int64_t id = job.step_id(static_cast<int>(s));
        int64_t exec_begin = r.ops.front().begin_ps - 2 * kUs;
        plane.AddEvent("ExecutorState::Process", exec_begin, r.host_end_ps - exec_begin)
            .Int("id", id)
            .Int("iter_num", 0)
            .Int("_ct", 2)
            .Int("_c", id);
        // An allocator event of the output of op `i` (model[i]), at `at` while op `op` runs.
        auto memory = [&](int64_t event_id, int64_t at, uint64_t in_use, const OpRun& op, size_t i) {
          const OpTemplate& t = model[i];
          const uint64_t addr = addr_base + static_cast<uint64_t>(i) * (uint64_t{1} << 24);
          plane.AddEventById(event_id, at, 0)
              .Str(st[0], allocator)
              .Int(st[1], 0)
              .Int(st[2], static_cast<int64_t>(in_use))
              .Int(st[3], static_cast<int64_t>(kGpuMemoryLimit - in_use))
              .Double(st[4], op.fragmentation)
              .Int(st[5], static_cast<int64_t>(op.peak))
              .Int(st[6], t.alloc_bytes)
              .Int(st[7], (t.alloc_bytes + 255) / 256 * 256)
              .Int(st[8], static_cast<int64_t>(addr))  // int64, as TF's TraceMe text parses it
              .Str(st[9], job.OpName(g, t))
              .Int(st[10], id)
              .Str(st[11], "output")
              .Int(st[12], t.data_type)
              .Str(st[13], t.shape);
        };
        for (size_t i = 0; i < model.size(); ++i) {
          const OpTemplate& t = model[i];
          const OpRun& op = r.ops[i];
          plane.AddEventById(op_ids[i], op.begin_ps, op.duration_ps);
          memory(e_alloc, op.begin_ps, op.in_use_after_alloc, op, i);
          for (uint32_t k = 0; k < op.num_launches; ++k) {
            const LaunchRun& l = r.launches[op.first_launch + k];
            int64_t name = t.kind == OpTemplate::kMemcpyH2D   ? e_h2d
                           : t.kind == OpTemplate::kMemcpyD2H ? e_d2h
                                                              : launch_ids[i][k];
            plane.AddEventById(name, l.begin_ps, l.duration_ps)
                .Uint(s_corr, l.correlation_id)
                .Uint(s_dev, static_cast<uint64_t>(g));
          }
          // The previous op's output is freed when this op ends.
          if (i > 0) memory(e_free, op.begin_ps + op.duration_ps, op.in_use_after_free, op, i - 1);
        }
      }
    });
  }
  return plane.Finish(out, error);
}

bool WriteTaskEnvironmentPlane(const JobModel& job, std::ostream& out, std::string& error) {
  wire::PlaneWriter plane(0, "Task Environment");
  plane.PlaneStats()
      .Uint("profile_start_time", static_cast<uint64_t>(kProfileStartWallNs))
      .Uint("profile_stop_time", static_cast<uint64_t>(kProfileStartWallNs + job.end_ps() / kNs));
  return plane.Finish(out, error);
}

}  // namespace

Status WriteSyntheticXSpace(const SynthOptions& options, int host, std::ostream& out) {
  if (options.gpus < 0 || options.steps < 1 || options.events < 1 || options.hosts < 1) {
    return InvalidArgument("synth: --gpus must be >= 0 and --steps, --events, --hosts >= 1");
  }
  JobModel job(options, host);
  std::string error;
  for (int g = 0; g < options.gpus; ++g) {
    if (!WriteGpuPlane(job, g, out, error)) return Internal("synth: " + error);
  }
  if (!WriteHostPlane(job, options, out, error) || !WriteTaskEnvironmentPlane(job, out, error)) {
    return Internal("synth: " + error);
  }
  wire::WriteHostnames(out, {HostName(host)});
  if (!out) return Internal("synth: write failed");
  return Status::Ok();
}

StatusOr<std::vector<std::string>> GenerateSyntheticLogdir(const SynthOptions& options) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(options.out_dir) / "plugins" / "profile" / options.run;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Internal("synth: cannot create " + dir.string() + ": " + ec.message());
  std::vector<std::string> paths;
  std::vector<char> buffer(1 << 20);
  for (int h = 0; h < options.hosts; ++h) {
    std::string path = (dir / (HostName(h) + ".xplane.pb")).string();
    std::ofstream out;
    out.rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    out.open(path, std::ios::binary | std::ios::trunc);
    if (!out) return Internal("synth: cannot write " + path);
    RETURN_IF_ERROR(WriteSyntheticXSpace(options, h, out));
    out.close();
    if (!out) return Internal("synth: cannot write " + path);
    paths.push_back(path);
  }
  return paths;
}

}  // namespace tbprof
