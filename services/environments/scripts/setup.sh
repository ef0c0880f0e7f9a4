#!/usr/bin/env bash
# Creates services/environments/.venv for the BFCL multi-turn pack (bfcl-eval and the one package its
# multi-turn classes import, requirements-bfcl.txt), for `rlf env gym` / `rlf env textarena`
# (gymnasium, textarena and what they import, requirements-gym.txt) and for `rlf env openenv` (openenv
# and what importing its classes loads, requirements-openenv.txt) and for `rlf env verifiers` (verifiers and what `import verifiers.v1` loads,
# requirements-verifiers.txt), each without dependency resolution. The venv is made
# from /usr/bin/python3 so that the sandboxed workers (which see only /usr and the venv) can run it.
# PyPI mcp-server-git (a stateful MCP server for per-episode instances) gets its own venv,
# .venv-mcp-git (requirements-mcp-git.txt: it needs an mcp the OpenEnv packages cannot share).
# Idempotent: an up-to-date venv is left as it is. `npm run setup:environments` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-/usr/bin/python3}

# ensure_venv VENV CHECK REQUIREMENTS...: VENV with each requirements file installed (--no-deps) in turn,
# then the Python statement CHECK run; skipped when its stamp matches the files.
ensure_venv() {
  local venv=$1 check=$2
  shift 2
  local want
  want=$(cat "$@" | sha256sum | cut -d' ' -f1)
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" = "$want" ]; then
    echo "environments venv up to date ($venv)"
    return 0
  fi
  local started
  started=$(date +%s)
  [ -x "$venv/bin/python" ] || "$PY" -m venv "$venv"
  local file
  for file in "$@"; do
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$file"
  done
  "$venv/bin/python" -c "$check"
  echo "$want" >"$venv/.requirements.sha256"
  echo "environments venv ready in $(($(date +%s) - started)) s ($venv, $("$venv/bin/python" --version))"
}

ensure_venv .venv "import bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils, mpmath, gymnasium, textarena, \
openenv.core.env_server.interfaces, openenv.core.env_server.types, verifiers.v1" \
  requirements-bfcl.txt requirements-gym.txt requirements-openenv.txt requirements-verifiers.txt
ensure_venv .venv-mcp-git "import mcp_server_git.server" requirements-mcp-git.txt
