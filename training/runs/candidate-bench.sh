#!/usr/bin/env bash
# The benchmarks every candidate must improve (docs/training.md): a candidate paired against
# the shipped networks on the same decisions or dice. Every benchmark resumes from its saved
# results, so running the script again continues it.
#
#   bash training/runs/candidate-bench.sh CANDIDATE.npz [SHIPPED_MONEY_RESULTS]
#
# SHIPPED_MONEY_RESULTS: the shipped networks' gnubg_money results file, to pair the
# candidate's money games against GNU Backgammon with (the same dice).
set -euo pipefail
cd "$(dirname "$0")/../.."
G=${GAMMON:-.venv/bin/gammon}
W=$1
MONEY_BASELINE=${2:-benchmarks/results/gnubg-money-nocube-expert-vs-gnubg0ply-seed1-w8a7967eea36b.txt}
B=src/gammon/engine/weights/gammon.npz
$G bench reference --gnubg-ply 2 --context "" --ply 0 --weights $W --baseline $B
$G bench reference --gnubg-ply 2 --context "" --ply 1 --weights $W --baseline $B
$G bench strength --opponent pubeval --games 100000 --seed 2026 --jobs 1 --weights $W --baseline $B
$G bench strength --opponent 0ply --weights $W --opponent-weights $B --games 100000 --seed 99 --jobs 1
$G bench cube_vs_gnubg --lengths 3,5,7,9,11 --matches 12 --seed 1 --ply 0 --weights $W
$G bench reference --gnubg-ply 2 --context "" --ply 2 --positions 1000 --weights $W --baseline $B
$G bench cube_vs_gnubg --lengths 3,5,7,9,11 --matches 12 --seed 1 --ply 2 --weights $W
$G bench gnubg_money --games ${MONEY_GAMES:-4000} --seed 1 --jobs 1 --weights $W \
    --baseline $MONEY_BASELINE
