"""The lobby's Play now card in Chromium: a player presses Play now and waits (the pool, the
time waited, Cancel), another sees one waiting in that pool; Cancel takes the first out and
brings the form back; both press Play now with the same choices and land in the same match.
On a 360 px wide screen nothing is wider than the screen."""

from __future__ import annotations

from typing import Any

from tests.client.conftest import Pages
from tests.client.support import PAGE, wait_match

NARROW = {"width": 360, "height": 740}


def choose(page: Any, *, length: str, clock: str) -> None:
    """A match to ``length`` points with ``clock``, unrated (the players are guests)."""
    form = "[data-form=play-now]"
    page.wait_for_function(f"{PAGE} && {PAGE}.ctrl && {PAGE}.ctrl.seek === null")
    page.select_option(f"{form} [name=kind]", "match")
    page.select_option(f"{form} [name=length]", length)
    page.select_option(f"{form} [name=clock]", clock)
    assert page.is_disabled(f"{form} [name=rated]")  # a guest plays unrated


def test_two_players_press_play_now_and_land_in_the_same_match(pages: Pages) -> None:
    ann = pages.new(viewport=NARROW)
    bob = pages.new()
    # a pool of this test's own (one session server for every browser test)
    choose(ann, length="9", clock="polish")
    choose(bob, length="9", clock="polish")
    ann.select_option("[data-form=play-now] [name=bot_after]", "120")  # the bot, later
    ann.click("[data-act=play-now]")
    waiting = ann.wait_for_selector("[data-seek=waiting]:not([hidden])")
    assert ann.is_hidden("[data-form=play-now]")
    lines = [line.strip() for line in waiting.inner_text().splitlines() if line.strip()]
    assert lines[1:] == ["Match to 9 points · Game + move clock · unrated",
                         "If nobody comes within 120 s: the computer (Intermediate).",
                         "Cancel"]
    assert lines[0].startswith("Waiting for an opponent…")
    ann.wait_for_function("/^\\d+:\\d\\d$/.test("
                          "document.querySelector('[data-elapsed]').textContent)")
    assert ann.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    # the other player's lobby counts the one waiting, in that pool
    pool = "[data-pool='match-9-polish-false']"
    assert "1 waiting" in bob.wait_for_selector(pool).inner_text()
    bob.wait_for_function("document.querySelector('[data-waiting-here]').textContent"
                          " === '1 player waiting for this game'")
    # Cancel: out of the pool, the form back, the count gone
    ann.click("[data-act=cancel-seek]")
    ann.wait_for_selector("[data-form=play-now]:not([hidden])")
    bob.wait_for_selector(pool, state="detached")
    ann.select_option("[data-form=play-now] [name=bot_after]", "")
    # both press Play now: one match, both in it
    ann.click("[data-act=play-now]")
    ann.wait_for_selector("[data-seek=waiting]:not([hidden])")
    bob.click("[data-act=play-now]")
    ann.wait_for_url("**/#/match/*")
    bob.wait_for_url("**/#/match/*")
    assert ann.url.rsplit("/", 1)[1] == bob.url.rsplit("/", 1)[1]
    names = []
    for page in (ann, bob):
        state = wait_match(page)
        info = state["info"]
        assert info["length"] == 9 and info["clock"] == "polish" and not info["rated"]
        names.append(page.evaluate("window.gammon.app.me.name"))
        seats = [seat["name"] for seat in info["seats"]]
    assert seats == names  # the first to press has seat 0
