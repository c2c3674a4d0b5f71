"""Phones and tablets: upright, the board takes the whole width, its
checkers at least 24 px wide at 375 px, each point's whole column (the triangle and the room
around it) is the place to tap, the pip counts are labelled, and the controls sit below the
board, on the screen; on its side (a phone at 667 x 375, a tablet at 1024 x 768) the controls
sit beside the board and the page does not scroll. A bot match is played to its end on a
375 x 667 touch screen by taps alone: the Roll button on the board, then a tap somewhere in
the column of a point with a checker to move (which picks it and lights where it can go)
and a tap anywhere in the column of one of those points (the tablet plays with the option
"a tap plays the longest move" instead); mid-match the phone is turned on its side for a
turn and back. A split roll is played by taps alone (a checker picked, its destinations lit,
the pick dropped by a second tap or a tap elsewhere, then each checker to its point)."""

from __future__ import annotations

import contextlib
import random
import re
import time
from typing import Any

from tests.client.conftest import Pages
from tests.client.support import MY_MOVE, MY_ROLL, feed, set_graphics, wait_match

PORTRAIT = {"width": 375, "height": 667}
LANDSCAPE = {"width": 667, "height": 375}
TABLET = {"width": 1024, "height": 768}
WAIT = 30_000  # ms: the computer's turns on a loaded machine

# what the player has to act on: a roll, a move, the computer's double or resignation
ACTIONABLE = (f"({MY_ROLL}) || ({MY_MOVE}) || g.phase === 'match_over' || "
              "(g.turn !== me && (g.phase === 'cube_offered' || g.phase === 'resign_offered'))")


def wait(page: Any, condition: str) -> dict[str, Any]:
    """``wait_match`` with the computer's time; on a time-out, says what the page held."""
    try:
        return wait_match(page, condition, timeout=WAIT)
    except Exception as error:
        held = page.evaluate("(() => { const p = window.gammon.app.page; return {animating:"
                             " p.ctrl.animating, busy: p.ctrl.busy,"
                             " game: p.feed && p.feed.game}; })()")
        raise AssertionError(f"waiting for {condition}: {held}") from error


def rect(page: Any, selector: str) -> dict[str, float]:
    """The client rectangle of the first element matching ``selector``."""
    box = page.evaluate(
        "(s) => { const r = document.querySelector(s).getBoundingClientRect();"
        " return {x: r.x, y: r.y, w: r.width, h: r.height}; }", selector)
    assert isinstance(box, dict)
    return box


def column(page: Any, slot: int) -> dict[str, float]:
    """The screen rectangle that takes a tap for ``slot`` (the viewer's numbering)."""
    return rect(page, f'svg.board rect.hit[data-slot="{slot}"]')


def checker_width(page: Any) -> float:
    """The narrowest checker on the points and bars, as rendered."""
    return float(page.evaluate(
        "Math.min(...[...document.querySelectorAll('svg.board .checker:not(.borne) .body')]"
        ".map((c) => c.getBoundingClientRect().width))"))


def visible_controls(page: Any) -> list[dict[str, float]]:
    return page.evaluate(  # type: ignore[no-any-return]
        "[...document.querySelectorAll('.controls button')].filter((b) => !b.hidden)"
        ".map((b) => { const r = b.getBoundingClientRect();"
        " return {x: r.x, y: r.y, w: r.width, h: r.height}; })")


def page_scrolls(page: Any) -> bool:
    return bool(page.evaluate("document.scrollingElement.scrollHeight > innerHeight + 1"))


def tap_in(page: Any, box: dict[str, float], rng: random.Random) -> None:
    """A tap anywhere in ``box`` (not only its middle)."""
    page.touchscreen.tap(box["x"] + box["w"] * rng.uniform(0.1, 0.9),
                         box["y"] + box["h"] * rng.uniform(0.05, 0.95))


def pips(board: list[int]) -> tuple[int, int]:
    """Pip counts of seat 0 and seat 1 from the server's board (player 0's view)."""
    p0 = 25 * max(board[25], 0) + sum(a * board[a] for a in range(1, 25) if board[a] > 0)
    p1 = 25 * max(-board[0], 0) + sum((25 - a) * -board[a] for a in range(1, 25) if board[a] < 0)
    return p0, p1


def assert_pips_labelled(page: Any) -> None:
    state = feed(page)
    counts = pips(state["game"]["board"])
    for seat in (0, 1):
        selector = f'svg.board .strip[data-seat="{seat}"] .pips'
        with contextlib.suppress(Exception):  # the board may still be drawing the last move
            page.wait_for_function(
                f"document.querySelector('{selector}').textContent.includes('{counts[seat]} pips')",
                timeout=5_000)
        label = page.text_content(selector) or ""
        assert f"{counts[seat]} pips" in label, (seat, label, counts)


