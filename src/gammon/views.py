"""Every JSON view of the system, in one place: the shapes the command line prints, the HTTP
API returns and the WebSocket sends (PROTOCOL.md).

Each view is a :class:`~typing_extensions.TypedDict` — a plain ``dict`` at run time, so
building one costs what building a dict costs and any JSON encoder writes it, while mypy
checks every place that builds one — and a function that builds it from the core's or the
engine's values:

* the engine's answers: :func:`probabilities_view`, :func:`ranked_play_view` (``gammon hint
  --json``, ``POST /api/hint``), :func:`cube_view` (``gammon cube --json``, ``POST
  /api/eval``'s ``cube``), :func:`analysis_view` (``gammon analyze --format json``, ``GET
  /api/games/{id}/analysis``), :func:`puzzle_view` and the answer's verdict
  (``/api/puzzles``);
* a match as a client sees it: :func:`game_view` (the ``game`` of ``state`` and ``update``),
  :func:`clock_view`, :func:`event_view` (every event of an ``update``, with its version),
  :func:`info_view` and :func:`seat_view` (``info``), :func:`result_view`;
* a match's settings: :class:`MatchConfig` (what the creator chose, checked where it is
  made; :func:`config_view` is its stored form) and :func:`rules_view` (the core rules it
  is played under).

The server's message envelopes (``state``, ``update``, ``error``, …) are in
:mod:`gammon.server.protocol`, which also holds the pydantic validators and JSON schemas of
all of these (PROTOCOL.md and the OpenAPI document are checked against them). This module
imports only the core (and the engine's types for checking): the command line uses it
without the web stack.

>>> from gammon.core.events import DiceRolled
>>> from gammon.core.dice import Roll
>>> event_view(DiceRolled(0, Roll(3, 1)), v=7)
{'type': 'dice_rolled', 'player': 0, 'roll': [3, 1], 'v': 7}
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, NotRequired, Protocol, TypeAlias, cast, get_args

from typing_extensions import TypedDict

from gammon.core.cube import Level
from gammon.core.dice import Roll
from gammon.core.events import Event, TurnEnded
from gammon.core.match import Phase
from gammon.core.moves import Move
from gammon.core.notation import format_play
from gammon.formats.match_id import match_key

if TYPE_CHECKING:
    from gammon.core.clock import Clock
    from gammon.core.game import Game, Rules
    from gammon.core.match import Match
    from gammon.core.position import Position
    from gammon.engine.analysis import Analysis
    from gammon.engine.cube import CubeDecision, Outcomes, ResignDecision, TakeDecision
    from gammon.engine.player import Engine, Probabilities, RankedPlay
    from gammon.engine.puzzles import Puzzle
    from gammon.formats.match_id import MatchKey

PROBABILITIES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
"""The five cubeless probabilities, in the engine's order, as named in every JSON view."""

ENGINE_DIGITS = 4
"""Decimals of the engine's numbers in the HTTP API (``/api/hint``, ``/api/eval``)."""
CLI_DIGITS = 6
"""Decimals of the engine's numbers the command line prints."""


# -- the engine's answers -------------------------------------------------------------------


class ProbabilitiesView(TypedDict):
    """The five cubeless probabilities of the side to play (gammons include backgammons)."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float


class RankedPlayView(TypedDict):
    """One legal play, ranked by the engine: ``moves`` its checkers' moves (as a
    ``turn_ended`` event lists them), ``position_id`` the position after it seen from the
    opponent, ``ply`` the depth its evaluation comes from."""

    play: str
    moves: list[MoveView]
    position_id: str
    equity: float
    ply: int
    probabilities: ProbabilitiesView


def probabilities_view(p: Probabilities, digits: int = ENGINE_DIGITS) -> ProbabilitiesView:
    w, wg, wbg, lg, lbg = p.as_tuple()
    return {"win": round(w, digits), "win_gammon": round(wg, digits),
            "win_backgammon": round(wbg, digits), "lose_gammon": round(lg, digits),
            "lose_backgammon": round(lbg, digits)}


def ranked_play_view(ranked: RankedPlay, digits: int = ENGINE_DIGITS) -> RankedPlayView:
    """One ranked play: the same shape for ``gammon hint --json`` (``digits`` 6) and
    ``POST /api/hint`` (4)."""
    return {"play": ranked.play.notation(), "moves": [_value(m) for m in ranked.play.moves],
            "position_id": ranked.play.position.swap().id(),
            "equity": round(ranked.equity, digits), "ply": ranked.ply,
            "probabilities": probabilities_view(ranked.probabilities, digits)}


class HintView(TypedDict):
    """``POST /api/hint``: every legal play, best first."""

    engine: str
    plies: int
    plays: list[RankedPlayView]


class OutcomesView(TypedDict):
    """The cube views' cubeless probabilities, with their cubeless equity."""

    win: float | None
    win_gammon: float | None
    win_backgammon: float | None
    lose_gammon: float | None
    lose_backgammon: float | None
    equity: float | None


class DecisionEquities(TypedDict):
    no_double: float | None
    double_take: NotRequired[float | None]
    double_pass: NotRequired[float | None]
    double_beaver: NotRequired[float | None]
class DecisionMwc(TypedDict):
    no_double: float | None
    double_take: NotRequired[float | None]
    double_pass: NotRequired[float | None]


class CubeDecisionView(TypedDict):
    """The side on roll's cube action before it rolls."""

    action: Literal["no-double", "double-take", "double-pass", "too-good-take",
                    "too-good-pass"]
    player: int
    equities: DecisionEquities
    mwc: NotRequired[DecisionMwc]
    response: Literal["take", "pass", "beaver"] | None
    cube_available: bool
    reason: str | None
    probabilities: OutcomesView
    take_point: float | None
    ply: int | None
    efficiency: float
    cube: str


TakeEquities = TypedDict("TakeEquities", {"take": float | None, "pass": float | None,
                                          "beaver": NotRequired[float | None]})
TakeMwc = TypedDict("TakeMwc", {"take": float | None, "pass": float | None})


