#!/usr/bin/env bash
# Fuzzes the XSpace decoder with libFuzzer for a bounded time.
#   scripts/fuzz.sh [SECONDS]   (default 60)
# Builds a separate clang + ASan/libFuzzer tree in build-fuzz (all of
# convert/ is instrumented, not only the entry point), seeds the corpus from
# the real profiles in testdata and a small synthetic profile, and fails if
# libFuzzer finds a crash (the reproducer is left in build-fuzz/).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
testdata="${TBPROF_TESTDATA:-$(pwd)/tests/realdata}"

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTBPROF_BUILD_FUZZ=ON -DTBPROF_BUILD_TESTS=OFF -DTBPROF_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer" \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address" >/dev/null
ninja -C build-fuzz -j"${JOBS:-2}" xspace_reader_fuzz

corpus=build-fuzz/corpus/xspace_reader
mkdir -p "$corpus"
if [ -d "$testdata/xplane" ]; then
  find "$testdata/xplane" -name '*.xplane.pb' -exec cp -n {} "$corpus/" \;
fi
if [ -x build/tbprof ]; then
  tmp="$(mktemp -d)"
  build/tbprof synth --out "$tmp" --gpus 1 --steps 2 --events 300 >/dev/null
  cp "$tmp"/plugins/profile/synthetic/worker0.xplane.pb "$corpus/synthetic_small.xplane.pb"
  rm -rf "$tmp"
fi

cd build-fuzz
./xspace_reader_fuzz "corpus/xspace_reader" -max_total_time="$seconds" -max_len=65536 \
  -rss_limit_mb=4096 -timeout=20 -print_final_stats=1
