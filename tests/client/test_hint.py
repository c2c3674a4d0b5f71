"""Hints: in an untimed match against the computer the Hint button gives
the cube advice before the roll and the engine's best plays of the roll (the server's
``/api/hint`` and ``/api/eval``, never computed in the page); a play clicked is drawn on the
board; the panel closes. In a rated match between people there is no Hint button, and the
server's refusal (403 ``rated_match_live``) is said plainly if a hint is asked anyway."""

from __future__ import annotations

import secrets
from typing import Any

from gammon.formats.match_id import MatchKey
from tests.client.conftest import Pages
from tests.client.support import MY_MOVE, MY_ROLL, wait_match
from tests.client.test_play import roll_until_movable, start_bot_match
from tests.client.test_two_players import on_turn

PAGE = "window.gammon.app.page"


def post(page: Any, path: str, body: dict[str, Any]) -> Any:
    """POST from the page (its session cookie): the answer's JSON."""
    return page.evaluate(
        """async ([path, body]) => (await fetch(path, {method: "POST", credentials: "same-origin",
            headers: {"content-type": "application/json"}, body: JSON.stringify(body)})).json()""",
        [path, body])


def test_the_hint_gives_the_cube_advice_then_the_engines_best_plays(pages: Pages) -> None:
    page = pages.new()
    state = start_bot_match(page, length=5)
    while not (state["game"]["phase"] == "before_roll" and state["game"]["turn"] == state["you"]):
        # the opening roll was ours: play it (a checker's longest move at a time)
        if state["game"]["phase"] == "moving" and state["game"]["turn"] == state["you"]:
            v = state["v"]
            page.evaluate(f"{PAGE}.ctrl.clickMove({int(next(iter(state['game']['legal'])))})")
            state = wait_match(page, f"p.feed.v > {v}")
        else:
            state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})", 30_000)
    game = state["game"]
    me = state["you"]
    assert page.locator("[data-act=hint]").is_visible()

    # before the roll: the cube advice, asked with the GNU Backgammon Match ID of the game,
    # the one the server sends with the game view
    page.click("[data-act=hint]")
    panel = page.locator("[data-hint]")
    panel.locator("[data-win]").wait_for()
    assert "Cube advice" in panel.inner_text()
    body = page.evaluate(f"{PAGE}.ctrl.hints.request().body")
    key = MatchKey(cube=game["cube"]["value"], cube_owner=game["cube"]["owner"], dice_owner=me,
                   crawford=game["crawford"], turn=me, match_length=5,
                   score=(game["score"][0], game["score"][1]))
    assert body["match_id"] == key.id() == game["match_id"]
    assert body["position_id"] == game["position_id"]
    expected = post(page, "/api/eval", body)
    assert panel.locator("[data-cube-action]").get_attribute("data-cube-action") \
        == expected["cube"]["action"]
    assert float(panel.locator("[data-win]").get_attribute("data-win") or "nan") \
        == expected["probabilities"]["win"]
    page.click("[data-act=hint-close]")
    assert panel.is_hidden()

    # after the roll: the best plays of the roll at the match score (the view's Match ID,
    # now with the dice), the first the server's first
    state = roll_until_movable(page)
    game = state["game"]
    page.click("[data-act=hint]")
    plays = panel.locator(".hint-play")
    plays.first.wait_for(timeout=30_000)
    asked = page.evaluate(f"{PAGE}.ctrl.hints.request().body")
    assert asked["match_id"] == game["match_id"]
    assert MatchKey.from_id(asked["match_id"]).score == key.score
    ranked = post(page, "/api/hint", {"position_id": game["position_id"],
                                      "dice": "".join(map(str, game["dice"])), "plies": 2,
                                      "match_id": asked["match_id"]})
    first = plays.first
    assert first.get_attribute("data-play") == ranked["plays"][0]["play"]
    assert float(first.get_attribute("data-equity") or "nan") == ranked["plays"][0]["equity"]
    assert plays.count() == min(5, len(ranked["plays"]))
    shown = [plays.nth(i).get_attribute("data-play") for i in range(plays.count())]
    assert shown == [p["play"] for p in ranked["plays"][:plays.count()]]
    assert "Best plays" in panel.inner_text()

    # a play clicked is drawn on the board (arrows from its points), and marked as chosen
    first.click()
    page.wait_for_function(f"{PAGE}.view.state.last && {PAGE}.view.state.last.moves.length > 0")
    assert first.get_attribute("aria-pressed") == "true"
    assert page.locator(".layer-last .last-arrow").count() >= 1
    drawn = page.evaluate(f"{PAGE}.view.state.last")
    assert drawn["seat"] == me
    assert drawn["moves"] == page.evaluate(
        "(async () => (await import('./rules.js'))"
        f".playMoves({ranked['plays'][0]['play']!r}))()")

    # the hint stays while checkers move, and goes with the turn; closing drops the drawing
    page.click("[data-act=hint-close]")
    assert panel.is_hidden()
    assert page.evaluate(f"{PAGE}.view.state.last") is None


def register(page: Any) -> str:
    name = f"u{secrets.token_hex(4)}"
    page.goto(page.url.split("#")[0] + "#/signin")
    page.fill("[data-form=register] [name=name]", name)
    page.fill("[data-form=register] [name=password]", "correct horse battery")
    page.click("[data-form=register] button[type=submit]")
    page.wait_for_url("**/#/")
    page.wait_for_function("window.gammon.app.me && window.gammon.app.me.kind === 'user'")
    return name


def rated_match(pages: Pages) -> tuple[Any, Any, str]:
    """Two registered players in a rated 1-point match: (alice's page, bob's, the match id)."""
    alice = pages.new()
    register(alice)
    bob = pages.new()
    register(bob)
    alice.fill("[data-form=create] [name=length]", "1")
    alice.click("[data-act=create]")
    alice.wait_for_url("**/#/match/*")
    match_id = alice.url.rsplit("/", 1)[1]
    bob.goto(bob.url.split("#")[0] + f"#/match/{match_id}")
    bob.click(".banner button.primary")
    for page in (alice, bob):
        wait_match(page, "g.phase !== 'opening' && p.feed.info.status === 'playing'")
    return alice, bob, match_id


def test_no_hint_in_a_rated_match_between_people(pages: Pages) -> None:
    alice, bob, _ = rated_match(pages)
    for page in (alice, bob):
        state = wait_match(page, "p.feed.info.rated")
        assert state["info"]["rated"] is True
        assert page.locator("[data-act=hint]").is_hidden()
    # asked anyway (the button forced on), the server refuses and the page says so
    mover, _ = on_turn(alice, bob)
    mover.evaluate(f"{PAGE}.ctrl.hints.allowed = () => true; {PAGE}.ctrl.hints.ask()")
    error = mover.locator("[data-hint] [data-hint-error]")
    error.wait_for(timeout=30_000)
    assert error.inner_text() == "No hints in a rated match in play."
