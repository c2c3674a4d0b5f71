"""What the board and the move list show of what just happened: the last move of either side
marked until the next roll, the opponent's dice kept until you roll, the opening drawn as
one die for each side (ties shown, then thrown again), dice written higher first, the
opponent's checkers moved one at a time at the pace of the graphics option; the move list in
standard notation (numbered pairs, cube lines of their own), never clipped, scrolled to the
latest, each move a link into the replay; with "winner rolls anew", both opening dice and
then the winner's new roll."""

from __future__ import annotations

import re
from typing import Any

from gammon.core.moves import Move
from gammon.core.notation import format_play
from tests.client.conftest import Pages
from tests.client.support import (
    MY_MOVE,
    MY_ROLL,
    feed,
    point,
    set_graphics,
    two_players,
    wait_match,
)
from tests.client.test_play import start_bot_match

PAGE = "window.gammon.app.page"


def events(page: Any) -> list[dict[str, Any]]:
    return page.evaluate(f"{PAGE}.feed.events")  # type: ignore[no-any-return]


def wait_history(page: Any) -> None:
    """Until the page holds the match's events from the start (its backfill)."""
    page.wait_for_function(
        f"{PAGE}.feed.events.some(e => e.type === 'opening_rolled')")


def bot_moved_last(page: Any) -> dict[str, Any] | None:
    """The bot's turn_ended when it is the last event and we are on roll, else None."""
    state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
    if state["game"]["phase"] != "before_roll":
        return None
    last = events(page)[-1]
    if last["type"] == "turn_ended" and last["player"] != state["you"] and last["moves"]:
        return last
    return None


def play_turn_by_clicks(page: Any) -> None:
    """One turn of ours against the bot: roll (if we must), then click checkers until the
    turn is over (the bot answers at once, so the turn may come back before we look)."""
    state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
    if state["game"]["phase"] == "before_roll":
        v = state["v"]
        page.click("[data-act=roll]")
        state = wait_match(page, f"p.feed.v > {v}")
    for _ in range(6):
        game = state["game"]
        if not (game["turn"] == state["you"] and game["phase"] == "moving"):
            return
        c = point(page, int(next(iter(game["legal"]))))
        v = state["v"]
        page.mouse.click(c["x"], c["y"])
        state = wait_match(page, f"p.feed.v > {v}")
    raise AssertionError(f"the turn did not end: {state['game']}")


def play_until_the_bot_moved(page: Any) -> dict[str, Any]:
    for _ in range(20):
        turn = bot_moved_last(page)
        if turn:
            return turn
        play_turn_by_clicks(page)
    raise AssertionError("the bot never moved")


def slots(page: Any, selector: str) -> set[str]:
    return set(page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.slot)"))


def bottom_slot(point: int) -> str:
    """The slot (our numbering) of the opponent's point `point` (its numbering)."""
    return "bar" if point == 25 else "off" if point == 0 else str(25 - point)


def die_values(page: Any, selector: str) -> list[int]:
    return [int(v) for v in page.eval_on_selector_all(
        f"{selector} .die", "els => els.map(e => e.dataset.value)")]


def test_the_last_move_stays_marked_and_the_opponents_dice_stay_until_you_roll(
        pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page, kind="single")
    wait_history(page)
    turn = play_until_the_bot_moved(page)
    bot = turn["player"]
    me = 1 - bot
    # the bot's move: each from and to place outlined, each hit ringed, all its seat's
    moves = turn["moves"]
    assert slots(page, ".layer-last .last-from") == {bottom_slot(m["from"]) for m in moves}
    assert slots(page, ".layer-last .last-to") == {bottom_slot(m["to"]) for m in moves}
    hit_points = {bottom_slot(m["to"]) for m in moves if m["hit"]}
    assert slots(page, ".layer-last .last-hit:not(.on-bar)") == hit_points
    assert page.locator(".layer-last .last-arrow").count() == len(moves)
    assert set(page.eval_on_selector_all(
        ".layer-last .last-mark", "els => els.map(e => e.dataset.seat)")) == {str(bot)}

    # its dice stay on its side, higher first (the opening's: one die each side)
    rolls = [e for e in events(page) if e["type"] in ("dice_rolled", "opening_rolled")]
    if rolls[-2]["type"] == "opening_rolled" and rolls[-1]["player"] == bot:
        d0, d1 = rolls[-2]["throws"][-1]
        assert die_values(page, ".dice.opening[data-seat='0']") == [d0]
        assert die_values(page, ".dice.opening[data-seat='1']") == [d1]
    else:
        roll = rolls[-1]["roll"]
        assert rolls[-1]["player"] == bot
        shown = die_values(page, f".dice.previous[data-seat='{bot}']")
        assert shown[:2] == sorted(roll, reverse=True)

    # until we roll: then the marks and the bot's dice go, ours come, higher first
    v = feed(page)["v"]
    page.click(".roll-prompt")
    state = wait_match(page, f"p.feed.v > {v}")
    rolled = next(e for e in events(page) if e["type"] == "dice_rolled" and e["v"] > v)
    assert rolled["player"] == me
    if state["game"]["phase"] == "moving" and state["game"]["turn"] == me:
        assert page.locator(".layer-last .last-mark").count() == 0
        assert page.locator(f".dice[data-seat='{bot}']").count() == 0
        values = die_values(page, f".dice[data-seat='{me}']")
        assert values == sorted(values, reverse=True)
        assert values[0] == max(rolled["roll"])


