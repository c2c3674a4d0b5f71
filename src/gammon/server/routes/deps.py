"""The routes' typed dependencies (FastAPI ``Depends``): the process's services, the
signed-in user (or a new guest), rate limits and the room of a match the caller may see;
the parameter types; and :func:`returns`, a route's answer type for the OpenAPI document.

The services are made by the app's lifespan (:func:`gammon.server.app.create_app`) and
read here, in one place; a route names what it needs by type (``hub: HubDep``). A refusal
is a :class:`~gammon.server.hub.ServiceError` raised anywhere: the app answers it with its
reason code and the status of :data:`STATUS`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, cast

from fastapi import Depends, Query, Request, Response
from fastapi import Path as PathParam
from starlette.requests import HTTPConnection

from gammon.server import protocol
from gammon.server.accounts import COOKIE, SESSION_AGE, Sessions, new_guest, token_user
from gammon.server.db import Repository, User
from gammon.server.deck import DeckStore
from gammon.server.explorer import ChoiceStore, Rollouts
from gammon.server.hub import Hub, LiveRoom, ServiceError
from gammon.server.limits import RateLimiter, RedisRateLimiter
from gammon.server.lobby import Lobby
from gammon.server.matchmaking import Matchmaker
from gammon.server.play import Play
from gammon.server.protocol import RESPONSES, Text
from gammon.server.puzzles import PuzzleStore
from gammon.server.settings import Settings
from gammon.server.tournaments.scheduler import Tournaments

STATUS: dict[protocol.HTTPErrorCode, int] = {
    "bad_input": 422, "bad_name": 422, "weak_password": 422,
    "unauthenticated": 401, "bad_credentials": 401, "bad_token": 401,
    "not_a_player": 403, "reserved": 403, "rated_match_live": 403, "not_a_bot": 403,
    "session_required": 403, "not_organiser": 403,
    "not_found": 404, "no_puzzle": 404, "nothing_due": 404, "method_not_allowed": 405,
    "illegal_answer": 422, "rollout_running": 409,
    "too_many_games": 429, "too_many_tokens": 429, "rate_limited": 429,
    "internal": 500, "busy": 503, "analysis_busy": 503,
}
"""The HTTP status of a refusal, by its reason code; any other code is 409 (the request
conflicts with the state: ``not_open``, ``name_taken``, ``not_finished``, …)."""


def status_of(code: str) -> int:
    return STATUS.get(cast(protocol.HTTPErrorCode, code), 409)


def returns(kind: str, status: int = 200) -> dict[str, Any]:
    """The route options that show the answer's type (``protocol.RESPONSES[kind]``) in the
    OpenAPI document. The route returns a plain dict of that type: shown, not re-validated
    on each request (the tests validate every answer they get, strictly)."""
    return {"response_model": None,
            "responses": {status: {"model": RESPONSES[kind], "description": "OK"},
                          "4XX": {"model": protocol.HTTPError, "description": "refused: "
                                  "detail.code says why (PROTOCOL.md)"}}}


# -- the services ------------------------------------------------------------------------


def _service(name: str) -> Callable[[HTTPConnection], Awaitable[Any]]:
    """The dependency that reads the app's service ``name`` (``app.state.<name>``). Async,
    though it awaits nothing: FastAPI runs a plain function's dependency in its thread pool,
    a hop per dependency per request (a request of the puzzle page had three)."""

    async def service(conn: HTTPConnection) -> Any:
        return getattr(conn.app.state, name)

    return service


async def _dice_cache(conn: HTTPConnection) -> dict[str, Any]:
    return conn.app.state.__dict__.setdefault("dice_cache", {})  # type: ignore[no-any-return]


SettingsDep = Annotated[Settings, Depends(_service("settings"))]
RepoDep = Annotated[Repository, Depends(_service("repo"))]
HubDep = Annotated[Hub, Depends(_service("hub"))]
LobbyDep = Annotated[Lobby, Depends(_service("lobby"))]
MatchmakerDep = Annotated[Matchmaker, Depends(_service("matchmaker"))]
PlayDep = Annotated[Play, Depends(_service("play"))]
SessionsDep = Annotated[Sessions, Depends(_service("sessions"))]
PuzzlesDep = Annotated[PuzzleStore, Depends(_service("puzzles"))]
DeckDep = Annotated[DeckStore, Depends(_service("deck"))]
RolloutsDep = Annotated[Rollouts, Depends(_service("rollouts"))]
ChoicesDep = Annotated[ChoiceStore, Depends(_service("choices"))]
TournamentsDep = Annotated[Tournaments, Depends(_service("tournaments"))]
LimiterDep = Annotated[RateLimiter | RedisRateLimiter, Depends(_service("limiter"))]
DiceCache = Annotated[dict[str, Any], Depends(_dice_cache)]
"""This app's cache of the dice statistics."""

