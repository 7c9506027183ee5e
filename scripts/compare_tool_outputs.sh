#!/usr/bin/env bash
# Writes what `tbprof convert` answers for every tool (and a few parameter
# variants per tool) on every real XSpace profile into OUT_DIR, one file per
# case holding the exit status, standard error and standard output. Run it
# before and after a change that must not alter behaviour and compare the two
# folders byte for byte:
#   scripts/compare_tool_outputs.sh /tmp/before            # on the old build
#   scripts/compare_tool_outputs.sh /tmp/after             # on the new build
#   diff -r /tmp/before /tmp/after && echo identical
# TBPROF (default build/tbprof) names the binary; extra profiles can be added
# with TBPROF_EXTRA_PROFILES (space-separated .xplane.pb paths).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: compare_tool_outputs.sh OUT_DIR}
bin=${TBPROF:-build/tbprof}
[ -x "$bin" ] || { echo "no tbprof binary at $bin" >&2; exit 2; }
mkdir -p "$out"

profiles=()
for f in tests/realdata/xplane/*/*.xplane.pb /work/shared/testdata/xplane/*/*.xplane.pb ${TBPROF_EXTRA_PROFILES:-}; do
  [ -f "$f" ] && profiles+=("$f")
done
# Same file in two places (tests/realdata copies the shared data): keep both
# rows so a missing copy shows up, but name cases by the path.

# Parameter variants per tool, besides no parameter at all.
variants() {
  case $1 in
    trace_viewer|trace_viewer@)
      echo "resolution=0"; echo "resolution=100"; echo "start_time_ms=0&end_time_ms=1"
      echo "search_prefix=fusion"; echo "search_prefix=a&search_metadata=true"; echo "format=pb" ;;
    memory_viewer) echo "memory_space=1"; echo "view_memory_allocation_timeline=true"; echo "module_name=nope" ;;
    graph_viewer)
      echo "type=programs"; echo "type=short_txt"; echo "type=long_txt"; echo "format=json"
      echo "show_metadata=true&merge_fusion=true"; echo "type=graph&node_name=nope" ;;
    op_profile) echo "group_by=program"; echo "group_by=category" ;;
  esac
}

run_case() {  # name params files...
  local name=$1 params=$2; shift 2
  local dest="$out/$name"
  local rc=0
  "$bin" convert "$@" --tool "$tool" ${params:+--param "$params"} >"$dest.out" 2>"$dest.err" || rc=$?
  echo "$rc" >"$dest.rc"
}

cases=0
while IFS= read -r tool; do
  for p in "${profiles[@]}"; do
    key=$(echo "$p" | tr '/' '_')
    run_case "$tool.$key" "" "$p"; cases=$((cases + 1))
    while IFS= read -r v; do
      [ -n "$v" ] || continue
      run_case "$tool.$key.$(echo "$v" | tr '/&=' '_+-')" "$v" "$p"; cases=$((cases + 1))
    done < <(variants "$tool")
  done
  # All good profiles at once: the hosts-combining path.
  all=(tests/realdata/xplane/jax_*/*.xplane.pb)
  run_case "$tool.all_hosts" "" "${all[@]}"; cases=$((cases + 1))
done < <("$bin" convert --list)
echo "wrote $cases cases to $out"