class TakeDecisionView(TypedDict):
    """The answer to a double: take, pass or beaver."""

    action: Literal["take", "pass", "beaver"]
    player: int
    equities: TakeEquities
    mwc: NotRequired[TakeMwc]
    probabilities: OutcomesView
    take_point: float | None
    ply: int | None
    efficiency: float
    cube: str


class ResignEquities(TypedDict):
    accept: float | None
    play_on: float | None


class ResignDecisionView(TypedDict):
    """The answer to a resignation: accept or reject."""

    action: Literal["accept", "reject"]
    player: int
    level: str
    equities: ResignEquities
    probabilities: OutcomesView
    ply: int | None
    efficiency: float
    cube: str


CubeView: TypeAlias = CubeDecisionView | TakeDecisionView | ResignDecisionView
"""What ``gammon cube --json`` prints and ``POST /api/eval`` gives as ``cube``."""


class EvalView(TypedDict):
    """``POST /api/eval``: the side on roll's chances before it rolls."""

    engine: str
    plies: int
    position_id: str
    probabilities: ProbabilitiesView
    equity: float
    pips: list[int]
    pip_lead: int
    race: bool
    cube: NotRequired[CubeView]


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, CLI_DIGITS)


def outcomes_view(p: Outcomes, *, swap: bool = False) -> OutcomesView:
    """Cubeless probabilities and equity of a cube view (``swap``: the other side's)."""
    values = (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon)
    if swap:
        values = (1.0 - p.win, p.lose_gammon, p.lose_backgammon, p.win_gammon,
                  p.win_backgammon)
    w, wg, wbg, lg, lbg = values
    return {"win": _r(w), "win_gammon": _r(wg), "win_backgammon": _r(wbg),
            "lose_gammon": _r(lg), "lose_backgammon": _r(lbg),
            "equity": _r(2 * w - 1 + wg - lg + wbg - lbg)}


def take_point(d: CubeDecision) -> float | None:
    """The take point of the receiver of a double in the decision ``d`` of the side on
    roll: the least winning chance at which the receiver does as well taking as passing, at
    this score and cube (None where the side on roll may not double).

    The engine has no take-point function of its cubeful valuation (the live-cube take and
    cash points inside :mod:`gammon.engine.cubeful` leave out the cube efficiency that
    weighs them against the dead cube): this is the win chance at which
    :func:`~gammon.engine.cube.cube_decision` values double/take and double/pass the same,
    the decision's gammon and backgammon ratios and cube efficiency held, found by
    bisection on the doubler's win chance (double/take grows with it)."""
    from gammon.engine.cube import cube_decision
    from gammon.engine.evaluator import Probabilities

    if d.double_take is None:
        return None
    p = d.probabilities
    won = p.win if p.win > 0 else 1.0
    lost = 1.0 - p.win if p.win < 1 else 1.0
    ratios = (p.win_gammon / won, p.win_backgammon / won, p.lose_gammon / lost,
              p.lose_backgammon / lost)

    def take_beats_pass(win: float) -> bool:
        """Whether taking is the receiver's better answer at the doubler's ``win``."""
        wg, wbg, lg, lbg = ratios
        c = cube_decision(Probabilities(win, win * wg, win * wbg, (1 - win) * lg,
                                        (1 - win) * lbg), d.info, efficiency=d.efficiency)
        assert c.double_take is not None and c.double_pass is not None
        return c.double_take < c.double_pass

    low, high = 0.0, 1.0
    for _ in range(32):
        middle = (low + high) / 2
        if take_beats_pass(middle):
            low = middle
        else:
            high = middle
    return 1.0 - (low + high) / 2


def cube_decision_view(d: CubeDecision, *, player: int) -> CubeDecisionView:
    equities: DecisionEquities = {"no_double": _r(d.no_double)}
    if d.double_take is not None:
        equities["double_take"] = _r(d.double_take)
        equities["double_pass"] = _r(d.double_pass)
        if d.double_beaver is not None:
            equities["double_beaver"] = _r(d.double_beaver)
    answer: dict[str, object] = {"action": str(d.action), "player": player,
                                 "equities": equities}
    if d.mwc_no_double is not None:
        mwc: DecisionMwc = {"no_double": _r(d.mwc_no_double)}
        if d.mwc_double_take is not None:
            mwc["double_take"] = _r(d.mwc_double_take)
            mwc["double_pass"] = _r(d.mwc_double_pass)
        answer["mwc"] = mwc
    answer.update({
        "response": None if d.response is None else str(d.response),
        "cube_available": d.double_take is not None,
        "reason": d.reason,
        "probabilities": outcomes_view(d.probabilities),
        "take_point": _r(take_point(d)),
        "ply": d.plies,
        "efficiency": d.efficiency,
        "cube": d.info.describe(),
    })
    return cast(CubeDecisionView, answer)


def take_decision_view(t: TakeDecision, *, player: int) -> TakeDecisionView:
    equities: TakeEquities = {"take": _r(t.take), "pass": _r(t.pass_)}
    if t.beaver is not None:
        equities["beaver"] = _r(t.beaver)
    answer: dict[str, object] = {"action": str(t.response), "player": player,
                                 "equities": equities}
    if t.mwc_take is not None:
        answer["mwc"] = TakeMwc({"take": _r(t.mwc_take), "pass": _r(t.mwc_pass)})
    d = t.doubler
    answer.update({
        "probabilities": outcomes_view(d.probabilities, swap=True),
        "take_point": _r(take_point(d)),
        "ply": d.plies,
        "efficiency": d.efficiency,
        "cube": d.info.swap().describe(),
    })
    return cast(TakeDecisionView, answer)


def resign_decision_view(r: ResignDecision, *, player: int) -> ResignDecisionView:
    d = r.decision
    return {
        "action": "accept" if r.accept else "reject",
        "player": player,
        "level": str(r.level),
        "equities": {"accept": _r(r.accept_equity), "play_on": _r(r.play_on_equity)},
        "probabilities": outcomes_view(d.probabilities, swap=not r.receiver_on_roll),
        "ply": d.plies,
        "efficiency": d.efficiency,
        "cube": (d.info if r.receiver_on_roll else d.info.swap()).describe(),
    }


