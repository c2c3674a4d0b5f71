"""The narrow errors the game and match state machines raise (all are ``ValueError``).

Applying an action either returns a new state or raises one of these; states are immutable,
so a refused action changes nothing. Catch :class:`IllegalActionError` to catch them all.
"""

from __future__ import annotations

from gammon.core.moves import IllegalPlayError


class IllegalActionError(ValueError):
    """An action the rules do not allow in this state."""


class NotYourTurnError(IllegalActionError):
    """The action belongs to the other player (it is not this player's turn or answer)."""


class WrongPhaseError(IllegalActionError):
    """The action does not fit the phase: rolling twice, moving before rolling, …"""


class GameOverError(WrongPhaseError):
    """The game has ended: nothing but the next game's opening may follow."""


class MatchOverError(WrongPhaseError):
    """The match (or money session) has ended: no action may follow."""


class CubeNotAvailableError(IllegalActionError):
    """A cube action the rules forbid here (RULES.md §5)."""


class ResignationError(IllegalActionError):
    """A resignation the rules forbid here (RULES.md §6)."""


class IllegalMoveError(IllegalActionError, IllegalPlayError):
    """A play or a checker step the rules do not allow (RULES.md §3).

    It is both an :class:`IllegalActionError` and the move generator's
    :class:`~gammon.core.moves.IllegalPlayError`, so either catches it.
    """
