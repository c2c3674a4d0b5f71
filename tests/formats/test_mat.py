"""Match records (gammon.formats.matchfile) and ``.mat`` files (gammon.formats.mat).

Three kinds of evidence: matches GNU Backgammon's bot played and exported itself
(tests/data/matches/gnubg_*, made by scripts/check_match_files_with_gnubg.py, which also
checks the reverse direction: GNU Backgammon importing what gammon writes); a ``.mat``
written by hand to the format's grammar (tests/data/matches/handwritten.mat); and property
tests over random matches played through the core.
"""

from __future__ import annotations

import datetime
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon.core.actions import (
    Abandon,
    AcceptResign,
    Action,
    Beaver,
    ConfirmPlay,
    Drop,
    MoveChecker,
    OfferDouble,
    OfferResign,
    PlayMove,
    RejectResign,
    RollDice,
    RollOpening,
    Take,
    Timeout,
    UndoStep,
)
from gammon.core.cube import Level
from gammon.core.dice import OpeningRoll, Roll
from gammon.core.events import EndKind
from gammon.core.game import Phase
from gammon.core.match import Match, Rules
from gammon.core.moves import Play
from gammon.formats import mat
from gammon.formats.mat import MatFormatError
from gammon.formats.matchfile import (
    GameRecord,
    MatchInfo,
    MatchRecord,
    MatchRecordError,
    normalized_rules,
)

DATA = Path(__file__).parent.parent / "data" / "matches"
REFERENCES = ("gnubg_match5", "gnubg_match3", "gnubg_money")


# -- random matches through the core (also used by test_sgf and the gnubg script) --------


def random_match_actions(
    rng: random.Random,
    rules: Rules,
    *,
    max_games: int = 3,
    forfeit: bool = False,
    steps: bool = False,
) -> list[Action]:
    """The actions of a random legal match: random doubles, takes, drops, beavers and
    resign offers (accepted and refused), random plays; with ``steps`` some turns are
    played checker by checker, with undos. A money session stops after ``max_games``
    games; with ``forfeit`` a random player abandons or times out at the end."""
    match = Match.new(rules)
    actions: list[Action] = []

    def apply(action: Action) -> None:
        nonlocal match
        match, _ = match.apply(action)
        actions.append(action)

    while not match.is_over and len(actions) < 4000:
        game = match.game
        turn = game.turn
        phase = match.phase
        draw = rng.random()
        if phase in (Phase.OPENING, Phase.GAME_OVER):
            if len(match.results) >= max_games:
                break
            apply(match.opening_action(rng))
        elif phase is Phase.BEFORE_ROLL:
            levels = [level for level in Level if game.can_resign(turn, level)]
            if draw < 0.08 and game.can_double(turn):
                apply(OfferDouble(turn))
            elif draw < 0.10 and levels:
                apply(OfferResign(turn, rng.choice(levels)))
            else:
                apply(game.roll_action(rng))
        elif phase is Phase.CUBE_OFFERED:
            if game.can_beaver(game.opponent) and draw < 0.2:
                apply(Beaver(game.opponent))
            else:
                apply(Take(game.opponent) if draw < 0.7 else Drop(game.opponent))
        elif phase is Phase.RESIGN_OFFERED:
            answer = AcceptResign if draw < 0.5 else RejectResign
            apply(answer(game.opponent))
        elif phase is Phase.MOVING:
            levels = [level for level in Level if game.can_resign(turn, level)]
            if draw < 0.01 and levels:
                apply(OfferResign(turn, rng.choice(levels)))
                continue
            play = rng.choice(game.remaining_plays())
            if steps and rng.random() < 0.3:
                _play_by_steps(apply, lambda: match, play, rng)
            else:
                apply(PlayMove(turn, play if rng.random() < 0.8 else str(play)))
    if forfeit and not match.is_over:
        player = rng.randrange(2)
        apply(Abandon(player) if rng.random() < 0.5 else Timeout(player))
    return actions


