#!/bin/sh
# Starts a one-node Slurm on this machine, on 127.0.0.1, for trying the
# database build's job arrays (docs/ENDGAME.md). Needs Debian's slurm-wlm
# and munge, and root. Usage: start-local.sh DIR; then SLURM_CONF=DIR/slurm.conf
# for sbatch and squeue, and stop-local.sh DIR to end it.
set -eu
dir=$(realpath -m "${1:?usage: start-local.sh DIR}")
mkdir -p "$dir/state" "$dir/spool"
node=$(hostname -s)
cpus=$(nproc)
# Slurm counts memory in MiB; leave a little to the system.
memory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
cat > "$dir/slurm.conf" <<CONF
ClusterName=morris
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
# munged runs as its own user, with the key the package made.
if ! pgrep -x munged >/dev/null; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  runuser -u munge -- /usr/sbin/munged
fi
/usr/sbin/slurmctld -f "$SLURM_CONF"
/usr/sbin/slurmd -f "$SLURM_CONF"
# Wait until the node takes jobs.
for _ in $(seq 60); do
  if sinfo -h -o %t 2>/dev/null | grep -q idle; then
    echo "Slurm is up: SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 1
done
echo "Slurm did not come up; see $dir/slurmctld.log and $dir/slurmd.log" >&2
exit 1
