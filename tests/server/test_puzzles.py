"""Puzzles on the server, on both stores: a finished match's deepest analysis makes its
puzzles (each answer the engine's best at the stated grade, by the margin the rule asks);
``/api/puzzles`` asks them, grades an answer once and moves the player's and the puzzle's
Glicko-2 ratings both ways; bad input is a clear error that changes nothing; one puzzle per
position and context across matches, and a private match's decisions stay out of the pool."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import time
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from gammon import views
from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position
from gammon.engine.cube import CubeInfo, play_equity
from gammon.engine.player import Engine
from gammon.engine.puzzles import CLEAR_MARGIN, MIN_ERROR, THEMES, Answer, Puzzle, Source
from gammon.formats.match_id import MatchKey
from gammon.server import protocol
from gammon.server.app import create_app
from gammon.server.db import (
    make_engine,
    position_choices,
    puzzle_answers,
    puzzle_players,
    puzzle_sources,
    puzzles,
    users,
)
from gammon.server.glicko import START, answered
from gammon.server.hub import ServiceError
from gammon.server.puzzles import Graded, PuzzleStore, store_puzzles
from tests.server.conftest import Browser, make_settings, run_async
from tests.server.test_analysis import bot_match, wait_done


def rows(database_url: str, table: sa.Table) -> list[Any]:
    async def read() -> list[Any]:
        engine = make_engine(database_url)
        async with engine.connect() as conn:
            found = (await conn.execute(sa.select(table))).all()
        await engine.dispose()
        return list(found)

    return run_async(read)


def valid(kind: str, response: Any) -> Any:
    assert response.status_code == 200, response.text
    body = response.json()
    protocol.response_adapter(kind).validate_python(body)
    return body


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["detail"]["code"] == code


def check_against_the_engine(engine: Engine, row: Any) -> None:
    """The puzzle's answer is the engine's best at its stated grade, its equities are that
    grade's, and the margin and error rules hold."""
    answers = [Answer(text, equity) for text, equity in json.loads(row.answers)]
    assert answers[0].equity - answers[1].equity >= CLEAR_MARGIN
    assert row.error >= MIN_ERROR
    key = MatchKey.from_id(row.match_id)
    position = Position.from_id(row.position_id)
    if row.kind == "checker":
        roll = Roll(int(row.dice[0]), int(row.dice[1]))
        context = CubeInfo.from_match_key(key)
        plays = {p.notation(): p for p in legal_plays(position, roll)}
        rollout = re.fullmatch(r"rollout (\d+) games, (\d+) plies", row.graded_by)
        if rollout:
            games, truncate = int(rollout[1]), int(rollout[2])
            for answer in answers:
                after = plays[answer.text].next_position
                result = engine.rollout(after, games=games, truncate=truncate, seed=1,
                                        context=context.swap(), pruned=True)
                assert play_equity(result.mean.inverted(), context, after) == pytest.approx(
                    answer.equity, abs=1e-9)
        else:
            ply = int(row.graded_by.removesuffix("-ply"))
            ranked = engine.rank_plays(position, roll, plies=row.plies, context=context)
            assert ranked[0].play.notation() == answers[0].text
            assert ranked[0].ply == ply
            at_ply = {r.play.notation(): r.equity for r in ranked if r.ply == ply}
            for answer in answers:
                if answer.text in at_ply:
                    assert at_ply[answer.text] == pytest.approx(answer.equity, abs=1e-9)
    else:
        kind, decision = views.analyse_match_key(
            engine, position, key, plies=row.plies,
            beavers=any(a.text == "beaver" for a in answers))
        assert kind == ("take" if row.kind == "take" else "cube")
        graded = ({"take": decision.take, "drop": decision.pass_, "beaver": decision.beaver}
                  if kind == "take" else
                  {"double": decision.doubled, "no double": decision.no_double})
        for answer in answers:
            assert graded[answer.text] == pytest.approx(answer.equity, abs=1e-9)
        assert max(graded, key=lambda a: graded[a] or -9) == answers[0].text


def a_wrong_answer(puzzle: dict[str, Any], answers: list[Answer]) -> dict[str, str]:
    if puzzle["kind"] == "checker":
        return {"play": answers[1].text}
    return {"cube": answers[1].text}


