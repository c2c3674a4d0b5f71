"""Move notation in the GNU Backgammon style: ``24/18 13/11*``, ``bar/22``, ``6/off``,
``13/11(2)``, ``24/21*/16``.

Formatting is canonical, whatever order the moves come in: moves of one checker are joined
into one segment (an intermediate point is written only when the checker hit there), equal
segments are counted with ``(n)``, and segments are listed from the highest source point
down. Parsing is tolerant:
any order, any spacing, ``25`` or ``bar`` for the bar, ``0`` or ``off`` for off, ``-`` as well
as ``/``, hit marks optional. A parsed play is resolved against the legal plays, so what it
returns is always legal.

>>> from gammon.core.position import Position
>>> from gammon.core.dice import Roll
>>> str(parse_play(Position.initial(), Roll(6, 4), '24-14'))
'24/14'
>>> str(parse_play(Position.initial(), Roll(1, 1), '6/5(2) 8/7 8-7'))
'8/7(2) 6/5(2)'
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from gammon.core.dice import Roll
from gammon.core.moves import IllegalPlayError, Move, Play, _boards_of, _legal_plays_and_boards
from gammon.core.position import BAR, Position


class NotationError(ValueError):
    """Text that is not move notation."""


def _chains(moves: Sequence[Move]) -> list[tuple[list[int], list[bool]]]:
    """Join moves of one checker: a move starting where an earlier one ended continues it.
    The moves are taken highest source first (as GNU Backgammon does; of two equal moves
    the one that did not hit first), so the text depends on the moves alone, never on the
    order they were played in: ``5/2 5/2 8/5 23/20`` and the generator's
    ``23/20 8/5 5/2 5/2`` are both ``23/20 8/2 5/2``."""
    chains: list[tuple[list[int], list[bool]]] = []
    for move in sorted(_hit_by_the_highest(moves),
                       key=lambda m: (-m.source, -m.destination, m.hit)):
        for points, hits in chains:
            if points[-1] == move.source and move.source != 0:
                points.append(move.destination)
                hits.append(move.hit)
                break
        else:
            chains.append(([move.source, move.destination], [False, move.hit]))
    return chains


def _hit_by_the_highest(moves: Sequence[Move]) -> list[Move]:
    """The moves with each hit marked on the highest-sourced move that lands on the point
    (as GNU Backgammon writes ``13/7* 8/7``). Which of two checkers landing on one point
    hit its blot depends only on which was played first, so ``8/7* 13/7`` and
    ``13/7* 8/7`` are one play and must read alike."""
    hit_points = {move.destination for move in moves if move.hit}
    if not hit_points:
        return list(moves)
    highest = {point: max(m.source for m in moves if m.destination == point)
               for point in hit_points}
    marked: list[Move] = []
    for move in moves:
        hits = move.destination in hit_points and move.source == highest[move.destination]
        if hits:
            hit_points.discard(move.destination)  # one hit a point, on one of equal moves
        marked.append(move if move.hit == hits else Move(move.source, move.destination, hits))
    return marked


def _point_name(point: int) -> str:
    if point == BAR:
        return "bar"
    if point == 0:
        return "off"
    return str(point)


def format_play(moves: Sequence[Move]) -> str:
    """Canonical notation of a play's moves ('' for the pass)."""
    segments: list[str] = []
    keyed: list[tuple[int, int, str]] = []
    for points, hits in _chains(moves):
        text = _point_name(points[0])
        for index in range(1, len(points)):
            last = index == len(points) - 1
            if last or hits[index]:
                text += "/" + _point_name(points[index]) + ("*" if hits[index] else "")
        keyed.append((points[0], points[-1], text))
    counts = Counter(text for _, _, text in keyed)
    seen: set[str] = set()
    for _, _, text in sorted(keyed, key=lambda k: (-k[0], -k[1], k[2])):
        if text in seen:
            continue
        seen.add(text)
        segments.append(text if counts[text] == 1 else f"{text}({counts[text]})")
    return " ".join(segments)


_TOKEN = re.compile(r"^(?P<path>[^()]+?)(?:\((?P<count>\d)\))?$")
_SEPARATOR = re.compile(r"[/-]")


