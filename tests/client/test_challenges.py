"""The lobby's challenge form: a player named in the new-game form's Opponent field gets a
game reserved for them (PROTOCOL.md, ``opponent``), sees it in their lobby with Accept and
Decline, and the challenger sees it waiting for them and may withdraw it; nobody else sees
it. A name the server refuses is said in the form, and nothing is created. A bot account,
challenged by its name, accepts with its API token."""

from __future__ import annotations

import secrets
from typing import Any

import httpx

from tests.client.conftest import Pages
from tests.client.support import PAGE, wait_match

PASSWORD = "correct horse battery"


NARROW = {"width": 360, "height": 740}


def registered(pages: Pages, prefix: str, viewport: dict[str, int] | None = None
               ) -> tuple[Any, str]:
    """A new page signed up through the sign-in page as a fresh name, on the lobby, its
    challenges shown (the lobby follows them for the new account)."""
    page = pages.new("/#/signin", viewport=viewport)
    # one session server for every browser test: a suffix keeps the name free
    name = f"{prefix}{secrets.token_hex(3)}"
    page.fill("[data-form=register] [name=name]", name)
    page.fill("[data-form=register] [name=password]", PASSWORD)
    page.click("[data-form=register] button[type=submit]")
    page.wait_for_url("**/#/")
    page.wait_for_function(f"window.gammon.app.me && window.gammon.app.me.name === '{name}'")
    lobby_ready(page)
    return page, name


def lobby_ready(page: Any) -> None:
    page.wait_for_function(f"{PAGE} && {PAGE}.ctrl && {PAGE}.ctrl.sent !== null")


def challenge(page: Any, opponent: str, *, length: int = 3) -> None:
    page.select_option("[data-form=create] [name=kind]", "match")
    page.fill("[data-form=create] [name=length]", str(length))
    page.fill("[data-form=create] [name=opponent]", opponent)
    page.click("[data-act=create]")


def sent_challenges(page: Any) -> list[dict[str, Any]]:
    """What the server lists as this page's player's waiting challenges."""
    return page.evaluate(  # type: ignore[no-any-return]
        "fetch('/api/challenges/sent').then((r) => r.json())")


def sent_id(page: Any, opponent: str) -> str:
    """The id of the challenge the page shows waiting for ``opponent``."""
    row = page.wait_for_selector(
        f"[data-card=challenges] tr[data-sent]:has([data-waiting='{opponent}'])")
    return str(row.get_attribute("data-sent"))


def test_a_person_challenges_another_by_name_who_accepts_and_both_reach_the_match(
        pages: Pages) -> None:
    alice, alice_name = registered(pages, "ann")
    bob, bob_name = registered(pages, "bob")
    carol = pages.new()  # a third player, following the lobby
    lobby_ready(carol)
    challenge(alice, bob_name)
    match_id = sent_id(alice, bob_name)
    waiting = alice.inner_text(f"tr[data-sent='{match_id}']")
    assert f"waiting for {bob_name}" in waiting and "Match to 3 points" in waiting
    assert "Doubling cube · rated" in waiting  # two registered players: rated
    assert alice.url.endswith("#/")  # the challenger waits in the lobby
    # the challenged player is told, with who, what and the buttons
    row = bob.wait_for_selector(f"[data-card=challenges] tr[data-challenge='{match_id}']")
    text = row.inner_text()
    assert alice_name in text and "Match to 3 points" in text
    assert "Doubling cube · rated" in text
    accept = row.query_selector("[data-act=accept]")
    assert accept is not None
    assert accept.get_attribute("aria-label") == f"Accept the challenge from {alice_name}"
    # the third player never sees it
    assert carol.locator(f"[data-game='{match_id}'], [data-challenge='{match_id}']").count() == 0
    assert carol.locator("[data-card=challenges]").is_hidden()
    assert match_id not in [g["id"] for g in carol.evaluate(
        "fetch('/api/games').then((r) => r.json())")]
    accept.click()
    bob.wait_for_url(f"**/#/match/{match_id}")
    alice.wait_for_url(f"**/#/match/{match_id}")  # taken: the challenger's lobby opens it
    for page in (alice, bob):
        state = wait_match(page)
        assert [s["name"] for s in state["info"]["seats"]] == [alice_name, bob_name]
    assert carol.locator(f"[data-game='{match_id}']").count() == 0