def test_a_finished_matchs_puzzles_asked_answered_and_rated(store: str, database_url: str,
                                                            redis_url: str) -> None:
    """The deep analysis at 1 ply makes the puzzles: on PostgreSQL with its errors rechecked
    by rollouts (each puzzle's answers rolled out again here), on SQLite without (each
    puzzle's answer the engine's best at 1 ply): both grades checked, one match each."""
    recheck = 36 if store == "postgresql" else 0
    settings = make_settings(database_url, redis_url, analysis_plies=0,
                             analysis_deep_plies=1, analysis_recheck_games=recheck,
                             analysis_recheck_truncate=2)
    engine = Engine.load()
    with TestClient(create_app(settings)) as client:
        owner, solver = Browser(client), Browser(client)
        with bot_match(owner, seed=7) as (game, _):
            pass
        url = f"/api/games/{game['id']}/analysis"
        assert owner.get(url).status_code == 202  # queues the quick and the deep one
        wait_done(owner, f"{url}?ply=0")
        wait_done(owner, f"{url}?ply=1")
        made = rows(database_url, puzzles)
        assert made, "random plays made no puzzle"
        assert {r.plies for r in made} == {1}  # only the deepest analysis makes puzzles
        assert all(r.public for r in made)
        for row in made:
            check_against_the_engine(engine, row)
        assert any(r.graded_by.startswith("rollout") for r in made) == bool(recheck)
        sources = rows(database_url, puzzle_sources)
        assert {s.match_id for s in sources} == {game["id"]}
        assert {s.puzzle_id for s in sources} == {r.id for r in made}
        by_id = {r.id: r for r in made}
        # the same analysis filed the match's checker plays for the explorer: each a legal
        # play of its position and dice, its points those of a game of the match
        choices = rows(database_url, position_choices)
        assert choices and {c.match_id for c in choices} == {game["id"]}
        for choice in choices:
            plays = {p.notation() for p in legal_plays(Position.from_id(choice.position_id),
                                                        Roll(int(choice.dice[0]),
                                                             int(choice.dice[1])))}
            assert choice.play in plays and len(plays) > 1 and choice.points != 0

        # bad input: nothing changes
        refused(solver.get("/api/puzzles/abc"), 422, "bad_input")
        refused(solver.get("/api/puzzles/0"), 422, "bad_input")
        refused(solver.get("/api/puzzles/999999"), 404, "not_found")
        refused(solver.post("/api/puzzles/999999/answer", json={"cube": "take"}), 404,
                "not_found")
        refused(solver.get("/api/puzzles/next?theme=nonsense"), 422, "bad_input")
        first = valid("next_puzzle", solver.get("/api/puzzles/next"))
        puzzle, rating = first["puzzle"], first["rating"]
        assert rating == {"rating": 1500.0, "rd": 350.0, "attempts": 0, "solved": 0}
        assert valid("puzzle", solver.get(f"/api/puzzles/{puzzle['id']}")) == puzzle
        answer_url = f"/api/puzzles/{puzzle['id']}/answer"
        answers = [Answer(t, e) for t, e in json.loads(by_id[puzzle["id"]].answers)]
        other = "play" if puzzle["kind"] != "checker" else "cube"
        refused(solver.post(answer_url, json={other: "take" if other == "cube" else "8/5 6/5"}),
                422, "illegal_answer")  # the other kind of answer
        refused(solver.post(answer_url, json={"play": "8/5", "cube": "take"}), 422,
                "bad_input")
        refused(solver.post(answer_url, json={}), 422, "bad_input")
        if puzzle["kind"] == "checker":
            refused(solver.post(answer_url, json={"play": "24/18 24/18 24/18 24/18 24/18"}),
                    422, "illegal_answer")
        assert rows(database_url, puzzle_answers) == []
        assert rows(database_url, puzzle_players) == []

        # right: the player's rating rises, the puzzle's falls
        best = {"play": answers[0].text} if puzzle["kind"] == "checker" else {
            "cube": answers[0].text}
        verdict = valid("puzzle_verdict", solver.post(answer_url, json=best))
        assert (verdict["right"], verdict["error"], verdict["best"]) == (
            True, 0.0, answers[0].text)
        assert verdict["top"] == [{"answer": a.text, "equity": round(a.equity, 4)}
                                  for a in answers]
        assert verdict["graded_by"] == by_id[puzzle["id"]].graded_by
        assert verdict["source"] is not None and verdict["source"]["match"] == game["id"]
        assert verdict["rating_change"]["after"] > verdict["rating_change"]["before"] == 1500
        assert verdict["puzzle_rating"]["after"] < verdict["puzzle_rating"]["before"]
        assert verdict["rating"]["attempts"] == verdict["rating"]["solved"] == 1
        # a second answer: refused, nothing changed
        refused(solver.post(answer_url, json=best), 409, "already_answered")
        assert len(rows(database_url, puzzle_answers)) == 1
        (stored_player,) = rows(database_url, puzzle_players)
        assert stored_player.rating == pytest.approx(verdict["rating_change"]["after"],
                                                     abs=0.05)
        assert stored_player.attempts == 1

        if len(made) > 1:  # wrong: the rating falls, the puzzle's rises
            second = valid("next_puzzle", solver.get("/api/puzzles/next"))
            assert second["puzzle"]["id"] != puzzle["id"]
            assert second["rating"]["rating"] == verdict["rating"]["rating"]
            answers2 = [Answer(t, e) for t, e in json.loads(by_id[second["puzzle"]["id"]]
                                                            .answers)]
            wrong = valid("puzzle_verdict", solver.post(
                f"/api/puzzles/{second['puzzle']['id']}/answer",
                json=a_wrong_answer(second["puzzle"], answers2)))
            assert wrong["right"] is False
            assert wrong["error"] == pytest.approx(answers2[0].equity - answers2[1].equity,
                                                   abs=1e-4)
            assert wrong["rating_change"]["after"] < wrong["rating_change"]["before"]
            assert wrong["puzzle_rating"]["after"] > wrong["puzzle_rating"]["before"]

        # a legal play the puzzle did not grade: ranked by the engine at the analysis's ply
        checker = [r for r in made if r.kind == "checker"]
        fresh = Browser(client)
        for row in checker:
            position = Position.from_id(row.position_id)
            roll = Roll(int(row.dice[0]), int(row.dice[1]))
            graded_texts = {t for t, _ in json.loads(row.answers)}
            extra = [p for p in legal_plays(position, roll) if p.notation() not in graded_texts]
            if extra:
                play = extra[-1]
                verdict = valid("puzzle_verdict", fresh.post(
                    f"/api/puzzles/{row.id}/answer", json={"play": play.notation()}))
                context = CubeInfo.from_match_key(MatchKey.from_id(row.match_id))
                ranked = engine.rank_plays(position, roll, plies=row.plies, context=context)
                mine = next(r for r in ranked if r.play.position == play.position)
                assert verdict["right"] is False and verdict["graded_by"] == f"{row.plies}-ply"
                assert verdict["error"] == pytest.approx(ranked[0].equity - mine.equity,
                                                         abs=1e-4)
                break

        # the themes: each asked one is the puzzle's
        for theme in {t for r in made for t in r.themes.split(",") if t}:
            assert theme in THEMES
            found = valid("next_puzzle", Browser(client).get(f"/api/puzzles/next?theme={theme}"))
            assert theme in found["puzzle"]["themes"]
        missing = [t for t in THEMES if all(f",{t}," not in r.themes for r in made)]
        if missing:
            refused(Browser(client).get(f"/api/puzzles/next?theme={missing[0]}"), 404,
                    "no_puzzle")


