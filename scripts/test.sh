#!/usr/bin/env bash
# Sets up a virtual environment (once) and runs every check: ruff, mypy (strict), pytest, with
# the live services (scripts/services.sh: OpenSearch) started for the tests and stopped after.
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
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
if [ "${GROUNDWORK_TEST_SERVICES:-1}" != 0 ]; then
  if exports=$(scripts/services.sh status 2>/dev/null); then
    : # already up (a developer's own): used, and left running
  elif exports=$(scripts/services.sh up); then
    trap 'scripts/services.sh down' EXIT
  elif [ "${CI:-}" = true ]; then
    echo "scripts/services.sh up failed: CI runs every live suite" >&2
    exit 1
  else
    echo "scripts/services.sh up failed (Java 17 and Maven needed): live suites skip" >&2
    exports=
  fi
  eval "$exports"
fi
.venv/bin/python -m pytest "$@"
