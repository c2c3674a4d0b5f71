"""A match's end: what its last transition stores with it — the result, and in a rated
match both players' new ratings (:func:`gammon.server.ratings.new_ratings`)."""

from __future__ import annotations

import json

from gammon.core.match import Match
from gammon.server.db import Repository
from gammon.server.hub.live import LiveRoom
from gammon.server.ratings import new_ratings
from gammon.server.records import Finish, RatingChange
from gammon.views import result_view


async def finish(repo: Repository, room: LiveRoom, match: Match
                 ) -> tuple[Finish, list[RatingChange]]:
    """The end of ``match`` (over) in ``room``: its result, and the rating changes of a
    rated match, from the players' current ratings."""
    assert match.result is not None
    result = result_view(match)
    ended = Finish(match.result.winner, json.dumps(result))
    if not room.rated:
        return ended, []
    ids = [p for p in room.players if p is not None]
    current = await repo.users(ids)
    winner = current[room.players[match.result.winner]]  # type: ignore[index]
    loser = current[room.players[1 - match.result.winner]]  # type: ignore[index]
    length = room.config.points
    up, down = new_ratings(winner.rating, winner.experience, loser.rating,
                           loser.experience, length)
    return ended, [RatingChange(winner.id, winner.rating, up, length),
                   RatingChange(loser.id, loser.rating, down, length)]
