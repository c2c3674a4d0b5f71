"""What the browser tests (and ``python -m tests.client.screenshots``) share: a real
``gammon serve`` on a free loopback port with a temporary SQLite file, Debian's Chromium
driven by Playwright for Python, and small helpers that read the client's state.

Playwright is imported lazily, so that collecting this module needs nothing installed.
"""

from __future__ import annotations

import contextlib
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.processes import ServerProcess

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}


@contextlib.contextmanager
def gammon_server(workdir: Path, **settings: str) -> Iterator[str]:
    """``gammon serve`` on loopback with its own database; yields the base URL.
    ``settings`` are more GAMMON_* variables (``clock_scale="0.1"``)."""
    env = {"GAMMON_DATABASE_URL": f"sqlite+aiosqlite:///{workdir / 'gammon.db'}",
           "GAMMON_SECRET_KEY": "browser-tests", "GAMMON_RATE_LIMITS": "false",
           "GAMMON_BOT_DELAY": "0",
           # the deep analysis (2-ply, rollouts of each error) of every match the tests
           # end would take a core for the whole session: only the tests of it turn it on
           "GAMMON_ANALYSIS_DEEP_PLIES": "0",
           # the review tests wait on each analysis: at the deployment's nice 10 its child
           # waits behind every other process of the suite (tests/server/test_analysis.py
           # checks the setting)
           "GAMMON_ANALYSIS_NICE": "0",
           **{f"GAMMON_{key.upper()}": value for key, value in settings.items()}}
    server = ServerProcess(env, log=workdir / "server.log", cwd=workdir, ping_interval=None)
    try:
        server.start(timeout=60)
        warm_engine(server.url)
        yield server.url
    finally:
        server.stop()


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Debian's) under Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# -- reading the client ----------------------------------------------------------------

PAGE = "window.gammon && window.gammon.app.page"


def feed(page: Any) -> dict[str, Any]:
    """What the match page holds from the server: v, you, info, game."""
    return page.evaluate(  # type: ignore[no-any-return]
        f"(() => {{ const p = {PAGE}; const f = p && p.feed; return f ? "
        "{v: f.v, you: f.you, info: f.info, game: f.game, events: f.events.length} : null; })()")


def wait_match(page: Any, condition: str = "true", timeout: float = 15_000) -> dict[str, Any]:
    """Wait until the match page has a state, no animation is playing, nothing is in
    flight, and ``condition`` (JS over ``g`` the game, ``me`` the seat) holds."""
    page.wait_for_function(
        f"(() => {{ const p = {PAGE}; if (!p || !p.feed || !p.feed.game) return false;"
        " const g = p.feed.game; const me = p.feed.you;"
        " const c = p.ctrl;"
        f" return !(c && (c.animating || c.busy)) && ({condition}); }})()",
        timeout=timeout)
    return feed(page)


MY_ROLL = "g.turn === me && g.phase === 'before_roll'"
MY_MOVE = "g.turn === me && g.phase === 'moving'"


def point(page: Any, slot: int) -> dict[str, float]:
    """Screen coordinates of a slot (the viewer's numbering; 25 the bar, 0 the tray)."""
    return page.evaluate(f"{PAGE}.view.clientPoint({slot})")  # type: ignore[no-any-return]


def drag(page: Any, source: int, destination: int) -> None:
    """Drag the top checker of ``source`` to ``destination`` with the mouse."""
    a = point(page, source)
    b = point(page, destination)
    page.mouse.move(a["x"], a["y"])
    page.mouse.down()
    page.mouse.move(a["x"] + 12, a["y"] + 12, steps=3)
    page.mouse.move(b["x"], b["y"], steps=8)
    page.mouse.up()


@contextlib.contextmanager
def options_stored(page: Any) -> Iterator[None]:
    """Wait, at the end of the block, for the server's answer to the options the block saved.
    The client shows a changed option at once and stores it in the background (its
    saveOptions); the server acts on what it stored (confirm and auto-roll, read at each
    turn) and a reload reads it back: until the answer, neither has the change."""
    with page.expect_response(lambda r: r.url.endswith("/api/me/options")
                              and r.request.method == "PUT") as answer:
        yield
    assert answer.value.ok, answer.value.status


def two_players(pages: Any, **rules: Any) -> tuple[Any, Any]:
    """Alice creates a match with `rules` (the create form's fields), Bob joins by link."""
    alice = pages.new()
    form = "[data-form=create]"
    alice.fill(f"{form} [name=length]", "1")
    if "clock" in rules:
        alice.select_option(f"{form} [name=clock]", rules["clock"])
    if rules.get("winner_rolls_anew"):
        alice.check(f"{form} [name=winner_rolls_anew]")
    alice.click("[data-act=create]")
    alice.wait_for_url("**/#/match/*")
    match_id = alice.url.rsplit("/", 1)[1]
    bob = pages.new(f"/#/match/{match_id}")
    bob.click(".banner button.primary")
    wait_match(alice, "g.phase !== 'opening'")
    wait_match(bob, "g.phase !== 'opening'")
    return alice, bob


