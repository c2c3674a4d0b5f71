"""``GET /api/v1/move`` and ``GET /api/v1/eval``: the engine in wildbg's HTTP shapes, so
that bots and apps written for wildbg's web API can use gammon unchanged.

The shapes are wildbg's (carsten-wenderdel/wildbg, ``crates/web``): a position as the query
parameters ``p0`` .. ``p25``, the checkers on each point from the view of the side on roll,
``x``: positive counts are ``x``'s, negative ``o``'s, ``x`` moves from 24 to 1, ``p25`` is
``x``'s bar and ``p0`` ``o``'s; a point left out is empty and the checkers not on the board
are borne off. ``/move`` also takes ``die1`` and ``die2``, and answers every legal play,
best first, each as its checker moves (``from``/``to`` per die, 25 the bar, 0 off) with the
probabilities after it for ``x``; ``/eval`` answers the cube decision before ``x`` rolls
(``double``, and ``accept`` for ``o``'s answer) and ``x``'s probabilities. Probabilities are
wildbg's (and GNU Backgammon's): ``win`` includes gammons and backgammons, ``winG``
backgammons, ``loseG`` likewise; ``lose`` is ``1 - win``.

``x_away`` and ``o_away`` (both or neither) make it a match decision at that score, the cube
centred (a side 1-away: the Crawford game); without them, money play. Errors are wildbg's
400 ``{"message"}`` — the same words for the cases its tests show — with gammon's
``detail`` beside it; the engine's rate limit and its refusal to help in a rated match in
play apply as to ``/api/hint`` and ``/api/eval``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from typing_extensions import TypedDict

from gammon.core.dice import Roll
from gammon.core.position import Position
from gammon.engine.cube import CubeAction, CubeInfo, Response, cube_decision, cube_efficiency
from gammon.engine.player import Probabilities
from gammon.server import bots
from gammon.server.analysis_api import refuse_in_live_rated
from gammon.server.hub import ServiceError
from gammon.server.routes.deps import (
    CurrentUser,
    HubDep,
    LimiterDep,
    RepoDep,
    limit,
    status_of,
)

router = APIRouter(prefix="/api/v1", tags=["wildbg"])


class ProbabilitiesView(TypedDict):
    win: float
    winG: float
    winBg: float
    loseG: float
    loseBg: float


# "from" is a Python keyword: the functional form
MoveDetail = TypedDict("MoveDetail", {"from": int, "to": int})


class MoveInfo(TypedDict):
    play: list[MoveDetail]
    probabilities: ProbabilitiesView


class MoveResponse(TypedDict):
    moves: list[MoveInfo]


class CubeView(TypedDict):
    double: bool
    accept: bool


class EvalResponse(TypedDict):
    cube: CubeView
    probabilities: ProbabilitiesView


class WildbgError(Exception):
    """A request wildbg would refuse: 400 ``{"message"}``."""


def _probabilities(p: Probabilities) -> ProbabilitiesView:
    return {"win": round(p.win, 6), "winG": round(p.win_gammon, 6),
            "winBg": round(p.win_backgammon, 6), "loseG": round(p.lose_gammon, 6),
            "loseBg": round(p.lose_backgammon, 6)}


def position_of(params: dict[str, str]) -> Position:
    """The position of the query's ``p0`` .. ``p25`` (see the module doc)."""
    counts = []
    for point in range(26):
        text = params.get(f"p{point}", "0")
        try:
            count = int(text)
        except ValueError:
            raise WildbgError(f"p{point} must be an integer from -15 to 15") from None
        if not -15 <= count <= 15:
            raise WildbgError(f"p{point} must be an integer from -15 to 15")
        counts.append(count)
    if counts[0] > 0:
        raise WildbgError("Index 0 is the bar for player o, number of checkers needs to be "
                          "negative.")
    if counts[25] < 0:
        raise WildbgError("Index 25 is the bar for player x, number of checkers needs to be "
                          "positive.")
    for name, total in (("x", sum(c for c in counts if c > 0)),
                        ("o", -sum(c for c in counts if c < 0))):
        if total > 15:
            raise WildbgError(f"Player {name} has more than 15 checkers on the board.")
        if total == 0:
            raise WildbgError(f"Player {name} has no checkers on the board: the game is over.")
    try:  # wildbg's layout is the core's board: p25 its bar, p0 the opponent's
        return Position.from_board(counts)
    except ValueError as error:
        raise WildbgError(str(error)) from None


def context_of(params: dict[str, str]) -> CubeInfo:
    """Money play, or the match score of ``x_away``/``o_away``, the cube centred."""
    given = [params.get("x_away"), params.get("o_away")]
    if given == [None, None]:
        return CubeInfo.money()
    if None in given:
        raise WildbgError("x_away and o_away come together")
    try:
        x_away, o_away = (int(text) for text in given)  # type: ignore[arg-type]
        return CubeInfo.match(x_away, o_away)
    except ValueError:
        raise WildbgError("x_away and o_away must be integers of at least 1") from None


