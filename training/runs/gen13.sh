#!/usr/bin/env bash
# The thirteenth generation: the twelfth's networks as they are, with a judge for 0-ply
# rankings: the mean of the twelfth's contact network and the three contact teachers of
# gen11.sh (committed), joined as one network of 1,024 hidden units
# (docs/journal/training-journal.md, 2026-12-08). No fit, no label: a second, the file
# the same to the byte each time. Then training/runs/candidate-bench.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${GAMMON:-.venv/bin/gammon}
C=training/checkpoints
$G train --stage judge --from $C/td-expert-h256-seed3-gen12-prune.npz \
    --teachers $C/teacher-contact-gen10-seed11.npz $C/teacher-contact-gen10-seed12.npz \
    $C/teacher-contact-gen10-seed13.npz --out $C/td-expert-h256-seed3-gen13-judge.npz
