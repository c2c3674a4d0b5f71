"""A match's stored actions as a match file: ``.mat`` (Jellyfish / GNU Backgammon) or SGF.

``GET /api/games/{id}/export.mat`` and ``export.sgf`` serve :func:`match_file`. Every match
that has started exports, finished or not, "winner rolls anew" included (see
:mod:`gammon.formats.mat` and :mod:`gammon.formats.sgf` for how its opening is written); a
record the writers still refuse raises :class:`ExportError`, which the server answers with
HTTP 409 and the reason, never a server error.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Sequence
from typing import Literal

from gammon.core.match import Rules
from gammon.formats import mat, sgf
from gammon.formats.mat import MatFormatError
from gammon.formats.matchfile import MatchInfo, MatchRecord, MatchRecordError
from gammon.formats.sgf import SgfFormatError
from gammon.server import protocol

FORMATS = {"mat": mat.dumps, "sgf": sgf.dumps}
Format = Literal["mat", "sgf"]


class ExportError(ValueError):
    """A match the match-file writers cannot hold (the message says why)."""


def player_name(name: str, seat: int) -> str:
    """A player's name as both formats can hold it (no ':'; never empty)."""
    name = name.replace(":", "_").strip()
    return name or f"Player {seat + 1}"


def match_file(fmt: Format, *, match_id: str, rules: Rules, names: Sequence[str],
               created_at: float | None, actions: Iterable[str]) -> str:
    """The text of match ``match_id`` as a ``fmt`` file, from its stored action JSON
    (``actions``: the match log's dice and player actions, in order)."""
    played = [protocol.action_from_json(json.loads(text)) for text in actions]
    day = None if created_at is None else datetime.datetime.fromtimestamp(
        created_at, datetime.UTC).date()
    try:
        record = MatchRecord.from_match_actions(
            played, rules=rules,
            players=(player_name(names[0], 0), player_name(names[1], 1)),
            info=MatchInfo(site="gammon", date=day, comment=f"match {match_id}"))
        return FORMATS[fmt](record)
    except (MatchRecordError, MatFormatError, SgfFormatError) as error:
        raise ExportError(f"match {match_id} cannot be written as a .{fmt} file: "
                          f"{error}") from error
