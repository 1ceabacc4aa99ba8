#!/usr/bin/env bash
# The login-page test drives Debian's Chromium through playwright-core (no browser download).
# Installs it with apt-get when missing and we are root; otherwise says what to do.
set -euo pipefail
bin="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$bin" ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "ensure-chromium: installing Debian's chromium (needed by the login-page browser test)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
  exit 0
fi
echo "ensure-chromium: $bin not found; install Debian's chromium (sudo apt-get install chromium) or set CHROMIUM_PATH" >&2
exit 1
