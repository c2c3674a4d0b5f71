#!/usr/bin/env bash
# The twelfth generation: the eleventh with its crashed network fitted to the mean of
# itself and four crashed networks from random weights (docs/journal/training-journal.md,
# 2026-12-07, evening): gen11.sh's recipe for the contact network, applied to the crashed
# one.
#   1. four crashed networks from random weights (--fresh, seeds 21-24), fitted to the
#      crashed sets of gen10-race-crashed.sh with the tenth's 11-ply crashed set (seed 23)
#      and the contact sets of gen11.sh (their crashed positions): Adam, peak step 0.003,
#      60 epochs, rank weight 2 (committed: training/checkpoints/teacher-crashed-*.npz);
#   2. labels: noisy 0-ply self-play by the eleventh, every candidate of every decision
#      that leaves a crashed position (--crashed-decisions), labelled by the mean of the
#      eleventh and the four (--teachers), brought decision by decision to the eleventh's
#      level: 60 shards of 1,000 games, about 1.2 million positions (not committed: this
#      step makes them again in minutes);
#   3. the eleventh's crashed network fitted to them and to the crashed positions of
#      gen11.sh's two cube sets, Adam, peak step 0.002, 16 epochs, rank weight 4;
#   4. its own pruning network.
# Each step is skipped when its output exists, so running it again resumes it. Then
# training/runs/candidate-bench.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${GAMMON:-.venv/bin/gammon}
TENTH=training/checkpoints/td-expert-h256-seed3-gen10-race-crashed-prune.npz
ELEVENTH=training/checkpoints/td-expert-h256-seed3-gen11-prune.npz
C=training/checkpoints
read -r -a CONTACT_SETS <<< "$(bash training/runs/gen10.sh --sets)"
SETS=(label-crashed-roll144-g1m-seed4:500 label-crashed-roll144-h256-seed5:500
      label-crashed-roll144t11p-rank1td-seed12:121 label-crashed-roll144t11p-gen9-seed21:308
      label-crashed-roll144t11p-gen10-seed23:203 "${CONTACT_SETS[@]}"
      label-roll144t11p-gen10-seed24:22 label-roll144t7p-gen10-seed27:25)
DATA=() SHARDS=()
for pair in "${SETS[@]}"; do
    DATA+=("training/data/${pair%%:*}")
    SHARDS+=("${pair##*:}")
done
TEACHERS=("$ELEVENTH")
for seed in 21 22 23 24; do
    out=$C/teacher-crashed-gen10-seed$seed.npz
    if [ ! -f "$out" ]; then
        $G train --stage fit --fresh --from "$TENTH" --data "${DATA[@]}" --shards "${SHARDS[@]}" \
            --classes crashed --out "$out.tmp.npz" --epochs 60 --alpha-start 0.003 \
            --seed $seed --rank-weight 2 --optimiser adam > training/teacher-crashed-gen10-seed$seed.log 2>&1
        mv "$out.tmp.npz" "$out"
    fi
    TEACHERS+=("$out")
done
LABELS=training/data/label-crashed-teachers5-level-gen11-seed104
$G train --stage label --from "$ELEVENTH" --teachers "${TEACHERS[@]}" --crashed-decisions \
    --out $LABELS --shards 60 --games 1000 --seed 104 --noise 0.05 >> $LABELS.log 2>&1
CUBE_SETS="training/data/label-cube-roll144t7p-gen6-seed16 training/data/label-cube-2ply-gen6-seed17"
OUT=$C/td-expert-h256-seed3-gen12
LOG=training/td-expert-h256-seed3-gen12
if [ ! -f $OUT.npz ]; then
    $G train --stage fit --from "$ELEVENTH" --data $LABELS $CUBE_SETS --classes crashed \
        --out $OUT.tmp.npz --epochs 16 --alpha-start 0.002 --seed 1 --rank-weight 4 \
        --optimiser adam > $LOG.log 2>&1
    mv $OUT.tmp.npz $OUT.npz
fi
if [ ! -f $OUT-prune.npz ]; then
    $G train --stage prune --from $OUT.npz --out $OUT-prune.npz --games 1000 \
        --prune-hidden 32 --epochs 8 --alpha-start 0.05 --seed 1 > $LOG-prune.log 2>&1
fi
echo "candidate: $OUT-prune.npz"
