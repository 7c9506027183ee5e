// What each figure of the trace analysis page means and what to try when it is bad, in the words of the
// framework that wrote the profile: a PyTorch user reads of DataLoader and DDP buckets, a TensorFlow user of
// tf.data and XLA, a JAX user of jit and XLA flags. A PyTorch run's page names no TensorFlow term.
import { el } from '../dom';

export type Framework = 'PyTorch' | 'TensorFlow' | 'JAX';

export type Topic = 'temporal' | 'kernels' | 'overlap' | 'idle' | 'queue' | 'launch' | 'stragglers' | 'critical_path' | 'roofline';

interface Words { means: string; tryThis: Record<Framework, string> }

export const WORDS: Record<Topic, Words> = {
  temporal: {
    means: 'Each rank\'s GPU span split into idle time (no kernel runs), compute time (computation kernels) and non-compute time '
      + '(memory copies and sets, communication kernels), as shares of the span from the first kernel\'s start to the last kernel\'s end.',
    tryThis: {
      PyTorch: 'High idle time means the GPU waits for the host. Feed it faster: DataLoader(num_workers=…, pin_memory=True, '
        + 'prefetch_factor=…), remove host-device synchronizations in the step (.item(), .cpu(), printing tensors), and cut launch '
        + 'overhead with torch.compile or CUDA graphs. High non-compute time: see the kernel types and the overlap below.',
      TensorFlow: 'High idle time means the GPU waits for the host. Feed it faster: tf.data with .prefetch(tf.data.AUTOTUNE) and '
        + 'num_parallel_calls in map, .cache() where the data fits; keep the step in a tf.function and let XLA (jit_compile=True) '
        + 'fuse small kernels so fewer are launched.',
      JAX: 'High idle time means the GPU waits for the host. Keep the whole step in one jax.jit function, prefetch input to the '
        + 'device (jax.device_put ahead of the step, a prefetching loader such as tf.data or Grain), and avoid '
        + 'block_until_ready or printing arrays inside the loop.',
    },
  },
  kernels: {
    means: 'GPU time by kernel type: COMPUTATION, COMMUNICATION (collectives) and MEMORY (copies, sets). Time where types run at '
      + 'once on different streams is counted in its overlap class ("COMPUTATION overlapping COMMUNICATION"), so the classes add up '
      + 'to the time some kernel ran.',
    tryThis: {
      PyTorch: 'COMMUNICATION alone (not overlapping COMPUTATION) is exposed communication: with DDP, tune bucket_cap_mb so '
        + 'gradients are all-reduced while the backward pass still runs; with FSDP, turn on forward_prefetch / backward_prefetch. '
        + 'A large MEMORY share: pin_memory=True with .to(device, non_blocking=True), and keep tensors on the GPU between steps.',
      TensorFlow: 'COMMUNICATION alone is exposed communication: with MirroredStrategy / MultiWorkerMirroredStrategy, tune '
        + 'tf.distribute.experimental.CommunicationOptions (bytes_per_pack) so all-reduces start during the backward pass, and let '
        + 'XLA schedule collectives. A large MEMORY share: keep the input pipeline on the host with prefetch_to_device.',
      JAX: 'COMMUNICATION alone is exposed communication: let XLA overlap it (--xla_gpu_enable_latency_hiding_scheduler=true in '
        + 'XLA_FLAGS), and shard so that collectives are fewer and larger. A large MEMORY share: avoid host round trips of arrays '
        + 'between jitted calls.',
    },
  },
  overlap: {
    means: 'The share of each rank\'s communication time during which a computation kernel also runs. "—" means the rank ran '
      + 'no communication kernel, so there is nothing to overlap.',
    tryThis: {
      PyTorch: 'Low overlap means ranks wait for collectives. With DDP, smaller buckets (bucket_cap_mb) start all-reduces earlier; '
        + 'gradient_as_bucket_view=True saves copies; with FSDP, prefetch the next all-gather. Collectives on their own CUDA streams '
        + 'can only overlap compute that does not depend on them.',
      TensorFlow: 'Low overlap means replicas wait for collectives: let XLA and the distribution strategy pack and schedule '
        + 'all-reduces during the backward pass (CommunicationOptions bytes_per_pack, NCCL).',
      JAX: 'Low overlap means devices wait for collectives: turn on XLA\'s latency hiding scheduler and asynchronous '
        + 'collectives in XLA_FLAGS, and check the sharding for collectives on the critical path.',
    },
  },
  idle: {
    means: 'Each stream\'s idle time split as HTA does: host_wait (the stream waited for the host to launch work), kernel_wait '
      + '(a short gap between kernels, below the threshold named here) and other (the rest, e.g. waits on another stream or '
      + 'on a synchronization).',
    tryThis: {
      PyTorch: 'host_wait: the CPU launches too slowly — torch.compile (mode="reduce-overhead" uses CUDA graphs), fewer small '
        + 'ops, no synchronizations in the step. kernel_wait: many tiny kernels — fuse them (torch.compile). other: look for waits '
        + 'on events between CUDA streams and for torch.cuda.synchronize().',
      TensorFlow: 'host_wait: the host launches too slowly — run the step as a tf.function with XLA (jit_compile=True), move input '
        + 'work into tf.data. kernel_wait: many tiny kernels — XLA fusion. other: waits on other streams or on host transfers.',
      JAX: 'host_wait: the host dispatches too slowly — jit larger functions, avoid Python work between steps. kernel_wait: many '
        + 'tiny kernels — let XLA fuse them, or use XLA\'s command buffers (CUDA graphs). other: waits on other streams or transfers.',
    },
  },
  queue: {
    means: 'The number of launched kernels and copies waiting on each stream (launched by the CPU, not finished on the GPU), over '
      + 'time, and how long the queue was full (at HTA\'s threshold, named here), when the CPU blocks on the next launch.',
    tryThis: {
      PyTorch: 'A queue near 0 means the GPU gets each kernel just in time: the step is CPU bound — torch.compile or CUDA graphs, '
        + 'larger batches, less Python per step. A queue often full means the CPU runs far ahead and the GPU sets the pace: '
        + 'optimize the kernels (mixed precision with torch.autocast, channels_last).',
      TensorFlow: 'A queue near 0 means the step is host bound: XLA (jit_compile=True) launches fewer kernels, tf.data moves '
        + 'input work off the step. A queue often full means the GPU sets the pace: optimize the kernels (mixed precision).',
      JAX: 'A queue near 0 means the step is host bound: jit larger functions so XLA launches fewer, larger kernels. A queue often '
        + 'full means the GPU sets the pace: optimize the kernels (bfloat16, better sharding).',
    },
  },
  launch: {
    means: 'For each kernel launch: the CPU time of the launch call, the kernel\'s GPU time, and the launch delay (kernel start '
      + 'minus the launch call\'s start). Short kernels run for less than their launch call took; launch-delay outliers wait '
      + 'longer than the threshold named here.',
    tryThis: {
      PyTorch: 'Many short kernels cost more to launch than to run: fuse them with torch.compile, or capture the step with CUDA '
        + 'graphs (torch.cuda.graph, or torch.compile(mode="reduce-overhead")). Long launch delays mean a busy stream or a blocked host: see the '
        + 'queue length.',
      TensorFlow: 'Many short kernels cost more to launch than to run: XLA (jit_compile=True) fuses them into fewer kernels. Long '
        + 'launch delays mean a busy stream or a blocked host: see the queue length.',
      JAX: 'Many short kernels cost more to launch than to run: jit larger functions so XLA fuses more, or enable XLA\'s command '
        + 'buffers (CUDA graphs). Long launch delays mean a busy stream or a blocked host: see the queue length.',
    },
  },
  stragglers: {
    means: 'Per rank: step time, compute, communication and idle time. A rank outside the band (its rule is named here) makes every '
      + 'other rank wait at the next collective.',
    tryThis: {
      PyTorch: 'A slow rank: compare its DataLoader time (uneven shards, slow workers), its GPU (another process, clocks) and its '
        + 'NCCL bandwidth below. A fast rank with high idle time is waiting for the others.',
      TensorFlow: 'A slow replica: compare its tf.data input time, its GPU (another process, clocks) and its collective bandwidth '
        + 'below.',
      JAX: 'A slow process: compare its input time, its GPU (another process, clocks) and its collective bandwidth below.',
    },
  },
  critical_path: {
    means: 'The chain of CPU ops, kernel launches and kernels that sets the chosen step\'s length, with waits where the chain '
      + 'waited for the GPU (gpu_wait) or the CPU (cpu_wait). Making anything off this chain faster does not shorten the step.',
    tryThis: {
      PyTorch: 'Mostly cpu_op and launch: the step is host bound — torch.compile, CUDA graphs, fewer synchronizations. Mostly kernel: '
        + 'optimize the largest kernels on the path (torch.autocast, cudnn.benchmark). Waits on the path point at a synchronization '
        + '(.item(), torch.cuda.synchronize()) or a collective.',
      TensorFlow: 'Mostly cpu_op and launch: the step is host bound — tf.function with XLA. Mostly kernel: optimize the largest '
        + 'kernels on the path (mixed precision). Waits on the path point at a host-device transfer or a collective.',
      JAX: 'Mostly cpu_op and launch: the step is host bound — jit larger functions. Mostly kernel: optimize the largest kernels on '
        + 'the path (bfloat16). Waits on the path point at a transfer to the host or a collective.',
    },
  },
  roofline: {
    means: 'Each operator\'s achieved TFLOP/s against its arithmetic intensity (FLOPs per byte moved), from its recorded input '
      + 'shapes and dtypes, under the device\'s compute roofs (flat, one per precision) and memory roof (slanted). Each operator is '
      + 'held to the roof of its dtype as PyTorch runs it by default: bf16/fp16 matmuls on Tensor Cores, fp32 matmuls on CUDA cores '
      + '(TF32 is off for matmuls), fp32 convolutions as TF32 (cuDNN allows it), elementwise ops on the FP32 CUDA cores. The ridge '
      + 'point, where the roofs meet, splits memory-bound operators (left) from compute-bound ones (right). Operators whose shapes '
      + 'were not recorded are unknown and not drawn.',
    tryThis: {
      PyTorch: 'Far under the slanted roof: memory bound — fuse elementwise ops (torch.compile), use bf16/fp16 (torch.autocast). '
        + 'Far under the flat roof at high intensity: use Tensor Cores (bf16, or TF32 via torch.backends.cuda.matmul.allow_tf32) '
        + 'and shapes that are multiples of 8. Record shapes with torch.profiler.profile(record_shapes=True, with_flops=True).',
      TensorFlow: 'The operator roofline needs PyTorch\'s recorded shapes; for a TensorFlow run the Roofline Model tool shows '
        + 'each op against the device\'s roofs.',
      JAX: 'The operator roofline needs PyTorch\'s recorded shapes; for a JAX run the Roofline Model tool shows each op against '
        + 'the device\'s roofs.',
    },
  },
};

export function frameworkOf(v: unknown): Framework {
  return v === 'TensorFlow' || v === 'JAX' ? v : 'PyTorch';
}

// A section's explanation: what the figures mean, then what to try when they are bad.
export function explain(topic: Topic, fw: Framework, extra = ''): HTMLElement {
  const w = WORDS[topic];
  return el('div', { class: 'ta-words', 'data-topic': topic },
    el('p', { class: 'hint' }, w.means, extra ? ` ${extra}` : ''),
    el('p', { class: 'hint ta-try' }, el('strong', {}, 'What to try: '), w.tryThis[fw]));
}
