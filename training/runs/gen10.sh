#!/usr/bin/env bash
# The tenth generation's candidate (not yet run): the ninth's contact network fitted again
# to the ninth's sets plus the ninth's own pruned set (label-roll144t7p-gen9-seed20: 54,740
# positions where 1-ply disagrees with 0-ply, labelled 2026-12-06; 51 shards, stopped at the
# session's end: label more into a new set, seed 21, before fitting if time allows). Run
# with the ninth shipped; then training/runs/candidate-bench.sh the candidate and the
# ninth's gnubg_money results.
set -euo pipefail
cd "$(dirname "$0")"
read -r -a SETS <<< "$(bash gen9.sh --sets)"
SETS+=(label-roll144t7p-gen9-seed20:51)
[ "${1:-}" = --sets ] && { echo "${SETS[@]}"; exit 0; }
exec bash generation.sh gen10 4600000 "${SETS[@]}"