def warm_engine(base: str) -> None:
    """Ask the server's engine once for what the computer's moves and the review ask of it
    (plays at a score, 0 and 1 ply; a cube decision): from a fresh checkout its compiled
    kernels are built on first use, tens of seconds holding the interpreter, and a test
    running meanwhile saw its pings go unanswered (the client then takes the connection
    for dead and reconnects) and its option saves time out."""
    import json

    at_score = {"match_id": "MAHgACAAGAAE"}  # 5-away/4-away, player 0 on roll
    for path, body in [("/api/hint", {"position_id": "4HPwATDgc/ABMA", "dice": "31",
                                      "plies": 0, **at_score}),
                       ("/api/hint", {"position_id": "4HPwATDgc/ABMA", "dice": "31",
                                      "plies": 1, **at_score}),
                       ("/api/eval", {"position_id": "4HPwATDgc/ABMA", "plies": 0,
                                      "match_id": "MAHgACAAGAAE"})]:
        request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=600) as response:
            assert response.status == 200, (path, response.status)


def set_graphics(page: Any, quality: str) -> None:
    """Set the player's graphics option ("high" or "low") as the options menu does (the
    client's saveOptions: stored, and acted on from the next frame). Low shows an
    opponent's checker 160 ms instead of 420 and its roll 250 instead of 550: the tests that
    play whole matches against the computer to check something else play them at low
    (test_feedback.py checks each option's pace)."""
    page.evaluate(f"window.gammon.app.saveOptions({{graphics: '{quality}'}})")
    page.wait_for_function(f"window.gammon.app.options.graphics === '{quality}'")


def board_version(page: Any) -> int:
    return int(page.evaluate(f"{PAGE}.feed.v"))


def rated_player(base: str, workdir: Path, name: str, ratings: list[tuple[float, float]],
                 error_rates: list[float] | None = None) -> int:
    """Register ``name`` on the ``gammon serve`` of ``workdir`` (its id back) and store in
    its database, as a rated match's end and a finished analysis store them, a finished
    rated 3-point match against "opponent" for each (before, after) rating of ``ratings``
    (won when the rating rose) and, with ``error_rates``, each match's analysis with the
    player's error rate (millipoints per decision): the profile's rating and error-rate
    graphs without playing the matches out."""
    import json
    import time

    import sqlalchemy as sa

    from gammon.server.db import make_engine, match_analyses, matches, rating_changes, users
    from gammon.views import MatchConfig
    from tests.server.conftest import run_async

    def signed_up(who: str) -> int:
        request = urllib.request.Request(
            base + "/api/register", method="POST",
            data=json.dumps({"name": who, "password": "a-long-secret"}).encode(),
            headers={"content-type": "application/json"})
        with urllib.request.urlopen(request) as response:
            return int(json.load(response)["user"]["id"])

    user_id, opponent = signed_up(name), signed_up(f"{name}-rival")
    start = time.time() - 86400 * len(ratings)

    async def store() -> None:
        engine = make_engine(f"sqlite+aiosqlite:///{workdir / 'gammon.db'}")
        async with engine.begin() as conn:
            for n, (before, after) in enumerate(ratings):
                at, match_id = start + 86400 * n, f"{name}-rated-{n}"
                await conn.execute(matches.insert().values(
                    id=match_id, created_at=at - 600, status="finished",
                    config=MatchConfig(kind="match", length=3).to_json(), player0=user_id,
                    player1=opponent, private=False, rated=True, server_seed="0" * 64,
                    seed_hash="0" * 64, winner=0 if after >= before else 1, finished_at=at))
                await conn.execute(rating_changes.insert().values(
                    user_id=user_id, match_id=match_id, before=before, after=after, at=at))
                if error_rates is not None:
                    result = {"players": [{"error_rate_mp": error_rates[n]},
                                          {"error_rate_mp": 8.0}]}
                    await conn.execute(match_analyses.insert().values(
                        match_id=match_id, plies=0, status="done", priority=1, attempts=1,
                        done=1, total=1, result=json.dumps(result), created_at=at,
                        updated_at=at))
            await conn.execute(sa.update(users).where(users.c.id == user_id)
                               .values(rating=ratings[-1][1], experience=len(ratings)))
        await engine.dispose()

    run_async(store)
    return user_id


def register(page: Any, name: str) -> None:
    """Sign ``name`` up on the sign-in page; back on the lobby with the socket open."""
    page.goto(page.url.split("#")[0] + "#/signin")
    form = page.locator("[data-form=register]")
    form.locator("[name=name]").fill(name)
    form.locator("[name=password]").fill("correct horse battery")
    form.locator("button[type=submit]").click()
    page.wait_for_url("**/#/")
    page.wait_for_function("window.gammon.socket.status === 'open'")