def puzzle(key: str, player: int = 0, error: float = 0.2) -> Puzzle:
    return Puzzle("checker", Position.initial().id(), key, "31",
                  (Answer("8/5 6/5", 0.2), Answer("24/23 13/10", 0.0)), error, "2-ply", 2,
                  ("opening",), (Source(1, 1, player, "24/23 13/10", error),))


TAKE = Puzzle("take", Position.initial().id(),
              MatchKey(turn=0, dice_owner=1, double_offered=True).id(), "",
              (Answer("take", 0.21), Answer("drop", -1.0)), 1.21, "2-ply", 2,
              ("opening", "take-point"), (Source(1, 0, 1, "drop", 1.21),))


def test_one_puzzle_per_position_and_context_and_private_matches_stay_out(
        database_url: str, redis_url: str) -> None:
    """The same puzzle from a private match, then from a public one: one row, two sources;
    out of the pool while only the private match had it, in it after the public one, and
    the source shown is the public match's."""
    key = MatchKey(match_length=3, dice=(3, 1)).id()
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        a, b = Browser(client), Browser(client)
        hidden = a.post("/api/games", json={"kind": "single", "private": True}).json()
        shown = a.post("/api/games", json={"kind": "single"}).json()

        async def store(match_id: str, found: list[Puzzle]) -> None:
            engine = make_engine(database_url)
            async with engine.begin() as conn:
                await store_puzzles(conn, match_id, found)
            await engine.dispose()

        run_async(lambda: store(hidden["id"], [puzzle(key)]))
        (row,) = rows(database_url, puzzles)
        assert not row.public
        refused(b.get("/api/puzzles/next"), 404, "no_puzzle")
        refused(b.get(f"/api/puzzles/{row.id}"), 404, "not_found")
        refused(b.post(f"/api/puzzles/{row.id}/answer", json={"play": "8/5 6/5"}), 404,
                "not_found")
        run_async(lambda: store(shown["id"], [puzzle(key, player=1, error=0.3)]))
        (row,) = rows(database_url, puzzles)
        assert row.public and row.error == pytest.approx(0.3)
        assert sorted((s.match_id, s.public) for s in rows(database_url, puzzle_sources)) == \
            sorted([(hidden["id"], False), (shown["id"], True)])
        run_async(lambda: store(shown["id"], [puzzle(key, player=1)]))  # again
        assert len(rows(database_url, puzzle_sources)) == 2
        asked = valid("next_puzzle", b.get("/api/puzzles/next"))["puzzle"]
        assert asked["id"] == row.id and asked["dice"] == [3, 1]
        assert asked["context"] == {"length": 3, "score": [0, 0], "cube": 1,
                                    "cube_owner": "centred", "crawford": False,
                                    "jacoby": False}
        verdict = valid("puzzle_verdict", b.post(f"/api/puzzles/{row.id}/answer",
                                                 json={"play": "6/5 8/5"}))
        assert verdict["right"] and verdict["answer"] == "8/5 6/5"
        assert verdict["source"] == {"match": shown["id"], "game": 1, "move_number": 1,
                                     "played": "24/23 13/10", "error": 0.3}

        # a cube question: its choices, an answer not among them, and a wrong one
        run_async(lambda: store(shown["id"], [TAKE]))
        asked = valid("next_puzzle", b.get("/api/puzzles/next"))["puzzle"]
        assert (asked["kind"], asked["choices"], asked["dice"]) == ("take", ["take", "drop"],
                                                                    None)
        url = f"/api/puzzles/{asked['id']}/answer"
        refused(b.post(url, json={"cube": "beaver"}), 422, "illegal_answer")
        refused(b.post(url, json={"cube": "double"}), 422, "illegal_answer")
        refused(b.post(url, json={"play": "8/5 6/5"}), 422, "illegal_answer")
        refused(b.post(url, json={"cube": "pass"}), 422, "bad_input")
        wrong = valid("puzzle_verdict", b.post(url, json={"cube": "drop"}))
        assert (wrong["right"], wrong["answer"], wrong["best"]) == (False, "drop", "take")
        assert wrong["error"] == pytest.approx(1.21)
        assert wrong["rating"]["attempts"] == 2 and wrong["rating"]["solved"] == 1
        refused(b.get("/api/puzzles/next"), 404, "no_puzzle")  # every one answered


