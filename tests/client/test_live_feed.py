"""What the page takes from the server's socket alone (docs/client.md, *From the server*):
the lobby as a feed (no polling), a refusal said in the player's language from its reason
code, and the match info at the match's end arriving with the update that ends it."""

from __future__ import annotations

from typing import Any

from tests.client.conftest import Pages
from tests.client.support import MY_MOVE, wait_match
from tests.client.test_play import roll_until_movable, start_bot_match

PAGE = "window.gammon.app.page"


def api_calls(page: Any, path: str) -> list[str]:
    """Record every request of ``page`` whose path starts with ``path``."""
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url)
            if request.url.split("//", 1)[1].split("/", 1)[1].startswith(path.lstrip("/"))
            else None)
    return seen


def test_the_lobby_updates_by_the_socket_without_polling(pages: Pages) -> None:
    watcher = pages.new()
    page_calls = api_calls(watcher, "/api/games")
    watcher.wait_for_selector("p.empty")  # no open game yet: the feed said so
    creator = pages.new()
    created = creator.evaluate("""fetch('/api/games', {method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({kind: 'match', length: 3})}).then(r => r.json())""")
    watcher.wait_for_selector(f"tr[data-game='{created['id']}']", timeout=5000)
    creator.evaluate(f"fetch('/api/games/{created['id']}', {{method: 'DELETE'}})")
    watcher.wait_for_selector("p.empty", timeout=5000)
    watcher.wait_for_timeout(4500)  # longer than the old polling period
    assert page_calls == [], "the lobby asked the server over HTTP"


def test_a_refusal_is_said_in_the_players_language_from_its_code(pages: Pages) -> None:
    page = pages.new(locale="it-IT")
    start_bot_match(page, kind="single")
    state = roll_until_movable(page)
    # a roll while moving: the server refuses it (illegal, reason wrong_phase)
    page.evaluate(f"{PAGE}.ctrl.send('roll')")
    page.wait_for_function(f"{PAGE}.ctrl.messageError")
    text = page.evaluate(f"{PAGE}.ctrl.message")
    assert text == "Non ora: non è la mossa che il gioco attende.", text
    assert page.locator(".status-line.error").inner_text() == text
    assert wait_match(page, MY_MOVE)["v"] == state["v"]  # nothing changed


def test_the_match_end_info_arrives_by_the_socket(pages: Pages) -> None:
    page = pages.new()
    state = start_bot_match(page, kind="single")
    match_id = state["info"]["id"]
    asked = api_calls(page, f"/api/games/{match_id}")
    page.click("[data-act=abandon]")
    page.locator("dialog[open] button[data-value=abandon]").click()
    page.wait_for_function(f"{PAGE}.feed.info.status === 'finished'")
    info = page.evaluate(f"{PAGE}.feed.info")
    assert info["result"]["reason"] == "abandon" and info["server_seed"]
    page.wait_for_selector("[data-over=how]")
    assert [url for url in asked if url.split("?")[0].endswith(match_id)] == [], \
        "the page asked for the match's state over HTTP"
