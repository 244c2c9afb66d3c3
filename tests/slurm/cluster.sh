#!/usr/bin/env bash
# A throw-away single-node Slurm with accounting (munge, MariaDB, slurmdbd,
# slurmctld, slurmd), every file, socket and port private to DIR.
#   cluster.sh start DIR PORTBASE   starts it; the node has 8 CPUs and 4 (count-only) GPUs
#   cluster.sh stop DIR             stops every daemon it started, by PID
# Run as root (slurmd launches jobs). Clients need SLURM_CONF=DIR/etc/slurm.conf.
set -euo pipefail
cmd=$1 T=$2
stop() {
  # Jobs still running: their scripts and the slurmstepd above each (it outlives slurmd).
  for p in $(pgrep -f "$T/spool/d/" || true); do
    pp=$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ')
    [ -n "$pp" ] && [ "$(cat /proc/"$pp"/comm 2>/dev/null)" = slurmstepd ] && kill -KILL "$pp" 2>/dev/null
    kill -KILL "$p" 2>/dev/null || true
  done
  local pids=()
  for d in slurmd slurmctld slurmdbd mariadbd; do
    [ -f "$T/run/$d.bgpid" ] && pids+=("$(cat "$T/run/$d.bgpid")")
  done
  [ -f "$T/run/munged.pid" ] && pids+=("$(cat "$T/run/munged.pid")")
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 1 100); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && return 0
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
}
if [ "$cmd" = stop ]; then stop; exit 0; fi
BASE=${3:-16800}
DBPORT=$((BASE)) DBDPORT=$((BASE + 1)) CTLDPORT=$((BASE + 2)) SLURMDPORT=$((BASE + 3))
wait_for() { local d=$1 to=$2; shift 2; local i=0
  until "$@" >"$T/log/wait.last" 2>&1; do i=$((i + 1)); [ $i -gt $((to * 10)) ] && { echo "timed out waiting for $d" >&2; cat "$T/log/wait.last" >&2; return 1; }; sleep 0.1; done; }
mkdir -p "$T"/{etc,db,log,run,dev,spool/ctld,spool/d,munge,out}; chmod 700 "$T/munge"; chmod 1777 "$T/out"
trap 'stop' ERR
mungekey -c -k "$T/munge/munge.key" 2>/dev/null || mungekey -c -f -k "$T/munge/munge.key"
chmod 600 "$T/munge/munge.key"
munged -f --socket="$T/run/munge.sock" --key-file="$T/munge/munge.key" --log-file="$T/log/munged.log" \
  --pid-file="$T/run/munged.pid" --seed-file="$T/munge/munged.seed"
wait_for munge 10 bash -c "munge -n -S $T/run/munge.sock | unmunge -S $T/run/munge.sock"
mariadb-install-db --no-defaults --datadir="$T/db" --user=root --auth-root-authentication-method=normal --skip-test-db >"$T/log/mariadb-install.log" 2>&1
mariadbd --no-defaults --datadir="$T/db" --user=root --port=$DBPORT --bind-address=127.0.0.1 \
  --socket="$T/run/mysqld.sock" --pid-file="$T/run/mysqld.pid" --log-error="$T/log/mariadb.err" --skip-name-resolve \
  --innodb-buffer-pool-size=64M --innodb-lock-wait-timeout=900 --innodb-log-file-size=16M </dev/null >/dev/null 2>&1 &
echo $! > "$T/run/mariadbd.bgpid"
wait_for mariadb 60 mariadb-admin --no-defaults -S "$T/run/mysqld.sock" -uroot ping
mariadb --no-defaults -S "$T/run/mysqld.sock" -uroot -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmpw'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
for i in 0 1 2 3; do mknod -m 666 "$T/dev/gpu$i" c 1 3; done
cat > "$T/etc/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$T/run/munge.sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBDPORT
SlurmUser=root
LogFile=$T/log/slurmdbd.log
PidFile=$T/run/slurmdbd.pid
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DBPORT
StorageUser=slurm
StoragePass=slurmpw
StorageLoc=slurm_acct_db
CONF
chmod 600 "$T/etc/slurmdbd.conf"
cat > "$T/etc/slurm.conf" <<CONF
ClusterName=testclu
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLDPORT
SlurmdPort=$SLURMDPORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/run/munge.sock
CredType=cred/munge
StateSaveLocation=$T/spool/ctld
SlurmdSpoolDir=$T/spool/d
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBDPORT
AccountingStoragePass=$T/run/munge.sock
AccountingStorageTRES=gres/gpu
AccountingStoreFlags=job_comment
JobCompType=jobcomp/none
GresTypes=gpu
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
MinJobAge=2
NodeName=node1 NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=8 RealMemory=4000 Gres=gpu:4 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=ALL MaxTime=INFINITE State=UP
CONF
# Lines a test adds (a Prolog and Epilog, say).
[ -n "${SLURM_CONF_EXTRA:-}" ] && printf '%s\n' "$SLURM_CONF_EXTRA" >> "$T/etc/slurm.conf"
echo "NodeName=node1 Name=gpu File=$T/dev/gpu[0-3]" > "$T/etc/gres.conf"
export SLURM_CONF=$T/etc/slurm.conf
slurmdbd -D </dev/null >"$T/log/slurmdbd.out" 2>&1 & echo $! > "$T/run/slurmdbd.bgpid"
wait_for slurmdbd 60 sacctmgr -n list cluster
sacctmgr -i add cluster testclu >/dev/null
slurmctld -D -i </dev/null >"$T/log/slurmctld.out" 2>&1 & echo $! > "$T/run/slurmctld.bgpid"
wait_for slurmctld 60 bash -c "scontrol ping | grep -q UP"
slurmd -D -N node1 </dev/null >"$T/log/slurmd.out" 2>&1 & echo $! > "$T/run/slurmd.bgpid"
wait_for "node idle" 60 bash -c "sinfo -h -o %T | grep -qx idle"
