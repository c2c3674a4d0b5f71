"""A player's deck of their own mistakes (gammon.server.deck), on both stores: the puzzles made
from the player's decisions (a private match's too) are dealt as cards, due at once, and no
one else's; a review is graded as a puzzle's answer and scheduled by FSRS (the fsrs
package), so that with the clock moved on a card comes back on its due day and not before;
the streak and each theme's progress; the export; bad input changes nothing."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import sqlite3
import tempfile
import zipfile
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from fsrs import Card, Rating, Scheduler, State

from gammon.core.position import Position
from gammon.engine.puzzles import Answer, Puzzle, Source
from gammon.formats.match_id import MatchKey
from gammon.server import deck
from gammon.server.app import create_app
from gammon.server.db import deck_cards, deck_reviews, make_engine
from gammon.server.puzzles import store_puzzles
from tests.server.conftest import Browser, make_settings, run_async
from tests.server.test_puzzles import TAKE, refused, rows, valid

DAY = 86400.0
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC).timestamp()


class Clock:
    """The deck's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


def test_fsrs_schedules_as_its_papers_say() -> None:
    """The facts of FSRS the deck relies on, from the package itself: a new card answered
    right goes through the learning steps (1, then 10 minutes) to a review interval equal to
    its stability in days (at 90% retention, the interval at which recall falls to 90%); a
    review card answered wrong goes back to relearning, due in 10 minutes, with a lower
    stability; the deck's `reviewed` is the package's review, Good or Again."""
    now = START
    card = deck.new_card(7, now)
    assert card.state is State.Learning and card.due.timestamp() == now
    card = deck.reviewed(card, True, now)
    assert card.state is State.Learning and card.due.timestamp() == pytest.approx(now + 600)
    now += 600
    card = deck.reviewed(card, True, now)
    assert card.state is State.Review
    assert card.stability is not None
    days = (card.due.timestamp() - now) / DAY
    assert days == round(card.stability) or days == max(1, round(card.stability))
    reference, _ = Scheduler(enable_fuzzing=False).review_card(
        deck.reviewed(deck.new_card(7, START), True, START), Rating.Good,
        datetime.fromtimestamp(START + 600, UTC))
    assert reference.to_dict() == card.to_dict()
    stability = card.stability
    now = card.due.timestamp()
    lapsed = deck.reviewed(card, False, now)
    assert lapsed.state is State.Relearning
    assert lapsed.due.timestamp() == pytest.approx(now + 600)
    assert lapsed.stability is not None and lapsed.stability < stability
    assert Card.from_json(lapsed.to_json()).to_dict() == lapsed.to_dict()


def test_a_streak_counts_the_days_in_a_row_to_today_or_yesterday() -> None:
    assert deck.streak(set(), 100) == 0
    assert deck.streak({100}, 100) == 1
    assert deck.streak({98, 99}, 100) == 2  # none yet today: the streak still stands
    assert deck.streak({97, 99, 100}, 100) == 2
    assert deck.streak({97, 98}, 100) == 0


def opening(player: int, match_length: int = 3) -> Puzzle:
    return Puzzle("checker", Position.initial().id(),
                  MatchKey(match_length=match_length, dice=(3, 1)).id(), "31",
                  (Answer("8/5 6/5", 0.2), Answer("24/23 13/10", 0.0)), 0.2, "2-ply", 2,
                  ("opening",), (Source(1, 1, player, "24/23 13/10", 0.2),))


