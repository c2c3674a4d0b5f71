#!/usr/bin/env bash
# The eleventh generation: the tenth's contact network fitted to the mean of several
# networks (docs/journal/training-journal.md, 2026-12-07, afternoon). Contact networks
# fitted from random weights to the same rollout labels err differently from each other
# and from the tenth; the mean of their probabilities chooses better than any one of them
# (positions-v2 graded by GNU 2-ply: contact 3.5 mpt against the tenth's 4.2), and one
# network of the tenth's size, fitted to that mean on millions of positions, keeps part of
# the gain.
#   1. three contact networks from random weights (--fresh, seeds 11-13) fitted to the
#      contact label sets (gen10.sh's, the tenth's 11-ply and 7-ply sets): Adam, peak step
#      0.003, 60 epochs, rank weight 2 (committed: training/checkpoints/teacher-*.npz);
#   2. labels: noisy 0-ply self-play by the tenth, every candidate of every decision that
#      leaves a contact position, labelled by the mean of the tenth and the three
#      (--teachers), brought decision by decision to the tenth's level: 40 shards of 100
#      games, about 2.9 million positions (not committed: this step makes them again in a
#      few minutes);
#   3. the tenth's contact network fitted to them and to the cube positions of
#      label-cube-roll144t7p-gen6-seed16 and label-cube-2ply-gen6-seed17 (81,727 positions
#      where a double is close, rolled out or searched: they hold its level there), Adam,
#      peak step 0.002, 16 epochs, rank weight 4;
#   4. its own pruning network.
# Each step is skipped when its output exists, so running it again resumes it. Then
# training/runs/candidate-bench.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${GAMMON:-.venv/bin/gammon}
TENTH=training/checkpoints/td-expert-h256-seed3-gen10-race-crashed-prune.npz
C=training/checkpoints
read -r -a CONTACT_SETS <<< "$(bash training/runs/gen10.sh --sets)"
CONTACT_SETS+=(label-roll144t11p-gen10-seed24:22 label-roll144t7p-gen10-seed27:25)
DATA=() SHARDS=()
for pair in "${CONTACT_SETS[@]}"; do
    DATA+=("training/data/${pair%%:*}")
    SHARDS+=("${pair##*:}")
done
TEACHERS=("$TENTH")
for seed in 11 12 13; do
    out=$C/teacher-contact-gen10-seed$seed.npz
    if [ ! -f "$out" ]; then
        $G train --stage fit --fresh --from "$TENTH" --data "${DATA[@]}" --shards "${SHARDS[@]}" \
            --classes contact --out "$out.tmp.npz" --epochs 60 --alpha-start 0.003 \
            --seed $seed --rank-weight 2 --optimiser adam > training/teacher-contact-gen10-seed$seed.log 2>&1
        mv "$out.tmp.npz" "$out"
    fi
    TEACHERS+=("$out")
done
LABELS=training/data/label-teachers4-level-gen10-seed102
$G train --stage label --from "$TENTH" --teachers "${TEACHERS[@]}" --out $LABELS --shards 40 \
    --games 100 --seed 102 --noise 0.05 >> $LABELS.log 2>&1
# the cube positions rolled out and searched (absolute labels): without them the fit learns
# the teachers' differences and drifts in level where doubles are decided (its 2-ply cube
# lost +1.5 mEMG a decision more than the tenth's against GNU 2-ply)
CUBE_SETS="training/data/label-cube-roll144t7p-gen6-seed16 training/data/label-cube-2ply-gen6-seed17"
OUT=$C/td-expert-h256-seed3-gen11
LOG=training/td-expert-h256-seed3-gen11
if [ ! -f $OUT.npz ]; then
    $G train --stage fit --from "$TENTH" --data $LABELS $CUBE_SETS --classes contact --out $OUT.tmp.npz \
        --epochs 16 --alpha-start 0.002 --seed 1 --rank-weight 4 --optimiser adam > $LOG.log 2>&1
    mv $OUT.tmp.npz $OUT.npz
fi
if [ ! -f $OUT-prune.npz ]; then
    $G train --stage prune --from $OUT.npz --out $OUT-prune.npz --games 1000 \
        --prune-hidden 32 --epochs 8 --alpha-start 0.05 --seed 1 > $LOG-prune.log 2>&1
fi
echo "candidate: $OUT-prune.npz"
