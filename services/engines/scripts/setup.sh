#!/usr/bin/env bash
# Creates services/engines/.venv with the engine adapters (editable) and what their tests need
# (requirements-ci.txt: TRL + torch for the CPU end-to-end test, pytest; requirements-engines.txt: the
# engines that install on CPU, without their dependency trees). Idempotent: an up-to-date venv is left as it is. `npm run setup:engines` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv
STAMP=$VENV/.requirements.sha256
want=$(cat requirements-ci.txt requirements-engines.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ -x "$VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
  echo "engines venv up to date ($VENV)"
  exit 0
fi
started=$(date +%s)
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements-ci.txt
# The engines themselves (verl, SkyRL) without their dependency trees: resolving those would replace
# transformers/torch; the tests need only their data classes (requirements-engines.txt says which).
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-engines.txt
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e .
echo "$want" >"$STAMP"
echo "engines venv ready in $(($(date +%s) - started)) s ($("$VENV/bin/python" --version))"
