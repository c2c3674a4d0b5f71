#!/usr/bin/env bash
# A candidate from the ninth generation with only its crashed network fitted again: the
# three crashed label sets and the crashed positions of the contact sets (gen10.sh's), SGD
# at 0.02 for 12 epochs, rank weight 2; then its own pruning network. A sweep of the fit's
# step size on 2026-12-06 (docs/journal/training-journal.md) found the contact fits
# saturated and this one the only lead: GNU Backgammon 2-ply's grade of the crashed
# decisions of positions-v2 -3.7 [-7.4, -0.5] mpt, paired with the ninth. No TD games after
# the fit: they would move every network again. Then training/runs/candidate-bench.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${GAMMON:-.venv/bin/gammon}
read -r -a SETS <<< "$(bash training/runs/gen10.sh --sets)"
SETS=(label-crashed-roll144-g1m-seed4:500 label-crashed-roll144-h256-seed5:500
      label-crashed-roll144t11p-rank1td-seed12:121 "${SETS[@]}")
DATA=()
SHARDS=()
for pair in "${SETS[@]}"; do
    DATA+=("training/data/${pair%%:*}")
    SHARDS+=("${pair##*:}")
done
OUT=training/checkpoints/td-expert-h256-seed3-gen10-crashed
LOG=training/td-expert-h256-seed3-gen10-crashed
if [ ! -f $OUT.npz ]; then
    $G train --stage fit --from src/gammon/engine/weights/gammon.npz --data "${DATA[@]}" \
        --shards "${SHARDS[@]}" --classes crashed --out $OUT.npz.tmp.npz --epochs 12 \
        --alpha-start 0.02 --seed 1 --rank-weight 2 > $LOG.log 2>&1
    mv $OUT.npz.tmp.npz $OUT.npz
fi
if [ ! -f $OUT-prune.npz ]; then
    $G train --stage prune --from $OUT.npz --out $OUT-prune.npz --games 1000 \
        --prune-hidden 32 --epochs 8 --alpha-start 0.05 --seed 1 > $LOG-prune.log 2>&1
fi
echo "candidate: $OUT-prune.npz"
