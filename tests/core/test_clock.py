"""Clock arithmetic (RULES.md §7; seed 000 "Il timer", seed 002 "Zegar")."""

from __future__ import annotations

import doctest
import math
from dataclasses import FrozenInstanceError
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gammon.core import clock as clock_module
from gammon.core.clock import (
    Clock,
    ClockError,
    ClockReading,
    ClockSettings,
    DelayReserve,
    DelayReservePerPoint,
    GameAndMoveClock,
)

ITALIAN = DelayReserve()
POLISH = GameAndMoveClock()


def play(clock: Clock, side: int, start: float, end: float) -> Clock:
    """One timed action of ``side`` from ``start`` to ``end``."""
    return clock.start_action(side, start).end_action(side, end)


# -- seed 000, Italian delay + reserve -------------------------------------------------------


def test_italian_defaults_are_the_seed_numbers() -> None:
    assert (ITALIAN.delay, ITALIAN.initial_reserve, ITALIAN.max_bonus, ITALIAN.reserve_cap) == (
        15.0,
        20.0,
        5.0,
        120.0,
    )
    assert Clock.start(ITALIAN).banks == (20.0, 20.0)


def test_italian_delay_runs_before_reserve() -> None:
    c = Clock.start(ITALIAN).start_action(0, 100.0)
    assert c.remaining(0, 100.0) == ClockReading(15.0, 20.0, True, False, False)
    assert c.remaining(0, 110.0) == ClockReading(5.0, 20.0, True, False, False)
    # the green timer is spent at 115: only now does the orange reserve start to run
    assert c.remaining(0, 115.0) == ClockReading(0.0, 20.0, True, False, False)
    assert c.remaining(0, 120.0) == ClockReading(0.0, 15.0, True, False, False)
    assert c.flag_time() == 135.0


def test_italian_green_timer_always_allows_15_seconds_to_roll_or_to_move() -> None:
    # a roll and a move are separate actions, each with its own full delay
    c = Clock.start(ITALIAN)
    c = play(c, 0, 0.0, 12.0)  # roll: 3 s of delay unused -> +1 s
    assert c.remaining(0, 12.0).delay_left == 15.0
    c = play(c, 0, 12.0, 18.0)  # move: 9 s unused -> +3 s
    assert c.banks == (24.0, 20.0)


@pytest.mark.parametrize(
    ("duration", "reserve_after"),
    [
        (0.0, 25.0),  # instant: the full 5 s
        (3.0, 24.0),  # 12 of 15 s unused: 5 × 12/15 = 4 s
        (6.0, 23.0),  # 9 unused: 3 s
        (15.0, 20.0),  # the whole delay: nothing
        (18.0, 17.0),  # 3 s of reserve spent, no bonus
    ],
)
def test_reserve_grows_up_to_five_seconds_more_for_faster_actions(
    duration: float, reserve_after: float
) -> None:
    c = play(Clock.start(ITALIAN), 0, 50.0, 50.0 + duration)
    assert c.banks == (reserve_after, 20.0)
    assert c.remaining(0, 50.0 + duration).reserve_left == reserve_after


def test_reserve_grows_more_for_faster_actions_capped_at_two_minutes() -> None:
    c = Clock.start(ITALIAN)
    t = 0.0
    for n in range(1, 25):
        c = play(c, 1, t, t)
        assert c.banks[1] == min(120.0, 20.0 + 5.0 * n)
        t += 1.0
    assert c.banks == (20.0, 120.0)
    c = play(c, 1, t, t + 45.0)  # 15 s delay + 30 s reserve
    assert c.banks[1] == 90.0


def test_orange_timer_nearing_zero_lights_up_and_sounds() -> None:
    c = play(Clock.start(ITALIAN), 0, 0.0, 27.0)  # 12 s of reserve spent
    assert c.banks[0] == 8.0
    c = c.start_action(0, 30.0)
    # still in the green delay: the orange timer is not running, so no warning yet
    assert not c.remaining(0, 44.0).is_low
    assert c.remaining(0, 45.0).is_low  # orange now runs with 8 s <= 10 s
    assert c.remaining(0, 50.0) == ClockReading(0.0, 3.0, True, True, False)
    assert not c.remaining(1, 50.0).is_low