# Path and query parameters are client input like a body: checked the same way (422
# bad_input).
MatchId = Annotated[str, PathParam(pattern=protocol.MATCH_ID, description="a match id")]
UserName = Annotated[Text, PathParam(max_length=40, description="a player's name")]
InviteKey = Annotated[Text | None, Query(max_length=64, description=
                                         "the key of a private match's invite link")]


# -- rate limits -------------------------------------------------------------------------


async def limit(request: Request, limiter: RateLimiter | RedisRateLimiter, kind: str,
                per_minute: float, burst: int) -> None:
    """``rate_limited`` past ``per_minute`` (after a ``burst``) requests of ``kind`` from
    the request's address. Called in a route's body, so a request refused as
    ``bad_input`` spends nothing."""
    client = request.client.host if request.client else "?"
    if not await limiter.allow(f"{kind}:{client}", per_minute, burst):
        raise ServiceError("rate_limited", f"too many {kind} requests")


CHAT_RATE = (20.0, 5)
"""A player's chat lines a minute, after a burst: in matches and tournaments together."""


async def limit_chat(limiter: RateLimiter | RedisRateLimiter, user_id: int) -> None:
    """``rate_limited`` past :data:`CHAT_RATE`: a budget per player, not per address (the
    players of a club behind one address each have theirs)."""
    if not await limiter.allow(f"chat:{user_id}", *CHAT_RATE):
        raise ServiceError("rate_limited", "too many chat messages")


# -- who asks ----------------------------------------------------------------------------


async def current_user(request: Request, sessions: SessionsDep) -> User | None:
    """The user of the request's API token (``Authorization: Bearer``: a bot account's, or
    the refusal, 401 ``bad_token``, whatever cookie comes with it), else of its live
    session, or None."""
    header = request.headers.get("authorization")
    if header is not None:
        return (await token_user(sessions.repo, header))[1]
    session = await sessions.session(request.cookies.get(COOKIE))
    return None if session is None else session[1]


CurrentUser = Annotated[User | None, Depends(current_user)]


async def session_user(request: Request, sessions: SessionsDep) -> User:
    """The user of the request's live session (a browser's, signed in with a password): the
    account's own settings take one; an API token does not (403 ``session_required``: a
    leaked token cannot make more, or undo its own revocation)."""
    if request.headers.get("authorization") is not None:
        raise ServiceError("session_required", "sign in with your password for this, "
                                               "not with an API token")
    session = await sessions.session(request.cookies.get(COOKIE))
    if session is None:
        raise ServiceError("unauthenticated", "sign in first")
    return session[1]


SessionUser = Annotated[User, Depends(session_user)]


async def sign_in(request: Request, response: Response, sessions: Sessions,
                  user: User) -> None:
    """Sign ``user`` in: a new stored session, its random token in the cookie; the session
    the request came with (a guest's, say) is revoked."""
    cookie = await sessions.sign_in(user, request.cookies.get(COOKIE))
    response.set_cookie(COOKIE, cookie, max_age=SESSION_AGE, httponly=True, samesite="lax",
                        secure=sessions.secure)


async def guest(request: Request, response: Response, sessions: SessionsDep,
                limiter: LimiterDep, repo: RepoDep) -> User:
    """A new guest, signed in (its session cookie set on the response)."""
    await limit(request, limiter, "guest", 30, 30)
    user = await new_guest(repo)
    await sign_in(request, response, sessions, user)
    return user


async def player(request: Request, response: Response, user: CurrentUser,
                 sessions: SessionsDep, limiter: LimiterDep, repo: RepoDep) -> User:
    """The signed-in user, or a new guest (whose session cookie is set on the response)."""
    if user is not None:
        return user
    return await guest(request, response, sessions, limiter, repo)


Player = Annotated[User, Depends(player)]


async def visible_room(match_id: MatchId, request: Request, hub: HubDep, lobby: LobbyDep,
                       sessions: SessionsDep, key: InviteKey = None) -> LiveRoom:
    """The room of a match the request may see, or ``not_found`` — the same for a private
    match without the key as for no match at all (:meth:`Lobby.may_see
    <gammon.server.lobby.Lobby.may_see>`)."""
    room = await hub.room(match_id)
    user = None if room is None or not room.private else await current_user(request, sessions)
    if room is None or not lobby.may_see(room, None if user is None else user.id, key):
        raise ServiceError("not_found", "no such match")
    return room


VisibleRoom = Annotated[LiveRoom, Depends(visible_room)]
