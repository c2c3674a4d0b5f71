"""The server's own CPU per player action, without the network or the database: matches
played through :class:`gammon.server.rooms.Room` (plan, commit), each action's ``update``
built and written as JSON for the two players as the hub sends it, the moves of the player
on turn included. Process CPU time, so other work on the machine hardly changes it.

Run: ``python benchmarks/action_cost.py [--matches 40] [--repeats 5]``; prints the median
over the repeats of CPU microseconds per action and, with ``--json``, one JSON line.
Against a tree from before the views were split by viewer (``update_message`` without
``on_turn``), it builds the one update the hub then sent to both players.
"""

from __future__ import annotations

import argparse
import inspect
import json
import statistics
import sys
import time
from types import SimpleNamespace
from typing import Any

from gammon.core import actions as A
from gammon.core.match import Phase
from gammon.server.fairness import commitment
from gammon.server.rooms import Room, rules_for, rules_json
from gammon.views import MatchConfig

try:  # the server's JSON writer, where the tree has one
    from gammon.server.jsontext import dumps
except ImportError:  # pragma: no cover - older trees
    dumps = json.dumps

SEED = "cd" * 32
PER_VIEWER = "on_turn" in inspect.signature(Room.update_message).parameters


def seated_room(index: int) -> Room:
    config = MatchConfig(kind="match", length=3, clock="none")
    options: tuple[Any, ...] = () if len(inspect.signature(rules_for).parameters) == 1 \
        else (({}, {}),)  # older trees: the players' options went into the rules
    row = SimpleNamespace(
        id=f"m{index}", config=config, status="playing", player0=1, player1=2,
        server_seed=SEED, seed_hash=commitment(SEED),
        client_seed0=f"a{index}", client_seed1="b", private=False, rated=False,
        reserved_for=None, rematch_of=None, rules=rules_json(rules_for(config, *options)),
        result=None)
    return Room.from_row(row)


def player_action(room: Room) -> A.Action:
    """What the simulated player does (not timed): roll, or the first remaining play."""
    assert room.match is not None
    game = room.match.game
    if game.phase is Phase.BEFORE_ROLL:
        return game.roll_action(room.dice().source(room.dice_count))
    return A.PlayMove(game.turn, game.remaining_plays()[0].notation())


def updates(room: Room, events: list[Any], now: float) -> list[str]:
    """The texts the hub writes for the two players of ``room``."""
    if not PER_VIEWER:
        return [dumps(room.update_message(events, now))]
    texts: dict[bool, str] = {}
    for user in (1, 2):
        on_turn = room.on_turn(user)
        if on_turn not in texts:
            texts[on_turn] = dumps(room.update_message(events, now, on_turn=on_turn))
    return list(texts.values())


def run(matches: int) -> float:
    """CPU seconds per action over ``matches`` whole matches."""
    spent, actions = 0.0, 0
    for index in range(matches):
        room = seated_room(index)
        at = 1000.0
        for step in room.plan(None, at, at):
            room.commit(step)
        assert room.match is not None
        while not room.match.is_over:
            action = player_action(room)
            at += 1.0
            started = time.process_time()
            events = [e for step in room.plan(action, at, at) for e in room.commit(step)]
            updates(room, events, at)
            spent += time.process_time() - started
            actions += 1
    return spent / actions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    run(2)  # compile / warm up
    costs = [run(args.matches) for _ in range(args.repeats)]
    median = statistics.median(costs) * 1e6
    print(f"CPU per action: {median:.0f} µs (median of {args.repeats} runs of "
          f"{args.matches} matches; runs {', '.join(f'{c * 1e6:.0f}' for c in costs)})",
          file=sys.stderr)
    if args.json:
        print(json.dumps({"cpu_us_per_action": round(median, 1), "per_viewer": PER_VIEWER}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
