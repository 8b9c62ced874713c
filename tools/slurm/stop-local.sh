#!/bin/sh
# Stops the Slurm that start-local.sh started in DIR.
set -u
dir=$(realpath -m "${1:?usage: stop-local.sh DIR}")
for daemon in slurmd slurmctld; do
  if [ -f "$dir/$daemon.pid" ]; then
    kill "$(cat "$dir/$daemon.pid")" 2>/dev/null
  fi
done
