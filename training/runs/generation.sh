#!/usr/bin/env bash
# One generation of the recipe in docs/training.md: the shipped contact network fitted
# again (rank weight 2) to the contact label sets named, then 100,000 TD games at 0.002 and
# its own pruning network. Each step is skipped when its output exists, so running the same
# command again resumes it (the TD step resumes from its checkpoint file).
#
#   bash training/runs/generation.sh NAME TD_GAMES_BEFORE SET:SHARDS...
#
# NAME names the checkpoints (training/checkpoints/td-expert-h256-seed3-NAME*.npz) and their
# logs; TD_GAMES_BEFORE is the TD game count the shipped network stands at (the TD dice
# go on from there, new for each generation); each SET:SHARDS is a label set of
# training/data and how many of its shards to fit.
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${GAMMON:-.venv/bin/gammon}
PY=${PYTHON:-.venv/bin/python}
NAME=$1
BEFORE=$2
shift 2
SETS=()
SHARDS=()
for pair in "$@"; do
    SETS+=("training/data/${pair%%:*}")
    SHARDS+=("${pair##*:}")
done
C=training/checkpoints
SHIPPED=src/gammon/engine/weights/gammon.npz
OUT=$C/td-expert-h256-seed3-$NAME
LOG=training/td-expert-h256-seed3-$NAME
AFTER=$((BEFORE + 100000))
if [ ! -f $OUT.npz ]; then
    $G train --stage fit --from $SHIPPED --data "${SETS[@]}" --shards "${SHARDS[@]}" \
        --classes contact --out $OUT.npz.tmp.npz --epochs 20 --alpha-start 0.03 --seed 1 \
        --rank-weight 2 > $LOG.log 2>&1
    mv $OUT.npz.tmp.npz $OUT.npz
fi
if [ ! -f $OUT-td100k.npz ]; then
    $PY -c "from gammon.engine.network import NetworkPair; NetworkPair.load('$OUT.npz').save('$OUT-td100k.npz', games_done=$BEFORE, seed=3, alpha_start=0.002, alpha_end=0.002, games=$AFTER, chunk=500)"
fi
$G train --features expert --out $OUT-td100k.npz --games $AFTER --seed 3 \
    --alpha-start 0.002 --alpha-end 0.002 --contact-hidden 256 --crashed-hidden 64 \
    --race-hidden 64 --checkpoint-every 10000 --benchmark-every 0 >> $LOG-td100k.log 2>&1
if [ ! -f $OUT-td100k-prune.npz ]; then
    $G train --stage prune --from $OUT-td100k.npz --out $OUT-td100k-prune.npz --games 1000 \
        --prune-hidden 32 --epochs 8 --alpha-start 0.05 --seed 1 > $LOG-td100k-prune.log 2>&1
fi
echo "$NAME candidate: $OUT-td100k-prune.npz"
