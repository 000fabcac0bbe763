#!/bin/sh
# with-slurm.sh DIR COMMAND [ARGS...]: runs COMMAND against a single-node Slurm of its own, for
# batch-slurm.test. munged gets a new key and socket; slurmctld and slurmd a slurm.conf for this
# host alone (its CPUs, no GPUs) on two free ports; every key, socket, log and state file is under
# DIR. COMMAND finds the cluster through SLURM_CONF; the daemons are stopped when it ends, however
# it ends. Exits with COMMAND's status.
# Where Slurm cannot start (not root, a daemon that does not come up), it says why, writes
# DIR/skipped and exits 0 without running COMMAND: the test's checks then skip too.
set -u
dir=$1
shift
rm -rf "$dir" && mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)
chmod 700 "$dir"

skip() {
  echo "with-slurm.sh: cannot start Slurm here, the Slurm test is skipped: $*" >&2
  : > "$dir/skipped"
  exit 0
}
# The last lines of a daemon's log, for the reason it gives.
tail_of() { [ -f "$1" ] && tail -n 5 "$1" | tr '\n' ' '; }

for tool in munged munge slurmctld slurmd sbatch squeue scontrol python3; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not on PATH (Debian: apt-get install slurm-wlm munge)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start jobs"

pids=""
stop() {
  for pid in $pids; do kill "$pid" 2>/dev/null; done
  for pid in $pids; do
    # slurmd and slurmctld take a moment to save their state; a daemon that will not stop is killed.
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null && echo "with-slurm.sh: process $pid did not stop; killed" >&2
  done
  pids=""
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# munged checks that no one else can write its files' folders.
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" && chmod 700 "$dir/munge" || exit 1
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$dir/munge/munge.key"
socket=$dir/munge/munge.socket
munged --foreground --force --socket="$socket" --key-file="$dir/munge/munge.key" \
  --log-file="$dir/munge/munged.log" --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" \
  > "$dir/munge/munged.out" 2>&1 &
pids="$pids $!"
i=0
until munge -n -S "$socket" 2>/dev/null | unmunge -S "$socket" >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -lt 50 ] || skip "munged did not start: $(tail_of "$dir/munge/munged.log") $(tail_of "$dir/munge/munged.out")"
  sleep 0.2
done

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
host=$(uname -n | cut -d. -f1)
cat > "$dir/slurm.conf" << EOF
# Written by with-slurm.sh for batch-slurm.test: one node, this host, CPUs only.
ClusterName=relayouttest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
SLURM_CONF=$dir/slurm.conf
export SLURM_CONF

slurmctld -D -i -f "$SLURM_CONF" > "$dir/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" -N "$host" > "$dir/slurmd.out" 2>&1 &
pids="$pids $!"
# Up when the node takes jobs.
i=0
until [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = "idle" ]; do
  i=$((i + 1))
  [ $i -lt 150 ] || skip "the node did not come up: $(tail_of "$dir/slurmctld.log") $(tail_of "$dir/slurmd.log") $(tail_of "$dir/slurmd.out")"
  sleep 0.2
done

"$@"
