"""The tournament pages in Chromium (pages/tournaments.js, pages/tournament.js) on a ``gammon
serve`` of this module's own: a registered organiser creates a knockout in the form and
enters it, a guest registers in the page and two more guests through the HTTP API; the
organiser starts it; the guest's page, following the lobby, opens the match the round paired
for them, where they abandon it through the match page's own controls; a spectator's page,
never reloaded, shows the line a player wrote in the tournament's chat and marks the winner
in the bracket as the round goes on; the others withdraw
through the API (their matches lost), the final is decided, and the page shows the champion,
the final results, each match linked, results.csv, and at 360 px nothing scrolls sideways.
Also: the lobby and the navigation link to the tournaments, a guest is told to sign in to
organise, and a private tournament's page shows its invite link, which opens it for another
player."""

from __future__ import annotations

import http.cookiejar
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.client.conftest import Pages, pages_on
from tests.client.support import gammon_server, register

NARROW = {"width": 360, "height": 740}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir: Path = tmp_path_factory.mktemp("gammon-tournaments")
    with gammon_server(workdir, tournament_interval="1") as url:
        yield url


@pytest.fixture
def tpages(browser: Any, base: str) -> Iterator[Pages]:
    yield from pages_on(browser, base)


class Guest:
    """A guest playing through the HTTP API, with a session of its own."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.name = self.call("GET", "/api/me")["user"]["name"]

    def call(self, method: str, path: str, body: Any = None) -> Any:
        request = urllib.request.Request(
            self.base + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"content-type": "application/json"})
        with self.opener.open(request, timeout=30) as response:
            return json.load(response)


def my_name(page: Any) -> str:
    return str(page.evaluate("window.gammon.app.me.name"))


def winners(page: Any, round_: int) -> list[str]:
    """The names marked as winners in a round's column of the bracket."""
    return page.locator(f".bracket-round[data-round='{round_}'] [data-winner=true]").evaluate_all(
        "nodes => nodes.map(n => n.firstChild.textContent)")


