"""The position explorer in Chromium (pages/explorer.js): the start's plays ranked with the
engine's best first (3-1: 8/5 6/5, 6-5: 24/13, as every engine and book plays them), a
pasted Position ID with its Match ID read with its dice, a play previewed by a click on its
row, and a rollout of the best three started, followed and cancelled."""

from __future__ import annotations

from gammon.formats.match_id import MatchKey
from tests.client.conftest import Pages
from tests.client.support import PAGE

START = "4HPwATDgc/ABMA"


def test_the_explorer_ranks_previews_and_rolls_out_then_cancels(pages: Pages) -> None:
    page = pages.new("/#/explorer")
    page.wait_for_selector(".explorer-plays tbody tr")
    assert page.get_attribute(".explorer-plays tbody tr", "data-play") == "8/5 6/5"

    key = MatchKey(match_length=7, score=(2, 4), dice=(6, 5)).id()
    page.fill("input[name=position]", f"{START}:{key}")
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
