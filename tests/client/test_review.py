"""The post-match review page: a bot match finished in the browser is reviewed at
``#/review/ID`` — the analysis's progress while it is made, then the summary of each player
(the numbers of ``gammon analyze --format json`` for the match's exported ``.mat``, and
gnubg's rating word), the win-chance graph whose points jump to their play (the board and
the decision shown with it), the move list with the analysis's marks; a private match's
review only through its invite link; a review opened while the match is still in play shows
its analysis once the match ends, without a reload. The quick analysis replaced by the deep
one as it lands, its rechecked errors saying so; the engine's plays drawn on the board
beside the play made, stepped through by buttons, keys and clicks; the cube panel's
equities, chances and take point (these three read the review of one match, played out
once for them by one guest)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gammon.core.position import Position
from tests.client.conftest import Pages, pages_on
from tests.client.support import (
    MY_MOVE,
    MY_ROLL,
    gammon_server,
    point,
    set_graphics,
    wait_match,
)
from tests.client.test_play import start_bot_match

PAGE = "window.gammon.app.page"
OVER = "g.phase === 'match_over'"
RATINGS = [(2, "Supernatural"), (5, "World class"), (8, "Expert"), (12, "Advanced"),
           (18, "Intermediate"), (26, "Casual player"), (35, "Beginner")]
"""GNU Backgammon's scale on the error rate (mp per unforced decision), in English."""


def rating_word(error_rate: float) -> str:
    return next((word for bound, word in RATINGS if error_rate < bound), "Awful")


def play_to_the_end(page: Any, turns: int = 400, timeout: float = 240_000) -> None:
    """Play a bot match out by clicks: roll, then click checkers (each click plays that
    checker's longest move) until the turn ends, until the match is over. ``timeout`` per
    action: a server's first engine call loads the engine, slow on a busy machine. ``turns``
    bounds our actions (a roll, then a click a checker: up to five a turn); 150 was once
    too few for a long 1-point game on random dice."""
    for _ in range(turns):
        state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE}) || {OVER}", timeout=timeout)
        game = state["game"]
        if game["phase"] == "match_over":
            return
        if game["phase"] == "before_roll":
            page.click("[data-act=roll]")
            wait_match(page, f"p.feed.v > {state['v']}", timeout=timeout)
            continue
        c = point(page, int(next(iter(game["legal"]))))
        page.mouse.click(c["x"], c["y"])
        wait_match(page, f"p.feed.v > {state['v']}", timeout=timeout)
    raise AssertionError(f"the match did not end in {turns} of our actions")


def one_point_bot_match(page: Any) -> str:
    """Start a 1-point match against the cheapest computer (graphics low, to play it
    quickly); its ID."""
    set_graphics(page, "low")
    page.goto(page.url.split("#")[0] + "#/")
    page.select_option("[data-form=bot] [name=bot]", "1")
    page.select_option("[data-form=bot] [name=kind]", "match")
    page.fill("[data-form=bot] [name=length]", "1")
    page.click("[data-act=play-bot]")
    page.wait_for_url("**/#/match/*")
    return str(page.url.rsplit("/", 1)[1])


def finished_bot_match(page: Any) -> str:
    """A 1-point match against the cheapest computer, played out by clicks; its ID."""
    match_id = one_point_bot_match(page)
    play_to_the_end(page)
    return match_id


