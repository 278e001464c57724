#!/usr/bin/env bash
# A real single-node Apache Kafka broker (KRaft, no ZooKeeper) on 127.0.0.1,
# for Rewind's tests and local use. The jars come from Maven Central through
# Maven (scripts/kafka/pom.xml); nothing else is downloaded.
#
#   broker.sh start          fetch jars if needed, format storage if needed,
#                            start the broker, wait until it serves requests
#   broker.sh stop [--purge] SIGTERM, then SIGKILL after a timeout;
#                            --purge also deletes the data dir (topics, offsets)
#   broker.sh status         exit 0 when running and ready, non-zero otherwise
#   broker.sh wait           wait (up to KAFKA_START_TIMEOUT) until ready
#
# See scripts/kafka/README.md for the environment variables.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
POM="$SCRIPT_DIR/pom.xml"

# Keep the default in sync with <kafka.version> in pom.xml.
KAFKA_VERSION="${KAFKA_VERSION:-4.3.1}"
KAFKA_HOST=127.0.0.1
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
KAFKA_AUTO_CREATE_TOPICS="${KAFKA_AUTO_CREATE_TOPICS:-false}"
KAFKA_NUM_PARTITIONS="${KAFKA_NUM_PARTITIONS:-3}"
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
REWIND_KAFKA_HOME="${REWIND_KAFKA_HOME:-$HOME/.cache/rewind-kafka/$KAFKA_VERSION}"

LIBS_DIR="$REWIND_KAFKA_HOME/libs"
# One run dir per port, so brokers on different ports never share data.
RUN_DIR="$REWIND_KAFKA_HOME/run-$KAFKA_PORT"
DATA_DIR="$RUN_DIR/data"
LOG_DIR="$RUN_DIR/logs"
CONF_DIR="$RUN_DIR/config"
PID_FILE="$RUN_DIR/broker.pid"
SERVER_LOG="$LOG_DIR/server.log"
STDOUT_LOG="$LOG_DIR/kafka.out"
BOOTSTRAP="$KAFKA_HOST:$KAFKA_PORT"

JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

log() { printf 'kafka: %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

usage() {
  cat >&2 <<EOF
usage: $(basename "$0") start | stop [--purge] | status | wait
  Kafka $KAFKA_VERSION on $BOOTSTRAP (controller :$KAFKA_CONTROLLER_PORT), home $REWIND_KAFKA_HOME
EOF
  exit 2
}

is_number() { [[ "$1" =~ ^[0-9]+$ ]]; }

check_env() {
  is_number "$KAFKA_PORT" || die "KAFKA_PORT must be a number, got '$KAFKA_PORT'"
  is_number "$KAFKA_CONTROLLER_PORT" || die "KAFKA_CONTROLLER_PORT must be a number, got '$KAFKA_CONTROLLER_PORT'"
  is_number "$KAFKA_START_TIMEOUT" || die "KAFKA_START_TIMEOUT must be seconds, got '$KAFKA_START_TIMEOUT'"
  is_number "$KAFKA_STOP_TIMEOUT" || die "KAFKA_STOP_TIMEOUT must be seconds, got '$KAFKA_STOP_TIMEOUT'"
  [[ "$KAFKA_PORT" != "$KAFKA_CONTROLLER_PORT" ]] || die "KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ"
  case "$KAFKA_AUTO_CREATE_TOPICS" in
    true | false) ;;
    *) die "KAFKA_AUTO_CREATE_TOPICS must be true or false, got '$KAFKA_AUTO_CREATE_TOPICS'" ;;
  esac
}

# ---------------------------------------------------------------- jars

fetch_key() {
  # Refetch whenever the version or the pom changes.
  printf '%s %s\n' "$KAFKA_VERSION" "$(sha256sum "$POM" | cut -d' ' -f1)"
}

ensure_jars() {
  local key
  key="$(fetch_key)"
  if [[ -f "$LIBS_DIR/.complete" && "$(cat "$LIBS_DIR/.complete")" == "$key" ]]; then
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn (Apache Maven) is needed to fetch the Kafka jars; install it (apt-get install maven)"
  local profile=kafka4
  [[ "$KAFKA_VERSION" == 3.* ]] && profile=kafka3
  log "fetching Kafka $KAFKA_VERSION jars from Maven Central into $LIBS_DIR"
  local tmp="$REWIND_KAFKA_HOME/libs.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$REWIND_KAFKA_HOME"
  local mvn_log="$REWIND_KAFKA_HOME/mvn.log"
  if ! mvn -q -B -Dstyle.color=never -f "$POM" -P "$profile" -Dkafka.version="$KAFKA_VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" >"$mvn_log" 2>&1; then
    tail -n 30 "$mvn_log" >&2
    rm -rf "$tmp"
    die "Maven could not fetch Kafka $KAFKA_VERSION (full output: $mvn_log)"
  fi
  [[ -n "$(ls "$tmp"/kafka_2.13-*.jar 2>/dev/null)" ]] || {
    rm -rf "$tmp"
    die "Maven finished but kafka_2.13-$KAFKA_VERSION.jar is missing"
  }
  printf '%s\n' "$key" >"$tmp/.complete"
  rm -rf "$LIBS_DIR"
  mv "$tmp" "$LIBS_DIR"
}

