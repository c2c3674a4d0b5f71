"""The Bot API (PROTOCOL.md, *The Bot API*): a registered account turned into a bot account
for good, its API tokens (shown once, stored hashed, listed without the secret, revocable),
the token signing a program in over HTTP and on the socket, challenges reserved for a named
player, and a whole rated match between a person and a token-authenticated bot on a real
``gammon serve``. Every test runs on both stores."""

from __future__ import annotations

import contextlib
import hashlib
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from starlette.websockets import WebSocketDisconnect
from websockets.sync.client import connect

from gammon.server import protocol
from gammon.server.accounts import COOKIE
from gammon.server.app import create_app
from gammon.server.db import api_tokens, make_engine
from tests.processes import ServerProcess
from tests.server.conftest import Browser, run_async
from tests.server.helpers import Player, play_turn

PASSWORD = "password-1"


def sign_up(browser: Browser, name: str) -> dict[str, Any]:
    response = browser.post("/api/register", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    return response.json()["user"]  # type: ignore[no-any-return]


def checked(response: httpx.Response, kind: str, status: int = 200) -> Any:
    """The JSON of an answer of ``status``, validated strictly as ``kind``."""
    assert response.status_code == status, response.text
    body = response.json()
    protocol.response_adapter(kind).validate_python(body)
    return body


def refused(response: httpx.Response, status: int, code: str) -> str:
    """The message of a refusal of ``status`` and ``code``."""
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert detail["code"] == code, detail
    return str(detail["message"])


def make_bot(browser: Browser, name: str) -> str:
    """``name`` signed up, turned into a bot account: a new ``bot:play`` token of it."""
    sign_up(browser, name)
    assert checked(browser.post("/api/account/bot"), "user")["user"]["bot"] is True
    return str(checked(browser.post("/api/tokens", json={"description": "test"}),
                       "token", 201)["token"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def stored_tokens(database_url: str) -> list[Any]:
    async def read() -> list[Any]:
        engine = make_engine(database_url)
        try:
            async with engine.connect() as conn:
                return list((await conn.execute(sa.select(api_tokens))).all())
        finally:
            await engine.dispose()

    return run_async(read)


def socket_refused(ws: Any, code: str = "bad_token") -> str:
    """The socket's next message but pings is a refusal ``code``, then it closes with
    4401."""
    message = ws.receive_json()
    while message["type"] == "ping":
        message = ws.receive_json()
    assert message["type"] == "error" and message["code"] == code, message
    assert not protocol.server_message_errors(message)
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == 4401
    return str(message["message"])


def test_a_token_is_shown_once_stored_hashed_listed_without_it_and_revoked(
        clients: tuple[Browser, Browser], database_url: str) -> None:
    owner, program = clients
    sign_up(owner, "robota")
    # only a bot account has tokens
    refused(owner.post("/api/tokens", json={"description": "x"}), 403, "not_a_bot")
    user = checked(owner.post("/api/account/bot"), "user")["user"]
    assert user["bot"] is True and user["kind"] == "user"
    refused(owner.post("/api/account/bot"), 409, "already_bot")  # for good, once
    made = checked(owner.post("/api/tokens", json={"description": "my engine",
                                                   "scopes": ["bot:play"]}), "token", 201)
    token = made["token"]
    assert token.startswith("gmn_") and len(token) == 47
    assert made["scopes"] == ["bot:play"] and made["last_used_at"] is None
    second = checked(owner.post("/api/tokens", json={"description": "spare"}), "token", 201)
    # listed without the secret
    listed = checked(owner.get("/api/tokens"), "tokens")
    assert [t["id"] for t in listed] == [made["id"], second["id"]]
    assert all("token" not in t for t in listed) and token not in owner.get("/api/tokens").text
    assert listed[0]["description"] == "my engine"
    # stored as its SHA-256 only
    rows = stored_tokens(database_url)
    assert len(rows) == 2
    assert rows[0].token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert all(token not in str(value) for row in rows for value in row)

    # the token signs the program in, over HTTP and on the socket, without a cookie
    me = checked(program.get("/api/me", headers=bearer(token)), "me")
    assert me["user"]["name"] == "robota" and me["user"]["bot"] is True
    assert program.cookie is None  # no guest was made for it
    assert checked(owner.get("/api/tokens"), "tokens")[0]["last_used_at"] is not None
    # but does not manage the account
    refused(program.post("/api/tokens", json={"description": "more"}, headers=bearer(token)),
            403, "session_required")
    refused(program.delete(f"/api/tokens/{made['id']}", headers=bearer(token)), 403,
            "session_required")
    with program.websocket_connect("/ws", headers=bearer(token)) as ws, \
            program.websocket_connect("/ws", headers=bearer(second["token"])) as other:
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome" and welcome["user"]["bot"] is True
        assert not protocol.server_message_errors(welcome)
        assert other.receive_json()["type"] == "welcome"
        # revoked: the open socket is closed at once, the other token's stays
        assert checked(owner.delete(f"/api/tokens/{made['id']}"), "ok") == {"ok": True}
        socket_refused(ws)
        other.send_json({"type": "ping", "id": 1})
        assert [other.receive_json()["type"] for _ in range(2)] == ["ping", "pong"]
    refused(owner.delete(f"/api/tokens/{made['id']}"), 404, "not_found")
    assert [t["id"] for t in checked(owner.get("/api/tokens"), "tokens")] == [second["id"]]
    assert len(stored_tokens(database_url)) == 1
    # a revoked token is refused, changing nothing
    message = refused(program.get("/api/me", headers=bearer(token)), 401, "bad_token")
    assert "revoked" in message
    refused(program.post("/api/games", json={"kind": "single"}, headers=bearer(token)), 401,
            "bad_token")
    assert program.cookie is None and owner.get("/api/games").json() == []
    with program.websocket_connect("/ws", headers=bearer(token)) as ws:
        socket_refused(ws)


@pytest.mark.parametrize(("header", "says"), [
    ("Bearer", "not an API token"),
    ("Bearer ", "not an API token"),
    ("Bearer gmn_short", "not an API token"),
    ("Bearer " + "gmn_" + "a" * 42 + "!", "not an API token"),
    ("Bearer gmn_" + "a" * 44, "not an API token"),
    ("Basic cm9ib3RhOnBhc3N3b3JkLTE=", "Bearer <token>"),
    ("gmn_" + "a" * 43, "Bearer <token>"),
    ("Bearer gmn_" + "a" * 43, "unknown or revoked"),  # well formed, never made
])
def test_a_malformed_or_unknown_token_is_a_clear_401(
        clients: tuple[Browser, Browser], header: str, says: str) -> None:
    owner, program = clients
    make_bot(owner, "robota")
    for method, url in (("GET", "/api/me"), ("GET", "/api/challenges"),
                        ("POST", "/api/games")):
        response = program.request(method, url, headers={"Authorization": header},
                                   json={"kind": "single"})
        assert says in refused(response, 401, "bad_token")
    assert program.cookie is None  # no guest made
    # a cookie does not rescue a bad token
    response = owner.get("/api/me", headers={"Authorization": header})
    assert says in refused(response, 401, "bad_token")
    with program.websocket_connect("/ws", headers={"Authorization": header}) as ws:
        assert says in socket_refused(ws)
    assert owner.get("/api/games").json() == []


def test_who_may_become_a_bot_account(clients: tuple[Browser, Browser]) -> None:
    a, b = clients
    refused(a.post("/api/account/bot"), 401, "unauthenticated")
    assert a.get("/api/me").json()["user"]["kind"] == "guest"
    refused(a.post("/api/account/bot"), 409, "not_eligible")  # a guest
    sign_up(a, "busy-one")
    game = a.post("/api/games", json={"kind": "match", "length": 1}).json()["id"]
    refused(a.post("/api/account/bot"), 409, "not_eligible")  # a game open
    sign_up(b, "someone")
    assert b.post(f"/api/games/{game}/join").status_code == 200
    refused(a.post("/api/account/bot"), 409, "not_eligible")  # a rated match in play
    with a.websocket_connect("/ws") as ws:
        me = Player.over_testclient(ws, "busy-one")
        me.subscribe(game)
        assert me.act({"type": "abandon", "match": game})["type"] == "update"
    refused(a.post("/api/account/bot"), 409, "not_eligible")  # a rated match played
    assert a.get("/api/me").json()["user"]["bot"] is False
    # a person's account has no token to sign in with
    refused(b.post("/api/tokens", json={"description": "x"}), 403, "not_a_bot")


def test_a_challenge_is_reserved_for_the_bot_it_names(
        clients: tuple[Browser, Browser], client: Any) -> None:
    person, program = clients
    token = make_bot(Browser(client), "robota")
    sign_up(person, "alice")
    refused(person.post("/api/games", json={"opponent": "nobody-here"}), 404, "not_found")
    refused(person.post("/api/games", json={"opponent": "alice"}), 409, "own_game")
    refused(person.post("/api/games", json={"opponent": "robota", "bot": 3}), 422,
            "bad_input")
    created = checked(person.post("/api/games", json={
        "kind": "match", "length": 3, "opponent": "RoBoTa"}), "created", 201)
    assert person.get("/api/games").json() == []  # not in the lobby
    challenges = checked(program.get("/api/challenges", headers=bearer(token)), "open_games")
    assert [c["id"] for c in challenges] == [created["id"]]
    assert challenges[0]["creator"]["name"] == "alice"
    assert checked(person.get("/api/challenges"), "open_games") == []
    thief = Browser(client)
    sign_up(thief, "mallory")
    refused(thief.post(f"/api/games/{created['id']}/join"), 404, "not_found")
    joined = checked(program.post(f"/api/games/{created['id']}/join", headers=bearer(token)),
                     "info")
    assert joined["rated"] is True
    assert [s["bot"] for s in joined["seats"]] == [False, True]
    assert program.get("/api/challenges", headers=bearer(token)).json() == []
    # declined: cancelled, and gone for good
    second = person.post("/api/games", json={"kind": "single", "opponent": "robota"}).json()
    refused(thief.post(f"/api/games/{second['id']}/decline"), 404, "not_found")
    refused(person.post(f"/api/games/{second['id']}/decline"), 404, "not_found")
    assert checked(program.post(f"/api/games/{second['id']}/decline", headers=bearer(token)),
                   "ok") == {"ok": True}
    assert program.get("/api/challenges", headers=bearer(token)).json() == []
    refused(program.post(f"/api/games/{second['id']}/join", headers=bearer(token)), 404,
            "not_found")
    refused(person.delete(f"/api/games/{second['id']}"), 404, "not_found")


def test_a_player_following_the_lobby_is_told_of_the_challenges_made_by_and_for_them(
        client: Any) -> None:
    alice, bob, carol = Browser(client), Browser(client), Browser(client)
    sign_up(alice, "alice")
    sign_up(bob, "bob")
    sign_up(carol, "carol")

    def challenges(player: Player, received: list[str], sent: list[str]) -> dict[str, Any]:
        """The next ``challenges`` message that lists these games' ids."""
        return player.wait(lambda m: m["type"] == "challenges"
                           and [g["id"] for g in m["received"]] == received
                           and [g["id"] for g in m["sent"]] == sent)

    with alice.websocket_connect("/ws") as wa, bob.websocket_connect("/ws") as wb, \
            carol.websocket_connect("/ws") as wc:
        pa, pb, pc = (Player.over_testclient(ws, name)
                      for ws, name in ((wa, "alice"), (wb, "bob"), (wc, "carol")))
        for player in (pa, pb, pc):
            player.send({"type": "subscribe_lobby"})
            challenges(player, [], [])  # at once
        made = checked(alice.post("/api/games", json={"kind": "single", "opponent": "bob"}),
                       "created", 201)
        told = challenges(pb, [made["id"]], [])["received"][0]
        assert told["creator"]["name"] == "alice" and told["kind"] == "single"
        assert challenges(pa, [], [made["id"]])["sent"][0]["opponent"]["name"] == "bob"
        sent = checked(alice.get("/api/challenges/sent"), "sent_challenges")
        assert [(g["id"], g["opponent"]["name"]) for g in sent] == [(made["id"], "bob")]
        assert checked(bob.get("/api/challenges/sent"), "sent_challenges") == []
        assert checked(Browser(client).get("/api/challenges/sent"), "sent_challenges") == []
        # declined: gone for both
        checked(bob.post(f"/api/games/{made['id']}/decline"), "ok")
        challenges(pa, [], [])
        challenges(pb, [], [])
        # withdrawn, then one taken: gone for both too
        again = alice.post("/api/games", json={"opponent": "bob"}).json()
        challenges(pb, [again["id"]], [])
        checked(alice.delete(f"/api/games/{again['id']}"), "ok")
        challenges(pb, [], [])
        taken = alice.post("/api/games", json={"opponent": "bob"}).json()
        challenges(pa, [], [taken["id"]])
        checked(bob.post(f"/api/games/{taken['id']}/join"), "info")
        challenges(pa, [], [])
        challenges(pb, [], [])
        pc.send({"type": "ping", "id": "last"})  # carol was told of nothing meanwhile
        pc.wait(lambda m: m["type"] == "pong")
        assert [m for m in pc.log if m["type"] == "challenges"][1:] == []
        for player in (pa, pb, pc):
            assert not [m for m in player.log if protocol.server_message_errors(m)]


def test_the_openapi_document_names_the_token() -> None:
    document = create_app().openapi()
    schemes = document["components"]["securitySchemes"]
    assert schemes["apiToken"] == {"type": "http", "scheme": "bearer", "description":
                                   schemes["apiToken"]["description"]}
    assert schemes["session"]["in"] == "cookie" and schemes["session"]["name"] == COOKIE
    assert {"apiToken": []} in document["security"]
    for path in ("/api/tokens", "/api/account/bot", "/api/challenges"):
        assert path in document["paths"]
    assert "/api/games/{match_id}/decline" in document["paths"]


# -- a whole rated match on a real server ------------------------------------------------


@pytest.fixture
def stack() -> Iterator[contextlib.ExitStack]:
    with contextlib.ExitStack() as exits:
        yield exits


def bot_account(server: ServerProcess, name: str) -> str:
    """A bot account ``name`` made through ``server``'s HTTP API: a token of it."""
    with httpx.Client(base_url=server.url, timeout=20) as owner:
        assert owner.post("/api/register", json={"name": name, "password": PASSWORD}
                          ).status_code == 201
        assert owner.post("/api/account/bot").json()["user"]["bot"] is True
        made = owner.post("/api/tokens", json={"description": "test"})
        assert made.status_code == 201, made.text
        return str(made.json()["token"])


def test_a_bot_plays_a_whole_rated_match_against_a_person(
        database_url: str, redis_url: str, stack: contextlib.ExitStack,
        server_processes: list[ServerProcess]) -> None:
    server = ServerProcess({"GAMMON_DATABASE_URL": database_url,
                            "GAMMON_REDIS_URL": redis_url, "GAMMON_RATE_LIMITS": "false",
                            "GAMMON_ANALYSIS_ON_FINISH": "false"}).start()
    server_processes.append(server)
    token = bot_account(server, "robota")
    person = stack.enter_context(httpx.Client(base_url=server.url, timeout=20))
    assert person.post("/api/register", json={"name": "alice", "password": PASSWORD}
                       ).status_code == 201
    program = stack.enter_context(httpx.Client(base_url=server.url, timeout=20,
                                               headers=bearer(token)))
    game = person.post("/api/games", json={"kind": "match", "length": 1, "clock": "italian",
                                           "opponent": "robota"}).json()
    cookie = {"Cookie": f"{COOKIE}={person.cookies[COOKIE]}"}
    with connect(server.ws_url, additional_headers=cookie, open_timeout=20) as wa, \
            connect(server.ws_url, additional_headers=bearer(token), open_timeout=20) as wb:
        pa, pb = Player.over_websockets(wa, "alice"), Player.over_websockets(wb, "robota")
        assert pb.wait(lambda m: m["type"] == "welcome")["user"]["name"] == "robota"
        # the bot finds the challenge and accepts it
        (challenge,) = program.get("/api/challenges").json()
        assert challenge["id"] == game["id"]
        assert program.post(f"/api/games/{game['id']}/join").status_code == 200
        pa.subscribe(game["id"])
        pb.subscribe(game["id"])
        players = {0: pa, 1: pb}
        pa.sync(pb.v)
        assert pb.you == 1 and pb.info is not None and pb.info["rated"] is True
        assert pb.info["seats"][1]["bot"] is True and pb.info["seats"][0]["bot"] is False
        assert pb.clock is not None and pb.clock["kind"] == "italian"  # the same clocks
        rng = random.Random(7)
        for _ in range(5000):
            if pa.game is not None and pa.game["phase"] == "match_over":
                break
            play_turn(players, rng)
        assert pa.game is not None and pb.game is not None
        assert pa.game["phase"] == pb.game["phase"] == "match_over"
        for player in players.values():
            assert not [m for m in player.log if protocol.server_message_errors(m)]
    winner = ("alice", "robota")[pa.game["winner"]]
    board = httpx.get(f"{server.url}/api/leaderboard").json()
    assert [(e["name"], e["bot"]) for e in board] == [
        (winner, winner == "robota"), *[(n, n == "robota") for n in ("alice", "robota")
                                        if n != winner]]
    assert board[0]["rating"] > 1500 > board[1]["rating"]
    history = httpx.get(f"{server.url}/api/users/robota/ratings").json()["history"]
    assert [h["match"] for h in history] == [game["id"]]
