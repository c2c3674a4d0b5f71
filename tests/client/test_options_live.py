"""Options act at once: confirming by the dice, auto-roll, sound, flip and
graphics changed in the middle of a match apply from the next action, without a reload —
whatever the options were when the match started (the server reads confirm and auto-roll at
each turn; the page neither holds a step nor rolls nor confirms by itself)."""

from __future__ import annotations

from typing import Any

from tests.client.conftest import Pages
from tests.client.support import MY_MOVE, MY_ROLL, options_stored, point, wait_match
from tests.client.test_play import start_bot_match, status

PAGE = "window.gammon.app.page"


def set_option(page: Any, key: str, on: bool) -> None:
    """Tick or untick an option in the match page's own menu, and wait until the server has
    stored it (the page shows it at once: a play completed before the server has it was
    held for a confirmation the test did not expect)."""
    menu = page.locator("details.options-menu")
    if not menu.evaluate("d => d.open"):
        page.click("details.options-menu summary")
    box = page.locator(f"[data-option={key}]")
    with options_stored(page):  # the server acts on the option from then on
        if on:
            box.check()
        else:
            box.uncheck()
    page.wait_for_function(f"window.gammon.app.options.{key} === {'true' if on else 'false'}")


def roll_to_move(page: Any) -> dict[str, Any]:
    for _ in range(20):
        state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
        if state["game"]["phase"] == "moving":
            return state
        v = state["v"]
        page.click("[data-act=roll]")
        wait_match(page, f"p.feed.v > {v}")
    raise AssertionError("no movable roll")


def click_a_checker(page: Any, game: dict[str, Any]) -> None:
    c = point(page, int(next(iter(game["legal"]))))
    page.mouse.click(c["x"], c["y"])


def test_confirming_by_the_dice_switched_on_mid_match_waits_for_the_dice(pages: Pages
                                                                         ) -> None:
    page = pages.new()
    start_bot_match(page, kind="single")  # the option off: the server ends turns by itself
    set_option(page, "confirm_turn", True)
    state = roll_to_move(page)
    for _ in range(8):
        state = wait_match(page, "true")
        game = state["game"]
        if game["turn"] != state["you"] or game["phase"] != "moving":
            state = roll_to_move(page)  # a roll with no legal move ends the turn: the next
            continue
        if game["can_confirm"]:
            break
        click_a_checker(page, game)
        wait_match(page, f"p.feed.v > {state['v']}")
    game = state["game"]
    # the server holds the turn: the steps are a whole play, the dice wait for the click
    assert game["can_confirm"] and game["phase"] == "moving"
    assert "Click the dice" in status(page)
    page.wait_for_timeout(400)
    assert wait_match(page, MY_MOVE)["v"] == state["v"], "nothing sent before the click"
    page.click(".dice.confirmable")
    ended = wait_match(page, f"p.feed.v > {state['v']}")
    kinds = [e["type"] for e in page.evaluate(f"{PAGE}.feed.events") if e["v"] > state["v"]]
    assert kinds[0] == "turn_ended", ended


def test_confirming_switched_off_mid_match_ends_the_turn_by_itself(pages: Pages) -> None:
    page = pages.new()
    # the option on when the match starts: the server waits for a confirm in this match
    page.goto(page.url.split("#")[0] + "#/options")
    page.check("[data-form=options] [name=confirm_turn]")
    with options_stored(page):
        page.click("[data-form=options] button[type=submit]")
    page.wait_for_function("window.gammon.app.options.confirm_turn === true")
    start_bot_match(page, kind="single")
    set_option(page, "confirm_turn", False)
    state = roll_to_move(page)
    me = state["you"]
    for _ in range(6):
        state = wait_match(page, "true")
        if not (state["game"]["turn"] == me and state["game"]["phase"] == "moving"):
            break
        v = state["v"]
        click_a_checker(page, state["game"])
        wait_match(page, f"p.feed.v > {v}")
    # the turn passed without a click on the dice
    kinds = [e["type"] for e in page.evaluate(f"{PAGE}.feed.events")]
    assert "turn_ended" in kinds[kinds.index("dice_rolled"):]
    assert page.locator(".dice.confirmable").count() == 0


