#!/usr/bin/env bash
# The main job: install, build, and serve a logdir on http://localhost:6006/.
# With no --logdir, makes a demo logdir with the harness (real tf.data-like
# pipelines traced by our host tracer) plus a synthetic GPU profile, and serves it.
#   scripts/run.sh [--logdir DIR] [any other `tbprof serve` flags]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh

args=("$@")
have_logdir=0
for a in "${args[@]}"; do
  case "$a" in --logdir|--logdir=*) have_logdir=1 ;; esac
done
if [ "$have_logdir" -eq 0 ]; then
  demo=build/demo_logdir
  if [ ! -d "$demo/plugins" ]; then
    echo "run: making a demo logdir in $demo"
    build/tbprof harness demo --logdir "$demo"
    build/tbprof synth --out "$demo" --run gpu_training_synthetic --events 200000 --gpus 2
  fi
  args+=(--logdir "$demo")
fi
exec build/tbprof serve "${args[@]}"
