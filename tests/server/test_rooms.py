"""The room state machine (:mod:`gammon.server.rooms`) on its own: no server, no database,
no event loop. A transition is planned without changing the room, committed step by step,
and a room replayed from the stored records of its transitions is the room that wrote
them."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from gammon.core import actions as A
from gammon.core.errors import IllegalActionError
from gammon.core.match import Phase
from gammon.server.fairness import commitment
from gammon.server.rooms import (
    Room,
    Step,
    rules_for,
    rules_json,
    runner,
    stored_row,
)
from gammon.views import MatchConfig

SEED = "cd" * 32


def seated_room(clock: str = "polish", length: int = 3) -> Room:
    """A match with both seats taken, before its opening roll."""
    config = MatchConfig(kind="match", length=length, clock=clock)
    row = SimpleNamespace(
        id="m1", config=config, status="playing", player0=1, player1=2,
        server_seed=SEED, seed_hash=commitment(SEED), client_seed0="a", client_seed1="b",
        private=False, rated=False, reserved_for=None, rematch_of=None,
        rules=rules_json(rules_for(config)), result=None)
    return Room.from_row(row)


def a_move(room: Room) -> A.Action:
    """The action of the player on turn: roll, or the first legal play."""
    assert room.match is not None
    game = room.match.game
    if game.phase is Phase.BEFORE_ROLL:
        return game.roll_action(room.dice().source(room.dice_count))
    assert game.phase is Phase.MOVING
    return A.PlayMove(game.turn, game.remaining_plays()[0])


def play_through(room: Room, at: float = 1000.0, limit: int = 5000) -> list[list[Step]]:
    """Play the match to its end: the opening, then one planned and committed transition
    per player action; the steps of every transition, in order."""
    transitions = [room.plan(None, at, at)]
    for _n in range(limit):
        for step in transitions[-1]:
            room.commit(step)
        assert room.match is not None
        if room.match.is_over:
            return transitions
        at += 1.0
        transitions.append(room.plan(a_move(room), at, at))
    raise AssertionError(f"no end after {limit} actions")


def test_plan_leaves_the_room_unchanged_and_commit_reaches_the_planned_state() -> None:
    room = seated_room()
    steps = room.plan(None, 100.0, 100.0)  # only the server's own action: the opening
    assert [type(s.action) for s in steps] == [A.RollOpening]
    assert room.seq == 0 and room.version == 0 and room.match is not None
    assert room.match.phase is Phase.OPENING and room.dice_count == 0
    events = [e for step in steps for e in room.commit(step)]
    assert room.match is steps[-1].match and room.clock is steps[-1].clock
    assert room.seq == 1 and room.dice_count == 1 and room.last_at == 100.0
    assert room.version == len(events) and [e["v"] for e in events] == \
        list(range(1, len(events) + 1))
    # the opener's clock runs from the opening's time
    assert room.clock is not None and room.clock.running == runner(room.match)
    assert room.clock.since == 100.0


def test_the_opening_is_a_function_of_the_seeds() -> None:
    first, second = seated_room(), seated_room()
    assert first.plan(None, 1.0, 1.0)[0].action == second.plan(None, 5.0, 5.0)[0].action


def test_a_refused_action_raises_and_changes_nothing() -> None:
    room = seated_room()
    for step in room.plan(None, 100.0, 100.0):
        room.commit(step)
    match, clock, seq, events = room.match, room.clock, room.seq, list(room.events)
    assert match is not None
    with pytest.raises(IllegalActionError):
        room.plan(A.Take(match.game.turn), 101.0, 101.0)  # no double was offered
    assert (room.match, room.clock, room.seq, room.events) == (match, clock, seq, events)


def test_a_game_end_and_the_next_opening_are_one_transition() -> None:
    room = seated_room(clock="none")
    transitions = play_through(room)
    assert room.match is not None and room.match.is_over and room.status == "finished"
    game_ends = [steps for steps in transitions
                 if any(s.match.phase is Phase.GAME_OVER for s in steps)]
    assert len(game_ends) == room.match.number - 1 >= 1  # the last game ends the match
    for steps in game_ends:
        assert [type(s.action) for s in steps[1:]] == [A.RollOpening]
        assert steps[-1].match.number == steps[0].match.number + 1


@pytest.mark.parametrize("clock", ["none", "polish", "italian"])
def test_a_room_replayed_from_its_log_is_the_room_that_wrote_it(clock: str) -> None:
    live = seated_room(clock)
    rows = [stored_row(step) for steps in play_through(live) for step in steps]
    rebuilt = seated_room(clock)
    events = [e for _kind, action, at in rows for e in rebuilt.replay(json.loads(action), at)]
    assert events == live.events == rebuilt.events
    assert rebuilt.match == live.match and rebuilt.clock == live.clock
    assert (rebuilt.seq, rebuilt.dice_count, rebuilt.last_at, rebuilt.status) == \
        (live.seq, live.dice_count, live.last_at, live.status) == \
        (len(rows), live.dice_count, live.last_at, "finished")
