"""``gammon cube``: the cube decision for a position and a GNU Backgammon Match ID.

``gammon cube POSITION_ID MATCH_ID [--ply N] [--json]`` answers for whoever must decide:

* the side on roll before it rolls (the Match ID's dice owner, dice not rolled): its cube
  action, ``no-double``, ``double-take``, ``double-pass``, ``too-good-take`` or
  ``too-good-pass``, with the equities of no double, double/take and double/pass (and
  double/beaver where ``--beavers`` is on in money play) from its point of view, normalised
  to the present cube, and in a match the same as match winning chances;
* with a double pending, the receiver: ``take``, ``pass`` or ``beaver``, with its equities,
  normalised to the cube before the double (pass is -1);
* with a resignation pending, the receiver: ``accept`` or ``reject``.

The Position ID is the dice owner's view (the doubler's, the resigner's), as GNU Backgammon
writes it. Without arguments it reads ``POSITION_ID MATCH_ID`` lines from standard input and
answers each with one JSON object, flushed per line; a bad line gets ``{"error": ...}``.

:func:`cube_hint_lines` gives the same answer to other commands (``gammon hint
--match-id`` before the dice are rolled); the JSON is :func:`gammon.views.cube_view`, the
shape ``POST /api/eval`` gives too. The engine is imported only when an answer is
computed.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

from gammon.cli.main import UsageError, answer_lines
from gammon.core.position import Position
from gammon.formats.match_id import GameState, MatchKey, Resignation
from gammon.views import analyse_match_key, cube_view, outcomes_view

if TYPE_CHECKING:
    from gammon.engine.cube import (
        CubeDecision,
        Outcomes,
        ResignDecision,
        TakeDecision,
    )
    from gammon.engine.player import Engine

MAX_PLY = 2
"""The deepest evaluation (``gammon.engine.search.MAX_PLY``, kept equal by a test)."""


def add_cube_commands(subparsers: Any) -> None:
    """Add ``cube`` to the ``gammon`` command's subparsers."""
    cube = subparsers.add_parser(
        "cube", help="cube decision (or take/pass, or resignation answer) from a Match ID",
        description="The cube decision of the side on roll before it rolls, or the answer to "
                    "a pending double or resignation, from a Position ID and a GNU Backgammon "
                    "Match ID (score, cube, turn). Without arguments, reads 'POSITION_ID "
                    "MATCH_ID' lines from standard input and answers each with a JSON object.")
    cube.add_argument("position_id", metavar="POSITION_ID", nargs="?",
                      help="the dice owner's view; omit to read lines from standard input")
    cube.add_argument("match_id", metavar="MATCH_ID", nargs="?")
    cube.add_argument("--ply", type=int, default=0,
                      help=f"evaluation depth before the cube conversion, 0 to {MAX_PLY} "
                           f"(default 0)")
    cube.add_argument("--json", action="store_true", help="print one JSON object")
    cube.add_argument("--beavers", action="store_true",
                      help="money play: beavers are allowed (not part of a Match ID)")
    cube.add_argument("--weights", metavar="PATH", default=None,
                      help="a weights file (.npz) instead of the shipped networks")
    cube.set_defaults(handler=cmd_cube)


