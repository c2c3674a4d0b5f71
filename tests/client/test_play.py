"""The board people play on, driven in Chromium against a real ``gammon serve``
(RULES.md §3, §5, §6, §8, §9): a guest plays the computer — rolls, drags, clicks, undoes and
confirms; an illegal drop snaps back and says why; the cube; resigning; keyboard play."""

from __future__ import annotations

from typing import Any

from tests.client.conftest import Pages
from tests.client.support import (
    MY_MOVE,
    MY_ROLL,
    board_version,
    drag,
    feed,
    options_stored,
    point,
    wait_match,
)


def start_bot_match(page: Any, *, kind: str = "match", length: int = 3) -> dict[str, Any]:
    page.goto(page.url.split("#")[0] + "#/")
    page.select_option("[data-form=bot] [name=kind]", kind)
    if kind == "match":
        page.fill("[data-form=bot] [name=length]", str(length))
    page.click("[data-act=play-bot]")
    page.wait_for_url("**/#/match/*")
    return wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")


def roll_until_movable(page: Any) -> dict[str, Any]:
    """Roll (clicking the dice area of the board) until a roll with a legal move comes."""
    for _ in range(20):
        state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
        if state["game"]["phase"] == "moving":
            return state
        page.click(".roll-prompt")
        wait_match(page, f"!({MY_ROLL})")
    raise AssertionError("no movable roll in 20 tries")


def first_step(game: dict[str, Any]) -> tuple[int, int, int]:
    """(source, die, destination) of a legal step that stays on the board."""
    for source, steps in game["legal"].items():
        for die, destination in steps.items():
            if destination > 0:
                return int(source), int(die), int(destination)
    raise AssertionError(f"no step on the board in {game['legal']}")


def status(page: Any) -> str:
    return str(page.inner_text(".status-line"))


def test_a_guest_signs_in_and_plays_the_bot_roll_drag_undo_click_and_confirm(pages: Pages
                                                                            ) -> None:
    page = pages.new("/#/signin")
    page.click("[data-act=guest]")
    page.wait_for_url("**/#/")
    assert page.inner_text("#user-link").startswith("guest-")
    # "end the turn by clicking the dice" (RULES.md §8): set before the match starts
    page.goto(page.url.split("#")[0] + "#/options")
    page.check("[data-form=options] [name=confirm_turn]")
    with options_stored(page):
        page.click("[data-form=options] button[type=submit]")
    page.wait_for_function("window.gammon.app.options.confirm_turn === true")

    start_bot_match(page)
    state = roll_until_movable(page)
    game = state["game"]
    full = len(game["dice_left"])
    source, _, destination = first_step(game)

    # drag a checker to a point it can reach: the server accepts one step
    v = board_version(page)
    drag(page, source, destination)
    state = wait_match(page, f"p.feed.v > {v}")
    assert len(state["game"]["dice_left"]) == full - 1

    # undo within the turn
    v = state["v"]
    page.click("[data-act=undo]")
    state = wait_match(page, f"p.feed.v > {v}")
    assert len(state["game"]["dice_left"]) == full
    assert state["game"]["board"] == game["board"]

    # a click plays the longest move of a checker; go on until the play is complete (the
    # server then waits for the click on the dice)
    for _ in range(6):
        state = wait_match(page, MY_MOVE)
        if state["game"]["can_confirm"]:
            break
        source = int(next(iter(state["game"]["legal"])))
        c = point(page, source)
        v = state["v"]
        page.mouse.click(c["x"], c["y"])
        wait_match(page, f"p.feed.v > {v}")
    assert page.evaluate("window.gammon.app.page.ctrl.canConfirm()"), "the play never completed"
    assert "Click the dice" in status(page)

    # nothing ends the turn but the click on the dice
    page.wait_for_timeout(300)
    state = wait_match(page, MY_MOVE)
    v = state["v"]
    page.click(".dice.confirmable")
    state = wait_match(page, f"p.feed.v > {v} && !(g.turn === me && g.phase === 'moving')")
    # the move list holds the turn, in the player's column, dice higher first
    seat = state["you"]
    turns = [e for e in page.evaluate("window.gammon.app.page.feed.events")
             if e["type"] == "turn_ended" and e["player"] == seat]
    cell = page.locator(f".movelist .ml-cell[data-v='{turns[0]['v']}']")
    assert cell.count() == 1
    higher_first = {f"{a}{b}" for a in range(1, 7) for b in range(1, a + 1)}
    assert cell.inner_text().split(":")[0] in higher_first


def test_an_illegal_drop_snaps_back_and_says_why(pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page)
    state = roll_until_movable(page)
    legal = state["game"]["legal"]
    source = int(next(iter(legal)))
    # backwards, away from home, is never a move
    backwards = source + 1 if source < 24 else source - 12
    assert str(backwards) not in {str(d) for d in legal[str(source)].values()}
    v = board_version(page)
    drag(page, source, backwards)
    page.wait_for_timeout(400)
    assert board_version(page) == v, "an illegal drop must send nothing"
    assert page.locator(".status-line.error").count() == 1
    text = status(page)
    assert "forward only" in text or "cannot reach" in text or "cannot move" in text, text
    # the checker went back where it was
    assert feed(page)["game"]["board"] == state["game"]["board"]


