"""``gammon bot``, the Bot API's reference client: the core match it rebuilds from a match's
views is the server's (every rule that a decision reads agrees, over random matches with
the cube and resignations), and, as a real process with a bot account's token, it accepts a
person's challenge on a real ``gammon serve`` and plays the whole rated match to its end,
on both stores; a refused token stops it with a clear error."""

from __future__ import annotations

import contextlib
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from gammon.cli.bot import match_from_view, message_of
from gammon.cli.main import main
from gammon.core import actions as A
from gammon.core.match import Match, Phase, Rules
from gammon.server.accounts import COOKIE
from gammon.views import game_view
from tests.processes import ServerProcess
from tests.server.conftest import (  # noqa: F401 - the fixtures of the server tests
    database_url,
    postgres_session_database,
    redis_url,
    server_processes,
    sqlite_session_database,
    store,
)
from tests.server.helpers import Player, play_out_against_bot
from tests.server.routes.test_bot_api import PASSWORD, bearer, bot_account


def info_of(rules: Rules, kind: str) -> dict[str, object]:
    return {"length": rules.length, "kind": kind, "cube": rules.cube, "jacoby": rules.jacoby,
            "beavers": rules.beavers, "winner_rolls_anew": rules.winner_rolls_anew}


def random_action(match: Match, rng: random.Random) -> A.Action:
    """A random next action: dice where due, else a whole play or a cube, resignation or
    answer, as a player may send them."""
    game = match.game
    if match.phase in (Phase.OPENING, Phase.GAME_OVER):
        return match.opening_action(rng)
    if match.phase is Phase.MOVING:
        return A.PlayMove(game.turn, rng.choice(game.remaining_plays()))
    choices = [a for a in match.legal_actions()
               if not isinstance(a, A.OfferResign) or rng.random() < 0.05]
    if match.phase is Phase.BEFORE_ROLL:
        choices += [game.roll_action(rng)] * 6
    return rng.choice(choices)


@pytest.mark.parametrize(("kind", "rules"), [
    ("match", Rules(length=5)), ("match", Rules(length=1)),
    ("money", Rules(length=0, jacoby=True, beavers=True)), ("single", Rules(length=1, cube=False)),
])
def test_the_rebuilt_match_is_the_one_the_views_show(kind: str, rules: Rules) -> None:
    rng = random.Random(f"{kind}{rules.length}")
    checked = 0
    for _ in range(3):
        match = Match.new(rules)
        for _ in range(600):
            if match.is_over or (rules.is_money and match.results):
                break
            if match.to_act is not None and not match.game.steps:
                rebuilt = match_from_view(info_of(rules, kind), game_view(match, None))
                a, b = rebuilt.game, match.game
                assert (rebuilt.to_act, rebuilt.phase, rebuilt.score, rebuilt.number) == \
                    (match.to_act, match.phase, match.score, match.number)
                assert (a.position, a.cube, a.roll, a.crawford, a.resign_offer, a.refused) == \
                    (b.position, b.cube, b.roll, b.crawford, b.resign_offer, b.refused)
                assert rebuilt.is_post_crawford == match.is_post_crawford
                assert set(rebuilt.legal_actions()) == set(match.legal_actions())
                assert set(a.remaining_plays()) == set(b.remaining_plays())
                checked += 1
            match, _ = match.apply(random_action(match, rng))
    assert checked > 100


def test_every_decision_is_a_client_message() -> None:
    assert message_of(A.OfferDouble(0)) == {"type": "double"}
    assert message_of(A.Beaver(1)) == {"type": "beaver"}
    assert message_of(A.PlayMove(0, "8/5 6/5")) == {"type": "play", "play": "8/5 6/5"}
    assert message_of(A.RejectResign(1)) == {"type": "reject_resign"}


def test_a_refused_action_is_looked_at_afresh_once_a_version() -> None:
    """A refusal makes the bot subscribe again (a fresh view of the match); the same
    refusal at the same version does not, so a refused decision is not retried in a
    loop."""
    import asyncio
    import json as json_module

    from gammon.cli.bot import BotClient, Seat

    sent: list[dict[str, object]] = []

    class Socket:
        async def send(self, text: str) -> None:
            sent.append(json_module.loads(text))

    client = BotClient("http://x", "t")
    client.seats["M"] = Seat({}, 1, 9, None)
    error = {"type": "error", "code": "illegal", "message": "no", "match": "M", "v": 9}
    asyncio.run(client._handle(Socket(), error))
    asyncio.run(client._handle(Socket(), error))
    assert sent == [{"type": "subscribe", "match": "M"}]
    client.seats["M"].v = 10
    asyncio.run(client._handle(Socket(), error))
    assert len(sent) == 2


@pytest.mark.parametrize("args", [
    ["--server", "ftp://x", "--token", "t"], ["--server", "http://x", "--token", "t",
                                              "--level", "godlike"],
    ["--server", "http://x", "--token", "t", "--poll", "0"],
])
def test_bad_arguments_are_usage_errors(args: list[str]) -> None:
    assert main(["bot", *args]) == 2


# -- the real thing ----------------------------------------------------------------------


@pytest.fixture
def stack() -> Iterator[contextlib.ExitStack]:
    with contextlib.ExitStack() as exits:
        yield exits


