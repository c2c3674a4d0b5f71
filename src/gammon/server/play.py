"""Play: players' actions, the flag timers, the bots and chat, in the hub's rooms.

Server-made actions: the opening roll of every game (as soon as both seats are taken, and
after each game) and rolls for a player with the auto-roll option are the room's own
(:meth:`Room.automatic_action <gammon.server.rooms.Room.automatic_action>`); here are the
timeouts when a clock runs out (a timer set at the flag time plus the lag allowance), and
the bot's actions (computed off the event loop with ``asyncio.to_thread``: the engine's
:func:`~gammon.server.bots.decide` makes every decision of the bot — doubles, takes, drops,
beavers, resignations and their answers, and the checker play).

Clocks (RULES.md §7): the core's :class:`~gammon.core.clock.Clock`, with wall-clock seconds
(``time.time()``, shared by processes on one host or NTP-synchronised hosts). One timed
*action* is a stretch in which the same player must act in the same phase: rolling (or
doubling), moving (every step of one turn together), answering a cube or resign offer. Lag
compensation: an action by a player is timed at ``received - min(lag, lag_cap)``, where
``lag`` is half the round trip the server measured on that player's socket (ping/pong), never
earlier than the action's start. The clock time of each action is stored with it.
"""

from __future__ import annotations

import asyncio
import time

from gammon.core import actions as A
from gammon.core.dice import Roll
from gammon.core.errors import IllegalActionError, NotYourTurnError
from gammon.core.match import Phase
from gammon.server import bots, protocol
from gammon.server.bus_messages import forward
from gammon.server.hub import Connection, Hub, LiveRoom, Proposal, ServiceError
from gammon.server.rooms import runner


def _as_decided(action: A.Action, seq: int) -> Proposal:
    """``action``, decided for the state after action ``seq``; after catching up with
    another process's move, nothing (the bot decides anew)."""
    return lambda room: action if room.seq == seq else None


def _expired(room: LiveRoom) -> A.Action | None:
    """A time-out if the running clock has expired by the room's latest action time or
    now."""
    clock = room.clock
    side = None if clock is None else clock.expired(max(time.time(), room.last_at))
    return None if side is None else A.Timeout(side)