def assert_whole_points_take_taps(page: Any) -> None:
    """Each point's tap target is its whole column: as wide as the point, from the frame to
    the middle of the board (the triangle inside it), and a position anywhere in it is that
    point for the board's pointer handling."""
    width = checker_width(page)
    for slot in range(1, 25):
        box = column(page, slot)
        assert box["w"] >= width - 0.5, (slot, box, width)
        assert box["h"] >= 4.5 * width, (slot, box, width)  # the triangle's full length
        for fx in (0.03, 0.5, 0.97):
            for fy in (0.02, 0.5, 0.98):
                x, y = box["x"] + fx * box["w"], box["y"] + fy * box["h"]
                assert page.evaluate(f"window.gammon.app.page.view.slotAt({x}, {y})") == slot, \
                    (slot, fx, fy)
    # the drawn triangles lie inside their columns
    triangles = page.evaluate(
        "[...document.querySelectorAll('svg.board polygon.point')].map((p) => {"
        " const r = p.getBoundingClientRect();"
        " return {x: r.x, y: r.y, w: r.width, h: r.height}; })")
    columns = [column(page, slot) for slot in range(1, 25)]
    for t in triangles:
        assert any(c["x"] - 0.5 <= t["x"] and t["x"] + t["w"] <= c["x"] + c["w"] + 0.5
                   and c["y"] - 0.5 <= t["y"] and t["y"] + t["h"] <= c["y"] + c["h"] + 0.5
                   for c in columns), t


def assert_upright_layout(page: Any) -> None:
    """Upright phone: the board spans the width, the controls are below it and on screen."""
    assert page.evaluate("scrollY") == 0
    board = rect(page, "svg.board")
    viewport = page.viewport_size
    assert board["x"] <= 1 and board["w"] >= viewport["width"] - 2, board
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert checker_width(page) >= 24
    controls = visible_controls(page)
    assert controls
    for b in controls:
        assert b["y"] >= board["y"] + board["h"] - 1, b
        assert b["y"] + b["h"] <= viewport["height"], b
    status = rect(page, ".status-line")
    assert status["y"] + status["h"] <= viewport["height"]


def assert_beside_layout(page: Any) -> None:
    """On its side: the controls to the right of the board, all of it on the screen, and the
    page does not scroll."""
    page.wait_for_function("document.scrollingElement.scrollHeight <= innerHeight + 1",
                           timeout=5_000)
    viewport = page.viewport_size
    board = rect(page, "svg.board")
    assert board["y"] >= 0 and board["y"] + board["h"] <= viewport["height"] + 1, board
    for b in visible_controls(page):
        assert b["x"] >= board["x"] + board["w"], (b, board)
        assert b["x"] + b["w"] <= viewport["width"] + 1 and b["y"] + b["h"] <= viewport["height"], b
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


def play_turn(page: Any, rng: random.Random) -> str:
    """Act once by taps: answer the computer's cube or resignation, roll, or move one
    checker; returns what was done ("over" when the match has ended)."""
    state = wait(page, ACTIONABLE)
    game = state["game"]
    if game["phase"] == "match_over":
        return "over"
    if game["phase"] in ("cube_offered", "resign_offered"):
        answer = "take" if game["phase"] == "cube_offered" else "accept_resign"
        page.locator(f"dialog[open] button[data-value={answer}]").tap()
        wait(page, f"p.feed.v > {state['v']}")
        return answer
    if game["phase"] == "before_roll":
        page.locator("svg.board .roll-prompt").tap()
        wait(page, f"p.feed.v > {state['v']}")
        return "roll"
    sources = sorted(int(s) for s in game["legal"])
    source = rng.choice(sources)
    tap_in(page, column(page, source), rng)
    if not page.evaluate("window.gammon.app.options.tap_longest"):
        # the tap picked the checker: then a tap anywhere on one of its lit points
        page.wait_for_function(f"window.gammon.app.page.ctrl.selected === {source}")
        target = rng.choice(sorted(int(d) for d in game["reach"][str(source)]))
        tap_in(page, column(page, target), rng)
    wait(page, f"p.feed.v > {state['v']}")
    return "move"


def set_tap_longest(page: Any, on: bool) -> None:
    """The option "a tap plays the checker's longest move", as the options menu sets it."""
    page.evaluate(f"window.gammon.app.saveOptions({{tap_longest: {'true' if on else 'false'}}})")
    page.wait_for_function(f"window.gammon.app.options.tap_longest === {'true' if on else 'false'}")