def test_the_opening_is_one_die_a_side_and_a_tie_is_shown_then_thrown_again(
        pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page, kind="single")
    wait_history(page)
    opening = next(e for e in events(page) if e["type"] == "opening_rolled")
    d0, d1 = opening["throws"][-1]
    # until the second roll of the game, each side's die is on its side
    later = [e for e in events(page) if e["type"] == "dice_rolled"]
    if len(later) == 1:
        assert die_values(page, ".dice.opening[data-seat='0']") == [d0]
        assert die_values(page, ".dice.opening[data-seat='1']") == [d1]
    # a tie: the client shows each throw in turn, the tie marked, then the deciding one
    board = feed(page)["game"]["board"]
    page.evaluate(f"""{PAGE}.ctrl.queueFrames({board}, [{{type: "opening_rolled", first: 1,
        throws: [[3, 3], [2, 5]], roll: [5, 2], v: 100000}}])""")
    page.wait_for_selector(".dice.opening.tie")
    assert die_values(page, ".dice.opening.tie") == [3, 3]
    assert page.text_content(".layer-dice .tie-label") == "tie"
    page.wait_for_function(
        "document.querySelectorAll('.dice.opening .die[data-value=\"5\"]').length === 1")
    assert page.locator(".dice.opening.tie").count() == 0
    assert die_values(page, ".dice.opening[data-seat='0']") == [2]
    assert die_values(page, ".dice.opening[data-seat='1']") == [5]
    page.wait_for_function(f"!{PAGE}.ctrl.animating")


def test_the_opponents_checkers_move_one_at_a_time_at_the_pace_of_the_graphics_option(
        pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page, kind="single")
    pace = page.evaluate(f"(() => {{ const p = {PAGE}; return {{high: p.ctrl.pace(), "
                         "low: (p.app.options.graphics = 'low', p.ctrl.pace())}; })()")
    page.evaluate(f"{PAGE}.app.options.graphics = 'high'")
    assert pace["low"]["move"] < pace["high"]["move"]
    page.click("details.options-menu summary")
    for graphics in ("low", "high"):
        page.select_option("[data-option=graphics]", graphics)
        # the board redraws at once
        assert page.locator("svg.board.low").count() == (1 if graphics == "low" else 0)
        page.evaluate(f"{PAGE}.ctrl.queue.paced = []")
        for _ in range(12):
            play_turn_by_clicks(page)
            wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
            paced = page.evaluate(f"{PAGE}.ctrl.paced")
            moved = [f for f in paced if f["kind"] == "move"]
            if moved:
                break
        else:
            raise AssertionError("the bot never moved")
        # one frame for each checker it moved, each at this option's pace
        last = [e for e in events(page) if e["type"] == "turn_ended"][-1]
        assert len(moved) >= len(last["moves"])
        assert {f["pause"] for f in moved} == {pace[graphics]["move"]}


def notation(turn: dict[str, Any]) -> str:
    """The server's own notation of a turn's moves (gammon.core.notation)."""
    return format_play([Move(m["from"], m["to"], m["hit"]) for m in turn["moves"]])


