#!/usr/bin/env bash
# The services the cloud path talks to, run locally on 127.0.0.1:
#   - a single-node OpenSearch 2.19.1 (the integ-test distribution from Maven Central) with the
#     analysis-common, reindex and lang-painless modules and the k-NN and neural-search plugins, so the
#     adapter's BM25, k-NN (Lucene engine: Maven's k-NN zip carries no faiss natives) and
#     `hybrid` queries with the normalization processor all run for real.
#   - moto's server (`python -m tests.moto_server`, from .venv: moto[server] is a test
#     dependency), DynamoDB, S3 and SQS on one port, with DynamoDB's requests serialized as
#     DynamoDB serializes the writes to an item. The storage engine of the live suites besides
#     SQLite (DynamoDB Local's licence rules it out, docs/storage.md).
#
#   scripts/services.sh up [SERVICE...]      start what is not running (default: opensearch moto),
#                                            wait until healthy, print the exports
#   scripts/services.sh status [SERVICE...]  print what runs and its exports; exit 1 if one is down
#   scripts/services.sh down [SERVICE...]    stop what this script started
#
#   eval "$(scripts/services.sh up)"   # points Groundwork at them
#
# Everything lives under .services/ (ignored by git): the prepared OpenSearch home in cache/,
# data, logs, pid and exports of the running node in opensearch/, and the moto server's log,
# pid and exports in moto/. Maven downloads land in ~/.m2, so a second cold `up` (after `down`)
# only starts the JVM. The exports: GROUNDWORK_OPENSEARCH_URL (and its auth and k-NN engine),
# GROUNDWORK_DYNAMODB_ENDPOINT_URL and GROUNDWORK_DYNAMODB_REGION for DynamoDB, and
# GROUNDWORK_MOTO_URL, the same endpoint, for S3 and SQS clients that ask for it (AWS_ENDPOINT_URL
# is left alone: it would send every boto3 client of the shell to moto). moto accepts any
# credentials, but boto3 wants some: export AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY=testing
# in a shell without AWS credentials.
#
# Settings (environment):
#   GROUNDWORK_SERVICES_DIR           state folder                      (.services in the repo)
#   GROUNDWORK_SERVICES_OPENSEARCH_PORT  HTTP port; 0 picks a free one  (0)
#   GROUNDWORK_SERVICES_OPENSEARCH_HEAP  JVM heap                       (768m)
#   GROUNDWORK_SERVICES_OPENSEARCH_PLUGINS  plugins to install          ("knn neural-search")
#   GROUNDWORK_SERVICES_OPENSEARCH_JAVA_OPTS  more JVM options (-XX:TieredStopAtLevel=1)
#   GROUNDWORK_SERVICES_MOTO_PORT     moto's port; 0 picks a free one    (0)
#   GROUNDWORK_SERVICES_PYTHON        the interpreter with moto[server]  (.venv/bin/python)
#   GROUNDWORK_SERVICES_TIMEOUT       seconds to wait for health        (240)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
STATE=${GROUNDWORK_SERVICES_DIR:-$ROOT/.services}
CACHE=$STATE/cache
OS_VERSION=2.19.1
PLUGIN_VERSION=$OS_VERSION.0
OS_PORT=${GROUNDWORK_SERVICES_OPENSEARCH_PORT:-0}
OS_HEAP=${GROUNDWORK_SERVICES_OPENSEARCH_HEAP:-768m}
OS_PLUGINS=${GROUNDWORK_SERVICES_OPENSEARCH_PLUGINS-knn neural-search}
# A test node lives minutes: C1 alone starts it in about half the time (measured 35-48 s
# against 62-74 s on 2 busy cores), and the suites are too small to miss C2.
OS_JAVA_OPTS=${GROUNDWORK_SERVICES_OPENSEARCH_JAVA_OPTS--XX:TieredStopAtLevel=1}
TIMEOUT=${GROUNDWORK_SERVICES_TIMEOUT:-240}
OS_DIR=$STATE/opensearch
MOTO_PORT=${GROUNDWORK_SERVICES_MOTO_PORT:-0}
MOTO_PYTHON=${GROUNDWORK_SERVICES_PYTHON:-$ROOT/.venv/bin/python}
MOTO_DIR=$STATE/moto

log() { echo "services: $*" >&2; }