def test_a_bot_match_played_by_taps_on_a_phone(pages: Pages) -> None:
    rng = random.Random(12)
    page = pages.new(viewport=PORTRAIT, touch=True)
    page.select_option("[data-form=bot] [name=bot]", "1")  # the quickest computer
    page.fill("[data-form=bot] [name=length]", "1")
    page.locator("[data-act=play-bot]").tap()
    page.wait_for_url("**/#/match/*")
    wait(page, ACTIONABLE)
    assert_upright_layout(page)
    assert_whole_points_take_taps(page)
    assert_pips_labelled(page)

    done: list[str] = []
    landscape: list[str] = []
    started = time.monotonic()
    while time.monotonic() - started < 600 and "over" not in done:
        if done.count("roll") == 3 and not landscape:
            # on its side for a turn (until the next roll): the controls beside the board,
            # the page never scrolls, the taps go on working
            page.set_viewport_size(LANDSCAPE)
            assert_beside_layout(page)
            while landscape[-1:] not in (["roll"], ["over"]):
                landscape.append(play_turn(page, rng))
                assert not page_scrolls(page), landscape
            done += landscape
            page.set_viewport_size(PORTRAIT)
            page.wait_for_function("document.querySelector('svg.board').getBoundingClientRect()"
                                   f".width >= {PORTRAIT['width'] - 2}")
            # the rest of the match at low graphics: the computer's moves shown quickly,
            # the upright layout and the taps checked at that quality too
            set_graphics(page, "low")
            continue
        action = play_turn(page, rng)
        done.append(action)
        if action == "roll":
            assert_upright_layout(page)
            assert_pips_labelled(page)
    assert "over" in done, f"the match did not end in 10 minutes: {done}"
    assert done.count("roll") >= 3 and done.count("move") >= 3, done
    assert landscape, done
    over = page.locator("dialog[open]")
    over.wait_for()
    assert re.search(r"You (won|lost) the match", over.inner_text())


def test_a_tablet_on_its_side_needs_no_scrolling(pages: Pages) -> None:
    rng = random.Random(7)
    page = pages.new(viewport=TABLET, touch=True)
    set_tap_longest(page, True)  # played by the other way of tapping: a tap, a longest move
    page.locator("[data-act=play-bot]").tap()
    page.wait_for_url("**/#/match/*")
    wait(page, ACTIONABLE)
    assert_beside_layout(page)
    assert_pips_labelled(page)
    rolls = 0
    while rolls < 3:
        action = play_turn(page, rng)
        assert action != "over"
        rolls += action == "roll"
        assert not page_scrolls(page), action
        if action == "roll":
            assert_pips_labelled(page)
    assert_beside_layout(page)


def checker_moves(page: Any, seat: int) -> list[list[tuple[int, int]]]:
    """The (from, to) of each of ``seat``'s ended turns, in the mover's numbering."""
    events = page.evaluate("window.gammon.app.page.feed.events")
    return [[(m["from"], m["to"]) for m in e["moves"]] for e in events
            if e["type"] == "turn_ended" and e["player"] == seat]


def lit(page: Any) -> dict[str, Any]:
    """What the board shows picked: the picked checker's slot, the lit target points."""
    return page.evaluate(  # type: ignore[no-any-return]
        "(() => { const p = window.gammon.app.page; return {selected: p.ctrl.selected,"
        " checkers: document.querySelectorAll('svg.board .checker.selected').length,"
        " targets: document.querySelectorAll('svg.board .marks .target, svg.board .target').length,"
        " message: document.querySelector('.status-line').textContent}; })()")


def split_of(game: dict[str, Any]) -> tuple[int, int, int, int, int, int] | None:
    """A split of a two-dice roll: (a, die, x, b, other die, y), checker a to x by one die
    (where its longest move goes further, so a tap playing the longest would not do it),
    then a checker on another point b by the other die to y. 6-1 from the start: 13/7 8/7."""
    legal, reach = game["legal"], game["reach"]
    d1, d2 = game["dice_left"] if len(game["dice_left"]) == 2 else (0, 0)
    if not d1 or d1 == d2:
        return None
    opening = legal.get("13", {}).get("6") == 7 and legal.get("8", {}).get("1") == 7
    if {d1, d2} == {6, 1} and opening:
        return 13, 6, 7, 8, 1, 7
    for die, other in ((d1, d2), (d2, d1)):
        for a, steps in legal.items():
            x = steps.get(str(die))
            if x is None or len(reach[a]) < 2:
                continue
            for b, more in legal.items():
                y = more.get(str(other))
                if b not in (a, str(x)) and y is not None:
                    return int(a), die, int(x), int(b), other, int(y)
    return None


