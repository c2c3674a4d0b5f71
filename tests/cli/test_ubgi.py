"""``gammon ubgi`` as a UBGI 0.2 engine (bungogood/bgci, docs/ubgi-v0.2-spec.md), driven as
a controller drives it: a real subprocess on pipes. The spec's command list, its reply
grammar and its four error codes; moves checked legal by the core's own generator and
known best openings; two engines through UBGI play a whole match by the core's rules; and
500 malformed commands, each one error line, the engine still answering after."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from gammon.core.actions import Beaver, Drop, OfferDouble, PlayMove, Take
from gammon.core.dice import Roll
from gammon.core.game import Phase, Rules
from gammon.core.match import Match
from gammon.core.moves import Play, legal_plays
from gammon.core.position import Position
from gammon.engine.analysis import decision_match_id
from gammon.engine.matchbot import play_match

INITIAL = Position.initial().id()


def key_line(line: str) -> tuple[str, str]:
    """The name and default of a ``key`` line, read by the spec's grammar (section 4):
    ``key <name> int [<min>..<max>] <default>``, ``bool <default>``, ``enum <a|b> <default>``,
    ``string * <default>``, then an optional ``!`` and a description."""
    words = line.split()
    assert words[0] == "key" and re.fullmatch(r"(game|engine)\.[a-z_.]+", words[1]), line
    kind, rest = words[2], words[3:]
    if kind == "int" and re.fullmatch(r"-?\d+\.\.-?\d+|\*", rest[0]):
        rest = rest[1:]
    elif kind == "string":
        assert rest[0] == "*", line
        rest = rest[1:]
    elif kind == "enum":
        domain, rest = rest[0], rest[1:]
        assert rest[0] in domain.split("|"), line
    else:
        assert kind in ("int", "bool"), line
    default = rest[0]
    assert kind != "bool" or default in ("true", "false"), line
    assert kind != "int" or re.fullmatch(r"-?\d+", default), line
    return words[1], default


class Engine:
    """A ``gammon ubgi`` process: :meth:`ask` sends commands and returns every line the
    engine wrote for them (an ``isready`` after them marks their end)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gammon.cli.main", "ubgi"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, *commands: str) -> list[str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        for command in (*commands, "isready"):
            self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while (line := self.process.stdout.readline()) != "readyok\n":
            assert line, "the engine ended"
            lines.append(line.rstrip("\n"))
        return lines

    def one(self, *commands: str) -> str:
        (line,) = self.ask(*commands)
        return line

    def quit(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.write("quit\n")
        self.process.stdin.flush()
        return self.process.wait(timeout=30)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    process = Engine()
    process.ask("ubgi")
    yield process
    process.kill()


def legal_play(position: Position, roll: Roll, payload: str) -> Play:
    """The one legal play a ``bestmove`` payload names, by the core's generator."""
    plays = legal_plays(position, roll)
    if payload == "pass":
        assert all(not play.moves for play in plays), "pass with a legal move"
        return plays[0]
    assert "*" not in payload and "(" not in payload  # the spec's notation
    steps = sorted(tuple(25 if a == "bar" else 0 if a == "off" else int(a)
                         for a in token.split("/")) for token in payload.split())
    named = {play.position for play in plays
             if sorted((m.source, m.destination) for m in play.moves) == steps}
    assert len(named) == 1, (payload, roll)
    return next(play for play in plays if play.position in named)


def test_the_handshake_names_the_engine_its_protocol_and_each_key_in_the_specs_grammar(
) -> None:
    process = Engine()
    try:
        lines = process.ask("ubgi")
        assert lines[0] == "id name gammon" and lines[1].startswith("id author ")
        assert "proto 0.2" in lines and lines[-1] == "ubgiok"
        keys = [line for line in lines if line.startswith("key ")]
        assert keys == process.ask("keys")
        names = set()
        for line in keys:
            name, default = key_line(line)
            names.add(name)
            assert process.one(f"get {name}") == f"value {name} {default}"
        assert {"engine.ply", "engine.level", "engine.seed", "game.variant"} <= names
        assert process.quit() == 0  # quit ends the process
    finally:
        process.kill()


def test_set_keys_read_back_and_values_outside_their_domain_are_refused(
        engine: Engine) -> None:
    assert engine.ask("set engine.ply 2") == []
    assert engine.one("get engine.ply") == "value engine.ply 2"
    for bad in ("set engine.ply 0", "set engine.ply 4", "set engine.ply two",
                "set engine.level grandmaster", "set game.jacoby yes",
                "setoption name engine.ply value 9"):
        assert engine.one(bad).startswith("error bad_value "), bad
    assert engine.one("get engine.ply") == "value engine.ply 2"  # nothing changed
    assert engine.one("set engine.nodes 5").startswith("error unsupported ")
    assert engine.ask("setoption name engine.ply value 1") == []  # v0.1's form
    assert engine.one("get engine.ply") == "value engine.ply 1"
    engine.ask("set engine.level world-class")  # a level brings its depth
    assert engine.one("get engine.ply") == "value engine.ply 3"
    engine.ask("set engine.level expert")
    assert engine.one("get engine.ply") == "value engine.ply 1"


@pytest.mark.parametrize(("dice", "best"), [
    ("3 1", "8/5 6/5"), ("4 2", "8/4 6/4"), ("6 1", "13/7 8/7"), ("5 3", "8/3 6/3")])
def test_the_opening_rolls_everyone_agrees_on(engine: Engine, dice: str, best: str) -> None:
    """The point-making openings, the same in every published opening table."""
    reply = engine.one("newgame", f"position gnubgid {INITIAL}", f"dice {dice}", "go chequer")
    assert reply.startswith("bestmove ")
    assert (legal_play(Position.initial(), Roll(*map(int, dice.split())), reply[9:]).position
            == legal_play(Position.initial(), Roll(*map(int, dice.split())), best).position)


def test_every_roll_gets_a_legal_move_written_per_die_and_pass_when_none_exists(
        engine: Engine) -> None:
    rng = random.Random(5)
    position = Position.initial()
    for _ in range(30):  # a seeded walk through random positions
        roll = Roll(rng.randint(1, 6), rng.randint(1, 6))
        reply = engine.one(f"position gnubgid {position.id()}", f"dice {roll.die1} {roll.die2}",
                           "go")
        assert reply.startswith("bestmove "), reply
        play = legal_play(position, roll, reply.removeprefix("bestmove "))
        assert len(reply.split()) - 1 == max(1, len(play.moves))  # a from/to pair a die
        position = rng.choice(legal_plays(position, roll)).position.swap()
        if position.winner() is not None:
            position = Position.initial()
    closed = Position.from_points({25: 1, 6: 14}, {n: 2 for n in range(1, 7)} | {13: 3})
    assert engine.one(f"position gnubgid {closed.id()}", "dice 6 5", "go") == "bestmove pass"


def test_the_cube_before_the_roll_and_the_answer_to_a_pending_double(engine: Engine) -> None:
    # a race of 12 pips against 80, none of the trailer's checkers home, ten of them off
    race = Position.from_points({1: 2, 2: 2, 3: 2}, {14: 1, 15: 1, 16: 1, 17: 1, 18: 1})
    assert engine.one(f"position gnubgid {race.id()}", "go cube") == "bestcube double"
    assert engine.one(f"position gnubgid {INITIAL}", "go cube") == "bestcube nodouble"
    # the same race with the double on offer (a Match ID's, money): hopeless, dropped
    doubled = engine.one(f"position gnubgid {race.id()}:{doubled_match_id()}", "go cube")
    assert doubled == "bestcube drop"
    assert engine.one(f"position gnubgid {race.id()}:{doubled_match_id()}",
                      "go").startswith("bestcube ")  # go answers what the position asks
    # the initial position doubled in money: an easy take
    assert engine.one("position xgid -b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10",
                      "go cube") == "bestcube take"
    # Crawford: nobody doubles, whatever the position
    crawford = "XGID=" + xgid_board(race) + ":0:0:1:00:2:4:1:5:10"
    assert engine.one(f"position xgid {crawford}", "go cube") == "bestcube nodouble"
    turn = engine.one(f"position gnubgid {INITIAL}", "dice 3 1", "go turn")
    assert turn in ("bestturn cube=nodouble move=8/5,6/5", "bestturn cube=nodouble move=6/5,8/5")


def doubled_match_id() -> str:
    """Money play, player 0 has doubled, player 1 to answer."""
    from gammon.formats.match_id import MatchKey

    return MatchKey(turn=1, double_offered=True).id()


def xgid_board(position: Position) -> str:
    from gammon.formats.xgid import Xgid

    return Xgid(position).id().removeprefix("XGID=").split(":")[0]


def test_each_error_code_and_nothing_changed_after_it(engine: Engine) -> None:
    engine.ask("newgame")
    assert engine.one("go") == "error bad_state missing position"
    assert engine.one("frobnicate").startswith("error bad_command ")
    assert engine.one("go sideways").startswith("error bad_command ")
    assert engine.one("position fen rnbqkbnr").startswith("error unsupported ")
    assert engine.one(f"position gnubgid {INITIAL}", "go chequer") == "error bad_state missing dice"
    assert engine.one("dice 0 7").startswith("error bad_value ")
    engine.ask("dice 6 4")
    before = engine.one("go")
    assert engine.one("position gnubgid not-an-id!").startswith("error bad_value ")
    assert engine.one("position gnubgid 4HPwATDgc/ABMA:zzzz").startswith("error bad_value ")
    assert engine.one("go") == before  # the refused positions changed nothing


class UbgiPlayer:
    """A player of gammon's matches whose every decision is asked of a UBGI engine, as a
    controller asks it: the position and Match ID, then ``go``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.asked = 0

    def decide(self, match: Match, player: int) -> object:
        if match.to_act != player:
            return None
        game = match.game
        where = f"position gnubgid {game.position.id()}:{decision_match_id(match, player)}"
        if game.phase is Phase.MOVING and game.roll is not None:
            reply = self.engine.one(where, "go chequer")
            self.asked += 1
            return PlayMove(player, legal_play(game.position, game.roll,
                                               reply.removeprefix("bestmove ")))
        if game.phase is Phase.BEFORE_ROLL and game.can_double(player):
            reply = self.engine.one(where, "go cube")
            assert reply in ("bestcube double", "bestcube nodouble"), reply
            return OfferDouble(player) if reply == "bestcube double" else None
        if game.phase is Phase.CUBE_OFFERED:
            reply = self.engine.one(where, "go cube")
            answer = {"bestcube take": Take, "bestcube drop": Drop, "bestcube beaver": Beaver}
            return answer[reply](player)
        return None


def test_two_players_through_ubgi_play_a_whole_match_by_the_cores_rules(
        engine: Engine) -> None:
    """A 5-point match with the cube: every action the engine names is applied by the core,
    which refuses anything illegal, until the match is over."""
    engine.ask("newgame", "set engine.ply 1")
    players = (UbgiPlayer(engine), UbgiPlayer(engine))
    match = play_match(players, Rules(length=5), random.Random(11))  # type: ignore[arg-type]
    assert match.is_over and max(match.score) >= 5
    assert players[0].asked > 20 and players[1].asked > 20


def test_500_malformed_commands_get_one_error_each_and_the_engine_lives_on(
        engine: Engine) -> None:
    rng = random.Random(2026)
    words = ["ubgi", "isready", "newgame", "position", "dice", "go", "set", "get", "keys",
             "setoption", "gnubgid", "xgid", "chequer", "cube", "turn", "engine.ply",
             "engine.level", "\x00", "\x1b[2J", "é", "-1", "7", "99999999999999999999",
             "4HPwATDgc/ABMA", "4HPwATDgc/ABMA:", ":cAkAAAAAAAAA", "XGID=", "name", "value"]

    def malformed() -> str:
        kind = rng.randrange(6)
        if kind == 0:  # known commands with wrong arguments
            return rng.choice(["ubgi x", "isready now", "keys all", "newgame 1", "go a b",
                               "dice 1", "dice 1 2 3", "dice a b", "dice 0 6", "get",
                               "set engine.ply", "position", "position gnubgid",
                               "setoption engine.ply 2"])
        if kind == 1:  # bad positions
            junk = "".join(rng.choice("ABCxyz+/=:!#") for _ in range(rng.randint(1, 30)))
            return f"position {rng.choice(['gnubgid', 'xgid'])} {junk}"
        if kind == 2:  # bad values
            return (f"set {rng.choice(['engine.ply', 'engine.level', 'game.jacoby'])} "
                    f"{rng.choice(['0', '4', '-3', 'maybe', 'x' * rng.randint(1, 50)])}")
        if kind == 3:  # unknown keys
            return f"get engine.{''.join(rng.choice('qwxz') for _ in range(5))}"
        if kind == 4:  # random words, never a command first
            return " ".join(["?" + rng.choice(words), *rng.sample(words, rng.randint(0, 4))])
        return "".join(chr(rng.randint(33, 0x2FF)) for _ in range(rng.randint(1, 60)))

    engine.ask("newgame", f"position gnubgid {INITIAL}", "dice 5 2")
    good = engine.one("go")
    for _ in range(500):
        line = malformed()
        replies = engine.ask(line)
        assert len(replies) == 1 and re.fullmatch(
            r"error (bad_command|bad_value|bad_state|unsupported) .+", replies[0]), (line, replies)
    assert engine.one(f"position gnubgid {INITIAL}", "dice 5 2", "go") == good
    assert engine.one("x" * 10_000).startswith("error bad_command ")  # over the line limit
    assert engine.one("go") == good
