"""Post-match analysis over the server and no engine help in a live rated match, on both
stores: the analysis of a finished match is the one
``gammon analyze --format json`` makes of its exported ``.mat``; it is queued by the first
request (202 with progress, pushed on the socket) and then served (200); whoever may see
the match may see it; bad ids and depths are clear 4xx; an analysis whose server died is
done again by the next one, and never served half made."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from gammon import views
from gammon.cli.main import main as gammon
from gammon.core.position import Position
from gammon.server.analysis_api import AnalysisProgress
from gammon.server.app import create_app
from gammon.server.db import make_engine, match_analyses
from gammon.server.settings import Settings
from tests.server.conftest import Browser, make_settings, run_async
from tests.server.helpers import Player, act, play_out_against_bot, play_turn, to_move
from tests.server.test_match import register


@contextlib.contextmanager
def bot_match(browser: Browser, seed: int, **options: Any
              ) -> Iterator[tuple[dict[str, Any], Player]]:
    """Create a one-point match against the level-1 bot and play it out with random plays;
    the created game, and the player, still subscribed while the context lasts (its socket
    is closed at the end, whatever happens: an open one would hold the test client)."""
    game = browser.post("/api/games", json={"kind": "single", "bot": 1, **options}).json()
    with browser.websocket_connect("/ws") as ws:
        me = Player.over_testclient(ws)
        me.subscribe(game["id"])
        play_out_against_bot(me, game["id"], random.Random(seed))
        yield game, me


def wait_done(browser: Browser, url: str, limit: float = 300.0) -> Any:
    """Ask for an analysis until it is served (each answer on the way a 202 with
    progress)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        response = browser.get(url)
        if response.status_code == 200:
            return response
        assert response.status_code == 202, response.text
        body = response.json()
        assert body["status"] in ("queued", "running")
        assert 0 <= body["done"] <= max(body["total"], 0) or body["total"] == 0
        time.sleep(0.3)
    raise AssertionError(f"no analysis after {limit} s")


def stored_analyses(database_url: str) -> list[Any]:
    """The rows of ``match_analyses``."""
    async def rows() -> list[Any]:
        engine = make_engine(database_url)
        async with engine.connect() as conn:
            found = (await conn.execute(sa.select(match_analyses))).all()
        await engine.dispose()
        return list(found)

    return run_async(rows)


def cli_analysis(mat_text: str, tmp_path: Path, plies: int, recheck: tuple[int, int] = (0, 7)
                 ) -> Any:
    """``gammon analyze --format json`` of a .mat; ``recheck``: (games, plies) of the
    rollouts of each error (0 games: the quick analysis, graded at its ply only)."""
    path = tmp_path / "exported.mat"
    path.write_text(mat_text)
    out = io.StringIO()
    assert gammon(["analyze", str(path), "--format", "json", "--ply", str(plies),
                   "--recheck-games", str(recheck[0]), "--recheck-truncate", str(recheck[1])],
                  out=out) == 0
    return json.loads(out.getvalue())


def test_whoever_may_see_the_match_may_see_its_analysis(
        database_url: str, redis_url: str) -> None:
    """A private match's analysis: its player, and whoever holds the invite key (a guest
    too); to anyone else it does not exist. A public match's: anyone, signed in or not."""
    settings = make_settings(database_url, redis_url, analysis_on_finish=True,
                             analysis_deep_plies=0)
    with TestClient(create_app(settings)) as client:
        owner, stranger, anonymous = Browser(client), Browser(client), Browser(client)
        register(owner, "olivia")
        stranger.get("/api/me")  # a guest
        with bot_match(owner, seed=3, private=True) as (private, _):
            pass
        url = f"/api/games/{private['id']}/analysis"
        key = private["invite"].split("key=", 1)[1]
        for browser in (stranger, anonymous):
            refused = browser.get(url)
            assert refused.status_code == 404, refused.text
            assert refused.json()["detail"]["code"] == "not_found"
            assert browser.get(f"{url}?key=not-the-key").status_code == 404
        # the match's end queues its analysis in a task of the server's loop: wait for its
        # row, or the owner's request below may come first and queue it itself (priority
        # 0: it failed so on PostgreSQL at load 6)
        deadline = time.monotonic() + 60
        while not (rows := stored_analyses(database_url)):
            assert time.monotonic() < deadline, "the match's end queued no analysis"
            time.sleep(0.05)
        [row] = rows
        assert (row.match_id, row.priority) == (private["id"], 1)  # queued at the match's end
        served = wait_done(owner, url)
        assert wait_done(stranger, f"{url}?key={key}").json() == served.json()
        assert wait_done(anonymous, f"{url}?key={key}").json() == served.json()
        assert anonymous.cookie is None  # seeing a review makes no guest

        with bot_match(owner, seed=4) as (public, _):
            pass
        url = f"/api/games/{public['id']}/analysis"
        assert wait_done(anonymous, url).json()["names"][0] == "olivia"
        assert wait_done(stranger, url).status_code == 200


