"""``/api/deck``: a player's own mistakes as flashcards (:mod:`gammon.server.deck`): the deck,
the most overdue card, a review of it (graded as a puzzle's answer is, then scheduled by
FSRS), and the deck as CSV."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from gammon import views
from gammon.server.protocol import PuzzleAnswer
from gammon.server.routes.deps import DeckDep, LimiterDep, Player, limit, returns
from gammon.server.routes.puzzles import PuzzleId, Theme, grade_answer

router = APIRouter(prefix="/api/deck", tags=["deck"])


@router.get("", **returns("deck"))
async def deck(user: Player, store: DeckDep) -> views.DeckView:
    """The player's deck: its cards, those due, the streak, each theme's progress."""
    return await store.summary(user.id)


@router.get("/next", **returns("deck_next"))
async def next_card(user: Player, store: DeckDep, theme: Theme = None) -> views.DeckNextView:
    """The most overdue card (of ``theme``), or 404 ``nothing_due``; with the deck."""
    stored, summary = await store.next(user.id, theme)
    return {"puzzle": stored.view(), "deck": summary}


@router.post("/{puzzle_id}/review", **returns("deck_review"))
async def review(puzzle_id: PuzzleId, body: PuzzleAnswer, request: Request, user: Player,
                 store: DeckDep, limiter: LimiterDep) -> views.DeckReviewView:
    """Answer a card of the deck: graded, then scheduled again (right: *Good*, wrong:
    *Again*); the puzzle's rating is not moved by the deck."""
    await limit(request, limiter, "puzzle", 120, 30)
    puzzle = (await store.get(user.id, puzzle_id)).puzzle
    graded = await grade_answer(puzzle, body)
    due, summary = await store.review(user.id, puzzle_id, graded)
    return {"puzzle": puzzle_id, "answer": graded.answer, "right": graded.right,
            "error": round(graded.error, 4), "graded_by": graded.graded_by,
            "best": puzzle.best,
            "top": [{"answer": a.text, "equity": round(a.equity, 4)} for a in puzzle.answers],
            "due": due, "deck": summary}


@router.get("/export.apkg", response_class=Response)
async def anki(user: Player, store: DeckDep) -> Response:
    """The deck as an Anki package: a note a card (the board as text)."""
    return Response(await store.anki(user.id), media_type="application/octet-stream",
                    headers={"content-disposition": 'attachment; filename="gammon-deck.apkg"'})


@router.get("/export.csv", response_class=PlainTextResponse)
async def export(user: Player, store: DeckDep) -> PlainTextResponse:
    """The deck as CSV, one card a line."""
    return PlainTextResponse(await store.export(user.id), media_type="text/csv",
                             headers={"content-disposition":
                                      'attachment; filename="gammon-deck.csv"'})