def start_bot(server: ServerProcess, token: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "gammon.cli.main", "bot", "--server", server.url, "--token",
         token, "--level", "beginner", "--poll", "0.2", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_gammon_bot_accepts_a_challenge_and_plays_the_rated_match_out(
        database_url: str, redis_url: str, stack: contextlib.ExitStack,  # noqa: F811
        server_processes: list[ServerProcess]) -> None:  # noqa: F811
    server = ServerProcess({"GAMMON_DATABASE_URL": database_url,
                            "GAMMON_REDIS_URL": redis_url, "GAMMON_RATE_LIMITS": "false",
                            "GAMMON_ANALYSIS_ON_FINISH": "false",
                            "GAMMON_BOT_DELAY": "0"}).start()
    server_processes.append(server)
    token = bot_account(server, "robota")
    bot = start_bot(server, token, "--matches", "1")
    try:
        person = stack.enter_context(httpx.Client(base_url=server.url, timeout=20))
        assert person.post("/api/register", json={"name": "alice", "password": PASSWORD}
                           ).status_code == 201
        game = person.post("/api/games", json={"kind": "match", "length": 1,
                                               "opponent": "robota"}).json()
        cookie = {"Cookie": f"{COOKIE}={person.cookies[COOKIE]}"}
        with connect(server.ws_url, additional_headers=cookie, open_timeout=20) as ws:
            me = Player.over_websockets(ws, "alice")
            me.subscribe(game["id"])
            if me.game is None:  # the bot has not joined yet
                me.wait(lambda m: m["type"] == "update")
            assert me.info is not None and me.info["seats"][1]["name"] == "robota"
            play_out_against_bot(me, game["id"], random.Random(3))
        out, err = bot.communicate(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.communicate()
    assert bot.returncode == 0, err
    assert f"joined {game['id']}" in out and f"match {game['id']} over" in out
    record = person.get(f"/api/games/{game['id']}").json()
    assert record["info"]["rated"] is True and record["info"]["status"] == "finished"
    assert [s["bot"] for s in record["info"]["seats"]] == [False, True]
    assert httpx.get(f"{server.url}/api/users/robota/ratings").json()["history"]


def test_gammon_bot_stops_when_its_token_is_refused(
        store: str, request: pytest.FixtureRequest) -> None:  # noqa: F811
    if store == "postgresql":
        pytest.skip("the token's checks are the server's, run on both stores in "
                    "tests/server/routes/test_bot_api.py")
    server: ServerProcess = request.getfixturevalue("sqlite_server")
    bot = start_bot(server, "gmn_" + "x" * 43)
    _, err = bot.communicate(timeout=60)
    assert bot.returncode == 1 and "refused the token" in err and "unknown or revoked" in err


def test_the_python_example_of_the_docs_plays_a_challenge_out(
        store: str, stack: contextlib.ExitStack, request: pytest.FixtureRequest,  # noqa: F811
        tmp_path: Path) -> None:
    """docs/bot-api.md's bot, run as it is written (its server and token filled in)."""
    if store == "postgresql":
        pytest.skip("the example is a client: one store shows it works")
    server: ServerProcess = request.getfixturevalue("sqlite_server")
    token = bot_account(server, "example")
    doc = (Path(__file__).resolve().parents[2] / "docs" / "bot-api.md").read_text()
    code = doc.split("```python\n")[1].split("```")[0]
    code = code.replace('"http://127.0.0.1:8000", "gmn_..."', f'"{server.url}", "{token}"')
    script = tmp_path / "mybot.py"
    script.write_text(code)
    example = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        person = stack.enter_context(httpx.Client(base_url=server.url, timeout=20))
        person.post("/api/register", json={"name": "ellen", "password": PASSWORD})
        game = person.post("/api/games", json={"kind": "match", "length": 1,
                                               "opponent": "example"}).json()
        cookie = {"Cookie": f"{COOKIE}={person.cookies[COOKIE]}"}
        with connect(server.ws_url, additional_headers=cookie, open_timeout=20) as ws:
            me = Player.over_websockets(ws, "ellen")
            me.subscribe(game["id"])
            if me.game is None:
                me.wait(lambda m: m["type"] == "update")
            play_out_against_bot(me, game["id"], random.Random(5))
    finally:
        example.kill()
        _, err = example.communicate()
    assert person.get(f"/api/games/{game['id']}").json()["info"]["status"] == "finished"
    assert "Traceback" not in err, err


def test_gammon_bot_declines_long_matches_and_stops_when_its_token_is_revoked(
        store: str, stack: contextlib.ExitStack, request: pytest.FixtureRequest,  # noqa: F811
        ) -> None:
    if store == "postgresql":
        pytest.skip("the revocation's checks are the server's, run on both stores in "
                    "tests/server/routes/test_bot_api.py")
    server: ServerProcess = request.getfixturevalue("sqlite_server")
    owner = stack.enter_context(httpx.Client(base_url=server.url, timeout=20))
    owner.post("/api/register", json={"name": "robota", "password": PASSWORD})
    owner.post("/api/account/bot")
    made = owner.post("/api/tokens", json={"description": "test"}).json()
    person = stack.enter_context(httpx.Client(base_url=server.url, timeout=20))
    person.post("/api/register", json={"name": "alice", "password": PASSWORD})
    long = person.post("/api/games", json={"kind": "match", "length": 7,
                                           "opponent": "robota"}).json()
    bot = start_bot(server, made["token"], "--max-length", "5")
    try:
        deadline = time.monotonic() + 60
        while person.get(f"/api/games/{long['id']}").status_code != 404:  # cancelled
            assert time.monotonic() < deadline and bot.poll() is None
            time.sleep(0.2)
        with httpx.Client(base_url=server.url, headers=bearer(made["token"])) as program:
            assert program.get("/api/challenges").json() == []
        assert owner.delete(f"/api/tokens/{made['id']}").status_code == 200
        out, err = bot.communicate(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.communicate()
    assert f"declined {long['id']} (7 points) of alice" in out
    assert bot.returncode == 1 and "revoked" in err, (out, err)
