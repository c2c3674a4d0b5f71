"""``/api/hint`` and ``/api/eval``: the neural engine's answers about a position (the
shapes of :mod:`gammon.views`, as ``gammon hint --json`` and ``gammon cube --json`` give
them). Neither helps with a position of a rated match in play, whoever asks
(:func:`~gammon.server.analysis_api.refuse_in_live_rated`)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request

from gammon import views
from gammon.core.dice import Roll
from gammon.core.position import Position
from gammon.engine.cube import CubeInfo
from gammon.engine.player import Probabilities
from gammon.formats.match_id import MatchKey
from gammon.server import bots
from gammon.server.analysis_api import refuse_in_live_rated
from gammon.server.db import Repository, User
from gammon.server.hub import Hub, ServiceError
from gammon.server.limits import RateLimiter, RedisRateLimiter
from gammon.server.protocol import EvalRequest, HintRequest
from gammon.server.routes.deps import (
    CurrentUser,
    HubDep,
    LimiterDep,
    RepoDep,
    limit,
    returns,
)

router = APIRouter(prefix="/api", tags=["engine"])


async def asked_roll(request: Request, limiter: RateLimiter | RedisRateLimiter,
                    repo: Repository, hub: Hub, user: User | None, position_id: str,
                    dice: str, match_id: str | None
                    ) -> tuple[Position, Roll, CubeInfo | None]:
    """What a question about a roll of a position asks, checked: the engine's rate limit
    spent, the position one the engine may be asked about and not a rated match's in play,
    the dice, and the score and cube of ``match_id`` (None: money); ``bad_input`` else."""
    await limit(request, limiter, "engine", 120, 30)
    position = playable(position_id)
    await refuse_in_live_rated(repo, hub, user, position)
    try:
        context = (None if match_id is None
                   else CubeInfo.from_match_key(MatchKey.from_id(match_id)))
        return position, Roll.parse(dice), context
    except ValueError as error:
        raise ServiceError("bad_input", str(error)) from None


@router.post("/hint", **returns("hint"))
async def hint(body: HintRequest, request: Request, limiter: LimiterDep, repo: RepoDep,
               hub: HubDep, user: CurrentUser) -> views.HintView:
    """Every legal play of ``dice`` in the position (the side on roll's view), ranked by
    the neural engine at ``plies`` (0-2), best first, with its equity and the five
    probabilities: cubeless money equity, or with a GNU Backgammon ``match_id`` the
    cubeful value at that score and cube (normalised to the cube)."""
    position, roll, context = await asked_roll(request, limiter, repo, hub, user,
                                               body.position_id, body.dice, body.match_id)
    ranked = await asyncio.to_thread(bots.engine().rank_plays, position, roll,
                                     plies=body.plies, context=context)
    return {"engine": "gammon", "plies": body.plies,
            "plays": [views.ranked_play_view(r) for r in ranked]}

@router.post("/eval", **returns("eval"))
async def evaluate(body: EvalRequest, request: Request, limiter: LimiterDep, repo: RepoDep,
                   hub: HubDep, user: CurrentUser) -> views.EvalView:
    """The engine's evaluation of the position before the side on roll rolls: the five
    probabilities and the cubeless equity at ``plies``; with a GNU Backgammon
    ``match_id`` (score, cube, turn), also the cube decision (or the answer to a pending
    double or resignation), as ``gammon cube --json`` gives it."""
    await limit(request, limiter, "engine", 120, 30)
    position = playable(body.position_id)
    await refuse_in_live_rated(repo, hub, user, position)
    try:
        key = None if body.match_id is None else MatchKey.from_id(body.match_id)
    except ValueError as error:
        raise ServiceError("bad_input", str(error)) from None

    def work() -> tuple[Probabilities, views.CubeView | None]:
        engine = bots.engine()
        probabilities = engine.evaluate(position, plies=body.plies)
        cube = None if key is None else views.cube_view(
            engine, position, key, plies=body.plies, beavers=body.beavers)
        return probabilities, cube

    try:
        probabilities, cube = await asyncio.to_thread(work)
    except ValueError as error:
        raise ServiceError("bad_input", str(error)) from None
    pips = position.pips()
    out: views.EvalView = {
        "engine": "gammon", "plies": body.plies, "position_id": position.id(),
        "probabilities": views.probabilities_view(probabilities),
        "equity": round(probabilities.equity, 4),
        "pips": list(pips), "pip_lead": pips[1] - pips[0], "race": position.is_race()}
    if cube is not None:
        out["cube"] = cube
    return out


def playable(position_id: str) -> Position:
    """The position of a Position ID the engine may be asked about: one the core's rules
    allow (at most 15 checkers a side, never both sides on one point, bars the right way)
    in a game not over (neither side has borne off all 15 — the empty board is both)."""
    try:
        position = Position.from_id(position_id)
    except ValueError as error:
        raise ServiceError("bad_input", str(error)) from None
    if position.winner() is not None:
        raise ServiceError("bad_input", "the game is over in this position: a side has "
                                        "borne off all 15 checkers")
    return position
