#!/usr/bin/env bash
# No function in convert/ is longer than LIMIT lines (150 unless given), so
# each reads as named steps. Universal Ctags finds the functions and where
# they end (a lambda counts as part of the function that holds it); the
# script fails naming every function over the limit.
set -euo pipefail
cd "$(dirname "$0")/../.."
limit=${1:-150}
if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
  echo "check_function_length: needs Universal Ctags (scripts/setup.sh installs universal-ctags)" >&2
  exit 2
fi
long=$(ctags --languages=C++ --c++-kinds=f --fields=+ne -f - -R convert |
  awk -F'\t' -v limit="$limit" '{
    line = ""; end = "";
    for (i = 4; i <= NF; i++) {
      if ($i ~ /^line:/) line = substr($i, 6);
      if ($i ~ /^end:/) end = substr($i, 5);
    }
    if (line != "" && end != "" && end - line + 1 > limit) printf "%s:%s %s: %d lines\n", $2, line, $1, end - line + 1
  }' | sort)
count=$(ctags --languages=C++ --c++-kinds=f --fields=+ne -f - -R convert | grep -c $'\tend:' || true)
if [ -n "$long" ]; then
  echo "functions over $limit lines:"
  echo "$long"
  exit 1
fi
echo "function length: $count functions in convert/, none over $limit lines"
