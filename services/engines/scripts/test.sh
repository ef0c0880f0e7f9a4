#!/usr/bin/env bash
# Lints (ruff) and runs the Python tests: the adapters' unit tests (services/engines/tests) and the engine
# end-to-end tests (test/engines), with the venv that scripts/setup.sh made. `npm run test:engines`.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=${RLF_ENGINES_PYTHON:-services/engines/.venv/bin/python}
if [ ! -x "$PY" ]; then
  msg="no Python environment for the engine adapters at $PY: run \`npm run setup:engines\` first"
  # CI always has it (.ci/run makes it); a TypeScript-only checkout may skip these, loudly.
  if [ "${CI:-}" = "true" ]; then echo "$msg" >&2; exit 1; fi
  echo "SKIPPED the Python engine tests: $msg" >&2
  exit 0
fi
# lint + format check first (ruff; settings in services/engines/pyproject.toml) over all our Python: the
# adapters, their tests, the environment host's workers and the Python test fixtures
RUFF=(--config services/engines/pyproject.toml services/engines test/engines test/bench services/environments/python test/support/python)
"$PY" -m ruff check "${RUFF[@]}"
"$PY" -m ruff format --check "${RUFF[@]}"
exec "$PY" -m pytest -q -p no:cacheprovider services/engines/tests test/engines "$@"