def analyse_match_key(engine: Engine, position: Position, key: MatchKey, *, plies: int = 0,
                      beavers: bool = False) -> tuple[str, Any]:
    """The decision a GNU Backgammon Match ID asks for, analysed: ``("cube",
    CubeDecision)`` for the side on roll before it rolls, ``("take", TakeDecision)`` with a
    double pending, ``("resign", ResignDecision)`` with a resignation pending. The position
    is the dice owner's view."""
    from gammon.engine.cube import (
        CubeInfo,
        analyse_cube,
        analyse_resignation,
        analyse_take,
    )
    from gammon.formats.match_id import Resignation

    info = CubeInfo.from_match_key(key, beavers=beavers and key.is_money())
    if key.double_offered:
        return "take", analyse_take(engine, position, info, plies=plies)
    if key.resignation != Resignation.NONE:
        return "resign", analyse_resignation(engine, position, info,
                                             Level(int(key.resignation)), roll=key.roll,
                                             plies=plies)
    return "cube", analyse_cube(engine, position, info, plies=plies)


def cube_view(engine: Engine, position: Position, key: MatchKey, *, plies: int = 0,
              beavers: bool = False) -> CubeView:
    """The decision a Match ID asks for (:func:`analyse_match_key`), viewed: what ``gammon
    cube --json`` prints and ``POST /api/eval`` gives as ``cube``."""
    kind, result = analyse_match_key(engine, position, key, plies=plies, beavers=beavers)
    doubler = key.dice_owner
    if kind == "cube":
        return cube_decision_view(result, player=doubler)
    if kind == "take":
        return take_decision_view(result, player=1 - doubler)
    return resign_decision_view(result, player=1 - doubler)


Mark: TypeAlias = Literal["", "?", "??"]
"""An analysed decision's mark: ``?`` an error, ``??`` a blunder."""


class AnalysisPlayerView(TypedDict):
    """One player's summary of :class:`gammon.engine.analysis.PlayerSummary`."""

    player: int
    name: str
    decisions: int
    unforced: int
    cube_decisions: int
    errors: int
    blunders: int
    equity_lost: float
    luck: float
    error_rate_mp: float
    performance_rating: float


class AnalysedPlayView(TypedDict):
    """One checker play, rated (:class:`gammon.engine.analysis.CheckerDecision`)."""

    game: int
    move_number: int
    player: int
    position_id: str
    roll: str
    played: str
    best: str
    played_equity: float
    best_equity: float
    forced: bool
    luck: float
    win_chance: float
    match_id: str
    graded_by: str
    match_winning_chance: float | None
    loss: float
    mark: Mark


class AnalysedCubeView(TypedDict):
    """One cube decision, rated (:class:`gammon.engine.analysis.CubeRecord`)."""

    game: int
    move_number: int
    player: int
    position_id: str
    chosen: str
    proper: str
    loss: float
    match_id: str
    mark: Mark


class AnalysisView(TypedDict):
    """The analysis of a match: ``gammon analyze --format json``, and ``GET
    /api/games/{id}/analysis`` once it is done."""

    names: list[str]
    plies: int
    players: list[AnalysisPlayerView]
    decisions: list[AnalysedPlayView]
    cube_decisions: list[AnalysedCubeView]


def _fields(record: Any, left_out: str) -> dict[str, Any]:
    """A record's fields but ``left_out`` (the graded alternatives, which the puzzles read
    from the records and the analysis's JSON does not carry)."""
    return {name: value for name, value in dataclasses.asdict(record).items()
            if name != left_out}


def analysis_view(analysis: Analysis) -> AnalysisView:
    """An analysis as the command line prints it and the server stores and answers it: each
    record's fields, with its loss (4 decimals) and mark, and each player's error rate and
    PR (1 decimal)."""
    return {
        "names": list(analysis.names),
        "plies": analysis.plies,
        "players": [cast(AnalysisPlayerView, {
            **dataclasses.asdict(s), "error_rate_mp": round(s.error_rate, 1),
            "performance_rating": round(s.performance_rating, 1)})
            for s in analysis.summaries()],
        "decisions": [cast(AnalysedPlayView, {
            **_fields(d, "alternatives"), "loss": round(d.loss, 4), "mark": d.mark})
            for d in analysis.decisions],
        "cube_decisions": [cast(AnalysedCubeView, {
            **_fields(c, "options"), "loss": round(c.loss, 4), "mark": c.mark})
            for c in analysis.cube],
    }


# -- puzzles --------------------------------------------------------------------------------

PuzzleKind: TypeAlias = Literal["checker", "double", "take"]
"""What a puzzle asks (:data:`gammon.engine.puzzles.Kind`)."""
CUBE_CHOICES: dict[str, tuple[str, ...]] = {
    "checker": (), "double": ("double", "no double"), "take": ("take", "drop", "beaver")}
"""The answers a cube question may take (``beaver`` only where the puzzle graded one)."""


class PuzzleContextView(TypedDict):
    """A puzzle's context as the player to answer sees it: ``length`` 0 for money play,
    ``score`` [theirs, the opponent's]."""

    length: int
    score: list[int]
    cube: int
    cube_owner: Literal["centred", "you", "opponent"]
    crawford: bool
    jacoby: bool


class PuzzleView(TypedDict):
    """A puzzle, without its answer: ``position_id`` seen from the side on roll (for a take,
    the doubler, as GNU Backgammon writes a pending double), ``match_id`` its context with
    the player to answer as player 0, ``dice`` for a checker play, ``choices`` for a cube
    question; ``rating`` the puzzle's own."""

    id: int
    kind: PuzzleKind
    position_id: str
    match_id: str
    board: list[int]
    """The position as the match page draws it (``GameView.board``), the player to answer
    as player 0."""
    dice: list[int] | None
    choices: list[str]
    context: PuzzleContextView
    themes: list[str]
    rating: float
    attempts: int
    solved: int


