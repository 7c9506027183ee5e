#!/usr/bin/env bash
# Slurm.SummarizeArrayOverASyntheticPod: scripts/slurm/summarize.sbatch run as
# a real Slurm array (a one-node cluster this test starts and stops) over a
# synthetic pod writes a valid summary of every host's file, each file by
# exactly the task whose shard holds it; extra flags (--summary_dir) reach
# tbprof; and a shard that fails makes `sbatch --wait` fail.
#   summarize_array_test.sh PATH/TO/tbprof
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
tbprof=$(realpath "${1:?usage: $0 PATH/TO/tbprof}")
[ -x "$tbprof" ] || { echo "FAIL: $tbprof is not an executable" >&2; exit 1; }
sbatch_script=$src/scripts/slurm/summarize.sbatch
# shellcheck source=tests/slurm/one_node_cluster.sh
source "$src/tests/slurm/one_node_cluster.sh"

# Canonical, as tbprof prints the paths it summarizes.
D=$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/tbprof-slurm-test.XXXXXX")")
trap 'stop_one_node_cluster; rm -rf "$D"' EXIT
fail() {
  echo "FAIL: $*" >&2
  local f
  for f in "$D"/jobs/*.out; do [ -f "$f" ] && { echo "----- $f" >&2; cat "$f" >&2; }; done
  cluster_print_logs
  exit 1
}

# Submits the array from $D/jobs (its logs land there) and echoes sbatch's
# exit status; a cluster that never runs it fails the test after 120 s.
submit_array() {
  local last=$1
  shift
  local rc=0
  (cd "$D/jobs" && TBPROF=$tbprof timeout 120 sbatch --parsable --wait --array=0-"$last" "$@") \
    >"$D/jobs/sbatch.stdout" 2>"$D/jobs/sbatch.stderr" || rc=$?
  [ "$rc" -ne 124 ] || fail "sbatch --wait did not return within 120 s"
  echo "$rc"
}

# The sbatch log of task $2 of job $1: the script's --output pattern %x-%A_%a.out.
task_log() { echo "$D/jobs/tbprof-summarize-$1_$2.out"; }

# A summary starts "TBPSUM" (then its format version); that it is of this
# tbprof's version, decodes and matches its profile is what the rerun below checks.
check_header() {
  local head
  [ -s "$1" ] || fail "no summary $1"
  head=$(head -c 6 "$1")
  [ "$head" = "TBPSUM" ] || fail "$1 does not start with TBPSUM (got '$head')"
}

start_one_node_cluster "$D/cluster" || fail "the one-node cluster did not start"
mkdir -p "$D/jobs"

# --- a pod of 6 hosts in 4 shards: tasks 0 and 1 hold two files, 2 and 3 one.
"$tbprof" synth --out "$D/logdir" --hosts 6 --gpus 2 --steps 4 --events 20000 >"$D/synth.txt" ||
  fail "tbprof synth failed"
run=$D/logdir/plugins/profile/synthetic
# Sorted as tbprof sorts them (bytes), so file k is in shard k mod 4.
mapfile -t hosts < <(find "$run" -name '*.xplane.pb' | LC_ALL=C sort)
[ "${#hosts[@]}" -eq 6 ] || fail "synth wrote ${#hosts[@]} host files, not 6"

# A second run, for the failure below: two good files and a damaged one between them.
damaged=$D/logdir/plugins/profile/damaged
mkdir -p "$damaged"
cp "${hosts[0]}" "$damaged/a.xplane.pb"
cp "${hosts[1]}" "$damaged/c.xplane.pb"
head -c 100000 /dev/urandom >"$damaged/b.xplane.pb"

# The pages from the profiles themselves, before any summary exists.
for tool in overview_page framework_op_stats; do
  "$tbprof" convert "${hosts[@]}" --tool "$tool" --out "$D/$tool.from-profiles" || fail "convert --tool $tool failed"
done

mem=$("$src/scripts/slurm/memory_request.sh" "$run")
# Plain files: twice the largest, in MiB rounded up, + 512.
largest=$(stat -c %s "${hosts[@]}" | sort -n | tail -1)
[ "$mem" = "$(((2 * largest + (1 << 20) - 1) / (1 << 20) + 512))M" ] ||
  fail "memory_request.sh printed '$mem' for a largest file of $largest bytes"
rc=$(submit_array 3 --mem="$mem" "$sbatch_script" "$run")
[ "$rc" -eq 0 ] || fail "sbatch --wait over the pod exited $rc: $(cat "$D/jobs/sbatch.stderr")"
job=$(cut -d';' -f1 "$D/jobs/sbatch.stdout")

for k in "${!hosts[@]}"; do
  h=${hosts[$k]}
  [ -s "$h.tbprof-summary" ] || fail "no summary beside $h"
  check_header "$h.tbprof-summary"
  log=$(task_log "$job" $((k % 4)))
  grep -qF "summarized $h -> $h.tbprof-summary" "$log" || fail "$log (shard $((k % 4))/4) did not summarize $h"
  [ "$(cat "$D"/jobs/tbprof-summarize-"$job"_*.out | grep -cF "summarized $h ")" -eq 1 ] ||
    fail "$h was summarized by more than one task"
done
grep -qF -- "--memory_mb ${mem%M}" "$(task_log "$job" 0)" || fail "the task did not pass its --mem as --memory_mb"

# Each summary decodes, checksum and identity included: a rerun finds every one current.
"$tbprof" summarize "$run" >"$D/rerun.txt" || fail "rerun failed: $(cat "$D/rerun.txt")"
[ "$(grep -c ', already current)$' "$D/rerun.txt")" -eq 6 ] ||
  fail "a rerun did not find all 6 summaries current: $(cat "$D/rerun.txt")"

# The summaries are what the pages come from now: with every profile's middle
# overwritten (size, mtime and the first and last 64 KiB kept, so its identity
# still matches) the profiles cannot be read, and ALL_HOSTS pages are the same bytes.
for h in "${hosts[@]}"; do
  size=$(stat -c %s "$h")
  [ "$size" -gt $((3 << 17)) ] || fail "$h is too small ($size bytes) to change only its middle"
  touch -r "$h" "$D/mtime"
  head -c $((size - (2 << 17))) /dev/zero | dd of="$h" bs=64K seek=2 conv=notrunc status=none
  touch -r "$D/mtime" "$h"
done
for tool in overview_page framework_op_stats; do
  "$tbprof" convert "${hosts[@]}" --tool "$tool" --out "$D/$tool.from-summaries" 2>"$D/convert.stderr" ||
    fail "convert --tool $tool over the summaries failed: $(cat "$D/convert.stderr")"
  ! grep -q ignored "$D/convert.stderr" || fail "convert ignored a summary: $(cat "$D/convert.stderr")"
  cmp -s "$D/$tool.from-profiles" "$D/$tool.from-summaries" || fail "$tool from the summaries differs from the profiles'"
done
mv "${hosts[0]}.tbprof-summary" "$D/aside"
! "$tbprof" convert "${hosts[0]}" --tool overview_page --out "$D/unreadable" 2>/dev/null ||
  fail "a profile with its middle zeroed still converts: the check above proves nothing"
mv "$D/aside" "${hosts[0]}.tbprof-summary"

# --- a run with a damaged file, summarized under --summary_dir: the other
# shards write their summaries there, the damaged file's shard fails, so does sbatch.
rc=$(submit_array 2 --mem="$mem" "$sbatch_script" "$damaged" --summary_dir "$D/summaries")
[ "$rc" -ne 0 ] || fail "sbatch --wait returned 0 although the shard of a damaged file failed"
job=$(cut -d';' -f1 "$D/jobs/sbatch.stdout")
for f in a c; do
  check_header "$D/summaries/$f.xplane.pb.tbprof-summary"
done
[ ! -e "$damaged/a.xplane.pb.tbprof-summary" ] || fail "--summary_dir did not reach tbprof: a summary is beside the file"
grep -qF "failed $damaged/b.xplane.pb" "$(task_log "$job" 1)" || fail "shard 1/3 did not report the damaged file"
grep -qF "exit status 1" "$(task_log "$job" 1)" || fail "shard 1/3 did not exit 1"

# --- a run folder that does not exist: every task fails.
rc=$(submit_array 1 --mem="$mem" "$sbatch_script" "$D/no-such-run")
[ "$rc" -ne 0 ] || fail "sbatch --wait returned 0 over a run folder that does not exist"

echo "ok: summarize.sbatch as a Slurm array: 6 hosts in 4 shards summarized, --summary_dir passed, failures returned"