def test_the_cube_is_offered_taken_and_the_resignation_scores(pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page, length=5)
    # get to a turn of ours before the roll with the cube in the middle
    for _ in range(10):
        state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
        if state["game"]["phase"] == "before_roll":
            break
        for _ in range(6):  # play the turn by clicks
            state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
            if state["game"]["phase"] != "moving":
                break
            c = point(page, int(next(iter(state["game"]["legal"]))))
            v = state["v"]
            page.mouse.click(c["x"], c["y"])
            wait_match(page, f"p.feed.v > {v}")
    assert state["game"]["phase"] == "before_roll"
    me = state["you"]

    v = state["v"]
    page.click("[data-act=double]")
    state = wait_match(page, f"p.feed.v > {v} && g.phase === 'before_roll'")
    assert state["game"]["cube"] == {"value": 2, "owner": 1 - me, "enabled": True}
    assert page.text_content(".layer-cube .cube-value") == "2"
    assert "takes" in page.inner_text(".movelist .ml-cube")

    # resign: the dialog offers single, gammon or backgammon
    page.click("[data-act=resign]")
    dialog = page.locator("dialog[open]")
    assert dialog.locator("input[name=level]").count() == 3
    dialog.locator("input[name=level][value='1']").check()
    v = board_version(page)
    dialog.locator("button[data-value=offer]").click()
    state = wait_match(page, f"p.feed.v > {v} && g.score[{1 - me}] === 2")
    # the bot accepted: it scores single x cube 2, shown in its strip
    scores = page.locator(".layer-strips .score").all_text_contents()
    assert "2" in scores
    assert "wins 2 points" in page.inner_text(".movelist")


def test_keyboard_alone_rolls_and_moves_a_checker(pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page)
    for _ in range(20):
        state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
        if state["game"]["phase"] == "moving":
            break
        page.keyboard.press("r")
        wait_match(page, f"!({MY_ROLL})")
    game = state["game"]
    source, _, destination = first_step(game)
    page.keyboard.press("b")  # focus the board
    page.focus(f".hit[data-slot='{source}']")
    page.keyboard.press("Enter")
    assert "picked" in status(page)
    assert page.locator(f".hit[data-slot='{destination}']").get_attribute(
        "aria-label").endswith("You can move here")
    v = state["v"]
    page.focus(f".hit[data-slot='{destination}']")
    page.keyboard.press("Enter")
    state = wait_match(page, f"p.feed.v > {v}")
    assert len(state["game"]["dice_left"]) < len(game["dice_left"]) or state["game"]["phase"] \
        != "moving"


def roll_a_two_dice_move(page: Any) -> tuple[dict[str, Any], list[tuple[int, int, list[int]]]]:
    """Play turns by clicks until a roll gives a checker a move of two or more dice: the
    state, and those moves as (source, destination, dice)."""
    for _ in range(10):
        state = roll_until_movable(page)
        game = state["game"]
        far = [(int(s), int(d), dice) for s, points in game["reach"].items()
               for d, dice in points.items() if len(dice) >= 2 and int(d) > 0]
        if far:
            return state, far
        for _ in range(6):  # no two-dice move this time: play the turn by clicks
            state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")
            if state["game"]["phase"] != "moving":
                break
            c = point(page, int(next(iter(state["game"]["legal"]))))
            v = state["v"]
            page.mouse.click(c["x"], c["y"])
            wait_match(page, f"p.feed.v > {v}")
    raise AssertionError("no roll with a two-dice move")


def test_a_drop_two_dice_away_sends_the_servers_reach_steps(pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page)
    state, far = roll_a_two_dice_move(page)
    source, destination, dice = far[0]
    drag(page, source, destination)
    # one drop, every step of the server's dice sequence accepted (nothing taken back)
    wait_match(page, f"p.feed.v >= {state['v'] + len(dice)}")
    assert page.locator(".status-line.error").count() == 0
    assert not [e for e in page.evaluate("window.gammon.app.page.feed.events")
                if e["type"] == "step_undone"]


def test_a_move_of_several_steps_is_played_whole_when_other_news_comes_between_them(
        pages: Pages) -> None:
    """A click plays the checker's longest move a step at a time, each step sent once the
    server has taken the one before. News from the server that is not that answer must not
    cut the move short: here the answer to the page's request for the match so far (made
    when a page opens a match, and slow on a loaded server) comes between the first step
    and its answer, and every die of the move is still played."""
    page = pages.new()
    start_bot_match(page)
    state, far = roll_a_two_dice_move(page)
    game = state["game"]
    source = max(far, key=lambda move: len(move[2]))[0]
    steps = max(len(dice) for dice in game["reach"][str(source)].values())
    before = state["v"]

    def played() -> int:
        return len([e for e in page.evaluate("window.gammon.app.page.feed.events")
                    if e["type"] == "checker_moved" and e["v"] > before])

    page.evaluate(f"(() => {{ const p = window.gammon.app.page; p.feed.backfill();"
                  f" p.ctrl.clickMove({source}); }})()")
    try:
        wait_match(page, f"p.feed.v >= {before + steps} || g.turn !== me")
    except Exception as error:
        raise AssertionError(f"{played()} of the move's {steps} steps played") from error
    assert played() >= steps