class PuzzleStepsView(TypedDict):
    """A checker puzzle's roll played so far (``POST /api/puzzles/{id}/steps``): the board
    after the steps, the dice left, what may move next (as :class:`MovesView`) and, once the
    roll is played whole, the play in the project's notation (else null)."""

    board: list[int]
    dice_left: list[int]
    legal: dict[str, dict[str, int]]
    reach: ReachView
    play: str | None


class PuzzleAnswerView(TypedDict):
    """A graded answer and its equity (EMG at the puzzle's score and cube)."""

    answer: str
    equity: float


class GradedAnswerView(TypedDict):
    """An answer to a puzzle or a card, graded: ``error`` what it loses to the best (0 when
    right), graded by ``graded_by``; ``top`` the graded answers, best first."""

    puzzle: int
    answer: str
    right: bool
    error: float
    graded_by: str
    best: str
    top: list[PuzzleAnswerView]


class PuzzleSourceView(TypedDict):
    """Where the puzzle was met in a public match, and the answer given there."""

    match: str
    game: int
    move_number: int
    played: str
    error: float


class PuzzleRatingView(TypedDict):
    """A player's puzzle rating (Glicko-2)."""

    rating: float
    rd: float
    attempts: int
    solved: int


class NextPuzzleView(TypedDict):
    """``GET /api/puzzles/next``: the puzzle and the player's rating."""

    puzzle: PuzzleView
    rating: PuzzleRatingView


class DeckThemeView(TypedDict):
    """A theme of a player's deck: its cards, those due now, and the reviews of them with
    the right answers among them."""

    theme: str
    cards: int
    due: int
    reviews: int
    right: int


class DeckView(TypedDict):
    """A player's deck of their own mistakes (:mod:`gammon.server.deck`): its cards, those
    due now, when the next one falls due (seconds since the epoch; null when none waits),
    the streak of days with a review, today's reviews, and each theme."""

    cards: int
    due: int
    next_due: float | None
    streak: int
    reviewed_today: int
    themes: list[DeckThemeView]


class DeckNextView(TypedDict):
    """``GET /api/deck/next``: the most overdue card's puzzle, and the deck."""

    puzzle: PuzzleView
    deck: DeckView


class DeckReviewView(GradedAnswerView):
    """A card reviewed: the answer graded as a puzzle's is, when the card is due again, and
    the deck."""

    due: float
    deck: DeckView


class RatingPointView(TypedDict):
    """A player's rating after a rated match (seconds since the epoch)."""

    match: str
    at: float
    rating: float


class ErrorRatePointView(TypedDict):
    """A player's error rate in a finished match (millipoints per unforced decision, at the
    depth of its deepest analysis)."""

    match: str
    at: float
    error_rate: float
    plies: int


class ResultsByKindView(TypedDict):
    """The finished matches of one kind and length, and how many the player won."""

    kind: str
    length: int
    played: int
    won: int


class HeadToHeadView(TypedDict):
    """The finished matches against one opponent, and how many the player won."""

    opponent: str
    played: int
    won: int


class ProfileView(TypedDict):
    """``GET /api/users/{name}/profile``: the player, their rating after each rated match
    and their error rate in each analysed match (oldest first), their results by kind and
    length, their most frequent opponents, and the last public tournaments they entered
    (newest first)."""

    user: UserView
    ratings: list[RatingPointView]
    error_rates: list[ErrorRatePointView]
    results: list[ResultsByKindView]
    opponents: list[HeadToHeadView]
    tournaments: list[ProfileTournamentView]


class ProfileTournamentView(TypedDict):
    """A public tournament the player entered: once finished, their final ``place`` among
    its ``entrants`` (every entry, the withdrawn too, as its standings count them; both
    null before the end and for a cancelled one); ``withdrawn`` whether they withdrew."""

    id: str
    name: str
    format: TournamentFormat
    state: TournamentState
    finished_at: float | None
    place: int | None
    entrants: int | None
    withdrawn: bool


class ExplorerPositionView(TypedDict):
    """``POST /api/explorer/position``: a position pasted (a Position ID, with its Match ID
    after a colon, or an XGID), as the explorer takes it: the Position ID seen from the side
    on roll, the Match ID of the decision (null for money without one), the dice (null when
    not rolled) and the board as the match page draws it, the side on roll as player 0."""

    position_id: str
    match_id: str | None
    dice: list[int] | None
    board: list[int]


class ChoiceView(TypedDict):
    """A play the site's players chose in a position and roll (public matches): how often,
    in how many matches, how many of its games its player won, and its mean points there."""

    play: str
    times: int
    matches: int
    won: int
    points: float


RolloutStatus: TypeAlias = Literal["running", "done", "cancelled", "failed"]


class RolloutPlayView(TypedDict):
    """One play's rollout so far: the games played, its equity (as ``POST /api/hint``
    values plays), the standard error of its cubeless equity and the mover's cubeless
    probabilities (null before the first chunk)."""

    play: str
    games: int
    equity: float | None
    standard_error: float | None
    probabilities: ProbabilitiesView | None


class RolloutView(TypedDict):
    """An explorer rollout (:mod:`gammon.server.explorer`): its status, the games asked in
    all and played so far, how it was played, why it failed, and each play."""

    id: str
    status: RolloutStatus
    games: int
    games_done: int
    truncate: int
    seed: int
    error: str
    plays: list[RolloutPlayView]


class DailyPuzzleView(TypedDict):
    """``GET /api/puzzles/daily``: the day (UTC, ``YYYY-MM-DD``), its puzzle and the
    player's rating."""

    date: str
    puzzle: PuzzleView
    rating: PuzzleRatingView


class RatingChangeView(TypedDict):
    before: float
    after: float


