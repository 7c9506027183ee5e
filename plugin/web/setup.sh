#!/usr/bin/env bash
# Installs the UI's pinned npm packages and bundles src/ into dist/.
# Idempotent: npm ci runs only when package-lock.json changed since the last
# install, and the bundle is rebuilt only when a source is newer than dist/.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v npm >/dev/null; then
  echo "web setup: npm not found (install nodejs >= 20 and npm)" >&2
  exit 1
fi
stamp=node_modules/.tbprof-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
node build.mjs
