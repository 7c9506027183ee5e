# shellcheck shell=bash
# A real one-node Slurm cluster under a folder of its own, for tests: its own
# munge key and socket, its own slurm.conf, ports, state and spool folders, so
# it neither needs nor touches a system Slurm or munge (the machine may run one,
# or another test's cluster, at the same time). Sourced, not run:
#   start_one_node_cluster DIR   # exports SLURM_CONF; fails naming what is missing
#   stop_one_node_cluster        # kills the daemons it started, by PID
# Debian's slurmctld, slurmd, slurm-client and munge (scripts/setup.sh) provide
# the programs; a missing one is a failure, not a skip: the test brings its own
# cluster, so "no cluster here" is never a reason not to run.

CLUSTER_PIDS=()
CLUSTER_DIR=""

cluster_fail() {
  echo "one_node_cluster: $*" >&2
  cluster_print_logs
  return 1
}

cluster_print_logs() {
  [ -n "$CLUSTER_DIR" ] || return 0
  local f
  for f in "$CLUSTER_DIR"/log/*; do
    [ -s "$f" ] || continue
    echo "----- $f (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
}

# A TCP port nothing listens on now (a race with another process is possible
# but harmless: the daemon's start then fails and the test says so).
cluster_free_port() {
  local port
  for _ in $(seq 1 200); do
    port=$((20000 + RANDOM % 40000))
    if ! ss -Htln "sport = :$port" | grep -q .; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

cluster_start_munge() {
  local d="$CLUSTER_DIR/munge"
  mkdir -p "$d" && chmod 700 "$d"
  head -c 1024 /dev/urandom >"$d/munge.key" && chmod 400 "$d/munge.key"
  # -F: stay in the foreground, so $! is the daemon; -f: accept a key and
  # socket outside /etc and /run (munged refuses them otherwise).
  munged -f -F --socket="$d/sock" --key-file="$d/munge.key" --log-file="$CLUSTER_DIR/log/munged.log" \
    --pid-file="$d/munged.pid" --seed-file="$d/munge.seed" >>"$CLUSTER_DIR/log/munged.out" 2>&1 &
  CLUSTER_PIDS+=($!)
  for _ in $(seq 1 100); do
    [ -S "$d/sock" ] && return 0
    sleep 0.1
  done
  cluster_fail "munged did not open $d/sock within 10 s"
}

cluster_write_conf() {
  local host user cpus mem_mb ctld_port slurmd_port
  host=$(hostname -s)
  user=$(id -un)
  cpus=$(nproc)
  # Below what slurmd measures, or the node is refused as having less memory than configured.
  mem_mb=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 - 1024))
  ctld_port=$(cluster_free_port) || cluster_fail "no free port for slurmctld" || return 1
  slurmd_port=$(cluster_free_port) || cluster_fail "no free port for slurmd" || return 1
  local d="$CLUSTER_DIR"
  mkdir -p "$d/state" "$d/spool"
  cat >"$d/slurm.conf" <<EOF
ClusterName=tbprof-test
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SchedulerType=sched/builtin
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  CLUSTER_NODE=$host
}

# Waits (bounded) until the node is idle: the controller answers and slurmd registered.
cluster_wait_idle() {
  local state=""
  for _ in $(seq 1 60); do
    state=$(sinfo -h -n "$CLUSTER_NODE" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && return 0
    for pid in "${CLUSTER_PIDS[@]}"; do
      kill -0 "$pid" 2>/dev/null || cluster_fail "a daemon (PID $pid) exited before the node was idle" || return 1
    done
    sleep 0.5
  done
  cluster_fail "node $CLUSTER_NODE not idle within 30 s (sinfo says '${state:-nothing}')"
}

start_one_node_cluster() {
  CLUSTER_DIR=$1
  local missing=()
  for p in munged slurmctld slurmd sbatch sinfo ss; do
    command -v "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "one_node_cluster: missing ${missing[*]} (scripts/setup.sh installs slurmctld slurmd slurm-client munge)" >&2
    return 1
  fi
  mkdir -p "$CLUSTER_DIR/log"
  cluster_start_munge || return 1
  cluster_write_conf || return 1
  export SLURM_CONF="$CLUSTER_DIR/slurm.conf"
  # -D: foreground, so $! is the daemon; -c: a clean start, no state of an earlier one.
  slurmctld -D -c -f "$SLURM_CONF" >>"$CLUSTER_DIR/log/slurmctld.out" 2>&1 &
  CLUSTER_PIDS+=($!)
  slurmd -D -f "$SLURM_CONF" >>"$CLUSTER_DIR/log/slurmd.out" 2>&1 &
  CLUSTER_PIDS+=($!)
  cluster_wait_idle
}

stop_one_node_cluster() {
  local pid
  # slurmd first: it would otherwise keep retrying the controller.
  for ((i = ${#CLUSTER_PIDS[@]} - 1; i >= 0; i--)); do
    pid=${CLUSTER_PIDS[$i]}
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${CLUSTER_PIDS[@]}"; do
    # Waits for our own children only; a daemon that ignores TERM gets KILL after 10 s.
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  CLUSTER_PIDS=()
}