def test_low_reserve_threshold_is_configurable() -> None:
    c = Clock.start(DelayReserve(low_reserve=25.0)).start_action(0, 0.0)
    assert c.remaining(0, 15.0).is_low
    c = Clock.start(DelayReserve(low_reserve=0.0)).start_action(0, 0.0)
    assert not c.remaining(0, 34.0).is_low


def test_if_orange_timer_reaches_zero_the_match_is_lost() -> None:
    c = Clock.start(ITALIAN).start_action(0, 10.0)
    assert c.flag_time() == 45.0
    assert c.expired(44.999) is None
    assert c.expired(45.0) == 0  # exactly zero left: lost
    assert c.remaining(0, 45.0) == ClockReading(0.0, 0.0, True, True, True)
    assert c.expired(1000.0) == 0


def test_action_ended_exactly_at_zero_reserve_loses() -> None:
    c = play(Clock.start(ITALIAN), 0, 10.0, 45.0)
    assert c.loser == 0
    assert c.banks == (0.0, 20.0)
    assert c.expired(45.0) == 0
    assert c.remaining(0, 50.0).expired
    assert c.flag_time() is None
    with pytest.raises(ClockError):
        c.start_action(1, 50.0)
    with pytest.raises(ClockError):
        c.new_game()


def test_action_ended_just_before_zero_survives_with_bonus_lost() -> None:
    c = play(Clock.start(ITALIAN), 0, 10.0, 44.5)
    assert c.loser is None
    assert c.banks[0] == 0.5


def test_italian_reserve_is_set_at_the_start_of_each_game() -> None:
    c = play(Clock.start(ITALIAN), 0, 0.0, 0.0)
    c = play(c, 1, 1.0, 31.0)
    assert c.banks == (25.0, 5.0)
    assert c.new_game().banks == (20.0, 20.0)
    kept = Clock.start(DelayReserve(reset_each_game=False))
    kept = play(kept, 0, 0.0, 30.0)
    assert kept.new_game().banks == (5.0, 20.0)


def test_delay_zero_means_reserve_only_and_no_bonus() -> None:
    c = Clock.start(DelayReserve(delay=0.0)).start_action(0, 0.0)
    assert c.remaining(0, 5.0) == ClockReading(0.0, 15.0, True, False, False)
    assert c.end_action(0, 5.0).banks == (15.0, 20.0)


# -- delay + reserve per match point ----------------------------------------------------------


def test_reserve_per_point_starts_at_reserve_per_point_times_match_length() -> None:
    c = Clock.start(DelayReservePerPoint(), match_length=7)
    assert c.banks == (840.0, 840.0)
    c = Clock.start(DelayReservePerPoint(reserve_per_point=60.0), match_length=5)
    assert c.banks == (300.0, 300.0)


def test_reserve_per_point_has_its_own_cap() -> None:
    settings = DelayReservePerPoint(reserve_per_point=60.0, reserve_cap_per_point=61.0)
    c = Clock.start(settings, match_length=3)  # start 180, cap 183
    c = play(c, 0, 0.0, 0.0)
    assert c.banks == (183.0, 180.0)  # 180 + 5 s, capped at 3 × 61
    c = play(c, 0, 1.0, 1.0 + 15.0 + 100.0)
    assert c.banks == (83.0, 180.0)
    c = play(c, 0, 200.0, 206.0)  # 9 of 15 s unused: +3 s
    assert c.banks == (86.0, 180.0)


def test_reserve_per_point_by_default_refills_only_up_to_its_start() -> None:
    c = Clock.start(DelayReservePerPoint(), match_length=3)
    c = play(c, 0, 0.0, 0.0)
    assert c.banks == (360.0, 360.0)
    c = play(c, 0, 0.0, 75.0)  # delay + 60 s of reserve
    c = play(c, 0, 75.0, 75.0)
    assert c.banks == (305.0, 360.0)


def test_reserve_per_point_is_a_match_budget_kept_between_games() -> None:
    c = play(Clock.start(DelayReservePerPoint(), match_length=3), 1, 0.0, 35.0)
    assert c.banks == (360.0, 340.0)
    assert c.new_game() == c


