"""A player's own mistakes as a deck of flashcards, scheduled by spaced repetition.

* **The cards** are the puzzles made from the player's own errors (:mod:`gammon.server.puzzles`:
  a source of the puzzle is a decision of theirs, in a match public or private: their deck is
  theirs alone). A card is dealt the first time the deck is read after its puzzle is made,
  due at once.
* **Scheduled by FSRS** through the ``fsrs`` package (FSRS-6 with its published default
  parameters, 90% desired retention, the learning steps of 1 and 10 minutes): a maintained
  implementation of the algorithm Anki uses, rather than one of our own. A right answer is a
  review rated *Good*, a wrong one *Again*; the card's state is stored as the package writes
  it (``Card.to_json``) beside its due time. No fuzz on the intervals: a player is told
  exactly when a card comes back.
* **Due cards first**, the most overdue first; the deck says how many are due, how many
  cards it holds, the streak (the days in a row, to today or yesterday, with a review) and,
  per theme, the cards, those due, and the reviews and right answers.
* **The clock** is injected (``clock``, seconds since the epoch), so the tests can say that
  a card comes back on its due day.
"""

from __future__ import annotations

import asyncio
import csv
import html
import io
import os
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime

import sqlalchemy as sa
from fsrs import Card, Rating, Scheduler
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from gammon import views
from gammon.core.position import Position
from gammon.server.db import deck_cards, deck_reviews, matches, puzzle_sources, puzzles
from gammon.server.hub import ServiceError
from gammon.server.puzzles import Graded, Stored, check_theme, stored_puzzle

SCHEDULER = Scheduler(enable_fuzzing=False)
"""The deck's scheduler: the fsrs package's defaults, without fuzz (see above)."""

Clock = Callable[[], float]


