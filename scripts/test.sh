#!/usr/bin/env bash
# Installs, builds and runs every test: GoogleTest suites (unit, golden, HTTP)
# through ctest, then the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
if [ -x plugin/web/test.sh ]; then plugin/web/test.sh; fi
