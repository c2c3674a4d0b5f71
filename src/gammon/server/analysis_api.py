"""The post-match analysis over HTTP, and the engine's refusal to help in a live rated match.

``GET /api/games/{id}/analysis?ply=N`` (PROTOCOL.md, *Post-match analysis*): the analysis
of a finished match at ``N`` plies (default ``analysis_plies``) as
``gammon analyze --format json`` prints it for the match's exported ``.mat``, once done
(200); while it is queued or running, 202 with its progress — the first request queues it.
Whoever may see the match may see its analysis (the routes' visibility check: anyone for a
public match, its players and the holders of its invite link for a private one).

:func:`refuse_in_live_rated`: ``/api/hint`` and ``/api/eval`` answer 403
``rated_match_live`` for a position of a rated match the caller is playing now.
"""

from __future__ import annotations

from typing import Annotated, Literal

import sqlalchemy as sa
from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import ConfigDict, with_config
from starlette.requests import HTTPConnection
from typing_extensions import TypedDict

from gammon import views
from gammon.core.position import Position
from gammon.server import protocol
from gammon.server.analysis_worker import AnalysisWorker
from gammon.server.db import Repository, User, matches
from gammon.server.hub import Hub, ServiceError
from gammon.server.routes.deps import (
    HubDep,
    InviteKey,
    LobbyDep,
    MatchId,
    SessionsDep,
    SettingsDep,
    visible_room,
)

Ply = Annotated[int | None, Query(ge=0, le=2, description=
                                  "the analysis depth, as `gammon analyze --ply` "
                                  "(default: the server's `analysis_plies`)")]


# -- the answers' types: 200 is gammon.views.AnalysisView, 202 the progress ----------------


@with_config(ConfigDict(extra="forbid", strict=True))  # strictly, as protocol.py's answers
class AnalysisProgress(TypedDict):
    """202: the analysis is queued or running; ``done`` of ``total`` games (0: not known
    yet)."""

    match: str
    plies: int
    status: Literal["queued", "running"]
    done: int
    total: int


router = APIRouter()


def _worker(conn: HTTPConnection) -> AnalysisWorker:
    return conn.app.state.analysis  # type: ignore[no-any-return]


@router.get("/api/games/{match_id}/analysis", tags=["history"], response_model=None,
            responses={200: {"model": views.AnalysisView, "description": "the analysis"},
                       202: {"model": AnalysisProgress,
                             "description": "queued or running: its progress"},
                       "4XX": {"model": protocol.HTTPError, "description":
                               "refused: detail.code says why (PROTOCOL.md)"}})
async def analysis(match_id: MatchId, request: Request, settings: SettingsDep, hub: HubDep,
                   lobby: LobbyDep, sessions: SessionsDep,
                   worker: Annotated[AnalysisWorker, Depends(_worker)], ply: Ply = None,
                   key: InviteKey = None) -> Response:
    """The engine's analysis of a finished match (200, the JSON of
    ``gammon analyze --format json``), or 202 with ``{"match", "plies", "status":
    "queued" | "running", "done", "total"}`` (games analysed of the match's games)
    while it is made; the first request queues it."""
    plies = settings.analysis_plies if ply is None else ply
    if plies > settings.analysis_max_plies:
        raise ServiceError("bad_input", f"ply: this server analyses at 0 to "
                                        f"{settings.analysis_max_plies} plies")
    room = await visible_room(match_id, request, hub, lobby, sessions, key)
    if room.status != "finished":
        raise ServiceError("not_finished", "a match is analysed once it is over")
    status = await worker.request(match_id, plies)
    if status is None:
        raise HTTPException(503, {"code": "analysis_busy", "message":
                                  "too many analyses are waiting: ask again later"},
                            headers={"retry-after": "30"})
    if status.status == "done" and status.result is not None:
        return Response(status.result, media_type="application/json")
    if status.status == "failed":
        raise ServiceError("analysis_failed", f"the analysis failed: {status.error}")
    return JSONResponse(status.progress_json(), 202, headers={"retry-after": "2"})


async def _live_rated_positions(repo: Repository, hub: Hub, user: User) -> set[str]:
    """The Position IDs (both sides' views, at the start of the turn and now) of the rated
    matches ``user`` is playing."""
    async with repo.engine.connect() as conn:
        ids = (await conn.scalars(sa.select(matches.c.id).where(
            matches.c.status == "playing", matches.c.rated.is_(True),
            sa.or_(matches.c.player0 == user.id, matches.c.player1 == user.id)))).all()
    found: set[str] = set()
    for match_id in ids:
        room = await hub.room(match_id)
        if room is None or room.match is None or room.match.is_over:
            continue
        game = room.match.game
        for position in (game.position, game.start_position):
            found.update((position.id(), position.swap().id()))
    return found


async def refuse_in_live_rated(repo: Repository, hub: Hub, user: User | None,
                               position: Position) -> None:
    """``rated_match_live`` (403) when ``position`` (either side's view) is the position of a
    rated match ``user`` is playing now: the engine does not help in rated play."""
    if user is None or user.is_guest or user.is_bot:
        return  # rated matches are between registered players
    if position.id() in await _live_rated_positions(repo, hub, user):
        raise ServiceError("rated_match_live",
                           "no engine help for a position of your rated match in play")
