"""Small JAX programs of known structure, for real NVIDIA profiles (issue 19).

Written for a GPU session and not yet run on a GPU: the first session with
one runs it through scripts/gpu_session/on_device.sh.

  python3 jax_programs.py --logdir DIR     one profile per program, with
                                           jax.profiler.trace, under DIR/<program>/
  python3 jax_programs.py --ncu            the same programs, one measured
                                           step each between cuProfilerStart
                                           and cuProfilerStop (run under
                                           `ncu --profile-from-start off`)

Both modes share JAX's persistent compilation cache (--cache DIR), so the
measured run executes the very kernels the profiles hold, and no autotuning
kernels are measured.

The programs, and what a profile of each must show:
  mlp_bf16_train    a 3-layer bf16 MLP, SGD, 8 steps marked with
                    StepTraceAnnotation("train", step_num=i): 8 steps; its dots
                    run on tensor cores
  matmul_f32_highest  an f32 matmul at precision=HIGHEST, 4 runs: on CUDA cores
                    (HIGHEST keeps full f32, no TF32 tensor-core path)
  conv_bf16         a bf16 NHWC 3x3 convolution, 4 runs: on tensor cores
  slow_input        the MLP step fed by a host input function that sleeps
                    5 ms per batch, 8 steps: input-bound
"""

import argparse
import ctypes
import os
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--logdir", help="write one profile per program under this folder")
    mode.add_argument("--ncu", action="store_true", help="measure one step per program for Nsight Compute")
    p.add_argument("--cache", default="/tmp/tbprof_jax_cache", help="JAX persistent compilation cache")
    p.add_argument("--only", default="", help="comma-separated program names (default all)")
    return p.parse_args()


ARGS = parse_args()
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import jax  # noqa: E402  (after the allocator setting)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

jax.config.update("jax_compilation_cache_dir", ARGS.cache)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)

_cuda = None


def cuda_profiler(start):
    """cuProfilerStart/Stop of the driver: what `ncu --profile-from-start off` waits for."""
    global _cuda
    if _cuda is None:
        _cuda = ctypes.CDLL("libcuda.so.1")
    rc = _cuda.cuProfilerStart() if start else _cuda.cuProfilerStop()
    if rc != 0:
        raise RuntimeError(f"cuProfiler{'Start' if start else 'Stop'} returned {rc}")


def mlp(key, width=1024, batch=512):
    keys = jax.random.split(key, 4)
    params = [jax.random.normal(k, (width, width), jnp.bfloat16) * 0.02 for k in keys[:3]]
    x = jax.random.normal(keys[3], (batch, width), jnp.bfloat16)
    y = jnp.zeros((batch, width), jnp.bfloat16)

    def loss(p, x, y):
        h = x
        for w in p[:-1]:
            h = jax.nn.relu(h @ w)
        return jnp.mean(jnp.square((h @ p[-1] - y).astype(jnp.float32)))

    @jax.jit
    def step(p, x, y):
        grads = jax.grad(loss)(p, x, y)
        return [w - 1e-3 * g for w, g in zip(p, grads)]

    return step, params, x, y


def mlp_bf16_train(steps, traced):
    step, params, x, y = mlp(jax.random.PRNGKey(0))
    params = jax.block_until_ready(step(params, x, y))  # compile
    with traced():
        for i in range(steps):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                params = jax.block_until_ready(step(params, x, y))


def matmul_f32_highest(steps, traced):
    a = jax.random.normal(jax.random.PRNGKey(1), (2048, 2048), jnp.float32)
    f = jax.jit(lambda a, b: jnp.matmul(a, b, precision=jax.lax.Precision.HIGHEST))
    jax.block_until_ready(f(a, a))
    with traced():
        for _ in range(steps):
            jax.block_until_ready(f(a, a))


def conv_bf16(steps, traced):
    x = jax.random.normal(jax.random.PRNGKey(2), (32, 64, 64, 128), jnp.bfloat16)
    k = jax.random.normal(jax.random.PRNGKey(3), (3, 3, 128, 128), jnp.bfloat16)
    f = jax.jit(lambda x, k: jax.lax.conv_general_dilated(
        x, k, window_strides=(1, 1), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    jax.block_until_ready(f(x, k))
    with traced():
        for _ in range(steps):
            jax.block_until_ready(f(x, k))


def slow_input(steps, traced):
    step, params, x, y = mlp(jax.random.PRNGKey(4))
    params = jax.block_until_ready(step(params, x, y))
    rng = np.random.default_rng(0)

    def next_batch():
        time.sleep(0.005)  # the slow host input step
        return jnp.asarray(rng.standard_normal(x.shape, dtype=np.float32), jnp.bfloat16)

    with traced():
        for i in range(steps):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                params = jax.block_until_ready(step(params, next_batch(), y))


PROGRAMS = {
    "mlp_bf16_train": (mlp_bf16_train, 8),
    "matmul_f32_highest": (matmul_f32_highest, 4),
    "conv_bf16": (conv_bf16, 4),
    "slow_input": (slow_input, 8),
}


class Profiled:
    def __init__(self, logdir):
        self.logdir = logdir

    def __enter__(self):
        jax.profiler.start_trace(self.logdir)

    def __exit__(self, *exc):
        jax.profiler.stop_trace()


class Measured:
    def __enter__(self):
        cuda_profiler(True)

    def __exit__(self, *exc):
        cuda_profiler(False)


def main():
    names = [n for n in ARGS.only.split(",") if n] or list(PROGRAMS)
    print("jax", jax.__version__, "devices", jax.devices(), flush=True)
    for name in names:
        run, steps = PROGRAMS[name]
        t0 = time.time()
        if ARGS.ncu:
            run(1, Measured)
        else:
            logdir = os.path.join(ARGS.logdir, name)
            run(steps, lambda: Profiled(logdir))
        print(f"{name}: {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