def step(source: Any, die: int) -> dict[str, Any]:
    return {"from": source, "die": die}


def test_a_checker_puzzle_is_played_step_by_step_on_its_board(database_url: str,
                                                              redis_url: str) -> None:
    """The puzzle page plays a roll as the match page does: each step sent, the board and
    what may move next answered (the steps of a whole roll end on the board of one of the
    core's legal plays, named as it names it); a step the rules refuse, a malformed body or
    a cube question is a clear error; nothing is stored. Each puzzle's board is drawn for
    the player to answer: for a take, the position seen from the doubler, swapped."""
    # the opponent's blot on our 18 point (their 7): 24/18* hits it
    position = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4,
                                                                  7: 1})
    blot = Puzzle("checker", position.id(), MatchKey(dice=(6, 4)).id(), "64",
                  (Answer("24/18 13/9", 0.1), Answer("24/14", 0.0)), 0.1, "2-ply", 2, (),
                  (Source(1, 1, 0, "24/14", 0.1),))
    take_here = dataclasses.replace(TAKE, position_id=position.id())  # the doubler's view
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        b = Browser(client)
        shown = b.post("/api/games", json={"kind": "single"}).json()

        async def store() -> None:
            engine = make_engine(database_url)
            async with engine.begin() as conn:
                await store_puzzles(conn, shown["id"], [blot, take_here])
            await engine.dispose()

        run_async(store)
        ids = {r.kind: r.id for r in rows(database_url, puzzles)}
        checker = valid("puzzle", b.get(f"/api/puzzles/{ids['checker']}"))
        assert checker["board"] == list(position.board)
        take = valid("puzzle", b.get(f"/api/puzzles/{ids['take']}"))
        assert take["board"] == list(position.swap().board) != list(position.board)

        url = f"/api/puzzles/{ids['checker']}/steps"
        start = valid("puzzle_steps", b.post(url, json={"steps": []}))
        assert start["board"] == checker["board"] and start["dice_left"] == [6, 4]
        assert start["play"] is None
        assert start["legal"]["24"] == {"6": 18, "4": 20}
        assert sorted(start["reach"]["24"]["14"]) == [4, 6]
        plays = {p.notation(): p for p in legal_plays(position, Roll(6, 4))}
        for steps in ([step(24, 6), step(13, 4)], [step(13, 4), step(24, 6)],
                      [step(24, 4), step(20, 6)], [step(8, 6), step(6, 4)]):
            done = valid("puzzle_steps", b.post(url, json={"steps": steps}))
            assert done["play"] in plays, done["play"]
            assert done["board"] == list(plays[done["play"]].position.board)
            assert done["dice_left"] == [] and done["legal"] == {} and done["reach"] == {}
        one = valid("puzzle_steps", b.post(url, json={"steps": [step(24, 6)]}))
        assert one["dice_left"] == [4] and one["play"] is None
        assert (one["board"][18], one["board"][24], one["board"][0]) == (1, 1, -1)  # a hit

        refused(b.post(url, json={"steps": [step(24, 6), step(24, 6)]}), 422,
                "illegal_answer")
        refused(b.post(url, json={"steps": [step(3, 6)]}), 422, "illegal_answer")  # no checker
        for bad in ({"steps": [step(24, 6)] * 5}, {"steps": [step(0, 6)]},
                    {"steps": [step(24, 7)]}, {"steps": [step("24", 6)]}, {"steps": [[24, 6]]},
                    {"steps": [{"from": 24}]}, {"steps": "24/18"}, {},
                    {"steps": [], "play": "x"}):
            refused(b.post(url, json=bad), 422, "bad_input")
        refused(b.post(f"/api/puzzles/{ids['take']}/steps", json={"steps": []}), 422,
                "illegal_answer")
        refused(b.post("/api/puzzles/999999/steps", json={"steps": []}), 404, "not_found")
        assert rows(database_url, puzzle_answers) == []


