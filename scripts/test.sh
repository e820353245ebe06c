#!/usr/bin/env bash
# Sets up a virtual environment (once) and runs every check: ruff, mypy (strict), pytest, with
# the live services (scripts/services.sh: OpenSearch, moto's server) started for the tests and
# stopped after.
# GROUNDWORK_TEST_SERVICES=0 runs without them: the live suites then skip, except in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
# The page's browser tests drive Debian's Chromium (tests/web); they skip without it.
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null && [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null \
    || echo "chromium was not installed: the browser tests will skip" >&2
fi
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'
./scripts/lambda_local.sh || echo "lambda_local.sh failed: the deployed-shape tests will skip (fail in CI)" >&2
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
if [ "${GROUNDWORK_TEST_SERVICES:-1}" != 0 ]; then
  if exports=$(scripts/services.sh status 2>/dev/null); then
    : # already up (a developer's own): used, and left running
  elif exports=$(scripts/services.sh up); then
    trap 'scripts/services.sh down' EXIT
  else
    trap 'scripts/services.sh down' EXIT # what did start (moto starts first)
    if [ "${CI:-}" = true ]; then
      echo "scripts/services.sh up failed: CI runs every live suite" >&2
      exit 1
    fi
    # moto's exports, if it started, are kept: only the suites of what failed skip.
    echo "scripts/services.sh up failed (OpenSearch needs Java 17 and Maven): its suites skip" >&2
  fi
  eval "$exports"
fi
.venv/bin/python -m pytest "$@"
