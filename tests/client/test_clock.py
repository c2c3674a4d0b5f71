"""The clocks as the seeds draw them (RULES.md §7, seed 000 "Il timer"): two parts, the delay
then the reserve; near zero the reserve flashes and sounds; at zero the match is lost; the
Polish clock shows the game time left after a move-clock time-out. Run
against a server whose durations are scaled down (GAMMON_CLOCK_SCALE) so it takes seconds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.client.conftest import Pages, pages_on
from tests.client.support import feed, gammon_server, two_players, wait_match
from tests.client.test_two_players import on_turn

PAGE = "window.gammon.app.page"
SCALE = 0.15  # delay 2.25 s, reserve 3 s, low from 1.5 s


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with gammon_server(tmp_path_factory.mktemp("gammon-fast"), clock_scale=str(SCALE)) as base:
        yield base


@pytest.fixture
def fast_pages(browser: Any, fast_server: str) -> Iterator[Pages]:
    yield from pages_on(browser, fast_server)


def test_the_reserve_flashes_and_sounds_when_low_and_running_out_loses_the_match(
        fast_pages: Pages) -> None:
    alice = fast_pages.new()
    alice.select_option("[data-form=create] [name=clock]", "italian")
    alice.fill("[data-form=create] [name=length]", "3")
    alice.click("[data-act=create]")
    alice.wait_for_url("**/#/match/*")
    match_id = alice.url.rsplit("/", 1)[1]
    bob = fast_pages.new(f"/#/match/{match_id}")
    bob.click(".banner button.primary")
    wait_match(alice, "g.phase !== 'opening'")
    mover, other = on_turn(alice, bob)
    clock = mover.evaluate("window.gammon.app.page.feed.clock")
    me = feed(mover)["you"]
    if clock["sides"][me]["bank_left"] > 10:
        pytest.skip("this server does not scale its clocks (GAMMON_CLOCK_SCALE)")

    # both parts are drawn; the delay runs first, then the reserve
    parts = mover.locator(f".clock[data-clock='{me}'] .clock-part")
    assert parts.count() == 2
    assert mover.text_content(f".clock[data-clock='{me}'] .clock-label") == "Delay"
    mover.wait_for_selector(f".clock[data-clock='{me}'] .part-b.active", timeout=8000)
    # near zero: the clock flashes, and the player hears it
    mover.wait_for_selector(f".clock.low[data-clock='{me}']", timeout=8000)
    mover.wait_for_function("(window.gammon.sound.played.alarm || 0) > 0", timeout=5000)
    # at zero the match is lost, in both browsers
    for page in (mover, other):
        wait_match(page, "g.phase === 'match_over'", timeout=10_000)
        dialog = page.locator("dialog[open]")
        dialog.wait_for()
        assert "Time ran out" in dialog.inner_text()
    assert "You lost the match" in mover.locator("dialog[open]").inner_text()
    assert "You won the match" in other.locator("dialog[open]").inner_text()


def test_the_polish_clock_shows_the_game_time_left_after_a_move_clock_time_out(
        fast_pages: Pages) -> None:
    alice, bob = two_players(fast_pages, clock="polish")
    mover, other = on_turn(alice, bob)
    me = feed(mover)["you"]
    clock = mover.evaluate(f"{PAGE}.feed.clock")
    game_time = clock["sides"][me]["bank_left"]
    move_time = clock["sides"][me]["action_left"]
    assert clock["kind"] == "polish" and move_time < game_time
    # the mover waits: the move clock runs out first and loses the match
    for page in (mover, other):
        wait_match(page, "g.phase === 'match_over'", timeout=20_000)
        page.locator("dialog[open]").wait_for()
        assert "Time ran out" in page.locator("dialog[open]").inner_text()
        times = page.locator(f".clock[data-clock='{me}'] .clock-time").all_text_contents()
        # move clock 0:00, the game clock what the move left of it (not 0:00)
        assert times[0] == "0:00"
        minutes, seconds = times[1].split(":")
        left = 60 * int(minutes) + int(seconds)
        assert abs(left - (game_time - move_time)) <= 2, times
    # after a reload the server's clock says the same (the page no longer saw the move run)
    for page in (mover, other):
        page.reload()
        wait_match(page, "g.phase === 'match_over'", timeout=20_000)
        page.wait_for_function(f"{PAGE}.feed.clock && {PAGE}.feed.clock.sides[{me}].expired")
        times = page.locator(f".clock[data-clock='{me}'] .clock-time").all_text_contents()
        assert times[0] == "0:00"
        minutes, seconds = times[1].split(":")
        assert abs(60 * int(minutes) + int(seconds) - (game_time - move_time)) <= 2, times
