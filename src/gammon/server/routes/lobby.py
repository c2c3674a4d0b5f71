"""``/api/games``: the open games, a new game, a match's state, join, cancel and rematch
(:mod:`gammon.server.lobby`)."""

from __future__ import annotations

import time
from typing import cast

from fastapi import APIRouter

from gammon import views
from gammon.server import protocol
from gammon.server.hub import ServiceError
from gammon.server.protocol import Join, NewGame
from gammon.server.routes.deps import (
    CurrentUser,
    HubDep,
    InviteKey,
    LimiterDep,
    LobbyDep,
    MatchId,
    Player,
    RepoDep,
    SettingsDep,
    VisibleRoom,
    returns,
)

router = APIRouter(prefix="/api/games", tags=["lobby"])


@router.get("", **returns("open_games"))
async def open_games(lobby: LobbyDep) -> list[protocol.OpenGame]:
    """The open public games (a socket may follow them instead: ``subscribe_lobby``)."""
    return await lobby.open_games()


@router.post("", status_code=201, **returns("created", 201))
async def create_game(body: NewGame, user: Player, lobby: LobbyDep, limiter: LimiterDep,
                      settings: SettingsDep, repo: RepoDep) -> protocol.CreatedGame:
    """A new game: open in the lobby, against the server's ``bot``, or a challenge to one
    registered player (``opponent``: reserved for them, as a rematch is)."""
    if not await limiter.allow(f"create:{user.id}", 10, 10):
        raise ServiceError("rate_limited", "too many games created")
    opponent = None
    if body.opponent is not None:
        if body.bot is not None:
            raise ServiceError("bad_input", "opponent: a game against the server's bot has "
                                            "no opponent to challenge")
        found = await repo.user_by_name(body.opponent)
        if found is None or found[0].kind != "user":
            raise ServiceError("not_found", "no such player")
        if found[0].id == user.id:
            raise ServiceError("own_game", "you cannot challenge yourself")
        opponent = found[0].id
    try:
        config = body.config(settings.clock_scale)
    except views.ConfigError as error:
        raise ServiceError("bad_input", str(error)) from None
    room = await lobby.create(user, config, client_seed=body.client_seed,
                              reserved_for=opponent)
    return {**room.info_json(), "invite": lobby.invite(room)}


@router.get("/{match_id}", **returns("state"))
async def game(room: VisibleRoom, user: CurrentUser, lobby: LobbyDep) -> protocol.GameState:
    """A match's ``state``; a private match's needs a seat or the invite ``key`` (its
    players also get the ``invite`` link)."""
    state = cast(protocol.GameState,
                 room.state_message(None if user is None else user.id, time.time()))
    if state["you"] is not None:
        state["invite"] = lobby.invite(room)
    return state


@router.post("/{match_id}/join", **returns("info"))
async def join(match_id: MatchId, user: Player, hub: HubDep, lobby: LobbyDep,
               key: InviteKey = None, body: Join | None = None) -> views.InfoView:
    """Take the free seat; a private match needs the invite ``key`` (or a reservation
    for this user: a rematch)."""
    room = await hub.room(match_id)
    if room is None or not lobby.may_see(room, user.id, key):
        raise ServiceError("not_found", "no such match")
    room = await lobby.join(user, match_id, body.client_seed if body else "")
    return room.info_json()


@router.delete("/{match_id}", **returns("ok"))
async def cancel(match_id: MatchId, user: Player, lobby: LobbyDep) -> protocol.OkResponse:
    await lobby.cancel(user, match_id)
    return {"ok": True}


@router.post("/{match_id}/decline", **returns("ok"))
async def decline(match_id: MatchId, user: Player, lobby: LobbyDep) -> protocol.OkResponse:
    """Decline an open game reserved for you (a challenge or a rematch): it is cancelled,
    and its creator told (``cancelled``)."""
    await lobby.cancel(user, match_id, declined=True)
    return {"ok": True}


@router.post("/{match_id}/rematch", status_code=201, **returns("info", 201))
async def rematch(match_id: MatchId, user: Player, lobby: LobbyDep) -> views.InfoView:
    room = await lobby.rematch(user, match_id)
    return room.info_json()
