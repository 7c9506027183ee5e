#!/usr/bin/env bash
# The include graph has one direction, at three scales:
#   1. libraries: every `#include "..."` of a source file names a file of its
#      own library or of a library it may depend on (the table below is the
#      same as ARCHITECTURE.md's and the folders' CMakeLists.txt);
#   2. the rooms of convert/analysis/ (one library, one folder per tool
#      family): a room includes only its own files and the rooms below it;
#   3. files: in every source folder, no file includes, directly or through
#      other files, a file that includes it back (a .h and its .cc count as
#      one file here);
#   4. top folders (convert, plugin, harness, synthetic, tracer, cli, bench,
#      proto): no folder's files include, directly or through other folders,
#      a file of a folder that includes it back.
# It fails naming each include that breaks a rule, and each loop.
set -euo pipefail
cd "$(dirname "$0")/../.."

# library: folder prefix (longest match wins) and what it may include.
declare -A ALLOWED=(
  [proto]="proto"
  [convert/base]="convert/base"
  [convert/model]="convert/model convert/base"
  [convert/grouping]="convert/grouping convert/model convert/base"
  [convert/xplane]="convert/xplane convert/model convert/base"
  [convert/kineto]="convert/kineto convert/model convert/base"
  [convert/tfprof]="convert/tfprof convert/model convert/base proto"
  [convert/load]="convert/load convert/kineto convert/xplane convert/model convert/base"
  [convert/analysis]="convert/analysis convert/xplane convert/grouping convert/model convert/base proto"
  [convert/analysis/tfprof]="convert/analysis/tfprof convert/analysis convert/grouping convert/model convert/base proto"
  [convert/tools]="convert/tools convert/analysis/tfprof convert/analysis convert/load convert/kineto convert/tfprof convert/xplane convert/grouping convert/model convert/base proto"
  [tracer]="tracer"
  [synthetic/pipeline]="synthetic/pipeline tracer convert/base"
  [synthetic/cuda]="synthetic/cuda convert/base"
  [synthetic]="synthetic proto convert/base"
  [harness/cupti]="harness/cupti proto convert/base"
  [harness]="harness harness/cupti tracer synthetic synthetic/pipeline synthetic/cuda convert/tools convert/analysis/tfprof convert/analysis convert/load convert/kineto convert/tfprof convert/xplane convert/grouping convert/model convert/base proto"
  [plugin/capture]="plugin/capture proto convert/base"
  [plugin/catalogue]="plugin/catalogue convert/tools convert/analysis/tfprof convert/analysis convert/load convert/kineto convert/tfprof convert/xplane convert/grouping convert/model convert/base proto"
  [plugin]="plugin plugin/catalogue plugin/capture convert/tools convert/analysis/tfprof convert/analysis convert/load convert/kineto convert/tfprof convert/xplane convert/grouping convert/model convert/base proto"
  [cli]="cli plugin plugin/catalogue plugin/capture harness harness/cupti tracer synthetic synthetic/pipeline synthetic/cuda convert/tools convert/analysis/tfprof convert/analysis convert/load convert/kineto convert/tfprof convert/xplane convert/grouping convert/model convert/base proto"
  [bench]="bench plugin plugin/catalogue plugin/capture harness harness/cupti tracer synthetic synthetic/pipeline synthetic/cuda convert/tools convert/analysis/tfprof convert/analysis convert/load convert/kineto convert/tfprof convert/xplane convert/grouping convert/model convert/base proto"
)

# The rooms of convert/analysis/, bottom to top, and the rooms each may
# include besides its own. tfprof/ and compare/ sit on top of every family.
ANALYSIS_ROOMS="op_names hlo_program device self_time kernels op_stats op_stats_pages hlo host_events trace_viewer trace_analysis tfprof compare"
# The four bottom rooms, which every family reads and which read none.
BOTTOM_ROOMS="op_names hlo_program device self_time"
declare -A ROOM_ALLOWED=(
  [kernels]="$BOTTOM_ROOMS"
  [op_stats]="kernels $BOTTOM_ROOMS"
  [op_stats_pages]="op_stats kernels $BOTTOM_ROOMS"
  [hlo]="$BOTTOM_ROOMS"
  [host_events]="$BOTTOM_ROOMS"
  [trace_viewer]="$BOTTOM_ROOMS"
  [trace_analysis]="$BOTTOM_ROOMS"
  [tfprof]="op_stats_pages op_stats kernels hlo host_events trace_viewer $BOTTOM_ROOMS"
  [compare]="tfprof op_stats_pages op_stats kernels hlo host_events trace_viewer $BOTTOM_ROOMS"
)
for room in $BOTTOM_ROOMS; do ROOM_ALLOWED[$room]=""; done