def test_the_deck_deals_my_mistakes_and_brings_each_back_on_its_due_day(
        database_url: str, redis_url: str) -> None:
    clock = Clock()
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        client.app.state.deck.clock = clock  # type: ignore[attr-defined]
        ann, bob = Browser(client), Browser(client)
        shown = ann.post("/api/games", json={"kind": "match", "length": 3}).json()
        hidden = ann.post("/api/games", json={"kind": "single", "private": True}).json()
        assert bob.post(f"/api/games/{shown['id']}/join", json={}).status_code == 200

        async def store() -> None:
            engine = make_engine(database_url)
            async with engine.begin() as conn:
                # ann's error in the public match (seat 0), bob's (seat 1), ann's in private
                await store_puzzles(conn, shown["id"], [opening(0), take_by(1)])
                await store_puzzles(conn, hidden["id"], [opening(0, match_length=5)])
            await engine.dispose()

        run_async(store)

        mine = valid("deck", ann.get("/api/deck"))
        assert (mine["cards"], mine["due"], mine["streak"], mine["next_due"]) == (2, 2, 0, None)
        assert mine["themes"] == [{"theme": "opening", "cards": 2, "due": 2, "reviews": 0,
                                   "right": 0}]
        theirs = valid("deck", bob.get("/api/deck"))
        assert (theirs["cards"], [t["theme"] for t in theirs["themes"]]) == (
            1, ["opening", "take-point"])
        fresh = Browser(client)
        assert valid("deck", fresh.get("/api/deck"))["cards"] == 0
        refused(fresh.get("/api/deck/next"), 404, "nothing_due")

        # the private match's card is ann's to play on, not bob's
        first = valid("deck_next", ann.get("/api/deck/next"))
        ids = {r.puzzle_id for r in rows(database_url, deck_cards)
               if r.user_id == user_id(ann)}
        assert first["puzzle"]["id"] in ids
        private = max(ids)  # stored last
        steps = {"steps": [{"from": 8, "die": 3}, {"from": 6, "die": 1}]}
        assert valid("puzzle_steps", ann.post(f"/api/puzzles/{private}/steps",
                                               json=steps))["play"] == "8/5 6/5"
        refused(bob.post(f"/api/puzzles/{private}/steps", json=steps), 404, "not_found")
        refused(bob.post(f"/api/deck/{private}/review", json={"play": "8/5 6/5"}), 404,
                "not_found")
        refused(ann.get("/api/deck/next?theme=nonsense"), 422, "bad_input")
        refused(ann.get("/api/deck/next?theme=race"), 404, "nothing_due")
        refused(ann.post(f"/api/deck/{private}/review", json={"play": "24/18 24/18"}), 422,
                "illegal_answer")
        refused(ann.post(f"/api/deck/{private}/review", json={}), 422, "bad_input")
        assert rows(database_url, deck_reviews) == []

        # right: back in 10 minutes (a learning step), then after a day or more
        card = private
        done = valid("deck_review", ann.post(f"/api/deck/{card}/review",
                                             json={"play": "6/5 8/5"}))
        assert (done["right"], done["answer"], done["error"]) == (True, "8/5 6/5", 0.0)
        assert done["due"] == pytest.approx(clock.now + 600)
        assert done["deck"]["due"] == 1 and done["deck"]["streak"] == 1
        assert done["deck"]["reviewed_today"] == 1
        clock.now += 601
        again = valid("deck_next", ann.get("/api/deck/next"))
        assert again["puzzle"]["id"] != card  # the other card is more overdue
        other = again["puzzle"]["id"]
        wrong = valid("deck_review", ann.post(f"/api/deck/{other}/review",
                                              json={"play": "24/23 13/10"}))
        assert (wrong["right"], wrong["error"]) == (False, 0.2)
        graduated = valid("deck_review", ann.post(f"/api/deck/{card}/review",
                                                  json={"play": "8/5 6/5"}))
        due = graduated["due"]
        assert due - clock.now >= DAY
        # the wrong one is back in minutes; the right one not before its day
        clock.now += 700
        assert valid("deck_next", ann.get("/api/deck/next"))["puzzle"]["id"] == other
        valid("deck_review", ann.post(f"/api/deck/{other}/review", json={"play": "8/5 6/5"}))
        clock.now += 700
        valid("deck_review", ann.post(f"/api/deck/{other}/review", json={"play": "8/5 6/5"}))
        summary = valid("deck", ann.get("/api/deck"))
        assert summary["due"] == 0 and summary["next_due"] is not None
        refused(ann.get("/api/deck/next"), 404, "nothing_due")
        progress = summary["themes"][0]
        assert (progress["reviews"], progress["right"]) == (5, 4)
        assert due >= summary["next_due"]

        # the streak: reviews on the third and fourth days (none on the second)
        clock.now = START + 2 * DAY
        valid("deck_review", ann.post(f"/api/deck/{card}/review", json={"play": "8/5 6/5"}))
        assert valid("deck", ann.get("/api/deck"))["streak"] == 1  # day 1 had none
        clock.now = START + 3 * DAY
        valid("deck_review", ann.post(f"/api/deck/{card}/review", json={"play": "8/5 6/5"}))
        assert valid("deck", ann.get("/api/deck"))["streak"] == 2

        # the export: one line a card, the best answer and the error made
        response = ann.get("/api/deck/export.csv")
        assert response.status_code == 200 and "text/csv" in response.headers["content-type"]
        table = list(csv.DictReader(io.StringIO(response.text)))
        assert len(table) == 2
        assert {r["best"] for r in table} == {"8/5 6/5"}
        assert {r["themes"] for r in table} == {"opening"}
        assert all(int(r["reviews"]) >= 2 for r in table)
        by_puzzle = {int(r["puzzle"]): r for r in table}
        assert by_puzzle[other]["lapses"] == "1" and by_puzzle[card]["lapses"] == "0"

        # the Anki package: Anki's own collection (SQLite in a zip), a note a card, the
        # best answer on its back and the board as text; the same notes (GUIDs) each time
        notes = anki_notes(ann.get("/api/deck/export.apkg"))
        assert len(notes) == 2
        for _, fields, tags in notes:
            question, board, context, best, answers = fields.split("\x1f")
            assert question == "X to play 3-1" and best == "8/5 6/5" and "13-14-15" in board
            assert context in ("3-point match, X 0 - O 0, cube 1",
                               "5-point match, X 0 - O 0, cube 1")
            assert tags.split() == ["opening"] and "24/23 13/10" in answers
        assert {n[0] for n in anki_notes(ann.get("/api/deck/export.apkg"))} == \
            {n[0] for n in notes}


