#!/usr/bin/env bash
# Fuzzes tbprof with libFuzzer for a bounded time.
#   scripts/fuzz.sh [SECONDS] [reader|tools]   (default 60 s, reader)
# reader: the XSpace decoder (xspace_reader_fuzz): any bytes are rejected
#         with an error or decoded into a consistent model.
# tools:  every tool on the inputs the decoder accepts (xspace_tools_fuzz):
#         valid JSON or an error, no crash, no hang, bounded memory.
# Builds a separate clang + ASan/libFuzzer tree in build-fuzz (all of
# convert/ is instrumented, not only the entry point), seeds the corpus from
# the real profiles in testdata and a small synthetic profile, and fails if
# libFuzzer finds a crash (the reproducer is left in build-fuzz/).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
which="${2:-reader}"
case "$which" in
  reader) target=xspace_reader_fuzz; max_len=65536; timeout=20 ;;
  # Real profiles are up to about 1 MB: whole files keep their HLO protos.
  tools) target=xspace_tools_fuzz; max_len=1048576; timeout=60 ;;
  *) echo "fuzz.sh: unknown target $which (reader or tools)" >&2; exit 2 ;;
esac
testdata="${TBPROF_TESTDATA:-$(pwd)/tests/realdata}"

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTBPROF_BUILD_FUZZ=ON -DTBPROF_BUILD_TESTS=OFF -DTBPROF_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address" >/dev/null
ninja -C build-fuzz -j"${JOBS:-2}" "$target"

corpus="build-fuzz/corpus/$which"
mkdir -p "$corpus"
if [ -d "$testdata/xplane" ]; then
  # The corrupt file does not decode: a seed for the reader only.
  exclude=()
  [ "$which" = tools ] && exclude=(-not -path '*/corrupt/*')
  find "$testdata/xplane" -name '*.xplane.pb' "${exclude[@]}" -exec cp -n {} "$corpus/" \;
fi
if [ -x build/tbprof ]; then
  tmp="$(mktemp -d)"
  build/tbprof synth --out "$tmp" --gpus 1 --steps 2 --events 300 >/dev/null
  cp "$tmp"/plugins/profile/synthetic/worker0.xplane.pb "$corpus/synthetic_small.xplane.pb"
  rm -rf "$tmp"
fi

cd build-fuzz
"./$target" "corpus/$which" -max_total_time="$seconds" -max_len="$max_len" \
  -rss_limit_mb=4096 -timeout="$timeout" -print_final_stats=1