def test_a_split_roll_is_played_by_taps_picking_each_checker_then_its_point(
        pages: Pages) -> None:
    rng = random.Random(5)
    page = pages.new(viewport=PORTRAIT, touch=True)
    assert page.evaluate("window.gammon.app.options.tap_longest") is False  # the default
    page.select_option("[data-form=bot] [name=bot]", "1")  # the quickest computer
    page.fill("[data-form=bot] [name=length]", "3")
    page.locator("[data-act=play-bot]").tap()
    page.wait_for_url("**/#/match/*")
    for _ in range(30):
        state = wait(page, ACTIONABLE)
        game = state["game"]
        split = split_of(game) if game["phase"] == "moving" and game["turn"] == state["you"] \
            else None
        if split is not None:
            break
        play_turn(page, rng)  # a roll, a double roll's checkers, an answer to the computer
    else:
        raise AssertionError("no roll to split in 30 actions")
    a, _, x, b, other, y = split
    me = state["you"]
    turns = len(checker_moves(page, me))
    v = state["v"]

    # a tap anywhere in a's column picks its checker and lights every point it can reach
    tap_in(page, column(page, a), rng)
    page.wait_for_function(f"window.gammon.app.page.ctrl.selected === {a}")
    shown = lit(page)
    assert shown["checkers"] == 1 and shown["targets"] == len(game["reach"][str(a)]), shown
    assert feed(page)["v"] == v  # nothing sent
    # a tap on it again drops the pick; so does a tap off the board
    tap_in(page, column(page, a), rng)
    page.wait_for_function("window.gammon.app.page.ctrl.selected === null")
    assert lit(page)["checkers"] == 0 and lit(page)["targets"] == 0
    tap_in(page, column(page, a), rng)
    page.wait_for_function(f"window.gammon.app.page.ctrl.selected === {a}")
    page.touchscreen.tap(PORTRAIT["width"] / 2, 5)  # the header
    page.wait_for_function("window.gammon.app.page.ctrl.selected === null")
    assert feed(page)["v"] == v

    # pick a, then tap anywhere in x's column: the checker goes there by one die only
    tap_in(page, column(page, a), rng)
    page.wait_for_function(f"window.gammon.app.page.ctrl.selected === {a}")
    tap_in(page, column(page, x), rng)
    state = wait(page, f"p.feed.v > {v}")
    assert state["game"]["dice_left"] == [other], state["game"]["dice_left"]
    assert page.evaluate("window.gammon.app.page.ctrl.selected") is None
    # then the other checker: the turn ends by itself with the two moves
    tap_in(page, column(page, b), rng)
    page.wait_for_function(f"window.gammon.app.page.ctrl.selected === {b}")
    tap_in(page, column(page, y), rng)
    page.wait_for_function(
        f"(() => {{ const e = window.gammon.app.page.feed.events; return e.filter((x) =>"
        f" x.type === 'turn_ended' && x.player === {me}).length > {turns}; }})()",
        timeout=WAIT)
    played = checker_moves(page, me)[turns]
    assert sorted(played) == sorted([(a, x), (b, y)]), (played, split)
    assert page.evaluate("document.documentElement.scrollWidth") <= PORTRAIT["width"]


def test_with_the_option_a_tap_plays_the_checker_s_longest_move(pages: Pages) -> None:
    page = pages.new(viewport=PORTRAIT, touch=True)
    set_tap_longest(page, True)
    page.select_option("[data-form=bot] [name=bot]", "1")
    page.locator("[data-act=play-bot]").tap()
    page.wait_for_url("**/#/match/*")
    rng = random.Random(3)
    for _ in range(30):
        state = wait(page, ACTIONABLE)
        game = state["game"]
        if game["phase"] == "moving" and game["turn"] == state["you"]:
            break
        play_turn(page, rng)
    else:
        raise AssertionError("no move in 30 actions")
    # the checker whose longest move uses the most dice, and where that move ends
    source, dest = max(((int(s), int(d)) for s, r in game["reach"].items() for d in r),
                       key=lambda sd: (len(game["reach"][str(sd[0])][str(sd[1])]), -sd[1]))
    dice = len(game["reach"][str(source)][str(dest)])
    before = game["board"]
    tap_in(page, column(page, source), rng)
    state = wait(page, f"p.feed.game.dice_left.length <= {len(game['dice_left']) - dice}"
                       f" || p.feed.game.turn !== me || p.feed.game.phase !== 'moving'")
    assert page.evaluate("window.gammon.app.page.ctrl.selected") is None  # nothing was picked
    assert state["game"]["board"] != before