def test_reserve_per_point_needs_a_match_length() -> None:
    with pytest.raises(ClockError, match="match length"):
        Clock.start(DelayReservePerPoint())


def test_reserve_per_point_expiry_loses_the_match() -> None:
    c = Clock.start(DelayReservePerPoint(reserve_per_point=10.0), match_length=2)
    c = c.start_action(1, 5.0)
    assert c.flag_time() == 40.0
    assert c.expired(39.0) is None
    assert c.expired(40.0) == 1


# -- seed 002, Polish game clock + move clock --------------------------------------------------


def test_polish_game_clock_is_set_to_five_minutes_and_move_clock_to_30_seconds() -> None:
    c = Clock.start(POLISH)
    assert c.banks == (300.0, 300.0)
    assert c.remaining(0, 0.0) == ClockReading(30.0, 300.0, False, False, False)


def test_polish_clock_shows_time_for_this_move_and_time_left_in_the_game() -> None:
    c = Clock.start(POLISH).start_action(0, 100.0)
    r = c.remaining(0, 112.5)
    assert (r.move_left, r.game_left) == (17.5, 287.5)
    assert r.running and not r.is_low and not r.expired
    assert c.remaining(1, 112.5) == ClockReading(30.0, 300.0, False, False, False)


def test_polish_move_time_also_counts_against_the_game_clock() -> None:
    c = play(Clock.start(POLISH), 0, 100.0, 112.5)
    assert c.banks == (287.5, 300.0)
    c = play(c, 1, 112.5, 140.0)
    assert c.banks == (287.5, 272.5)


def test_polish_move_clock_is_set_anew_before_each_move() -> None:
    c = play(Clock.start(POLISH), 0, 0.0, 29.0)
    c = c.start_action(0, 29.0)
    assert c.remaining(0, 29.0).move_left == 30.0
    assert c.flag_time() == 59.0


def test_polish_move_clock_expiry_loses_the_match() -> None:
    c = Clock.start(POLISH).start_action(1, 10.0)
    assert c.flag_time() == 40.0
    assert c.expired(39.5) is None
    assert c.expired(40.0) == 1
    assert c.remaining(1, 40.0) == ClockReading(0.0, 270.0, True, True, True)
    assert play(Clock.start(POLISH), 1, 10.0, 40.0).loser == 1


def test_polish_move_clock_expiry_keeps_the_game_time_left() -> None:
    # The move clock ran out after 30 s: the game clock, which ran with it, has 270 s left,
    # and that is what the lost side's clock shows afterwards (not 0:00), however late the
    # time-out is processed.
    ended = play(Clock.start(POLISH), 1, 10.0, 55.0)
    assert ended.loser == 1
    assert ended.banks == (300.0, 270.0)
    assert ended.remaining(1, 100.0) == ClockReading(0.0, 270.0, False, False, True)
    # a game clock that ran out first leaves nothing
    c = Clock.start(POLISH)
    for n in range(10):
        c = play(c, 0, 28.0 * n, 28.0 * (n + 1))
    ended = play(c, 0, 280.0, 301.0)
    assert ended.loser == 0
    assert ended.banks[0] == 0.0
    assert ended.remaining(0, 400.0).game_left == 0.0


def test_polish_game_clock_expiry_loses_the_match() -> None:
    c = Clock.start(POLISH)
    t = 0.0
    for _ in range(10):  # 10 moves of 28 s: 280 s of the game clock spent
        c = play(c, 0, t, t + 28.0)
        t += 28.0
    assert c.banks[0] == 20.0
    c = c.start_action(0, t)
    assert c.flag_time() == t + 20.0  # the game clock runs out before the move clock
    assert c.remaining(0, t + 19.0) == ClockReading(11.0, 1.0, True, True, False)
    assert c.expired(t + 20.0) == 0
    assert c.remaining(0, t + 20.0) == ClockReading(10.0, 0.0, True, True, True)


def test_polish_low_time_warns_on_move_or_game_clock() -> None:
    c = Clock.start(POLISH).start_action(0, 0.0)
    assert not c.remaining(0, 19.0).is_low
    assert c.remaining(0, 20.0).is_low