def analyse_export(base: str, match_id: str, plies: int, tmp_path: Path) -> dict[str, Any]:
    """``gammon analyze --format json`` of the match's exported ``.mat``."""
    with urllib.request.urlopen(f"{base}/api/games/{match_id}/export.mat") as response:
        mat = tmp_path / f"{match_id}.mat"
        mat.write_bytes(response.read())
    out = subprocess.run(
        [sys.executable, "-m", "gammon.cli.main", "analyze", str(mat), "--format", "json",
         "--ply", str(plies), "--recheck-games", "0"],  # as the server grades: no recheck
        capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def frames_v(page: Any) -> list[int]:
    """The event version of each frame of the replay or review page."""
    return page.evaluate(f"{PAGE}.frames.map(f => f.event.v)")  # type: ignore[no-any-return]


def board_id(board: list[int], player: int) -> str:
    """The Position ID of a client board (player 0's view) from ``player``'s side."""
    position = Position.from_board(board)
    return (position if player == 0 else position.swap()).id()


def test_a_finished_bot_match_is_reviewed_with_the_numbers_of_gammon_analyze(
        pages: Pages, tmp_path: Path) -> None:
    page = pages.new()
    match_id = finished_bot_match(page)
    set_graphics(page, "high")  # the review as a player sees it by default

    # the history links to the review of a finished match
    page.goto(page.url.split("#")[0] + "#/history")
    page.locator(f"tr[data-game='{match_id}'] a[data-act=review]").click()
    page.wait_for_url(f"**/#/review/{match_id}")
    # progress while the analysis is made (a request starts it), then the summary
    page.wait_for_selector(".review-status [data-status]")
    page.wait_for_selector(".review-status [data-status=done]", timeout=180_000)
    # once, under load, the routed page object had no analysis yet when a summary showed
    # (cause not found: another page object drew it?): wait for the routed page's own
    page.wait_for_function(f"{PAGE}.analysis != null", timeout=60_000)
    analysis = page.evaluate(f"{PAGE}.analysis")
    cli = analyse_export(pages.base, match_id, analysis["plies"], tmp_path)
    assert analysis == cli

    def cell(player: int, stat: str) -> str:
        return str(page.locator(f".review-table td[data-player='{player}']"
                                f"[data-stat={stat}]").inner_text())

    for p in cli["players"]:
        assert cell(p["player"], "error_rate_mp") == f"{p['error_rate_mp']:.1f}"
        assert cell(p["player"], "performance_rating") == f"{p['performance_rating']:.1f}"
        assert cell(p["player"], "errors") == str(p["errors"])
        assert cell(p["player"], "blunders") == str(p["blunders"])
        assert cell(p["player"], "luck") == f"{p['luck']:+.3f}"
        assert cell(p["player"], "rating") == rating_word(p["error_rate_mp"])

    # one graph point per checker play, of the match winning chance (a match is reviewed);
    # a click on one shows that play
    assert page.locator(".wc-graph").get_attribute("data-of") == "match"
    assert page.locator(".card h2", has_text="Match winning chance").count() == 1
    points = page.locator(".wc-graph .wc-point")
    assert points.count() == len(cli["decisions"]) > 2
    marked = page.eval_on_selector_all(".movelist .rv-mark", "els => els.map(e => e.textContent)")
    assert sorted(marked) == sorted(d["mark"] for d in cli["decisions"] if d["mark"])
    page.click("[data-act=first]")
    before = page.evaluate(f"{PAGE}.view.state.board")
    k = len(cli["decisions"]) // 2
    decision = cli["decisions"][k]
    target = points.nth(k)
    frame = int(target.get_attribute("data-frame") or -1)
    target.click()
    assert page.evaluate(f"{PAGE}.index") == frame
    board = page.evaluate(f"{PAGE}.view.state.board")
    assert board != before
    # the frame is the play itself: the board before it is the decision's position, the
    # board after it the played move's result
    frames = page.evaluate(f"{PAGE}.frames.map(f => ({{board: f.board, type: f.event.type}}))")
    assert frames[frame]["type"] == "turn_ended" and board == frames[frame]["board"]
    assert board_id(frames[frame - 1]["board"], decision["player"]) == decision["position_id"]
    panel = page.locator(".review-decision")
    assert panel.get_attribute("data-frame") == str(frame)
    heading = panel.locator("h2").inner_text()
    number = page.locator(f".movelist .ml-cell[data-v='{frames_v(page)[frame]}']").locator(
        "xpath=..").locator(".ml-num").inner_text()
    assert f"move {number.rstrip(')')}:" in heading  # the move list's number
    assert heading.endswith("".join(sorted(decision["roll"], reverse=True)))  # higher first
    assert panel.locator("[data-field=played]").inner_text() == decision["played"]
    assert panel.locator("[data-field=luck]").inner_text() == f"{decision['luck']:+.3f}"
    mwc = panel.locator("[data-field=match_winning_chance]").inner_text()
    assert mwc == f"{100 * decision['match_winning_chance']:.1f}%"
    if decision["mark"]:
        assert panel.locator("[data-field=mark]").inner_text().startswith(decision["mark"])
    # the engine's ranked plays of that position, best first, the played one among them
    panel.locator(".rv-plays li.played, .rv-plays li:first-child:not(.muted)").first.wait_for()
    best = panel.locator(".rv-plays li").first.locator(".rv-play").inner_text()
    assert best == decision["best"]
    assert page.locator(".wc-graph .wc-point.current").get_attribute("data-frame") == str(frame)
    # a move clicked in the list jumps too
    first = cli["decisions"][0]
    page.locator(".movelist a.ml-cell").first.click()
    assert page.locator(".review-decision [data-field=played]").inner_text() == first["played"]


def test_a_private_matchs_review_is_shown_only_through_its_invite_link(pages: Pages) -> None:
    owner = pages.new()
    game = owner.evaluate("""fetch('/api/games', {method: 'POST', credentials: 'same-origin',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({kind: 'single', bot: 1, private: true})}).then(r => r.json())""")
    owner.goto(pages.base + game["invite"])
    wait_match(owner, f"({MY_ROLL}) || ({MY_MOVE})", timeout=240_000)  # the bot may go first
    owner.wait_for_selector("[data-act=resign]:not([disabled])")
    owner.click("[data-act=resign]")
    dialog = owner.locator("dialog[open]")
    dialog.locator("input[name=level][value='1']").check()
    dialog.locator("button[data-value=offer]").click()
    wait_match(owner, OVER, timeout=240_000)  # the bot accepts
    key = game["invite"].split("key=", 1)[1]

    outsider = pages.new(f"/#/review/{game['id']}")
    outsider.wait_for_selector(".review-status .error-text")
    assert outsider.inner_text(".review-status") == "No such match."
    assert outsider.locator(".review-table").count() == 0

    holder = pages.new(f"/#/review/{game['id']}?key={key}")
    holder.wait_for_selector(".review-status [data-status=done]", timeout=180_000)
    assert holder.locator(".review-table td[data-stat=rating]").count() == 2


def test_a_review_opened_in_play_shows_the_analysis_once_the_match_ends(pages: Pages) -> None:
    player = pages.new()
    match_id = start_bot_match(player, kind="single")["info"]["id"]
    viewer = pages.new(f"/#/review/{match_id}")
    viewer.wait_for_selector(".review-status [data-error=not_finished]")
    # the page hears no analysis message (a server that analyses only on request sends
    # none): the match's own feed must tell it the end
    viewer.evaluate(f"window.gammon.socket.removeEventListener('message', {PAGE}.onMessage)")
    player.click("[data-act=abandon]")
    player.locator("dialog[open] button[data-value=abandon]").click()
    viewer.wait_for_selector(".review-status [data-status=done]", timeout=180_000)
    assert viewer.evaluate(f"{PAGE}.info.status") == "finished"  # the result came with it
    assert viewer.locator(".review-table td[data-stat=rating]").count() == 2


REVIEW_SCREEN = {"width": 1366, "height": 1000}


class Reviewed:
    """One guest's finished 1-point bot match (played out by clicks, its analysis done),
    for the tests below that only read its review: each opens a page of its own in that
    guest's browser context (the same player, so "mine" is theirs) and changes nothing
    the others read (the cube panel's decision is laid on its own page)."""

    def __init__(self, pages: Pages, context: Any, match_id: str, me: int) -> None:
        self.pages, self.context, self.match_id, self.me = pages, context, match_id, me

    def open(self) -> Any:
        """A new page of the player's, on the match's review, its analysis shown."""
        page = self.context.new_page()
        page.on("pageerror", lambda error: self.pages.errors.append(f"{error}"))
        page.goto(self.pages.base + f"/#/review/{self.match_id}")
        page.wait_for_function("window.gammon && window.gammon.socket.status === 'open'")
        page.wait_for_selector(".review-status [data-status=done]", timeout=180_000)
        # the analysis may come (HTTP) before the match's events (the socket's feed): the
        # review rates the frames once both are in
        page.wait_for_function(f"{PAGE}.frames.length > 0 "
                               f"&& {PAGE}.rated.length === {PAGE}.frames.length")
        return page


@pytest.fixture(scope="module")
def reviewed_match(browser: Any, server: str) -> Iterator[Reviewed]:
    shared = Pages(browser, server)
    try:
        player = shared.new(viewport=REVIEW_SCREEN)
        match_id = finished_bot_match(player)
        me = int(player.evaluate(f"{PAGE}.feed.you"))
        player.close()
        yield Reviewed(shared, player.context, match_id, me)
    finally:
        shared.close()
    assert not shared.errors, f"JavaScript errors: {shared.errors}"


@pytest.fixture
def review(reviewed_match: Reviewed) -> Iterator[tuple[Any, Reviewed]]:
    """The shared match's review on a page of this test's, closed after it; no JavaScript
    error on it."""
    before = len(reviewed_match.pages.errors)
    page = reviewed_match.open()
    try:
        yield page, reviewed_match
    finally:
        page.close()
    errors = reviewed_match.pages.errors[before:]
    assert not errors, f"JavaScript errors: {errors}"


def in_view(page: Any, selector: str) -> bool:
    return bool(page.evaluate(
        "(s) => { const r = document.querySelector(s).getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth; }",
        selector))


def test_the_review_walks_my_errors_only_in_view_with_the_move_list_s_numbers_and_notation(
        review: tuple[Any, Reviewed]) -> None:
    page, match = review
    me = match.me
    analysis = page.evaluate(f"{PAGE}.analysis")
    rated = page.evaluate(f"""{PAGE}.rated.map((r, i) => ({{frame: i,
        players: [r.checker, r.cube].filter((d) => d && d.mark).map((d) => d.player)}}))""")
    marked = {seat: [r["frame"] for r in rated if seat in r["players"]] for seat in (0, 1)}
    every = sorted(set(marked[0]) | set(marked[1]))
    assert marked[me], "no error of mine to walk"

    # the graded decision is beside the board, in view without scrolling, at 1366 x 1000
    page.click("[data-act=first]")
    assert page.evaluate("scrollY") == 0
    assert in_view(page, ".review-decision") and in_view(page, "[data-act=next-error]")

    def walk(choice: str) -> list[int]:
        page.select_option("[data-act=error-filter]", choice)
        page.click("[data-act=first]")
        seen: list[int] = []
        for _ in range(len(every) + 1):
            before = page.evaluate(f"{PAGE}.index")
            page.click("[data-act=next-error]")
            index = page.evaluate(f"{PAGE}.index")
            if index == before:
                break
            seen.append(index)
            assert in_view(page, ".review-decision"), index  # its panel is on the screen
            assert page.locator(".review-decision").get_attribute("data-frame") == str(index)
        return seen

    # "mine only" is offered as such, and walks my errors and no one else's
    mine = page.locator(f"[data-act=error-filter] option[value='{me}']")
    assert mine.get_attribute("data-mine") == "" and mine.inner_text() == "mine only"
    assert walk(str(me)) == marked[me]
    assert walk(str(1 - me)) == marked[1 - me]
    assert walk("") == every

    # one numbering and one notation: each play is called by its number in the move list
    # and written as the list writes it
    versions = frames_v(page)
    checked = 0
    for r in rated:
        decision = page.evaluate(f"{PAGE}.rated[{r['frame']}].checker")
        if decision is None or not decision["played"]:
            continue
        page.evaluate(f"{PAGE}.show({r['frame']})")
        cell = page.locator(f".movelist .ml-cell[data-v='{versions[r['frame']]}']")
        number = cell.locator("xpath=..").locator(".ml-num").inner_text().rstrip(")")
        heading = page.locator(".review-decision h2").inner_text()
        assert f"Game {decision['game']}, move {number}:" in heading, (heading, number)
        written = cell.inner_text().split(": ", 1)[1].rstrip("?").strip()
        played = page.locator(".review-decision [data-field=played]").inner_text()
        assert played == written, (played, written)
        checked += 1
    assert checked == len([d for d in analysis["decisions"] if d["played"]]) > 2


def arrows(page: Any, group: str) -> list[tuple[str, ...]]:
    """The arrows of a play drawn on the board (``last-play``: the play made, ``compare-play``:
    the engine's), each as its end points."""
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        f".layer-last .{group} .last-arrow",
        "els => els.map(e => ['x1', 'y1', 'x2', 'y2'].map(a => e.getAttribute(a)))")