def _when(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def new_card(puzzle_id: int, now: float) -> Card:
    """A card dealt at ``now``, due at once."""
    return Card(card_id=puzzle_id, due=_when(now))


def reviewed(card: Card, right: bool, now: float) -> Card:
    """The card after a review at ``now``: *Good* when the answer was right, else *Again*."""
    after, _ = SCHEDULER.review_card(card, Rating.Good if right else Rating.Again, _when(now))
    return after


def streak(days: set[int], today: int) -> int:
    """The days in a row with a review, counted back from today (or from yesterday, while
    today has none yet). ``days`` and ``today`` are UTC day numbers."""
    day = today if today in days else today - 1
    count = 0
    while day in days:
        count += 1
        day -= 1
    return count


def _mine(user_id: int) -> sa.Select[int]:
    """The ids of the puzzles made from ``user_id``'s own decisions."""
    seat = sa.or_(sa.and_(puzzle_sources.c.player == 0, matches.c.player0 == user_id),
                  sa.and_(puzzle_sources.c.player == 1, matches.c.player1 == user_id))
    return (sa.select(puzzle_sources.c.puzzle_id)
            .join(matches, matches.c.id == puzzle_sources.c.match_id).where(seat).distinct())


class DeckStore:
    """The decks: dealing, the due cards, the reviews, the summary and the export."""

    def __init__(self, engine: AsyncEngine, clock: Clock = time.time) -> None:
        self.engine = engine
        self.clock = clock

    async def _deal(self, conn: AsyncConnection, user_id: int, now: float) -> None:
        """A card for each of the player's puzzles that has none yet."""
        dealt = sa.select(deck_cards.c.puzzle_id).where(deck_cards.c.user_id == user_id)
        new: list[int] = list((await conn.execute(_mine(user_id).where(
            puzzle_sources.c.puzzle_id.not_in(dealt)))).scalars())
        for puzzle_id in new:
            try:
                async with conn.begin_nested():
                    await conn.execute(deck_cards.insert().values(
                        user_id=user_id, puzzle_id=puzzle_id, due=now, reps=0, lapses=0,
                        card=new_card(puzzle_id, now).to_json(), dealt_at=now))
            except IntegrityError:  # dealt meanwhile by another request
                pass

    async def summary(self, user_id: int) -> views.DeckView:
        """The deck as the player sees it (its cards dealt first)."""
        now = self.clock()
        async with self.engine.begin() as conn:
            await self._deal(conn, user_id, now)
            return await self._summary(conn, user_id, now)

    async def _summary(self, conn: AsyncConnection, user_id: int, now: float
                       ) -> views.DeckView:
        cards = (await conn.execute(
            sa.select(deck_cards.c.puzzle_id, deck_cards.c.due, puzzles.c.themes)
            .join(puzzles, puzzles.c.id == deck_cards.c.puzzle_id)
            .where(deck_cards.c.user_id == user_id))).all()
        reviews = (await conn.execute(
            sa.select(deck_reviews.c.puzzle_id, deck_reviews.c.right, deck_reviews.c.at)
            .where(deck_reviews.c.user_id == user_id))).all()
        themes_of = {c.puzzle_id: [t for t in c.themes.split(",") if t] for c in cards}
        themes: dict[str, views.DeckThemeView] = {}
        for c in cards:
            for theme in themes_of[c.puzzle_id]:
                row = themes.setdefault(theme, {"theme": theme, "cards": 0, "due": 0,
                                                "reviews": 0, "right": 0})
                row["cards"] += 1
                row["due"] += c.due <= now
        for r in reviews:
            for theme in themes_of.get(r.puzzle_id, []):
                themes[theme]["reviews"] += 1
                themes[theme]["right"] += bool(r.right)
        today = int(now // 86400)
        later = [c.due for c in cards if c.due > now]
        return {"cards": len(cards), "due": sum(c.due <= now for c in cards),
                "next_due": min(later) if later else None,
                "streak": streak({int(r.at // 86400) for r in reviews}, today),
                "reviewed_today": sum(int(r.at // 86400) == today for r in reviews),
                "themes": sorted(themes.values(), key=lambda t: (-t["cards"], t["theme"]))}

    async def next(self, user_id: int, theme: str | None) -> tuple[Stored, views.DeckView]:
        """The most overdue card of the deck (of ``theme``, when given) and the deck;
        ``nothing_due`` when no card is due."""
        check_theme(theme)
        now = self.clock()
        where = [deck_cards.c.user_id == user_id, deck_cards.c.due <= now]
        if theme is not None:
            where.append(puzzles.c.themes.like(f"%,{theme},%"))
        async with self.engine.begin() as conn:
            await self._deal(conn, user_id, now)
            row = (await conn.execute(
                sa.select(puzzles).join(deck_cards, deck_cards.c.puzzle_id == puzzles.c.id)
                .where(*where).order_by(deck_cards.c.due, puzzles.c.id).limit(1))).first()
            if row is None:
                raise ServiceError("nothing_due", "no card of your deck is due now"
                                   + ("" if theme is None else f" of the theme {theme}"))
            return stored_puzzle(row), await self._summary(conn, user_id, now)

    async def get(self, user_id: int, puzzle_id: int) -> Stored:
        """A puzzle of the player's deck, or ``not_found``."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                sa.select(puzzles).join(deck_cards, deck_cards.c.puzzle_id == puzzles.c.id)
                .where(deck_cards.c.user_id == user_id, puzzles.c.id == puzzle_id))).first()
        if row is None:
            raise ServiceError("not_found", "no such card in your deck")
        return stored_puzzle(row)

    async def review(self, user_id: int, puzzle_id: int, graded: Graded
                     ) -> tuple[float, views.DeckView]:
        """Record a review of the card at the clock's time: its next due time, and the deck.
        A card may be reviewed before it is due (FSRS counts the time since the last
        review)."""
        now = self.clock()
        async with self.engine.begin() as conn:
            row = (await conn.execute(sa.select(deck_cards).where(
                deck_cards.c.user_id == user_id, deck_cards.c.puzzle_id == puzzle_id)
                .with_for_update())).first()
            if row is None:
                raise ServiceError("not_found", "no such card in your deck")
            card = reviewed(Card.from_json(row.card), graded.right, now)
            due = card.due.timestamp()
            await conn.execute(deck_cards.update().where(
                deck_cards.c.user_id == user_id, deck_cards.c.puzzle_id == puzzle_id).values(
                card=card.to_json(), due=due, reps=row.reps + 1,
                lapses=row.lapses + (not graded.right)))
            await conn.execute(deck_reviews.insert().values(
                user_id=user_id, puzzle_id=puzzle_id, at=now, answer=graded.answer,
                right=graded.right, error=graded.error))
            return due, await self._summary(conn, user_id, now)

    async def _cards(self, user_id: int) -> list[sa.Row[tuple[object, ...]]]:
        """The deck's puzzles with their cards' due time, reviews and lapses, due first."""
        now = self.clock()
        async with self.engine.begin() as conn:
            await self._deal(conn, user_id, now)
            return list((await conn.execute(
                sa.select(puzzles, deck_cards.c.due, deck_cards.c.reps, deck_cards.c.lapses)
                .join(deck_cards, deck_cards.c.puzzle_id == puzzles.c.id)
                .where(deck_cards.c.user_id == user_id)
                .order_by(deck_cards.c.due, puzzles.c.id))).all())

    async def export(self, user_id: int) -> str:
        """The deck as CSV: one card a line (question, position, context, dice, the best
        answer, the error made, themes, due date, reviews, lapses)."""
        rows = await self._cards(user_id)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["puzzle", "question", "position_id", "match_id", "dice", "best",
                         "error", "themes", "due", "reviews", "lapses"])
        for row in rows:
            stored = stored_puzzle(row)
            writer.writerow([
                row.id, row.kind, row.position_id, row.match_id, row.dice, stored.puzzle.best,
                f"{row.error:.4f}", " ".join(stored.puzzle.themes),
                _when(row.due).isoformat(timespec="minutes"), row.reps,
                row.lapses])
        return out.getvalue()

    async def anki(self, user_id: int) -> bytes:
        """The deck as an Anki package (.apkg), written by the ``genanki`` package (a
        maintained writer of Anki's collection format): a note a card, its front the
        question, the board as text (X on roll) and the context, its back the best answer
        and the graded answers; each note's GUID follows from its puzzle, so importing the
        deck again updates its notes instead of doubling them."""
        rows = await self._cards(user_id)
        return await asyncio.to_thread(_anki_package, user_id, [stored_puzzle(r) for r in rows])


_ANKI_MODEL_ID = 1_733_000_001  # Anki's note type and deck ids: fixed, so imports update
_ANKI_DECK_ID = 1_733_000_002


def _anki_package(user_id: int, cards: list[Stored]) -> bytes:
    import genanki

    from gammon.formats.match_id import MatchKey
    from gammon.formats.text_board import draw

    model = genanki.Model(
        _ANKI_MODEL_ID, "gammon mistake",
        fields=[{"name": "Question"}, {"name": "Board"}, {"name": "Context"},
                {"name": "Best"}, {"name": "Answers"}],
        templates=[{"name": "Card",
                    "qfmt": "<p>{{Question}}</p><pre>{{Board}}</pre><p>{{Context}}</p>",
                    "afmt": "{{FrontSide}}<hr id=answer><p><b>{{Best}}</b></p>{{Answers}}"}])
    deck = genanki.Deck(_ANKI_DECK_ID + user_id, "gammon: my mistakes")
    for stored in cards:
        puzzle = stored.puzzle
        position = Position.from_id(puzzle.position_id)
        key = MatchKey.from_id(puzzle.match_id)
        question = {"checker": f"X to play {puzzle.dice[0]}-{puzzle.dice[1]}",
                    "double": "X to roll: double or not?",
                    "take": "O doubles X: take or pass?"}[puzzle.kind]
        context = ("money game" if not key.match_length else
                   f"{key.match_length}-point match, X {key.score[0]} - O {key.score[1]}"
                   + (", Crawford" if key.crawford else "")) + f", cube {key.cube}"
        answers = "".join(f"<tr><td>{html.escape(a.text)}</td><td>{a.equity:+.3f}</td></tr>"
                          for a in puzzle.answers)
        deck.add_note(genanki.Note(
            model=model, guid=genanki.guid_for("gammon-puzzle", stored.id),
            fields=[question, html.escape(draw(position)), context, html.escape(puzzle.best),
                    f"<table>{answers}</table>"], tags=list(puzzle.themes)))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "deck.apkg")
        genanki.Package(deck).write_to_file(path)
        with open(path, "rb") as handle:
            return handle.read()