def test_the_move_list_is_numbered_pairs_in_standard_notation_and_links_into_the_replay(
        pages: Pages) -> None:
    page = pages.new()
    set_graphics(page, "low")  # the computer's turns shown quickly: the list is the subject
    start_bot_match(page, kind="single")
    wait_history(page)
    # a short list box: it must scroll, and show the latest
    page.add_style_tag(content=".movelist { max-height: 70px !important; }")
    turn = None
    boards = {}
    for _ in range(4):
        turn = play_until_the_bot_moved(page)
        boards[turn["v"]] = feed(page)["game"]["board"]
        play_turn_by_clicks(page)
    turn = play_until_the_bot_moved(page)
    boards[turn["v"]] = feed(page)["game"]["board"]

    rolls: dict[int, list[int]] = {}
    for e in events(page):
        if e["type"] == "dice_rolled":
            rolls[e["player"]] = e["roll"]
        if e["type"] == "turn_ended":
            cell = page.locator(f".movelist .ml-cell[data-v='{e['v']}']")
            dice = "".join(map(str, sorted(rolls[e["player"]], reverse=True)))
            assert cell.inner_text() == f"{dice}: {notation(e) or 'cannot move'}"
            # player 0 on the left, player 1 on the right
            assert cell.evaluate("c => [...c.parentNode.children].indexOf(c)") == 1 + e["player"]
    numbers = page.eval_on_selector_all(".movelist .ml-num", "els => els.map(e => e.textContent)")
    assert numbers == [f"{n})" for n in range(1, len(numbers) + 1)]
    assert page.inner_text(".movelist .ml-opening").startswith("Opening (")
    # nothing clipped: no cell wider than its box, the list never scrolls sideways
    assert page.evaluate("""(() => { const box = document.querySelector('.movelist');
        return box.scrollWidth <= box.clientWidth && [...box.querySelectorAll('.ml-cell, .ml-line')]
          .every(c => c.scrollWidth <= c.clientWidth + 1); })()""")
    # the latest in view
    assert page.evaluate("""(() => { const box = document.querySelector('.movelist');
        return box.scrollHeight > box.clientHeight
          && box.scrollTop + box.clientHeight >= box.scrollHeight - 2; })()""")

    # from a live board a move opens the replay in a new tab, at that move
    link = page.locator(f".movelist .ml-cell[data-v='{turn['v']}']")
    assert link.get_attribute("target") == "_blank"
    match_id = page.url.rsplit("/", 1)[1]
    assert link.get_attribute("href") == f"#/replay/{match_id}/{turn['v']}"
    page.goto(page.url.split("#")[0] + f"#/replay/{match_id}/{turn['v']}")
    page.wait_for_selector(".movelist .ml-cell.current")
    assert page.evaluate(f"{PAGE}.stepper.view.state.board") == boards[turn["v"]]
    assert page.inner_text(".movelist .ml-cell.current") == page.inner_text(
        f".movelist .ml-cell[data-v='{turn['v']}']")
    # in the replay a click on another move jumps there
    first = min(boards)
    page.click(f".movelist .ml-cell[data-v='{first}']")
    assert page.evaluate(f"{PAGE}.stepper.view.state.board") == boards[first]
    assert page.url.endswith(f"/{first}")
    assert re.search(r"\d+ / \d+", page.inner_text(".replay-controls"))


def test_winner_rolls_anew_lists_both_opening_dice_then_the_new_roll(pages: Pages) -> None:
    alice, bob = two_players(pages, winner_rolls_anew=True)
    for page in (alice, bob):
        page.wait_for_function(f"{PAGE}.feed.events.some(e => e.type === 'opening_rolled')")
        opening = next(e for e in page.evaluate(f"{PAGE}.feed.events")
                       if e["type"] == "opening_rolled")
        d0, d1 = opening["throws"][-1]
        high, low = sorted(opening["roll"], reverse=True)
        names = [s["name"] for s in feed(page)["info"]["seats"]]
        row = page.inner_text(".movelist .ml-opening")
        assert f"({names[0]} – {names[1]}): " in row and f"{d0}–{d1}" in row, row
        assert f"{names[opening['first']]} rolls anew: {high}{low}" in row, row
        # the sentences the screen reader hears: the opening dice, then the new roll
        said = page.evaluate(f"""(() => {{ const p = {PAGE}; const ev = p.feed.events;
            const i = ev.findIndex(e => e.type === 'opening_rolled');
            return [p.ctrl.describe(ev[i], ev[i - 1]), p.ctrl.describe(ev[i + 1], ev[i])]; }})()""")
        assert f"{names[0]} {d0}, {names[1]} {d1}" in said[0]
        assert said[1] == f"{names[opening['first']]} rolled {high}-{low}."
        # the rule comes from the match info, not the dice: a new roll equal to the last
        # opening throw (1 time in 18) is still a new roll
        assert feed(page)["info"]["winner_rolls_anew"] is True
        same = page.evaluate(f"""(() => {{ const p = {PAGE};
            const o = {{type: 'opening_rolled', first: 0, throws: [[5, 3]], roll: [5, 3], v: 1}};
            const r = {{type: 'dice_rolled', player: 0, roll: [5, 3], v: 2}};
            return p.ctrl.describe(r, o); }})()""")
        assert same == f"{names[0]} rolled 5-3.", same
