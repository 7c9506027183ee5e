#!/usr/bin/env bash
# Installs the UI's pinned npm packages and bundles src/ into dist/.
# Idempotent: npm ci runs only when package-lock.json changed since the last
# install, and the bundle is rebuilt only when a source is newer than dist/.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v npm >/dev/null; then
  # NodeSource's nodejs bundles npm; Debian's own nodejs package does not.
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm || true
fi
if ! command -v npm >/dev/null; then
  echo "web setup: npm not found (install nodejs >= 20 with npm)" >&2
  exit 1
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || echo "web setup: warning: node $(node -v) is older than 20; the browser tests' driver (playwright-core) needs node >= 20" >&2
stamp=node_modules/.tbprof-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
node build.mjs
