#!/usr/bin/env bash
# A candidate from the ninth generation with its race and crashed networks fitted again and
# its contact network as it is (docs/journal/training-journal.md, 2026-12-07): GNU
# Backgammon 0-ply's own choices, graded by its 2-ply on positions-v2, leave 40% of our
# gap to it in crashed positions (6.5% of the decisions) and a tenth in races; the race
# network was never fitted, the crashed one last by the sixth generation.
#   1. the race network: Adam (peak step 0.001, 24 epochs, rank weight 2) on the race
#      positions of gen10.sh's sets, label-race-roll144-h256-seed7 and the ninth's 2-ply
#      race decisions label-race-2ply-gen9-seed22;
#   2. the crashed network, started from a copy of the contact network (256 hidden units:
#      the ninth's crashed network, 64 units, is no better at crashed positions than its
#      contact network), fitted the same way (40 epochs) on the crashed sets, the ninth's crashed
#      decisions label-crashed-roll144t11p-gen9-seed21 and the crashed positions of
#      gen10.sh's sets;
#   3. its own pruning network.
# No TD games after the fits: they would move the contact network too. Each step is skipped
# when its output exists. Then training/runs/candidate-bench.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${GAMMON:-.venv/bin/gammon}
read -r -a CONTACT_SETS <<< "$(bash training/runs/gen10.sh --sets)"
RACE_SETS=(label-race-roll144-h256-seed7:158 label-race-2ply-gen9-seed22:70 "${CONTACT_SETS[@]}")
CRASHED_SETS=(label-crashed-roll144-g1m-seed4:500 label-crashed-roll144-h256-seed5:500
              label-crashed-roll144t11p-rank1td-seed12:121
              label-crashed-roll144t11p-gen9-seed21:308 "${CONTACT_SETS[@]}")
OUT=training/checkpoints/td-expert-h256-seed3-gen10-race-crashed
LOG=training/td-expert-h256-seed3-gen10-race-crashed

fit() {  # fit CLASS EPOCHS FROM OUT LOG SET:SHARDS...
    local class=$1 epochs=$2 from=$3 out=$4 log=$5
    shift 5
    local data=() shards=()
    for pair in "$@"; do
        data+=("training/data/${pair%%:*}")
        shards+=("${pair##*:}")
    done
    if [ ! -f "$out" ]; then
        $G train --stage fit --from "$from" --data "${data[@]}" --shards "${shards[@]}" \
            --classes "$class" --out "$out.tmp.npz" --epochs "$epochs" --alpha-start 0.001 --seed 1 \
            --rank-weight 2 --optimiser adam > "$log" 2>&1
        mv "$out.tmp.npz" "$out"
    fi
}

fit race 24 src/gammon/engine/weights/gammon.npz $OUT-race.npz $LOG-race.log "${RACE_SETS[@]}"
if [ ! -f $OUT-race-wide.npz ]; then
    ${PYTHON:-.venv/bin/python} -c "from gammon.engine.network import NetworkPair
nets = NetworkPair.load('$OUT-race.npz'); nets.crashed = nets.contact.copy()
nets.save('$OUT-race-wide.npz')"
fi
fit crashed 40 $OUT-race-wide.npz $OUT.npz $LOG.log "${CRASHED_SETS[@]}"
if [ ! -f $OUT-prune.npz ]; then
    $G train --stage prune --from $OUT.npz --out $OUT-prune.npz --games 1000 \
        --prune-hidden 32 --epochs 8 --alpha-start 0.05 --seed 1 > $LOG-prune.log 2>&1
fi
echo "candidate: $OUT-prune.npz"
