"""Make the screenshots of docs/screenshots/ (README, docs/client.md):

    .venv/bin/python -m tests.client.screenshots [--only phone,match-end,...] [OUTPUT_DIR]

It starts its own ``gammon serve`` with a temporary database, plays a little in headless
Chromium (guests, two registered players, the computer) and photographs the main pages at
desktop and phone widths. Not a test (pytest does not collect it); it needs the same
Chromium and Playwright as the browser tests.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from pathlib import Path
from typing import Any

from tests.client.support import (
    DESKTOP,
    MY_MOVE,
    MY_ROLL,
    PHONE,
    chromium,
    feed,
    gammon_server,
    point,
    rated_player,
    register,
    wait_match,
)
from tests.client.test_play_now import choose

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


class Shooter:
    def __init__(self, browser: Any, base: str, out: Path, workdir: Path) -> None:
        self.browser = browser
        self.base = base
        self.out = out
        self.workdir = workdir
        """The server's directory (its SQLite database)."""

    def page(self, path: str = "/#/", *, viewport: dict[str, int] | None = None,
             locale: str = "en-US", touch: bool = False) -> Any:
        context = self.browser.new_context(viewport=viewport or DESKTOP, locale=locale,
                                           device_scale_factor=1, has_touch=touch,
                                           is_mobile=touch)
        page = context.new_page()
        page.goto(self.base + path)
        page.wait_for_function("window.gammon && window.gammon.socket.status === 'open'")
        return page

    def go(self, page: Any, route: str) -> None:
        page.goto(self.base + "/" + route)
        page.wait_for_timeout(600)

    def shot(self, page: Any, name: str, *, full: bool = False) -> None:
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(450)
        page.screenshot(path=str(self.out / f"{name}.png"), full_page=full)
        print("wrote", self.out / f"{name}.png")


def bot_match(page: Any, length: int = 5) -> None:
    page.select_option("[data-form=bot] [name=kind]", "match")
    page.fill("[data-form=bot] [name=length]", str(length))
    page.click("[data-act=play-bot]")
    page.wait_for_url("**/#/match/*")
    wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})")


def click_turn(page: Any) -> None:
    rolled = False
    for _ in range(8):
        state = wait_match(page, "true")
        game = state["game"]
        if game["turn"] != state["you"] or game["phase"] not in ("before_roll", "moving"):
            return
        v = state["v"]
        if game["phase"] == "before_roll":
            if rolled:
                return  # the computer played meanwhile: this is our next turn
            rolled = True
            page.click("[data-act=roll]")
        else:
            c = point(page, int(next(iter(game["legal"]))))
            page.mouse.click(c["x"], c["y"])
        wait_match(page, f"p.feed.v > {v}")


def phone(s: Shooter) -> None:
    """A phone held upright (375 x 667, a touch screen) a few turns into a match against
    the computer, the computer's last move marked; then the same phone on its side."""
    page = s.page(viewport={"width": 375, "height": 667}, touch=True)
    bot_match(page)
    for _ in range(3):
        click_turn(page)
    wait_match(page, MY_ROLL, timeout=60_000)
    s.shot(page, "phone")
    page.set_viewport_size({"width": 667, "height": 375})
    wait_match(page, MY_ROLL)
    s.shot(page, "phone-landscape")


def phone_taps(s: Shooter) -> None:
    """Play by taps on a phone (375 x 667): a checker picked by a tap, ringed, and the points
    it can reach lit, waiting for the tap on one of them."""
    page = s.page(viewport={"width": 375, "height": 667}, touch=True)
    bot_match(page)
    for _ in range(20):
        state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})", timeout=60_000)
        game = state["game"]
        if game["phase"] == "moving" and len(game["dice_left"]) == 2:
            # the checker with the most places to go
            source = max(game["reach"], key=lambda q: len(game["reach"][q]))
            if len(game["reach"][source]) >= 2:
                break
        click_turn(page)
    c = point(page, int(source))
    page.touchscreen.tap(c["x"], c["y"])
    page.wait_for_function(f"window.gammon.app.page.ctrl.selected === {int(source)}")
    s.shot(page, "phone-taps")


def hint_panel(s: Shooter) -> None:
    """The Hint panel of a match against the computer: the best plays of a roll, the first
    one drawn on the board."""
    page = s.page()
    bot_match(page)
    for _ in range(20):
        state = wait_match(page, f"({MY_ROLL}) || ({MY_MOVE})", timeout=60_000)
        if state["game"]["phase"] == "moving":
            break
        page.click("[data-act=roll]")
        wait_match(page, f"!({MY_ROLL})", timeout=60_000)
    page.click("[data-act=hint]")
    page.locator(".hint-play").first.wait_for(timeout=60_000)
    page.locator(".hint-play").first.click()
    s.shot(page, "hint", full=True)


