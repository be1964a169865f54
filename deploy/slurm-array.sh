#!/usr/bin/env bash
# Run one cbandit experiment as a Slurm array job: one array task per shard,
# then one dependent job that merges the shards. The merged output is
# identical to the unsharded run's (timings aside): trial i meets the same
# instance and noise whichever task runs it.
#
#   SHARDS=8 OUT=$SCRATCH/ckb deploy/slurm-array.sh run --config experiments/ckb/synthetic.yaml
#
# submits tasks 0..7 (each: cbandit run ... --shard i/8 --out $OUT/shard-i) and
# a merge job (cbandit merge --out $OUT/merged $OUT/shard-*) that starts when
# all of them succeeded. Without Slurm, LOCAL=1 runs the shards one after the
# other on this machine and then merges (CI runs it that way).
#
# Environment: SHARDS (number of shards), OUT (a directory every node sees),
# CBANDIT (the cbandit binary; default: cbandit on PATH), LOCAL (non-empty:
# no Slurm). Adjust the #SBATCH lines to your cluster.
#SBATCH --job-name=cbandit
#SBATCH --cpus-per-task=2
#SBATCH --time=02:00:00
#SBATCH --output=cbandit-%A_%a.log
set -euo pipefail
: "${SHARDS:?set SHARDS, the number of shards}"
: "${OUT:?set OUT, a directory every node can write}"
CBANDIT=${CBANDIT:-cbandit}
role=${1:-}
[ $# -gt 0 ] && shift
case "$role" in
run)
  if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    # One array task: one shard.
    exec $CBANDIT run "$@" --shard "$SLURM_ARRAY_TASK_ID/$SHARDS" --quiet --out "$OUT/shard-$SLURM_ARRAY_TASK_ID"
  fi
  mkdir -p "$OUT"
  if [ -n "${LOCAL:-}" ]; then
    for ((i = 0; i < SHARDS; i++)); do
      $CBANDIT run "$@" --shard "$i/$SHARDS" --quiet --out "$OUT/shard-$i"
    done
    exec "$0" merge
  fi
  jid=$(sbatch --parsable --array="0-$((SHARDS - 1))" --export=ALL,SHARDS,OUT,CBANDIT "$0" run "$@")
  sbatch --dependency="afterok:$jid" --export=ALL,SHARDS,OUT,CBANDIT "$0" merge
  echo "submitted array job $jid ($SHARDS shards) and its merge into $OUT/merged"
  ;;
merge)
  shards=()
  for ((i = 0; i < SHARDS; i++)); do shards+=("$OUT/shard-$i"); done
  exec $CBANDIT merge --out "$OUT/merged" "${shards[@]}"
  ;;
*)
  echo "usage: SHARDS=n OUT=DIR $0 run <cbandit run flags, without --shard and --out>" >&2
  exit 2
  ;;
esac
