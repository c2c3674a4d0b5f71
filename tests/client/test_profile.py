"""A player's profile in Chromium (pages/profile.js), from the leaderboard: the rating line
through each rated match's rating (from 1500), the current rating, and no error-rate line
before an analysed match. The ratings are stored in the page's own server (a ``gammon
serve`` of this module) as a rated match's end stores them; the error-rate line of an
analysed match is tests/client/test_review.py's. Its tournaments card: a finished public
knockout with the player's place among the entrants (the place the server's standings
give; the tournament rows stored as its scheduler stores them), a private one never shown, a
player of none told so; in Polish, the place's plural; at 360 px nothing scrolls
sideways."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.client.conftest import Pages, pages_on
from tests.client.support import gammon_server, rated_player

RATINGS = [(1500.0, 1516.2), (1516.2, 1531.0), (1531.0, 1519.4)]
NARROW = {"width": 360, "height": 740}


def store_tournaments(workdir: Path, player: int) -> None:
    """Two finished knockouts of ``player`` and their rival ("rhea-rival"), each a final
    the rival won: "Spring cup", public, and "Secret cup", private."""
    import sqlalchemy as sa

    from gammon.server.db import (
        make_engine,
        tournament_entries,
        tournament_pairings,
        tournaments,
        users,
    )
    from tests.server.conftest import run_async

    async def store() -> None:
        engine = make_engine(f"sqlite+aiosqlite:///{workdir / 'gammon.db'}")
        async with engine.begin() as conn:
            rival = (await conn.execute(sa.select(users.c.id).where(
                users.c.name == "rhea-rival"))).scalar_one()
            at = time.time() - 3600
            for n, (slug, name, private) in enumerate([("springcup", "Spring cup", False),
                                                        ("secretcup", "Secret cup", True)]):
                done = await conn.execute(tournaments.insert().values(
                    slug=slug, name=name, format="knockout", length=3, clock="none",
                    rated=False, starts_at=None, max_players=8, rounds=None, duration=None,
                    private=private, invite_key="k" * 22 if private else None,
                    organiser=rival, state="finished", round=1, created_at=at + n,
                    started_at=at + n, finished_at=at + 60 + n))
                tournament_id = done.inserted_primary_key[0]
                for user in (player, rival):
                    await conn.execute(tournament_entries.insert().values(
                        tournament_id=tournament_id, user_id=user, rating=1500.0,
                        entered_at=at, withdrawn=False))
                await conn.execute(tournament_pairings.insert().values(
                    tournament_id=tournament_id, round=1, board=1, first=player,
                    second=rival, match_id=f"rhea-rated-{n}", winner=rival, reason=None,
                    made_at=at + n, finished_at=at + 60 + n))
        await engine.dispose()

    run_async(store)


def sign_up(base: str, name: str) -> None:
    request = urllib.request.Request(
        base + "/api/register", method="POST",
        data=json.dumps({"name": name, "password": "a-long-secret"}).encode(),
        headers={"content-type": "application/json"})
    with urllib.request.urlopen(request):
        pass


@pytest.fixture(scope="module")
def rated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``gammon serve`` with a registered player, "rhea", who has played three rated
    matches and two tournaments (one private), and "newcomer", who has played nothing."""
    workdir: Path = tmp_path_factory.mktemp("gammon-profile")
    with gammon_server(workdir) as base:
        rhea = rated_player(base, workdir, "rhea", RATINGS)
        store_tournaments(workdir, rhea)
        sign_up(base, "newcomer")
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


def test_a_profile_lists_the_players_public_tournaments(rated_pages: Pages) -> None:
    page = rated_pages.new("/#/profile/rhea")
    card = page.wait_for_selector("[data-part=tournaments] table")
    assert card is not None
    headers = page.locator("[data-part=tournaments] thead th[scope=col]").all_inner_texts()
    assert headers == ["Tournament", "Format", "Place", "Date"]
    rows = page.locator("[data-part=tournaments] tbody tr")
    assert rows.count() == 1  # the private one is never listed
    assert rows.locator("th[scope=row]").inner_text() == "Spring cup"
    assert page.inner_text("[data-part=tournaments] [data-part=place]") == "2 of 2 players"
    assert "Knockout" in rows.inner_text()
    page.click("[data-part=tournaments] a[href='#/tournaments/springcup']")
    page.wait_for_selector("text=Spring cup")
    assert page.evaluate("location.hash") == "#/tournaments/springcup"

    none = rated_pages.new("/#/profile/newcomer")
    none.wait_for_selector("[data-part=tournaments] .empty")
    assert none.inner_text("[data-part=tournaments] .empty") == "No tournaments yet."

    phone = rated_pages.new("/#/profile/rhea", viewport=NARROW, touch=True, locale="pl-PL")
    phone.wait_for_selector("[data-part=tournaments] table")
    assert phone.inner_text("[data-part=tournaments] h2") == "Turnieje"
    assert phone.inner_text("[data-part=tournaments] [data-part=place]") == \
        "2. miejsce z 2 graczy"
    assert phone.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    assert phone.evaluate("document.body.scrollWidth") <= NARROW["width"]