def pushed(me: Player, plies: int, status: str, rounds: int = 600) -> int:
    """The index in ``me``'s log of the ``analysis`` message of ``plies`` saying
    ``status`` (waited for: each round a ping's pong shows what the server had sent)."""
    for n in range(rounds):
        for i, m in enumerate(me.log):
            if m["type"] == "analysis" and m["plies"] == plies and m["status"] == status:
                return i
        me.send({"type": "ping", "id": n})
        me.wait(lambda m: m["type"] == "pong")
        time.sleep(0.1)
    raise AssertionError(f"no analysis message of {plies} plies said {status}")


def test_a_finished_matchs_quick_then_deep_analysis_are_gammon_analyze_of_its_exported_mat(
        database_url: str, redis_url: str, tmp_path: Path) -> None:
    """The first request queues the quick analysis (1 ply, priority 0) and the deep one
    behind it (2 plies, priority 2), says so (``Gammon-Deeper-Analysis: 2``) and answers 202
    (queued, then running, pushed on the socket as ``analysis`` messages); the quick one runs
    first and is then served (200) with exactly the numbers ``gammon analyze --ply 1`` gets
    from the match's exported .mat, stored once; then the deep one, whose JSON is ``gammon
    analyze --ply 2 --recheck-games 36 --recheck-truncate 2`` of that .mat, each rechecked
    error graded by the rollout; once done it is what the request without a depth gets."""
    settings = make_settings(database_url, redis_url, analysis_on_finish=False,
                             analysis_recheck_games=36, analysis_recheck_truncate=2)
    with TestClient(create_app(settings)) as client:
        a = Browser(client)
        with bot_match(a, seed=7) as (game, me):
            url = f"/api/games/{game['id']}/analysis"
            first = a.get(url)
            assert first.status_code == 202, first.text
            assert first.json() == {"match": game["id"], "plies": 1, "status": "queued",
                                    "done": 0, "total": 0}  # the default depth: 1 ply
            assert first.headers["gammon-deeper-analysis"] == "2"
            assert sorted((r.plies, r.priority) for r in stored_analyses(database_url)) == [
                (1, 0), (2, 2)]
            quick = wait_done(a, f"{url}?ply=1")
            assert quick.headers["content-type"] == "application/json"
            again = a.get(f"{url}?ply=1")  # stored once: the same text
            assert again.status_code == 200 and again.text == quick.text
            deep = wait_done(a, f"{url}?ply=2")
            quick_done, deep_running = pushed(me, 1, "done"), pushed(me, 2, "running")
            assert quick_done < deep_running < pushed(me, 2, "done")  # one after the other
            default = a.get(url)
            assert default.status_code == 200 and default.text == deep.text
            assert "gammon-deeper-analysis" not in default.headers
            exported = a.get(f"/api/games/{game['id']}/export.mat")
            assert exported.status_code == 200, exported.text
    statuses = [m["status"] for m in me.log if m["type"] == "analysis" and m["plies"] == 1]
    assert statuses[0] == "queued" and "running" in statuses and statuses[-1] == "done"
    assert me.log[quick_done]["done"] == me.log[quick_done]["total"] >= 1
    TypeAdapter(AnalysisProgress).validate_python(first.json())
    TypeAdapter(views.AnalysisView).validate_python(quick.json())  # the type OpenAPI shows
    assert quick.json() == cli_analysis(exported.text, tmp_path, plies=1)
    assert quick.json()["decisions"] and quick.json()["plies"] == 1
    assert {p["name"] for p in quick.json()["players"]} == set(quick.json()["names"])
    analysis = deep.json()
    assert analysis == cli_analysis(exported.text, tmp_path, plies=2, recheck=(36, 2))
    assert analysis["plies"] == 2
    graded = [d["graded_by"] for d in analysis["decisions"]]
    # (a play whose search ended early, a bear-off read from its database, says so)
    assert set(graded) <= {"0-ply", "1-ply", "2-ply", "rollout 36 games, 2 plies"}
    assert "2-ply" in graded
    assert "rollout 36 games, 2 plies" in graded  # random plays: errors, rechecked
    TypeAdapter(views.AnalysisView).validate_python(analysis)


