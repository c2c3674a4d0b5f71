"""``/api/puzzles``: the puzzles made from the analysed matches' blunders
(:mod:`gammon.server.puzzles`; PROTOCOL.md, *Puzzles*): the next one for the player (nearest
their puzzle rating, one they have not answered, of a theme if asked), one by its id, and the
answer, graded, with both ratings moved."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam

from gammon import views
from gammon.core.dice import Roll
from gammon.core.position import Position
from gammon.engine.cube import CubeInfo
from gammon.engine.puzzles import Puzzle
from gammon.formats.match_id import MatchKey
from gammon.server import bots
from gammon.server.hub import ServiceError
from gammon.server.protocol import PuzzleAnswer, PuzzleSteps, Text
from gammon.server.puzzles import Graded, grade, play_steps
from gammon.server.routes.deps import (
    DeckDep,
    LimiterDep,
    Player,
    PuzzlesDep,
    SessionsDep,
    current_user,
    limit,
    returns,
)

router = APIRouter(prefix="/api/puzzles", tags=["puzzles"])

PuzzleId = Annotated[int, PathParam(ge=1, le=2**31 - 1, description="a puzzle's id")]
Theme = Annotated[Text | None, Query(max_length=20, description=
                                     "only puzzles of this theme (PROTOCOL.md, *Puzzles*)")]


@router.get("/next", **returns("next_puzzle"))
async def next_puzzle(user: Player, store: PuzzlesDep, theme: Theme = None
                      ) -> views.NextPuzzleView:
    """The puzzle nearest the player's puzzle rating that they have not answered (404
    ``no_puzzle`` when none is left), with that rating."""
    stored, rating = await store.next(user.id, theme)
    return {"puzzle": stored.view(), "rating": rating.view()}


@router.get("/daily", **returns("daily_puzzle"))
async def daily(user: Player, store: PuzzlesDep) -> views.DailyPuzzleView:
    """The puzzle of the day (UTC): the same for every player all day; 404 ``no_puzzle``
    while the pool is empty. Answered as any puzzle is, once."""
    date, stored = await store.daily()
    return {"date": date, "puzzle": stored.view(),
            "rating": (await store.rating(user.id)).view()}


@router.get("/{puzzle_id}", **returns("puzzle"))
async def puzzle(puzzle_id: PuzzleId, store: PuzzlesDep) -> views.PuzzleView:
    """A puzzle of the pool, without its answer."""
    return (await store.get(puzzle_id)).view()


@router.post("/{puzzle_id}/steps", **returns("puzzle_steps"))
async def steps(puzzle_id: PuzzleId, body: PuzzleSteps, request: Request,
                sessions: SessionsDep, store: PuzzlesDep, deck: DeckDep, limiter: LimiterDep
                ) -> views.PuzzleStepsView:
    """A checker puzzle's roll played so far: the board, what may move next, and the play
    once whole (the puzzle page's hands on the board; nothing is stored). A puzzle of the
    pool, or of the player's own deck (the session read only then)."""
    await limit(request, limiter, "puzzle_steps", 600, 60)
    try:
        stored = await store.get(puzzle_id)
    except ServiceError:
        user = await current_user(request, sessions)
        if user is None:
            raise
        stored = await deck.get(user.id, puzzle_id)
    return play_steps(stored.puzzle, [(step.from_, step.die) for step in body.steps])


def _rank(position: Position, roll: Roll, plies: int, match_id: str
          ) -> list[tuple[Position, float]]:
    context = CubeInfo.from_match_key(MatchKey.from_id(match_id))
    ranked = bots.engine().rank_plays(position, roll, plies=plies, context=context)
    return [(r.play.position, r.equity) for r in ranked]


async def grade_answer(puzzle: Puzzle, body: PuzzleAnswer) -> Graded:
    """Grade an answer to ``puzzle``; the engine, asked only for a play the puzzle did not
    grade, ranks the plays in a thread."""
    if any(a.text == body.play for a in puzzle.answers) or body.play is None:
        return grade(puzzle, body.play, body.cube, _rank)  # no engine asked
    return await asyncio.to_thread(grade, puzzle, body.play, body.cube, _rank)


@router.post("/{puzzle_id}/answer", **returns("puzzle_verdict"))
async def answer(puzzle_id: PuzzleId, body: PuzzleAnswer, request: Request, user: Player,
                 store: PuzzlesDep, limiter: LimiterDep) -> views.PuzzleVerdictView:
    """Answer a puzzle once: the verdict (right or wrong, what the answer loses, the graded
    answers), the source match when public, and the player's and the puzzle's ratings."""
    await limit(request, limiter, "puzzle", 120, 30)
    stored, source = await store.get_with_source(puzzle_id)
    puzzle_ = stored.puzzle
    graded = await grade_answer(puzzle_, body)
    after, before, puzzle_before, puzzle_after = await store.answer(user.id, stored, graded)
    return {
        "puzzle": stored.id, "answer": graded.answer, "right": graded.right,
        "error": round(graded.error, 4), "graded_by": graded.graded_by,
        "best": puzzle_.best,
        "top": [{"answer": a.text, "equity": round(a.equity, 4)} for a in puzzle_.answers],
        "source": source,
        "rating": after.view(),
        "rating_change": {"before": round(before.rating, 1),
                          "after": round(after.rating.rating, 1)},
        "puzzle_rating": {"before": round(puzzle_before.rating, 1),
                          "after": round(puzzle_after.rating, 1)},
    }
