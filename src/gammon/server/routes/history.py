"""What was played: a match's export (``.mat``, SGF) and fairness record, a player's
history and ratings, the leaderboard and the dice statistics."""

from __future__ import annotations

import asyncio
import json
import time

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from gammon import views
from gammon.server import exports, protocol
from gammon.server.db import Repository, User
from gammon.server.fairness import verify
from gammon.server.hub import ServiceError
from gammon.server.records import MatchRow
from gammon.server.rooms import PAUSE
from gammon.server.routes.deps import (
    CurrentUser,
    DiceCache,
    HubDep,
    InviteKey,
    LobbyDep,
    MatchId,
    RepoDep,
    SessionsDep,
    TournamentsDep,
    UserName,
    returns,
    visible_room,
)

router = APIRouter(prefix="/api", tags=["history"])


@router.get("/games/{match_id}/export.{fmt}", response_class=PlainTextResponse)
async def export(match_id: MatchId, fmt: exports.Format, request: Request, repo: RepoDep,
                 hub: HubDep, lobby: LobbyDep, sessions: SessionsDep,
                 key: InviteKey = None) -> PlainTextResponse:
    """The match as a Jellyfish / GNU Backgammon ``.mat`` file or an SGF file
    (:mod:`gammon.server.exports`), built from the match's stored actions."""
    room = await visible_room(match_id, request, hub, lobby, sessions, key)
    if room.rules is None:
        raise ServiceError("not_started", "the match has not started yet")
    row, rows = await repo.match_with_actions(match_id)
    names = [room.users[p].name if p in room.users else "" for p in room.players]
    try:
        text = await asyncio.to_thread(
            exports.match_file, fmt, match_id=match_id, rules=room.rules, names=names,
            created_at=None if row is None else row.created_at,
            actions=[r.action for r in rows if r.kind != PAUSE])
    except exports.ExportError as error:
        raise ServiceError("not_exportable", str(error)) from None
    return PlainTextResponse(text, headers={
        "content-disposition": f'attachment; filename="{match_id}.{fmt}"'})


@router.get("/games/{match_id}/fairness", **returns("fairness"))
async def fairness(match_id: MatchId, request: Request, repo: RepoDep, hub: HubDep,
                   lobby: LobbyDep, sessions: SessionsDep,
                   key: InviteKey = None) -> protocol.FairnessRecord:
    """The dice commitment and, once the match is over, the seed that proves it."""
    await visible_room(match_id, request, hub, lobby, sessions, key)
    row, rows = await repo.match_with_actions(match_id)
    if row is None:
        raise ServiceError("not_found", "no such match")
    record: protocol.FairnessRecord = {
        "match": match_id, "seed_hash": row.seed_hash,
        "client_seeds": [row.client_seed0, row.client_seed1],
        "winner_rolls_anew": row.config.winner_rolls_anew,
        "server_seed": row.server_seed if row.status == "finished" else None,
        "actions": [json.loads(r.action) for r in rows
                    if r.kind in ("opening", "roll")],
    }
    if record["server_seed"]:
        record["problems"] = verify(dict(record))
    return record


async def _visible_history(repo: Repository, name: str, viewer: User | None
                           ) -> tuple[User, list[MatchRow]]:
    """The player ``name`` and their last hundred matches in play or finished that
    ``viewer`` may see (a private match only to its players); ``not_found`` for no such
    player."""
    found = await repo.user_by_name(name)
    if found is None:
        raise ServiceError("not_found", "no such player")
    return found[0], [r for r in await repo.history(found[0].id)
                      if not r.private or (viewer is not None
                                           and viewer.id in (r.player0, r.player1))]


@router.get("/users/{name}/history", **returns("history"))
async def history(name: UserName, repo: RepoDep,
                  viewer: CurrentUser) -> list[protocol.HistoryEntry]:
    _, rows = await _visible_history(repo, name, viewer)
    ids = {p for r in rows for p in (r.player0, r.player1) if p is not None}
    users = await repo.users(list(ids))
    return [{"id": r.id, "status": r.status,
             "config": views.config_view(r.config),
             "players": [users[p].name if p in users else None
                         for p in (r.player0, r.player1)],
             "winner": r.winner, "result": json.loads(r.result) if r.result else None,
             "rated": bool(r.rated), "created_at": r.created_at,
             "finished_at": r.finished_at} for r in rows]