def test_a_quick_analysis_asked_for_while_a_deep_one_runs_goes_first(
        database_url: str, redis_url: str) -> None:
    """One worker runs a long deep analysis (a big recheck) of one match; a quick analysis
    of another match asked for meanwhile takes the worker: the deep one goes back in the
    queue (that try not counted) and the quick one is served while the deep one waits."""
    settings = make_settings(database_url, redis_url, analysis_on_finish=False,
                             analysis_recheck_games=1296, analysis_recheck_truncate=7)
    with TestClient(create_app(settings)) as client:
        a = Browser(client)
        with bot_match(a, seed=7) as (slow, _):
            pass
        with bot_match(a, seed=9) as (other, _):
            pass
        deep_url = f"/api/games/{slow['id']}/analysis?ply=2"
        assert a.get(deep_url).json()["status"] == "queued"
        worker = client.app.state.analysis  # type: ignore[attr-defined]
        deadline = time.monotonic() + 120
        while a.get(deep_url).json()["status"] != "running":
            assert time.monotonic() < deadline, "the deep analysis did not start"
            time.sleep(0.1)
        time.sleep(0.5)
        quick = wait_done(a, f"/api/games/{other['id']}/analysis?ply=1")
        assert quick.json()["plies"] == 1
        assert worker.preempted >= 1
        rows = {(r.match_id, r.plies): r for r in stored_analyses(database_url)}
        held = rows[(slow["id"], 2)]
        assert held.status in ("queued", "running") and held.attempts <= 1
        assert held.result is None


def test_bad_ids_depths_unfinished_matches_and_a_full_queue_are_clear_errors(
        database_url: str, redis_url: str) -> None:
    settings = make_settings(database_url, redis_url, analysis_max_plies=1,
                             analysis_queue_limit=0)
    with TestClient(create_app(settings)) as client:
        a = Browser(client)
        check_refusals(a)
        with bot_match(a, seed=2) as (game, _):  # finished, but the queue is full
            busy = a.get(f"/api/games/{game['id']}/analysis")
    assert busy.status_code == 503 and busy.headers["retry-after"]
    assert busy.json()["detail"]["code"] == "analysis_busy"
    assert stored_analyses(database_url) == []


def check_refusals(a: Browser) -> None:
    game = a.post("/api/games", json={"kind": "single", "bot": 1}).json()
    cases = [
        ("/api/games/nosuchmatch0000/analysis", 404, "not_found"),
        ("/api/games/bad%20id/analysis", 422, "bad_input"),
        (f"/api/games/{'x' * 25}/analysis", 422, "bad_input"),
        (f"/api/games/{game['id']}/analysis?ply=3", 422, "bad_input"),
        (f"/api/games/{game['id']}/analysis?ply=-1", 422, "bad_input"),
        (f"/api/games/{game['id']}/analysis?ply=two", 422, "bad_input"),
        (f"/api/games/{game['id']}/analysis?ply=2", 422, "bad_input"),  # over the setting
        (f"/api/games/{game['id']}/analysis", 409, "not_finished"),  # in play
    ]
    for url, status, code in cases:
        response = a.get(url)
        assert response.status_code == status, (url, response.text)
        assert response.json()["detail"]["code"] == code, (url, response.text)


