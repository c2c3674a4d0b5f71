"""The puzzles on the server: made from the analyses, stored, asked, answered and rated.

* **Made** (:func:`store_puzzles`) in the transaction that stores a finished match's
  analysis (:meth:`AnalysisStore.finish <gammon.server.analysis_worker.AnalysisStore.finish>`),
  from that analysis's graded decisions (:func:`gammon.engine.puzzles.puzzles_of`). Only the
  server's deepest analysis (``Settings.puzzle_plies``: the deep one, else the quick one)
  makes them: its answers are the best graded (a checker error rechecked by rollouts, the
  runner-up rolled out with it), and a puzzle once made keeps its id, its answers and its
  rating: players' answers and ratings refer to it, so a quick analysis's puzzles replaced
  by the deep one's would take back verdicts already given.
* **One puzzle per question, position and context** (``puzzles.key``): met again in another
  match (or twice in one) it gains a source (``puzzle_sources``), not a row.
* **Private matches never feed the public pool.** Every source records whether its match
  was public; a puzzle is in the pool (``puzzles.public``) once it has been met in a public
  match, and only a public source is ever shown. A position met only in private matches
  stays out of every answer of the API.
* **Rated** with Glicko-2 (:mod:`gammon.server.glicko`): each answer a game between the
  player and the puzzle, both updated in the answer's transaction; one answer per player
  and puzzle (``puzzle_answers``' key).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from gammon import views
from gammon.core.actions import MoveChecker, RollDice
from gammon.core.dice import Roll
from gammon.core.errors import IllegalActionError
from gammon.core.game import Game, Rules
from gammon.core.notation import format_play, parse_play
from gammon.core.position import Position
from gammon.engine.puzzles import THEMES, Answer, Puzzle
from gammon.server.db import DbRow, matches, puzzle_answers, puzzle_players, puzzle_sources, puzzles
from gammon.server.glicko import START, Rating, answered
from gammon.server.hub import ServiceError
from gammon.server.operations import Operations


async def store_puzzles(conn: AsyncConnection, match_id: str, found: Sequence[Puzzle]) -> None:
    """Add a match's puzzles in the caller's transaction: a new row for a key not seen
    before, else a source more (and the pool, when the match is public)."""
    private = await conn.scalar(sa.select(matches.c.private).where(matches.c.id == match_id))
    public = not private
    now = time.time()
    for puzzle in found:
        row = (await conn.execute(sa.select(puzzles.c.id, puzzles.c.public, puzzles.c.error)
                                  .where(puzzles.c.key == puzzle.key))).first()
        if row is None:
            try:
                async with conn.begin_nested():
                    puzzle_id = (await conn.execute(puzzles.insert().values(
                        key=puzzle.key, kind=puzzle.kind, position_id=puzzle.position_id,
                        match_id=puzzle.match_id, dice=puzzle.dice,
                        answers=json.dumps([[a.text, a.equity] for a in puzzle.answers]),
                        error=puzzle.error, graded_by=puzzle.graded_by, plies=puzzle.plies,
                        themes="," + ",".join(puzzle.themes) + ",", public=public,
                        rating=START.rating, rd=START.rd, vol=START.vol, attempts=0,
                        solved=0, created_at=now).returning(puzzles.c.id))).scalar_one()
            except IntegrityError:  # made meanwhile from another match
                row = (await conn.execute(sa.select(puzzles.c.id, puzzles.c.public,
                                                    puzzles.c.error)
                                          .where(puzzles.c.key == puzzle.key))).one()
        if row is not None:
            puzzle_id = row.id
            await conn.execute(puzzles.update().where(puzzles.c.id == puzzle_id).values(
                public=bool(row.public) or public, error=max(row.error, puzzle.error)))
        for source in puzzle.sources:
            try:
                async with conn.begin_nested():
                    await conn.execute(puzzle_sources.insert().values(
                        puzzle_id=puzzle_id, match_id=match_id, game=source.game,
                        move_number=source.move_number, player=source.player,
                        played=source.played, error=source.error, public=public))
            except IntegrityError:  # this match's source already stored
                pass


@dataclass(frozen=True, slots=True)
class Stored:
    """A puzzle of the pool as stored: its id, the puzzle (no sources), its rating and
    how often it was answered (right)."""

    id: int
    puzzle: Puzzle
    rating: Rating
    attempts: int
    solved: int

    def view(self) -> views.PuzzleView:
        return views.puzzle_view(self.id, self.puzzle, rating=self.rating.rating,
                                 attempts=self.attempts, solved=self.solved)


def stored_puzzle(row: DbRow) -> Stored:
    m = row._mapping
    puzzle = Puzzle(
        kind=m["kind"], position_id=m["position_id"], match_id=m["match_id"], dice=m["dice"],
        answers=tuple(Answer(text, equity) for text, equity in json.loads(m["answers"])),
        error=m["error"], graded_by=m["graded_by"], plies=m["plies"],
        themes=tuple(t for t in m["themes"].split(",") if t), sources=())
    return Stored(m["id"], puzzle, Rating(m["rating"], m["rd"], m["vol"]), m["attempts"],
                  m["solved"])


def play_steps(puzzle: Puzzle, steps: Sequence[tuple[int, int]]) -> views.PuzzleStepsView:
    """A checker puzzle's roll played step by step on its board, as the match page plays
    a roll (the core's :class:`~gammon.core.game.Game` decides every step): the board after
    ``steps`` (source, die), the dice left, what may move next and, once the roll is played
    whole, the play in the project's notation. ``illegal_answer`` for a step the rules do
    not allow there, or for a puzzle that asks a cube question."""
    if puzzle.kind != "checker":
        raise ServiceError("illegal_answer", "this puzzle asks for a cube action")
    waits = Rules(confirm_turn=(True, True))  # a whole roll played waits to be sent
    game, _ = Game.from_position(Position.from_id(puzzle.position_id), rules=waits).apply(
        RollDice(0, Roll(int(puzzle.dice[0]), int(puzzle.dice[1]))))
    for source, die in steps:
        try:
            game, _ = game.apply(MoveChecker(0, source, die))
        except IllegalActionError as error:
            raise ServiceError("illegal_answer", str(error)) from None
    moves = views.moves_view(game)
    done = game.is_play_complete()
    return {"board": list(game.board(0).board), "dice_left": list(game.dice_left),
            "legal": moves["legal"], "reach": moves["reach"],
            "play": format_play([step.move for step in game.steps]) if done else None}


@dataclass(frozen=True, slots=True)
class Graded:
    """An answer graded: its canonical text, right or wrong, what it loses to the best,
    and what graded that."""

    answer: str
    right: bool
    error: float
    graded_by: str


Ranker = Callable[[Position, Roll, int, str], list[tuple[Position, float]]]
"""The engine's ranking of a roll's plays at a ply and a Match ID: (each play's position
after it, its equity), best first. Asked only for a play the puzzle did not grade."""


def grade(puzzle: Puzzle, play: str | None, cube: str | None, rank: Ranker) -> Graded:
    """Grade an answer: a checker play in the project's notation (resolved against the
    legal plays: any order, ``(2)``, ``*``), or a cube action. A play the puzzle graded has
    that grade; any other legal play is ranked by the engine at the analysis's ply (and its
    error is against the best at that ply). ``illegal_answer`` for an answer that does not
    answer the question."""
    best = puzzle.answers[0]
    if puzzle.kind == "checker":
        if play is None:
            raise ServiceError("illegal_answer", "this puzzle asks for a checker play")
        position = Position.from_id(puzzle.position_id)
        roll = Roll(int(puzzle.dice[0]), int(puzzle.dice[1]))
        try:
            chosen = parse_play(position, roll, play)
        except ValueError as error:
            raise ServiceError("illegal_answer", f"not a legal play of {puzzle.dice}: "
                                                 f"{error}") from None
        for answer in puzzle.answers:
            if parse_play(position, roll, answer.text).position == chosen.position:
                return Graded(answer.text, answer is best,
                              max(best.equity - answer.equity, 0.0), puzzle.graded_by)
        ranked = rank(position, roll, puzzle.plies, puzzle.match_id)
        mine = next(v for after, v in ranked if after == chosen.position)
        return Graded(chosen.notation(), False, max(ranked[0][1] - mine, 0.0),
                      f"{puzzle.plies}-ply")
    if cube is None:
        raise ServiceError("illegal_answer", "this puzzle asks for a cube action")
    for answer in puzzle.answers:
        if answer.text == cube:
            return Graded(cube, answer is best, max(best.equity - answer.equity, 0.0),
                          puzzle.graded_by)
    raise ServiceError("illegal_answer", f"{cube!r} does not answer this question: "
                                         f"{', '.join(a.text for a in puzzle.answers)}")


def check_theme(theme: str | None) -> None:
    """``bad_input`` for a theme that is none of :data:`gammon.engine.puzzles.THEMES`."""
    if theme is not None and theme not in THEMES:
        raise ServiceError("bad_input", f"theme: one of {', '.join(THEMES)}")


@dataclass(frozen=True, slots=True)
class PlayerRating:
    rating: Rating
    attempts: int
    solved: int

    def view(self) -> views.PuzzleRatingView:
        return {"rating": round(self.rating.rating, 1), "rd": round(self.rating.rd, 1),
                "attempts": self.attempts, "solved": self.solved}


NEW_PLAYER = PlayerRating(START, 0, 0)

# The puzzle routes' statements, built once with bound parameters: building a statement
# (and its cache key) on every request cost more than running it (benchmarks/load.py
# --puzzle-rps).
_PUZZLE = sa.select(puzzles).where(puzzles.c.id == sa.bindparam("puzzle_id"),
                                   puzzles.c.public.is_(True))
_PLAYER = sa.select(puzzle_players).where(puzzle_players.c.user_id == sa.bindparam("user_id"))
_SOURCE = (sa.select(puzzle_sources)
           .where(puzzle_sources.c.puzzle_id == sa.bindparam("puzzle_id"),
                  puzzle_sources.c.public.is_(True))
           .order_by(puzzle_sources.c.match_id, puzzle_sources.c.game,
                     puzzle_sources.c.move_number).limit(1))


def _nearest(themed: bool) -> sa.CompoundSelect[tuple[object, ...]]:
    """The puzzles of the pool nearest the rating ``mine`` that ``user_id`` has not
    answered (of the theme ``like`` when ``themed``): the first above and the first below,
    each the start of an index walk (``ix_puzzles_public_rating``)."""
    answered_ids = sa.select(puzzle_answers.c.puzzle_id).where(
        puzzle_answers.c.user_id == sa.bindparam("user_id"))
    where = [puzzles.c.public.is_(True), puzzles.c.id.not_in(answered_ids)]
    if themed:
        where.append(puzzles.c.themes.like(sa.bindparam("like")))
    mine = sa.bindparam("mine", type_=sa.Float)
    above = (sa.select(puzzles).where(*where, puzzles.c.rating >= mine)
             .order_by(puzzles.c.rating, puzzles.c.id).limit(1).subquery())
    below = (sa.select(puzzles).where(*where, puzzles.c.rating < mine)
             .order_by(puzzles.c.rating.desc(), puzzles.c.id).limit(1).subquery())
    return sa.union_all(sa.select(above), sa.select(below))


_NEAREST = {themed: _nearest(themed) for themed in (False, True)}
_ANSWER_ROWS = sa.select(puzzles.c.rating, puzzles.c.rd, puzzles.c.vol).where(
    puzzles.c.id == sa.bindparam("puzzle_id")).with_for_update()


class PuzzleStore:
    """The queries of the puzzle pool, the answers and the ratings: each request's reads
    and writes one operation (:class:`~gammon.server.operations.Operations`)."""

    def __init__(self, engine: AsyncEngine, operations: Operations | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.operations = operations or Operations(engine)
        self.clock = clock

    async def daily(self) -> tuple[str, Stored]:
        """The puzzle of the day (UTC) and the day: the same for every player all day long,
        drawn by the day's SHA-256 from the pool as it stood when the day began (a puzzle
        made later in the day waits for tomorrow); ``no_puzzle`` while the pool is empty."""
        day = int(self.clock() // 86400)
        date = time.strftime("%Y-%m-%d", time.gmtime(day * 86400))
        pool = puzzles.c.public.is_(True), puzzles.c.created_at < day * 86400

        def read(conn: sa.Connection) -> DbRow | None:
            count = conn.execute(sa.select(sa.func.count()).where(*pool)).scalar_one()
            if not count:
                return None
            index = int(hashlib.sha256(date.encode()).hexdigest(), 16) % count
            return conn.execute(sa.select(puzzles).where(*pool).order_by(puzzles.c.id)
                                .offset(index).limit(1)).one()

        row = await self.operations.read(read)
        if row is None:
            raise ServiceError("no_puzzle", "no puzzle of the day yet")
        return date, stored_puzzle(row)

    async def get(self, puzzle_id: int) -> Stored:
        """A puzzle of the pool, or ``not_found`` (none, or met only in private matches)."""
        return _found(await self.operations.read(
            lambda conn: conn.execute(_PUZZLE, {"puzzle_id": puzzle_id}).first()))

    async def get_with_source(self, puzzle_id: int
                              ) -> tuple[Stored, views.PuzzleSourceView | None]:
        """:meth:`get` and the first public match the puzzle was met in, with the answer
        given there (None when it was made before sources were kept), in one read."""
        def read(conn: sa.Connection) -> tuple[DbRow | None, DbRow | None]:
            return (conn.execute(_PUZZLE, {"puzzle_id": puzzle_id}).first(),
                    conn.execute(_SOURCE, {"puzzle_id": puzzle_id}).first())

        row, source = await self.operations.read(read)
        if source is None:
            return _found(row), None
        return _found(row), {"match": source.match_id, "game": source.game,
                             "move_number": source.move_number, "played": source.played,
                             "error": round(source.error, 4)}

    async def rating(self, user_id: int) -> PlayerRating:
        return await self.operations.read(lambda conn: _player_rating(conn, user_id))

    async def next(self, user_id: int, theme: str | None) -> tuple[Stored, PlayerRating]:
        """The puzzle of the pool nearest the player's rating that they have not answered
        (of ``theme``, when given), and that rating; ``no_puzzle`` when none is left. The
        nearest above and the nearest below are each the first of an index walk
        (``ix_puzzles_public_rating``), read in one statement, so the pool's size does not
        weigh on it."""
        check_theme(theme)

        def read(conn: sa.Connection) -> tuple[PlayerRating, Sequence[DbRow]]:
            player = _player_rating(conn, user_id)
            return player, conn.execute(_NEAREST[theme is not None], {
                "user_id": user_id, "mine": player.rating.rating,
                "like": f"%,{theme},%"}).all()

        player, rows = await self.operations.read(read)
        if not rows:
            raise ServiceError("no_puzzle", "no puzzle left to answer"
                               + ("" if theme is None else f" of the theme {theme}"))
        mine = player.rating.rating
        nearest = min(rows, key=lambda r: (abs(r.rating - mine), r.id))
        return stored_puzzle(nearest), player

    async def answer(self, user_id: int, stored: Stored, graded: Graded
                     ) -> tuple[PlayerRating, Rating, Rating, Rating]:
        """Record a player's one answer to a puzzle and rate both, in one transaction: (the
        player's rating after, their rating before, the puzzle's before, after);
        ``already_answered`` (nothing changed) for a second one."""
        for _ in range(3):
            try:
                return await self.operations.transaction(
                    lambda conn: _answer(conn, user_id, stored.id, graded, time.time()))
            except _FirstRating:  # a concurrent first answer made the player's row: again
                continue
        raise ServiceError("busy", "the answer could not be stored: send it again")


def _player_rating(conn: sa.Connection, user_id: int, *, lock: bool = False) -> PlayerRating:
    row = conn.execute(_PLAYER.with_for_update() if lock else _PLAYER,
                       {"user_id": user_id}).first()
    return NEW_PLAYER if row is None else _player(row)


def _answer(conn: sa.Connection, user_id: int, puzzle_id: int, graded: Graded, now: float
            ) -> tuple[PlayerRating, Rating, Rating, Rating]:
    player = _player_rating(conn, user_id, lock=True)
    prow = conn.execute(_ANSWER_ROWS, {"puzzle_id": puzzle_id}).one()
    before = Rating(prow.rating, prow.rd, prow.vol)
    mine, theirs = answered(player.rating, before, graded.right)
    try:  # the answers' key: one answer per player and puzzle
        conn.execute(puzzle_answers.insert(), {
            "puzzle_id": puzzle_id, "user_id": user_id, "answer": graded.answer,
            "right": graded.right, "error": graded.error,
            "rating_before": player.rating.rating, "rating_after": mine.rating, "at": now})
    except IntegrityError:
        raise ServiceError("already_answered", "you have answered this puzzle") from None
    after = replace(player, rating=mine, attempts=player.attempts + 1,
                    solved=player.solved + int(graded.right))
    values = {"rating": mine.rating, "rd": mine.rd, "vol": mine.vol,
              "attempts": after.attempts, "solved": after.solved, "updated_at": now}
    if player is NEW_PLAYER:
        try:
            conn.execute(puzzle_players.insert(), {"user_id": user_id, **values})
        except IntegrityError:
            raise _FirstRating from None
    else:
        conn.execute(_SET_PLAYER, {"player": user_id, **values})
    conn.execute(_RATE_PUZZLE, {"puzzle": puzzle_id, "rating": theirs.rating,
                                "rd": theirs.rd, "vol": theirs.vol,
                                "right": int(graded.right)})
    return after, player.rating, before, theirs


class _FirstRating(Exception):
    """Another answer of the same new player stored their first rating meanwhile."""


_SET_PLAYER = puzzle_players.update().where(
    puzzle_players.c.user_id == sa.bindparam("player"))
_RATE_PUZZLE = puzzles.update().where(puzzles.c.id == sa.bindparam("puzzle")).values(
    attempts=puzzles.c.attempts + 1, solved=puzzles.c.solved + sa.bindparam("right"))


def _found(row: DbRow | None) -> Stored:
    if row is None:
        raise ServiceError("not_found", "no such puzzle")
    return stored_puzzle(row)


def _player(row: DbRow) -> PlayerRating:
    m = row._mapping
    return PlayerRating(Rating(m["rating"], m["rd"], m["vol"]), m["attempts"], m["solved"])