TournamentFormat: TypeAlias = Literal["knockout", "swiss", "arena"]
TournamentState: TypeAlias = Literal["registering", "running", "finished", "cancelled"]
PairingReason: TypeAlias = Literal["bye", "walkover", "no_show"]
"""Why a pairing ended without its match played out: a bye (no opponent), a walkover (the
opponent withdrew), a no-show (the loser never moved in time)."""


class TournamentView(TypedDict):
    """A tournament's settings and where it stands (PROTOCOL.md, *Tournaments*): ``round``
    is the current round (0 before the first), ``players`` the entries not withdrawn,
    ``ends_at`` an arena's end (null otherwise, and before the start), ``no_show`` the
    seconds a match waits for a player's first move, ``stall`` for a player who has moved
    and stopped."""

    id: str
    name: str
    format: TournamentFormat
    length: int
    clock: ClockKind
    rated: bool
    private: bool
    starts_at: float | None
    max_players: int
    rounds: int | None
    duration: float | None
    state: TournamentState
    round: int
    organiser: str
    players: int
    no_show: float
    stall: float
    created_at: float
    started_at: float | None
    ends_at: float | None
    finished_at: float | None


class TournamentEntryView(TypedDict):
    """A player entered: their rating (at the start, once started) and whether they
    withdrew (or were withdrawn after a no-show)."""

    id: int
    name: str
    rating: float
    withdrawn: bool


class TournamentPairingView(TypedDict):
    """A pair of a round: the players' ids (``second`` null: a bye), the real match it made
    (null for a bye or a walkover), the winner once known and why it ended without being
    played out (null when played)."""

    board: int
    first: int
    second: int | None
    match: str | None
    winner: int | None
    reason: PairingReason | None
    made_at: float
    finished_at: float | None


class TournamentRoundView(TypedDict):
    round: int
    pairings: list[TournamentPairingView]


class TournamentStandingView(TypedDict):
    """A player's place: ``points`` by the format's rule, the matches ``played`` and
    ``won`` (byes not counted), Buchholz and Sonneborn-Berger in a Swiss (null
    otherwise)."""

    place: int
    id: int
    name: str
    points: int
    played: int
    won: int
    buchholz: int | None
    sonneborn_berger: int | None
    rating: float
    withdrawn: bool


TournamentChatLineView = TypedDict("TournamentChatLineView",
                                   {"from": str, "text": str, "at": float})
"""A line of a tournament's chat: its writer's name, the text, when (server time)."""


class TournamentDetailView(TypedDict):
    """``GET /api/tournaments/{id}``: the tournament, its entries, its rounds with their
    pairings, the standings, its invite link (to its organiser, when private) and the last
    lines of its chat (oldest first)."""

    tournament: TournamentView
    entries: list[TournamentEntryView]
    rounds: list[TournamentRoundView]
    standings: list[TournamentStandingView]
    invite: str | None
    chat: list[TournamentChatLineView]


class TournamentListView(TypedDict):
    """``GET /api/tournaments``: the public tournaments not started (soonest first), those
    running, and the last 50 finished (latest first)."""

    upcoming: list[TournamentView]
    running: list[TournamentView]
    finished: list[TournamentView]


class PuzzleVerdictView(GradedAnswerView):
    """The answer to a puzzle, graded; the public match it came from (null if none), and
    the player's and the puzzle's ratings before and after it."""

    source: PuzzleSourceView | None
    rating: PuzzleRatingView
    rating_change: RatingChangeView
    puzzle_rating: RatingChangeView


def puzzle_context_view(key: MatchKey) -> PuzzleContextView:
    """The context of a puzzle's Match ID (the player to answer is 0)."""
    owner = key.cube_owner
    return {"length": key.match_length, "score": list(key.score), "cube": key.cube,
            "cube_owner": "centred" if owner is None else "you" if owner == 0 else "opponent",
            "crawford": key.crawford, "jacoby": key.jacoby}


def puzzle_view(puzzle_id: int, puzzle: Puzzle, *, rating: float, attempts: int,
                solved: int) -> PuzzleView:
    """A stored puzzle as a player is asked it (no answer, no error, no source)."""
    from gammon.core.position import Position
    from gammon.formats.match_id import MatchKey

    texts = {a.text for a in puzzle.answers}
    position = Position.from_id(puzzle.position_id)
    answering = position.swap() if puzzle.kind == "take" else position
    return {"id": puzzle_id, "kind": puzzle.kind, "position_id": puzzle.position_id,
            "match_id": puzzle.match_id, "board": list(answering.board),
            "dice": [int(d) for d in puzzle.dice] if puzzle.dice else None,
            "choices": [c for c in CUBE_CHOICES[puzzle.kind] if c in texts],
            "context": puzzle_context_view(MatchKey.from_id(puzzle.match_id)),
            "themes": list(puzzle.themes), "rating": round(rating, 1), "attempts": attempts,
            "solved": solved}


# -- a match as a client sees it ------------------------------------------------------------


class CubeStateView(TypedDict):
    value: int
    owner: int | None
    enabled: bool


class ResignOfferView(TypedDict):
    player: int
    level: int


PhaseName: TypeAlias = Literal["opening", "before_roll", "moving", "cube_offered",
                               "resign_offered", "game_over", "match_over"]
ReachView: TypeAlias = dict[str, dict[str, list[int]]]
"""For each checker that may move (its point, as text), each point it can reach (as text)
and the dice to send as steps to get there."""


class GameView(TypedDict):
    """The ``game`` of ``state`` and ``update`` (PROTOCOL.md); ``can_confirm`` and
    ``can_undo`` only while moving, ``legal`` and ``reach`` (:class:`MovesView`) only while
    moving and only to the player on turn; ``match_id`` the GNU Backgammon Match ID of the
    decision the game waits for (:func:`gammon.formats.match_id.match_key`: what the engine's
    ``/api/hint`` and ``/api/eval`` take), null when no one decides."""

    phase: PhaseName
    game: int
    turn: int
    score: list[int]
    length: int
    crawford: bool
    cube: CubeStateView
    board: list[int]
    position_id: str
    dice: list[int] | None
    dice_left: list[int]
    resign_offer: ResignOfferView | None
    winner: int | None
    can_double: bool
    can_beaver: bool
    resign_floor: int
    match_id: str | None
    legal: NotRequired[dict[str, dict[str, int]]]
    reach: NotRequired[ReachView]
    can_confirm: NotRequired[bool]
    can_undo: NotRequired[bool]