class Play:
    """Play in the rooms of ``hub``: it sets itself as the hub's change hook."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.settings = hub.settings
        hub.on_change = self.changed

    async def act(self, conn: Connection, message: protocol.ActionMessage,
                  received: float) -> None:
        """A player's proposed action: accepted, stored, broadcast — or refused, unchanged
        (counted and timed: :meth:`Observer.action
        <gammon.server.observer.Observer.action>`)."""
        with self.hub.observer.action(message.match, conn.user.id, message.type, received):
            await self._act_in_room(conn, message, received)

    async def _act_in_room(self, conn: Connection, message: protocol.ActionMessage,
                           received: float) -> None:
        room = await self.hub.room(message.match)
        if room is None:
            raise ServiceError("not_found", f"no match {message.match}")
        seat = room.seat_of(conn.user.id)
        if seat is None:
            raise ServiceError("not_a_player", "you do not hold a seat in this match")
        async with room.lock:
            try:
                await self._act(room, conn, seat, message, received)
            finally:
                self.hub.flush(room)
        self.hub.after_change(room, local=True)

    async def _act(self, room: LiveRoom, conn: Connection, seat: int,
                   message: protocol.ActionMessage,
                   received: float) -> None:
        if room.match is None:
            raise ServiceError("not_started", "the match has not started")
        if message.v is not None and message.v != room.version:
            raise ServiceError("stale", f"the match is at version {room.version}")
        lag = min(conn.lag, self.settings.lag_cap)
        clock = room.clock
        at = max(room.last_at, received - lag)
        if clock is not None and clock.running is not None:
            at = max(at, clock.since or 0.0)
            side = clock.expired(at)
            if side is not None:
                await self.hub.transition(room, _expired, at)
                raise ServiceError("time_out", f"player {side} ran out of time")

        def proposed(room: LiveRoom) -> A.Action:
            assert room.match is not None
            if message.type != "roll":
                return protocol.message_action(message, seat)
            if not room.match.game.can_roll(seat):
                room.match.apply(A.RollDice(seat, Roll(1, 2)))  # the precise refusal
                raise ServiceError("illegal", "you cannot roll now", "wrong_phase")
            return room.match.game.roll_action(room.dice().source(room.dice_count))

        try:
            await self.hub.transition(room, proposed, at)
        except NotYourTurnError as error:
            raise ServiceError("not_your_turn", str(error)) from None
        except IllegalActionError as error:
            raise ServiceError("illegal", str(error), protocol.illegal_reason(error)) from None

    async def timeout_check(self, room: LiveRoom) -> None:
        async with room.lock:
            room.timer = None
            clock = room.clock
            now = max(time.time(), room.last_at)
            if clock is None or room.match is None or room.match.is_over:
                return
            side = clock.expired(now)
            if side is None:
                return
            try:
                await self.hub.transition(room, _expired, now)
            except IllegalActionError:
                return
            finally:
                self.hub.flush(room)
        self.hub.after_change(room, local=True)

    def _arm_timer(self, room: LiveRoom) -> None:
        """(Re)set the timer that checks the running clock when its flag should fall."""
        if room.timer is not None:
            room.timer.cancel()
            room.timer = None
        if self.hub.closed or room.match is None or room.match.is_over:
            return
        flag = room.clock.flag_time() if room.clock is not None else None
        if flag is not None:
            delay = max(0.0, flag + self.settings.lag_cap - time.time())
            room.timer = asyncio.get_running_loop().call_later(
                delay, lambda: self.hub.spawn(self.timeout_check(room)))

    def changed(self, room: LiveRoom, local: bool) -> None:
        """The hub's change hook (:meth:`Hub.after_change`): set the flag timer, and let a
        bot act if it is its turn (only in the process that made the change, or loaded the
        match, so two processes seldom both move a bot; when they do, the action numbers let
        one of them through)."""
        self._arm_timer(room)
        match = room.match
        if match is None or match.is_over:
            self.hub.maybe_evict(room)
            return
        side = runner(match)
        if local and side is not None and room.is_bot(side):
            self.hub.spawn(self.bot_turn(room))

    async def bot_turn(self, room: LiveRoom) -> None:
        with self.hub.observer.bot_turn(room.id):
            await self._bot_turn(room)

    async def _bot_turn(self, room: LiveRoom) -> None:
        if self.settings.bot_delay:
            await asyncio.sleep(self.settings.bot_delay)
        more = False  # eight actions made and a bot still to act (two bots play)
        async with room.lock:
            for _ in range(8):
                match = room.match
                if match is None or match.is_over:
                    break
                side = runner(match)
                if side is None or not room.is_bot(side):
                    break
                level = room.bot_level(side)
                decided = await asyncio.to_thread(bots.decide, match, side, level)
                action: A.Action
                if decided is not None:
                    action = decided
                elif match.phase is Phase.BEFORE_ROLL:
                    action = match.game.roll_action(room.dice().source(room.dice_count))
                else:
                    break
                try:
                    await self.hub.transition(room, _as_decided(action, room.seq), time.time())
                finally:
                    self.hub.flush(room)
            else:
                more = True
        self.hub.after_change(room, local=more)  # local: the next bot's turn, here

    # -- chat ----------------------------------------------------------------------------

    async def chat(self, conn: Connection, match_id: str, text: str) -> None:
        room = await self.hub.room(match_id)
        if room is None:
            raise ServiceError("not_found", f"no match {match_id}")
        seat = room.seat_of(conn.user.id)
        if seat is None:
            raise ServiceError("not_a_player", "only the players chat in a match")
        payload = protocol.chat_line(match_id, seat, conn.user.name, text, time.time())
        room.chat.append(payload)
        self.hub.send_all(room, payload, chat=True)
        await self.hub.publish(forward(match_id, payload))
