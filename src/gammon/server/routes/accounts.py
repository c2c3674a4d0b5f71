"""``/api/me``, ``/api/guest``, ``/api/register``, ``/api/login``, ``/api/logout``,
``/api/logout-all``, ``/api/me/options``: accounts and sessions
(:mod:`gammon.server.accounts`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response

from gammon import views
from gammon.server import accounts, protocol
from gammon.server.accounts import COOKIE
from gammon.server.bus_messages import OptionsChanged
from gammon.server.db import User
from gammon.server.hub import ServiceError
from gammon.server.protocol import Credentials, Options
from gammon.server.routes.deps import (
    HubDep,
    LimiterDep,
    Player,
    RepoDep,
    SessionsDep,
    guest,
    limit,
    returns,
    sign_in,
)

router = APIRouter(prefix="/api", tags=["accounts"])


@router.get("/me", **returns("me"))
async def me(user: Player) -> protocol.MeResponse:
    options: Any = Options.model_validate(user.options).model_dump()
    return {"user": views.user_view(user), "options": options}


@router.post("/guest", **returns("user"))
async def new_guest(user: Annotated[User, Depends(guest)]) -> protocol.UserResponse:
    return {"user": views.user_view(user)}


@router.post("/register", status_code=201, **returns("user", 201))
async def register(body: Credentials, request: Request, response: Response, repo: RepoDep,
                   sessions: SessionsDep, limiter: LimiterDep) -> protocol.UserResponse:
    await limit(request, limiter, "register", 5, 5)
    user = await accounts.register(repo, body.name, body.password)
    await sign_in(request, response, sessions, user)
    return {"user": views.user_view(user)}


@router.post("/login", **returns("user"))
async def login(body: Credentials, request: Request, response: Response, repo: RepoDep,
                sessions: SessionsDep, limiter: LimiterDep) -> protocol.UserResponse:
    """Wrong name and wrong password get the same answer in the same time."""
    await limit(request, limiter, "login", 10, 10)
    user = await accounts.login(repo, body.name, body.password)
    await sign_in(request, response, sessions, user)
    return {"user": views.user_view(user)}


@router.post("/logout", **returns("ok"))
async def logout(request: Request, response: Response,
                 sessions: SessionsDep) -> protocol.OkResponse:
    """Sign out: this session is revoked on the server (a copy of the cookie signs nobody
    in) and its sockets are closed."""
    session_id = sessions.session_id(request.cookies.get(COOKIE))
    if session_id is not None:
        await sessions.revoke([session_id])
    response.delete_cookie(COOKIE)
    return {"ok": True}


@router.post("/logout-all", **returns("logout_all"))
async def logout_all(request: Request, response: Response,
                     sessions: SessionsDep) -> protocol.LogoutAllResponse:
    """Sign out everywhere: every session of this user is revoked (this one too)."""
    session = await sessions.session(request.cookies.get(COOKIE))
    if session is None:
        raise ServiceError("unauthenticated", "no session to sign out of")
    revoked = await sessions.revoke(user_id=session[1].id)
    response.delete_cookie(COOKIE)
    return {"ok": True, "revoked": revoked}


@router.get("/me/options")
async def get_options(user: Player) -> Options:
    return Options.model_validate(user.options)


@router.put("/me/options")
async def put_options(body: Options, user: Player, repo: RepoDep, hub: HubDep) -> Options:
    """Store the options; in a match in play they apply from the next action (confirming
    and auto-roll are read by the server at each turn: PROTOCOL.md, *Options*)."""
    await repo.set_options(user.id, body.model_dump())
    await hub.options_changed(user.id)
    await hub.publish(OptionsChanged(user=user.id))
    return body