@router.get("/users/{name}/ratings", **returns("ratings"))
async def ratings(name: UserName, repo: RepoDep) -> protocol.RatingsResponse:
    found = await repo.user_by_name(name)
    if found is None:
        raise ServiceError("not_found", "no such player")
    return {"user": views.user_view(found[0]),
            "history": await repo.rating_history(found[0].id)}


@router.get("/users/{name}/profile", **returns("profile"))
async def profile(name: UserName, repo: RepoDep, viewer: CurrentUser,
                  service: TournamentsDep) -> views.ProfileView:
    """A player's profile, from their last hundred matches the viewer may see: the rating
    after each rated match, the error rate of each analysed one, results by kind and length,
    the most frequent opponents (ten); and their last twenty public tournaments, with their
    place in each finished one."""
    user, rows = await _visible_history(repo, name, viewer)
    finished = sorted((r for r in rows if r.status == "finished" and r.winner is not None),
                      key=lambda r: r.finished_at or 0.0)
    rates = await repo.error_rates([r.id for r in finished])
    seat = {r.id: 0 if r.player0 == user.id else 1 for r in finished}
    by_kind: dict[tuple[str, int], list[int]] = {}
    by_opponent: dict[int, list[int]] = {}
    for r in finished:
        won = int(r.winner == seat[r.id])
        kind = by_kind.setdefault((r.config.kind, r.config.length), [0, 0])
        kind[0], kind[1] = kind[0] + 1, kind[1] + won
        other = r.player1 if seat[r.id] == 0 else r.player0
        if other is not None:
            against = by_opponent.setdefault(other, [0, 0])
            against[0], against[1] = against[0] + 1, against[1] + won
    frequent = sorted(by_opponent.items(), key=lambda item: -item[1][0])[:10]
    names = await repo.users([other for other, _ in frequent])
    return {
        "user": views.user_view(user),
        "ratings": [{"match": c["match"], "at": c["at"], "rating": c["after"]}
                    for c in await repo.rating_history(user.id)],
        "error_rates": [{"match": r.id, "at": r.finished_at or 0.0,
                         "error_rate": rates[r.id][1][seat[r.id]], "plies": rates[r.id][0]}
                        for r in finished if r.id in rates],
        "results": [{"kind": kind, "length": length, "played": n, "won": won}
                    for (kind, length), (n, won) in sorted(by_kind.items())],
        "opponents": [{"opponent": names[other].name if other in names else "?",
                       "played": n, "won": won} for other, (n, won) in frequent],
        "tournaments": await service.history(user.id),
    }


@router.get("/leaderboard", **returns("leaderboard"))
async def leaderboard(repo: RepoDep) -> list[protocol.LeaderboardEntry]:
    users = await repo.leaderboard()
    return [{"rank": i + 1, **views.user_view(u)} for i, u in enumerate(users)]


@router.get("/dice-stats", **returns("dice_stats"))
async def dice_stats(repo: RepoDep, cache: DiceCache) -> protocol.DiceStats:
    """How often each face and each roll came up on this server (public; counted again
    at most every 30 s)."""
    if cache.get("at", 0) > time.monotonic() - 30:
        return cache["value"]  # type: ignore[no-any-return]
    faces = [0] * 6
    rolls: dict[str, int] = {}
    for text in await repo.dice_actions():
        action = json.loads(text)
        dice = [d for pair in action["throws"] for d in pair] if action["t"] == "opening" \
            else action["roll"]
        for die in dice:
            faces[die - 1] += 1
        if action["t"] == "roll":
            key = "".join(map(str, sorted(action["roll"], reverse=True)))
            rolls[key] = rolls.get(key, 0) + 1
    value: protocol.DiceStats = {"faces": faces, "dice": sum(faces), "rolls": rolls}
    cache.update(at=time.monotonic(), value=value)
    return value
