"""A match to N points, or a money session, as a pure state machine (RULES.md §4–§6).

A :class:`Match` holds the score and the game being played (:class:`~gammon.core.game.Game`),
and :meth:`Match.apply` works like :meth:`Game.apply <gammon.core.game.Game.apply>`: it
passes actions to the game, adds a finished game's points to the score, ends the match when
a player reaches the length, and starts the next game with its opening roll.

>>> from gammon.core.actions import AcceptResign, OfferResign, RollOpening
>>> from gammon.core.cube import Level
>>> from gammon.core.dice import OpeningRoll, Roll
>>> match = Match.new(Rules(length=3))
>>> match, _ = match.apply(RollOpening(OpeningRoll(first=0, roll=Roll(6, 1), throws=((6, 1),))))
>>> match, _ = match.apply(OfferResign(0, Level.GAMMON))
>>> match, events = match.apply(AcceptResign(1))
>>> match.score, match.phase, events[-1].points
((0, 2), <Phase.GAME_OVER: 'game_over'>, 2)
>>> opening = RollOpening(OpeningRoll(first=1, roll=Roll(5, 2), throws=((2, 5),)))
>>> match, events = match.apply(opening)
>>> events[0], match.game.cube_enabled
(GameStarted(number=2, crawford=True), False)

Rules: the **Crawford game** is the one game right after a player first reaches ``length - 1``
(with ``Rules.crawford``, in matches longer than one point); it has no cube, and the games
after it (post-Crawford) have it again. A match to 1 point has no cube. A money session
(``length`` 0) keeps a running tally and goes on until a player abandons or times out.
**Abandon** and **timeout** lose the whole match: the game in progress is lost at the cube's
value (see :mod:`gammon.core.game`), then :class:`~gammon.core.events.MatchEnded` names the
opponent the winner with that reason, whatever the score.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gammon.core.actions import Abandon, Action, RollOpening, Timeout
from gammon.core.dice import DiceSource
from gammon.core.errors import MatchOverError
from gammon.core.events import EndKind, Event, GameEnded, GameStarted, MatchEnded, MatchEndReason
from gammon.core.game import Game, Phase, Rules

__all__ = ["Match", "Phase", "Rules", "is_crawford_game"]


@dataclass(frozen=True, slots=True)
class Match:
    """The state of a match or money session. Build it with :meth:`new`.

    ``number`` is the current game's number (from 1); ``crawford_reached`` whether the
    Crawford game has come (it may be the current game); ``results`` the finished games.
    """

    rules: Rules
    game: Game
    score: tuple[int, int] = (0, 0)
    number: int = 1
    crawford_reached: bool = False
    results: tuple[GameEnded, ...] = ()
    result: MatchEnded | None = None

    @classmethod
    def new(
        cls,
        rules: Rules | None = None,
        *,
        score: tuple[int, int] = (0, 0),
        crawford_reached: bool = False,
    ) -> Match:
        """A match (or money session, ``length`` 0) waiting for its first opening roll.

        ``score`` and ``crawford_reached`` start it at a given score (for tests, or a
        resumed match); the first game is the Crawford game if the score calls for it.
        """
        rules = rules or Rules()
        if len(score) != 2 or any(s < 0 for s in score):
            raise ValueError(f"a score is two non-negative numbers, got {score!r}")
        if rules.length and max(score) >= rules.length:
            raise ValueError(f"a player has already won the {rules.length}-point match: {score}")
        crawford = is_crawford_game(rules, score, reached=crawford_reached)
        return cls(
            rules=rules,
            game=Game.new(rules, crawford=crawford),
            score=score,
            crawford_reached=crawford_reached or crawford,
        )

    # -- questions ------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The game's phase, or ``MATCH_OVER``; ``GAME_OVER`` waits for the next opening."""
        return Phase.MATCH_OVER if self.result is not None else self.game.phase

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def winner(self) -> int | None:
        return None if self.result is None else self.result.winner

    @property
    def is_money(self) -> bool:
        return self.rules.is_money

    @property
    def is_crawford(self) -> bool:
        """Whether the current game is the Crawford game (no cube)."""
        return self.game.crawford

    @property
    def is_post_crawford(self) -> bool:
        """Whether the Crawford game has been played and the cube is back."""
        return self.crawford_reached and not self.game.crawford

    @property
    def to_act(self) -> int | None:
        """The side who must act now (:attr:`Game.to_act <gammon.core.game.Game.to_act>`),
        None between games, at the opening and once the match is over."""
        return None if self.result is not None else self.game.to_act

    def legal_actions(self) -> tuple[Action, ...]:
        """As :meth:`Game.legal_actions <gammon.core.game.Game.legal_actions>`."""
        return () if self.result is not None else self.game.legal_actions()

    def opening_action(self, source: DiceSource) -> RollOpening:
        """Throw the next game's opening with ``source``."""
        return self.game.opening_action(source)

    # -- the transition -------------------------------------------------------------------

    def apply(self, action: Action) -> tuple[Match, tuple[Event, ...]]:
        """The state after ``action`` and the events it caused, in order.

        Raises :class:`~gammon.core.errors.IllegalActionError` and changes nothing when the
        rules do not allow ``action``; :class:`~gammon.core.errors.MatchOverError` once the
        match is over.
        """
        if self.result is not None:
            raise MatchOverError(
                f"the match is over: player {self.result.winner} won ({self.result.reason})"
            )
        events: list[Event] = []
        state = self
        if isinstance(action, RollOpening) and self.game.phase in (Phase.OPENING, Phase.GAME_OVER):
            if self.game.phase is Phase.GAME_OVER:
                state = self._next_game()
            events.append(GameStarted(state.number, state.game.crawford))
        between_games = state.game.phase is Phase.GAME_OVER
        forfeit = isinstance(action, Abandon | Timeout)
        if not (forfeit and between_games):  # between games only the match is left to lose
            game, game_events = state.game.apply(action)
            events += game_events
            state = replace(state, game=game)
            if game.result is not None and not between_games:
                state = state._scored(game.result, events)
        if isinstance(action, Abandon | Timeout):
            reason = (
                MatchEndReason.ABANDON if isinstance(action, Abandon) else MatchEndReason.TIMEOUT
            )
            ended = MatchEnded(1 - action.player, reason, state.score)
            events.append(ended)
            state = replace(state, result=ended)
        return state, tuple(events)

    def _next_game(self) -> Match:
        crawford = is_crawford_game(self.rules, self.score, reached=self.crawford_reached)
        return replace(
            self,
            game=Game.new(self.rules, crawford=crawford),
            number=self.number + 1,
            crawford_reached=self.crawford_reached or crawford,
        )

    def _scored(self, result: GameEnded, events: list[Event]) -> Match:
        score = list(self.score)
        score[result.winner] += result.points
        state = replace(self, score=(score[0], score[1]), results=(*self.results, result))
        length = self.rules.length
        if length and state.score[result.winner] >= length and result.kind not in _FORFEITS:
            ended = MatchEnded(result.winner, MatchEndReason.POINTS, state.score)
            events.append(ended)
            state = replace(state, result=ended)
        return state


_FORFEITS = frozenset({EndKind.ABANDON, EndKind.TIMEOUT})


def is_crawford_game(rules: Rules, score: tuple[int, int], *, reached: bool) -> bool:
    """Whether the game played at ``score`` is the Crawford game: a player has first reached
    ``length - 1`` (``reached``: the Crawford game has already been played, or is this one).

    >>> rules = Rules(length=5)
    >>> is_crawford_game(rules, (4, 2), reached=False)
    True
    >>> is_crawford_game(rules, (4, 3), reached=True)
    False
    """
    return (
        rules.crawford
        and rules.length > 1
        and not reached
        and rules.length - 1 in score
    )

