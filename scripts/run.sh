#!/usr/bin/env bash
# Sets up a virtual environment (once) and serves Groundwork on the embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
exec .venv/bin/groundwork serve "$@"
