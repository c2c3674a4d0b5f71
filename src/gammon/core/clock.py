"""Clock arithmetic for backgammon time controls (RULES.md §7, seeds 000 and 002).

Pure values: nothing here reads a clock. The caller passes ``now`` — float seconds from any
monotonic origin (``time.monotonic()`` on the server) — to every operation, and each operation
returns a new :class:`Clock`. The two sides are ``0`` and ``1``; at most one side's timer runs
at a time, for one *action* (the caller decides what an action is: the Italian seed times a
roll and a move separately, see below).

Time controls (the settings are frozen dataclasses; the defaults are the seeds' numbers):

* :class:`DelayReserve` — the Italian "delay + reserve" timer (seed 000, "Il timer"): every
  action first runs a 15 s delay (the green timer); once it is spent the player's reserve (the
  orange timer) runs. The reserve starts at 20 s, gains up to 5 s after each action — more the
  faster the action — and is capped at 2 min. Reserve at zero loses the match.
* :class:`DelayReservePerPoint` — the same, but the reserve starts at ``reserve_per_point ×
  match_length`` and is capped at ``reserve_cap_per_point × match_length`` (long matches).
* :class:`GameAndMoveClock` — the Polish "game clock + move clock" (seed 002, "Zegar"): a
  5 min game clock per player and a 30 s clock for each move; either running out loses.
* Untimed play has no clock at all: store ``None`` where a ``Clock`` would be.

Reserve bonus (the seed says only "up to 5 s, the faster the more"): the bonus is linear in the
unused part of the delay, ``bonus = max_bonus × unused_delay / delay``. An instant action earns
the full 5 s, one that takes 9 of the 15 s earns 2 s, one that dips into the reserve earns
nothing; the result is capped.

Running out: a side whose remaining time reaches exactly zero has lost. :meth:`Clock.flag_time`
is the absolute time at which the running side runs out, and :meth:`Clock.expired` reports the
side from exactly that ``now`` on. The caller ends the match: that side loses the whole match
(RULES.md §6). An action ended at or after its flag time does not count; the side is recorded
as the loser.

>>> c = Clock.start(DelayReserve())
>>> c = c.start_action(0, now=100.0)
>>> c.remaining(0, 103.0)
ClockReading(action_left=12.0, bank_left=20.0, running=True, is_low=False, expired=False)
>>> c = c.end_action(0, now=103.0)          # 12 of the 15 s unused: bonus 5 × 12/15 = 4 s
>>> c.remaining(0, 103.0).reserve_left
24.0
>>> c.start_action(1, now=104.0).flag_time()  # 15 s delay + 20 s reserve
139.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Final, TypeAlias

SIDES: Final = (0, 1)
"""The two sides."""


class ClockError(ValueError):
    """Invalid clock settings, or an operation the clock's state does not allow."""


