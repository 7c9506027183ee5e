#!/usr/bin/env bash
# Browser tests of the UI: starts `build/tbprof serve` on a demo logdir (a
# synthetic run plus copies of the real profiles in tests/realdata) and drives Debian's
# chromium headless through every page. Screenshots go to build/web-artifacts/.
# Without a tbprof that has `serve` (or with TBPROF_WEB_TARGET=mock) the same
# tests run against dev/mock_server.mjs, which answers from testdata samples.
set -euo pipefail
web="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$web/../.." && pwd)"
testdata="${TBPROF_TESTDATA:-$repo/tests/realdata}"
artifacts="$repo/build/web-artifacts"
# The executable is built in build/cli/ (older trees: build/).
tbprof="$repo/build/tbprof"
chromium="${CHROMIUM:-/usr/bin/chromium}"

if [ ! -x "$chromium" ]; then echo "web tests: $chromium not found (scripts/setup.sh installs chromium)"; echo "0 passed, 1 failed"; exit 1; fi
"$web/setup.sh" >/dev/null
rm -rf "$artifacts"; mkdir -p "$artifacts"

# node is needed anyway, so it also finds a free port and polls the server (no python3/curl needed).
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})'; }
answers() { node -e 'fetch(process.argv[1]).then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))' "$1"; }
server_pid=""
job_pid=""
big_pid=""
cleanup() {
  for pid in $server_pid $job_pid $big_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

target="${TBPROF_WEB_TARGET:-auto}"
if [ "$target" = auto ]; then
  if [ -x "$tbprof" ] && "$tbprof" serve --help >/dev/null 2>&1; then target=real; else target=mock; fi
fi
# CI tests the real server: a missing binary must fail there, not fall back to the mock.
if [ "$target" = mock ] && [ -n "${CI:-}" ] && [ -z "${TBPROF_WEB_TARGET:-}" ]; then
  echo "web tests: $tbprof is missing or has no 'serve'; CI runs the browser tests against the real server"
  echo "0 passed, 1 failed"
  exit 1
fi

port="$(free_port)"
if [ "$target" = real ]; then
  logdir="$repo/build/web-demo-logdir"
  rm -rf "$logdir"; mkdir -p "$logdir/plugins/profile/empty_run"
  if "$tbprof" synth --help >/dev/null 2>&1; then
    # Two hosts (ALL_HOSTS, pod_viewer) and over xprof's 500k-event streaming
    # threshold per host, so trace_viewer@ really streams windows.
    "$tbprof" synth --out "$logdir" --hosts 2 --events "${TBPROF_WEB_EVENTS:-1000000}" >/dev/null
  else
    echo "web tests: tbprof has no synth subcommand; using testdata profiles only"
  fi
  # The demo's harness runs (named naive, prefetch, cache) with TensorFlow-style step markers.
  "$tbprof" harness demo --logdir "$logdir" >/dev/null
  if [ ! -d "$testdata/xplane" ]; then echo "web tests: the real profiles are missing at $testdata" >&2; exit 1; fi
  # Every real profile of the test data is a run of its own (the walk checks each page of each against /data).
  for dir in "$testdata/xplane/"*/; do
    name="$(basename "$dir")"
    [ "$name" = corrupt ] && continue
    mkdir -p "$logdir/plugins/profile/$name"; cp "$dir"*.xplane.pb "$logdir/plugins/profile/$name/"
  done
  mkdir -p "$logdir/plugins/profile/corrupt"; cp "$testdata/xplane/corrupt/"*.xplane.pb "$logdir/plugins/profile/corrupt/host0.xplane.pb"
  # A real GPU profile beside a copy of it cut short (named to sort first: the menu must not hang on it): ALL_HOSTS
  # pages combine the good host and name the cut one, each host answers on its own.
  gemm="$testdata/xplane/jax_rocm_mi300_gemm/tw003.xplane.pb"
  mkdir -p "$logdir/plugins/profile/damaged_host"; cp "$gemm" "$logdir/plugins/profile/damaged_host/good.xplane.pb"
  head -c 20000 "$gemm" >"$logdir/plugins/profile/damaged_host/cut.xplane.pb"
  cp -r "$testdata/legacy_logdir_tf22" "$logdir/legacy_tf22"
  cp -r "$testdata/legacy_logdir_tf23_cpu" "$logdir/legacy_tf23_cpu"   # trace.json.gz: the non-streaming trace viewer
  chmod -R u+w "$logdir/legacy_tf22" "$logdir/legacy_tf23_cpu"
  # HTA's trace-diff pair (tiny PyTorch traces) as two hosts of one torch-tb-profiler-style run: the compare check.
  mkdir -p "$logdir/pytorch_hta_pair"
  for side in base test; do cp "$testdata/kineto_hta/trace_compare/$side.json.gz" "$logdir/pytorch_hta_pair/$side.pt.trace.json.gz"; done
  chmod -R u+w "$logdir/pytorch_hta_pair"
  # A PyTorch run in torch-tb-profiler's layout (<run>/<worker>.<ms>.pt.trace.json.gz): the walk covers an imported trace.
  mkdir -p "$logdir/pytorch_resnet50"
  cp "$testdata/kineto_torch_tb_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz" "$logdir/pytorch_resnet50/"
  # A PyTorch run on an H100 that recorded its operators' shapes (TraceLens's test trace): trace_analysis' operator roofline.
  mkdir -p "$logdir/pytorch_h100_bert"
  cp "$testdata/kineto_nvidia/h100_bert_small.pt.trace.json.gz" "$logdir/pytorch_h100_bert/"
  # tfprof's own files (ProfileContext's profile_<step>): a run whose one tool is tfprof.
  "$repo/build/write_tfprof_profiles" "$logdir/tfprof_profile_dir"
  "$tbprof" serve --logdir "$logdir" --port "$port" --host 127.0.0.1 >"$artifacts/server.log" 2>&1 &
  server_pid=$!
  # A one-host profile of about 2M trace events, in a logdir of its own (the walk above does not need it):
  # tests/trace_big_test.mjs times following a flow on it and checks the ruler and the range selection.
  big_logdir="$repo/build/web-big-logdir"
  rm -rf "$big_logdir"
  "$tbprof" synth --out "$big_logdir" --hosts 1 --events "${TBPROF_WEB_BIG_EVENTS:-2000000}" --run big --seed 3 >/dev/null
  big_port="$(free_port)"
  "$tbprof" serve --logdir "$big_logdir" --port "$big_port" --host 127.0.0.1 >"$artifacts/server-big.log" 2>&1 &
  big_pid=$!
  # A capturable job for the Capture Profile dialog (ended by SIGTERM at exit).
  "$tbprof" harness pipeline --variant prefetch --steps 1000000 --warmup 0 --serve_profiler 0 \
    >"$artifacts/job.log" 2>&1 &
  job_pid=$!
else
  if [ ! -d "$testdata" ]; then echo "web tests: no tbprof serve and no real profiles at $testdata" >&2; echo "0 passed, 1 failed"; exit 1; fi
  echo "web tests: running against the dev mock server (tbprof serve not available)"
  node "$web/dev/mock_server.mjs" --port "$port" --testdata "$testdata" >"$artifacts/server.log" 2>&1 &
  server_pid=$!
fi

for _ in $(seq 1 300); do
  if answers "http://127.0.0.1:$port/data/plugin/profile/runs"; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then echo "web tests: server exited early:"; tail -20 "$artifacts/server.log"; echo "0 passed, 1 failed"; exit 1; fi
  sleep 0.2
done

cd "$web"
capture_args=()
if [ -n "$job_pid" ]; then
  for _ in $(seq 1 100); do grep -q 'ProfilerService at' "$artifacts/job.log" 2>/dev/null && break; sleep 0.1; done
  job_addr="$(sed -n 's/.*ProfilerService at \([0-9.]*:[0-9]*\).*/\1/p' "$artifacts/job.log" | head -1)"
  [ -n "$job_addr" ] && capture_args=(--capture-addr "$job_addr")
fi
status=0
# First, while the server is cold: the trace viewer's first picture of the PyTorch run's ~50k-event trace.
if [ "$target" = real ]; then
  node tests/trace_first_paint_test.mjs --base "http://127.0.0.1:$port" --chromium "$chromium" || status=1
fi
node tests/browser_test.mjs --base "http://127.0.0.1:$port" --artifacts "$artifacts" --chromium "$chromium" "${capture_args[@]}" || status=$?
if [ "$target" = real ]; then
  node tests/xla_viewers_test.mjs --base "http://127.0.0.1:$port" --chromium "$chromium" || status=1
  node tests/pytorch_words_test.mjs --base "http://127.0.0.1:$port" --artifacts "$artifacts" --chromium "$chromium" || status=1
  node tests/trace_big_test.mjs --base "http://127.0.0.1:$big_port" --artifacts "$artifacts" --chromium "$chromium" || status=1
  node tests/mock_server_test.mjs --real-base "http://127.0.0.1:$port" || status=1
else
  node tests/mock_server_test.mjs || status=1
fi
exit "$status"
