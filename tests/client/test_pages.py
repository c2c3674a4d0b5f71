"""The pages around the board: languages (chosen from the browser, switchable), flipping the
board (kept per player), phone width without horizontal scrolling, a finished match's
history, replay, .mat download and dice check (a failed download says so); signing in and
out from the navigation bar, and a sign-in page that knows who is signed in."""

from __future__ import annotations

import json
import secrets
import urllib.request

from tests.client.conftest import Pages
from tests.client.support import PHONE, options_stored, point, wait_match
from tests.client.test_play import roll_until_movable, start_bot_match


def test_the_language_comes_from_the_browser_and_can_be_switched(pages: Pages) -> None:
    page = pages.new(locale="it-IT")
    page.wait_for_function("document.documentElement.lang === 'it'")
    assert page.inner_text("nav [data-route=lobby]") == "Gioca"
    for lang, word in (("fr", "Jouer"), ("pl", "Graj"), ("hu", "Játék"), ("co", "Ghjucà"),
                       ("en", "Play")):
        page.select_option("#language", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        assert page.inner_text("nav [data-route=lobby]") == word
        assert page.locator("[data-act=play-bot]").inner_text() != ""


def test_the_page_can_be_switched_to_corsican_and_keeps_it(pages: Pages) -> None:
    page = pages.new()
    assert page.locator("#language option[value=co]").inner_text() == "Corsu"
    page.select_option("#language", "co")
    page.wait_for_function("document.documentElement.lang === 'co'")
    assert page.inner_text("nav [data-route=options]") == "Ozzioni"
    assert page.locator("[data-act=play-bot]").inner_text() == "Ghjucà contr'à l'urdinatore"
    start_bot_match(page)
    assert page.inner_text("[data-act=resign]") == "Rinuncià"
    page.reload()
    # the language is set once its strings are in, and the nav is drawn again just after
    page.wait_for_function("document.documentElement.lang === 'co' && document"
                           ".querySelector('nav [data-route=lobby]')?.innerText === 'Ghjucà'")
    assert page.inner_text("nav [data-route=lobby]") == "Ghjucà"


def test_flipping_the_board_mirrors_it_and_is_kept(pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page)
    right = page.evaluate("window.gammon.app.page.view.clientPoint(1).x")
    left = page.evaluate("window.gammon.app.page.view.clientPoint(12).x")
    assert right > left  # the home board on the right
    with options_stored(page):  # before the reload: a reload reads the stored options
        page.click("[data-act=flip]")
    page.wait_for_function("document.querySelector('svg.board').classList.contains('flipped')")
    assert page.evaluate("window.gammon.app.page.view.clientPoint(1).x") < \
        page.evaluate("window.gammon.app.page.view.clientPoint(12).x")
    page.wait_for_function("window.gammon.app.options.flip === true")
    page.reload()
    page.wait_for_function("window.gammon && window.gammon.app.page && "
                           "window.gammon.app.page.feed && window.gammon.app.page.feed.game")
    assert page.evaluate("window.gammon.app.options.flip") is True
    assert page.locator("svg.board.flipped").count() == 1


def test_the_computer_is_marked_bot_and_the_person_is_not(pages: Pages) -> None:
    """A seat a program plays (the server's computer, or a Bot API account) is marked BOT
    beside its name on the board, from the seat's ``bot`` flag."""
    page = pages.new()
    start_bot_match(page)
    page.wait_for_selector("svg.board .strip[data-bot=true]")
    marks = page.eval_on_selector_all(
        "svg.board .strip", "els => els.map(e => [e.dataset.bot, e.textContent])")
    assert sorted(bot for bot, _ in marks) == ["false", "true"]
    for bot, text in marks:
        assert ("BOT" in text) == (bot == "true")


def test_phone_width_needs_no_horizontal_scrolling(pages: Pages) -> None:
    page = pages.new(viewport=PHONE)
    for route in ("#/", "#/signin", "#/leaderboard", "#/history", "#/fairness", "#/options"):
        page.goto(page.url.split("#")[0] + route)
        page.wait_for_timeout(250)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], route
    start_bot_match(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    box = page.locator("svg.board").bounding_box()
    assert box is not None and box["width"] <= PHONE["width"]


def test_a_tap_moves_a_checker_on_a_touch_phone(pages: Pages) -> None:
    page = pages.new(viewport=PHONE, touch=True)
    start_bot_match(page)
    state = roll_until_movable(page)
    source = int(next(iter(state["game"]["legal"])))
    c = point(page, source)
    page.touchscreen.tap(c["x"], c["y"])  # picks the checker
    page.wait_for_function(f"window.gammon.app.page.ctrl.selected === {source}")
    target = point(page, int(next(iter(state["game"]["reach"][str(source)]))))
    page.touchscreen.tap(target["x"], target["y"])  # and moves it there
    state = wait_match(page, f"p.feed.v > {state['v']}")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_finished_match_has_history_replay_mat_file_and_verified_dice(pages: Pages) -> None:
    page = pages.new()
    state = start_bot_match(page, length=1)
    me = state["you"]
    page.wait_for_selector("[data-act=resign]:not([disabled])")
    page.click("[data-act=resign]")
    dialog = page.locator("dialog[open]")
    dialog.locator("input[name=level][value='1']").check()
    dialog.locator("button[data-value=offer]").click()
    wait_match(page, "g.phase === 'match_over'")
    over = page.locator("dialog[open]")
    over.wait_for()
    assert "You lost the match" in over.inner_text()
    assert "0–1" in over.inner_text() or "1–0" in over.inner_text()
    match_id = page.url.rsplit("/", 1)[1]

    # history lists it, with a .mat download
    over.locator("button[data-value=lobby]").click()
    page.click("nav [data-route=history]")
    row = page.locator(f"tr[data-game='{match_id}']")
    row.wait_for()
    assert "Lost" in row.inner_text()
    href = row.locator("a[data-download=mat]").get_attribute("href")
    with urllib.request.urlopen(page.url.split("#")[0].rstrip("/") + href) as response:
        mat = response.read().decode()
    assert "point match" in mat

    # replay: step through the moves
    row.locator("a", has_text="Replay").click()
    page.wait_for_selector(".caption:not(:empty)")
    last = page.inner_text(".replay-controls .muted")
    total = int(last.split("/")[1])
    assert total >= 3
    page.click("[data-act=first]")
    assert page.inner_text(".caption").startswith("Game 1")
    page.click("[data-act=next]")
    assert page.inner_text(".replay-controls .muted").startswith("2 /")
    page.keyboard.press("End")
    assert "wins the match" in page.inner_text(".caption")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text(".replay-controls .muted").startswith(f"{total - 1} /")

    # the dice, checked in the browser from the revealed seed
    page.goto(page.url.split("#")[0] + f"#/fairness/{match_id}")
    page.wait_for_selector("[data-verdict]")
    assert page.get_attribute("[data-verdict]", "data-verdict") == "ok"
    assert "Verified" in page.inner_text("[data-verdict]")
    assert me in (0, 1)


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
