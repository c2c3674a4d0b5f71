"""The puzzle page in Chromium (pages/puzzles.js): a player solves a checker puzzle right by
playing the roll on the board with clicks (and with the keyboard), answers a cube question
wrong, and sees both verdicts with the engine's answers and the puzzle rating moving up then
down; the next puzzle follows, and none left is said. The same page over a player's own
deck of mistakes (#/mistakes). The puzzles are stored in the page's own server (a
``gammon serve`` of this module) as a finished match's analysis stores them."""

from __future__ import annotations

import dataclasses
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gammon.core.position import Position
from gammon.engine.puzzles import Answer, Puzzle, Source
from gammon.formats.match_id import MatchKey
from gammon.server.db import make_engine
from gammon.server.puzzles import store_puzzles
from tests.client.conftest import Pages, pages_on
from tests.client.support import PAGE, gammon_server, point
from tests.server.conftest import run_async

# 3-1 from the start: 8/5 6/5 makes the 5 point (the opening's best play by every engine)
OPENING = Puzzle("checker", Position.initial().id(), MatchKey(match_length=5, dice=(3, 1)).id(),
                 "31", (Answer("8/5 6/5", 0.157), Answer("24/23 13/10", 0.010)), 0.147,
                 "2-ply", 2, ("opening",), (Source(1, 1, 0, "24/23 13/10", 0.147),))
# doubled at the start of a money game: an easy take
TAKE = Puzzle("take", Position.initial().id(),
              MatchKey(turn=0, dice_owner=1, double_offered=True).id(), "",
              (Answer("take", 0.21), Answer("drop", -1.0)), 1.21, "2-ply", 2, ("take-point",),
              (Source(1, 2, 0, "drop", 1.21),))


DATABASES: dict[str, Path] = {}
"""The SQLite file of each module server, by its base URL."""


def database_of(base: str) -> Path:
    return DATABASES[base]


def _post(base: str, path: str, body: dict[str, Any], cookie: str = "") -> tuple[Any, str]:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json",
                                              "cookie": cookie}, method="POST")
    with urllib.request.urlopen(request) as response:
        return json.load(response), response.headers.get("set-cookie", "").split(";")[0]


@pytest.fixture(scope="module")
def puzzle_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, int]]]:
    """A ``gammon serve`` whose pool holds the two puzzles, met in a public match; their
    ids by kind."""
    workdir: Path = tmp_path_factory.mktemp("gammon-puzzles")
    with gammon_server(workdir) as base:
        DATABASES[base] = workdir / "gammon.db"
        _, cookie = _post(base, "/api/guest", {})
        match, _ = _post(base, "/api/games", {"kind": "single"}, cookie)
        url = f"sqlite+aiosqlite:///{workdir / 'gammon.db'}"

        async def store() -> dict[str, int]:
            engine = make_engine(url)
            async with engine.begin() as conn:
                await store_puzzles(conn, match["id"], [OPENING, TAKE])
                rows = (await conn.exec_driver_sql("SELECT kind, id FROM puzzles")).all()
            await engine.dispose()
            return {kind: puzzle_id for kind, puzzle_id in rows}

        yield base, run_async(store)


@pytest.fixture
def puzzle_pages(browser: Any, puzzle_server: tuple[str, dict[str, int]]) -> Iterator[Pages]:
    yield from pages_on(browser, puzzle_server[0])


def click_slot(page: Any, slot: int) -> None:
    c = point(page, slot)
    page.mouse.click(c["x"], c["y"])
    page.wait_for_function(f"!({PAGE}).ctrl.busy")