def test_a_knockout_created_entered_started_and_played_to_its_winner(tpages: Pages,
                                                                   base: str) -> None:
    olga = tpages.new("/#/")
    assert olga.locator("[data-card=tournaments] a[href='#/tournaments']").is_visible()
    register(olga, "Olga")
    olga.click("#nav a[href='#/tournaments']")
    olga.wait_for_selector("[data-list=upcoming]")
    form = olga.locator("[data-form=tournament]")
    form.locator("[name=name]").fill("Friday cup")
    form.locator("[name=format]").select_option("swiss")
    assert form.locator("[name=rounds]").is_visible()
    assert not form.locator("[name=duration]").is_visible()
    form.locator("[name=format]").select_option("knockout")
    assert not form.locator("[name=rounds]").is_visible()
    form.locator("[name=length]").fill("1")
    olga.click("[data-act=create-tournament]")
    olga.wait_for_url("**/#/tournaments/*")
    slug = olga.url.rsplit("/", 1)[1]
    olga.wait_for_selector("[data-part=rules]")
    rules = olga.inner_text("[data-part=rules]")
    assert "byes, which go to the top seeds" in rules and "180 seconds" in rules
    assert olga.get_attribute("[data-state]", "data-state") == "registering"
    olga.click("[data-act=register]")
    olga.wait_for_selector("[data-part=entered]")
    assert olga.locator("[data-act=start]").is_disabled()  # two players at least

    ann = tpages.new(f"/#/tournaments/{slug}")
    ann.click("[data-act=register]")
    ann.wait_for_selector("[data-part=entered]")
    ann_name = my_name(ann)
    bob, cleo = Guest(base), Guest(base)
    for guest in (bob, cleo):
        guest.call("POST", f"/api/tournaments/{slug}/register")
    # the organiser's page, never reloaded, lists them (it reads the tournament again)
    olga.wait_for_selector(f"[data-entry='{cleo.name}']")
    assert "4 players of 64" in olga.inner_text("[data-state]")
    assert olga.locator("[data-act=start]").is_enabled()

    spectator = tpages.new(f"/#/tournaments/{slug}")
    spectator.wait_for_selector("[data-part=entries]")
    assert spectator.locator("[data-act=start]").count() == 0
    assert spectator.locator("[data-act=register]").is_visible()

    # the chat: a player writes in the page; the spectator's page, never reloaded, reads
    # the line as text (no markup), in a live region, and has no form
    assert spectator.locator("[data-part=chat-form]").is_hidden()
    ann.fill("[data-act=chat-text]", "<b>good luck</b> all")
    ann.click("[data-act=chat-send]")
    spectator.wait_for_selector("[data-part=chat] li:has-text('good luck')")
    line = spectator.locator("[data-part=chat] li").last
    assert line.inner_text() == f"{ann_name}: <b>good luck</b> all"
    assert line.locator("b").count() == 0
    assert spectator.get_attribute("[data-part=chat] [role=log]", "aria-live") == "polite"
    assert ann.input_value("[data-act=chat-text]") == ""

    # seeds by entry (all rated 1500): 1 Olga, 2 ann, 3 bob, 4 cleo: Olga-cleo, ann-bob
    olga.click("[data-act=start]")
    # the players' pages follow the lobby: the round's pairing opens their match
    ann.wait_for_url("**/#/match/*", timeout=20_000)
    olga.wait_for_url("**/#/match/*", timeout=20_000)
    ann_match = ann.url.rsplit("/", 1)[1]
    spectator.wait_for_selector("[data-part=playing] li[data-match]")
    assert spectator.locator("[data-part=playing] li[data-match]").count() == 2
    ann_link = spectator.locator(f"[data-part=bracket] a[href='#/match/{ann_match}']")
    assert ann_link.inner_text() == "Watch"
    assert "Round 1" in spectator.inner_text("[data-state]")

    ann.click("[data-act=abandon]")
    ann.locator("dialog[open] button[data-value=abandon]").click()
    spectator.wait_for_function(
        "() => [...document.querySelectorAll(\".bracket-round[data-round='1']"
        " [data-winner=true]\")]"
        f".some(n => n.firstChild.textContent === {json.dumps(bob.name)})", timeout=20_000)
    assert ann_link.inner_text() == "Review"

    cleo.call("POST", f"/api/tournaments/{slug}/withdraw")
    spectator.wait_for_selector(".bracket-round[data-round='2'] [data-pending=true] a[data-match]",
                                timeout=20_000)
    assert sorted(winners(spectator, 1)) == sorted(["Olga", bob.name])
    bob.call("POST", f"/api/tournaments/{slug}/withdraw")
    spectator.wait_for_selector("[data-part=champion]", timeout=20_000)
    assert spectator.inner_text("[data-part=champion]") == "Winner: Olga"
    # said to a screen reader by the page's live region
    spectator.wait_for_function(
        "document.getElementById('announcer').textContent.includes('Winner: Olga')")
    assert winners(spectator, 2) == ["Olga"]
    assert spectator.get_attribute("[data-state]", "data-state") == "finished"
    assert spectator.locator("[data-part=playing]").count() == 0
    assert "null" not in spectator.inner_text("main")
    assert spectator.inner_text("[data-part=standings] h2") == "Final results"
    first = spectator.locator("[data-part=standings] tbody tr").first
    assert first.get_attribute("data-player") == "Olga"
    assert spectator.locator("[data-part=bracket] a[data-match]").count() == 3
    csv = f"[data-download=csv][href*='/api/tournaments/{slug}/results.csv']"
    assert spectator.locator(csv).count() == 1
    assert ann_name in spectator.inner_text("[data-part=standings]")

    # the finished tournament in the list
    spectator.goto(f"{base}/#/tournaments")
    spectator.wait_for_selector(f"[data-list=finished] [data-tournament='{slug}']")
    assert "sign in" in spectator.inner_text("[data-note=sign-in]").lower()
    assert spectator.locator("[data-act=create-tournament]").is_disabled()

    phone = tpages.new(f"/#/tournaments/{slug}", viewport=NARROW, touch=True)
    phone.wait_for_selector("[data-part=champion]")
    assert phone.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    assert phone.evaluate("document.body.scrollWidth") <= NARROW["width"]
    phone.goto(f"{base}/#/tournaments")
    phone.wait_for_selector("[data-form=tournament]")
    assert phone.evaluate("document.body.scrollWidth") <= NARROW["width"]


def test_a_private_tournament_shows_its_invite_link_which_opens_it(tpages: Pages,
                                                                   base: str) -> None:
    org = tpages.new("/#/")
    register(org, "Petra")
    org.goto(f"{base}/#/tournaments")
    form = org.locator("[data-form=tournament]")
    form.locator("[name=name]").fill("Secret arena")
    form.locator("[name=format]").select_option("arena")
    form.locator("[name=duration]").fill("15")
    form.locator("[name=private]").check()
    org.click("[data-act=create-tournament]")
    org.wait_for_url("**/#/tournaments/*?key=*")
    invite = org.input_value("[data-part=invite] input")
    assert "?key=" in invite
    assert "15 minutes from the start" in org.inner_text("[data-part=rules]")
    slug = org.url.rsplit("/", 1)[1].split("?")[0]

    stranger = tpages.new(f"/#/tournaments/{slug}")
    stranger.wait_for_selector("main .error-text")
    assert "No such tournament" in stranger.inner_text("main .error-text")
    friend = tpages.new("/" + invite.split("/", 3)[3])
    friend.click("[data-act=register]")
    friend.wait_for_selector("[data-part=entered]")
    org.wait_for_selector(f"[data-entry='{my_name(friend)}']")
    assert org.locator("[data-list]").count() == 0  # the page, not the list
    org.goto(f"{base}/#/tournaments")
    org.wait_for_selector("[data-list=upcoming]")
    assert org.locator(f"[data-tournament='{slug}']").count() == 0  # private: not listed