class MovesView(TypedDict):
    """What only the player on turn needs while moving (its client highlights and accepts
    these steps): ``legal``, each die each checker may use and the point it reaches, and
    ``reach`` (:func:`reach_view`). Spectators and the opponent do not get them: they cost
    the most of the game view to compute and to send."""

    legal: dict[str, dict[str, int]]
    reach: ReachView


def reach_view(game: Game) -> ReachView:
    """The core's :meth:`Game.reach <gammon.core.game.Game.reach>` with text keys."""
    return _reach_json(game.reach())


def _reach_json(reach: dict[int, dict[int, tuple[int, ...]]]) -> ReachView:
    return {str(source): {str(point): list(dice) for point, dice in found.items()}
            for source, found in reach.items()}


def moves_view(game: Game) -> MovesView:
    """The legal steps and the reach of ``game`` (moving), with text keys: from one search
    (:meth:`Game.legal_steps_and_reach <gammon.core.game.Game.legal_steps_and_reach>`)."""
    legal, reach = game.legal_steps_and_reach()
    return {"legal": {str(source): {str(die): move.destination for die, move in m.items()}
                      for source, m in legal.items()},
            "reach": _reach_json(reach)}


def game_view(match: Match, moves: Callable[[Game], MovesView] | None = moves_view
              ) -> GameView:
    """The game being played in ``match``. While moving, ``moves`` (:func:`moves_view`, or a
    cache of it) gives ``legal`` and ``reach``; None leaves them out (the view for everyone
    but the player on turn)."""
    game = match.game
    phase = match.phase
    out: GameView = {
        "phase": phase.value, "game": match.number, "turn": game.turn,
        "score": list(match.score), "length": match.rules.length,
        "crawford": match.is_crawford,
        "cube": {"value": game.cube.value, "owner": game.cube.owner,
                 "enabled": game.cube_enabled},
        "board": list(game.board(0).board), "position_id": game.position.id(),
        "dice": None if game.roll is None else [game.roll.die1, game.roll.die2],
        "dice_left": list(game.dice_left),
        "resign_offer": None if game.resign_offer is None else {
            "player": game.resign_offer.player, "level": int(game.resign_offer.level)},
        "winner": match.winner,
        "can_double": game.can_double(game.turn),
        "can_beaver": game.phase is Phase.CUBE_OFFERED and game.can_beaver(game.opponent),
        "resign_floor": 0 if game.refused is None else int(game.refused),
        "match_id": None if (key := match_key(match)) is None else key.id(),
    }
    if phase is Phase.MOVING:
        if moves is not None:
            found = moves(game)
            out["legal"], out["reach"] = found["legal"], found["reach"]
        out["can_confirm"] = game.is_play_complete()
        out["can_undo"] = bool(game.steps)
    return out


ClockKind: TypeAlias = Literal["none", "italian", "italian_per_point", "polish"]


class ClockSideView(TypedDict):
    action_left: float
    bank_left: float
    low: bool
    expired: bool


class ClockView(TypedDict):
    """A match clock: ``flag_at`` is the server time the running side loses at."""

    kind: ClockKind
    running: int | None
    sides: list[ClockSideView]
    flag_at: float | None
    low_at: float | None


def clock_view(clock: Clock, kind: ClockKind, now: float) -> ClockView:
    now = max(now, clock.last)
    sides: list[ClockSideView] = []
    for side in (0, 1):
        reading = clock.remaining(side, now)
        sides.append({"action_left": round(reading.action_left, 3),
                      "bank_left": round(reading.bank_left, 3), "low": reading.is_low,
                      "expired": reading.expired})
    settings = clock.settings
    low_at = getattr(settings, "low_reserve", getattr(settings, "low_time", None))
    return {"kind": kind, "running": clock.running, "sides": sides,
            "flag_at": clock.flag_time(), "low_at": low_at}


# events: one view per core event (its fields, the mover's view) and the server's own

MoveView = TypedDict("MoveView", {"from": int, "to": int, "hit": bool, "text": str})


class GameStartedView(TypedDict):
    type: Literal["game_started"]
    number: int
    crawford: bool
    v: int


class OpeningRolledView(TypedDict):
    type: Literal["opening_rolled"]
    first: int
    throws: list[list[int]]
    roll: list[int]
    v: int


class DiceRolledView(TypedDict):
    type: Literal["dice_rolled"]
    player: int
    roll: list[int]
    v: int


class CheckerMovedView(TypedDict):
    type: Literal["checker_moved"]
    player: int
    move: MoveView
    die: int
    v: int


class StepUndoneView(TypedDict):
    type: Literal["step_undone"]
    player: int
    move: MoveView
    die: int
    v: int


class NoLegalMoveView(TypedDict):
    type: Literal["no_legal_move"]
    player: int
    roll: list[int]
    v: int


class TurnEndedView(TypedDict):
    """``play``: the moves in notation (:func:`gammon.core.notation.format_play`, '' for a
    pass), as the move list writes them; the view's own field, not the core event's."""

    type: Literal["turn_ended"]
    player: int
    moves: list[MoveView]
    play: str
    v: int


class CubeEventView(TypedDict):
    type: Literal["cube_offered", "cube_taken", "cube_beavered", "cube_dropped"]
    player: int
    value: int
    v: int


class ResignEventView(TypedDict):
    type: Literal["resign_offered", "resign_accepted", "resign_rejected"]
    player: int
    level: int
    v: int


class GameEndedView(TypedDict):
    type: Literal["game_ended"]
    winner: int
    points: int
    kind: Literal["single", "gammon", "backgammon", "drop", "resign", "abandon", "timeout"]
    level: int
    cube: int
    v: int


