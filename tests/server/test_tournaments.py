"""Tournaments on the server (gammon.server.tournaments, ``/api/tournaments``), on every
store: a 32-player knockout, a 16-player five-round Swiss and an arena of a fixed time,
played to the end through the real match code (each match lost by the weaker player's
``abandon`` on their socket), their standings and tie-breaks checked against a computation
of this file's own; nobody paired twice in a round (and the database refusing it); byes to
the top seeds; the no-show rule; the server's bots entered and playing their match out; the
scheduler stopped mid-round and another started on the same database (and, on PostgreSQL, a
second server process taking over when the first is killed); bad input refused with a clear
code, changing nothing.

The scheduler's clock is set where time must pass (an arena's end, a no-show's wait): no
test sleeps for it."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import IntegrityError
from websockets.sync.client import connect

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.server import bots, protocol
from gammon.server.accounts import COOKIE
from gammon.server.app import create_app
from gammon.server.db import tournament_seats, users
from gammon.server.settings import Settings
from gammon.server.tournaments.scheduler import LOCK_KEY, Tournaments
from tests.processes import ServerProcess
from tests.server.conftest import Browser, make_settings, run_async

NO_SHOW = 60.0
STALL = 900.0  # Settings.tournament_stall's default


@pytest.fixture
def settings(database_url: str, redis_url: str) -> Settings:
    """Passes only when asked for (or when a match ends): the tests drive the clock."""
    return make_settings(database_url, redis_url, tournament_interval=3600,
                         tournament_no_show=NO_SHOW)


def service(client: TestClient) -> Tournaments:
    return client.app.state.tournaments  # type: ignore[attr-defined,no-any-return]


def pass_now(client: TestClient) -> None:
    assert client.portal is not None
    assert client.portal.call(service(client).pass_now)


def checked(response: httpx.Response, status: int = 200, kind: str = "tournament"
            ) -> dict[str, Any]:
    """The answer's JSON, validated strictly as its type."""
    assert response.status_code == status, response.text
    data: dict[str, Any] = response.json()
    protocol.response_adapter(kind).validate_python(data)
    return data


