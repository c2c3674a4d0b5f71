"""The work of one post-match analysis, as it runs in the analysis worker's child process
(:mod:`gammon.server.analysis_worker`).

Kept apart from the worker so that the child imports only what the analysis needs, and
light at the top: :func:`init` runs in the child before the engine (and numpy) is imported,
so it can still limit the numeric libraries to one thread and lower the child's priority.

The match is analysed exactly as ``gammon analyse --format json`` (with the server's
recheck options, or ``--recheck-games 0``) analyses the match's exported ``.mat`` file:
the stored actions become a :class:`MatchRecord` (as the export builds it), whose
actions are replayed from its start by :func:`gammon.engine.analysis.analyse_actions`, and
the report is its :func:`gammon.views.analysis_view`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gammon.engine.puzzles import Puzzle
    from gammon.server.explorer import Choice

_progress: Any = None
"""The queue the child reports progress on: ``(match_id, plies, games done, games)``."""

_THREAD_LIMITS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                  "NUMEXPR_NUM_THREADS")


def init(progress: Any, nice: int) -> None:
    """Set up a worker process: one numeric thread, ``nice`` lower priority, the queue, and
    a watch that ends it when the server process is gone (killed: nothing else would)."""
    global _progress
    for name in _THREAD_LIMITS:
        os.environ[name] = "1"
    if nice > 0:
        os.nice(nice)
    _progress = progress
    threading.Thread(target=_orphaned, args=(os.getppid(),), daemon=True,
                     name="parent-watch").start()


def _orphaned(parent: int) -> None:
    """Exit once the parent (the server) has died: the process is re-parented."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _report(match_id: str, plies: int, done: int, total: int) -> None:
    if _progress is not None:
        _progress.put((match_id, plies, done, total))


def analyse(match_id: str, plies: int, rules: str, names: Sequence[str],
            actions: Sequence[str], recheck: tuple[int, int] | None = None,
            puzzles: bool = False) -> tuple[str, list[Puzzle], list[Choice]]:
    """The analysis JSON of a match from its stored rules (JSON), players' names and
    action log (the JSON of each action, clock pauses left out), and, with ``puzzles`` (the
    deepest analysis), the puzzles of its decisions
    (:func:`gammon.engine.puzzles.puzzles_of`) and its checker plays with their games'
    results (:func:`gammon.server.explorer.choices_of`); progress is
    reported per game as the analysis reaches it. ``recheck``: (games, plies) of the
    rollouts that grade each flagged checker error again, as ``gammon analyze
    --recheck-games --recheck-truncate`` (None: no recheck, ``--recheck-games 0``)."""
    import json

    from gammon.engine.analysis import Recheck, analyse_actions
    from gammon.engine.puzzles import puzzles_of
    from gammon.formats.matchfile import MatchRecord
    from gammon.server import protocol
    from gammon.server.explorer import choices_of
    from gammon.server.exports import player_name
    from gammon.server.rooms import rules_from_json
    from gammon.views import analysis_view

    record = MatchRecord.from_match_actions(
        [protocol.action_from_json(json.loads(text)) for text in actions],
        rules=rules_from_json(rules),
        players=(player_name(names[0], 0), player_name(names[1], 1)))
    total = len(record.games)
    _report(match_id, plies, 0, total)

    def progress(game: int) -> None:
        if game > 1:  # the first game's start is the report above
            _report(match_id, plies, game - 1, total)

    analysis = analyse_actions(record.actions(), record.rules, names=record.players,
                               plies=plies, start=record.new_match(), progress=progress,
                               recheck=None if recheck is None else Recheck(
                                   games=recheck[0], truncate=recheck[1]))
    if not puzzles:
        return json.dumps(analysis_view(analysis), indent=2), [], []
    return (json.dumps(analysis_view(analysis), indent=2), puzzles_of(analysis),
            choices_of(analysis.decisions, [game.result for game in record.games]))
