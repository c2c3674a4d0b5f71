"""A tournament's standings from its rows, by the rules of :mod:`.pairing` (pure: no
storage, no clock), and the views of a tournament.

* **Knockout**: a player's points are the rounds they went through (a bye and a walkover
  count), so the winner is first, the final's loser second, and the players out in the same
  round share their points; ties by rating at the start.
* **Swiss**: :func:`~.pairing.swiss_standings` (points, Buchholz, Sonneborn-Berger,
  rating).
* **Arena**: :func:`~.pairing.arena_points` of each player's results in the order of their
  rounds; ties by matches won, then rating.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from gammon import views
from gammon.server.tournaments.pairing import (
    Entrant,
    arena_points,
    swiss_standings,
)
from gammon.server.tournaments.store import Entry, Pairing, Tournament


def standings(tournament: Tournament, entries: Sequence[Entry],
              pairings: Sequence[Pairing]) -> list[views.TournamentStandingView]:
    """Every entrant's place, best first (a withdrawn player keeps their results)."""
    done = [p for p in pairings if p.winner is not None]
    played = dict.fromkeys((e.user_id for e in entries), 0)
    won = dict.fromkeys((e.user_id for e in entries), 0)
    results: dict[int, list[bool]] = {e.user_id: [] for e in entries}
    advanced = dict.fromkeys((e.user_id for e in entries), 0)
    for p in done:
        winner = p.played.winner
        advanced[winner] = advanced.get(winner, 0) + 1
        if p.second is None or p.reason == "walkover":
            continue  # not played
        for me in (p.first, p.second):
            played[me] += 1
            won[me] += p.winner == me
            results[me].append(p.winner == me)
    by_id = {e.user_id: e for e in entries}
    order = {e.user_id: n for n, e in enumerate(entries)}
    table: list[tuple[int, int, int | None, int | None]] = []  # id, points, bh, sb
    if tournament.format == "swiss":
        entrants = [Entrant(e.user_id, e.rating) for e in entries]
        for s in swiss_standings(entrants, [p.played for p in done]):
            table.append((s.id, s.points, s.buchholz, s.sonneborn_berger))
    else:
        points = {e.user_id: (advanced[e.user_id] if tournament.format == "knockout"
                              else arena_points(results[e.user_id])) for e in entries}
        ranked = sorted(entries, key=lambda e: (
            -points[e.user_id], 0 if tournament.format == "knockout" else -won[e.user_id],
            -e.rating, order[e.user_id]))
        table = [(e.user_id, points[e.user_id], None, None) for e in ranked]
    return [{"place": n, "id": user, "name": by_id[user].name, "points": points_,
             "played": played[user], "won": won[user], "buchholz": bh,
             "sonneborn_berger": sb, "rating": round(by_id[user].rating, 2),
             "withdrawn": by_id[user].withdrawn}
            for n, (user, points_, bh, sb) in enumerate(table, start=1)]


def tournament_view(t: Tournament, organiser: str, players: int,
                    waits: tuple[float, float]) -> views.TournamentView:
    """``waits``: the seconds a match waits for a player's first move, and for a player
    who has moved and stopped (``Settings.tournament_no_show``, ``tournament_stall``)."""
    return {"id": t.slug, "name": t.name, "format": t.format, "length": t.length,
            "clock": t.clock, "rated": t.rated, "private": t.private,
            "starts_at": t.starts_at, "max_players": t.max_players, "rounds": t.rounds,
            "duration": t.duration, "state": t.state, "round": t.round,
            "organiser": organiser, "players": players, "no_show": waits[0], "stall": waits[1],
            "created_at": t.created_at, "started_at": t.started_at, "ends_at": t.ends_at,
            "finished_at": t.finished_at}


def profile_tournament_view(t: Tournament, user_id: int, withdrawn: bool,
                            entries: Sequence[Entry], pairings: Sequence[Pairing]
                            ) -> views.ProfileTournamentView:
    """The tournament in ``user_id``'s profile: once finished, their place in its
    :func:`standings` among every entrant (``entries`` and ``pairings`` are read only
    then)."""
    place = entrants = None
    if t.state == "finished":
        table = standings(t, entries, pairings)
        place = next((s["place"] for s in table if s["id"] == user_id), None)
        entrants = len(table)
    return {"id": t.slug, "name": t.name, "format": t.format, "state": t.state,
            "finished_at": t.finished_at, "place": place, "entrants": entrants,
            "withdrawn": withdrawn}


def rounds_view(pairings: Sequence[Pairing]) -> list[views.TournamentRoundView]:
    out: list[views.TournamentRoundView] = []
    for p in pairings:
        if not out or out[-1]["round"] != p.round:
            out.append({"round": p.round, "pairings": []})
        out[-1]["pairings"].append({
            "board": p.board, "first": p.first, "second": p.second, "match": p.match_id,
            "winner": p.winner, "reason": p.reason, "made_at": p.made_at,
            "finished_at": p.finished_at})
    return out


CSV_COLUMNS = ("place", "name", "points", "played", "won", "buchholz", "sonneborn_berger",
               "rating", "withdrawn")


def standings_csv(table: Sequence[views.TournamentStandingView]) -> str:
    """The standings as CSV, a player a line (an empty cell where a tie-break does not
    apply)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for s in table:
        writer.writerow(["" if s[c] is None else s[c]  # type: ignore[literal-required]
                         for c in CSV_COLUMNS])
    return out.getvalue()
