#!/usr/bin/env bash
# The parts of the deployed shape that `groundwork serve --lambda` runs, built without Docker:
#   tools  the Lambda Runtime Interface Emulator (go install), Lambda Web Adapter (cargo
#          install), aws-sam-cli in its own virtual environment (its pins conflict with .venv's),
#          and the runtime: a bare interpreter of the template's runtime version with
#          awslambdaric and boto3 beside it, as Lambda's managed runtime has them.
#   build  `sam build` of template.yaml into $GROUNDWORK_SAM_BUILD_DIR, plus functions.json,
#          what serve --lambda reads of the template (handlers, layers, routes, variables).
#   all    both (the default).
# Everything is cached under $GROUNDWORK_LAMBDA_DIR (default .lambda-local/, ignored by git); a
# second run only re-runs `sam build`. Source this file to call `build` or `tools` yourself.
set -euo pipefail

GROUNDWORK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GROUNDWORK_LAMBDA_DIR="${GROUNDWORK_LAMBDA_DIR:-$GROUNDWORK_ROOT/.lambda-local}"
GROUNDWORK_SAM_BUILD_DIR="${GROUNDWORK_SAM_BUILD_DIR:-$GROUNDWORK_LAMBDA_DIR/sam-build}"
export GROUNDWORK_LAMBDA_DIR GROUNDWORK_SAM_BUILD_DIR

RIE_MODULE=github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie
RIE_VERSION=v0.0.0-20261030222936-bef5c4ba774d
ADAPTER_VERSION=0.9.1
SAM_CLI_VERSION=1.170.0
AWSLAMBDARIC_VERSION=4.2.2
BOTO3_VERSION=1.44.8

# The template's runtime, "python3.12" -> "3.12".
runtime_version() {
  sed -n 's/^ *Runtime: python\([0-9.]*\).*/\1/p' "$GROUNDWORK_ROOT/template.yaml" | head -n 1
}

# An interpreter of that version: on the PATH, or one of pyenv's.
runtime_python() {
  local version candidate
  version="$(runtime_version)"
  for candidate in "$(command -v "python$version" || true)" \
    "$HOME"/.pyenv/versions/"$version".*/bin/"python$version"; do
    # The interpreter itself, not a shim (pyenv's would pick its own version for `python`).
    if [ -n "$candidate" ] && [ -x "$candidate" ] \
      && "$candidate" -c 'import sys; print(sys.executable)' 2>/dev/null; then
      return 0
    fi
  done
  echo "lambda_local: no python$version (the template's runtime) on this machine" >&2
  return 1
}

tools() {
  local bin="$GROUNDWORK_LAMBDA_DIR/tools/bin" python version runtime
  mkdir -p "$bin"
  if [ ! -x "$bin/aws-lambda-rie" ]; then
    GOBIN="$bin" nice -n 10 go install "$RIE_MODULE@$RIE_VERSION"
  fi
  if [ ! -x "$bin/lambda-adapter" ]; then
    nice -n 10 cargo install --locked --quiet lambda_web_adapter --version "$ADAPTER_VERSION" \
      --root "$GROUNDWORK_LAMBDA_DIR/tools"
  fi
  # The adapter's layer: /opt/bootstrap (the exec wrapper, from the crate) and the extension.
  local layer="$GROUNDWORK_LAMBDA_DIR/adapter-layer"
  if [ ! -x "$layer/extensions/lambda-adapter" ]; then
    local crate
    crate="$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -maxdepth 2 \
      -name "lambda_web_adapter-$ADAPTER_VERSION" | head -n 1)"
    mkdir -p "$layer/extensions"
    cp "$crate/layer/bootstrap" "$layer/bootstrap"
    cp "$bin/lambda-adapter" "$layer/extensions/lambda-adapter"
    chmod +x "$layer/bootstrap" "$layer/extensions/lambda-adapter"
  fi
  if [ ! -x "$GROUNDWORK_LAMBDA_DIR/sam/bin/sam" ]; then
    python3 -m venv "$GROUNDWORK_LAMBDA_DIR/sam"
    nice -n 10 "$GROUNDWORK_LAMBDA_DIR/sam/bin/python" -m pip install --quiet \
      "aws-sam-cli==$SAM_CLI_VERSION"
  fi
  python="$(runtime_python)"
  version="$(runtime_version)"
  runtime="$GROUNDWORK_LAMBDA_DIR/runtime/python$version"
  if [ ! -x "$runtime/bin/python" ]; then
    # No pip and no packages in the interpreter itself: what a function imports comes from its
    # folder, /opt/python and LAMBDA_RUNTIME_DIR, as on Lambda.
    "$python" -m venv --without-pip "$runtime"
  fi
  if [ ! -d "$runtime/var-runtime/awslambdaric" ]; then
    "$python" -m pip install --quiet --target "$runtime/var-runtime" \
      "awslambdaric==$AWSLAMBDARIC_VERSION" "boto3==$BOTO3_VERSION"
  fi
}

build() {
  local version python
  version="$(runtime_version)"
  python="$(runtime_python)"
  mkdir -p "$GROUNDWORK_SAM_BUILD_DIR" "$GROUNDWORK_LAMBDA_DIR/python-bin"
  # As docs/deploy.md says: sam build and the layers' Makefiles find the runtime's python3.12 on
  # the PATH, and python3 stays whatever the machine has (3.11 here), so every build checks
  # that the documented one works where python3 is not a 3.12. (A pyenv shim named python3.12
  # may be on the PATH and refuse to run: the interpreter itself goes first.)
  rm -f "$GROUNDWORK_LAMBDA_DIR/python-bin/python" "$GROUNDWORK_LAMBDA_DIR/python-bin/python3"
  ln -sf "$python" "$GROUNDWORK_LAMBDA_DIR/python-bin/python$version"
  (
    cd "$GROUNDWORK_ROOT"
    PATH="$GROUNDWORK_LAMBDA_DIR/python-bin:$PATH" SAM_CLI_TELEMETRY=0 nice -n 10 \
      "$GROUNDWORK_LAMBDA_DIR/sam/bin/sam" build --build-dir "$GROUNDWORK_SAM_BUILD_DIR" \
      --cache-dir "$GROUNDWORK_LAMBDA_DIR/sam-cache" --cached --template template.yaml
  )
  "$GROUNDWORK_LAMBDA_DIR/sam/bin/python" "$GROUNDWORK_ROOT/scripts/lambda_describe.py" \
    "$GROUNDWORK_SAM_BUILD_DIR/template.yaml" > "$GROUNDWORK_SAM_BUILD_DIR/functions.json"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-all}" in
    tools) tools ;;
    build) build ;;
    all) tools && build ;;
    *) echo "usage: $0 [tools|build|all]" >&2; exit 2 ;;
  esac
fi