def test_auto_roll_sound_and_flip_switched_mid_match_act_at_once(pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page, kind="single")
    # flip: the board mirrors at once
    set_option(page, "flip", True)
    page.wait_for_selector("svg.board.flipped")
    assert page.evaluate(f"{PAGE}.view.clientPoint(1).x < {PAGE}.view.clientPoint(12).x")
    set_option(page, "flip", False)
    page.wait_for_function("!document.querySelector('svg.board').classList.contains('flipped')")

    # sound off: the next roll is silent; on again: heard
    set_option(page, "sound", False)
    state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
    for _ in range(10):
        if state["game"]["phase"] == "before_roll":
            break
        c = point(page, int(next(iter(state["game"]["legal"]))))
        page.mouse.click(c["x"], c["y"])
        wait_match(page, f"p.feed.v > {state['v']}")
        state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
    assert state["game"]["phase"] == "before_roll"
    heard = page.evaluate("window.gammon.sound.played.dice || 0")
    page.click("[data-act=roll]")
    state = wait_match(page, f"p.feed.v > {state['v']}")
    assert page.evaluate("window.gammon.sound.played.dice || 0") == heard
    set_option(page, "sound", True)

    # auto-roll on in the middle of the match: our rolls come by themselves (this test
    # never clicks Roll from here on)
    v0 = page.evaluate(f"{PAGE}.feed.v")
    set_option(page, "auto_roll", True)
    mine = f"p.feed.events.some(e => e.type === 'dice_rolled' && e.v > {v0} && e.player === me)"
    for _ in range(10):
        state = wait_match(page, f"{mine} || ({MY_MOVE})")
        if page.evaluate(f"(() => {{ const p = {PAGE}; const me = p.feed.you; "
                         f"return {mine}; }})()"):
            break
        c = point(page, int(next(iter(state["game"]["legal"]))))
        page.mouse.click(c["x"], c["y"])
        wait_match(page, f"p.feed.v > {state['v']}")
    else:
        raise AssertionError("auto-roll did not roll")
    assert page.evaluate("(window.gammon.sound.played.dice || 0)") > heard
    # auto-roll gives up the cube: no Double button
    assert page.locator("[data-act=double]:not([hidden]):not([disabled])").count() == 0

    # auto-roll off again, mid-match: from our next turn the server waits for our roll
    set_option(page, "auto_roll", False)
    for _ in range(10):
        state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
        if state["game"]["phase"] == "before_roll":
            break
        click_a_checker(page, state["game"])
        wait_match(page, f"p.feed.v > {state['v']}")
    else:
        raise AssertionError("never to roll again")
    page.wait_for_timeout(800)
    assert wait_match(page, MY_ROLL)["v"] == state["v"], "no roll made for us"
    page.click("[data-act=roll]")
    wait_match(page, f"p.feed.v > {state['v']}")


def test_auto_bear_off_switched_on_mid_turn_plays_at_once(pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page, kind="single")
    roll_to_move(page)
    # a turn where every legal step bears a checker off (the page's copy of the server's
    # game is made so, and kept: the server's messages no longer reach it; what it sends
    # is caught, not sent)
    page.evaluate(f"""(() => {{ const p = {PAGE};
        p.feed.game = {{ ...p.feed.game, dice_left: [5, 4], reach: null,
                        legal: {{ "4": {{ "4": 0, "5": 0 }}, "2": {{ "4": 0, "5": 0 }} }} }};
        p.feed.onMessage = () => {{}};
        window.sent = [];
        p.ctrl.send = (type, fields) => {{ window.sent.push([type, fields]); return true; }};
        p.render(); }})()""")
    page.wait_for_timeout(600)
    assert page.evaluate("window.sent") == [], "auto bear-off is off: nothing is played"
    set_option(page, "auto_bearoff", True)
    page.wait_for_function("window.sent.length > 0", timeout=3000)
    kind, step = page.evaluate("window.sent[0]")
    assert kind == "step" and step["die"] == 5 and step["from"] in (2, 4)  # the higher die