def _parse_point(text: str, *, first: bool) -> int:
    word = text.lower()
    if word in ("bar", "b"):
        return BAR
    if word == "off":
        return 0
    if not word.isdigit():
        raise NotationError(f"not a point: {text!r}")
    point = int(word)
    if not 0 <= point <= BAR:
        raise NotationError(f"points are 1 to 24, with 25 for the bar and 0 for off: {text!r}")
    if first and point == 0:
        raise NotationError("a move cannot start from off")
    return point


def parse_segments(text: str) -> list[tuple[list[int], list[bool]]]:
    """Split notation into segments of points with hit marks, without checking legality."""
    if not isinstance(text, str):
        raise NotationError(f"notation must be text, got {type(text).__name__}")
    segments: list[tuple[list[int], list[bool]]] = []
    for token in text.replace(",", " ").split():
        match = _TOKEN.match(token)
        if not match:
            raise NotationError(f"cannot read {token!r}")
        parts = _SEPARATOR.split(match["path"])
        if len(parts) < 2 or any(not p for p in parts):
            raise NotationError(f"a move is 'from/to', got {token!r}")
        points: list[int] = []
        hits: list[bool] = []
        for index, part in enumerate(parts):
            hit = part.endswith("*")
            points.append(_parse_point(part.rstrip("*"), first=index == 0))
            hits.append(hit)
        for a, b in itertools.pairwise(points):
            if b >= a:
                raise NotationError(f"checkers move from higher points to lower: {token!r}")
            if b == BAR:
                raise NotationError(f"a move cannot end on the bar: {token!r}")
        count = int(match["count"] or 1)
        if not 1 <= count <= 4:
            raise NotationError(f"a move repeats 1 to 4 times: {token!r}")
        segments.extend((list(points), list(hits)) for _ in range(count))
    return segments


def parse_play(position: Position, roll: Roll, text: str, *,
               plays: tuple[Play, ...] | None = None) -> Play:
    """The legal play that ``text`` describes, or :class:`IllegalPlayError` saying why not.

    Only the final place of each of the mover's checkers and the hits matter, so ``24/16``,
    ``24/21/16`` and ``24/21 21/16`` are one play. ``plays``: the legal plays of
    ``position`` and ``roll`` when the caller has them (:func:`legal_plays`; a game's
    :attr:`~gammon.core.game.Game.plays` before its first step), not made again.
    """
    segments = parse_segments(text)
    if plays is None:
        plays, boards = _legal_plays_and_boards(position, roll)
    else:
        boards = _boards_of(plays)
    if not segments:
        if plays[0].moves:
            raise IllegalPlayError(f"roll {roll} can be played: passing is not allowed")
        return plays[0]
    wanted = list(_own_checkers(position))
    stops: set[int] = set()  # points named on the way, where the checker lands
    marked: set[int] = set()  # points written with '*'
    for points, hits in segments:
        source, target = points[0], points[-1]
        if wanted[source] <= 0:
            raise IllegalPlayError(f"no checker to move from {_point_name(source)} in {text!r}")
        wanted[source] -= 1
        if target:
            wanted[target] += 1
        stops.update(points[1:-1])
        marked.update(p for p, hit in zip(points, hits, strict=True) if hit)
    # the plays whose board has the mover's checkers where the text leaves them (compared
    # on the generator's boards: no Position is built for the plays that differ)
    alike = (np.maximum(boards, 0) == np.array(wanted, dtype=boards.dtype)).all(axis=1)
    matches = [plays[index] for index in np.flatnonzero(alike).tolist()]
    if len(matches) == 1:
        return matches[0]
    # Plays that leave the mover's checkers alike differ only in blots hit on the way:
    # take the one that hits exactly at the named stops and '*' marks (landing hits are forced).
    landings = {points[-1] for points, _ in segments}
    fitting = [
        play
        for play in matches
        if {m.destination for m in play.moves if m.hit} - landings <= stops | marked
        and marked <= {m.destination for m in play.moves if m.hit}
    ]
    if not matches:
        raise IllegalPlayError(f"{text!r} is not a legal play for {roll} here")
    if len(fitting) != 1:
        raise IllegalPlayError(f"{text!r} is ambiguous: write the intermediate points")
    return fitting[0]


def _own_checkers(position: Position) -> tuple[int, ...]:
    return tuple([c if c > 0 else 0 for c in position.board])
