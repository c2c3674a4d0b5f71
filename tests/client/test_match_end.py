"""The match-end dialog: who won and how, the final score, the ratings
before and after for a rated match (the server's rating history, not computed in the page),
each side's error rate once the analysis is done (its progress until then), and the ways on:
the review link, a rematch, the .mat download. The words fit the kind: a single game says
"game", a money session the points won or lost, and an abandoned session that the game in
play was forfeited (as the server records it: the game ends "abandon" at the cube's value)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.client.conftest import Pages
from tests.client.support import feed, wait_match
from tests.client.test_hint import rated_match
from tests.client.test_play import start_bot_match
from tests.client.test_two_players import on_turn

PAGE = "window.gammon.app.page"


def get(page: Any, path: str) -> Any:
    """GET from the page (its session): (status, JSON)."""
    return page.evaluate("""async (path) => {
        const r = await fetch(path, {credentials: "same-origin"});
        return [r.status, await r.json()]; }""", path)


def resign_single(page: Any) -> None:
    page.wait_for_selector("[data-act=resign]:not([disabled])")
    page.click("[data-act=resign]")
    dialog = page.locator("dialog[open]")
    dialog.locator("input[name=level][value='1']").check()
    dialog.locator("button[data-value=offer]").click()


def abandon(page: Any) -> None:
    page.click("[data-act=abandon]")
    page.locator("dialog[open] button[data-value=abandon]").click()


def end_dialog(page: Any) -> Any:
    wait_match(page, "g.phase === 'match_over'", 30_000)
    dialog = page.locator("dialog.over-dialog[open]")
    dialog.wait_for()
    return dialog


def names(page: Any) -> tuple[str, str, int]:
    """(my name, the other's name, my seat)."""
    state = feed(page)
    seats = state["info"]["seats"]
    me = state["you"]
    return seats[me]["name"], seats[1 - me]["name"], me


def test_the_lobby_and_the_end_of_a_bot_match_say_it_is_unrated(pages: Pages) -> None:
    """A bot match leaves ratings as they are: the lobby says so before it starts (the
    computer's card, and the create card of a guest), and its match-end dialog after."""
    page = pages.new()
    bot_note = page.locator("section[aria-labelledby=bot-title] [data-note=unrated]")
    assert bot_note.inner_text() == "Unrated: no rating change"
    guest_note = page.locator("[data-form=create] [data-note=unrated]")
    assert guest_note.inner_text().startswith("Unrated: no rating change. Guests play unrated")
    start_bot_match(page, length=1)
    resign_single(page)
    dialog = end_dialog(page)
    expect(dialog.locator("[data-over=unrated]")).to_have_text("Unrated: no rating change")


def test_a_finished_bot_match_says_who_won_and_how_and_offers_review_rematch_and_mat(
        pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page, length=1)
    match_id = page.url.rsplit("/", 1)[1]
    me, bot, seat = names(page)
    resign_single(page)
    dialog = end_dialog(page)
    assert dialog.locator("h2").inner_text() == "You lost the match."
    how = dialog.locator("[data-over=how]")
    assert how.inner_text() == f"Last game: {me} resigned: {bot} wins 1 point."
    assert how.get_attribute("data-kind") == "resign"
    assert how.get_attribute("data-reason") == "points"
    seats = feed(page)["info"]["seats"]
    score = "0–1" if seat == 0 else "1–0"
    assert dialog.locator("[data-over=score]").inner_text() \
        == f"{seats[0]['name']} – {seats[1]['name']}: {score}"
    # a guest's bot match
    assert dialog.locator("[data-over=ratings]").inner_text() == "Unrated: no rating change"

    # the analysis: its progress while it runs, then each side's error rate and PR, as the
    # server's analysis gives them
    table = dialog.locator("[data-analysis=done]")
    table.wait_for(timeout=120_000)
    status, analysis = get(page, f"/api/games/{match_id}/analysis")
    assert status == 200
    for p in analysis["players"]:
        row = table.locator(f"tr[data-player='{p['player']}']")
        assert row.locator("th").inner_text() == seats[p["player"]]["name"]
        assert row.locator("[data-stat=error_rate]").inner_text() == f"{p['error_rate_mp']:.1f}"
        assert row.locator("[data-stat=pr]").inner_text() == f"{p['performance_rating']:.1f}"
    shown = page.evaluate(f"""(() => {{ const p = {PAGE}; const over = p.dialogs.over;
        const end = p.ctrl.end; const a = end.analysis;
        end.analysis = null; end.analysisState = {{progress: {{done: 1, total: 4}}}};
        over.fillAnalysis();
        const text = over.analysis.innerText; end.analysis = a; over.fillAnalysis();
        return text; }})()""")
    assert shown == "Analysing… 25%"

    # the review link, the .mat file
    assert dialog.locator("a[data-act=review]").get_attribute("href") == f"#/review/{match_id}"
    with page.expect_download() as download:
        dialog.locator("a[data-download=mat]").click()
    assert download.value.suggested_filename == f"{match_id}.mat"
    with open(download.value.path(), encoding="utf-8") as file:
        mat = file.read()
    assert "1 point match" in mat and me in mat and bot in mat

    # a rematch starts a new match against the same bot
    dialog.locator("button[data-value=rematch]").click()
    page.wait_for_function(f"!location.hash.endsWith('{match_id}')")
    state = wait_match(page, "p.feed.info && p.feed.info.status === 'playing'", 30_000)
    assert state["info"]["id"] != match_id
    assert state["info"]["rematch_of"] == match_id
    assert state["info"]["seats"][1 - state["you"]]["name"] == bot


def test_a_rated_match_shows_each_players_rating_before_and_after(pages: Pages) -> None:
    alice, bob, match_id = rated_match(pages)
    leaver, other = on_turn(alice, bob)
    loser, winner, _ = names(leaver)
    abandon(leaver)
    for page, title in ((leaver, "You lost the match."), (other, "You won the match!")):
        dialog = end_dialog(page)
        assert dialog.locator("h2").inner_text() == title
        assert dialog.locator("[data-over=how]").inner_text() \
            == f"{loser} abandoned the match: {winner} wins."
        for name in (loser, winner):
            status, ratings = get(page, f"/api/users/{name}/ratings")
            assert status == 200
            change = next(c for c in ratings["history"] if c["match"] == match_id)
            # the line is drawn again on each update: look it up afresh while waiting (a
            # handle held across a redraw points at a detached element that never changes)
            line = dialog.locator(f"[data-rating='{name}']")
            expect(line).to_have_text(
                f"{name}: {change['before']:.1f} → {change['after']:.1f}", timeout=30_000)
            assert (change["after"] > change["before"]) == (name == winner)


def test_an_abandoned_money_session_forfeits_the_game_in_play_and_counts_the_points(
        pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page, kind="money")
    me, bot, seat = names(page)
    abandon(page)
    dialog = end_dialog(page)
    # the server's record: the game in play ends "abandon" at the cube's value, then the session
    events = page.evaluate(f"{PAGE}.feed.events")
    game_end = next(e for e in reversed(events) if e["type"] == "game_ended")
    assert game_end["kind"] == "abandon" and game_end["points"] == 1
    assert events[-1]["type"] == "match_ended" and events[-1]["reason"] == "abandon"
    assert dialog.locator("h2").inner_text() == "You lost 1 point in this session."
    assert dialog.locator("[data-over=how]").inner_text() \
        == f"{me} abandoned the session and forfeits the game in play: {bot} wins 1 point."
    assert dialog.locator("[data-over=score]").inner_text().endswith(
        "0–1" if seat == 0 else "1–0")


def test_a_single_game_says_game(pages: Pages) -> None:
    page = pages.new()
    start_bot_match(page, kind="single")
    me, bot, _ = names(page)
    resign_single(page)
    dialog = end_dialog(page)
    assert dialog.locator("h2").inner_text() == "You lost the game."
    # one game: no "last game" before how it ended
    assert dialog.locator("[data-over=how]").inner_text() == f"{me} resigned: {bot} wins 1 point."
    assert feed(page)["info"]["kind"] == "single"
