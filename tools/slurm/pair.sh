#!/bin/sh
# One task of a wave's job array (gen-db-waves.sh): the pair or placing
# sector on line $SLURM_ARRAY_TASK_ID (from 1) of wave $WAVE of the plan
# for $PLAN_ARGS.
set -eu
# $PLAN_ARGS is a list of options, split on purpose.
# shellcheck disable=SC2086
pair=$("$MORRIS" gen-db --plan $PLAN_ARGS | awk -v w="$WAVE" -v i="$SLURM_ARRAY_TASK_ID" '$1 == w && ++n == i { print $2 }')
# shellcheck disable=SC2086
exec "$MORRIS" gen-db --out "$OUT" --sector "$pair" $PLAN_ARGS