def _play_by_steps(apply, current, play: Play, rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    turn = current().game.turn
    for move in play.moves:
        steps = current().game.legal_steps()
        die = next(d for d, m in steps[move.source].items() if m == move)
        apply(MoveChecker(turn, move.source, die))
        game = current().game
        if rng.random() < 0.2 and game.phase is Phase.MOVING and game.turn == turn:
            apply(UndoStep(turn))
            apply(MoveChecker(turn, move.source, die))
    if current().game.phase is Phase.MOVING and current().game.turn == turn:
        apply(ConfirmPlay(turn))


rules_strategy = st.builds(
    lambda length, cube, crawford, jacoby, beavers, anew: Rules(
        length=length,
        cube=cube,
        crawford=crawford,
        jacoby=jacoby and not length,
        beavers=beavers and not length,
        winner_rolls_anew=anew,
    ),
    length=st.sampled_from([0, 1, 3, 5]),
    cube=st.booleans(),
    crawford=st.booleans(),
    jacoby=st.booleans(),
    beavers=st.booleans(),
    anew=st.booleans(),
)


def random_record(seed: int, rules: Rules, *, forfeit: bool = False) -> MatchRecord:
    rng = random.Random(seed)
    confirm = (rng.random() < 0.5, rng.random() < 0.5)
    playing = Rules(length=rules.length, cube=rules.cube, crawford=rules.crawford,
                    jacoby=rules.jacoby, beavers=rules.beavers,
                    winner_rolls_anew=rules.winner_rolls_anew, confirm_turn=confirm)
    actions = random_match_actions(rng, playing, max_games=2, forfeit=forfeit, steps=True)
    info = MatchInfo(event="Random", date=datetime.date(2024, 5, 1)) if seed % 2 else MatchInfo()
    return MatchRecord.from_match_actions(actions, rules=playing, players=("Ann", "Ben Jr"),
                                          info=info)


# -- the record ---------------------------------------------------------------------------


def _opening(first: int, die1: int, die2: int) -> RollOpening:
    throw = (max(die1, die2), min(die1, die2)) if first == 0 else (
        min(die1, die2), max(die1, die2))
    return RollOpening(OpeningRoll(first, Roll(die1, die2), (throw,)))


def test_a_record_keeps_each_turn_as_one_play_however_it_was_entered() -> None:
    rules = Rules(length=3, confirm_turn=(True, False))
    tied = RollOpening(OpeningRoll(0, Roll(3, 1), ((2, 2), (3, 1))))
    by_steps: list[Action] = [
        tied,
        MoveChecker(0, 8, 3),
        UndoStep(0),
        MoveChecker(0, 8, 3),
        MoveChecker(0, 6, 1),
        ConfirmPlay(0),
        RollDice(1, Roll(6, 6)),
        PlayMove(1, "24/18(2) 13/7(2)"),
    ]
    whole: list[Action] = [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"),
                           RollDice(1, Roll(6, 6)), PlayMove(1, "13/7(2) 24/18(2)")]
    record = MatchRecord.from_match_actions(by_steps, rules=rules)
    assert record == MatchRecord.from_match_actions(whole, rules=Rules(length=3))
    actions = record.games[0].actions
    assert [type(a) for a in actions] == [RollOpening, PlayMove, RollDice, PlayMove]
    assert isinstance(actions[0], RollOpening) and actions[0].opening.throws == ((3, 1),)
    assert record.rules == Rules(length=3)  # a player's own options are not kept


def test_a_roll_that_cannot_be_played_has_no_play_and_the_turn_passes() -> None:
    """RULES.md §3: with no legal move the turn passes by itself. In GNU Backgammon's
    five-point match a player on the bar dances against a closed board."""
    record = mat.load(DATA / "gnubg_match5.mat")
    dances = [
        (game, index)
        for game in record.games
        for index, action in enumerate(game.actions[:-1])
        if isinstance(action, RollDice) and not isinstance(game.actions[index + 1], PlayMove)
        and not isinstance(game.actions[index + 1], OfferResign)
    ]
    assert dances
    game, index = dances[0]
    roll = game.actions[index]
    assert isinstance(roll, RollDice)
    assert f"{roll.roll.die1}{roll.roll.die2}:" in mat.dumps(record)


def test_records_fill_in_scores_crawford_and_results_and_replay_checks_them() -> None:
    actions: list[Action] = [
        _opening(0, 3, 1), OfferResign(0, Level.GAMMON), AcceptResign(1),  # 0-2
        _opening(1, 5, 2), PlayMove(1, "13/8 13/11"), RollDice(0, Roll(4, 4)),
        OfferResign(0, Level.SINGLE), AcceptResign(1),  # the Crawford game: 0-3
    ]
    record = MatchRecord.from_match_actions(actions, rules=Rules(length=3))
    first, second = record.games
    assert (first.score, first.crawford, first.winner) == ((0, 0), False, 1)
    assert (second.score, second.crawford, second.winner) == ((0, 2), True, 1)
    final = record.replay()
    assert final.score == (0, 3) and final.winner == 1
    tampered = MatchRecord(rules=record.rules, players=record.players,
                           games=(first, GameRecord(second.actions, (0, 1), True,
                                                    second.result)))
    with pytest.raises(MatchRecordError, match="game 2: the record says score"):
        tampered.replay()


def test_a_forfeit_is_kept_apart_and_ends_the_game_in_progress() -> None:
    actions: list[Action] = [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"), Abandon(1)]
    record = MatchRecord.from_match_actions(actions, rules=Rules(length=5))
    assert record.forfeit == Abandon(1)
    assert record.games[0].result is not None
    assert record.games[0].result.kind is EndKind.ABANDON
    assert record.replay().winner == 0
    assert record.actions()[-1] == Abandon(1)


def test_replay_steps_give_every_state() -> None:
    record = MatchRecord.from_match_actions(
        [_opening(1, 4, 2), PlayMove(1, "8/4 6/4"), RollDice(0, Roll(6, 5)),
         PlayMove(0, "24/13")], rules=Rules(length=1))
    steps = list(record.steps())
    assert len(steps) == 4 and all(s.game == 0 for s in steps)
    assert steps[0].before.phase is Phase.OPENING
    assert steps[-1].after.game.board(0).pips() == (167 - 11, 167 - 6)


def test_a_record_refuses_illegal_actions() -> None:
    with pytest.raises(MatchRecordError, match="action 1"):
        MatchRecord.from_match_actions([_opening(0, 3, 1), PlayMove(0, "24/18")],
                                       rules=Rules())
    with pytest.raises(MatchRecordError, match="normalized"):
        MatchRecord(rules=Rules(length=3, confirm_turn=(True, True)))


def test_normalized_rules_keep_what_decides_play() -> None:
    assert normalized_rules(Rules(length=0, crawford=False)) == Rules(length=0)
    assert normalized_rules(Rules(length=5, crawford=False)).crawford is False


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rules=rules_strategy, forfeit=st.booleans())
def test_records_of_random_matches_replay_to_the_same_match(
    seed: int, rules: Rules, forfeit: bool
) -> None:
    rng = random.Random(seed)
    actions = random_match_actions(rng, rules, max_games=2, forfeit=forfeit, steps=True)
    record = MatchRecord.from_match_actions(actions, rules=rules)
    played = Match.new(rules)
    for action in actions:
        played, _ = played.apply(action)
    replayed = record.replay()
    assert replayed.score == played.score
    assert replayed.result == played.result
    assert replayed.game.board(0) == played.game.board(0)
    assert MatchRecord.from_match_actions(record.actions(), rules=record.rules) == record


# -- GNU Backgammon's files ---------------------------------------------------------------


def _gnubg_results() -> dict[str, dict]:  # type: ignore[type-arg]
    return json.loads((DATA / "gnubg_results.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _view(record: MatchRecord) -> dict:  # type: ignore[type-arg]
    """The match as GNU Backgammon reports it (a resignation scores level × cube)."""
    games = []
    score = list(record.start_score())
    for game in record.games:
        result = game.result
        assert result is not None
        resigned = result.kind is EndKind.RESIGN
        points = int(result.level) * result.cube if resigned else result.points
        games.append({"score": list(score), "winner": result.winner, "points": points,
                      "resigned": resigned})
        score[result.winner] += points
    return {"length": record.length, "players": list(record.players), "games": games}


@pytest.mark.parametrize("name", REFERENCES)
def test_gnubg_mat_files_import_and_replay_to_gnubgs_own_results(name: str) -> None:
    record = mat.load(DATA / f"{name}.mat")
    final = record.replay()
    assert _view(record) == _gnubg_results()[name]
    if record.length:
        assert final.is_over and max(final.score) >= record.length
    assert record.info.date == datetime.date(2024, 5, 1)
    assert record.info.event == "gammon reference match"


def test_the_gnubg_five_point_match_has_cube_actions_resignations_and_a_crawford_game() -> None:
    record = mat.load(DATA / "gnubg_match5.mat")
    actions = record.actions()
    assert any(isinstance(a, Take) for a in actions)
    assert any(isinstance(a, Drop) for a in actions)
    assert any(game.crawford for game in record.games)
    kinds = {game.result.kind for game in record.games if game.result}
    assert EndKind.RESIGN in kinds and EndKind.DROP in kinds


def test_a_mat_file_written_again_by_gammon_reads_back_the_same() -> None:
    for name in REFERENCES:
        record = mat.load(DATA / f"{name}.mat")
        assert mat.loads(mat.dumps(record)) == record


# -- a .mat written by hand ---------------------------------------------------------------


def test_the_handwritten_mat_imports_correctly() -> None:
    """tests/data/matches/handwritten.mat: a 7-point match typed to the Jellyfish grammar
    (one checker and one die per move, 25 the bar, 0 off, * a hit): a double that is
    dropped, a double that is taken and a game borne off to the last checker, and a
    resignation in the Crawford game."""
    record = mat.load(DATA / "handwritten.mat")
    assert record.players == ("Marie Curie", "Niels")
    assert record.rules == Rules(length=7)
    assert record.info == MatchInfo(event="Kitchen table open", site="Lyon",
                                    date=datetime.date(2023, 11, 4), comment="typed by hand")
    first, second, third = record.games
    # Game 1: Niels doubles, Marie drops: 0-1
    assert first.result is not None and first.result.kind is EndKind.DROP
    assert (first.result.winner, first.result.points, first.result.cube) == (1, 1, 1)
    # Game 2: Marie doubles, Niels takes, dances twice and keeps his anchor on Marie's
    # 2-point while she bears off all 15: a backgammon at 2, 6 points
    assert second.score == (0, 1) and not second.crawford
    assert any(isinstance(a, Take) for a in second.actions)
    assert second.result is not None and second.result.kind is EndKind.BACKGAMMON
    assert (second.result.winner, second.result.points, second.result.cube) == (0, 6, 2)
    rolls = [a for a in second.actions if isinstance(a, RollDice)]
    assert sum(1 for a in rolls if a.player == 1 and a.roll in (Roll(6, 6), Roll(4, 3))) == 2
    # Game 3, the Crawford game: Niels resigns a gammon
    assert third.score == (6, 1) and third.crawford
    assert third.result is not None and third.result.kind is EndKind.RESIGN
    assert third.result.level is Level.GAMMON
    final = record.replay()
    assert final.score == (8, 1) and final.winner == 0


def test_the_handwritten_file_reads_back_from_what_gammon_writes() -> None:
    record = mat.load(DATA / "handwritten.mat")
    text = mat.dumps(record)
    assert mat.loads(text) == record
    # the games are laid out as typed, entry for entry (moves may come in another order)
    typed = (DATA / "handwritten.mat").read_text(encoding="utf-8")

    def layout(mat_text: str) -> list[list[str]]:
        games = mat_text[mat_text.index(" Game 1"):].strip().splitlines()
        return [sorted(line.split()) for line in games]

    assert layout(text) == layout(typed)


# -- writing ------------------------------------------------------------------------------


def test_dumps_lays_out_two_columns_like_gnubg() -> None:
    actions: list[Action] = [
        _opening(0, 3, 1), PlayMove(0, "8/5 6/5"),
        OfferDouble(1), Take(0),
        RollDice(1, Roll(6, 4)), PlayMove(1, "24/14"),
        OfferDouble(0), Drop(1),
    ]
    record = MatchRecord.from_match_actions(actions, rules=Rules(length=5),
                                            players=("Alice", "Bob"))
    lines = mat.dumps(record).splitlines()
    body = lines[lines.index(" Game 1"):]
    assert body == [
        " Game 1",
        " Alice : 0                      Bob : 0",
        "  1) 31: 8/5 6/5                  Doubles => 2",
        "  2)  Takes                      64: 24/18 18/14",
        "  3)  Doubles => 4                Drops",
        "      Wins 2 points",
        "",
    ]
    assert mat.loads(mat.dumps(record)) == record


def test_dumps_writes_bar_off_and_hits_as_numbers() -> None:
    record = MatchRecord.from_match_actions(
        [_opening(1, 6, 4), PlayMove(1, "24/18 13/9"), RollDice(0, Roll(6, 2)),
         PlayMove(0, "13/7* 13/11"), RollDice(1, Roll(5, 1)), PlayMove(1, "bar/20 24/23")],
        rules=Rules(length=1))
    text = mat.dumps(record)
    assert "62: 13/7* 13/11" in text and "51: 25/20 24/23" in text
    assert mat.loads(text) == record


def test_dumps_writes_a_beaver_and_reads_it_back() -> None:
    actions: list[Action] = [_opening(0, 4, 1), PlayMove(0, "13/9 6/5"), OfferDouble(1),
                             Beaver(0), RollDice(1, Roll(6, 3)), PlayMove(1, "24/18 13/10")]
    rules = Rules(beavers=True)
    record = MatchRecord.from_match_actions(actions, rules=rules)
    text = mat.dumps(record)
    assert "  1) 41: 13/9 6/5                 Doubles => 2" in text
    assert "  2)  Beavers => 4               63: 24/18 13/10" in text
    assert '[Beaver "On"]' in text
    assert mat.loads(text) == record
    # other programs write the doubler's acceptance, or the beaver as a redouble
    for beaver in (" Beavers => 4", " Doubles => 4"):
        spelled = text.replace("  2)  Beavers => 4               63:",
                               f"  2) {beaver}                Takes\n  3)                  63:")
        assert mat.loads(spelled) == record
    # GNU Backgammon does not say beavers were allowed: a beaver in the file says so
    assert mat.loads(text.replace('; [Beaver "On"]\n', "")) == record


def test_dumps_writes_rules_and_forfeits_as_header_tags() -> None:
    rules = Rules(jacoby=True, cube=False)
    record = MatchRecord.from_match_actions(
        [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"), Timeout(1)], rules=rules,
        info=MatchInfo(site="Online", round="Final", annotator="me", comment="one\ntwo"))
    text = mat.dumps(record)
    for tag in ('[Jacoby "On"]', '[CubeLimit "1"]', '[Forfeit "timeout 2"]', '[Site "Online"]',
                '[Round "Final"]', '[Transcriber "me"]', "; one\n; two"):
        assert tag in text
    assert mat.loads(text) == record
    no_crawford = MatchRecord.from_match_actions([], rules=Rules(length=5, crawford=False))
    assert '[Crawford "Off"]' in mat.dumps(no_crawford)
    assert mat.loads(mat.dumps(no_crawford)) == no_crawford


def test_refused_resign_offers_are_not_written() -> None:
    actions: list[Action] = [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"),
                             OfferResign(1, Level.SINGLE), RejectResign(0),
                             OfferResign(1, Level.GAMMON), AcceptResign(0)]
    record = MatchRecord.from_match_actions(actions, rules=Rules(length=5))
    again = mat.loads(mat.dumps(record))
    assert again == record.without_open_resignations() != record
    assert again.replay().score == record.replay().score == (2, 0)


def test_a_resignation_after_rolling_writes_the_roll_alone() -> None:
    actions: list[Action] = [_opening(0, 3, 1), PlayMove(0, "8/5 6/5"),
                             RollDice(1, Roll(5, 2)), OfferResign(1, Level.BACKGAMMON)]
    record = MatchRecord.from_match_actions(actions, rules=Rules(length=5))
    text = mat.dumps(record)
    assert re.search(r"52:\s*$", text.splitlines()[-3])
    assert "Wins 3 points" in text
    assert mat.loads(text) == record


@pytest.mark.parametrize("name", ["", "A: B", " Ann", "Ann\nB"])
def test_names_a_mat_file_cannot_hold_are_refused(name: str) -> None:
    record = MatchRecord(rules=Rules(length=1), players=(name, "Bob"))
    with pytest.raises(MatFormatError, match="cannot hold the player name"):
        mat.dumps(record)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rules=rules_strategy, forfeit=st.booleans())
def test_round_trip_record_to_mat_to_record(seed: int, rules: Rules, forfeit: bool) -> None:
    """Export → import → the identical match (refused resign offers aside: .mat has no
    place for them)."""
    record = random_record(seed, rules, forfeit=forfeit)
    assert mat.loads(mat.dumps(record)) == record.without_open_resignations()


def test_file_helpers_round_trip(tmp_path: Path) -> None:
    record = mat.load(DATA / "gnubg_match3.mat")
    path = tmp_path / "copy.mat"
    mat.dump(record, path)
    assert mat.load(path) == record
    with path.open(encoding="utf-8") as handle:
        assert mat.load(handle) == record


# -- malformed files ----------------------------------------------------------------------

_GOOD = """\
 3 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5                 52: 13/8 13/11
  2)  Doubles => 2                Drops
      Wins 1 point
"""
_MOVED = _GOOD.replace("  2)  Doubles => 2                Drops\n", "  2) 64: 24/14\n")


def test_the_small_good_file_reads() -> None:
    record = mat.loads(_GOOD)
    assert record.replay().score == (1, 0)
    assert mat.loads(_MOVED.replace("      Wins 1 point", "")).replay().game.turn == 1


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", None, "no match length"),
        ("hello\n", 1, "expected the match length"),
        (" 3 point match\n\n Alice : 0   Bob : 0\n", 3, "expected 'Game 1'"),
        (" 3 point match\n Game 2\n", 2, "expected Game 1, found Game 2"),
        (" 3 point match\n Game 1\n Alice 0 Bob 0\n", 3, "expected the players and the score"),
        (" 3 point match\n Game 1\n", 2, "has no 'name : score' line"),
        (" 3 point match\n Game 1\n A : 0   B : 0\n", 3, "game 1 has no moves"),
        (_GOOD.replace("52: 13/8 13/11", "52: 13/8 13/12"), 5, "not a legal play"),
        (_GOOD.replace("52: 13/8 13/11", "52: 13/8 13/x"), 5, "cannot read the play"),
        (_GOOD.replace("52: 13/8 13/11", "52: 13/8* 13/11"), 5, "marks a hit on 8"),
        (_GOOD.replace("52: 13/8 13/11", "52: 13/8"), 5, "not a legal play of 52"),
        (_GOOD.replace("31: 8/5 6/5", "33: 8/5 6/5"), 5, "opening roll cannot be a double"),
        (_GOOD.replace("  1) 31: 8/5 6/5      ", "  1)  Doubles => 2    "), 5,
         "the game starts with the opening roll"),
        (_GOOD.replace("Doubles => 2", "Doubles => 4"), 6, "the cube goes to 2 here, not 4"),
        (_GOOD.replace("Wins 1 point", "Wins 2 points"), 7,
         "the file says player 1 wins 2 points, but the game ended"),
        (_GOOD.replace("      Wins 1 point", " " * 34 + "Wins 1 point"), 7,
         "the file says player 2 wins 1 point,"),
        (_GOOD.replace("  Drops", "  Shrugs"), 6, "cannot read"),
        (_GOOD.replace("  Drops", "  Drops  Takes"), 6, None),
        (_MOVED.replace("      Wins 1 point", " " * 34 + "Wins 1 point"), 7,
         "player 2 wins 1 point before the game is over, so player 1 resigns"),
        (_MOVED.replace("Wins 1 point", "Wins 4 points"), 7,
         "with the cube at 1 a resignation wins 1, 2 or 3"),
        (_GOOD.replace("52: 13/8 13/11", "52:"), 5, "rolled 52 and has legal plays"),
        (_GOOD.replace("Bob : 0", "Bob : 3"), 4, "has already won"),
        (_GOOD + "\n Game 2\n Alice : 0                      Bob : 0\n  1) 31: 8/5 6/5\n", 10,
         "game 2 starts at 0-0, but the games before it end at 1-0"),
        (_GOOD + "\n Game 2\n Alice : 1                      Eve : 0\n  1) 31: 8/5 6/5\n", 10,
         "the players change"),
        (_MOVED.replace("      Wins 1 point\n", "")
         + "\n Game 2\n Alice : 0                      Bob : 0\n  1) 31: 8/5 6/5\n", 6,
         "game 1 is not over, but another game follows"),
        (_GOOD.replace("Wins 1 point", "Wins 1 point\n  3) 21: 13/11 24/23"), 8,
         "the game is over, but player 1 goes on"),
        (_GOOD.replace(" Game 1", "; [Jacoby \"On\"]\n Game 1"), 3, "expected 'Game 1'"),
        ('; [Jacoby "Maybe"]\n' + _GOOD, 1, "[Jacoby] is On or Off"),
        ('; [EventDate "May 1"]\n' + _GOOD, 1, "[EventDate] is YYYY.MM.DD"),
        ('; [CubeLimit "none"]\n' + _GOOD, 1, "[CubeLimit] is a number"),
        ('; [Jacoby "On"]\n' + _GOOD, 1, "money-play options"),
        ('; [Forfeit "quit 2"]\n' + _GOOD, 1, "[Forfeit]"),
        ('; [Forfeit "abandon 2"]\n 1 point match\n Game 1\n A : 0   B : 0\n'
         "  1) 31: 8/5 6/5\n      Wins 1 point\n", 1, "the match is over"),
        (_GOOD.replace("  1) 31:", "  1) 31: 52: 11: 8/5"), 5, "more than two entries"),
        (_GOOD.replace("  1) 31:", "  1) hello 31:"), 5, "cannot read 'hello'"),
        (_GOOD.replace("Drops", "Beavers => 4"), 6, "beavers are not allowed"),
        (_GOOD.replace("Drops", "Raccoons => 8"), 6, "raccoons"),
    ],
)
def test_malformed_files_give_a_narrow_error_naming_the_line(
    text: str, line: int | None, message: str | None
) -> None:
    with pytest.raises(MatFormatError) as raised:
        mat.loads(text)
    assert isinstance(raised.value, ValueError)
    if line is not None:
        assert raised.value.line == line, str(raised.value)
        assert str(raised.value).startswith(f"line {line}: ")
    if message is not None:
        assert message in str(raised.value)


def test_loads_wants_text() -> None:
    with pytest.raises(TypeError):
        mat.loads(b" 1 point match")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        mat.dumps("record")  # type: ignore[arg-type]