def test_the_puzzle_of_the_day_is_one_for_everybody_all_day(database_url: str,
                                                            redis_url: str) -> None:
    """The same puzzle for every player from the day's start to its end, drawn from the pool
    as it stood when the day began (a puzzle made today waits for tomorrow); other days draw
    others; it is answered as any puzzle is."""
    now = time.time()
    today = now // 86400 * 86400
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        a, b = Browser(client), Browser(client)
        shown = a.post("/api/games", json={"kind": "single"}).json()
        found = [puzzle(MatchKey(match_length=n, dice=(3, 1)).id()) for n in (3, 5, 7)]

        async def store() -> None:
            engine = make_engine(database_url)
            async with engine.begin() as conn:
                await store_puzzles(conn, shown["id"], found)
            await engine.dispose()

        run_async(store)
        store_ = client.app.state.puzzles  # type: ignore[attr-defined]
        store_.clock = lambda: now
        refused(a.get("/api/puzzles/daily"), 404, "no_puzzle")  # all made today
        drawn = {}
        for day in range(1, 8):
            ids = set()
            for at in (today + day * 86400, today + day * 86400 + 86399):
                store_.clock = lambda at=at: at
                for who in (a, b):
                    daily = valid("daily_puzzle", who.get("/api/puzzles/daily"))
                    ids.add(daily["puzzle"]["id"])
                    assert daily["date"] == time.strftime("%Y-%m-%d",
                                                          time.gmtime(today + day * 86400))
            assert len(ids) == 1, day
            drawn[day] = ids.pop()
        assert len(set(drawn.values())) > 1  # a week draws more than one of the three
        verdict = valid("puzzle_verdict", a.post(f"/api/puzzles/{drawn[7]}/answer",
                                                 json={"play": "8/5 6/5"}))
        assert verdict["right"]
        again = valid("daily_puzzle", a.get("/api/puzzles/daily"))
        assert again["rating"]["attempts"] == 1


