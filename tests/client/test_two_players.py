"""Two people in two browsers (RULES.md §3, §5): one creates a game, the other joins from
the lobby or the invite link; the cube is offered in one browser and taken in the other;
a socket cut in the middle of the match heals by itself and resynchronises from the last
event version."""

from __future__ import annotations

from typing import Any

from tests.client.conftest import Pages
from tests.client.support import feed, point, wait_match


def create_game(page: Any, *, length: int = 3) -> str:
    page.select_option("[data-form=create] [name=kind]", "match")
    page.fill("[data-form=create] [name=length]", str(length))
    page.click("[data-act=create]")
    page.wait_for_url("**/#/match/*")
    page.wait_for_selector(".invite input")
    return str(page.url.rsplit("/", 1)[1])


def on_turn(a: Any, b: Any) -> tuple[Any, Any]:
    """(the page whose player must act now, the other)."""
    state = wait_match(a, "g.phase !== 'opening'")
    game = state["game"]
    seat = game["turn"]
    if game["phase"] in ("cube_offered", "resign_offered"):
        seat = 1 - seat
    return (a, b) if seat == state["you"] else (b, a)


def play_turn_by_clicks(page: Any) -> None:
    """Roll if needed, then click checkers until the turn is over. A player whose double or
    resignation is still being answered waits for the answer first: until the page hears it,
    the question stands with the asker on turn, and the turn would look over."""
    asking = "(g.phase === 'cube_offered' || g.phase === 'resign_offered') && g.turn === me"
    state: dict[str, Any] = {}
    for _ in range(12):
        state = wait_match(page, f"!({asking})")
        game = state["game"]
        if game["turn"] != state["you"]:
            return
        if game["phase"] == "before_roll":
            v = state["v"]
            page.click("[data-act=roll]")
            wait_match(page, f"p.feed.v > {v}")
            continue
        if game["phase"] != "moving":
            return
        c = point(page, int(next(iter(game["legal"]))))
        v = state["v"]
        page.mouse.click(c["x"], c["y"])
        wait_match(page, f"p.feed.v > {v}")
    raise AssertionError(f"the turn did not end: {state.get('game')}")


def test_two_browsers_play_a_match_and_the_cube_is_taken(pages: Pages) -> None:
    alice = pages.new()
    match_id = create_game(alice)
    assert "Waiting for an opponent" in alice.inner_text(".status-line")

    bob = pages.new()
    row = bob.locator(f"tr[data-game='{match_id}']")
    row.wait_for()
    row.locator("[data-act=join]").click()
    bob.wait_for_url(f"**/#/match/{match_id}")

    first, second = on_turn(alice, bob)
    play_turn_by_clicks(first)
    # the other player is on roll with the cube in the middle: double
    state = wait_match(second, "g.turn === me && g.phase === 'before_roll'")
    me = state["you"]
    v = state["v"]
    second.click("[data-act=double]")
    # the doubled player sees the take/drop dialog
    dialog = first.locator("dialog[open]")
    dialog.wait_for()
    assert "Double to 2" in dialog.inner_text()
    dialog.locator("button[data-value=take]").click()
    for page in (alice, bob):
        state = wait_match(page, f"p.feed.v > {v} && g.phase === 'before_roll'")
        assert state["game"]["cube"]["value"] == 2
        assert state["game"]["cube"]["owner"] == 1 - me
        assert page.text_content(".layer-cube .cube-value") == "2"
    # the doubler rolls and plays on
    play_turn_by_clicks(second)
    assert feed(alice)["v"] == feed(bob)["v"]

    # the taker, on roll, offers to resign a single game; refused, only more may be offered
    state = wait_match(first, "g.turn === me && g.phase === 'before_roll'")
    first.click("[data-act=resign]")
    first.locator("dialog[open] input[name=level][value='1']").check()
    first.locator("dialog[open] button[data-value=offer]").click()
    answer = second.locator("dialog[open]")
    answer.wait_for()
    assert "2 points" in answer.inner_text()  # single x cube 2
    answer.locator("button[data-value=reject_resign]").click()
    wait_match(first, "g.phase === 'before_roll' && p.ctrl.resignFloor === 1")
    first.click("[data-act=resign]")
    levels = first.locator("dialog[open] input[name=level]")
    assert [levels.nth(i).is_disabled() for i in range(3)] == [True, False, False]
    first.locator("dialog[open] button[data-value=offer]").click()  # a gammon
    answer = second.locator("dialog[open]")
    answer.wait_for()
    assert "4 points" in answer.inner_text()
    answer.locator("button[data-value=accept_resign]").click()
    winner = feed(second)["you"]
    state = wait_match(second, f"g.score[{winner}] === 4")
    assert state["game"]["score"][1 - winner] == 0
    assert "wins 4 points (resignation)" in second.inner_text(".movelist")