def test_polish_game_clock_is_set_at_the_start_of_each_game() -> None:
    c = play(Clock.start(POLISH), 0, 0.0, 25.0)
    assert c.new_game().banks == (300.0, 300.0)
    kept = play(Clock.start(GameAndMoveClock(reset_each_game=False)), 0, 0.0, 25.0)
    assert kept.new_game().banks == (275.0, 300.0)


def test_polish_settings_are_configurable() -> None:
    c = Clock.start(GameAndMoveClock(game_time=60.0, move_time=5.0)).start_action(0, 0.0)
    assert c.flag_time() == 5.0
    assert c.remaining(0, 1.0) == ClockReading(4.0, 59.0, True, True, False)


# -- untimed, API shape, bad input -------------------------------------------------------------


def test_untimed_play_is_no_clock_at_all() -> None:
    with pytest.raises(ClockError):
        Clock.start(None)  # type: ignore[arg-type]


def test_values_are_immutable_and_operations_return_new_values() -> None:
    c = Clock.start(ITALIAN)
    d = c.start_action(0, 1.0)
    assert c.running is None and d.running == 0
    with pytest.raises(FrozenInstanceError):
        c.running = 1  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        ITALIAN.delay = 1.0  # type: ignore[misc]


def test_start_action_is_idempotent_for_the_running_side() -> None:
    c = Clock.start(ITALIAN).start_action(0, 1.0)
    assert c.start_action(0, 5.0) is c
    assert c.start_action(0, 5.0).remaining(0, 5.0).delay_left == 11.0


def test_nothing_runs_before_an_action_starts() -> None:
    c = Clock.start(ITALIAN)
    assert c.flag_time() is None
    assert c.expired(1e9) is None
    assert c.remaining(0, 1e9) == ClockReading(15.0, 20.0, False, False, False)


@pytest.mark.parametrize("settings", [ITALIAN, POLISH])
def test_bad_operations_raise_and_leave_the_clock_unchanged(settings: ClockSettings) -> None:
    idle = Clock.start(settings)
    running = idle.start_action(0, 10.0)
    bad: list[tuple[Clock, str, tuple[Any, ...]]] = [
        (idle, "end_action", (0, 11.0)),  # nothing is running
        (running, "end_action", (1, 11.0)),  # wrong side
        (running, "start_action", (1, 11.0)),  # the other side still runs
        (running, "end_action", (0, 9.0)),  # earlier than the start
        (running, "remaining", (0, 9.0)),
        (running, "expired", (9.0,)),
        (play(idle, 0, 10.0, 12.0), "start_action", (1, 11.0)),  # before the last action's end
        (idle, "start_action", (0, -1.0)),  # negative now
        (idle, "start_action", (0, math.nan)),
        (idle, "start_action", (0, math.inf)),
        (idle, "start_action", (0, "1.0")),
        (idle, "start_action", (0, True)),
        (idle, "start_action", (2, 1.0)),  # no such side
        (idle, "start_action", (-1, 1.0)),
        (idle, "start_action", (True, 1.0)),
        (idle, "remaining", (2, 1.0)),
        (running, "new_game", ()),
    ]
    for value, method, args in bad:
        snapshot = (value.banks, value.running, value.since, value.last, value.loser)
        with pytest.raises(ClockError):
            getattr(value, method)(*args)
        assert (value.banks, value.running, value.since, value.last, value.loser) == snapshot