class MatchEndedView(TypedDict):
    type: Literal["match_ended"]
    winner: int
    reason: Literal["points", "abandon", "timeout"]
    score: list[int]
    v: int


class ClockPausedView(TypedDict):
    """Not a core event: the server's downtime credited to the running clock."""

    type: Literal["clock_paused"]
    player: int | None
    seconds: float
    v: int


EventView: TypeAlias = (
    GameStartedView | OpeningRolledView | DiceRolledView | CheckerMovedView | StepUndoneView
    | NoLegalMoveView | TurnEndedView | CubeEventView | ResignEventView | GameEndedView
    | MatchEndedView | ClockPausedView
)
"""Every event of an ``update``, with ``v``, its number in the match's event log."""

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def event_type(cls: type) -> str:
    """The wire name of a core event class: ``DiceRolled`` -> ``dice_rolled``."""
    return _CAMEL.sub("_", cls.__name__).lower()


def _value(value: Any) -> Any:
    if isinstance(value, Roll):
        return [value.die1, value.die2]
    if isinstance(value, Move):
        return {"from": value.source, "to": value.destination, "hit": value.hit,
                "text": str(value)}
    if isinstance(value, Enum):
        return int(value) if isinstance(value, Level) else value.value
    if isinstance(value, tuple | list):
        return [_value(v) for v in value]
    return value


def event_view(event: Event, v: int) -> EventView:
    """A core event as clients get it, numbered ``v`` (its fields in order: rolls as
    ``[d1, d2]``, moves as :data:`MoveView`, levels as 1-3, kinds and reasons as text; a
    ``turn_ended`` also its ``play`` in notation)."""
    out: dict[str, Any] = {"type": event_type(type(event))}
    for field in dataclasses.fields(event):
        out[field.name] = _value(getattr(event, field.name))
    if isinstance(event, TurnEnded):
        out["play"] = format_play(event.moves)
    out["v"] = v
    return cast(EventView, out)


def clock_paused_view(player: int | None, seconds: float, v: int) -> ClockPausedView:
    return {"type": "clock_paused", "player": player, "seconds": round(seconds, 3), "v": v}


# the match's record: seats, settings, result


class Player(Protocol):
    """A user as the views read one (:class:`gammon.server.db.User` is one)."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def rating(self) -> float: ...
    @property
    def experience(self) -> int: ...
    @property
    def bot_account(self) -> bool: ...


UserKind: TypeAlias = Literal["user", "guest", "bot"]


class UserView(TypedDict):
    """A player as anyone may see them; ``bot``: a program plays it (the server's own bot,
    ``kind`` 'bot', or a bot account of the Bot API, ``kind`` 'user')."""

    id: int
    name: str
    kind: UserKind
    rating: float
    experience: int
    bot: bool


class SeatView(TypedDict):
    id: int
    name: str
    kind: UserKind
    rating: float
    bot: bool


def is_bot(user: Player) -> bool:
    """Whether a program plays ``user``: the server's bot or a bot account."""
    return user.kind == "bot" or user.bot_account


def user_view(user: Player) -> UserView:
    return {"id": user.id, "name": user.name, "kind": cast(UserKind, user.kind),
            "rating": round(user.rating, 2), "experience": user.experience,
            "bot": is_bot(user)}


def seat_view(user: Player | None) -> SeatView | None:
    return None if user is None else {"id": user.id, "name": user.name,
                                      "kind": cast(UserKind, user.kind),
                                      "rating": round(user.rating, 2), "bot": is_bot(user)}


MatchKind: TypeAlias = Literal["single", "money", "match"]
MATCH_KINDS: tuple[MatchKind, ...] = get_args(MatchKind)
CLOCK_KINDS: tuple[ClockKind, ...] = get_args(ClockKind)
MAX_LENGTH = 25
"""The longest match a player may create."""
BOT_LEVELS = range(1, 6)
"""The server's bot's strengths: 1 beginner, 2 casual, 3 intermediate, 4 expert, 5
world-class."""


def bot_account(level: int) -> str:
    """The name of the server's bot account of ``level``: one account a level, so that a
    bot entered in a tournament (or met in any match) keeps its level with its name.

    >>> bot_account(3), bot_account_level("bot-3"), bot_account_level("bot-9")
    ('bot-3', 3, None)
    """
    return f"bot-{level}"


def bot_account_level(name: str) -> int | None:
    """The level of the server's bot account ``name`` (:func:`bot_account`), else None."""
    prefix, _, level = name.partition("-")
    if prefix != "bot" or not level.isdigit() or int(level) not in BOT_LEVELS:
        return None
    return int(level)


class ConfigError(ValueError):
    """A match configuration refused, with the reason."""


class ChoicesView(TypedDict):
    """The choices of a :class:`MatchConfig` that both its views show."""

    kind: MatchKind
    length: int
    cube: bool
    clock: ClockKind
    bot: int | None
    jacoby: bool
    beavers: bool
    winner_rolls_anew: bool
    private: bool


class ConfigView(ChoicesView):
    """What a match's creator chose (stored with the match; in the lobby and history)."""

    clock_scale: float