def dice_of(params: dict[str, str]) -> Roll:
    for name in ("die1", "die2"):
        if name not in params:
            raise WildbgError(f"Failed to deserialize query string: missing field `{name}`")
    try:
        die1, die2 = int(params["die1"]), int(params["die2"])
    except ValueError:
        raise WildbgError("Dice values must be between 1 and 6.") from None
    if not (1 <= die1 <= 6 and 1 <= die2 <= 6):
        raise WildbgError("Dice values must be between 1 and 6.")
    return Roll(die1, die2)


def _refusal(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"message": message, "detail": {"code": code, "message": message}},
                        status)


async def _guarded(request: Request, limiter: LimiterDep, repo: RepoDep, hub: HubDep,
                   user: CurrentUser, work: Any) -> Any:
    """The answer of ``work(params)``, refused as wildbg refuses (400) or as the engine
    API does (rate limit, a rated match in play)."""
    params = dict(request.query_params)
    try:
        position, answer = work(params)  # bad input spends nothing of the rate limit
        await limit(request, limiter, "engine", 120, 30)
        await refuse_in_live_rated(repo, hub, user, position)
        return await asyncio.to_thread(answer)
    except WildbgError as error:
        return _refusal(400, "bad_input", str(error))
    except ServiceError as error:
        return _refusal(status_of(error.code), error.code, error.message)


def _parameter(name: str, low: int, high: int | None, description: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "minimum": low}
    if high is not None:
        schema["maximum"] = high
    return {"name": name, "in": "query", "required": name.startswith("die"),
            "schema": schema, "description": description}


POSITION = [_parameter("p0", -15, 0, "the opponent o's bar (negative)"),
            *(_parameter(f"p{n}", -15, 15, "checkers on this point: positive x's (on "
                         "roll), negative o's") for n in range(1, 25)),
            _parameter("p25", 0, 15, "x's bar"),
            _parameter("x_away", 1, None, "match play: the points x still needs"),
            _parameter("o_away", 1, None, "match play: the points o still needs")]
DICE = [_parameter("die1", 1, 6, "a die"), _parameter("die2", 1, 6, "the other die")]
ERROR = {"description": 'not a legal position, dice or score: ``{"message"}``'}
MOVE_DOC = {"responses": {200: {"model": MoveResponse, "description": "OK"}, 400: ERROR},
            "openapi_extra": {"parameters": DICE + POSITION}}
EVAL_DOC = {"responses": {200: {"model": EvalResponse, "description": "OK"}, 400: ERROR},
            "openapi_extra": {"parameters": POSITION}}


@router.get("/move", response_model=None, **MOVE_DOC)  # type: ignore[arg-type]
async def move(request: Request, limiter: LimiterDep, repo: RepoDep, hub: HubDep,
               user: CurrentUser) -> Any:
    """wildbg's ``/move``: every legal play of ``die1``/``die2`` in the position
    ``p0``..``p25`` (``x`` on roll), best first (at ``x_away``/``o_away`` when given), each
    with ``x``'s probabilities after it; one entry with an empty ``play`` when nothing
    can be moved."""
    def work(params: dict[str, str]) -> tuple[Position, Any]:
        roll = dice_of(params)  # wildbg reads the dice first
        position, context = position_of(params), context_of(params)

        def answer() -> MoveResponse:
            ranked = bots.engine().rank_plays(
                position, roll, context=None if context.is_money else context)
            return {"moves": [
                {"play": [{"from": m.source, "to": m.destination} for m in r.play.moves],
                 "probabilities": _probabilities(r.probabilities)} for r in ranked]}
        return position, answer
    return await _guarded(request, limiter, repo, hub, user, work)


@router.get("/eval", response_model=None, **EVAL_DOC)  # type: ignore[arg-type]
async def evaluate(request: Request, limiter: LimiterDep, repo: RepoDep, hub: HubDep,
                   user: CurrentUser) -> Any:
    """wildbg's ``/eval``: ``x``'s probabilities before it rolls in the position
    ``p0``..``p25``, and the cube: whether ``x`` doubles and whether ``o`` would accept
    (money play, or ``x_away``/``o_away``, the cube centred)."""
    def work(params: dict[str, str]) -> tuple[Position, Any]:
        position, context = position_of(params), context_of(params)

        def answer() -> EvalResponse:
            p = bots.engine().evaluate(position)
            decision = cube_decision(p, context, efficiency=cube_efficiency(position))
            return {"cube": {"double": decision.action in (CubeAction.DOUBLE_TAKE,
                                                           CubeAction.DOUBLE_PASS),
                             "accept": decision.response is not Response.PASS},
                    "probabilities": _probabilities(p)}
        return position, answer
    return await _guarded(request, limiter, repo, hub, user, work)
