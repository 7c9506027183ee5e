#!/usr/bin/env bash
# Everything issue 19 needs from a GPU machine, in one device call.
# Written for a GPU session and not yet run on a GPU; see README.md beside it.
#
# Here first (about 10 minutes on 2 cores):  scripts/gpu_check.sh --bundle
# Then one device call, from the repository root:
#   run(command="bash scripts/gpu_session/on_device.sh", carry=["build-gpu-bundle"], timeout_s=600)
#
# Writes into $OUT (the device tool brings back at most 8 files):
#   env.txt           GPU, driver, nvcc, Nsight Compute, JAX and PyTorch versions
#   gpu_check.log     scripts/gpu_check.sh --prebuilt: every Gpu* test and `harness gpu --check`
#   ncu_harness.csv   Nsight Compute's tensor-pipe metrics for every harness kernel (--untraced)
#   ncu_jax.csv       the same for one step of each JAX program
#   jax_profiles.tgz  the JAX programs' profiles, for tests/data/
#   jax.log           what the JAX programs printed, both runs
# Each step runs whatever the one before it did; the exit status is the
# first failing step's.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:?OUT is not set: this runs on the device machine}"
bundle="${BUNDLE:-build-gpu-bundle}"
rc=0
# Nsight Compute's folder, where ncu is not on the PATH.
command -v ncu >/dev/null || PATH="$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -1)"
step() { echo "== $*" >&2; }
fail() { [ "$rc" -ne 0 ] || rc=$1; }

step "environment"
{
  uname -r  # 4.4.0 is gVisor, where ncu read no counters; Firecracker kernels end in -gpu
  nvidia-smi
  nvcc --version 2>&1 | tail -1
  ncu --version 2>&1 | tail -1
  python3 -c 'import jax; print("jax", jax.__version__, jax.devices())' 2>&1
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)' 2>&1
} > "$out/env.txt" 2>&1

step "gpu_check.sh --prebuilt $bundle"
bash scripts/gpu_check.sh --prebuilt "$bundle" > "$out/gpu_check.log" 2>&1 || fail $?

step "JAX profiles"
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
cache=/tmp/tbprof_jax_cache logdir=/tmp/tbprof_jax_logdir
rm -rf "$cache" "$logdir"
python3 scripts/gpu_session/jax_programs.py --logdir "$logdir" --cache "$cache" > "$out/jax.log" 2>&1 || fail $?
tar czf "$out/jax_profiles.tgz" -C "$(dirname "$logdir")" "$(basename "$logdir")" || fail $?

# Every tensor-pipe counter this GPU has (names differ between Ampere's HMMA
# and Hopper's GMMA pipes), summed over the kernel, with its duration.
metrics=$(ncu --query-metrics 2>/dev/null | awk '{print $1}' |
  grep -E '^sm__(pipe_tensor|inst_executed_pipe_tensor)' | sort -u | sed 's/$/.sum/' | paste -sd, -)
if [ -z "$metrics" ]; then
  echo "no tensor-pipe metrics listed by ncu --query-metrics" >> "$out/env.txt"
  fail 5
else
  metrics="gpu__time_duration.sum,$metrics"
  echo "ncu metrics: $metrics" >> "$out/env.txt"

  step "ncu: harness kernels"
  libs="$bundle/runtime-libs"
  for d in /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64; do [ -d "$d" ] && libs="$libs:$d"; done
  LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    ncu --clock-control none --csv --page raw --metrics "$metrics" --log-file "$out/ncu_harness.csv" \
    "$bundle/tbprof" harness gpu --untraced --iters 2 >> "$out/env.txt" 2>&1 || fail $?

  step "ncu: one step of each JAX program"
  ncu --clock-control none --csv --page raw --metrics "$metrics" --profile-from-start off --target-processes all \
    --log-file "$out/ncu_jax.csv" \
    python3 scripts/gpu_session/jax_programs.py --ncu --cache "$cache" >> "$out/jax.log" 2>&1 || fail $?
fi

ls -la "$out" >&2
exit "$rc"
