"""The post-match analysis over HTTP, and the engine's refusal to help in a live rated match.

``GET /api/games/{id}/analysis?ply=N`` (PROTOCOL.md, *Post-match analysis*): the analysis
of a finished match at ``N`` plies as ``gammon analyze --format json`` prints it for the
match's exported ``.mat``, once done (200); while it is queued or running, 202 with its
progress — the first request queues it. Without ``ply``: the deep analysis
(``analysis_deep_plies``, its errors rechecked by rollouts) once it is done, else the quick
one (``analysis_plies``), with the header ``Gammon-Deeper-Analysis: N`` while the deep one
at ``N`` plies is queued or running (the review asks for it then, and shows it when it
lands).
Whoever may see the match may see its analysis (the routes' visibility check: anyone for a
public match, its players and the holders of its invite link for a private one).

:func:`refuse_in_live_rated`: ``/api/hint`` and ``/api/eval`` answer 403
``rated_match_live`` for a position of any rated match in play, whoever asks.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import ConfigDict, with_config
from starlette.requests import HTTPConnection
from typing_extensions import TypedDict

from gammon import views
from gammon.core.position import Position
from gammon.server import protocol
from gammon.server.analysis_worker import AnalysisWorker
from gammon.server.db import Repository, User
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
                                  "(default: the server's deep analysis once done, "
                                  "else its quick one, `analysis_plies`)")]


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


async def _worker(conn: HTTPConnection) -> AnalysisWorker:
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
    deep = settings.deep_plies
    if plies > settings.analysis_max_plies:
        raise ServiceError("bad_input", f"ply: this server analyses at 0 to "
                                        f"{settings.analysis_max_plies} plies")
    room = await visible_room(match_id, request, hub, lobby, sessions, key)
    if room.status != "finished":
        raise ServiceError("not_finished", "a match is analysed once it is over")
    deeper: dict[str, str] = {}
    if ply is None and deep is not None:
        found = await worker.store.get(match_id, deep)
        if found is not None and found.status == "done" and found.result is not None:
            return Response(found.result, media_type="application/json")
        if found is None or found.status in ("queued", "running"):
            deeper = {"gammon-deeper-analysis": str(deep)}
    status = await worker.request(match_id, plies)
    if status is None:
        raise HTTPException(503, {"code": "analysis_busy", "message":
                                  "too many analyses are waiting: ask again later"},
                            headers={"retry-after": "30"})
    if deeper and (await worker.store.get(match_id, deep or 0)) is None:
        deeper = {}  # the queue had no room for it
    if status.status == "done" and status.result is not None:
        return Response(status.result, media_type="application/json", headers=deeper)
    if status.status == "failed":
        raise ServiceError("analysis_failed", f"the analysis failed: {status.error}")
    return JSONResponse(status.progress_json(), 202, headers={"retry-after": "2", **deeper})


STARTING_POSITION_IDS = frozenset({Position.initial().id()})
"""The starting position, as either side sees it (the same ID)."""


async def refuse_in_live_rated(repo: Repository, hub: Hub, user: User | None,
                               position: Position) -> None:
    """``rated_match_live`` (403) when ``position`` (either side's view, at the start of
    the turn or now) is that of any rated match in play, whoever asks: a player's second
    session (a guest in a private window, a friend) gets no more help than the player.

    The rated matches in play are the database's (every process's); each is asked of this
    process's hub, which loads one it does not hold yet (as it loads every playing match
    at start-up) and keeps it current from the bus, so the positions are those of now
    whichever process the players' sockets are on (:meth:`Hub.position_ids`).

    The starting position is refused only to the players of such a match: every match
    begins there, so refusing it to all would take the first hint of a practice match
    whenever any rated match is at its first turn, and its best opening plays are in every
    book anyway."""
    wanted = position.id()
    for match_id in await repo.playing_rated_ids():
        room = await hub.room(match_id)
        if room is None or wanted not in hub.position_ids(room):
            continue
        if wanted in STARTING_POSITION_IDS and (user is None or user.id not in room.players):
            continue
        raise ServiceError("rated_match_live",
                           "no engine help for a position of a rated match in play")