def refused(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert detail["code"] == code and detail["message"]


class Field:
    """Players for a test: guests of one app, each with their session, and their ids."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.browsers: dict[int, Browser] = {}

    def add(self, n: int) -> list[int]:
        ids = []
        for _ in range(n):
            browser = Browser(self.client)
            me = browser.get("/api/me").json()["user"]["id"]
            self.browsers[me] = browser
            ids.append(me)
        return ids

    def set_ratings(self, ratings: Mapping[int, float]) -> None:
        async def update() -> None:
            async with service(self.client).store.engine.begin() as conn:
                for user_id, rating in ratings.items():
                    await conn.execute(users.update().where(users.c.id == user_id)
                                       .values(rating=rating))

        assert self.client.portal is not None
        self.client.portal.call(update)

    def abandon(self, user_id: int, match_id: str) -> None:
        """``user_id`` gives up ``match_id`` on their socket (the match's own code ends it:
        the opponent wins)."""
        with self.browsers[user_id].websocket_connect("/ws") as ws:
            ws.send_json({"type": "subscribe", "match": match_id})
            while ws.receive_json()["type"] != "state":
                pass
            ws.send_json({"type": "abandon", "match": match_id})
            while True:
                message = ws.receive_json()
                if message["type"] == "error":
                    raise AssertionError(message)
                if message["type"] == "update" and any(
                        e["type"] == "match_ended" for e in message["events"]):
                    return


def organiser(client: TestClient, name: str = "organiser") -> Browser:
    browser = Browser(client)
    assert browser.post("/api/register", json={"name": name, "password": "password-1"}
                        ).status_code == 201
    return browser


def new_tournament(browser: Browser, **body: Any) -> dict[str, Any]:
    return checked(browser.post("/api/tournaments", json={"name": "Test cup", **body}), 201)


def enter(field: Field, slug: str, ids: list[int]) -> None:
    for user_id in ids:
        checked(field.browsers[user_id].post(f"/api/tournaments/{slug}/register"))


def pending(detail: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for r in detail["rounds"] for p in r["pairings"] if p["winner"] is None]


def play_out(field: Field, org: Browser, slug: str, loser: Callable[[int, int], int],
             before_pass: Callable[[], None] = lambda: None, limit: int = 200
             ) -> dict[str, Any]:
    """Play the tournament to its end: each match in play lost by ``loser(first, second)``
    (who abandons it), then a pass; the last detail."""
    for _ in range(limit):
        detail = checked(org.get(f"/api/tournaments/{slug}"))
        if detail["tournament"]["state"] == "finished":
            return detail
        for p in pending(detail):
            assert p["match"] is not None
            field.abandon(loser(p["first"], p["second"]), p["match"])
        before_pass()
        pass_now(field.client)
    raise AssertionError("the tournament never finished")


def assert_nobody_twice_in_a_round(detail: dict[str, Any]) -> None:
    for r in detail["rounds"]:
        seated = [u for p in r["pairings"] for u in (p["first"], p["second"]) if u is not None]
        assert len(seated) == len(set(seated)), r["round"]


# -- the three formats, played out --------------------------------------------------------


def test_a_32_player_knockout_is_played_out_by_its_bracket(client: TestClient) -> None:
    field = Field(client)
    org = organiser(client)
    slug = new_tournament(org, format="knockout", length=3)["tournament"]["id"]
    ids = field.add(32)
    enter(field, slug, ids)
    # ratings changed after entering: the seeds are the ratings at the start
    rng = random.Random(32)
    ratings = dict(zip(ids, rng.sample(range(1200, 1900, 10), 32), strict=True))
    field.set_ratings(ratings)
    started = checked(org.post(f"/api/tournaments/{slug}/start"))
    assert started["tournament"]["state"] == "running"
    assert started["tournament"]["round"] == 1
    seed = {user: n for n, user in enumerate(sorted(ids, key=lambda u: -ratings[u]), 1)}
    first = started["rounds"][0]["pairings"]
    assert len(first) == 16 and all(p["match"] for p in first)
    # the standard bracket: seed s meets 33 - s, seeds 1 and 2 in opposite halves
    assert sorted(seed[p["first"]] + seed[p["second"]] for p in first) == [33] * 16
    halves = [{seed[p["first"]] for p in first[:8]}, {seed[p["first"]] for p in first[8:]}]
    assert {1, 2} & halves[0] and {1, 2} & halves[1]
    # each match is real: in play, between those two, of the tournament's length
    state = org.get(f"/api/games/{first[0]['match']}").json()["info"]
    assert state["status"] == "playing" and state["length"] == 3
    assert [s["id"] for s in state["seats"]] == [first[0]["first"], first[0]["second"]]

    detail = play_out(field, org, slug, lambda a, b: a if ratings[a] < ratings[b] else b)
    assert_nobody_twice_in_a_round(detail)
    rounds = detail["rounds"]
    assert [len(r["pairings"]) for r in rounds] == [16, 8, 4, 2, 1]
    # seeds meet as the bracket says when the higher seed always wins
    for r, total in zip(rounds, [33, 17, 9, 5, 3], strict=True):
        assert all(seed[p["first"]] + seed[p["second"]] == total for p in r["pairings"])
        assert all(p["winner"] == min(p["first"], p["second"], key=seed.__getitem__)
                   and p["reason"] is None for p in r["pairings"])
    # the standings: rounds gone through, ties by rating (computed here from the seeds)
    expected_points = {1: 5, 2: 4, 3: 3, 4: 3, **dict.fromkeys(range(5, 9), 2),
                       **dict.fromkeys(range(9, 17), 1), **dict.fromkeys(range(17, 33), 0)}
    table = detail["standings"]
    assert [s["id"] for s in table] == sorted(ids, key=seed.__getitem__)
    assert [s["points"] for s in table] == [expected_points[seed[s["id"]]] for s in table]
    assert [s["place"] for s in table] == list(range(1, 33))
    assert all(s["played"] == min(seed_rounds(seed[s["id"]]), 5) for s in table)
    # every match finished, each once, with the winner the pairing says
    for p in (p for r in rounds for p in r["pairings"]):
        info = org.get(f"/api/games/{p['match']}").json()["info"]
        assert info["status"] == "finished"
        assert info["seats"][info["result"]["winner"]]["id"] == p["winner"]
    assert detail["tournament"]["finished_at"] is not None


def seed_rounds(seed: int) -> int:
    """How many matches a seed plays in a 32-player bracket won by the higher seed."""
    return {1: 5, 2: 5}.get(seed, 4 if seed <= 4 else 3 if seed <= 8 else 2 if seed <= 16
                            else 1)


def test_a_16_player_swiss_of_five_rounds(client: TestClient) -> None:
    field = Field(client)
    org = organiser(client)
    slug = new_tournament(org, format="swiss", rounds=5, length=1)["tournament"]["id"]
    ids = field.add(16)
    enter(field, slug, ids)
    rng = random.Random(16)
    ratings = dict(zip(ids, rng.sample(range(1300, 1700, 5), 16), strict=True))
    field.set_ratings(ratings)
    strength = {u: rng.random() for u in ids}  # not the rating: upsets happen
    checked(org.post(f"/api/tournaments/{slug}/start"))
    detail = play_out(field, org, slug,
                      lambda a, b: a if strength[a] < strength[b] else b)
    rounds = detail["rounds"]
    assert len(rounds) == 5 and all(len(r["pairings"]) == 8 for r in rounds)
    assert_nobody_twice_in_a_round(detail)
    met = [frozenset((p["first"], p["second"])) for r in rounds for p in r["pairings"]]
    assert len(met) == len(set(met))  # no rematch
    # the standings, computed here: a win is a point; Buchholz the opponents' points,
    # Sonneborn-Berger those of the opponents beaten; then the rating
    points = dict.fromkeys(ids, 0)
    for r in rounds:
        for p in r["pairings"]:
            points[p["winner"]] += 1
    buchholz = dict.fromkeys(ids, 0)
    berger = dict.fromkeys(ids, 0)
    for r in rounds:
        for p in r["pairings"]:
            for me, them in ((p["first"], p["second"]), (p["second"], p["first"])):
                buchholz[me] += points[them]
                berger[me] += points[them] if p["winner"] == me else 0
    expected = sorted(ids, key=lambda u: (-points[u], -buchholz[u], -berger[u],
                                          -ratings[u]))
    table = detail["standings"]
    assert [s["id"] for s in table] == expected
    for s in table:
        assert (s["points"], s["buchholz"], s["sonneborn_berger"], s["played"]) == (
            points[s["id"]], buchholz[s["id"]], berger[s["id"]], 5)
        assert s["won"] == points[s["id"]] and s["rating"] == ratings[s["id"]]
    # the first round: the upper half of the field against the lower half, by rating
    ranked = sorted(ids, key=lambda u: -ratings[u])
    assert [(p["first"], p["second"]) for p in rounds[0]["pairings"]] == list(
        zip(ranked[:8], ranked[8:], strict=True))
    # the CSV export says the same
    csv = org.get(f"/api/tournaments/{slug}/results.csv")
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    lines = csv.text.splitlines()
    assert lines[0] == "place,name,points,played,won,buchholz,sonneborn_berger,rating,withdrawn"
    first = lines[1].split(",")
    assert first[0] == "1" and first[2] == str(points[expected[0]])
    assert first[5] == str(buchholz[expected[0]]) and len(lines) == 17


def test_an_arena_pairs_the_finished_players_again_until_its_end(client: TestClient) -> None:
    field = Field(client)
    org = organiser(client)
    slug = new_tournament(org, format="arena", duration=60, length=1)["tournament"]["id"]
    ids = field.add(6)
    enter(field, slug, ids)
    ratings = {u: 1500.0 + 40 * n for n, u in enumerate(ids)}
    field.set_ratings(ratings)
    strength = {u: random.Random(6).random() + n % 3 for n, u in enumerate(ids)}
    t0 = time.time()
    clock = [t0]
    service(client).clock = lambda: clock[0]
    started = checked(org.post(f"/api/tournaments/{slug}/start"))
    assert started["tournament"]["ends_at"] == pytest.approx(t0 + 60)
    # neighbours by rating
    assert [(p["first"], p["second"]) for p in started["rounds"][0]["pairings"]] == [
        (ids[5], ids[4]), (ids[3], ids[2]), (ids[1], ids[0])]

    def tick() -> None:
        clock[0] += 7  # a wave every 7 s of the arena's clock: 9 waves in its minute

    detail = play_out(field, org, slug, lambda a, b: a if strength[a] < strength[b] else b,
                      before_pass=tick)
    rounds = detail["rounds"]
    assert_nobody_twice_in_a_round(detail)
    # paired again and again (a pair as soon as its players are both free), never at or
    # after the end, and the matches in play at the end counted
    made = [p["made_at"] for r in rounds for p in r["pairings"]]
    ends_at = detail["tournament"]["ends_at"]
    assert len(rounds) > 8 and max(made) < ends_at <= max(made) + 7
    assert detail["tournament"]["finished_at"] >= ends_at
    # the points computed here: 2 a win, 4 a win after two wins in a row, 0 a loss
    results: dict[int, list[bool]] = {u: [] for u in ids}
    for r in rounds:
        for p in r["pairings"]:
            results[p["first"]].append(p["winner"] == p["first"])
            results[p["second"]].append(p["winner"] == p["second"])
    points = {}
    for u, seq in results.items():
        total = streak = 0
        for won in seq:
            total += (4 if streak >= 2 else 2) if won else 0
            streak = streak + 1 if won else 0
        points[u] = total
    wins = {u: sum(seq) for u, seq in results.items()}
    expected = sorted(ids, key=lambda u: (-points[u], -wins[u], -ratings[u]))
    table = detail["standings"]
    assert [(s["id"], s["points"], s["won"], s["played"]) for s in table] == [
        (u, points[u], wins[u], len(results[u])) for u in expected]
    assert any(p >= 8 for p in points.values())  # a streak paid somewhere
    assert table[0]["buchholz"] is None


def test_a_knockout_gives_its_byes_to_the_top_seeds(client: TestClient) -> None:
    field = Field(client)
    org = organiser(client)
    slug = new_tournament(org, format="knockout")["tournament"]["id"]
    ids = field.add(5)
    enter(field, slug, ids)
    field.set_ratings({u: 1600.0 - 10 * n for n, u in enumerate(ids)})
    first = checked(org.post(f"/api/tournaments/{slug}/start"))["rounds"][0]["pairings"]
    byes = [p for p in first if p["second"] is None]
    assert sorted(p["first"] for p in byes) == sorted(ids[:3])
    assert all(p["winner"] == p["first"] and p["reason"] == "bye" and p["match"] is None
               for p in byes)
    (played,) = [p for p in first if p["second"] is not None]
    assert {played["first"], played["second"]} == {ids[3], ids[4]}
    detail = play_out(field, org, slug, lambda a, b: max(a, b))
    assert [len(r["pairings"]) for r in detail["rounds"]] == [4, 2, 1]
    # a bye is not a match played
    assert detail["standings"][0]["played"] == 2


def test_the_players_are_told_their_match_is_ready(client: TestClient) -> None:
    """A player following the lobby gets ``paired`` with their round's match, as Play now
    tells a pairing."""
    field = Field(client)
    org = organiser(client)
    slug = new_tournament(org, format="knockout")["tournament"]["id"]
    a, b = field.add(2)
    enter(field, slug, [a, b])
    with field.browsers[a].websocket_connect("/ws") as ws:
        ws.send_json({"type": "subscribe_lobby"})
        while ws.receive_json()["type"] != "seeking":
            pass
        detail = checked(org.post(f"/api/tournaments/{slug}/start"))
        while (message := ws.receive_json())["type"] != "paired":
            pass
    assert message["match"] == detail["rounds"][0]["pairings"][0]["match"]


# -- the rules around the matches ---------------------------------------------------------


def test_a_player_who_never_moves_loses_by_no_show_and_is_withdrawn(
        client: TestClient) -> None:
    field = Field(client)
    org = organiser(client)
    slug = new_tournament(org, format="swiss", rounds=2)["tournament"]["id"]
    a, b, c, d = field.add(4)
    enter(field, slug, [a, b, c, d])
    t0 = time.time()
    clock = [t0]
    service(client).clock = lambda: clock[0]
    detail = checked(org.post(f"/api/tournaments/{slug}/start"))
    match = detail["rounds"][0]["pairings"][0]
    info = org.get(f"/api/games/{match['match']}").json()
    on_turn = info["info"]["seats"][info["game"]["turn"]]["id"]
    # not yet: the wait has not passed
    clock[0] = t0 + NO_SHOW - 5
    pass_now(client)
    assert pending(checked(org.get(f"/api/tournaments/{slug}")))[0]["winner"] is None
    clock[0] = t0 + NO_SHOW + 1
    pass_now(client)
    detail = checked(org.get(f"/api/tournaments/{slug}"))
    done = detail["rounds"][0]["pairings"]
    assert all(p["reason"] == "no_show" for p in done)  # neither match saw a move
    assert done[0]["winner"] == ({match["first"], match["second"]} - {on_turn}).pop()
    result = org.get(f"/api/games/{match['match']}").json()["info"]["result"]
    assert result["reason"] == "timeout"
    # the no-shows are withdrawn: the second round pairs the two left, alone
    withdrawn = {e["id"] for e in detail["entries"] if e["withdrawn"]}
    assert len(withdrawn) == 2
    (second,) = detail["rounds"][1]["pairings"]
    assert {second["first"], second["second"]} == {a, b, c, d} - withdrawn


def act(field: Field, user_id: int, match_id: str, message: dict[str, Any]) -> None:
    """``user_id`` sends ``message`` in ``match_id`` on their socket; back once it is
    played (the match's update)."""
    with field.browsers[user_id].websocket_connect("/ws") as ws:
        ws.send_json({"type": "subscribe", "match": match_id})
        while ws.receive_json()["type"] != "state":
            pass
        ws.send_json({**message, "match": match_id})
        while (answer := ws.receive_json())["type"] != "update":
            if answer["type"] == "error":
                raise AssertionError(answer)


def play_a_roll(field: Field, org: Browser, match_id: str) -> int:
    """The player on turn rolls if they must and plays their roll's first legal play;
    who it was."""
    game = org.get(f"/api/games/{match_id}").json()
    player = game["info"]["seats"][game["game"]["turn"]]["id"]
    if not game["game"]["dice"]:
        act(field, player, match_id, {"type": "roll"})
        game = org.get(f"/api/games/{match_id}").json()
    position = Position.from_id(game["game"]["position_id"])
    play = legal_plays(position, Roll(*game["game"]["dice"]))[0]
    act(field, player, match_id, {"type": "play", "play": play.notation()})
    return int(player)


def test_a_player_who_stops_playing_loses_after_the_stall_wait_and_stays_entered(
        client: TestClient) -> None:
    """Both players have moved, then the one on turn stops (a match without a clock): after
    the no-show wait nothing happens (they have moved), after ``tournament_stall`` they lose
    the match by time-out and are not withdrawn."""
    field = Field(client)
    org = organiser(client)
    slug = new_tournament(org, format="swiss", rounds=2)["tournament"]["id"]
    ids = field.add(2)
    enter(field, slug, ids)
    clock = [time.time()]
    service(client).clock = lambda: clock[0]
    match_id = checked(org.post(f"/api/tournaments/{slug}/start"))["rounds"][0][
        "pairings"][0]["match"]
    first = play_a_roll(field, org, match_id)
    second = play_a_roll(field, org, match_id)
    assert {first, second} == set(ids)
    stopped = time.time()  # the first player is on turn again, and plays no more
    clock[0] = stopped + NO_SHOW + 5
    pass_now(client)
    assert pending(checked(org.get(f"/api/tournaments/{slug}")))[0]["winner"] is None
    clock[0] = stopped + STALL + 1
    pass_now(client)
    detail = checked(org.get(f"/api/tournaments/{slug}"))
    (done,) = detail["rounds"][0]["pairings"]
    assert done["winner"] == second and done["reason"] != "no_show"
    assert org.get(f"/api/games/{match_id}").json()["info"]["result"]["reason"] == "timeout"
    assert not any(e["withdrawn"] for e in detail["entries"])


def test_the_servers_bots_enter_and_play_their_match_out(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each bot plays at its own level (the match chose none): every decision the engine
    is asked for in the match names the level of the bot in that seat."""
    asked: set[tuple[int, int]] = set()  # (seat, level)

    def decide(match: Any, player: int, level: int | str, *args: Any) -> Any:
        asked.add((player, int(level)))
        return real_decide(match, player, level, *args)

    real_decide = bots.decide
    monkeypatch.setattr(bots, "decide", decide)
    org = organiser(client)
    slug = new_tournament(org, format="knockout", length=1)["tournament"]["id"]
    for level in (3, 2):
        checked(org.post(f"/api/tournaments/{slug}/register", json={"bot": level}))
    detail = checked(org.post(f"/api/tournaments/{slug}/start"))
    assert [e["name"] for e in detail["entries"]] == ["bot-3", "bot-2"]
    deadline = time.monotonic() + 120
    while detail["tournament"]["state"] != "finished":
        assert time.monotonic() < deadline, "the bots never finished their match"
        time.sleep(0.2)
        pass_now(client)
        detail = checked(org.get(f"/api/tournaments/{slug}"))
    (final,) = detail["rounds"][0]["pairings"]
    info = org.get(f"/api/games/{final['match']}").json()["info"]
    assert info["result"]["reason"] == "points"  # played out, not forfeited
    assert detail["standings"][0]["id"] == final["winner"]
    names = {e["id"]: e["name"] for e in detail["entries"]}
    levels = {0: int(names[final["first"]][4:]), 1: int(names[final["second"]][4:])}
    assert {seat for seat, _ in asked} == {0, 1}  # both bots decided
    assert asked == {(seat, levels[seat]) for seat, _ in asked}, (asked, levels)


def test_the_database_refuses_a_player_seated_twice_in_a_round(client: TestClient) -> None:
    field = Field(client)
    org = organiser(client)
    slug = new_tournament(org, format="knockout")["tournament"]["id"]
    ids = field.add(4)
    enter(field, slug, ids)
    detail = checked(org.post(f"/api/tournaments/{slug}/start"))
    store = service(client).store
    t = client.portal.call(store.get, slug)  # type: ignore[union-attr]
    assert t is not None
    pairing = client.portal.call(store.pairings, t.id)[0]  # type: ignore[union-attr]

    async def seat_again() -> None:
        async with store.engine.begin() as conn:
            await conn.execute(tournament_seats.insert().values(
                tournament_id=t.id, round=1, user_id=detail["rounds"][0]["pairings"][1]
                ["first"], pairing_id=pairing.id))

    with pytest.raises(IntegrityError):
        client.portal.call(seat_again)  # type: ignore[union-attr]
    # and a second pass of the same round stores nothing
    assert not client.portal.call(  # type: ignore[union-attr]
        store.make_round, t.id, 0, [], time.time())


# -- bad input ----------------------------------------------------------------------------


def test_bad_requests_are_refused_with_a_code_and_change_nothing(client: TestClient) -> None:
    field = Field(client)
    org = organiser(client)
    other = organiser(client, "someone")
    refused(org.get("/api/tournaments/nosuchthing"), 404, "not_found")
    refused(org.get("/api/tournaments/bad id!"), 422, "bad_input")
    for body in ({"format": "swiss"}, {"format": "knockout", "rounds": 3},
                 {"format": "arena"}, {"format": "league"}, {"format": "knockout", "x": 1},
                 {"format": "knockout", "max_players": 1}, {"format": "knockout",
                                                            "length": "3"},
                 {"format": "knockout", "starts_at": 1.0}):
        refused(org.post("/api/tournaments", json={"name": "Cup", **body}), 422, "bad_input")
    refused(Browser(client).post("/api/tournaments", json={"name": "Cup",
                                                          "format": "knockout"}),
            401, "unauthenticated")
    guest = field.add(1)[0]
    refused(field.browsers[guest].post("/api/tournaments", json={
        "name": "Cup", "format": "knockout"}), 409, "not_eligible")
    assert checked(org.get("/api/tournaments"), kind="tournaments")["upcoming"] == []

    slug = new_tournament(org, format="knockout", max_players=3)["tournament"]["id"]
    a, b, c, d = field.add(4)
    enter(field, slug, [a, b])
    before = checked(org.get(f"/api/tournaments/{slug}"))
    refused(field.browsers[a].post(f"/api/tournaments/{slug}/register"), 409,
            "already_registered")
    refused(field.browsers[c].post(f"/api/tournaments/{slug}/withdraw"), 409,
            "not_registered")
    refused(other.post(f"/api/tournaments/{slug}/start"), 403, "not_organiser")
    refused(field.browsers[c].post(f"/api/tournaments/{slug}/register", json={"bot": 1}),
            403, "not_organiser")
    refused(field.browsers[c].post(f"/api/tournaments/{slug}/register", json={"bot": 9}),
            422, "bad_input")
    assert checked(org.get(f"/api/tournaments/{slug}")) == before
    enter(field, slug, [c])
    refused(field.browsers[d].post(f"/api/tournaments/{slug}/register"), 409,
            "tournament_full")
    # a withdrawal frees the place
    checked(field.browsers[c].post(f"/api/tournaments/{slug}/withdraw"))
    enter(field, slug, [d])
    full = checked(org.get(f"/api/tournaments/{slug}"))
    assert [e["id"] for e in full["entries"] if not e["withdrawn"]] == [a, b, d]
    checked(org.post(f"/api/tournaments/{slug}/start"))
    running = checked(org.get(f"/api/tournaments/{slug}"))
    refused(field.browsers[c].post(f"/api/tournaments/{slug}/register"), 409,
            "registration_closed")
    refused(org.post(f"/api/tournaments/{slug}/start"), 409, "already_started")
    assert checked(org.get(f"/api/tournaments/{slug}")) == running

    lonely = new_tournament(org, format="swiss", rounds=3)["tournament"]["id"]
    enter(field, lonely, [a])
    refused(org.post(f"/api/tournaments/{lonely}/start"), 409, "not_enough_players")
    assert checked(org.get(f"/api/tournaments/{lonely}"))["tournament"]["state"] == \
        "registering"
    # a rated tournament is for registered players
    rated = new_tournament(org, format="knockout", rated=True)["tournament"]["id"]
    refused(field.browsers[a].post(f"/api/tournaments/{rated}/register"), 409,
            "not_eligible")
    listed = checked(org.get("/api/tournaments"), kind="tournaments")
    assert [t["id"] for t in listed["upcoming"]] == [lonely, rated]
    assert [t["id"] for t in listed["running"]] == [slug]


def test_a_private_tournament_is_reached_only_with_its_key(client: TestClient) -> None:
    field = Field(client)
    org = organiser(client)
    created = new_tournament(org, format="knockout", private=True)
    slug = created["tournament"]["id"]
    invite = created["invite"]
    assert invite is not None and invite.startswith(f"/#/tournament/{slug}?key=")
    key = invite.split("key=")[1]
    a, b = field.add(2)
    refused(field.browsers[a].get(f"/api/tournaments/{slug}"), 404, "not_found")
    refused(field.browsers[a].get(f"/api/tournaments/{slug}?key=wrong"), 404, "not_found")
    refused(field.browsers[a].post(f"/api/tournaments/{slug}/register"), 404, "not_found")
    refused(field.browsers[a].get(f"/api/tournaments/{slug}/results.csv"), 404, "not_found")
    seen = checked(field.browsers[a].get(f"/api/tournaments/{slug}?key={key}"))
    assert seen["invite"] is None  # the link is the organiser's to give
    checked(field.browsers[a].post(f"/api/tournaments/{slug}/register?key={key}"))
    # a player entered sees it without the key; it is never listed
    checked(field.browsers[a].get(f"/api/tournaments/{slug}"))
    refused(field.browsers[b].get(f"/api/tournaments/{slug}"), 404, "not_found")
    assert checked(org.get("/api/tournaments"), kind="tournaments")["upcoming"] == []


# -- the chat ----------------------------------------------------------------------------


def chat_of(browser: Browser, slug: str) -> list[tuple[str, str]]:
    return [(line["from"], line["text"])
            for line in checked(browser.get(f"/api/tournaments/{slug}"))["chat"]]


def test_the_players_chat_on_the_tournament_and_anyone_who_sees_it_reads(
        client: TestClient) -> None:
    field = Field(client)
    org = organiser(client)
    slug = new_tournament(org, format="knockout")["tournament"]["id"]
    a, b, spectator = field.add(3)
    enter(field, slug, [a, b])
    name_a = field.browsers[a].get("/api/me").json()["user"]["name"]
    said = checked(field.browsers[a].post(f"/api/tournaments/{slug}/chat",
                                          json={"text": "  good luck all  "}))
    assert [(line["from"], line["text"]) for line in said["chat"]] == [
        (name_a, "good luck all")]
    checked(org.post(f"/api/tournaments/{slug}/chat", json={"text": "we start at nine"}))
    # a player who withdrew still speaks; a spectator reads every line, oldest first
    checked(field.browsers[b].post(f"/api/tournaments/{slug}/withdraw"))
    checked(field.browsers[b].post(f"/api/tournaments/{slug}/chat", json={"text": "bye"}))
    lines = chat_of(field.browsers[spectator], slug)
    assert [text for _, text in lines] == ["good luck all", "we start at nine", "bye"]
    assert lines[1][0] == "organiser"

    before = checked(org.get(f"/api/tournaments/{slug}"))
    refused(field.browsers[spectator].post(f"/api/tournaments/{slug}/chat",
                                           json={"text": "hi"}), 403, "not_a_player")
    refused(Browser(client).post(f"/api/tournaments/{slug}/chat", json={"text": "hi"}),
            403, "not_a_player")
    for body in ({"text": ""}, {"text": "   "}, {"text": "x" * 301}, {}, {"text": 3},
                 {"text": "hi", "x": 1}):
        refused(field.browsers[a].post(f"/api/tournaments/{slug}/chat", json=body), 422,
                "bad_input")
    refused(field.browsers[a].post("/api/tournaments/nosuchthing/chat", json={"text": "hi"}),
            404, "not_found")
    assert checked(org.get(f"/api/tournaments/{slug}")) == before

    for n in range(52):  # the detail holds the last 50
        checked(field.browsers[a].post(f"/api/tournaments/{slug}/chat", json={"text": str(n)}))
    lines = chat_of(org, slug)
    assert [text for _, text in lines] == [str(n) for n in range(2, 52)]


def test_a_private_tournaments_chat_is_for_those_who_may_see_it(client: TestClient) -> None:
    field = Field(client)
    org = organiser(client)
    created = new_tournament(org, format="knockout", private=True)
    slug, key = created["tournament"]["id"], created["invite"].split("key=")[1]
    checked(org.post(f"/api/tournaments/{slug}/chat", json={"text": "welcome"}))
    (outsider,) = field.add(1)
    refused(field.browsers[outsider].post(f"/api/tournaments/{slug}/chat",
                                          json={"text": "hi"}), 404, "not_found")
    # with the key they read it, and still may not write
    assert chat_of(field.browsers[outsider], f"{slug}?key={key}") == [("organiser", "welcome")]
    refused(field.browsers[outsider].post(f"/api/tournaments/{slug}/chat?key={key}",
                                          json={"text": "hi"}), 403, "not_a_player")
    assert chat_of(org, slug) == [("organiser", "welcome")]


def test_the_chat_is_rate_limited_per_player(database_url: str, redis_url: str) -> None:
    """Five lines at once, then the sixth refused and not stored (the budget the match chat
    spends too: routes.deps.CHAT_RATE)."""
    settings = make_settings(database_url, redis_url, tournament_interval=3600,
                             rate_limits=True)
    with TestClient(create_app(settings)) as client:
        org = organiser(client)
        slug = new_tournament(org, format="knockout")["tournament"]["id"]
        for n in range(5):
            checked(org.post(f"/api/tournaments/{slug}/chat", json={"text": str(n)}))
        refused(org.post(f"/api/tournaments/{slug}/chat", json={"text": "more"}), 429,
                "rate_limited")
        assert [text for _, text in chat_of(org, slug)] == ["0", "1", "2", "3", "4"]


# -- restarts -------------------------------------------------------------------------------


def test_a_scheduler_stopped_mid_round_loses_nothing(settings: Settings) -> None:
    """The first app plays half of the first round and stops; a second app on the same
    database takes the tournament over from its rows: the results stored stay, the matches
    in play go on, and the rounds follow."""
    ratings: dict[int, float] = {}
    with TestClient(create_app(settings)) as first:
        field = Field(first)
        org = organiser(first)
        slug = new_tournament(org, format="knockout")["tournament"]["id"]
        ids = field.add(8)
        enter(field, slug, ids)
        ratings = {u: 1500.0 + n for n, u in enumerate(ids)}
        field.set_ratings(ratings)
        before = checked(org.post(f"/api/tournaments/{slug}/start"))
        round1 = before["rounds"][0]["pairings"]
        for p in round1[:2]:
            field.abandon(min(p["first"], p["second"], key=ratings.__getitem__), p["match"])
        pass_now(first)
        half = checked(org.get(f"/api/tournaments/{slug}"))
        cookies = {u: b.cookie for u, b in field.browsers.items()}
        org_cookie = org.cookie
    assert [p["winner"] is not None for p in half["rounds"][0]["pairings"]] == [
        True, True, False, False]
    with TestClient(create_app(settings)) as second:
        field = Field(second)
        for user_id, cookie in cookies.items():
            field.browsers[user_id] = Browser(second)
            field.browsers[user_id].cookie = cookie
        org = Browser(second)
        org.cookie = org_cookie
        pass_now(second)
        after = checked(org.get(f"/api/tournaments/{slug}"))
        assert after["rounds"] == half["rounds"]  # nothing lost, nothing made twice
        detail = play_out(field, org, slug,
                          lambda a, b: a if ratings[a] < ratings[b] else b)
    assert detail["rounds"][0]["pairings"][:2] == half["rounds"][0]["pairings"][:2]
    assert [len(r["pairings"]) for r in detail["rounds"]] == [4, 2, 1]
    assert detail["standings"][0]["id"] == max(ratings, key=ratings.__getitem__)


@pytest.fixture
def stack() -> Iterator[contextlib.ExitStack]:
    with contextlib.ExitStack() as exits:
        yield exits


def lock_held(database_url: str) -> bool:
    """Whether a session holds the scheduler's advisory lock on the database."""
    import asyncpg

    async def query() -> bool:
        conn = await asyncpg.connect(database_url.replace("+asyncpg", ""))
        try:
            return bool(await conn.fetchval(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND objid = $1 AND database = (SELECT oid FROM pg_database "
                "WHERE datname = current_database())", LOCK_KEY))
        finally:
            await conn.close()

    return run_async(query)


@pytest.mark.parametrize("store", ["postgresql"])
def test_a_second_server_process_takes_over_when_the_scheduler_dies(
        database_url: str, redis_url: str, stack: contextlib.ExitStack,
        server_processes: list[ServerProcess]) -> None:
    """Two ``gammon serve`` processes on one PostgreSQL database: the first holds the
    scheduler's lock and pairs the first round; killed (SIGKILL) mid-round, the second
    takes the lock over and drives the rest from the rows."""
    env = {"GAMMON_DATABASE_URL": database_url, "GAMMON_REDIS_URL": redis_url,
           "GAMMON_RATE_LIMITS": "false", "GAMMON_TOURNAMENT_INTERVAL": "0.3",
           "GAMMON_ANALYSIS_ON_FINISH": "false"}
    first = ServerProcess(env).start()
    server_processes.append(first)
    deadline = time.monotonic() + 20
    while not lock_held(database_url):
        assert time.monotonic() < deadline, "the first process never took the lock"
        time.sleep(0.1)
    second = ServerProcess(env).start()
    server_processes.append(second)

    def client(server: ServerProcess) -> httpx.Client:
        return stack.enter_context(httpx.Client(base_url=server.url, timeout=20))

    org = client(first)
    org.post("/api/register", json={"name": "organiser", "password": "password-1"})
    assert org.post("/api/login", json={"name": "organiser", "password": "password-1"}
                    ).status_code == 200
    slug = checked(org.post("/api/tournaments", json={
        "name": "Two servers", "format": "knockout", "length": 1}), 201)["tournament"]["id"]
    players: dict[int, str] = {}  # id -> session cookie
    for _ in range(4):
        guest = client(first)
        me = guest.get("/api/me").json()["user"]["id"]
        checked(guest.post(f"/api/tournaments/{slug}/register"))
        players[me] = guest.cookies[COOKIE]
    round1 = checked(org.post(f"/api/tournaments/{slug}/start"))["rounds"][0]["pairings"]
    assert len(round1) == 2 and all(p["match"] for p in round1)

    def abandon(server: ServerProcess, user_id: int, match_id: str) -> None:
        with connect(server.ws_url, additional_headers={
                "Cookie": f"{COOKIE}={players[user_id]}"}, open_timeout=20) as ws:
            ws.send(json.dumps({"type": "subscribe", "match": match_id}))
            ws.send(json.dumps({"type": "abandon", "match": match_id}))
            while True:
                message = json.loads(ws.recv(timeout=20))
                assert message["type"] != "error", message
                if message["type"] == "update" and any(
                        e["type"] == "match_ended" for e in message["events"]):
                    return

    abandon(first, max(round1[0]["first"], round1[0]["second"]), round1[0]["match"])
    first.kill()  # mid-round: one match over, one in play
    watcher = client(second)
    deadline = time.monotonic() + 30
    while not lock_held(database_url):  # the database let the dead process's lock go
        assert time.monotonic() < deadline, "nobody took the scheduler over"
        time.sleep(0.1)
    while True:  # the result stored (by the first before it died, or by the second)
        detail = checked(watcher.get(f"/api/tournaments/{slug}"))
        if detail["rounds"][0]["pairings"][0]["winner"] is not None:
            break
        assert time.monotonic() < deadline, "the first match's result was lost"
        time.sleep(0.2)
    assert detail["rounds"][0]["pairings"][1]["winner"] is None  # still mid-round
    abandon(second, max(round1[1]["first"], round1[1]["second"]), round1[1]["match"])
    deadline = time.monotonic() + 30
    while len(detail["rounds"]) < 2:
        assert time.monotonic() < deadline, "the second round was never paired"
        time.sleep(0.2)
        detail = checked(watcher.get(f"/api/tournaments/{slug}"))
    (final,) = detail["rounds"][1]["pairings"]
    assert {final["first"], final["second"]} == {min(round1[0]["first"], round1[0]["second"]),
                                                  min(round1[1]["first"], round1[1]["second"])}
    abandon(second, max(final["first"], final["second"]), final["match"])
    deadline = time.monotonic() + 30
    while detail["tournament"]["state"] != "finished":
        assert time.monotonic() < deadline, "the tournament never finished"
        time.sleep(0.2)
        detail = checked(watcher.get(f"/api/tournaments/{slug}"))
    assert detail["standings"][0]["id"] == min(final["first"], final["second"])
    assert detail["rounds"][0]["pairings"][0]["match"] == round1[0]["match"]