def test_a_refused_name_is_said_in_the_form_and_nothing_is_created(pages: Pages) -> None:
    alice, alice_name = registered(pages, "ann")
    unknown = f"nobody{secrets.token_hex(3)}"
    challenge(alice, unknown)
    error = alice.wait_for_selector("[data-error=create]:not([hidden])")
    assert error.inner_text() == f"No player is called {unknown}."
    assert error.get_attribute("role") == "alert"
    opponent = alice.locator("[data-form=create] [name=opponent]")
    assert opponent.get_attribute("aria-invalid") == "true"
    assert "create-error" in (opponent.get_attribute("aria-describedby") or "")
    challenge(alice, alice_name)
    alice.wait_for_function("document.querySelector('[data-error=create]').textContent"
                            " === 'You cannot challenge yourself.'")
    assert alice.url.endswith("#/")
    assert sent_challenges(alice) == []
    assert alice.locator("[data-card=challenges]").is_hidden()
    alice.fill("[data-form=create] [name=opponent]", "")  # typing clears the error
    assert alice.locator("[data-error=create]").is_hidden()
    assert opponent.get_attribute("aria-invalid") is None


def test_a_declined_or_withdrawn_challenge_is_gone_for_both(pages: Pages) -> None:
    alice, _ = registered(pages, "ann", NARROW)
    bob, bob_name = registered(pages, "bob", NARROW)
    challenge(alice, bob_name)
    declined = sent_id(alice, bob_name)
    bob.wait_for_selector(f"tr[data-challenge='{declined}']")
    for page in (alice, bob):  # usable on a narrow phone: nothing wider than the screen
        assert page.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    # by the keyboard: the focus is not lost when the row goes
    bob.focus(f"tr[data-challenge='{declined}'] [data-act=decline]")
    bob.keyboard.press("Enter")
    bob.wait_for_selector(f"tr[data-challenge='{declined}']", state="detached")
    assert bob.evaluate("document.activeElement === document.getElementById('main')")
    alice.wait_for_selector(f"tr[data-sent='{declined}']", state="detached")
    alice.wait_for_selector(f".toast:text('{bob_name} declined your challenge.')")
    assert alice.locator("[data-card=challenges]").is_hidden()
    assert bob.locator("[data-card=challenges]").is_hidden()
    assert sent_challenges(alice) == []
    # withdrawn by the challenger, from the lobby
    challenge(alice, bob_name)
    withdrawn = sent_id(alice, bob_name)
    bob.wait_for_selector(f"tr[data-challenge='{withdrawn}']")
    alice.click(f"tr[data-sent='{withdrawn}'] [data-act=withdraw]")
    alice.wait_for_selector(f"tr[data-sent='{withdrawn}']", state="detached")
    bob.wait_for_selector(f"tr[data-challenge='{withdrawn}']", state="detached")
    assert alice.locator(".toast", has_text="declined").count() == 1  # the first one only
    assert sent_challenges(alice) == []


def test_a_bot_account_challenged_by_name_accepts_with_its_token(
        pages: Pages, server: str) -> None:
    owner, bot_name = registered(pages, "robo")
    made = owner.evaluate(
        "fetch('/api/account/bot', {method: 'POST'}).then((r) => r.json())"
        ".then(() => fetch('/api/tokens', {method: 'POST', headers: {'content-type':"
        " 'application/json'}, body: JSON.stringify({description: 'test'})}))"
        ".then((r) => r.json())")
    auth = {"Authorization": f"Bearer {made['token']}"}
    alice, alice_name = registered(pages, "ann")
    challenge(alice, bot_name, length=1)
    match_id = sent_id(alice, bot_name)
    assert alice.locator(f"tr[data-sent='{match_id}'] .bot-mark[data-bot=true]").count() == 1
    with httpx.Client(base_url=server, headers=auth, timeout=10) as program:
        listed = program.get("/api/challenges").json()
        assert [(g["id"], g["creator"]["name"]) for g in listed] == [(match_id, alice_name)]
        assert program.post(f"/api/games/{match_id}/join", json={}).status_code == 200
    alice.wait_for_url(f"**/#/match/{match_id}")
    state = wait_match(alice)
    assert [(s["name"], s["bot"]) for s in state["info"]["seats"]] == [
        (alice_name, False), (bot_name, True)]
