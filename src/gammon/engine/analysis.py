"""Analysis of a played match: every decision rated against the engine, and the luck.

The match is given as the actions it went through (the core's action values, as a match
record holds them); they are replayed through :class:`gammon.core.match.Match`, so every
position is rebuilt by the rules. For each player:

* **checker plays** — the equity lost by the play made against the engine's best play,
  both evaluated at the same ply and valued at the score and cube of the decision
  (:func:`gammon.engine.cube.play_equity`: cubeful, normalised to the cube, in a match the
  match winning chance through the match equity table — GNU Backgammon's EMG). Plays with
  no alternative are *forced* and not counted. A loss of ``ERROR`` or more is an error,
  ``BLUNDER`` or more a blunder. With a :class:`Recheck` each error is graded again by
  seeded rollouts of both plays at the score before it is reported, and the decision
  says which grade it has (``graded_by``).
* **luck** — for each roll, the equity of the best play with that roll minus the average of
  the same over all 21 rolls (the position's 1-ply value): a joker is positive. Both are
  valued as the errors are, at the score and cube of the roll (EMG).
* **error rate** — mean equity lost per unforced decision, in millipoints, and the
  *performance rating* ``PR = 500 × that mean`` (the scale the strongest tools use: 0 is
  perfect, about 5 a world-class player).

* **cube decisions** — each double, take, drop and beaver, and each roll made without
  doubling where doubling was right or close (within ``CLOSE_CUBE``), rated by
  :mod:`gammon.engine.cube` (cubeful equity, normalised to the cube then in play; in a
  match, equity converted through the match equity table) against the right action.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gammon.core.actions import (
    Action,
    Beaver,
    Drop,
    OfferDouble,
    PlayMove,
    RollDice,
    RollOpening,
    Take,
)
from gammon.core.dice import Roll
from gammon.core.game import Phase, Rules
from gammon.core.match import Match
from gammon.core.moves import Play, legal_plays
from gammon.core.notation import parse_play
from gammon.core.position import Position
from gammon.engine.cube import CubeInfo, play_equity
from gammon.engine.evaluator import Evaluator, rank_plays
from gammon.engine.matchbot import cube_info
from gammon.engine.met import eq2mwc
from gammon.formats.match_id import match_key

ERROR = 0.040
BLUNDER = 0.080
CLOSE_CUBE = 0.040
ALTERNATIVES = 5
"""How many of the best plays a checker decision keeps (its ``alternatives``, the played one
added when it is not among them), each graded at the decision's grade."""