java_home() {
  if [ -n "${JAVA_HOME:-}" ]; then echo "$JAVA_HOME"; return; fi
  local java
  java=$(command -v java) || { log "Java 17 is required (apt-get install openjdk-17-jre-headless)"; exit 1; }
  dirname "$(dirname "$(readlink -f "$java")")"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Copies one artifact (group:artifact:version[:type]) from Maven Central, through ~/.m2, into $2.
maven_copy() {
  local g a v t file
  IFS=: read -r g a v t <<<"$1"
  file=${MAVEN_REPO:-$HOME/.m2/repository}/${g//.//}/$a/$v/$a-$v.${t:-jar}
  if [ -f "$file" ]; then cp "$file" "$2/"; return; fi
  command -v mvn >/dev/null || { log "Maven is required (apt-get install maven)"; exit 1; }
  nice -n 10 mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$1" -DoutputDirectory="$2" >&2 \
    || { log "could not fetch $1 from Maven Central"; exit 1; }
}

# A module the integ-test distribution leaves out, from its jar and dependencies; Maven has no
# module zips, so the descriptor the distribution would carry is written here.
add_module() { # name classname artifacts...
  local name=$1 classname=$2 dir=$3/modules/$1
  shift 3
  mkdir -p "$dir"
  for artifact in "$@"; do maven_copy "$artifact" "$dir"; done
  cat >"$dir/plugin-descriptor.properties" <<EOF
description=$name module
version=$OS_VERSION
name=$name
classname=$classname
java.version=11
opensearch.version=$OS_VERSION
extended.plugins=
has.native.controller=false
EOF
}

# The OpenSearch home, prepared once per version and plugin set, then reused.
prepare_opensearch() {
  local key home tmp plugin
  # Named for the plugin set and this recipe: a changed recipe prepares a new home.
  key=$(echo "$OS_PLUGINS" | tr ' ' '+')-$(declare -f prepare_opensearch add_module | sha1sum | cut -c1-8)
  home=$CACHE/opensearch-$OS_VERSION-$key
  if [ -f "$home/.ready" ]; then echo "$home"; return; fi
  log "preparing OpenSearch $OS_VERSION ($OS_PLUGINS) in $home"
  tmp=$CACHE/tmp.$$
  rm -rf "$tmp" && mkdir -p "$tmp"
  maven_copy "org.opensearch.distribution.integ-test-zip:opensearch:$OS_VERSION:zip" "$tmp"
  unzip -q "$tmp/opensearch-$OS_VERSION.zip" -d "$tmp"
  local built=$tmp/opensearch-$OS_VERSION
  add_module analysis-common org.opensearch.analysis.common.CommonAnalysisPlugin "$built" \
    "org.opensearch.plugin:analysis-common:$OS_VERSION"
  add_module lang-painless org.opensearch.painless.PainlessPlugin "$built" \
    "org.opensearch.plugin:lang-painless:$OS_VERSION" \
    "org.opensearch.plugin:opensearch-scripting-painless-spi:$OS_VERSION" \
    org.antlr:antlr4-runtime:4.13.1 org.ow2.asm:asm:9.7 org.ow2.asm:asm-util:9.7 \
    org.ow2.asm:asm-tree:9.7 org.ow2.asm:asm-commons:9.7 org.ow2.asm:asm-analysis:9.7
  # _delete_by_query (a source's deletion) lives in the reindex module.
  add_module reindex org.opensearch.index.reindex.ReindexPlugin "$built" \
    "org.opensearch.plugin:reindex-client:$OS_VERSION" \
    "org.opensearch.client:opensearch-rest-client:$OS_VERSION" \
    "org.opensearch:opensearch-ssl-config:$OS_VERSION" \
    org.apache.httpcomponents:httpclient:4.5.14 org.apache.httpcomponents:httpcore:4.4.16 \
    org.apache.httpcomponents:httpasyncclient:4.1.5 \
    org.apache.httpcomponents:httpcore-nio:4.4.16 commons-codec:commons-codec:1.16.1 \
    commons-logging:commons-logging:1.2
  # Painless compiles scripts into classes of its own loader; the distribution grants it so.
  cat >"$built/modules/lang-painless/plugin-security.policy" <<'EOF'
grant {
  permission java.lang.RuntimePermission "createClassLoader";
  permission java.lang.RuntimePermission "getClassLoader";
};
EOF
  for plugin in $OS_PLUGINS; do
    local artifact
    case $plugin in
      knn) artifact=opensearch-knn ;;
      neural-search) artifact=neural-search ;;
      *) log "unknown plugin $plugin (knn, neural-search)"; exit 1 ;;
    esac
    maven_copy "org.opensearch.plugin:$artifact:$PLUGIN_VERSION:zip" "$tmp"
    OPENSEARCH_JAVA_HOME=$(java_home) "$built/bin/opensearch-plugin" install --batch \
      "file://$tmp/$artifact-$PLUGIN_VERSION.zip" >&2
  done
  rm -rf "$CACHE"/opensearch-$OS_VERSION-* && mv "$built" "$home" && rm -rf "$tmp"
  touch "$home/.ready"
  echo "$home"
}

