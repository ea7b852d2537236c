#!/usr/bin/env bash
# Installs everything the test suite needs (Debian's chromium, the pinned Python packages) and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
python3 -m pip install -q -r requirements.txt
python3 -m ruff check .
python3 -m mypy
python3 -m pytest -q -n 2 "$@"
