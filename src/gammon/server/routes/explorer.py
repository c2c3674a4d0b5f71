"""``/api/explorer``: the position explorer's answers. A position pasted (a Position ID with
or without its Match ID, or an XGID) read as the explorer takes it; the best plays of a roll
rolled out on request (:mod:`gammon.server.explorer`: one at a time per player, followed as
the games are played, cancellable). The ranking of every play at a depth is ``POST
/api/hint``'s. None of it helps with a position of a rated match in play
(:func:`~gammon.server.analysis_api.refuse_in_live_rated`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam

from gammon import views
from gammon.core.dice import Roll
from gammon.core.notation import parse_play
from gammon.core.position import Position
from gammon.formats.match_id import MatchKey
from gammon.formats.xgid import Xgid
from gammon.server.explorer import dice_key
from gammon.server.hub import ServiceError
from gammon.server.protocol import ExplorerText, RolloutRequest, Text
from gammon.server.routes.deps import (
    ChoicesDep,
    HubDep,
    LimiterDep,
    Player,
    RepoDep,
    RolloutsDep,
    returns,
)
from gammon.server.routes.engine import asked_roll, playable

router = APIRouter(prefix="/api/explorer", tags=["explorer"])

JobId = Annotated[str, PathParam(pattern=r"^[A-Za-z0-9_-]{1,24}$", description="a rollout's id")]


def read_position(text: str) -> views.ExplorerPositionView:
    """A pasted position: empty for the start, an XGID, or a Position ID with its Match ID
    after a colon (as GNU Backgammon writes them) or alone."""
    text = text.strip()
    try:
        if not text:
            position, key = Position.initial(), None
        elif text.upper().startswith("XGID=") or text.count(":") == 9:
            xgid = Xgid.from_id(text)
            position, key = xgid.position, xgid.match_key()
        else:
            position_id, _, match_id = text.partition(":")
            position = playable(position_id)
            key = MatchKey.from_id(match_id) if match_id else None
    except ValueError as error:
        raise ServiceError("bad_input", str(error)) from None
    playable(position.id())  # a game not over
    return {"position_id": position.id(), "match_id": None if key is None else key.id(),
            "dice": None if key is None or key.dice is None else sorted(key.dice, reverse=True),
            "board": list(position.board)}


@router.post("/position", **returns("explorer_position"))
async def position(body: ExplorerText) -> views.ExplorerPositionView:
    """Read a pasted position as the explorer takes it."""
    return read_position(body.text)


@router.get("/choices", **returns("choices"))
async def choices(store: ChoicesDep,
                  position_id: Annotated[Text, Query(max_length=20)],
                  dice: Annotated[Text, Query(max_length=5)]) -> list[views.ChoiceView]:
    """How the site's players played ``dice`` in the position (public matches): each play
    chosen, most often first, with how its games ended for its player."""
    position = playable(position_id)
    try:
        roll = Roll.parse(dice)
    except ValueError as error:
        raise ServiceError("bad_input", str(error)) from None
    return await store.of(position.id(), dice_key(f"{roll.die1}{roll.die2}"))


@router.post("/rollouts", status_code=202, **returns("rollout", 202))
async def start(body: RolloutRequest, request: Request, user: Player, rollouts: RolloutsDep,
                limiter: LimiterDep, repo: RepoDep, hub: HubDep) -> views.RolloutView:
    """Roll out the plays named (legal plays of ``dice``, at most four): 202 with the
    rollout's id and its first state; ``rollout_running`` while the player has one."""
    position, roll, context = await asked_roll(request, limiter, repo, hub, user,
                                               body.position_id, body.dice, body.match_id)
    try:
        plays = [parse_play(position, roll, text) for text in body.plays]
    except ValueError as error:
        raise ServiceError("bad_input", str(error)) from None
    if len({p.position for p in plays}) < len(plays):
        raise ServiceError("bad_input", "the same play is named twice")
    return rollouts.start(user.id, position, roll, plays, context, body.games, body.truncate,
                          body.seed).view()


@router.get("/rollouts/{job_id}", **returns("rollout"))
async def progress(job_id: JobId, user: Player, rollouts: RolloutsDep) -> views.RolloutView:
    """A rollout as it stands: the games played so far and each play's result."""
    return rollouts.get(user.id, job_id).view()


@router.delete("/rollouts/{job_id}", **returns("rollout"))
async def cancel(job_id: JobId, user: Player, rollouts: RolloutsDep) -> views.RolloutView:
    """Cancel a rollout: it stops after the chunk of games in play (its status turns
    ``cancelled``)."""
    return rollouts.cancel(user.id, job_id).view()
