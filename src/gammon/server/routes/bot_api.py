"""The Bot API (PROTOCOL.md, *The Bot API*): ``/api/account/bot`` turns the signed-in
account into a bot account, ``/api/tokens`` makes, lists and revokes its API tokens, and
``/api/challenges`` lists the games reserved for the caller (``/api/challenges/sent``, those
the caller reserved for another). A program then signs in with
``Authorization: Bearer <token>`` on every route and on ``/ws``
(:func:`gammon.server.routes.deps.current_user`, :mod:`gammon.server.routes.socket`) and plays
like a person."""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import APIRouter
from fastapi import Path as PathParam

from gammon import views
from gammon.server import accounts, protocol
from gammon.server.hub import ServiceError
from gammon.server.protocol import NewToken
from gammon.server.routes.deps import (
    CurrentUser,
    LobbyDep,
    RepoDep,
    SessionsDep,
    SessionUser,
    returns,
)

router = APIRouter(prefix="/api", tags=["bot api"])

TokenId = Annotated[int, PathParam(ge=1, le=2**53, description="a token's id")]
MAX_TOKENS = 20
"""The most live tokens an account may hold."""


@router.post("/account/bot", **returns("user"))
async def make_bot(user: SessionUser, repo: RepoDep) -> protocol.UserResponse:
    """Turn the signed-in account into a bot account, for good: only a registered player
    who has played no rated match and has no match open or in play (409
    ``not_eligible``; ``already_bot`` for a bot account)."""
    refused = await repo.make_bot_account(user.id)
    if refused == "already_bot":
        raise ServiceError("already_bot", "this account is a bot account already")
    if refused is not None:
        raise ServiceError("not_eligible", "only a registered account that has played no "
                                           "rated match, with no match open or in play, "
                                           "becomes a bot account")
    upgraded = await repo.user(user.id)
    assert upgraded is not None
    return {"user": views.user_view(upgraded)}


@router.post("/tokens", status_code=201, **returns("token", 201))
async def create_token(body: NewToken, user: SessionUser, repo: RepoDep
                       ) -> protocol.CreatedToken:
    """A new API token of the bot account: its secret is in this answer only."""
    if not user.bot_account:
        raise ServiceError("not_a_bot", "API tokens are a bot account's "
                                        "(POST /api/account/bot)")
    if len(await repo.tokens(user.id)) >= MAX_TOKENS:
        raise ServiceError("too_many_tokens", f"at most {MAX_TOKENS} tokens per account")
    token, digest = accounts.new_token()
    made = await repo.create_token(user.id, digest, body.description,
                                   sorted(set(body.scopes)))
    return cast(protocol.CreatedToken, {**made, "token": token})


@router.get("/tokens", **returns("tokens"))
async def list_tokens(user: SessionUser, repo: RepoDep) -> list[protocol.TokenView]:
    """The account's tokens, without their secrets."""
    return await repo.tokens(user.id)


@router.delete("/tokens/{token_id}", **returns("ok"))
async def revoke_token(token_id: TokenId, user: SessionUser,
                       sessions: SessionsDep) -> protocol.OkResponse:
    """Revoke a token: it signs nobody in from now on, and its sockets are closed (4401)."""
    if not await sessions.revoke_token(user, token_id):
        raise ServiceError("not_found", "no such token of yours")
    return {"ok": True}


@router.get("/challenges", **returns("open_games"))
async def challenges(user: CurrentUser, lobby: LobbyDep) -> list[protocol.OpenGame]:
    """The open games reserved for the caller: challenges (``POST /api/games`` with
    ``opponent``) and rematches, oldest first; each is the caller's to join."""
    return [] if user is None else await lobby.challenges(user)


@router.get("/challenges/sent", **returns("sent_challenges"))
async def sent_challenges(user: CurrentUser, lobby: LobbyDep) -> list[protocol.SentChallenge]:
    """The open games the caller reserved for another player (challenges and rematches
    not yet answered), oldest first, each with the ``opponent`` it waits for."""
    return [] if user is None else await lobby.sent_challenges(user)
