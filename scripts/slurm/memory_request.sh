#!/usr/bin/env bash
# Prints a Slurm --mem value (megabytes, "NNNNM") for summarizing RUN_DIR's
# profiles one file at a time, as scripts/slurm/summarize.sbatch does:
#
#   sbatch --mem=$(scripts/slurm/memory_request.sh RUN_DIR) --wait --array=0-$((N-1)) \
#     scripts/slurm/summarize.sbatch RUN_DIR
#
# A task holds one profile at a time, so the file needing the most decides:
# 2 x a plain file's size, 4 x a .gz's inflated size, plus 512 MB. Why:
#   - peak RSS of `tbprof summarize` (2-core VM, /usr/bin/time): a 254 MiB
#     synthetic xplane 277 MiB (1.09 x), a 65 MiB PyTorch JSON trace 68 MiB
#     (1.04 x): the mapped file and the model built from it. Yet the task's
#     --mem becomes tbprof's --memory_mb, and tbprof refuses a file under a
#     bound below twice its size (the server's estimate of a decoded model), so
#     2 x is the floor for a plain file, with room for richer real profiles;
#   - the same trace gzip'ed (8 MiB, inflating to 65 MiB) peaked at 205 MiB,
#     3.15 x its inflated size: the inflated bytes, their buffer's growth and
#     the model; 4 x leaves a quarter of headroom;
#   - 512 MB for the process itself, its allocator's slack and small files'
#     fixed costs (a 1 MiB trace peaks at 45 MiB).
set -euo pipefail

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 RUN_DIR   (prints a --mem value for scripts/slurm/summarize.sbatch)" >&2
  exit 2
fi

# A .gz's inflated size. Its trailer holds that size modulo 4 GiB, exact for a
# member under 4 GiB; a file large enough to inflate past that (over 64 MiB
# compressed: a trace would need a ratio above 64) is inflated and counted.
inflated_bytes() {
  local path=$1 size
  size=$(stat -c %s "$path")
  if [ "$size" -gt $((64 << 20)) ]; then
    gzip -dc -- "$path" | wc -c
  else
    tail -c 4 -- "$path" | od -An -tu4 --endian=little | tr -d ' '
  fi
}

need=0
# The names tbprof reads as profiles (xplane, PyTorch traces, HTA's rank-N.json.gz).
while IFS= read -r -d '' f; do
  case $f in
    *.gz) bytes=$(inflated_bytes "$f") factor=4 ;;
    *) bytes=$(stat -c %s "$f") factor=2 ;;
  esac
  # A cut-short .gz has no trailer to read: its compressed size stands in.
  [[ $bytes =~ ^[0-9]+$ ]] || bytes=$(stat -c %s "$f")
  if [ $((factor * bytes)) -gt "$need" ]; then need=$((factor * bytes)); fi
done < <(find "$1" -type f \( -name '*.xplane.pb' -o -name '*.json' -o -name '*.json.gz' \) -print0)

if [ "$need" -eq 0 ]; then
  echo "$0: no profile file (*.xplane.pb, *.json, *.json.gz) under $1" >&2
  exit 1
fi
echo "$(((need + (1 << 20) - 1) / (1 << 20) + 512))M"
