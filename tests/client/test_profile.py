"""A player's profile in Chromium (pages/profile.js), from the leaderboard: the rating line
through each rated match's rating (from 1500), the current rating, and no error-rate line
before an analysed match. The ratings are stored in the page's own server (a ``gammon
serve`` of this module) as a rated match's end stores them; the error-rate line of an
analysed match is tests/client/test_review.py's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.client.conftest import Pages, pages_on
from tests.client.support import gammon_server, rated_player

RATINGS = [(1500.0, 1516.2), (1516.2, 1531.0), (1531.0, 1519.4)]


@pytest.fixture(scope="module")
def rated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``gammon serve`` with a registered player, "rhea", who has played three rated
    matches."""
    workdir: Path = tmp_path_factory.mktemp("gammon-profile")
    with gammon_server(workdir) as base:
        rated_player(base, workdir, "rhea", RATINGS)
        yield base


@pytest.fixture
def rated_pages(browser: Any, rated_server: str) -> Iterator[Pages]:
    yield from pages_on(browser, rated_server)


def test_a_profile_draws_the_rating_after_each_rated_match(rated_pages: Pages) -> None:
    page = rated_pages.new("/#/leaderboard")
    page.click("a[href='#/profile/rhea']")
    page.wait_for_selector("[data-part=rating] svg.profile-graph")
    graph = page.locator("[data-part=rating] svg.profile-graph")
    assert graph.get_attribute("data-points") == str(len(RATINGS) + 1)  # from 1500
    points = graph.locator("polyline").get_attribute("points")
    assert points is not None and len(points.split()) == len(RATINGS) + 1
    ys = [float(p.split(",")[1]) for p in points.split()]
    assert ys.index(min(ys)) == 2 and ys.index(max(ys)) == 0  # highest 1531, lowest 1500
    assert page.inner_text("[data-part=rating] .big") == "1519"
    assert "from 1500 to 1531" in page.inner_text("[data-part=rating]")
    assert "Nothing to draw yet" in page.inner_text("[data-part=errors]")