def test_an_analysis_whose_server_died_is_done_by_the_next_and_never_served_half_made(
        database_url: str, redis_url: str) -> None:
    """A server that runs no analyses queues one; the row is then marked running by a
    process that no longer beats (it died mid-way, one game done): it is served as 202,
    never as done. The next server takes it back and finishes it."""
    idle = make_settings(database_url, redis_url, analysis_workers=0,
                         analysis_on_finish=False, analysis_deep_plies=0)
    with TestClient(create_app(idle)) as client:
        a = Browser(client)
        with bot_match(a, seed=11) as (game, _):
            pass
        url = f"/api/games/{game['id']}/analysis"
        assert a.get(url).json()["status"] == "queued"

        async def died_running() -> None:
            engine = make_engine(database_url)
            async with engine.begin() as conn:
                await conn.execute(match_analyses.update().values(
                    status="running", owner="f" * 32, attempts=1, done=1, total=2))
            await engine.dispose()

        run_async(died_running)
        halfway = a.get(url)
        assert halfway.status_code == 202
        assert halfway.json() == {"match": game["id"], "plies": 1, "status": "running",
                                  "done": 1, "total": 2}
    working = make_settings(database_url, redis_url, analysis_poll=0.5, analysis_deep_plies=0)
    with TestClient(create_app(working)) as client:
        served = wait_done(Browser(client), url)  # a visitor of the new server
        assert served.json()["decisions"]

    [stored] = stored_analyses(database_url)
    assert (stored.status, stored.owner, stored.attempts) == ("done", None, 2)
    assert stored.done == stored.total >= 1


def engine_requests(position: str, dice: str) -> list[tuple[str, dict[str, Any]]]:
    """A hint and an evaluation of ``position`` (the hint with ``dice``), at 0 plies."""
    return [("/api/hint", {"position_id": position, "dice": dice, "plies": 0}),
            ("/api/eval", {"position_id": position, "plies": 0})]


def wildbg_requests(position: str, dice: str) -> list[str]:
    """wildbg's move and evaluation of ``position`` (``p0``..``p25``: the core's board)."""
    points = "&".join(f"p{i}={c}" for i, c in enumerate(Position.from_id(position).board) if c)
    return [f"/api/v1/move?die1={dice[0]}&die2={dice[1]}&{points}", f"/api/v1/eval?{points}"]


def refused_as_live_rated(browser: Browser, position: str) -> bool:
    """Whether ``browser`` is refused every engine request about ``position`` (either
    side's view; gammon's and wildbg's) with 403 ``rated_match_live``."""
    sides = (position, Position.from_id(position).swap().id())
    answers = [browser.post(path, json=body)
               for pid in sides for path, body in engine_requests(pid, "31")]
    answers += [browser.get(url) for pid in sides for url in wildbg_requests(pid, "31")]
    return all(answer.status_code == 403
               and answer.json()["detail"]["code"] == "rated_match_live" for answer in answers)


def test_no_engine_help_for_a_position_of_a_live_rated_match_whoever_asks(
        clients: tuple[Browser, Browser], client: TestClient) -> None:
    """``/api/hint`` and ``/api/eval`` refuse the position of a rated match in play (either
    side's view) to its players and to anyone else — a stranger's guest session, as a
    player's private window would be: 403 ``rated_match_live``. The starting position
    (every match's first) is refused to the players only. Other positions, and the same
    position once the match is over, get answers."""
    a, b = clients
    stranger = Browser(client)
    register(a, "hinter")
    register(b, "player")
    game = a.post("/api/games", json={"kind": "match", "length": 3}).json()
    assert b.post(f"/api/games/{game['id']}/join", json={}).status_code == 200
    with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
        pa, pb = Player.over_testclient(wa), Player.over_testclient(wb)
        pa.subscribe(game["id"])
        pb.subscribe(game["id"])
        players = {0: pa, 1: pb}
        opening = "4HPwATDgc/ABMA"
        assert a.get(f"/api/games/{game['id']}").json()["game"]["position_id"] == opening
        for browser in (a, b):
            assert refused_as_live_rated(browser, opening)
        for path, body in engine_requests(opening, "31"):
            assert stranger.post(path, json=body).status_code == 200, path
        play_turn(players, random.Random(1))  # the opening move: the next side is to roll
        state = a.get(f"/api/games/{game['id']}").json()
        assert state["info"]["rated"] is True
        position = state["game"]["position_id"]
        for browser in (a, b, stranger):
            assert refused_as_live_rated(browser, position)

        bot_game = a.post("/api/games", json={"kind": "single", "bot": 1}).json()  # unrated
        bot_state = a.get(f"/api/games/{bot_game['id']}").json()["game"]
        if bot_state["phase"] == "moving" and bot_state["position_id"] != position:
            assert a.post("/api/hint", json={
                "position_id": bot_state["position_id"],
                "dice": "".join(map(str, bot_state["dice"])), "plies": 0}).status_code == 200

        actor = to_move(players)
        act(players, actor, {"type": "resign", "level": 3})  # a backgammon: 3 points
        act(players, to_move(players), {"type": "accept_resign"})
        assert pa.game is not None and pa.game["phase"] == "match_over"
    for browser in (a, stranger):  # the match is over: help again, for everyone
        for path, body in engine_requests(position, "31"):
            assert browser.post(path, json=body).status_code == 200, path
        for url in wildbg_requests(position, "31"):
            assert browser.get(url).status_code == 200, url