# ---------------------------------------------------------------- config

write_config() {
  mkdir -p "$CONF_DIR" "$DATA_DIR" "$LOG_DIR"
  cat >"$CONF_DIR/server.properties" <<EOF
# Written by scripts/kafka/broker.sh; rewritten on every start.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,CONTROLLER://$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
log.dirs=$DATA_DIR
num.partitions=$KAFKA_NUM_PARTITIONS
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
auto.create.topics.enable=$KAFKA_AUTO_CREATE_TOPICS
delete.topic.enable=true
group.initial.rebalance.delay.ms=0
# After a crash (kill -9) the restarted broker must wait for its old session to
# expire before it can register again: 4 s instead of the default 9 s.
broker.session.timeout.ms=4000
broker.heartbeat.interval.ms=1000
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.retention.hours=24
log.segment.bytes=67108864
EOF

  # Broker logging: Kafka 4.x uses log4j2, Kafka 3.x reload4j; write both.
  cat >"$CONF_DIR/log4j2.properties" <<'EOF'
status = warn
appender.file.type = RollingFile
appender.file.name = FILE
appender.file.fileName = ${sys:kafka.logs.dir}/server.log
appender.file.filePattern = ${sys:kafka.logs.dir}/server.log.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 20MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 3
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
EOF
  cat >"$CONF_DIR/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.RollingFileAppender
log4j.appender.file.File=${kafka.logs.dir}/server.log
log4j.appender.file.MaxFileSize=20MB
log4j.appender.file.MaxBackupIndex=3
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
  # Admin tools used for the readiness check: warnings only, to stderr.
  cat >"$CONF_DIR/tools-log4j2.properties" <<'EOF'
status = warn
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = STDERR
EOF
  cat >"$CONF_DIR/tools-log4j.properties" <<'EOF'
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
}

random_cluster_id() {
  # A Kafka Uuid: 16 random bytes, URL-safe base64 without padding (22 chars). Like Kafka's own
  # Uuid.randomUuid, never one that starts with "-": the tool would read it as an option
  # ("--cluster-id: expected one argument", one start in 64).
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ "$id" != -* ]] && break
  done
  printf '%s' "$id"
}

format_storage() {
  [[ -f "$DATA_DIR/meta.properties" ]] && return 0
  log "formatting KRaft storage in $DATA_DIR"
  local out
  # kafka.tools.StorageTool lives in kafka_2.13 in both 3.x and 4.x. With a
  # static controller.quorum.voters neither --standalone nor
  # --initial-controllers is needed (nor allowed).
  if ! out="$("$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 -cp "$LIBS_DIR/*" \
    -Dlog4j2.configurationFile="$CONF_DIR/tools-log4j2.properties" \
    -Dlog4j.configuration="file:$CONF_DIR/tools-log4j.properties" \
    kafka.tools.StorageTool format -t "$(random_cluster_id)" \
    -c "$CONF_DIR/server.properties" --ignore-formatted 2>&1)"; then
    printf '%s\n' "$out" >&2
    die "formatting the KRaft storage failed"
  fi
}

# ---------------------------------------------------------------- process

broker_pid() {
  # Prints the pid when the pid file names a live Kafka broker.
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  is_number "$pid" || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r "/proc/$pid/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'kafka\.Kafka' || return 1
  fi
  printf '%s\n' "$pid"
}

port_open() {
  (exec 3<>"/dev/tcp/$KAFKA_HOST/$1") 2>/dev/null
}

