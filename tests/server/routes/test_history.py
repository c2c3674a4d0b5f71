"""A player's profile (routes/history.py), on both stores: the error rate of each analysed
match as the match's own analysis gives it, the rating after each rated match, results by
kind and length, the most frequent opponents; a private match shown only to its players; an
unknown player refused; the player's public tournaments, with their place in a finished one
(a knockout played out through the real code, tests/server/test_tournaments.py's helpers),
never a private one."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient

from gammon.server.app import create_app
from gammon.server.db import make_engine, matches, rating_changes
from tests.server.conftest import Browser, make_settings, run_async
from tests.server.test_analysis import bot_match, wait_done
from tests.server.test_puzzles import refused, valid
from tests.server.test_tournaments import (
    Field,
    checked,
    enter,
    new_tournament,
    organiser,
    play_out,
)


def test_a_profile_from_a_players_matches(database_url: str, redis_url: str) -> None:
    settings = make_settings(database_url, redis_url, analysis_plies=0,
                             analysis_deep_plies=0)
    with TestClient(create_app(settings)) as client:
        ann = Browser(client)
        assert ann.post("/api/register", json={"name": "ann", "password": "a-long-secret"}
                        ).status_code == 201
        with bot_match(ann, seed=3) as (shown, _):
            pass
        with bot_match(ann, seed=4, private=True) as (hidden, _):
            pass
        analyses = [wait_done(ann, f"/api/games/{g['id']}/analysis?ply=0").json()
                    for g in (shown, hidden)]
        ann_id = ann.get("/api/me").json()["user"]["id"]

        # the rating changes of two rated matches, as their ends store them (the rating
        # maths are tests/server/test_ratings.py's)
        async def rated() -> None:
            engine = make_engine(database_url)
            async with engine.begin() as conn:
                for n, (before, after) in enumerate([(1500.0, 1516.0), (1516.0, 1503.5)]):
                    await conn.execute(rating_changes.insert().values(
                        user_id=ann_id, match_id=f"rated{n}", before=before, after=after,
                        at=time.time() + n))
            await engine.dispose()

        run_async(rated)

        mine = valid("profile", ann.get("/api/users/ann/profile"))
        assert mine["user"]["name"] == "ann"
        assert [p["rating"] for p in mine["ratings"]] == [1516.0, 1503.5]
        assert [p["match"] for p in mine["error_rates"]] == [shown["id"], hidden["id"]]
        for point, analysis in zip(mine["error_rates"], analyses, strict=True):
            seat = 0  # the creator sits first against the bot
            assert point["error_rate"] == analysis["players"][seat]["error_rate_mp"]
            assert point["plies"] == 0
        winners = [row.winner for row in rows_of(database_url, [shown["id"], hidden["id"]])]
        assert mine["results"] == [{"kind": "single", "length": 1, "played": 2,
                                    "won": sum(w == 0 for w in winners)}]
        (bot,) = mine["opponents"]
        assert bot["played"] == 2 and bot["won"] == sum(w == 0 for w in winners)

        # another viewer does not see the private match
        theirs = valid("profile", Browser(client).get("/api/users/ann/profile"))
        assert [p["match"] for p in theirs["error_rates"]] == [shown["id"]]
        assert theirs["results"][0]["played"] == 1
        refused(Browser(client).get("/api/users/nobody-here/profile"), 404, "not_found")


def test_a_profile_lists_the_players_public_tournaments(database_url: str, redis_url: str
                                                        ) -> None:
    settings = make_settings(database_url, redis_url, tournament_interval=3600,
                             tournament_no_show=60.0)
    with TestClient(create_app(settings)) as client:
        field = Field(client)
        org = organiser(client)
        cup = new_tournament(org, format="knockout", name="Spring cup")["tournament"]["id"]
        ids = field.add(5)
        enter(field, cup, ids)
        ratings = {u: 1700.0 - 50 * n for n, u in enumerate(ids)}
        field.set_ratings(ratings)
        quitter = ids[4]
        checked(field.browsers[quitter].post(f"/api/tournaments/{cup}/withdraw"))
        checked(org.post(f"/api/tournaments/{cup}/start"))
        detail = play_out(field, org, cup, lambda a, b: a if ratings[a] < ratings[b] else b)
        places = {s["id"]: s["place"] for s in detail["standings"]}
        # seeds 1 v 4 and 2 v 3, then the final: the second seed loses it
        second = ids[1]
        assert places[ids[0]] == 1 and places[second] == 2
        # a private tournament it enters, played out too, and a public one still open
        hidden = new_tournament(org, format="knockout", name="Secret cup", private=True)
        key = hidden["invite"].split("key=")[1]
        secret = hidden["tournament"]["id"]
        for user in ids[:2]:
            checked(field.browsers[user].post(f"/api/tournaments/{secret}/register?key={key}"))
        checked(org.post(f"/api/tournaments/{secret}/start?key={key}"))
        play_out(field, org, secret, max)
        later = new_tournament(org, format="swiss", rounds=3, name="Summer cup")
        soon = later["tournament"]["id"]
        enter(field, soon, [second])

        def tournaments_of(user: int, viewer: Browser) -> list[dict[str, Any]]:
            name = field.browsers[user].get("/api/me").json()["user"]["name"]
            found: list[dict[str, Any]] = valid(
                "profile", viewer.get(f"/api/users/{name}/profile"))["tournaments"]
            return found

        finished_at = detail["tournament"]["finished_at"]
        for viewer in (field.browsers[second], Browser(client)):  # the player, or anyone
            assert tournaments_of(second, viewer) == [
                {"id": soon, "name": "Summer cup", "format": "swiss", "state": "registering",
                 "finished_at": None, "place": None, "entrants": None, "withdrawn": False},
                {"id": cup, "name": "Spring cup", "format": "knockout", "state": "finished",
                 "finished_at": finished_at, "place": 2, "entrants": 5, "withdrawn": False}]
        # the player who withdrew keeps their place among every entrant
        (theirs,) = tournaments_of(quitter, Browser(client))
        assert theirs["withdrawn"] and theirs["place"] == places[quitter]
        assert theirs["entrants"] == 5
        # the winner of both sees only the public one; a player of none, nothing
        assert [t["id"] for t in tournaments_of(ids[0], field.browsers[ids[0]])] == [cup]
        (newcomer,) = field.add(1)
        assert tournaments_of(newcomer, Browser(client)) == []


def rows_of(database_url: str, ids: list[str]) -> list[Any]:
    """The ``matches`` rows of ``ids``, in that order."""
    async def read() -> list[Any]:
        engine = make_engine(database_url)
        async with engine.connect() as conn:
            found = {r.id: r for r in (await conn.execute(
                matches.select().where(matches.c.id.in_(ids)))).all()}
        await engine.dispose()
        return [found[i] for i in ids]

    return run_async(read)