def test_no_engine_help_through_another_server_process(
        clients: tuple[Browser, Browser], settings: Settings) -> None:
    """A stranger whose request reaches a second process — started before the match, so
    it did not load the match at its start-up — is refused its position too: the rated
    matches in play are the database's, not one process's."""
    a, b = clients
    with TestClient(create_app(settings)) as second:
        stranger = Browser(second)
        register(a, "seated")
        register(b, "joiner")
        game = a.post("/api/games", json={"kind": "match", "length": 1}).json()
        assert b.post(f"/api/games/{game['id']}/join", json={}).status_code == 200
        with a.websocket_connect("/ws") as wa, b.websocket_connect("/ws") as wb:
            pa, pb = Player.over_testclient(wa), Player.over_testclient(wb)
            pa.subscribe(game["id"])
            pb.subscribe(game["id"])
            play_turn({0: pa, 1: pb}, random.Random(2))  # past the starting position
        position = a.get(f"/api/games/{game['id']}").json()["game"]["position_id"]
        assert refused_as_live_rated(stranger, position)


def test_an_analysis_whose_process_is_killed_is_queued_again_and_done(
        database_url: str, redis_url: str) -> None:
    """The analysis's child process dies (SIGKILL) while it runs: a new process takes the
    analysis from the start, and it is served done (its second attempt)."""
    settings = make_settings(database_url, redis_url, analysis_deep_plies=0)
    with TestClient(create_app(settings)) as client:
        a = Browser(client)
        with bot_match(a, seed=5) as (game, _):
            pass
        url = f"/api/games/{game['id']}/analysis"
        assert a.get(url).status_code == 202
        worker = client.app.state.analysis  # type: ignore[attr-defined]
        deadline = time.monotonic() + 120
        killed: list[int] = []
        while not killed and time.monotonic() < deadline:
            pool = worker._pool
            for process in list(getattr(pool, "_processes", {}).values()):
                if process.pid is not None:
                    os.kill(process.pid, signal.SIGKILL)
                    killed.append(process.pid)
            time.sleep(0.02)
        assert killed, "no analysis process started"
        served = wait_done(a, url)
        assert served.json()["decisions"]
    [row] = stored_analyses(database_url)
    assert (row.status, row.attempts) == ("done", 2)


def test_the_analysis_children_run_as_much_lower_in_priority_as_the_settings_say() -> None:
    """``analysis_nice``: the children that analyse run that much nicer than the server (the
    other tests analyse at 0, make_settings)."""
    from types import SimpleNamespace

    from gammon.server.analysis_worker import AnalysisWorker

    settings = make_settings("sqlite+aiosqlite:///:memory:", analysis_nice=7)
    assert Settings.model_fields["analysis_nice"].default == 10  # as deployed
    worker = AnalysisWorker(settings, make_engine(settings.database_url),
                            SimpleNamespace(origin="test"))
    try:
        child = worker._executor().submit(os.nice, 0).result(timeout=120)
    finally:
        worker._close_pool()
    assert child == min(os.nice(0) + 7, 19)


def test_the_analysis_modules_do_not_import_the_command_line() -> None:
    """The server's analysis (the route, the worker, and the work its child process does)
    uses the engine's analysis and the formats' records, never ``gammon.cli``."""
    modules = ["gammon.server.analysis_api", "gammon.server.analysis_worker",
               "gammon.server.analysis_job", "gammon.engine.analysis",
               "gammon.formats.matchfile", "gammon.server.exports", "gammon.server.rooms",
               "gammon.server.hub"]
    code = (f"import sys\nfor m in {modules!r}: __import__(m)\n"
            "print([m for m in sys.modules if m.split('.')[:2] == ['gammon', 'cli']])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
