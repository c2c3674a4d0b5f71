#!/usr/bin/env bash
# The seventh generation's candidate: the sixth's contact network fitted again to every
# contact set the sixth was fitted to plus the sixth's own two pruned sets
# (label-roll144t7p-gen6-seed15, -seed16: 86,844 positions). Run with the sixth shipped.
set -euo pipefail
cd "$(dirname "$0")"
GEN7_SETS=(label-roll144t7-g1m-seed3:98 label-roll144t7-h256-seed6:60 label-roll144t7-g4m-seed8:41
    label-roll144t7-rank1td-seed9:20 label-roll144t7p-rank1td-seed10:64
    label-roll144t7p-rank1td-seed11:64 label-roll144t7p-rank2td-seed13:141
    label-roll144t7p-rank2td-seed14:111 label-roll144t7p-gen6-seed15:42
    label-roll144t7p-gen6-seed16:42)
[ "${1:-}" = --sets ] && { echo "${GEN7_SETS[@]}"; exit 0; }
exec bash generation.sh gen7 4300000 "${GEN7_SETS[@]}"