def _seconds(name: str, value: object, *, positive: bool = False) -> None:
    """Check that a settings value is a finite, non-negative (or positive) number of seconds."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ClockError(f"{name} must be a number of seconds, not {value!r}")
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        sign = "positive" if positive else "non-negative"
        raise ClockError(f"{name} must be a finite {sign} number of seconds, not {value!r}")


def _flag(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ClockError(f"{name} must be a bool, not {value!r}")


@dataclass(frozen=True, slots=True)
class DelayReserve:
    """Italian delay + reserve (seed 000): green delay per action, then the orange reserve.

    ``low_reserve``: the reading is *low* (flash and sound) while the reserve runs with at
    most this much left. ``reset_each_game``: the seed gives the 20 s "all'inizio del gioco"
    (at the start of the game), so by default :meth:`Clock.new_game` refills the reserve.
    """

    delay: float = 15.0
    initial_reserve: float = 20.0
    max_bonus: float = 5.0
    reserve_cap: float = 120.0
    low_reserve: float = 10.0
    reset_each_game: bool = True

    def __post_init__(self) -> None:
        _seconds("delay", self.delay)
        _seconds("initial_reserve", self.initial_reserve, positive=True)
        _seconds("max_bonus", self.max_bonus)
        _seconds("reserve_cap", self.reserve_cap)
        _seconds("low_reserve", self.low_reserve)
        _flag("reset_each_game", self.reset_each_game)
        if self.initial_reserve > self.reserve_cap:
            raise ClockError("initial_reserve must not exceed reserve_cap")


@dataclass(frozen=True, slots=True)
class DelayReservePerPoint:
    """Delay + reserve for long matches: the reserve is a budget per match point.

    The reserve starts at ``reserve_per_point × match_length`` and is capped at
    ``reserve_cap_per_point × match_length``; it carries over from game to game (it is the
    match's budget). Defaults: the 15 s delay and 5 s bonus of seed 000, and the tournament
    convention of 2 min per point; with the cap equal to the start, time won back by fast play
    refills the reserve but never beyond its starting value.
    """

    delay: float = 15.0
    reserve_per_point: float = 120.0
    reserve_cap_per_point: float = 120.0
    max_bonus: float = 5.0
    low_reserve: float = 10.0

    def __post_init__(self) -> None:
        _seconds("delay", self.delay)
        _seconds("reserve_per_point", self.reserve_per_point, positive=True)
        _seconds("reserve_cap_per_point", self.reserve_cap_per_point)
        _seconds("max_bonus", self.max_bonus)
        _seconds("low_reserve", self.low_reserve)
        if self.reserve_per_point > self.reserve_cap_per_point:
            raise ClockError("reserve_per_point must not exceed reserve_cap_per_point")


@dataclass(frozen=True, slots=True)
class GameAndMoveClock:
    """Polish game clock + move clock (seed 002): either one running out loses.

    Reading of the seed: "Na początku gry zegar jest ustawiany na pięć minut. Przed każdym
    ruchem jest także ustawiany zegar ruchu, na 30 sekund." — the game clock is set once, the
    move clock is *also* ("także") set before each move, and the two are shown side by side
    (left: time left for this move, right: time left in the game). Nothing makes the move
    clock a free delay, so both run together: every second of a move is charged to the game
    clock too, and a move must end before ``min(move_left, game_left)`` runs out. "Jeśli czas
    upłynie dla danego gracza" (when time runs out *for a given player*) makes the game
    clock one per player. "Na początku gry" (at the start of the game) sets it, so by
    default :meth:`Clock.new_game` refills it to ``game_time``.

    ``low_time``: the reading is *low* while the side's move or game clock runs with at most
    this much left.
    """

    game_time: float = 300.0
    move_time: float = 30.0
    low_time: float = 10.0
    reset_each_game: bool = True

    def __post_init__(self) -> None:
        _seconds("game_time", self.game_time, positive=True)
        _seconds("move_time", self.move_time, positive=True)
        _seconds("low_time", self.low_time)
        _flag("reset_each_game", self.reset_each_game)


ClockSettings: TypeAlias = DelayReserve | DelayReservePerPoint | GameAndMoveClock
"""A timed control. Untimed play is no clock at all (``None``)."""


@dataclass(frozen=True, slots=True)
class ClockReading:
    """What one side's clock shows at some ``now``.

    ``action_left`` is the per-action timer: the delay (green) for delay + reserve, the move
    clock (left part) for game + move. ``bank_left`` is the lasting one: the reserve (orange),
    or the game clock (right part). A side not running shows its next action's full timer.
    Use the aliases :attr:`delay_left`, :attr:`reserve_left`, :attr:`move_left` and
    :attr:`game_left` for whichever control you have. ``expired``: this side has lost on time.
    """

    action_left: float
    bank_left: float
    running: bool
    is_low: bool
    expired: bool

    @property
    def delay_left(self) -> float:
        """Delay (green timer) left in this action."""
        return self.action_left

    @property
    def reserve_left(self) -> float:
        """Reserve (orange timer) left."""
        return self.bank_left

    @property
    def move_left(self) -> float:
        """Move clock left (the left part of the Polish clock)."""
        return self.action_left

    @property
    def game_left(self) -> float:
        """Game clock left (the right part of the Polish clock)."""
        return self.bank_left


def _check_side(side: object) -> int:
    if isinstance(side, bool) or side not in SIDES:
        raise ClockError(f"side must be 0 or 1, not {side!r}")
    assert isinstance(side, int)
    return side


def _delay_limits(
    settings: DelayReserve | DelayReservePerPoint, match_length: int | None
) -> tuple[float, float]:
    """(starting reserve, reserve cap) for a delay + reserve control."""
    if isinstance(settings, DelayReserve):
        return float(settings.initial_reserve), float(settings.reserve_cap)
    if match_length is None:
        raise ClockError("a per-point reserve needs a match length")
    return (
        float(settings.reserve_per_point * match_length),
        float(settings.reserve_cap_per_point * match_length),
    )


@dataclass(frozen=True, slots=True)
class Clock:
    """Both sides' clocks under one time control. Build it with :meth:`start`.

    ``banks`` holds each side's lasting time (reserve, or game clock) as of its last finished
    action. ``running``/``since``: the side whose action is being timed and when it started.
    ``last``: the latest ``now`` an action started or ended at; no operation accepts an earlier
    one. ``loser``: a side that ran out of time on an action it then ended too late.
    """

    settings: ClockSettings
    banks: tuple[float, float]
    match_length: int | None = None
    running: int | None = None
    since: float | None = None
    last: float = 0.0
    loser: int | None = None

    def __post_init__(self) -> None:
        if len(self.banks) != 2 or any(
            not isinstance(b, float) or not math.isfinite(b) or b < 0 for b in self.banks
        ):
            raise ClockError(f"banks must be two finite non-negative floats, not {self.banks!r}")
        if self.running is not None:
            _check_side(self.running)
        if (self.running is None) != (self.since is None):
            raise ClockError("since must be given exactly when a side is running")
        if self.loser is not None:
            _check_side(self.loser)
            if self.running is not None:
                raise ClockError("a clock with a loser has nothing running")

    @classmethod
    def start(cls, settings: ClockSettings, *, match_length: int | None = None) -> Clock:
        """A fresh clock; ``match_length`` (points, ``>= 1``) is needed for a per-point reserve.

        >>> Clock.start(DelayReservePerPoint(), match_length=7).banks
        (840.0, 840.0)
        """
        if not isinstance(settings, DelayReserve | DelayReservePerPoint | GameAndMoveClock):
            raise ClockError(f"unknown clock settings {settings!r}")
        if match_length is not None and (
            isinstance(match_length, bool) or not isinstance(match_length, int) or match_length < 1
        ):
            raise ClockError(f"match_length must be a positive int, not {match_length!r}")
        if isinstance(settings, GameAndMoveClock):
            bank = float(settings.game_time)
        else:
            bank = _delay_limits(settings, match_length)[0]
        return cls(settings, (bank, bank), match_length)

    # -- validation ---------------------------------------------------------------------------

    def _check_now(self, now: object) -> float:
        if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
            raise ClockError(f"now must be a finite number of seconds, not {now!r}")
        if now < 0:
            raise ClockError(f"now must not be negative, got {now!r}")
        if now < self.last:
            raise ClockError(f"now went backwards: {now!r} is before {self.last!r}")
        return float(now)

    # -- the running action's deadlines -------------------------------------------------------

    def _bank_deadline(self) -> float:
        """When the running side's game clock runs out (game + move only)."""
        assert self.running is not None and self.since is not None
        return self.since + self.banks[self.running]

    def _deadlines(self) -> tuple[float, float]:
        """(action deadline, flag time) of the running action.

        The action deadline ends the delay (delay + reserve) or the move clock (game + move).
        Every reading is computed from these two sums, so that "reached zero" and
        ``now >= flag_time()`` agree exactly in floating point.
        """
        assert self.running is not None and self.since is not None
        bank = self.banks[self.running]
        if isinstance(self.settings, GameAndMoveClock):
            move_deadline = self.since + self.settings.move_time
            return move_deadline, min(move_deadline, self._bank_deadline())
        delay = self.settings.delay
        return self.since + delay, self.since + (delay + bank)

    # -- operations ---------------------------------------------------------------------------

    def start_action(self, side: int, now: float) -> Clock:
        """Start timing one action (a roll, a move, a cube decision) of ``side``.

        Idempotent: starting the side that is already running returns the clock unchanged.
        """
        side = _check_side(side)
        now = self._check_now(now)
        if self.loser is not None:
            raise ClockError(f"side {self.loser} has run out of time")
        if self.running == side:
            return self
        if self.running is not None:
            raise ClockError(f"side {self.running} is still running; end its action first")
        return replace(self, running=side, since=now, last=now)

    def end_action(self, side: int, now: float) -> Clock:
        """Finish ``side``'s running action at ``now``: charge its time and add any bonus.

        Ending at or after :meth:`flag_time` records ``side`` as the loser. Its bank is then
        what was left at the flag time: zero, except for a game + move clock whose move clock
        ran out first, where the game clock keeps what the move did not use (it is shown).
        """
        side = _check_side(side)
        now = self._check_now(now)
        if self.running != side:
            raise ClockError(f"side {side} has no running action")
        action_deadline, flag = self._deadlines()
        banks = list(self.banks)
        if now >= flag:
            if isinstance(self.settings, GameAndMoveClock):
                banks[side] = max(0.0, min(banks[side], self._bank_deadline() - flag))
            else:
                banks[side] = 0.0
            return replace(
                self, banks=(banks[0], banks[1]), running=None, since=None, last=now, loser=side
            )
        settings = self.settings
        if isinstance(settings, GameAndMoveClock):
            # min(): rounding of since + bank must never let the game clock grow
            banks[side] = min(banks[side], self._bank_deadline() - now)
        else:
            _, cap = _delay_limits(settings, self.match_length)
            if now < action_deadline:
                reserve, unused = banks[side], action_deadline - now
            else:
                reserve, unused = min(banks[side], flag - now), 0.0
            bonus = settings.max_bonus * unused / settings.delay if settings.delay > 0 else 0.0
            banks[side] = min(cap, reserve + min(bonus, float(settings.max_bonus)))
        return replace(self, banks=(banks[0], banks[1]), running=None, since=None, last=now)

    def paused(self, seconds: float) -> Clock:
        """The clock after the running action was paused for ``seconds`` (a server that was
        down): the action's start moves that much later, so the time used before the pause
        stays charged and the pause itself is not. Unchanged when no side runs.

        >>> c = Clock.start(DelayReserve()).start_action(0, now=100.0)
        >>> c.paused(30.0).remaining(0, 133.0).delay_left
        12.0
        """
        _seconds("seconds", seconds)
        if self.running is None or self.since is None:
            return self
        since = self.since + float(seconds)
        return replace(self, since=since, last=max(self.last, since))

    def new_game(self) -> Clock:
        """The clock for the next game of the match: refills the per-game bank if the control
        says so (see ``reset_each_game``), else unchanged. Not while an action runs."""
        if self.running is not None:
            raise ClockError(f"side {self.running} is still running; end its action first")
        if self.loser is not None:
            raise ClockError(f"side {self.loser} has run out of time")
        settings = self.settings
        if isinstance(settings, DelayReservePerPoint) or not settings.reset_each_game:
            return self
        fresh = Clock.start(settings, match_length=self.match_length)
        return replace(self, banks=fresh.banks)

    # -- queries ------------------------------------------------------------------------------

    def flag_time(self) -> float | None:
        """The ``now`` at which the running side runs out of time; ``None`` if none runs.

        A server schedules its timer for this instant: :meth:`expired` reports the side from
        exactly this ``now`` on, and not before.
        """
        if self.running is None:
            return None
        return self._deadlines()[1]

    def expired(self, now: float) -> int | None:
        """The side that has run out of time at ``now`` (it loses the match), or ``None``."""
        now = self._check_now(now)
        if self.loser is not None:
            return self.loser
        if self.running is not None and now >= self._deadlines()[1]:
            return self.running
        return None

    def remaining(self, side: int, now: float) -> ClockReading:
        """What ``side``'s clock shows at ``now``."""
        side = _check_side(side)
        now = self._check_now(now)
        settings = self.settings
        if isinstance(settings, GameAndMoveClock):
            fresh_action = float(settings.move_time)
        else:
            fresh_action = float(settings.delay)
        if side == self.loser:
            return ClockReading(0.0, self.banks[side], running=False, is_low=False, expired=True)
        if side != self.running:
            return ClockReading(
                fresh_action, self.banks[side], running=False, is_low=False, expired=False
            )
        action_deadline, flag = self._deadlines()
        expired = now >= flag
        if isinstance(settings, GameAndMoveClock):
            move_left = max(0.0, min(settings.move_time, action_deadline - now))
            game_left = max(0.0, min(self.banks[side], self._bank_deadline() - now))
            low = min(move_left, game_left) <= settings.low_time
            return ClockReading(move_left, game_left, running=True, is_low=low, expired=expired)
        if now < action_deadline:  # the green delay runs; the reserve is untouched
            delay_left = min(fresh_action, action_deadline - now)
            return ClockReading(
                delay_left, self.banks[side], running=True, is_low=False, expired=False
            )
        reserve_left = 0.0 if expired else min(self.banks[side], flag - now)
        return ClockReading(
            0.0,
            reserve_left,
            running=True,
            is_low=reserve_left <= settings.low_reserve,
            expired=expired,
        )