def cmd_cube(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    if not 0 <= args.ply <= MAX_PLY:
        raise UsageError(f"--ply is 0 to {MAX_PLY}, got {args.ply}")
    if args.position_id is not None and args.match_id is None:
        raise UsageError("cube needs a MATCH_ID after the Position ID, e.g. "
                         "'gammon cube 4HPwATDgc/ABMA cAkAAAAAAAAA'")
    from gammon.engine.player import Engine

    engine = Engine.load(args.weights)
    if args.position_id is None:
        return _batch(engine, stdin, out, plies=args.ply, beavers=args.beavers)
    position, key = parse_ids(args.position_id, args.match_id)
    if args.json:
        out.write(json.dumps(cube_view(engine, position, key, plies=args.ply,
                                       beavers=args.beavers)) + "\n")
    else:
        out.writelines(line + "\n" for line in cube_hint_lines(
            engine, position, key, plies=args.ply, beavers=args.beavers))
    return 0


def _batch(engine: Engine, stdin: TextIO, out: TextIO, *, plies: int, beavers: bool) -> int:
    """One JSON object per non-blank line; a failing line gets ``{"error": ...}``."""

    def answer(fields: list[str]) -> object:
        position, key = parse_ids(fields[0], fields[1])
        return cube_view(engine, position, key, plies=plies, beavers=beavers)

    return answer_lines(stdin, out, answer, usage="POSITION_ID MATCH_ID", fields=2)


# -- reading the IDs ---------------------------------------------------------------------------


def parse_ids(position_id: str, match_id: str) -> tuple[Position, MatchKey]:
    """The position and match key, refusing states with no decision to make: no game in
    play, the game over on the board, or dice rolled with nothing pending."""
    position = Position.from_id(position_id)
    key = MatchKey.from_id(match_id)
    if key.game_state != GameState.PLAYING:
        raise UsageError(f"no game in play in Match ID {key.id()} "
                         f"(game state: {key.game_state.name.lower()})")
    if position.winner() is not None:
        raise UsageError(f"the game is over in {position.id()}: a side has borne off all 15 "
                         f"checkers")
    if key.double_offered and key.resignation != Resignation.NONE:
        raise UsageError(f"Match ID {key.id()} has both a double and a resignation pending")
    if key.dice is not None and not key.double_offered and key.resignation == Resignation.NONE:
        raise UsageError(f"the dice are rolled ({key.dice[0]}-{key.dice[1]}) in Match ID "
                         f"{key.id()}: cube decisions come before the roll")
    return position, key


# -- text ----------------------------------------------------------------------------------------


def _mwc(value: float | None) -> str:
    return "" if value is None else f"  (MWC {100 * value:6.2f}%)"


def _cubeless(p: Outcomes, *, swap: bool = False) -> str:
    named = outcomes_view(p, swap=swap)
    return (f"Cubeless: win {named['win']:.3f} (g {named['win_gammon']:.3f}, "
            f"bg {named['win_backgammon']:.3f})  lose {1 - (named['win'] or 0.0):.3f} "
            f"(g {named['lose_gammon']:.3f}, bg {named['lose_backgammon']:.3f})  "
            f"equity {named['equity']:+.3f}")


def cube_hint_lines(engine: Engine, position: Position, key: MatchKey, *, plies: int = 0,
                    beavers: bool = False) -> list[str]:
    """The text ``gammon cube`` prints; for ``gammon hint --match-id`` when the dice are not
    rolled (an empty list when they are and nothing is pending)."""
    if key.dice is not None and not key.double_offered and key.resignation == Resignation.NONE:
        return []
    kind, result = analyse_match_key(engine, position, key, plies=plies, beavers=beavers)
    doubler = key.dice_owner
    if kind == "cube":
        d: CubeDecision = result
        how = (f"{plies}-ply" if not d.exact
               else "exact (the two-sided bear-off database)")
        lines = [f"Cube decision for player {doubler} (on roll), {how}, {d.info.describe()}"
                 + ("" if d.exact else f", cube efficiency {d.efficiency:.3f}"),
                 _cubeless(d.probabilities)]
        rows: list[tuple[str, float | None, float | None]] = [
            ("No double", d.no_double, d.mwc_no_double)]
        if d.double_take is not None:
            rows.append(("Double, take", d.double_take, d.mwc_double_take))
            rows.append(("Double, pass", d.double_pass, d.mwc_double_pass))
            if d.double_beaver is not None:
                rows.append(("Double, beaver", d.double_beaver, None))
        best = d.equity
        for name, value, mwc in rows:
            assert value is not None
            diff = "" if value == best else f"  ({value - best:+.3f})"
            lines.append(f"  {name:<15}{value:+.3f}{_mwc(mwc)}{diff}")
        lines.append(f"Proper cube action: {d.action}"
                     + (f" (if doubled: {d.response})" if d.response is not None
                        and not d.action.doubles else "")
                     + (f" — {d.reason}" if d.reason else ""))
        return lines
    if kind == "take":
        t: TakeDecision = result
        how = (f"{plies}-ply" if not t.doubler.exact
               else "exact (the two-sided bear-off database)")
        lines = [f"Take decision for player {1 - doubler} (doubled to {2 * key.cube}), "
                 f"{how}, {t.doubler.info.swap().describe()}",
                 _cubeless(t.doubler.probabilities, swap=True),
                 f"  {'Take':<15}{t.take:+.3f}{_mwc(t.mwc_take)}",
                 f"  {'Pass':<15}{t.pass_:+.3f}{_mwc(t.mwc_pass)}"]
        if t.beaver is not None:
            lines.append(f"  {'Beaver':<15}{t.beaver:+.3f}")
        lines.append(f"Proper answer: {t.response}")
        return lines
    r: ResignDecision = result
    d = r.decision
    return [f"Resignation of a {r.level} offered to player {1 - doubler}, {plies}-ply, "
            f"{(d.info if r.receiver_on_roll else d.info.swap()).describe()}",
            _cubeless(d.probabilities, swap=not r.receiver_on_roll),
            f"  {'Accept':<15}{r.accept_equity:+.3f}",
            f"  {'Play on':<15}{r.play_on_equity:+.3f}",
            f"Proper answer: {'accept' if r.accept else 'reject'}"]
