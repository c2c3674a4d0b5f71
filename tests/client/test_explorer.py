"""The position explorer in Chromium (pages/explorer.js): the start's plays ranked with the
engine's best first (3-1: 8/5 6/5, 6-5: 24/13, as every engine and book plays them), a
pasted XGID read with its dice, a play previewed by a click on its row, and a rollout of the
best three started, followed and cancelled."""

from __future__ import annotations

from tests.client.conftest import Pages
from tests.client.support import PAGE


def test_the_explorer_ranks_previews_and_rolls_out_then_cancels(pages: Pages) -> None:
    page = pages.new("/#/explorer")
    page.wait_for_selector(".explorer-plays tbody tr")
    assert page.get_attribute(".explorer-plays tbody tr", "data-play") == "8/5 6/5"

    # the start with 6-5 to play, money, as an XGID (the format's fields: the board, cube,
    # owner, turn, dice, score, Crawford/Jacoby, length, max cube)
    page.fill("input[name=position]", "XGID=-b----E-C---eE---c-e----B-:0:0:1:65:0:0:0:0:10")
    page.click("form button[type=submit]")
    page.wait_for_selector(".explorer-plays tbody tr[data-play='24/13']")
    assert page.get_attribute(".explorer-plays tbody tr", "data-play") == "24/13"
    assert page.input_value("select[name=die1]") == "6"
    assert page.input_value("select[name=die2]") == "5"

    page.click(".explorer-plays tbody tr:nth-child(2) button")
    second = page.get_attribute(".explorer-plays tbody tr:nth-child(2)", "data-play")
    assert page.evaluate(f"{PAGE}.ctrl.preview.label") == second
    assert page.get_attribute(".explorer-plays tbody tr:nth-child(2) button",
                              "aria-pressed") == "true"

    page.click("[data-act=rollout]")
    page.wait_for_selector("[data-status=running]")
    assert page.locator(".explorer-rolled tbody tr").count() == 3
    page.click("[data-act=cancel]")
    page.wait_for_selector("[data-status=cancelled]", timeout=60_000)
    assert "Cancelled after" in page.inner_text("[data-status=cancelled]")
    assert page.locator("[data-act=rollout]").is_enabled()


def test_the_explorer_fits_a_phone(pages: Pages) -> None:
    """At 360 px nothing scrolls sideways: the board, the form and the table of plays."""
    page = pages.new("/#/explorer", viewport={"width": 360, "height": 740}, touch=True)
    page.wait_for_selector(".explorer-plays tbody tr")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    box = page.locator(".explorer-plays table").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 360