# A service's pid while it runs: the pid file in its folder ($1).
service_pid() {
  local pid
  [ -f "$1/pid" ] || return 1
  pid=$(cat "$1/pid")
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# Stops the service of folder $1: TERM, then KILL if it still runs after $2 waits of $3 s.
stop_service() {
  local pid
  pid=$(service_pid "$1") || { rm -f "$1/pid"; return 0; }
  kill "$pid"
  for _ in $(seq "$2"); do kill -0 "$pid" 2>/dev/null || break; sleep "$3"; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  rm -f "$1/pid"
}

os_healthy() {
  curl -fsS --max-time 2 "$1/_cluster/health?wait_for_status=yellow&timeout=1s" >/dev/null 2>&1
}

up_opensearch() {
  if service_pid "$OS_DIR" >/dev/null && os_healthy "$(cat "$OS_DIR/url")"; then return; fi
  stop_opensearch
  local home port transport url started
  home=$(prepare_opensearch)
  port=$OS_PORT
  [ "$port" = 0 ] && port=$(free_port)
  transport=$(free_port)
  url=http://127.0.0.1:$port
  rm -rf "$OS_DIR" && mkdir -p "$OS_DIR/config" "$OS_DIR/data" "$OS_DIR/logs"
  cp "$home/config/log4j2.properties" "$OS_DIR/config/"
  # The distribution's paths are relative to its home, which the node does not own.
  sed -e "s|=data$|=$OS_DIR/data|" -e "s|logs/|$OS_DIR/logs/|" -e '/^-Xm[sx]/d' \
    "$home/config/jvm.options" >"$OS_DIR/config/jvm.options"
  mkdir -p "$OS_DIR/config/jvm.options.d"
  cat >"$OS_DIR/config/opensearch.yml" <<EOF
cluster.name: groundwork-local
node.name: groundwork-local
network.host: 127.0.0.1
http.port: $port
transport.port: $transport
discovery.type: single-node
path.data: $OS_DIR/data
path.logs: $OS_DIR/logs
# A shared development disk may be fuller than the default watermarks allow.
cluster.routing.allocation.disk.threshold_enabled: false
EOF
  local as_user=()
  if [ "$(id -u)" = 0 ]; then
    # OpenSearch refuses to run as root: the node runs as nobody, in folders it owns.
    chown -R 65534:65534 "$OS_DIR"
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  fi
  started=$(date +%s)
  log "starting OpenSearch on $url"
  # Its own session, so that the node outlives the shell (and the process group) that ran `up`.
  OPENSEARCH_PATH_CONF=$OS_DIR/config OPENSEARCH_JAVA_HOME=$(java_home) \
    OPENSEARCH_JAVA_OPTS="-Xms$OS_HEAP -Xmx$OS_HEAP $OS_JAVA_OPTS" \
    setsid "${as_user[@]}" "$home/bin/opensearch" >"$OS_DIR/logs/stdout.log" 2>&1 </dev/null &
  echo $! >"$OS_DIR/pid"
  while ! os_healthy "$url"; do
    if ! service_pid "$OS_DIR" >/dev/null || [ $(($(date +%s) - started)) -gt "$TIMEOUT" ]; then
      log "OpenSearch did not become healthy:"
      tail -n 40 "$OS_DIR/logs/stdout.log" >&2 || true
      stop_opensearch
      exit 1
    fi
    sleep 1
  done
  echo "$url" >"$OS_DIR/url"
  # Maven's k-NN zip has no faiss natives, and a faiss field's first flush then kills the
  # node (UnsatisfiedLinkError): the local node's vectors use the pure-Java Lucene engine.
  local engine=lucene
  {
    echo "export GROUNDWORK_OPENSEARCH_URL=$url"
    echo "export GROUNDWORK_OPENSEARCH_AUTH=none"
    echo "export GROUNDWORK_OPENSEARCH_KNN_ENGINE=$engine"
  } >"$OS_DIR/exports"
  log "OpenSearch healthy on $url after $(($(date +%s) - started)) s"
}

stop_opensearch() { stop_service "$OS_DIR" 60 0.5; }

moto_healthy() {
  # The dashboard page: data.json would serialize every stored item.
  curl -fsS --max-time 2 "$1/moto-api/" >/dev/null 2>&1
}

up_moto() {
  if service_pid "$MOTO_DIR" >/dev/null && moto_healthy "$(cat "$MOTO_DIR/url")"; then return; fi
  stop_moto
  "$MOTO_PYTHON" -c 'import moto.server, werkzeug' 2>/dev/null || {
    log "moto's server needs moto[server] in $MOTO_PYTHON (pip install -e '.[test]')"
    exit 1
  }
  local port url started
  port=$MOTO_PORT
  [ "$port" = 0 ] && port=$(free_port)
  url=http://127.0.0.1:$port
  rm -rf "$MOTO_DIR" && mkdir -p "$MOTO_DIR"
  started=$(date +%s)
  log "starting moto's server on $url"
  # Its own session, as OpenSearch's; the repository on the path for `-m tests.moto_server`.
  PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" \
    setsid "$MOTO_PYTHON" -m tests.moto_server --port "$port" >"$MOTO_DIR/log" 2>&1 </dev/null &
  echo $! >"$MOTO_DIR/pid"
  while ! moto_healthy "$url"; do
    if ! service_pid "$MOTO_DIR" >/dev/null || [ $(($(date +%s) - started)) -gt "$TIMEOUT" ]; then
      log "moto's server did not start:"
      tail -n 40 "$MOTO_DIR/log" >&2 || true
      stop_moto
      exit 1
    fi
    sleep 0.2
  done
  echo "$url" >"$MOTO_DIR/url"
  {
    echo "export GROUNDWORK_DYNAMODB_ENDPOINT_URL=$url"
    echo "export GROUNDWORK_DYNAMODB_REGION=us-east-1"
    echo "export GROUNDWORK_MOTO_URL=$url"
  } >"$MOTO_DIR/exports"
  log "moto's server up on $url after $(($(date +%s) - started)) s"
}

stop_moto() { stop_service "$MOTO_DIR" 20 0.25; }

command=${1:-}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- moto opensearch
for service in "$@"; do
  case $service in
    opensearch | moto) ;;
    *) echo "usage: $0 up|down|status [opensearch] [moto]" >&2; exit 2 ;;
  esac
