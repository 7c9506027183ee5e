#!/usr/bin/env bash
# No function anywhere in the tree is longer than LIMIT lines (150 unless
# given), so each reads as named steps: the C++ of every source folder and of
# tests/ (a GoogleTest TEST body is a function here too), and the browser
# UI's TypeScript and JavaScript (plugin/web: its pages, its tests, its dev
# server). Universal Ctags finds the C++ functions and where they end (a
# lambda counts as part of the function that holds it); the TypeScript
# compiler finds the UI's (ts_function_lengths.mjs, the same rule). The
# script fails naming every function over the limit.
set -euo pipefail
cd "$(dirname "$0")/../.."
limit=${1:-150}
if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
  echo "check_function_length: needs Universal Ctags (scripts/setup.sh installs universal-ctags)" >&2
  exit 2
fi
if ! command -v node >/dev/null; then
  echo "check_function_length: needs node for the UI's TypeScript (plugin/web/setup.sh)" >&2
  exit 2
fi

CPP_FOLDERS="proto convert tracer synthetic harness plugin cli bench tests"
WEB_PATHS="plugin/web tests/structure"

# shellcheck disable=SC2086
tags=$(ctags --languages=C++ --c++-kinds=f --fields=+ne --exclude=node_modules --exclude=dist -f - -R $CPP_FOLDERS)
long=$(awk -F'\t' -v limit="$limit" '{
    line = ""; end = "";
    for (i = 4; i <= NF; i++) {
      if ($i ~ /^line:/) line = substr($i, 6);
      if ($i ~ /^end:/) end = substr($i, 5);
    }
    if (line != "" && end != "" && end - line + 1 > limit) printf "%s:%s %s: %d lines\n", $2, line, $1, end - line + 1
  }' <<<"$tags" | sort)
count=$(grep -c $'\tend:' <<<"$tags" || true)

web_rc=0
# shellcheck disable=SC2086
web=$(node tests/structure/ts_function_lengths.mjs "$limit" $WEB_PATHS) || web_rc=$?
[ "$web_rc" -le 1 ] || exit "$web_rc"
web_count=$(tail -n 1 <<<"$web")
web_long=$(sed '$d' <<<"$web")

if [ -n "$long" ] || [ -n "$web_long" ]; then
  echo "functions over $limit lines:"
  [ -z "$long" ] || echo "$long"
  [ -z "$web_long" ] || echo "$web_long"
  exit 1
fi
echo "function length: $count C++ functions in $CPP_FOLDERS and $web_count of TypeScript/JavaScript in $WEB_PATHS, none over $limit lines"
