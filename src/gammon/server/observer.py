"""What the services report as they work, for the metrics and the logs: the hook that
:class:`gammon.server.ops.Ops` fills in (:class:`~gammon.server.ops.Ops` is one). The hub
and play call it where the work is done, so what runs is what their code says; the default
:class:`Observer` reports nowhere (the tests' servers, a hub without an app)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager


class Observer:
    """Reports nothing; :class:`gammon.server.ops.Ops` counts, times and logs."""

    def action(self, match: str, user: int, kind: str, received: float
               ) -> AbstractContextManager[None]:
        """Around the handling of a player's action of type ``kind`` in ``match``, received
        at ``received`` (its result is the refusal's code it raises, or ``ok``)."""
        return _nothing()

    def bot_turn(self, match: str) -> AbstractContextManager[None]:
        """Around a bot's turn in ``match``: waiting for the engine and deciding."""
        return _nothing()

    def bus_failed(self) -> None:
        """A message could not be published on the bus."""


@contextmanager
def _nothing() -> Iterator[None]:
    yield