def test_a_cut_socket_reconnects_and_resyncs_from_the_last_version(pages: Pages) -> None:
    alice = pages.new()
    match_id = create_game(alice)
    bob = pages.new(f"/#/match/{match_id}")  # the invite link
    bob.click(".banner button.primary")  # Join
    wait_match(alice, "g.phase !== 'opening'")
    wait_match(bob, "g.phase !== 'opening'")

    first, second = on_turn(alice, bob)
    # cut the second player's socket (kept down); the first plays meanwhile
    second.evaluate("window.gammon.socket.cut(60000)")
    second.wait_for_function("window.gammon.socket.status !== 'open'")
    missed_from = feed(second)["v"]
    assert "reconnecting" in second.inner_text(".status-line").lower()
    play_turn_by_clicks(first)
    target = feed(first)["v"]
    assert target > missed_from
    assert feed(second)["v"] == missed_from  # nothing arrived while cut

    second.evaluate("window.gammon.socket.connect()")  # the network is back
    second.wait_for_function("window.gammon.socket.status === 'open'", timeout=15_000)
    state = wait_match(second, f"p.feed.v === {target}")
    assert state["game"]["board"] == feed(first)["game"]["board"]
    # it got the events it missed (not a fresh state): the move list shows the other's move
    assert state["events"] >= target - missed_from
    last_turn = max(e["v"] for e in second.evaluate("window.gammon.app.page.feed.events")
                    if e["type"] == "turn_ended")
    assert last_turn > missed_from
    assert second.locator(f".movelist .ml-cell[data-v='{last_turn}']").count() == 1
    # and the board on screen is the server's board
    shown = second.evaluate("window.gammon.app.page.view.state.board")
    assert shown == state["game"]["board"]

    # abandoning warns that it loses the whole match, then does
    second.click("[data-act=abandon]")
    warning = second.locator("dialog[open]")
    assert "whole match" in warning.inner_text()
    warning.locator("button[data-value=abandon]").click()
    for page, text in ((second, "You lost the match"), (first, "You won the match")):
        wait_match(page, "g.phase === 'match_over'")
        over = page.locator("dialog[open]")
        over.wait_for()
        assert text in over.inner_text()
        assert "abandoned" in over.inner_text()


HIDE = ("(hidden) => { Object.defineProperty(document, 'hidden', {configurable: true,"
        " get: () => hidden}); document.dispatchEvent(new Event('visibilitychange')); }")


def test_a_player_away_from_the_tab_is_called_back_when_it_is_their_turn(pages: Pages) -> None:
    """The player not on turn leaves the tab (hidden); when the other's turn ends, the tab's
    title says it is their turn and a sound plays; back on the tab, its title returns."""
    alice = pages.new()
    match_id = create_game(alice)
    bob = pages.new(f"/#/match/{match_id}")
    bob.click(".banner button.primary")  # join
    first, second = on_turn(alice, bob)
    title = second.title()
    second.evaluate(HIDE, True)
    play_turn_by_clicks(first)
    wait_match(second, "g.turn === me")
    second.wait_for_function("document.title.startsWith('● ')")
    assert second.title() == "● Your turn"
    assert second.evaluate("window.gammon.sound.played.notify") == 1
    assert first.evaluate("window.gammon.sound.played.notify || 0") == 0  # in view: no call
    second.evaluate(HIDE, False)
    assert second.title() == title
