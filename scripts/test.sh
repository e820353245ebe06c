#!/usr/bin/env bash
# Sets up a virtual environment (once) and runs every check: ruff, mypy (strict), pytest.
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
.venv/bin/python -m pytest "$@"
