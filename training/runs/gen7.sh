#!/usr/bin/env bash
# The seventh generation's candidate: the sixth's contact network fitted again (rank weight 2)
# to every contact set the sixth was fitted to plus the sixth's own two pruned sets
# (label-roll144t7p-gen6-seed15, -seed16: 86,844 positions), then 100,000 TD games and its
# own pruning network: the recipe of docs/training.md, one generation on. Each step is
# skipped when its output exists, so running the script again resumes it (the TD step
# resumes from its checkpoint file).
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${GAMMON:-.venv/bin/gammon}
PY=${PYTHON:-.venv/bin/python}
D=training/data
C=training/checkpoints
SHIPPED=src/gammon/engine/weights/gammon.npz
OUT=$C/td-expert-h256-seed3-gen7
if [ ! -f $OUT.npz ]; then
    $G train --stage fit --from $SHIPPED \
        --data $D/label-roll144t7-g1m-seed3 $D/label-roll144t7-h256-seed6 $D/label-roll144t7-g4m-seed8 \
        $D/label-roll144t7-rank1td-seed9 $D/label-roll144t7p-rank1td-seed10 \
        $D/label-roll144t7p-rank1td-seed11 $D/label-roll144t7p-rank2td-seed13 \
        $D/label-roll144t7p-rank2td-seed14 $D/label-roll144t7p-gen6-seed15 \
        $D/label-roll144t7p-gen6-seed16 --shards 98 60 41 20 64 64 141 111 42 42 \
        --classes contact --out $OUT.npz.tmp.npz --epochs 20 --alpha-start 0.03 --seed 1 \
        --rank-weight 2 > training/td-expert-h256-seed3-gen7.log 2>&1
    mv $OUT.npz.tmp.npz $OUT.npz
fi
if [ ! -f $OUT-td100k.npz ]; then
    $PY -c "from gammon.engine.network import NetworkPair; NetworkPair.load('$OUT.npz').save('$OUT-td100k.npz', games_done=4_300_000, seed=3, alpha_start=0.002, alpha_end=0.002, games=4_400_000, chunk=500)"
fi
$G train --features expert --out $OUT-td100k.npz --games 4400000 --seed 3 \
    --alpha-start 0.002 --alpha-end 0.002 --contact-hidden 256 --crashed-hidden 64 \
    --race-hidden 64 --checkpoint-every 10000 --benchmark-every 0 >> training/td-expert-h256-seed3-gen7-td100k.log 2>&1
if [ ! -f $OUT-td100k-prune.npz ]; then
    $G train --stage prune --from $OUT-td100k.npz --out $OUT-td100k-prune.npz --games 1000 \
        --prune-hidden 32 --epochs 8 --alpha-start 0.05 --seed 1 > training/td-expert-h256-seed3-gen7-td100k-prune.log 2>&1
fi
echo "gen7 candidate: $OUT-td100k-prune.npz"