@pytest.mark.parametrize(
    "make",
    [
        lambda: DelayReserve(delay=-1.0),
        lambda: DelayReserve(delay=math.nan),
        lambda: DelayReserve(initial_reserve=0.0),
        lambda: DelayReserve(initial_reserve=200.0),  # above the cap
        lambda: DelayReserve(max_bonus=-5.0),
        lambda: DelayReserve(reserve_cap=math.inf),
        lambda: DelayReserve(low_reserve=-1.0),
        lambda: DelayReserve(delay="15"),  # type: ignore[arg-type]
        lambda: DelayReserve(reset_each_game=1),  # type: ignore[arg-type]
        lambda: DelayReservePerPoint(reserve_per_point=-60.0),
        lambda: DelayReservePerPoint(reserve_per_point=100.0, reserve_cap_per_point=90.0),
        lambda: GameAndMoveClock(game_time=0.0),
        lambda: GameAndMoveClock(move_time=-30.0),
        lambda: GameAndMoveClock(low_time=math.nan),
        lambda: Clock.start(ITALIAN, match_length=0),
        lambda: Clock.start(DelayReservePerPoint(), match_length=-3),
        lambda: Clock.start(DelayReservePerPoint(), match_length=2.5),  # type: ignore[arg-type]
        lambda: Clock.start("italian"),  # type: ignore[arg-type]
        lambda: Clock(ITALIAN, (20.0, -1.0)),
        lambda: Clock(ITALIAN, (20.0, 20.0), running=0),  # running without a start time
    ],
)
def test_unknown_settings_values_raise_clock_error(make: Any) -> None:
    with pytest.raises(ClockError):
        make()


def test_clock_error_is_a_value_error() -> None:
    assert issubclass(ClockError, ValueError)


def test_module_doctests() -> None:
    result = doctest.testmod(clock_module)
    assert result.attempted > 0
    assert result.failed == 0


# -- properties ---------------------------------------------------------------------------------

durations = st.floats(min_value=0.0, max_value=200.0, allow_nan=False)
gaps = st.floats(min_value=0.0, max_value=5.0, allow_nan=False)
origins = st.floats(min_value=0.0, max_value=1e7, allow_nan=False)


@st.composite
def settings_and_length(draw: st.DrawFn) -> tuple[ClockSettings, int | None]:
    kind = draw(st.sampled_from(["italian", "per_point", "polish"]))
    secs = st.floats(min_value=0.0, max_value=60.0, allow_nan=False)
    pos = st.floats(min_value=0.5, max_value=120.0, allow_nan=False)
    if kind == "italian":
        start = draw(pos)
        cap = start + draw(secs)
        italian = DelayReserve(draw(secs), start, draw(secs), cap, draw(secs), draw(st.booleans()))
        return italian, None
    if kind == "per_point":
        per = draw(pos)
        settings = DelayReservePerPoint(draw(secs), per, per + draw(secs), draw(secs), draw(secs))
        return settings, draw(st.integers(min_value=1, max_value=25))
    return GameAndMoveClock(draw(pos) * 5, draw(pos), draw(secs), draw(st.booleans())), None


def cap_of(c: Clock) -> float:
    s = c.settings
    if isinstance(s, DelayReserve):
        return s.reserve_cap
    if isinstance(s, DelayReservePerPoint):
        assert c.match_length is not None
        return s.reserve_cap_per_point * c.match_length
    return s.game_time


@given(
    settings_and_length(),
    origins,
    st.lists(st.tuples(st.integers(0, 1), durations, gaps), max_size=40),
)
def test_reserve_never_exceeds_cap_and_never_negative(
    sl: tuple[ClockSettings, int | None], origin: float, actions: list[tuple[int, float, float]]
) -> None:
    settings, length = sl
    c = Clock.start(settings, match_length=length)
    t = origin
    for side, duration, gap in actions:
        before = c.banks[side]
        c = c.start_action(side, t)
        t += duration
        c = c.end_action(side, t)
        t += gap
        assert all(0.0 <= b <= cap_of(c) for b in c.banks)
        if isinstance(settings, GameAndMoveClock):
            assert c.banks[side] <= before  # the game clock never grows
        else:
            assert c.banks[side] <= before + settings.max_bonus
        if c.loser is not None:
            if isinstance(settings, GameAndMoveClock):
                # the game clock keeps what a move that ran out of move time left of it
                assert c.banks[c.loser] == pytest.approx(max(0.0, before - settings.move_time))
                assert c.remaining(c.loser, t).game_left == c.banks[c.loser]
            else:
                assert c.banks[c.loser] == 0.0
            assert c.expired(t) == c.loser
            break
        assert all(b > 0.0 for b in c.banks)  # a side still playing has time left