def match_end(s: Shooter) -> None:
    """The match-end dialog of a 1-point match against the computer, its analysis in."""
    page = s.page()
    bot_match(page, length=1)
    page.wait_for_selector("[data-act=resign]:not([disabled])")
    page.click("[data-act=resign]")
    page.locator("dialog[open] input[name=level][value='2']").check()
    page.locator("dialog[open] button[data-value=offer]").click()
    page.locator("dialog.over-dialog [data-analysis=done]").wait_for(timeout=180_000)
    s.shot(page, "match-end")


def reviewed_match(s: Shooter, viewport: dict[str, int] | None = None) -> Any:
    """A page on the review of a 1-point match against the computer played out."""
    from tests.client.test_review import play_to_the_end

    page = s.page(viewport=viewport)
    bot_match(page, length=1)
    play_to_the_end(page)
    s.go(page, f"#/review/{page.url.rsplit('/', 1)[1]}")
    page.wait_for_selector(".review-status [data-status=done]", timeout=180_000)
    return page


def review(s: Shooter) -> None:
    """The review page of a 1-point match against the computer played out, at a marked
    play."""
    page = reviewed_match(s)
    marked = page.locator(".wc-point.blunder, .wc-point.error")
    (marked if marked.count() else page.locator(".wc-point")).first.click()
    page.locator(".rv-plays li:not(.muted)").first.wait_for()
    s.shot(page, "review", full=True)


def review_best_play(s: Shooter) -> None:
    """The review at the worst play of a match: the play made (blue) and the engine's best
    (amber, dashed) drawn on the board, the engine's plays listed beside it."""
    page = reviewed_match(s, viewport={"width": 1366, "height": 860})
    worst = page.evaluate("""(() => { const p = window.gammon.app.page; let at = -1;
        p.rated.forEach((r, i) => { if (r.checker && r.checker.played
            && (at < 0 || r.checker.loss > p.rated[at].checker.loss)) at = i; });
        return at; })()""")
    page.evaluate(f"window.gammon.app.page.show({worst})")
    page.wait_for_selector(".layer-last .compare-play .last-arrow", state="attached")
    s.shot(page, "review-best-play")


def tournament(s: Shooter) -> None:
    """A knockout of the server's five bots played out (1-point matches): the tournament
    page with its bracket (three byes to the top seeds), the champion and the results."""
    page = s.page()
    register(page, "Tess")
    s.go(page, "#/tournaments")
    form = page.locator("[data-form=tournament]")
    form.locator("[name=name]").fill("Friday cup")
    form.locator("[name=length]").fill("1")
    page.click("[data-act=create-tournament]")
    page.wait_for_url("**/#/tournaments/*")
    for level in range(1, 6):
        page.select_option("[data-part=bots] select", str(level))
        page.click("[data-act=add-bot]")
        page.wait_for_function(f"document.querySelectorAll('[data-entry]').length === {level}")
    page.click("[data-act=start]")
    page.wait_for_selector("[data-part=champion]", timeout=300_000)
    s.shot(page, "tournament")


def pool(s: Shooter) -> None:
    """The lobby's Play now card of a second player while a first waits in the pool of a
    7-point match with the Polish clock: the pool's count, the form still theirs."""
    waiting = s.page()
    choose(waiting, length="7", clock="polish")
    waiting.select_option("[data-form=play-now] [name=bot_after]", "")  # no bot comes
    waiting.click("[data-act=play-now]")
    waiting.wait_for_selector("[data-seek=waiting]:not([hidden])")
    page = s.page()
    choose(page, length="7", clock="polish")
    page.wait_for_selector("[data-pool='match-7-polish-false']")
    page.wait_for_function("document.querySelector('[data-waiting-here]').textContent"
                           " === '1 player waiting for this game'")
    s.shot(page, "pool")
    waiting.click("[data-act=cancel-seek]")


def profile(s: Shooter) -> None:
    """A player's profile after eight rated matches, each analysed: the rating and the
    error rate over time (stored as the matches' ends and analyses store them), the results
    and the opponent."""
    ratings = [1500.0, 1512.4, 1526.1, 1517.8, 1533.0, 1548.7, 1541.2, 1556.9, 1570.3]
    rated_player(s.base, s.workdir, "Viola", list(itertools.pairwise(ratings)),
                 error_rates=[14.2, 12.8, 13.5, 10.9, 9.7, 10.4, 8.1, 7.6])
    page = s.page("/#/profile/Viola")
    page.wait_for_selector("[data-part=errors] svg.profile-graph")
    s.shot(page, "profile")


# the shots that need nothing before them, for --only
PARTS = {"phone": phone, "phone-taps": phone_taps, "match-end": match_end, "review": review,
         "review-best-play": review_best_play, "hint": hint_panel, "tournament": tournament,
         "pool": pool, "profile": profile}


