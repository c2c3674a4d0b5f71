"""Fixes found in testing (issue 12, item 8): the Polish clock shows the game time left after
a move-clock time-out; with "winner rolls anew" the move list shows both opening dice and
then the winner's new roll; signing in and out from the navigation bar, and a sign-in page
that knows who is signed in; a failed .mat or SGF download says so."""

from __future__ import annotations

import json
import secrets
from typing import Any

from tests.client.conftest import Pages
from tests.client.support import feed, wait_match
from tests.client.test_clock import fast_pages, fast_server  # noqa: F401  (fixtures)
from tests.client.test_play import start_bot_match
from tests.client.test_two_players import on_turn

PAGE = "window.gammon.app.page"


def two_players(pages: Pages, **rules: Any) -> tuple[Any, Any]:
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


def test_the_polish_clock_shows_the_game_time_left_after_a_move_clock_time_out(
        fast_pages: Pages) -> None:  # noqa: F811
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


def test_winner_rolls_anew_lists_both_opening_dice_then_the_new_roll(pages: Pages) -> None:
    alice, bob = two_players(pages, winner_rolls_anew=True)
    for page in (alice, bob):
        page.wait_for_function(f"{PAGE}.feed.events.some(e => e.type === 'opening_rolled')")
        opening = next(e for e in page.evaluate(f"{PAGE}.feed.events")
                       if e["type"] == "opening_rolled")
        d0, d1 = opening["throws"][-1]
        high, low = sorted(opening["roll"], reverse=True)
        names = [s["name"] for s in feed(page)["info"]["seats"]]
        row = page.inner_text(".movelist .ml-opening")
        assert f"({names[0]} – {names[1]}): " in row and f"{d0}–{d1}" in row, row
        assert f"{names[opening['first']]} rolls anew: {high}{low}" in row, row
        # the sentences the screen reader hears: the opening dice, then the new roll
        said = page.evaluate(f"""(() => {{ const p = {PAGE}; const ev = p.feed.events;
            const i = ev.findIndex(e => e.type === 'opening_rolled');
            return [p.ctrl.describe(ev[i], ev[i - 1]), p.ctrl.describe(ev[i + 1], ev[i])]; }})()""")
        assert f"{names[0]} {d0}, {names[1]} {d1}" in said[0]
        assert said[1] == f"{names[opening['first']]} rolled {high}-{low}."
        # the rule comes from the match info, not the dice: a new roll equal to the last
        # opening throw (1 time in 18) is still a new roll
        assert feed(page)["info"]["winner_rolls_anew"] is True
        same = page.evaluate(f"""(() => {{ const p = {PAGE};
            const o = {{type: 'opening_rolled', first: 0, throws: [[5, 3]], roll: [5, 3], v: 1}};
            const r = {{type: 'dice_rolled', player: 0, roll: [5, 3], v: 2}};
            return p.ctrl.describe(r, o); }})()""")
        assert same == f"{names[0]} rolled 5-3.", same


def test_sign_in_and_out_from_the_navigation_bar_and_the_page_knows_who_is_signed_in(
        pages: Pages) -> None:
    page = pages.new()
    assert page.locator("#nav-signin").is_visible()
    assert page.locator("#nav-signout").is_hidden()
    page.click("#nav-signin")
    page.wait_for_url("**/#/signin")
    assert page.get_attribute("[data-signed-in]", "data-signed-in") == "guest"
    name = f"u{secrets.token_hex(4)}"
    page.fill("[data-form=register] [name=name]", name)
    page.fill("[data-form=register] [name=password]", "correct horse battery")
    page.click("[data-form=register] button[type=submit]")
    page.wait_for_url("**/#/")
    page.wait_for_function("window.gammon.app.me && window.gammon.app.me.kind === 'user'")
    # signed in: the bar offers signing out, the sign-in page says who is signed in
    assert page.locator("#nav-signin").is_hidden()
    assert page.locator("#nav-signout").is_visible()
    page.goto(page.url.split("#")[0] + "#/signin")
    page.wait_for_selector("[data-card=signed-in]")
    assert page.get_attribute("[data-signed-in]", "data-signed-in") == "user"
    assert f"Signed in as {name}" in page.inner_text("[data-card=signed-in]")
    assert page.locator("[data-form=register]").count() == 0
    # out from the bar: a guest again, everywhere on the page
    page.click("#nav-signout")
    page.wait_for_function("window.gammon.app.me && window.gammon.app.me.kind === 'guest'")
    page.wait_for_selector("#nav-signin:not([hidden])")
    assert page.get_attribute("[data-signed-in]", "data-signed-in") == "guest"
    assert page.inner_text("#user-link").startswith("guest-")
    # and in again from the bar, with the sign-in form
    page.click("#nav-signin")
    page.fill("[data-form=login] [name=name]", name)
    page.fill("[data-form=login] [name=password]", "correct horse battery")
    page.click("[data-form=login] button[type=submit]")
    page.wait_for_function(f"window.gammon.app.me && window.gammon.app.me.name === '{name}'")
    page.wait_for_selector("#nav-signout:not([hidden])")


def test_a_failed_download_says_so_and_a_good_one_saves_the_file(pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page, kind="single")
    match_id = page.url.rsplit("/", 1)[1]
    page.goto(page.url.split("#")[0] + f"#/replay/{match_id}")
    page.wait_for_selector(".caption:not(:empty)")
    failure = json.dumps({"detail": {"code": "internal", "message": "export exploded"}})
    page.route("**/export.sgf*", lambda route: route.fulfill(
        status=500, content_type="application/json", body=failure))
    page.click("a[data-download=sgf]")
    toast = page.locator(".toast.error")
    toast.wait_for()
    assert f"{match_id}.sgf" in toast.inner_text()
    assert "export exploded" in toast.inner_text()
    # a file that comes is saved under its name
    with page.expect_download() as download:
        page.click("a[data-download=mat]")
    assert download.value.suggested_filename == f"{match_id}.mat"
