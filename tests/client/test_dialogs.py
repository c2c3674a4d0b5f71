"""Every dialog of the match page fits a 360 px wide phone: nothing in it sticks out
sideways or is clipped (the match-end table's last column was, at 412 px). Two players on
360 x 740 screens, one in English and one in Hungarian (long words), open each dialog in
turn: the double and its take, the resignation and its answer, the abandon warning, the
match-end dialog with the engine's table, and the rematch offer."""

from __future__ import annotations

from typing import Any

from tests.client.conftest import Pages
from tests.client.support import wait_match
from tests.client.test_two_players import create_game, on_turn, play_turn_by_clicks

NARROW = {"width": 360, "height": 740}


def assert_fits(page: Any, what: str) -> None:
    """The open dialog (the one on top) lies inside the screen, scrolls nothing sideways,
    and every element in it lies inside it (its visible part: a clipped cell would reach
    past it)."""
    page.locator("dialog[open]").last.wait_for()
    problems = page.evaluate("""(() => {
        const d = [...document.querySelectorAll("dialog[open]")].pop();  // the one on top
        const box = d.getBoundingClientRect();
        const out = [];
        if (box.left < 0 || box.right > innerWidth) out.push(["dialog", box.left, box.right]);
        if (d.scrollWidth > d.clientWidth) out.push(["scrolls", d.scrollWidth, d.clientWidth]);
        for (const el of d.querySelectorAll("*")) {
            const r = el.getBoundingClientRect();
            if (!r.width) continue;
            if (r.left < box.left - 0.5 || r.right > box.right + 0.5)
                out.push([el.tagName, el.className, el.textContent.slice(0, 30), r.left, r.right]);
            if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible")
                out.push(["clipped", el.tagName, el.textContent.slice(0, 30)]);
        }
        const page = document.documentElement.scrollWidth;
        if (page > innerWidth) out.push(["page", page]);
        return out;
    })()""")
    assert problems == [], (what, page.evaluate("document.documentElement.lang"), problems)


def answer(page: Any, value: str) -> None:
    page.locator(f"dialog[open] button[data-value='{value}']").click()
    page.wait_for_selector("dialog[open]", state="detached")


def test_every_dialog_of_a_match_fits_a_360_pixel_screen(pages: Pages) -> None:
    alice = pages.new(viewport=NARROW)
    match_id = create_game(alice)
    bob = pages.new(f"/#/match/{match_id}", viewport=NARROW, locale="hu-HU")
    bob.wait_for_function("document.documentElement.lang === 'hu'")
    bob.click(".banner button.primary")  # join
    first, second = on_turn(alice, bob)
    play_turn_by_clicks(first)

    # the second doubles: the first's take-or-drop dialog
    wait_match(second, "g.turn === me && g.phase === 'before_roll' && g.can_double")
    second.click("[data-act=double]")
    assert_fits(first, "double offered")
    answer(first, "take")

    # the doubler plays on; the taker opens the abandon warning (and keeps playing), then
    # the resign dialog, and offers a single game: the doubler's answer dialog
    play_turn_by_clicks(second)
    wait_match(first, "g.turn === me && g.phase === 'before_roll'")
    first.click("[data-act=abandon]")
    assert_fits(first, "abandon")
    answer(first, "")
    first.click("[data-act=resign]")
    assert_fits(first, "resign")
    first.locator("dialog[open] input[name=level][value='1']").check()
    answer(first, "offer")
    assert_fits(second, "resignation offered")
    answer(second, "reject_resign")
    # a backgammon at cube 2 is 6 points: the match to 3 is over
    wait_match(first, "g.phase === 'before_roll' && p.ctrl.resignFloor === 1")
    first.click("[data-act=resign]")
    first.locator("dialog[open] input[name=level][value='3']").check()
    first.locator("dialog[open] button[data-value='offer']").click()  # the end dialog follows

    # the match-end dialog, with the engine's table once the analysis is in
    for page in (alice, bob):
        page.wait_for_selector("dialog[open] [data-analysis=done]", timeout=60_000)
        assert_fits(page, "match end")
    # a rematch asked by one: the other's invitation
    first.locator("dialog[open] button[data-value='rematch']").click()
    second.wait_for_function("[...document.querySelectorAll('dialog[open]')]"
                             ".some((d) => !d.classList.contains('over-dialog'))")
    assert_fits(second, "rematch offered")