def anki_notes(response: Any) -> list[tuple[str, str, str]]:
    """The notes (GUID, fields, tags) of an Anki package, read as Anki stores them."""
    assert response.status_code == 200, response.text
    with zipfile.ZipFile(io.BytesIO(response.content)) as package, \
            tempfile.TemporaryDirectory() as folder:
        package.extract("collection.anki2", folder)
        with contextlib.closing(sqlite3.connect(f"{folder}/collection.anki2")) as db:
            return [(g, f, t) for g, f, t in db.execute("SELECT guid, flds, tags FROM notes")]


def take_by(player: int) -> Puzzle:
    """The take of tests/server/test_puzzles.py, its source a decision of ``player``."""
    return dataclasses.replace(TAKE, sources=(Source(1, 2, player, "drop", 1.21),))


def user_id(who: Browser) -> int:
    return int(who.get("/api/me").json()["user"]["id"])


def test_a_card_is_due_again_exactly_on_its_day(database_url: str, redis_url: str) -> None:
    """The store alone, with an injected clock: a card answered right twice graduates; it is
    not due a minute before its due time and is due at it."""
    clock = Clock()
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        ann = Browser(client)
        game = ann.post("/api/games", json={"kind": "single"}).json()
        user = user_id(ann)

        async def run() -> tuple[bool, bool, float]:
            engine = make_engine(database_url)
            async with engine.begin() as conn:
                await store_puzzles(conn, game["id"], [opening(0)])
            store = deck.DeckStore(engine, clock)
            stored, _ = await store.next(user, None)
            graded = deck_graded()
            await store.review(user, stored.id, graded)
            clock.now += 600
            due, _ = await store.review(user, stored.id, graded)
            clock.now = due - 60
            before = (await store.summary(user))["due"] == 1
            clock.now = due
            at = (await store.summary(user))["due"] == 1
            async with engine.connect() as conn:
                count = (await conn.execute(
                    sa.select(sa.func.count()).select_from(deck_reviews))).scalar_one()
            await engine.dispose()
            return before, at, float(count)

        before, at, count = run_async(run)
        assert (before, at, count) == (False, True, 2.0)


def deck_graded() -> deck.Graded:
    return deck.Graded("8/5 6/5", True, 0.0, "2-ply")


