#!/usr/bin/env bash
# Creates services/environments/.venv for the BFCL multi-turn pack (bfcl-eval and the one package its
# multi-turn classes import, requirements-bfcl.txt), for `rlf env gym` / `rlf env textarena`
# (gymnasium, textarena and what they import, requirements-gym.txt) and for `rlf env openenv` (openenv
# and what importing its classes loads, requirements-openenv.txt) and for `rlf env verifiers` (verifiers and what `import verifiers.v1` loads,
# requirements-verifiers.txt), each without dependency resolution. The venv is made
# from /usr/bin/python3 so that the sandboxed workers (which see only /usr and the venv) can run it.
# Idempotent: an up-to-date venv is left as it is. `npm run setup:environments` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-/usr/bin/python3}
VENV=.venv
STAMP=$VENV/.requirements.sha256
want=$(cat requirements-bfcl.txt requirements-gym.txt requirements-openenv.txt requirements-verifiers.txt | sha256sum | cut -d' ' -f1)
if [ -x "$VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
  echo "environments venv up to date ($VENV)"
  exit 0
fi
started=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-bfcl.txt -r requirements-gym.txt
"$VENV/bin/python" -c "import bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils, mpmath, gymnasium, textarena"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-openenv.txt
"$VENV/bin/python" -c "import openenv.core.env_server.interfaces, openenv.core.env_server.types"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-verifiers.txt
"$VENV/bin/python" -c "import verifiers.v1"
echo "$want" >"$STAMP"
echo "environments venv ready in $(($(date +%s) - started)) s ($("$VENV/bin/python" --version))"