def main(out: Path, only: list[str] | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, gammon_server(Path(tmp)) as base, \
            chromium() as browser:
        s = Shooter(browser, base, out, Path(tmp))
        if only:
            for name in only:
                PARTS[name](s)
            return

        # two registered players play a rated 1-point match (for the leaderboard), and a
        # 5-point match with the Italian clock
        anna = s.page()
        register(anna, "Anna")
        bela = s.page()
        register(bela, "Bela")
        for length, clock in ((1, "none"), (5, "italian")):
            anna.goto(base + "/#/")
            anna.select_option("[data-form=create] [name=kind]", "match")
            anna.fill("[data-form=create] [name=length]", str(length))
            anna.select_option("[data-form=create] [name=clock]", clock)
            anna.click("[data-act=create]")
            anna.wait_for_url("**/#/match/*")
            match_id = anna.url.rsplit("/", 1)[1]
            bela.goto(base + f"/#/match/{match_id}")
            bela.click(".banner button.primary")
            wait_match(anna, "g.phase !== 'opening'")
            if length == 1:
                first = anna if feed(anna)["game"]["turn"] == feed(anna)["you"] else bela
                first.click("[data-act=resign]")
                first.locator("dialog[open] button[data-value=offer]").click()
                other = bela if first is anna else anna
                other.locator("dialog[open] button[data-value=accept_resign]").click()
                wait_match(anna, "g.phase === 'match_over'")
                for p in (anna, bela):
                    p.keyboard.press("Escape")
        clock_match = match_id

        # a guest creates an open game, so the lobby lists it
        carla = s.page()
        carla.select_option("[data-form=create] [name=kind]", "match")
        carla.fill("[data-form=create] [name=length]", "7")
        carla.select_option("[data-form=create] [name=clock]", "polish")
        carla.click("[data-act=create]")
        carla.wait_for_url("**/#/match/*")
        s.shot(carla, "waiting")

        guest = s.page()
        s.shot(guest, "lobby")
        s.go(guest, "#/signin")
        s.shot(guest, "signin")

        # the board against the computer, a checker under the pointer
        s.go(guest, "#/")
        bot_match(guest)
        for _ in range(10):
            state = wait_match(guest, f"({MY_ROLL}) || ({MY_MOVE})")
            if state["game"]["phase"] == "moving":
                break
            guest.click(".roll-prompt")
            wait_match(guest, f"!({MY_ROLL})")
        source = max(int(k) for k in state["game"]["legal"])
        c = point(guest, source)
        guest.mouse.move(c["x"], c["y"])
        s.shot(guest, "match")
        click_turn(guest)
        state = wait_match(guest, MY_ROLL)
        guest.click("[data-act=resign]")
        guest.locator("dialog[open]").wait_for()
        s.shot(guest, "resign")
        guest.keyboard.press("Escape")

        # the clock match, from Anna's side: both clocks, then a double offered to Bela
        s.go(anna, f"#/match/{clock_match}")
        wait_match(anna, "true")
        mover = anna if feed(anna)["game"]["turn"] == feed(anna)["you"] else bela
        click_turn(mover)
        doubler = bela if mover is anna else anna
        wait_match(doubler, MY_ROLL)
        doubler.click("[data-act=double]")
        taker = mover
        taker.locator("dialog[open]").wait_for()
        s.shot(taker, "cube-offer")
        taker.locator("dialog[open] button[data-value=take]").click()
        wait_match(anna, "g.phase === 'before_roll'")
        s.shot(anna, "clocks")
        spectator = s.page(f"/#/match/{clock_match}")
        wait_match(spectator, "true")
        s.shot(spectator, "spectator")

        # the phone
        s.shot(s.page(viewport=PHONE), "phone-lobby")
        phone(s)
        phone_taps(s)

        # the finished match: history, replay, dice check; the leaderboard; options; Italian
        s.go(anna, "#/history")
        s.shot(anna, "history")
        first_match = anna.locator("tr[data-game]").last.get_attribute("data-game")
        s.go(anna, f"#/replay/{first_match}")
        anna.click("[data-act=next]")
        anna.click("[data-act=next]")
        s.shot(anna, "replay")
        s.go(anna, f"#/fairness/{first_match}")
        anna.wait_for_selector("[data-verdict]")
        s.shot(anna, "fairness")
        s.go(anna, "#/leaderboard")
        s.shot(anna, "leaderboard")
        s.go(anna, "#/options")
        s.shot(anna, "options")
        italian = s.page(locale="it-IT")
        bot_match(italian)
        s.shot(italian, "match-it")
        review(s)
        review_best_play(s)
        match_end(s)
        hint_panel(s)
        tournament(s)
        pool(s)
        profile(s)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=OUT, help=f"default {OUT}")
    parser.add_argument("--only", type=lambda text: text.split(","), metavar="NAME,...",
                        help=f"only these shots, of: {', '.join(PARTS)}")
    args = parser.parse_args()
    unknown = set(args.only or ()) - set(PARTS)
    if unknown:
        parser.error(f"unknown shots {sorted(unknown)}; known: {', '.join(PARTS)}")
    main(args.out, args.only)