def test_the_next_puzzle_is_the_nearest_to_the_players_rating(database_url: str,
                                                             redis_url: str) -> None:
    """From either side of the player's rating, the nearest first (an equal distance: the
    lower id), answered puzzles and other themes left out."""
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        b = Browser(client)
        shown = b.post("/api/games", json={"kind": "single"}).json()
        found = [puzzle(MatchKey(match_length=n, dice=(3, 1)).id()) for n in (3, 5, 7, 9)]

        async def store() -> None:
            engine = make_engine(database_url)
            async with engine.begin() as conn:
                await store_puzzles(conn, shown["id"], found)
                for key, rating in zip((f.key for f in found), (1400.0, 1480.0, 1530.0, 1700.0),
                                       strict=True):
                    await conn.execute(sa.update(puzzles).where(puzzles.c.key == key)
                                       .values(rating=rating))
            await engine.dispose()

        run_async(store)
        by_rating = {r.rating: r.id for r in rows(database_url, puzzles)}
        order = []
        for _ in range(4):
            asked = valid("next_puzzle", b.get("/api/puzzles/next"))
            order.append(asked["puzzle"]["rating"])
            # a wrong answer: the player's rating falls, and the puzzle is answered
            b.post(f"/api/puzzles/{asked['puzzle']['id']}/answer",
                   json={"play": "24/23 13/10"})
        assert order[0] == 1480.0  # 20 below beats 30 above
        assert sorted(order) == sorted(by_rating)
        refused(b.get("/api/puzzles/next"), 404, "no_puzzle")
        refused(Browser(client).get("/api/puzzles/next?theme=race"), 404, "no_puzzle")


def test_answers_sent_at_once_are_each_counted_once(database_url: str, redis_url: str) -> None:
    """Answers arriving together, each its own transaction: two players' answers both move
    the puzzle's rating (neither update is lost: the second is rated from the first's
    result), and one player's second answer is refused as ``already_answered``."""
    with TestClient(create_app(make_settings(database_url, redis_url))) as client:
        first, second = Browser(client), Browser(client)
        shown = first.post("/api/games", json={"kind": "single"}).json()

        async def seed() -> None:
            engine = make_engine(database_url)
            async with engine.begin() as conn:
                await store_puzzles(conn, shown["id"], [puzzle(MatchKey(dice=(3, 1)).id())])
            await engine.dispose()

        run_async(seed)
        for player in (first, second):  # each one a guest
            valid("next_puzzle", player.get("/api/puzzles/next"))
    user_ids = sorted(r.id for r in rows(database_url, users))[-2:]
    puzzle_id = rows(database_url, puzzles)[0].id

    async def at_once() -> list[object]:
        engine = make_engine(database_url)
        store = PuzzleStore(engine)
        stored = await store.get(puzzle_id)
        right = Graded("8/5 6/5", True, 0.0, "2-ply")
        try:
            return await asyncio.gather(
                *(store.answer(user_id, stored, right)
                  for user_id in (user_ids[0], user_ids[1], user_ids[0])),
                return_exceptions=True)
        finally:
            await store.operations.close()
            await engine.dispose()

    results = run_async(at_once)
    refusals = [r for r in results if isinstance(r, ServiceError)]
    assert [r.code for r in refusals] == ["already_answered"]
    assert len([r for r in results if isinstance(r, tuple)]) == 2
    (row,) = rows(database_url, puzzles)
    assert (row.attempts, row.solved) == (2, 2)
    once = answered(START, START, True)[1]
    twice = answered(START, once, True)[1]
    assert row.rating == pytest.approx(twice.rating) and row.rating != pytest.approx(once.rating)
    assert sorted((a.user_id, a.right) for a in rows(database_url, puzzle_answers)) == [
        (user_ids[0], True), (user_ids[1], True)]