def test_the_review_draws_the_best_play_beside_the_one_made_and_steps_through_the_engine_s(
        review: tuple[Any, Reviewed]) -> None:
    page, _ = review
    frame = page.evaluate(f"""{PAGE}.rated.findIndex((r) => r.checker && r.checker.played
        && r.checker.best !== r.checker.played)""")
    assert frame >= 0, "no play of the match differs from the engine's best"
    page.evaluate(f"{PAGE}.show({frame})")
    decision = page.evaluate(f"{PAGE}.rated[{frame}].checker")
    panel = page.locator(".review-decision")

    # the play made (blue) and the engine's best (amber), each named, with a legend
    page.wait_for_selector(".layer-last .compare-play .last-arrow", state="attached")
    made, best = arrows(page, "last-play"), arrows(page, "compare-play")
    assert made and best and sorted(made) != sorted(best)
    board = page.locator(".layer-last")
    made_text, best_text = f"Played: {decision['played']}", f"Engine's #1: {decision['best']}"
    assert board.locator(".last-play").get_attribute("aria-label") == made_text
    assert board.locator(".compare-play").get_attribute("aria-label") == best_text
    assert panel.locator("[data-field=shown-played]").inner_text() == made_text
    assert panel.locator("[data-field=shown-engine]").inner_text() == best_text
    plays = panel.locator(".rv-plays .rv-play")
    assert plays.first.get_attribute("aria-pressed") == "true"
    # what is drawn is the engine's play: its moves, the mover's
    listed = page.evaluate(
        f"{PAGE}.panel.shown.plays.map((p) => ({{play: p.play, moves: p.moves}}))")
    compare = page.evaluate(f"{PAGE}.view.state.compare")
    assert compare["moves"] == listed[0]["moves"] and compare["seat"] == decision["player"]
    # the Match page's last move is drawn by the same code: the frame's own moves
    assert page.evaluate(f"{PAGE}.view.state.last.moves") == \
        page.evaluate(f"{PAGE}.frames[{frame}].event.moves")

    def shown() -> str:
        return str(panel.locator(".rv-legend").inner_text())

    # Next: the engine's second play, drawn instead (or, where it is the play made, none)
    page.click("[data-act=next-play]")
    assert plays.nth(1).get_attribute("aria-pressed") == "true"
    assert plays.first.get_attribute("aria-pressed") == "false"
    if listed[1]["play"] == decision["played"]:
        assert board.locator(".compare-play").count() == 0
        assert "(the engine's #2)" in shown()
    else:
        assert sorted(arrows(page, "compare-play")) != sorted(best)
        assert f"Engine's #2: {listed[1]['play']}" in shown()
        assert page.evaluate(f"{PAGE}.view.state.compare.moves") == listed[1]["moves"]
    # the keys: Up goes back to the best, Down again to the second; the frame stays
    page.keyboard.press("ArrowUp")
    assert sorted(arrows(page, "compare-play")) == sorted(best)
    page.keyboard.press("ArrowDown")
    assert plays.nth(1).get_attribute("aria-pressed") == "true"
    assert page.evaluate(f"{PAGE}.index") == frame
    # a click on a listed play draws it; the buttons are named for the keyboard and readers
    last = plays.count() - 1
    plays.nth(last).click()
    assert plays.nth(last).get_attribute("aria-pressed") == "true"
    assert panel.locator("[data-act=next-play]").get_attribute("aria-label") == \
        "Next engine play on the board"
    assert panel.locator("[data-act=prev-play]").get_attribute("aria-keyshortcuts") == "ArrowUp"
    # another frame: its own play, nothing compared until its plays are in
    page.click("[data-act=first]")
    assert board.locator(".compare-play").count() == 0


