#!/usr/bin/env bash
# The ninth generation (shipped 2026-12-06, 701daaf72a9a): the eighth's contact network
# fitted again to the eighth's sets plus the eighth's own pruned set
# (label-roll144t7p-gen8-seed19: 121,507 positions where 1-ply disagrees with 0-ply). Run
# with the eighth shipped; training/runs/candidate-bench.sh then measured it against the
# eighth (training/gen9-bench.log).
set -euo pipefail
cd "$(dirname "$0")"
read -r -a SETS <<< "$(bash gen8.sh --sets)"
SETS+=(label-roll144t7p-gen8-seed19:114)
[ "${1:-}" = --sets ] && { echo "${SETS[@]}"; exit 0; }
exec bash generation.sh gen9 4500000 "${SETS[@]}"
