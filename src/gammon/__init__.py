"""gammon: backgammon rules, engine, formats and server.

The names most programs need are here:

>>> from gammon import Engine, Match, Position, Roll, legal_plays
>>> len(legal_plays(Position.initial(), Roll(6, 5)))
7
>>> str(Engine.load().rank_plays(Position.initial(), Roll(3, 1))[0].play)
'8/5 6/5'

The rules (:mod:`gammon.core`) load without the engine; ``Engine`` (numba and the
networks, :mod:`gammon.engine.player`) is imported when first named.
"""

from __future__ import annotations

from importlib import metadata
from typing import TYPE_CHECKING

from gammon import _kernel_cache

_kernel_cache.configure()

from gammon.core.dice import Roll  # noqa: E402 - the kernel cache is configured first
from gammon.core.match import Match  # noqa: E402
from gammon.core.moves import Play, legal_plays  # noqa: E402
from gammon.core.position import Position  # noqa: E402

if TYPE_CHECKING:
    from gammon.engine.player import Engine

__all__ = ["Engine", "Match", "Play", "Position", "Roll", "__version__", "legal_plays"]

try:
    __version__ = metadata.version("gammon")
except metadata.PackageNotFoundError:  # run from a source tree that is not installed
    __version__ = "0+unknown"


def __getattr__(name: str) -> object:
    if name == "Engine":
        from gammon.engine.player import Engine

        return Engine
    raise AttributeError(f"module 'gammon' has no attribute {name!r}")