def test_the_review_s_cube_panel_shows_each_action_s_equity_the_chances_and_the_take_point(
        review: tuple[Any, Reviewed]) -> None:
    """A 1-point match has no cube: the panel is shown with a cube decision of a 5-point
    match laid on a frame, as the analysis records one (its position and Match ID), and
    must show what ``POST /api/eval`` says of it."""
    from gammon.formats.match_id import MatchKey

    page, _ = review
    # player 0 on roll in a race 71 pips to 76, 3-away/4-away: double, take (some 71%)
    position = Position.from_points({6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 8: 2},
                                    {6: 4, 5: 3, 4: 3, 3: 3, 8: 2}).id()
    key = MatchKey(match_length=5, score=(2, 1)).id()
    record = {"game": 1, "move_number": 3, "player": 0, "position_id": position,
              "chosen": "no double", "proper": "double take", "loss": 0.05, "match_id": key,
              "mark": "?"}
    page.evaluate(f"""(cube) => {{ const p = {PAGE};
        p.rated[p.index] = {{ checker: null, cube }}; p.show(p.index); }}""", record)
    panel = page.locator(".review-decision .rv-cube")
    panel.locator(".rv-equities").wait_for()
    plies = page.evaluate(f"{PAGE}.analysis.plies")
    body = {"position_id": position, "match_id": key, "plies": plies}
    view = page.evaluate("""(body) => fetch('/api/eval', {method: 'POST',
        headers: {'content-type': 'application/json'}, body: JSON.stringify(body)})
        .then((r) => r.json())""", body)["cube"]

    def signed(x: float) -> str:
        return f"{x:+.3f}"

    def percent(x: float) -> str:
        return f"{100 * x:.1f}%"

    # the three actions, each with its equity and, in a match, its match winning chance
    rows = panel.locator(".rv-equities tbody tr")
    assert [rows.nth(i).get_attribute("data-action") for i in range(rows.count())] == \
        ["no_double", "double_take", "double_pass"]
    assert [rows.nth(i).locator("th").inner_text() for i in range(3)] == \
        ["no double", "double, take", "double, drop"]
    for action in ("no_double", "double_take", "double_pass"):
        row = panel.locator(f".rv-equities tr[data-action={action}]")
        assert row.locator("[data-field=equity]").inner_text() == signed(view["equities"][action])
        assert row.locator("[data-field=mwc]").inner_text() == percent(view["mwc"][action])
    # the cubeless chances of both sides: wins, gammons, backgammons
    p = view["probabilities"]
    chances = {"win": (p["win"], 1 - p["win"]), "gammon": (p["win_gammon"], p["lose_gammon"]),
               "backgammon": (p["win_backgammon"], p["lose_backgammon"])}
    for kind, (mine, theirs) in chances.items():
        row = panel.locator(f".rv-chances tr[data-chance={kind}]")
        assert row.locator("td[data-seat='0']").inner_text() == percent(mine)
        assert row.locator("td[data-seat='1']").inner_text() == percent(theirs)
    # the take point at the score, the receiver's
    assert 0 < view["take_point"] < 0.5
    receiver = page.evaluate(f"{PAGE}.info.seats[1].name")
    assert panel.locator("[data-field=take_point]").inner_text() == percent(view["take_point"])
    assert f"Take point of {receiver}:" in panel.inner_text()


