#!/usr/bin/env bash
# The library graph has one direction. Every `#include "..."` of a source file
# must name a file of its own library or of a library it may depend on; this
# script fails, naming the include, when one does not. The table is the same
# as ARCHITECTURE.md's and the folders' CMakeLists.txt.
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
  [convert/load]="convert/load convert/kineto convert/xplane convert/model convert/base"
  [convert/analysis]="convert/analysis convert/xplane convert/grouping convert/model convert/base proto"
  [convert/analysis/tfprof]="convert/analysis/tfprof convert/analysis convert/grouping convert/model convert/base proto"
  [convert/tools]="convert/tools convert/analysis/tfprof convert/analysis convert/load convert/kineto convert/xplane convert/grouping convert/model convert/base proto"
  [harness/tracer]="harness/tracer"
  [synthetic/pipeline]="synthetic/pipeline harness/tracer convert/base"
  [synthetic/cuda]="synthetic/cuda convert/base"
  [synthetic]="synthetic proto convert/base"
  [harness/cupti]="harness/cupti proto convert/base"
  [harness]="harness harness/cupti harness/tracer synthetic synthetic/pipeline synthetic/cuda convert/tools convert/analysis/tfprof convert/analysis convert/load convert/kineto convert/xplane convert/grouping convert/model convert/base proto"
  [plugin/capture]="plugin/capture proto convert/base"
  [plugin]="plugin plugin/capture convert/tools convert/analysis/tfprof convert/analysis convert/load convert/kineto convert/xplane convert/grouping convert/model convert/base proto"
)
libs_by_length=$(for k in "${!ALLOWED[@]}"; do echo "${#k} $k"; done | sort -rn | cut -d' ' -f2)

library_of() {  # longest library folder that is a prefix of the file's folder
  local dir=$1
  for lib in $libs_by_length; do
    if [ "$dir" = "$lib" ] || [[ "$dir" == "$lib"/* ]]; then echo "$lib"; return; fi
  done
  echo ""
}

bad=0 checked=0
while IFS= read -r file; do
  from=$(library_of "$(dirname "$file")")
  [ -n "$from" ] || continue
  while IFS= read -r inc; do
    [ -n "$inc" ] || continue
    to=$(library_of "$(dirname "$inc")")
    checked=$((checked + 1))
    if [ -z "$to" ]; then
      echo "$file includes $inc, which belongs to no library"; bad=$((bad + 1)); continue
    fi
    ok=0
    for a in ${ALLOWED[$from]}; do [ "$a" = "$to" ] && ok=1; done
    if [ $ok = 0 ]; then echo "$file ($from) includes $inc ($to): not allowed"; bad=$((bad + 1)); fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done < <(find proto convert harness synthetic plugin -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' | sort)

echo "layers: $checked includes checked, $bad not allowed"
[ $bad = 0 ]
