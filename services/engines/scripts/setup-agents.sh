#!/usr/bin/env bash
# Creates services/engines/.venv-agents with the third-party agent frameworks the examples in
# examples/agents/ use, unchanged (requirements-agents.txt: openai-agents, smolagents and their pinned
# dependency trees). Its own venv: the frameworks' openai/pydantic pins stay apart from the engines'.
# Idempotent: an up-to-date venv is left as it is. `npm run setup:engines` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv-agents
STAMP=$VENV/.requirements.sha256
want=$(sha256sum requirements-agents.txt | cut -d' ' -f1)
if [ -x "$VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
  echo "agents venv up to date ($VENV)"
  exit 0
fi
started=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements-agents.txt
echo "$want" >"$STAMP"
echo "agents venv ready in $(($(date +%s) - started)) s ($("$VENV/bin/python" --version))"