def test_a_puzzle_solved_right_on_the_board_then_a_cube_question_answered_wrong(
        puzzle_pages: Pages, puzzle_server: tuple[str, dict[str, int]]) -> None:
    ids = puzzle_server[1]
    page = puzzle_pages.new(f"/#/puzzles/{ids['checker']}")
    page.wait_for_selector(".puzzle-question")
    assert "3-1" in page.inner_text(".puzzle-question")
    assert "5-point match" in page.inner_text(".puzzle-side")
    assert page.get_attribute("nav a[data-route=puzzles]", "aria-current") == "page"
    submit = page.locator("[data-act=submit]")
    assert submit.is_disabled()

    # 8/5 by a click on the 8 then on the lit 5; the 6 by the keyboard: Enter picks it, the
    # arrow walks to the 5, Enter moves it there
    click_slot(page, 8)
    assert page.evaluate(f"{PAGE}.ctrl.selected") == 8
    lit = page.evaluate(f"[...{PAGE}.ctrl.reachOf(8).keys()].sort((a, b) => a - b)")
    assert lit == [4, 5, 7]
    click_slot(page, 5)
    assert page.evaluate(f"{PAGE}.ctrl.moves.dice_left") == [1]
    page.focus("rect.hit[data-slot='6']")
    page.keyboard.press("Enter")
    page.wait_for_function(f"{PAGE}.ctrl.selected === 6")
    page.keyboard.press("ArrowRight")  # the 5 point lies right of the 6, at the bottom
    page.keyboard.press("Enter")
    page.wait_for_selector(".puzzle-play[data-play='8/5 6/5']")
    assert "8/5 6/5" in page.inner_text(".puzzle-play")
    # undo and do it again
    page.click("[data-act=undo]")
    page.wait_for_selector(".puzzle-play[data-play='']")
    click_slot(page, 6)
    click_slot(page, 5)
    page.wait_for_selector(".puzzle-play[data-play='8/5 6/5']")
    submit.click()
    page.wait_for_selector("[data-verdict=right]")
    side = page.inner_text(".puzzle-side")
    assert "24/23 13/10" in side and "+0.157" in side
    first = page.evaluate(f"{PAGE}.ctrl.verdict")
    assert first["rating_change"]["after"] > first["rating_change"]["before"] == 1500
    assert f"1500 → {round(first['rating_change']['after'])}" in side
    assert page.locator(".puzzle-side a[href^='#/review/']").count() == 1

    # the next puzzle is the other one: the cube question, answered wrong
    page.click("[data-act=next]")
    page.wait_for_selector("[data-choice=drop]")
    assert "take or pass" in page.inner_text(".puzzle-question").lower()
    page.click("[data-choice=drop]")
    page.wait_for_selector("[data-verdict=wrong]")
    second = page.evaluate(f"{PAGE}.ctrl.verdict")
    assert (second["answer"], second["best"]) == ("drop", "take")
    assert second["rating_change"]["after"] < second["rating_change"]["before"]
    assert "1.210" in page.inner_text("[data-verdict=wrong]")

    # nothing left for this player
    page.click("[data-act=next]")
    page.wait_for_selector(".puzzle-side .error-text")
    assert "No puzzle left" in page.inner_text(".puzzle-side .error-text")


def test_a_puzzle_in_hungarian_on_a_phone(puzzle_pages: Pages,
                                          puzzle_server: tuple[str, dict[str, int]]) -> None:
    """At 360 px the board and the question's controls fit the screen, in Hungarian."""
    ids = puzzle_server[1]
    page = puzzle_pages.new(f"/#/puzzles/{ids['take']}", viewport={"width": 360, "height": 740},
                            locale="hu-HU")
    page.wait_for_selector("[data-choice=take]")
    assert "elfogadod" in page.inner_text(".puzzle-question")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    box = page.locator("[data-choice=drop]").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 360


def test_an_unknown_puzzle_is_said_so(puzzle_pages: Pages) -> None:
    page = puzzle_pages.new("/#/puzzles/999999")
    page.wait_for_selector(".puzzle-side .error-text")
    assert "no such puzzle" in page.inner_text(".puzzle-side .error-text")


def test_my_own_mistake_worked_through_as_a_card_of_my_deck(
        puzzle_pages: Pages, puzzle_server: tuple[str, dict[str, int]]) -> None:
    """A guest's error in their own match is a card of their deck (#/mistakes): answered
    wrong it is said when it comes back, none is due then, and the deck downloads as CSV."""
    base = puzzle_server[0]
    page = puzzle_pages.new("/#/mistakes")
    page.wait_for_selector(".deck-empty")
    game = page.evaluate("fetch('/api/games', {method: 'POST', headers: {'content-type': "
                         "'application/json'}, body: JSON.stringify({kind: 'single'})})"
                         ".then((r) => r.json())")
    mine = dataclasses.replace(OPENING, sources=(Source(1, 3, 0, "24/23 13/10", 0.147),))

    async def store() -> None:
        engine = make_engine(f"sqlite+aiosqlite:///{database_of(base)}")
        async with engine.begin() as conn:
            await store_puzzles(conn, game["id"], [mine])
        await engine.dispose()

    run_async(store)
    page.reload()
    page.wait_for_selector(".deck-counts[data-due='1']")
    assert "Streak: 0 days" in page.inner_text(".puzzle-side")
    page.wait_for_selector(".puzzle-question")
    click_slot(page, 24)
    click_slot(page, 23)
    click_slot(page, 13)
    click_slot(page, 10)
    page.wait_for_selector(".puzzle-play[data-play='24/23 13/10']")
    page.click("[data-act=submit]")
    page.wait_for_selector("[data-verdict=wrong]")
    assert "comes back" in page.inner_text(".comes-back")
    page.wait_for_selector(".deck-counts[data-due='0']")
    assert "Streak: 1 day" in page.inner_text(".puzzle-side")
    page.click("[data-act=next]")
    page.wait_for_selector(".puzzle-side .error-text")
    assert "No card is due" in page.inner_text(".puzzle-side .error-text")
    assert "next card is due" in page.inner_text(".puzzle-side")
    exported = page.evaluate("fetch('/api/deck/export.csv').then((r) => r.text())")
    lines = exported.strip().splitlines()
    assert len(lines) == 2 and "8/5 6/5" in lines[1] and lines[1].endswith(",1,1")