# A real request round-trip: list topics through the admin client.
ready_check() {
  port_open "$KAFKA_PORT" || return 1
  timeout 30 "$JAVA" -Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$LIBS_DIR/*" \
    -Dlog4j2.configurationFile="$CONF_DIR/tools-log4j2.properties" \
    -Dlog4j.configuration="file:$CONF_DIR/tools-log4j.properties" \
    org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --list \
    >/dev/null 2>"$RUN_DIR/readiness.err"
}

print_log_tail() {
  local f
  for f in "$STDOUT_LOG" "$SERVER_LOG"; do
    if [[ -s "$f" ]]; then
      log "----- last 40 lines of $f -----"
      tail -n 40 "$f" >&2
    fi
  done
  if [[ -s "$RUN_DIR/readiness.err" ]]; then
    log "----- last readiness check said -----"
    tail -n 10 "$RUN_DIR/readiness.err" >&2
  fi
}

# Waits until the broker answers; returns 1 on timeout, 3 when it died.
wait_ready() {
  local deadline=$((SECONDS + KAFKA_START_TIMEOUT))
  while ((SECONDS < deadline)); do
    broker_pid >/dev/null || return 3
    if ready_check; then
      return 0
    fi
    sleep 0.5
  done
  return 1
}

kill_broker() {
  local pid="$1" deadline
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + KAFKA_STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "broker (pid $pid) still running after ${KAFKA_STOP_TIMEOUT}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
  rm -f "$PID_FILE"
}

with_lock() {
  # Serialises start/stop of the same broker (e.g. parallel test workers).
  mkdir -p "$RUN_DIR"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$RUN_DIR/.lock"
    flock 9
  fi
  "$@"
}

# ---------------------------------------------------------------- commands

cmd_start() {
  local pid rc t0=$SECONDS
  if pid="$(broker_pid)"; then
    if ready_check; then
      log "already running (pid $pid) on $BOOTSTRAP"
      return 0
    fi
    log "running (pid $pid) but not ready yet; waiting"
    rc=0
    wait_ready || rc=$?
    if ((rc == 0)); then
      log "ready on $BOOTSTRAP (pid $pid)"
      return 0
    fi
    print_log_tail
    die "broker (pid $pid) did not become ready within ${KAFKA_START_TIMEOUT}s"
  fi
  rm -f "$PID_FILE"

  command -v "$JAVA" >/dev/null 2>&1 || die "java not found (need Java 17+; set JAVA_HOME or install openjdk-17-jre-headless)"
  local p
  for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
    port_open "$p" && die "port $KAFKA_HOST:$p is already in use by another process (set KAFKA_PORT / KAFKA_CONTROLLER_PORT)"
  done

  ensure_jars
  write_config
  format_storage

  log "starting Kafka $KAFKA_VERSION on $BOOTSTRAP (logs: $LOG_DIR)"
  : >"$STDOUT_LOG"
  # Own session (setsid), so a Ctrl-C in the calling terminal or the end of
  # the calling job's process group does not reach the broker.
  local detach=nohup
  command -v setsid >/dev/null 2>&1 && detach=setsid
  # shellcheck disable=SC2086 # KAFKA_HEAP_OPTS is a list of JVM flags
  "$detach" "$JAVA" $KAFKA_HEAP_OPTS -server \
    -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
    -XX:+ExplicitGCInvokesConcurrent -XX:+UseStringDeduplication \
    -Djava.awt.headless=true \
    -Dkafka.logs.dir="$LOG_DIR" \
    -Dlog4j2.configurationFile="$CONF_DIR/log4j2.properties" \
    -Dlog4j.configuration="file:$CONF_DIR/log4j.properties" \
    -cp "$LIBS_DIR/*" kafka.Kafka "$CONF_DIR/server.properties" \
    >>"$STDOUT_LOG" 2>&1 </dev/null 9>&- &
  pid=$!
  printf '%s\n' "$pid" >"$PID_FILE"

  rc=0
  wait_ready || rc=$?
  if ((rc == 0)); then
    log "ready on $BOOTSTRAP (pid $pid, $((SECONDS - t0))s)"
    return 0
  fi
  print_log_tail
  if ((rc == 3)); then
    rm -f "$PID_FILE"
    die "broker exited during startup (logs: $LOG_DIR)"
  fi
  log "stopping the broker that did not become ready"
  kill_broker "$pid"
  die "broker not ready within ${KAFKA_START_TIMEOUT}s (KAFKA_START_TIMEOUT; logs: $LOG_DIR)"
}

cmd_stop() {
  local purge=false pid
  case "${1:-}" in
    "") ;;
    --purge) purge=true ;;
    *) usage ;;
  esac
  if pid="$(broker_pid)"; then
    log "stopping broker (pid $pid)"
    kill_broker "$pid"
    log "stopped"
  else
    rm -f "$PID_FILE"
    log "not running"
  fi
  if $purge; then
    rm -rf "$DATA_DIR"
    log "purged $DATA_DIR"
  fi
}

cmd_status() {
  local pid
  if ! pid="$(broker_pid)"; then
    log "not running"
    return 1
  fi
  if ready_check; then
    log "running and ready (pid $pid) on $BOOTSTRAP"
    return 0
  fi
  log "running (pid $pid) but not ready"
  return 2
}

cmd_wait() {
  broker_pid >/dev/null || die "not running (start it with: $0 start)"
  local rc=0
  wait_ready || rc=$?
  if ((rc == 0)); then
    log "ready on $BOOTSTRAP"
    return 0
  fi
  print_log_tail
  ((rc == 3)) && die "broker exited"
  die "broker not ready within ${KAFKA_START_TIMEOUT}s"
}

main() {
  local cmd="${1:-}"
  [[ $# -gt 0 ]] && shift
  check_env
  case "$cmd" in
    start) [[ $# -eq 0 ]] || usage; with_lock cmd_start ;;
    stop) with_lock cmd_stop "$@" ;;
    status) [[ $# -eq 0 ]] || usage; cmd_status ;;
    wait) [[ $# -eq 0 ]] || usage; cmd_wait ;;
    *) usage ;;
  esac
}

main "$@"