@pytest.fixture(scope="module")
def deep_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``gammon serve`` with the deep analysis on (the session's has it off), its rollouts
    small (36 games of 2 plies) so that it lands in a minute or two."""
    with gammon_server(tmp_path_factory.mktemp("gammon-deep"), analysis_deep_plies="2",
                       analysis_recheck_games="36", analysis_recheck_truncate="2") as base:
        yield base


@pytest.fixture
def deep_pages(browser: Any, deep_server: str) -> Iterator[Pages]:
    yield from pages_on(browser, deep_server)


def test_the_review_shows_the_quick_analysis_then_the_deep_one_without_a_reload(
        deep_pages: Pages) -> None:
    # the review is open before the match ends: it sees each analysis as it lands
    player = deep_pages.new()
    match_id = one_point_bot_match(player)
    page = deep_pages.new(f"/#/review/{match_id}", viewport=REVIEW_SCREEN)
    page.wait_for_selector(".review-status [data-error=not_finished]")
    page.evaluate("window.sameDocument = true")  # gone if the page were loaded again
    play_to_the_end(player)
    # the quick analysis (1-ply), saying that a deeper one is on its way
    quick = page.wait_for_selector(".review-status [data-status=done][data-plies='1']",
                                   timeout=180_000)
    assert quick is not None
    coming = page.locator(".review-status [data-deeper]")
    assert coming.count() == 1 and "deeper analysis at 2-ply" in coming.inner_text().lower()
    assert page.evaluate(f"{PAGE}.analysis.plies") == 1
    # graded at (at most) its depth: a play the search keeps shallow has a lower one
    quick_by = {d["graded_by"] for d in page.evaluate(f"{PAGE}.analysis.decisions")}
    assert "1-ply" in quick_by and quick_by <= {"0-ply", "1-ply"}
    # then the deep one (2-ply, errors graded again by rollouts) replaces it where it is
    page.wait_for_selector(".review-status [data-status=done][data-plies='2']", timeout=480_000)
    assert page.evaluate("window.sameDocument") is True
    assert page.locator(".review-status [data-deeper]").count() == 0
    assert page.locator(".review-status [data-field=plies]").inner_text() == \
        "Analysed by the engine at 2-ply."
    assert "Errors graded again by rollouts." in page.locator(".review-status").inner_text()
    rated = page.evaluate(f"""{PAGE}.rated.map((r, i) => [i, r.checker && r.checker.graded_by])
        .filter(([, by]) => by)""")
    rollout = "rollout 36 games, 2 plies"
    rolled = [i for i, by in rated if by == rollout]
    assert rolled, "no error of the match was graded again by rollouts"
    assert "2-ply" in {by for _, by in rated}
    assert {by for _, by in rated} <= {"0-ply", "1-ply", "2-ply", rollout}
    # each decision says what graded it
    page.evaluate(f"{PAGE}.show({rolled[0]})")
    graded = page.locator(".review-decision [data-field=graded_by]")
    assert graded.inner_text() == "graded again by rollouts: 36 games of 2 plies"
    plain = next(i for i, by in rated if by == "2-ply")
    page.evaluate(f"{PAGE}.show({plain})")
    assert graded.inner_text() == "graded at 2-ply"


def test_the_players_profile_draws_the_error_rate_of_the_analysed_match(
        review: tuple[Any, Reviewed]) -> None:
    """The review's player opens their profile from their history: the error-rate graph has
    the analysed match's point and the mean is its error rate; a guest has no rating line."""
    page, match = review
    analysis = page.evaluate(f"{PAGE}.analysis")
    mine = analysis["players"][match.me]["error_rate_mp"]
    name = analysis["names"][match.me]
    page.goto(match.pages.base + f"/#/history/{name}")
    page.click("[data-act=profile]")
    page.wait_for_selector("[data-part=errors] svg.profile-graph")
    assert page.get_attribute("[data-part=errors] svg.profile-graph", "data-points") == "1"
    assert page.inner_text("[data-part=errors] .big") == f"{mine:.1f}"
    assert "Nothing to draw yet" in page.inner_text("[data-part=rating]")
    assert page.locator("[data-act=history]").get_attribute("href") == f"#/history/{name}"
