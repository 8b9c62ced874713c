#!/bin/sh
# Builds the endgame databases on Slurm: one job array a wave of
# `morris gen-db --plan`, one task a pair or placing sector, each wave
# after the one before (docs/ENDGAME.md). Usage:
#   gen-db-waves.sh MORRIS OUT LOGS [the plan's options, e.g. --variant twelve --max-stones 5]
# MORRIS is the engine binary and OUT the shared folder, both seen alike by
# every node; LOGS gets a log a task.
set -eu
morris=$(realpath "$1")
out=$(realpath -m "$2")
logs=$(realpath -m "$3")
shift 3
here=$(dirname "$(realpath "$0")")
mkdir -p "$out" "$logs"
plan=$("$morris" gen-db --plan "$@")
for wave in $(echo "$plan" | awk '!/^#/ { print $1 }' | uniq); do
  count=$(echo "$plan" | awk -v w="$wave" '$1 == w' | wc -l)
  WAVE=$wave MORRIS=$morris OUT=$out PLAN_ARGS="$*" sbatch --wait --quiet \
    --export=ALL --array=1-"$count" --cpus-per-task=1 \
    --output="$logs/wave$wave-%a.log" "$here/pair.sh"
done
# The variant's files set aside for the placing sectors built from them
# are no longer needed (docs/ENDGAME.md); another variant's may be.
variant=nine
previous=
for arg in "$@"; do
  case "$previous $arg" in
    "--variant "*) variant=$arg ;;
    *" --variant="*) variant=${arg#--variant=} ;;
  esac
  previous=$arg
done
case "$variant" in [Mm]orabaraba) variant=twelve ;; esac
rm -f "$out/intermediate/$(echo "$variant" | tr '[:upper:]' '[:lower:]')-"*
rmdir "$out/intermediate" 2>/dev/null || true
