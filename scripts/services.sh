#!/usr/bin/env bash
# The services the cloud path talks to, run locally on 127.0.0.1:
#   - a single-node OpenSearch 2.19.1 (the integ-test distribution from Maven Central) with the
#     analysis-common, reindex and lang-painless modules and the k-NN and neural-search plugins, so the
#     adapter's BM25, k-NN (Lucene engine: Maven's k-NN zip carries no faiss natives) and
#     `hybrid` queries with the normalization processor all run for real.
#
#   scripts/services.sh up      start what is not running, wait until healthy, print exports
#   scripts/services.sh status  print what runs and its exports; exit 1 if something is down
#   scripts/services.sh down    stop everything this script started
#
#   eval "$(scripts/services.sh up)"   # points Groundwork at them
#
# Everything lives under .services/ (ignored by git): the prepared OpenSearch home in cache/,
# and data, logs, pid and exports of the running node in opensearch/. Maven downloads land in
# ~/.m2, so a second cold `up` (after `down`) only starts the JVM.
#
# Settings (environment):
#   GROUNDWORK_SERVICES_DIR           state folder                      (.services in the repo)
#   GROUNDWORK_SERVICES_OPENSEARCH_PORT  HTTP port; 0 picks a free one  (0)
#   GROUNDWORK_SERVICES_OPENSEARCH_HEAP  JVM heap                       (768m)
#   GROUNDWORK_SERVICES_OPENSEARCH_PLUGINS  plugins to install          ("knn neural-search")
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
TIMEOUT=${GROUNDWORK_SERVICES_TIMEOUT:-240}
OS_DIR=$STATE/opensearch

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

os_pid() {
  local pid
  [ -f "$OS_DIR/pid" ] || return 1
  pid=$(cat "$OS_DIR/pid")
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

os_healthy() {
  curl -fsS --max-time 2 "$1/_cluster/health?wait_for_status=yellow&timeout=1s" >/dev/null 2>&1
}

up_opensearch() {
  if os_pid >/dev/null && os_healthy "$(cat "$OS_DIR/url")"; then return; fi
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
    OPENSEARCH_JAVA_OPTS="-Xms$OS_HEAP -Xmx$OS_HEAP" \
    setsid "${as_user[@]}" "$home/bin/opensearch" >"$OS_DIR/logs/stdout.log" 2>&1 </dev/null &
  echo $! >"$OS_DIR/pid"
  while ! os_healthy "$url"; do
    if ! os_pid >/dev/null || [ $(($(date +%s) - started)) -gt "$TIMEOUT" ]; then
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

stop_opensearch() {
  local pid
  pid=$(os_pid) || { rm -f "$OS_DIR/pid"; return 0; }
  kill "$pid"
  for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  rm -f "$OS_DIR/pid"
}

case ${1:-} in
  up)
    up_opensearch
    cat "$OS_DIR/exports"
    ;;
  down)
    stop_opensearch
    ;;
  status)
    if pid=$(os_pid) && os_healthy "$(cat "$OS_DIR/url")"; then
      log "opensearch: running (pid $pid)"
      cat "$OS_DIR/exports"
    else
      log "opensearch: down"
      exit 1
    fi
    ;;
  *)
    echo "usage: $0 up|down|status" >&2
    exit 2
    ;;
esac