# The folders whose files may not include each other back: every source folder.
LOOP_FREE="proto convert tracer synthetic harness plugin cli bench"

in_loop_free() {
  local f=$1
  for d in $LOOP_FREE; do [[ "$f" == "$d"/* ]] && return 0; done
  return 1
}

libs_by_length=$(for k in "${!ALLOWED[@]}"; do echo "${#k} $k"; done | sort -rn | cut -d' ' -f2)

library_of() {  # longest library folder that is a prefix of the file's folder
  local dir=$1
  for lib in $libs_by_length; do
    if [ "$dir" = "$lib" ] || [[ "$dir" == "$lib"/* ]]; then echo "$lib"; return; fi
  done
  echo ""
}

room_of() {  # convert/analysis/<room>/file -> <room>; anything else -> ""
  local p=${1#convert/analysis/}
  [ "$p" != "$1" ] && [[ "$p" == */* ]] && echo "${p%%/*}" || echo ""
}

allowed_in() { local word=$1; shift; for a in "$@"; do [ "$a" = "$word" ] && return 0; done; return 1; }

bad=0 checked=0
edges=$(mktemp) folder_edges=$(mktemp)
trap 'rm -f "$edges" "$folder_edges"' EXIT
while IFS= read -r file; do
  from=$(library_of "$(dirname "$file")")
  [ -n "$from" ] || continue
  from_room=$(room_of "$file")
  if [ "$from" = convert/analysis ]; then
    if [ -z "$from_room" ]; then
      echo "$file: convert/analysis/ files live in a room (one of: $ANALYSIS_ROOMS)"; bad=$((bad + 1))
    elif [ -z "${ROOM_ALLOWED[$from_room]+set}" ]; then
      echo "$file: room '$from_room' is not in the rooms of convert/analysis/ ($ANALYSIS_ROOMS)"; bad=$((bad + 1))
    fi
  fi
  while IFS= read -r inc; do
    [ -n "$inc" ] || continue
    to=$(library_of "$(dirname "$inc")")
    checked=$((checked + 1))
    if [ -z "$to" ]; then
      echo "$file includes $inc, which belongs to no library"; bad=$((bad + 1)); continue
    fi
    # shellcheck disable=SC2086
    if ! allowed_in "$to" ${ALLOWED[$from]}; then
      echo "$file ($from) includes $inc ($to): not allowed"; bad=$((bad + 1))
    fi
    to_room=$(room_of "$inc")
    if [ -n "$from_room" ] && [ -n "$to_room" ] && [ "$from_room" != "$to_room" ] &&
       [ -n "${ROOM_ALLOWED[$from_room]+set}" ]; then
      # shellcheck disable=SC2086
      if ! allowed_in "$to_room" ${ROOM_ALLOWED[$from_room]}; then
        echo "$file (analysis room $from_room) includes $inc (room $to_room): not allowed"; bad=$((bad + 1))
      fi
    fi
    # One node per .h/.cc pair; a file including its own header is no edge.
    a=${file%.*} b=${inc%.*}
    if [ "$a" != "$b" ] && in_loop_free "$file" && in_loop_free "$inc"; then echo "$a $b" >>"$edges"; fi
    if [ "${file%%/*}" != "${inc%%/*}" ]; then echo "${file%%/*} ${inc%%/*}" >>"$folder_edges"; fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done < <(find $LOOP_FREE -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' | sort)

# tsort names the members of every loop it meets on its standard error.
report_loops() {  # edges-file heading
  local loops
  loops=$(tsort "$1" 2>&1 >/dev/null | sed -n -e "s/^tsort: .*: input contains a loop:\$/$2:/p" \
    -e 's/^tsort: \(.*\)$/  \1/p' || true)
  if [ -n "$loops" ]; then
    echo "$loops"
    bad=$((bad + $(grep -c "^$2:" <<<"$loops")))
  fi
}
report_loops "$edges" "files that include each other back"
report_loops "$folder_edges" "top folders whose files include each other back"

echo "layers: $checked includes checked, $bad not allowed"
[ $bad = 0 ]
