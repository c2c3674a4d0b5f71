#!/usr/bin/env bash
# The eighth generation's candidate: the seventh's contact network fitted again to the
# seventh's sets plus the sixth's third pruned set (label-roll144t7p-gen6-seed18: 91,827
# positions where 1-ply disagrees with 0-ply). Run with the seventh shipped.
set -euo pipefail
cd "$(dirname "$0")"
read -r -a SETS <<< "$(bash gen7.sh --sets)"
SETS+=(label-roll144t7p-gen6-seed18:89)
[ "${1:-}" = --sets ] && { echo "${SETS[@]}"; exit 0; }
exec bash generation.sh gen8 4400000 "${SETS[@]}"
