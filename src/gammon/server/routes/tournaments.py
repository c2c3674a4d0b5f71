"""``/api/tournaments``: knockout, Swiss and arena tournaments
(:mod:`gammon.server.tournaments`; PROTOCOL.md, *Tournaments*): the public ones, a new one,
one with its entries, rounds, standings and chat, entering, withdrawing, starting, a line
in its chat, and the standings as CSV. A private tournament is seen only by its organiser,
its players and with its invite ``key``: to anyone else it does not exist (404
``not_found``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from fastapi import Path as PathParam
from fastapi.responses import PlainTextResponse

from gammon import views
from gammon.server.hub import ServiceError
from gammon.server.protocol import NewTournament, Text, TournamentChat, TournamentEntry
from gammon.server.routes.deps import (
    CurrentUser,
    InviteKey,
    LimiterDep,
    Player,
    TournamentsDep,
    limit_chat,
    returns,
)

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"])

TournamentId = Annotated[Text, PathParam(pattern=r"^[A-Za-z0-9_-]{1,16}$",
                                         description="a tournament's id")]


@router.get("", **returns("tournaments"))
async def listing(service: TournamentsDep) -> views.TournamentListView:
    """The public tournaments: upcoming (soonest first), running, the last 50 finished."""
    return await service.listing()


@router.post("", status_code=201, **returns("tournament", 201))
async def create(body: NewTournament, user: CurrentUser, service: TournamentsDep
                 ) -> views.TournamentDetailView:
    """A new tournament, organised by the signed-in player (a registered one)."""
    if user is None:
        raise ServiceError("unauthenticated", "sign in to organise a tournament")
    t = await service.create(user, body)
    return await service.detail(t, user)


@router.get("/{tournament_id}", **returns("tournament"))
async def tournament(tournament_id: TournamentId, user: CurrentUser, service: TournamentsDep,
                     key: InviteKey = None) -> views.TournamentDetailView:
    """The tournament: its settings and state, entries, rounds with their pairings and
    matches, and standings."""
    return await service.detail(await service.visible(tournament_id, user, key), user)


@router.post("/{tournament_id}/register", **returns("tournament"))
async def register(tournament_id: TournamentId, user: Player, service: TournamentsDep,
                   key: InviteKey = None, body: TournamentEntry | None = None
                   ) -> views.TournamentDetailView:
    """Enter the tournament (``{"bot": N}``: the organiser enters the server's bot)."""
    t = await service.visible(tournament_id, user, key)
    await service.register(t, user, None if body is None else body.bot)
    return await service.detail(t, user)


@router.post("/{tournament_id}/withdraw", **returns("tournament"))
async def withdraw(tournament_id: TournamentId, user: Player, service: TournamentsDep,
                   key: InviteKey = None) -> views.TournamentDetailView:
    """Leave the tournament: not paired again; a match of yours in play is lost."""
    t = await service.visible(tournament_id, user, key)
    await service.withdraw(t, user)
    return await service.detail(t, user)


@router.post("/{tournament_id}/start", **returns("tournament"))
async def start(tournament_id: TournamentId, user: CurrentUser, service: TournamentsDep,
                key: InviteKey = None) -> views.TournamentDetailView:
    """Start it now (its organiser only): the first round is paired."""
    t = await service.visible(tournament_id, user, key)
    if user is None:
        raise ServiceError("unauthenticated", "sign in to start your tournament")
    await service.start(t, user)
    return await service.detail(await service.visible(tournament_id, user, key), user)


@router.post("/{tournament_id}/chat", **returns("tournament"))
async def chat(tournament_id: TournamentId, body: TournamentChat, user: CurrentUser,
               service: TournamentsDep, limiter: LimiterDep, key: InviteKey = None
               ) -> views.TournamentDetailView:
    """A line in the tournament's chat (its entrants and organiser only), rate-limited with
    the player's match chat."""
    t = await service.visible(tournament_id, user, key)
    if user is not None:  # anyone else is refused as no player, spending nothing
        await limit_chat(limiter, user.id)
    await service.chat(t, user, body.text)
    return await service.detail(t, user)


@router.get("/{tournament_id}/results.csv", response_class=PlainTextResponse)
async def results(tournament_id: TournamentId, user: CurrentUser, service: TournamentsDep,
                  key: InviteKey = None) -> PlainTextResponse:
    """The standings as CSV, a player a line."""
    t = await service.visible(tournament_id, user, key)
    return PlainTextResponse(await service.results_csv(t), media_type="text/csv",
                             headers={"content-disposition":
                                      f'attachment; filename="tournament-{t.slug}.csv"'})
