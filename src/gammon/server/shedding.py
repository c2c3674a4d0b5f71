"""Moves first under overload: when a process has more HTTP requests in flight than it keeps
up with, or its event loop runs late, it refuses the requests that can wait, so that the
moves of the matches in play (on their sockets, never refused here) keep their latency.

The order of shedding (published in docs/server.md, *Moves first*), each step from a
threshold of its own (the settings ``shed_*``):

1. **first**, from ``shed_in_flight_first`` requests in flight or ``shed_lag_first``
   seconds behind (the event loop's lag, or the recent match actions' average latency:
   :meth:`gammon.server.ops.Ops.behind`): the engine's answers (``/api/hint``,
   ``/api/eval``, ``/api/v1/``), the puzzles, the deck, the explorer, the analyses asked
   for (``GET /api/games/{id}/analysis``), the dice statistics, the leaderboard;
2. **then**, from ``shed_in_flight_second`` or ``shed_lag_second``: new matches and joins
   (``POST /api/games``, ``POST /api/games/{id}/join``, rematches), sign-ups and new guests.

Besides, new matches, joins and rematches are refused (step ``full``, ``Retry-After`` 5 to 10 s)
while the process holds ``shed_matches_in_play`` matches in play
(:meth:`gammon.server.hub.Hub.full`): admission by the matches in play, before the process
runs late. A lag rises only once the matches admitted already take the whole core, and a
match admitted stays for minutes, so the lag's step alone lets in too many (docs/server.md,
*Overload*). Play now pairs nobody in a full process meanwhile (its seekers wait).

Besides, at most ``shed_first_at_once`` requests of the first group are served at once in
a process (a bulkhead: a flood of them cannot take the process from the matches); more are
refused the same way.

How far behind the process runs counts only while ``shed_lag_in_flight`` (2) other
requests are in flight at least: a garbage collection or a slow disk alone does not refuse
a lone player's hint.

A refused request gets **503** ``busy`` with ``Retry-After`` and changes nothing; it is
counted in ``gammon_shed_requests_total`` (by step). Everything else (the sockets, a match's
own pages and exports, sign-in, the probes) is never refused here.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from gammon.server.settings import Settings

FIRST = re.compile(r"^(GET|POST|PUT|DELETE) /api/(hint|eval|v1/|puzzles|deck|explorer|"
                   r"dice-stats|leaderboard)|^GET /api/games/[^/]+/analysis")
"""The requests refused first."""
SECOND = re.compile(r"^POST /api/(games(/[^/]+/(join|rematch))?|register|guest)$")
"""The requests refused next."""
STARTS_A_MATCH = re.compile(r"^POST /api/games(/[^/]+/(join|rematch))?$")
"""The requests refused while the process is full of matches."""
RETRY_WHEN_FULL = (5, 10)
"""The seconds a create refused while the process is full waits, drawn in this range: a
match in play takes minutes to end, each refusal costs the process a little of the core
the matches need, and refused clients told one same wait come back all in one second."""

BODY = json.dumps({"detail": {"code": "busy", "message": "the server is busy with the "
                              "matches in play: try again in a moment"}}).encode()


def retry_after(step: str) -> bytes:
    """The ``Retry-After`` of a refusal at ``step``."""
    return str(random.randint(*RETRY_WHEN_FULL)).encode() if step == "full" else b"2"


class Shedding:
    """ASGI middleware: counts this process's HTTP requests in flight and refuses those that
    can wait, in the order above, while the process is overloaded."""

    def __init__(self, app: ASGIApp, settings: Settings, lag: Callable[[], float],
                 full: Callable[[], bool], count: Callable[[str], None]) -> None:
        """``lag``: how far behind the process runs (seconds); ``full``: whether it holds
        as many matches in play as it takes; ``count``: counts a refusal by its step
        (``first``, ``second`` or ``full``)."""
        self.app = app
        self.settings = settings
        self.lag = lag
        self.full = full
        self.count = count
        self.in_flight = 0
        self.waiting_ones = 0  # the first group's requests in flight

    def step(self) -> int:
        """How far the process sheds now: 0 nothing, 1 the first group, 2 both."""
        s = self.settings
        # a lag alone (a collection, a slow disk) does not shed while few requests wait: a
        # lone player's hint is never refused
        lag = self.lag() if self.in_flight >= s.shed_lag_in_flight else 0.0
        if self.in_flight >= s.shed_in_flight_second or lag >= s.shed_lag_second:
            return 2
        if self.in_flight >= s.shed_in_flight_first or lag >= s.shed_lag_first:
            return 1
        return 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.settings.shed_load:
            await self.app(scope, receive, send)
            return
        step = self.step()
        request = f"{scope['method']} {scope['path']}"
        can_wait = FIRST.search(request) is not None
        which = None
        if step or (can_wait and self.waiting_ones >= self.settings.shed_first_at_once):
            which = ("first" if can_wait else
                     "second" if step == 2 and SECOND.search(request) else None)
        if which is None and STARTS_A_MATCH.search(request) and self.full():
            which = "full"
        if which is not None:
            self.count(which)
            await send({"type": "http.response.start", "status": 503,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"retry-after", retry_after(which)),
                                    (b"content-length", str(len(BODY)).encode())]})
            await send({"type": "http.response.body", "body": BODY})
            return
        self.in_flight += 1
        self.waiting_ones += can_wait
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1
            self.waiting_ones -= can_wait