ALL_ROLLS = [Roll(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def loss_mark(loss: float) -> str:
    """A rated decision's mark: ``??`` a blunder (a loss of ``BLUNDER`` or more), ``?`` an
    error (``ERROR`` or more), else none.

    >>> loss_mark(0.1), loss_mark(0.05), loss_mark(0.01)
    ('??', '?', '')
    """
    if loss >= BLUNDER:
        return "??"
    if loss >= ERROR:
        return "?"
    return ""


@dataclass(frozen=True, slots=True)
class CheckerDecision:
    """One checker play, rated."""

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
    """The roll's luck for the player who rolled it (equity)."""
    win_chance: float
    """The player's chance of winning the game after the play, as the engine sees it."""
    match_id: str = ""
    """Where the decision was: GNU Backgammon's Match ID (score, cube, Crawford) with the
    player on roll and the dice, as ``gammon hint --match-id`` and ``POST /api/hint`` take
    it to rank the plays at the same score."""
    graded_by: str = ""
    """What graded it: ``"2-ply"`` (the analysis's depth) or, for a flagged error checked
    again (:class:`Recheck`), e.g. ``"rollout 1296 games, 7 plies"``."""
    match_winning_chance: float | None = None
    """In a match, the player's chance of winning the match after the play (its value at
    the score, through the match equity table); None in money play."""
    alternatives: tuple[tuple[str, float], ...] = ()
    """The plays graded at ``graded_by``, best first, each with its equity (valued as
    ``best_equity``): at the analysis's ply, the search's ``ALTERNATIVES`` best candidates
    at that depth and the play made; rechecked by rollouts, the plays rolled out (the best,
    the runner-up at the analysis's ply, the play made). The first is ``best``; the second,
    the runner-up a puzzle's margin is measured against (:mod:`gammon.engine.puzzles`).
    Not in the analysis's JSON view."""

    @property
    def loss(self) -> float:
        return max(self.best_equity - self.played_equity, 0.0)

    @property
    def mark(self) -> str:
        return "" if self.forced else loss_mark(self.loss)

    @property
    def chance(self) -> float:
        """The player's chance of winning after the play: the match's in a match, else
        the game's."""
        return self.win_chance if self.match_winning_chance is None else self.match_winning_chance

    @property
    def rechecked(self) -> str:
        """``(rollout …)`` when a deeper look than the analysis's ply graded it, else ''."""
        return f"({self.graded_by})" if self.graded_by.startswith("rollout") else ""


@dataclass(frozen=True, slots=True)
class Recheck:
    """The deeper look at each checker play the analysis flags as an error (a loss of
    ``ERROR`` or more): the play made and the best play are both rolled out at the score
    (:meth:`Engine.rollout <gammon.engine.player.Engine.rollout>` with the decision's
    context: each side plays as the score asks), on the same dice (``seed``), ``games``
    games truncated after ``truncate`` plies, and the two values (cubeful at the score, as
    the analysis values plays) replace the shallower ones."""

    games: int = 1296
    truncate: int = 7
    seed: int = 1

    def describe(self) -> str:
        return f"rollout {self.games} games, {self.truncate} plies"


@dataclass(frozen=True, slots=True)
class CubeRecord:
    """One cube decision, rated: ``chosen`` and ``proper`` are actions such as
    ``no double``, ``double``, ``take``, ``drop``, ``beaver``."""

    game: int
    move_number: int
    player: int
    position_id: str
    chosen: str
    proper: str
    loss: float
    match_id: str = ""
    """Where the decision was (GNU Backgammon's Match ID, no dice; a double pending for a
    take or drop): ``POST /api/eval`` with it gives the cube decision's equities."""
    options: tuple[tuple[str, float], ...] = ()
    """The answers to the question, best first, with their equities for ``player`` at the
    analysis's ply: ``double`` (after the opponent's right answer) and ``no double`` before
    the roll; ``take``, ``drop`` (and ``beaver`` where beavers are on) to a double. Not in the
    analysis's JSON view."""

    @property
    def mark(self) -> str:
        return loss_mark(self.loss)


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    player: int
    name: str
    decisions: int
    unforced: int
    cube_decisions: int
    errors: int
    blunders: int
    equity_lost: float
    luck: float

    @property
    def error_rate(self) -> float:
        """Millipoints lost per unforced decision."""
        return 1000.0 * self.equity_lost / self.unforced if self.unforced else 0.0

    @property
    def performance_rating(self) -> float:
        return self.error_rate / 2.0


@dataclass
class Analysis:
    names: tuple[str, str]
    plies: int
    decisions: list[CheckerDecision] = field(default_factory=list)
    cube: list[CubeRecord] = field(default_factory=list)

    def summaries(self) -> list[PlayerSummary]:
        out = []
        for player in (0, 1):
            mine = [d for d in self.decisions if d.player == player]
            cube = [c for c in self.cube if c.player == player]
            losses = [d.loss for d in mine if not d.forced] + [c.loss for c in cube]
            out.append(PlayerSummary(
                player=player,
                name=self.names[player],
                decisions=len(mine) + len(cube),
                unforced=len(losses),
                cube_decisions=len(cube),
                errors=sum(1 for loss in losses if loss_mark(loss) == "?"),
                blunders=sum(1 for loss in losses if loss_mark(loss) == "??"),
                equity_lost=sum(losses),
                luck=sum(d.luck for d in mine),
            ))
        return out

    # -- output (the JSON is gammon.views.analysis_view) --------------------------------

    def to_text(self) -> str:
        lines = [f"Analysis at {self.plies}-ply (checker plays and cube decisions in cubeful "
                 f"equity at the score, normalised to the cube; ? error >= {ERROR:.3f}, "
                 f"?? blunder >= {BLUNDER:.3f}; '(rollout ...)': an error graded again by "
                 f"rollouts of both plays)", ""]
        lines.append(f"{'game':>4} {'move':>4}  {'player':<10} {'roll':<4} {'played':<24} "
                     f"{'best':<24} {'loss':>7} {'luck':>7}")
        for d in self.decisions:
            best = "" if d.best == d.played else d.best
            lines.append((f"{d.game:>4} {d.move_number:>4}  {self.names[d.player]:<10.10} "
                          f"{d.roll:<4} {d.played or '(no move)':<24.24} {best:<24.24} "
                          f"{-d.loss:>+7.3f} {d.luck:>+7.3f} {d.mark} {d.rechecked}").rstrip())
        if self.cube:
            lines += ["", f"{'game':>4} {'move':>4}  {'player':<10} {'cube action':<12} "
                          f"{'right action':<14} {'loss':>7}"]
            for c in self.cube:
                lines.append(f"{c.game:>4} {c.move_number:>4}  {self.names[c.player]:<10.10} "
                             f"{c.chosen:<12} {c.proper:<14} {-c.loss:>+7.3f} {c.mark}")
        lines.append("")
        for s in self.summaries():
            lines.append(f"{s.name}: {s.unforced} unforced decisions "
                         f"({s.cube_decisions} of the cube), {s.errors} errors, "
                         f"{s.blunders} blunders, {s.equity_lost:.3f} equity lost, "
                         f"error rate {s.error_rate:.1f} mp/decision, "
                         f"PR {s.performance_rating:.1f}, luck {s.luck:+.3f}")
        return "\n".join(lines)

    def to_html(self) -> str:
        """A self-contained report: summary, the win-chance graph, the decision table."""
        rows = []
        for d in self.decisions:
            css = {"??": "blunder", "?": "error"}.get(d.mark, "")
            rows.append(
                f"<tr class='{css}'><td>{d.game}</td><td>{d.move_number}</td>"
                f"<td>{html.escape(self.names[d.player])}</td><td>{d.roll}</td>"
                f"<td>{html.escape(d.played or '(no move)')}</td>"
                f"<td>{html.escape('' if d.best == d.played else d.best)}</td>"
                f"<td>{-d.loss:+.3f}</td><td>{d.luck:+.3f}</td>"
                f"<td>{d.mark} {html.escape(d.rechecked)}</td></tr>")
        cube_rows = "".join(
            f"<tr class='{ {'??': 'blunder', '?': 'error'}.get(c.mark, '') }'><td>{c.game}</td>"
            f"<td>{c.move_number}</td><td>{html.escape(self.names[c.player])}</td>"
            f"<td>{c.chosen}</td><td>{c.proper}</td><td>{-c.loss:+.3f}</td><td>{c.mark}</td></tr>"
            for c in self.cube)
        summary = "".join(
            f"<tr><td>{html.escape(s.name)}</td><td>{s.unforced}</td><td>{s.errors}</td>"
            f"<td>{s.blunders}</td><td>{s.equity_lost:.3f}</td><td>{s.error_rate:.1f}</td>"
            f"<td>{s.performance_rating:.1f}</td><td>{s.luck:+.3f}</td></tr>"
            for s in self.summaries())
        title = html.escape(f"{self.names[0]} vs {self.names[1]}")
        return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gammon analysis: {title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{{font-family:system-ui,sans-serif;margin:1rem auto;max-width:60rem;padding:0 1rem;color:#222}}
table{{border-collapse:collapse;width:100%;font-size:.9rem}}
td,th{{padding:.2rem .4rem;border-bottom:1px solid #ddd;text-align:left}}
tr.error{{background:#fff4d6}} tr.blunder{{background:#ffd9d6}}
svg{{width:100%;height:auto;background:#fafafa;border:1px solid #ddd}}
</style></head><body>
<h1>{title}</h1>
<p>Analysed at {self.plies}-ply with gammon's engine. Checker plays and cube decisions are
rated in cubeful equity at the score, normalised to the cube in play (in a match through the
match equity table); an error loses at least {ERROR:.3f}, a blunder at least
{BLUNDER:.3f}; an error marked "(rollout …)" was graded again by rollouts of both plays.
PR = 500 × mean equity lost per unforced decision.</p>
<table><tr><th>player</th><th>unforced</th><th>errors</th><th>blunders</th>
<th>equity lost</th><th>mp/decision</th><th>PR</th><th>luck</th></tr>{summary}</table>
<h2>{html.escape(self.names[0])}'s chance of winning the game, move by move</h2>
{self._graph()}
<h2>Decisions</h2>
<table><tr><th>game</th><th>move</th><th>player</th><th>roll</th><th>played</th>
<th>best</th><th>equity</th><th>luck</th><th></th></tr>{"".join(rows)}</table>
<h2>Cube decisions</h2>
<table><tr><th>game</th><th>move</th><th>player</th><th>action</th><th>right action</th>
<th>equity</th><th></th></tr>{cube_rows}</table>
</body></html>
"""

    def _graph(self) -> str:
        """An inline SVG line of player 0's chance of winning after each decision: the
        match in a match, else the game."""
        points = [d.chance if d.player == 0 else 1 - d.chance for d in self.decisions]
        if not points:
            return "<p>(no decisions)</p>"
        width, height = 800, 200
        step = width / max(len(points) - 1, 1)
        path = " ".join(f"{i * step:.1f},{(1 - p) * height:.1f}" for i, p in enumerate(points))
        games = [i for i in range(1, len(self.decisions))
                 if self.decisions[i].game != self.decisions[i - 1].game]
        marks = "".join(f"<line x1='{i * step:.1f}' x2='{i * step:.1f}' y1='0' y2='{height}' "
                        "stroke='#bbb' stroke-dasharray='4'/>" for i in games)
        return (f"<svg viewBox='0 0 {width} {height}' role='img' aria-label='win chance'>"
                f"<line x1='0' x2='{width}' y1='{height / 2}' y2='{height / 2}' stroke='#ccc'/>"
                f"{marks}<polyline fill='none' stroke='#1f5fa8' stroke-width='2' "
                f"points='{path}'/></svg>")


def _roll_luck(engine: Evaluator, position: Position, roll: Roll, context: CubeInfo) -> float:
    """Value of the best play with ``roll`` minus the average over all rolls (0-ply plays,
    valued at the score and cube of ``context``, as the errors are)."""
    values = {}
    for r in ALL_ROLLS:
        values[(r.die1, r.die2)] = rank_plays(engine, position, r, context=context)[0].equity
    average = sum(v * (1 if a == b else 2) for (a, b), v in values.items()) / 36
    key = (max(roll.die1, roll.die2), min(roll.die1, roll.die2))
    return values[key] - average


def analyse_actions(actions: Sequence[Action], rules: Rules, *,
                    names: tuple[str, str] = ("player 0", "player 1"), plies: int = 0,
                    engine: Evaluator | None = None, start: Match | None = None,
                    progress: Callable[[int], None] | None = None,
                    recheck: Recheck | None = None) -> Analysis:
    """Replay ``actions`` from the start of a match (or from ``start``, a match in
    progress) and rate every checker play; ``progress`` is called with each game's number
    as it starts. With ``recheck`` (and an engine that rolls out), each flagged checker
    error is graded again by its rollouts."""
    if engine is None:
        from gammon.engine.player import Engine

        engine = Engine.load()
    analysis = Analysis(names=names, plies=plies)
    match = start or Match.new(rules)
    # an opening action starts the next game; a match in mid-game is already in one
    game_number = match.number - (1 if match.phase in (Phase.OPENING, Phase.GAME_OVER) else 0)
    move_number = 0
    luck: dict[int, float] = {}
    for action in actions:
        if isinstance(action, RollOpening):
            game_number += 1
            move_number = 0
            if progress is not None:
                progress(game_number)
        game = match.game
        if isinstance(action, RollDice):
            luck[action.player] = _roll_luck(engine, game.board(action.player), action.roll,
                                             cube_info(match, action.player))
        record = _rate_cube(engine, match, action, game_number, move_number, plies)
        if record is not None:
            analysis.cube.append(record)
        if isinstance(action, PlayMove) and game.phase is Phase.MOVING and game.roll is not None:
            move_number += 1
            analysis.decisions.append(_rate_play(engine, game.position, game.roll, action,
                                                 cube_info(match, action.player),
                                                 decision_match_id(match, action.player),
                                                 game_number, move_number, plies,
                                                 luck.pop(action.player, 0.0), recheck))
        match, _ = match.apply(action)
    return analysis


def _rate_cube(engine: Evaluator, match: Match, action: Action, game_number: int,
               move_number: int, plies: int) -> CubeRecord | None:
    """Rate ``action`` if it is a cube decision (or a roll that declined to double)."""
    from gammon.engine.cube import Response, analyse_cube, analyse_take

    game = match.game
    if isinstance(action, RollDice | OfferDouble) and game.phase is Phase.BEFORE_ROLL:
        player = action.player
        if not game.can_double(player):
            return None
        decision = analyse_cube(engine, game.position, cube_info(match, player), plies=plies)
        doubled = decision.doubled
        value: float | None
        if isinstance(action, OfferDouble):
            chosen, value = "double", doubled
        else:
            if not decision.action.doubles and doubled < decision.no_double - CLOSE_CUBE:
                return None  # not close: rolling was obviously right
            chosen, value = "no double", decision.no_double
        proper = str(decision.action).replace("-", " ")
        loss = max(decision.equity - float(value), 0.0)
        options = [("double", float(doubled)), ("no double", float(decision.no_double))]
    elif isinstance(action, Take | Drop | Beaver) and game.phase is Phase.CUBE_OFFERED:
        player = action.player
        doubler = game.turn
        answer = analyse_take(engine, game.position, cube_info(match, doubler), plies=plies)
        values = {Response.TAKE: answer.take, Response.PASS: answer.pass_,
                  Response.BEAVER: answer.beaver}
        chosen = {Take: "take", Drop: "drop", Beaver: "beaver"}[type(action)]
        chosen_response = {"take": Response.TAKE, "drop": Response.PASS,
                           "beaver": Response.BEAVER}[chosen]
        value = values[chosen_response]
        best = values[answer.response]
        if value is None or best is None:
            return None
        proper = {Response.TAKE: "take", Response.PASS: "drop",
                  Response.BEAVER: "beaver"}[answer.response]
        loss = max(best - value, 0.0)
        options = [(name, float(v)) for name, v in (
            ("take", answer.take), ("drop", answer.pass_), ("beaver", answer.beaver))
            if v is not None]
    else:
        return None
    return CubeRecord(game=game_number, move_number=move_number, player=player,
                      position_id=game.position.id(), chosen=chosen, proper=proper, loss=loss,
                      match_id=decision_match_id(match, player),
                      options=tuple(sorted(options, key=lambda o: -o[1])))


def decision_match_id(match: Match, player: int) -> str:
    """The GNU Backgammon Match ID of ``player``'s decision now: a checker play (rolled, to
    move), a cube decision before the roll (no dice) or the answer to ``player``'s
    opponent's double (pending)."""
    key = match_key(match)
    if key is None or key.turn != player:
        raise ValueError(f"player {player} has no decision to make now")
    return key.id()


def _rate_play(engine: Evaluator, position: Position, roll: Roll, action: PlayMove,
               context: CubeInfo, match_id: str, game_number: int, move_number: int,
               plies: int, luck: float, recheck: Recheck | None = None) -> CheckerDecision:
    played: Play = (parse_play(position, roll, action.play) if isinstance(action.play, str)
                    else action.play)
    ranked = rank_plays(engine, position, roll, plies=plies, context=context)
    best = ranked[0]
    mine = next(r for r in ranked if r.play.position == played.position)
    played_equity = mine.equity
    if mine.ply < best.ply:
        # filtered out early: value it at the same depth as the best for a fair comparison
        after = engine.evaluate(played.next_position, plies=best.ply)
        played_equity = play_equity(after.inverted(), context, played.next_position)
    elif best.ply == 0 and mine is not best:
        # at 0-ply the judge valued the best (Engine.judge_play): value the play made by it
        # too, not by the network whose overrating of its top plays the judge corrects
        judge = getattr(engine, "judge_play", None)
        judged = judge(played.position) if judge is not None else None
        if judged is not None:
            played_equity = play_equity(judged, context, played.next_position)
    best_play, best_equity, graded_by = best.play, best.equity, f"{best.ply}-ply"
    graded = [(r.play, r.equity) for r in ranked if r.ply == best.ply][:ALTERNATIVES]
    if all(play.position != played.position for play, _ in graded):
        graded.append((played, played_equity))
        graded.sort(key=lambda pair: -pair[1])
    rollout = getattr(engine, "rollout", None)
    if (recheck is not None and rollout is not None and best_equity - played_equity >= ERROR
            and best.play.position != played.position):
        # the best, the runner-up at the analysis's ply (the margin a puzzle is measured
        # against) and the play made, each rolled out on the same dice
        rolled = [play for play, _ in graded[:2]]
        if all(play.position != played.position for play in rolled):
            rolled.append(played)
        graded = []
        for play in rolled:
            after_play = play.next_position  # the opponent on roll
            result = rollout(after_play, games=recheck.games, truncate=recheck.truncate,
                             seed=recheck.seed, context=context.swap(), pruned=True)
            graded.append((play, play_equity(result.mean.inverted(), context, after_play)))
        graded.sort(key=lambda pair: -pair[1])  # stable: ties keep the analysis's order
        best_play, best_equity = graded[0]
        played_equity = next(v for play, v in graded if play.position == played.position)
        graded_by = recheck.describe()
    return CheckerDecision(
        game=game_number, move_number=move_number, player=action.player,
        position_id=position.id(), roll=f"{roll.die1}{roll.die2}",
        played=played.notation(), best=best_play.notation(),
        played_equity=played_equity, best_equity=best_equity,
        forced=len(legal_plays(position, roll)) == 1, luck=luck,
        win_chance=mine.probabilities.win, match_id=match_id, graded_by=graded_by,
        match_winning_chance=(None if context.score is None else
                              eq2mwc(played_equity, context.score, context.value)),
        alternatives=tuple((play.notation(), equity) for play, equity in graded),
    )