done
case $command in
  up)
    # moto first: it starts in a second, and its exports are printed even if OpenSearch fails.
    for service in $(printf '%s\n' "$@" | sort); do
      case $service in
        moto) up_moto && cat "$MOTO_DIR/exports" ;;
        opensearch) up_opensearch && cat "$OS_DIR/exports" ;;
      esac
    done
    ;;
  down)
    for service in "$@"; do
      case $service in
        moto) stop_moto ;;
        opensearch) stop_opensearch ;;
      esac
    done
    ;;
  status)
    down=0
    for service in "$@"; do
      case $service in
        moto)
          if pid=$(service_pid "$MOTO_DIR") && moto_healthy "$(cat "$MOTO_DIR/url")"; then
            log "moto: running (pid $pid)"
            cat "$MOTO_DIR/exports"
          else
            log "moto: down"
            down=1
          fi
          ;;
        opensearch)
          if pid=$(service_pid "$OS_DIR") && os_healthy "$(cat "$OS_DIR/url")"; then
            log "opensearch: running (pid $pid)"
            cat "$OS_DIR/exports"
          else
            log "opensearch: down"
            down=1
          fi
          ;;
      esac
    done
    exit "$down"
    ;;
  *)
    echo "usage: $0 up|down|status [opensearch] [moto]" >&2
    exit 2
    ;;
esac
