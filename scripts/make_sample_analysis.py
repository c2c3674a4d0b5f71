"""Make the sample analysis report in docs/: a bot-vs-bot 5-point match, analysed.

Two bots play a 5-point match with the cube (a casual player against an expert, so
the report has errors to show), the match is saved as a `.mat` file, and `gammon analyze`'s
analysis of it is written as HTML and text:

    python scripts/make_sample_analysis.py [--seed 7] [--ply 1]

Output: docs/sample-match.mat, docs/sample-analysis.html, docs/sample-analysis.txt.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from gammon.core.actions import Action
from gammon.core.game import Rules
from gammon.engine.analysis import analyse_actions
from gammon.engine.matchbot import MatchBot, play_match
from gammon.engine.player import Engine
from gammon.formats import mat
from gammon.formats.matchfile import MatchRecord

DOCS = Path(__file__).resolve().parents[1] / "docs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--ply", type=int, default=1)
    args = parser.parse_args()

    engine = Engine.load()
    rules = Rules(length=5)
    bots = (MatchBot(engine, "casual", rng=random.Random(args.seed)),
            MatchBot(engine, "expert", rng=random.Random(args.seed + 1)))
    actions: list[Action] = []
    match = play_match(bots, rules, random.Random(args.seed), record=actions)
    names = ("Casual bot", "Expert bot")
    record = MatchRecord.from_match_actions(actions, rules=rules, players=names)
    mat.dump(record, DOCS / "sample-match.mat")
    analysis = analyse_actions(record.actions(), record.rules, names=names, plies=args.ply,
                               start=record.new_match(),
                               progress=lambda g: print(f"analysing game {g} ...", flush=True))
    (DOCS / "sample-analysis.html").write_text(analysis.to_html())
    (DOCS / "sample-analysis.txt").write_text(analysis.to_text() + "\n")
    print(f"final score {match.score[0]}-{match.score[1]}; wrote docs/sample-match.mat, "
          "docs/sample-analysis.html, docs/sample-analysis.txt")


if __name__ == "__main__":
    main()