@given(settings_and_length(), origins, durations, durations, durations)
def test_remaining_time_never_increases_while_a_timer_runs(
    sl: tuple[ClockSettings, int | None], origin: float, warmup: float, a: float, b: float
) -> None:
    settings, length = sl
    c = play(Clock.start(settings, match_length=length), 0, origin, origin + warmup)
    assume(c.loser is None)
    start = origin + warmup
    c = c.start_action(0, start)
    t1, t2 = start + min(a, b), start + max(a, b)
    r1, r2 = c.remaining(0, t1), c.remaining(0, t2)
    assert r2.action_left <= r1.action_left
    assert r2.bank_left <= r1.bank_left
    assert r1.expired <= r2.expired  # once expired, stays expired
    assert r2.action_left >= 0.0 and r2.bank_left >= 0.0
    assert r1.bank_left <= c.banks[0]
    assert c.remaining(1, t2) == c.remaining(1, start)  # the idle side's clock stands still


@given(settings_and_length(), origins, durations)
def test_flag_time_is_exactly_when_expired_first_reports_the_side(
    sl: tuple[ClockSettings, int | None], origin: float, warmup: float
) -> None:
    settings, length = sl
    c = play(Clock.start(settings, match_length=length), 1, origin, origin + warmup)
    assume(c.loser is None)
    start = origin + warmup
    c = c.start_action(1, start)
    flag = c.flag_time()
    assert flag is not None and flag >= start
    assert c.expired(flag) == 1
    at_flag = c.remaining(1, flag)
    assert at_flag.expired
    assert min(at_flag.action_left, at_flag.bank_left) == 0.0  # exactly zero: lost
    if not isinstance(settings, GameAndMoveClock):
        assert at_flag.reserve_left == 0.0
    assert c.end_action(1, flag).loser == 1
    just_before = math.nextafter(flag, -math.inf)
    if just_before >= start:
        assert c.expired(just_before) is None
        r = c.remaining(1, just_before)
        assert not r.expired and r.action_left + r.bank_left > 0.0
        ended = c.end_action(1, just_before)
        assert ended.loser is None and ended.banks[1] > 0.0


@given(origins, st.floats(0.0, 15.0), st.floats(0.0, 15.0))
def test_faster_actions_earn_at_least_as_much_reserve(
    origin: float, fast: float, slow: float
) -> None:
    fast, slow = min(fast, slow), max(fast, slow)
    base = Clock.start(ITALIAN)
    quick = play(base, 0, origin, origin + fast).banks[0]
    slowly = play(base, 0, origin, origin + slow).banks[0]
    # (origin + 15 s) - origin may round past 15 s: allow that rounding noise below 20 s
    assert 20.0 - 1e-9 <= slowly <= quick <= 25.0


@given(settings_and_length(), origins, durations, st.floats(min_value=1e-9, max_value=1e7))
def test_decreasing_now_raises_and_leaves_the_clock_unchanged(
    sl: tuple[ClockSettings, int | None], origin: float, duration: float, back: float
) -> None:
    settings, length = sl
    c = Clock.start(settings, match_length=length).start_action(0, origin + duration)
    earlier = (origin + duration) - back
    assume(earlier < c.last)
    snapshot = (c.banks, c.running, c.since, c.last, c.loser)
    for call in (
        lambda: c.end_action(0, earlier),
        lambda: c.remaining(0, earlier),
        lambda: c.remaining(1, earlier),
        lambda: c.expired(earlier),
    ):
        with pytest.raises(ClockError):
            call()
    assert (c.banks, c.running, c.since, c.last, c.loser) == snapshot


def test_a_pause_moves_the_running_action_start_and_charges_nothing_for_it() -> None:
    settings = GameAndMoveClock()
    c = Clock.start(settings).start_action(1, now=10.0)
    before = c.remaining(1, 14.0)
    p = c.paused(60.0)
    assert p.since == 70.0 and p.running == 1 and p.banks == c.banks
    assert p.remaining(1, 74.0) == before
    assert p.flag_time() == c.flag_time() + 60.0  # type: ignore[operator]
    assert p.end_action(1, 74.0).banks == c.end_action(1, 14.0).banks
    idle = Clock.start(DelayReserve())
    assert idle.paused(5.0) is idle
    assert c.paused(0.0) == c
    with pytest.raises(ClockError):
        c.paused(-1.0)
    with pytest.raises(ClockError):
        c.paused(math.nan)