@dataclasses.dataclass(frozen=True, slots=True)
class MatchConfig:
    """What a match's creator chose: the one value the lobby makes, the room plays, the
    views show and ``matches.config`` stores (as :class:`ConfigView` JSON). Every value is
    checked when it is made (:class:`ConfigError` with the reason), so a room never holds
    one the rules below refuse.

    >>> MatchConfig(kind="money").points
    0
    >>> MatchConfig(kind="single", length=3)
    Traceback (most recent call last):
    ...
    gammon.views.ConfigError: length: a single game or money session has no length (1)
    """

    kind: MatchKind = "match"
    length: int = 1
    cube: bool = True
    clock: ClockKind = "none"
    bot: int | None = None
    jacoby: bool = False
    beavers: bool = False
    winner_rolls_anew: bool = False
    private: bool = False
    clock_scale: float = 1.0

    def __post_init__(self) -> None:
        for name in ("cube", "jacoby", "beavers", "winner_rolls_anew", "private"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name}: true or false, got {getattr(self, name)!r}")
        if self.kind not in MATCH_KINDS:
            raise ConfigError(f"kind: one of {', '.join(MATCH_KINDS)}, got {self.kind!r}")
        if self.clock not in CLOCK_KINDS:
            raise ConfigError(f"clock: one of {', '.join(CLOCK_KINDS)}, got {self.clock!r}")
        if type(self.length) is not int or not 1 <= self.length <= MAX_LENGTH:
            raise ConfigError(f"length: a whole number of points from 1 to {MAX_LENGTH}, "
                              f"got {self.length!r}")
        if self.kind != "match" and self.length != 1:
            raise ConfigError("length: a single game or money session has no length (1)")
        if self.bot is not None and (type(self.bot) is not int or self.bot not in BOT_LEVELS):
            raise ConfigError(f"bot: a level from {BOT_LEVELS[0]} to {BOT_LEVELS[-1]}, "
                              f"got {self.bot!r}")
        if self.bot is not None and self.clock != "none":
            raise ConfigError("clock: a game against the server's bot has no clock")
        scale = self.clock_scale
        if isinstance(scale, bool) or not isinstance(scale, int | float) \
                or not 0 < scale < float("inf"):
            raise ConfigError(f"clock_scale: a positive number, got {scale!r}")

    @classmethod
    def chosen(cls, *, kind: MatchKind, length: int, cube: bool, clock: ClockKind,
               bot: int | None, jacoby: bool, beavers: bool, winner_rolls_anew: bool,
               private: bool, clock_scale: float) -> MatchConfig:
        """The configuration of a creator's choices (a new game): the length counts only
        for a match, and a game against the server's bot has no clock."""
        return cls(kind=kind, length=length if kind == "match" else 1, cube=cube,
                   clock="none" if bot is not None else clock, bot=bot, jacoby=jacoby,
                   beavers=beavers, winner_rolls_anew=winner_rolls_anew, private=private,
                   clock_scale=clock_scale)

    def to_json(self) -> str:
        return json.dumps(config_view(self))

    @classmethod
    def from_json(cls, text: str) -> MatchConfig:
        """The stored configuration (a field it lacks takes its default, a field this version
        does not know — written by a newer one during a rolling upgrade — is ignored);
        ConfigError when it is not one."""
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise TypeError(f"an object, not {type(data).__name__}")
            known = {field.name for field in dataclasses.fields(cls)}
            return cls(**{key: value for key, value in data.items() if key in known})
        except (ValueError, TypeError) as error:  # ConfigError is a ValueError
            if isinstance(error, ConfigError):
                raise
            raise ConfigError(f"not a match configuration: {error}") from None

    @property
    def points(self) -> int:
        """The core's match length: 0 for money, 1 for a single game."""
        return {"money": 0, "single": 1}.get(self.kind, self.length)

    @property
    def jacoby_rule(self) -> bool:
        """Whether the Jacoby rule is played (money play only)."""
        return self.jacoby and self.kind == "money"

    @property
    def beavers_rule(self) -> bool:
        """Whether beavers are allowed (money play only)."""
        return self.beavers and self.kind == "money"


def config_view(config: MatchConfig) -> ConfigView:
    return {"kind": config.kind, "length": config.length,
            "cube": config.cube, "clock": config.clock, "bot": config.bot,
            "jacoby": config.jacoby, "beavers": config.beavers,
            "winner_rolls_anew": config.winner_rolls_anew, "private": config.private,
            "clock_scale": config.clock_scale}


class RulesView(TypedDict):
    """The core :class:`~gammon.core.game.Rules` a match is played under (stored)."""

    length: int
    cube: bool
    crawford: bool
    jacoby: bool
    beavers: bool
    winner_rolls_anew: bool
    confirm_turn: list[bool]
    auto_roll: list[bool]


def rules_view(rules: Rules) -> RulesView:
    return {"length": rules.length, "cube": rules.cube, "crawford": rules.crawford,
            "jacoby": rules.jacoby, "beavers": rules.beavers,
            "winner_rolls_anew": rules.winner_rolls_anew,
            "confirm_turn": list(rules.confirm_turn), "auto_roll": list(rules.auto_roll)}


class ResultView(TypedDict):
    """How a match ended (stored with the match)."""

    winner: int
    reason: Literal["points", "abandon", "timeout"]
    score: list[int]


def result_view(match: Match) -> ResultView:
    result = match.result
    assert result is not None
    return {"winner": result.winner,
            "reason": result.reason.value,
            "score": list(result.score)}


MatchStatus: TypeAlias = Literal["open", "playing", "finished", "cancelled"]


class InfoView(ChoicesView):
    """A match's ``info`` (``state``, ``GET /api/games/{id}``, the lobby's answers): its
    choices as played (``length`` 0 in money, ``jacoby`` and ``beavers`` only there)."""

    id: str
    status: MatchStatus
    rated: bool
    seats: list[SeatView | None]
    seed_hash: str
    client_seeds: list[str]
    server_seed: str | None
    rematch_of: str | None
    result: ResultView | None


def info_view(*, id: str, status: str, config: MatchConfig, private: bool, rated: bool,
              seats: list[SeatView | None], seed_hash: str, client_seeds: list[str],
              server_seed: str, rematch_of: str | None, result: ResultView | None
              ) -> InfoView:
    """The seed is revealed once the match is over (``status`` finished)."""
    return {
        "id": id, "status": cast(MatchStatus, status), "kind": config.kind,
        "length": config.points,
        "cube": config.cube, "clock": config.clock, "bot": config.bot,
        "jacoby": config.jacoby_rule, "beavers": config.beavers_rule,
        "winner_rolls_anew": config.winner_rolls_anew,
        "private": private, "rated": rated, "seats": seats, "seed_hash": seed_hash,
        "client_seeds": list(client_seeds),
        "server_seed": server_seed if status == "finished" else None,
        "rematch_of": rematch_of, "result": result,
    }
