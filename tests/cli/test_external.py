"""``gammon external`` against the real GNU Backgammon (``/usr/games/gnubg``): gnubg plays
a match and a money game with our server as its player 1, saves them, and gammon's own
importers read the same result; then 500 malformed lines on one connection, each refused
with an ``Error:`` line, and the server still answers a good line."""

from __future__ import annotations

import os
import random
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gammon.core.notation import parse_play
from gammon.formats import mat, sgf
from gammon.formats.fibs_board import FibsBoard

GNUBG = "/usr/games/gnubg"
DATA = Path(__file__).resolve().parents[1] / "data" / "gnubg_external_boards.txt"
BOARDS = dict(row.split(" ", 1) for row in DATA.read_text().splitlines()
              if row and not row.startswith("#"))

needs_gnubg = pytest.mark.skipif(not os.access(GNUBG, os.X_OK),
                                 reason=f"GNU Backgammon is not installed ({GNUBG})")


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[subprocess.Popen[str], int]]:
    """``gammon external --port 0`` in a subprocess, and the port it printed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "gammon.cli.main", "external", "--port", "0", "--seed", "7"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        ready = process.stdout.readline()
        match = re.fullmatch(r"listening on 127\.0\.0\.1:(\d+)\n", ready)
        assert match, ready
        yield process, int(match.group(1))
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def _gnubg(commands: list[str], tmp_path: Path) -> str:
    script = tmp_path / "commands.txt"
    script.write_text("\n".join(commands) + "\n")
    with script.open() as commands_in:
        done = subprocess.run([GNUBG, "-t", "-q"], stdin=commands_in, capture_output=True,
                              text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def _setup(port: int, seat: int = 1) -> list[str]:
    """gnubg at 0-ply against us, gammon in ``seat`` (gnubg's player number)."""
    return [f"set player {1 - seat} gnubg",
            f"set player {1 - seat} chequerplay evaluation plies 0",
            f"set player {1 - seat} cubedecision evaluation plies 0",
            f"set player {seat} external localhost:{port}", "set display off",
            "set rng mersenne", f"set seed {20 + seat}"]


def _no_protocol_error(output: str) -> None:
    assert "Error" not in output and "badly formed" not in output, output[-2000:]


@needs_gnubg
@pytest.mark.parametrize("seat", [1, 0])
def test_gnubg_plays_a_7_point_match_against_us_to_the_end(
        server: tuple[subprocess.Popen[str], int], tmp_path: Path, seat: int) -> None:
    _, port = server
    sgf_file, mat_file = tmp_path / "match.sgf", tmp_path / "match.mat"
    output = _gnubg([*_setup(port, seat), "new match 7", f"save match {sgf_file}",
                     f"export match mat {mat_file}"], tmp_path)
    _no_protocol_error(output)
    won = re.search(r"(\w+) has won the match", output)
    assert won, output[-2000:]
    # gnubg names player 1 after the login, whatever 'set player 1 name' said
    scores = re.findall(r"The score \(after \d+ games?\) is: (\S+) (\d+), (\S+) (\d+)", output)
    assert scores, output[-3000:]
    name0, score0, name1, score1 = scores[-1]
    for record in (sgf.load(sgf_file), mat.load(mat_file)):
        match = record.replay()  # every play legal, every cube action in turn
        assert match.is_over
        assert record.players == (name0, name1)
        assert tuple(match.score) == (int(score0), int(score1))
        assert record.players[match.winner] == won.group(1)


@needs_gnubg
def test_gnubg_plays_a_money_game_with_the_cube_against_us(
        server: tuple[subprocess.Popen[str], int], tmp_path: Path) -> None:
    _, port = server
    sgf_file = tmp_path / "money.sgf"
    output = _gnubg([*_setup(port), "set jacoby off", "set automatic game off", "new session",
                     f"save match {sgf_file}"], tmp_path)
    _no_protocol_error(output)
    result = re.search(r"(\w+) wins an? [a-z ]+ and (\d+) points?", output)
    assert result, output[-2000:]
    record = sgf.load(sgf_file)
    assert record.is_money
    ended = record.games[-1].result
    assert ended is not None
    assert record.players[ended.winner] == result.group(1)
    assert ended.points == int(result.group(2))


def _mutations(rng: random.Random, lines: list[str]) -> Iterator[bytes]:
    """Malformed variants of real lines, each malformed by construction."""
    numeric = list(range(2, 52))  # every field but the names
    for n in range(500):
        fields = rng.choice(lines).split(":")[1:]  # without 'board'
        kind = n % 8
        if kind == 0:  # truncated
            yield ("board:" + ":".join(fields[:rng.randrange(52)])).encode()
        elif kind == 1:  # an extra field
            yield ("board:" + ":".join([*fields, str(rng.randint(0, 9))])).encode()
        elif kind == 2:  # not a number
            fields[rng.choice(numeric)] = rng.choice(["x", "", "1.5", "--1", " 3", "0x10"])
            yield ("board:" + ":".join(fields)).encode()
        elif kind == 3:  # huge number
            fields[rng.choice(numeric)] = str(rng.randint(10**8, 10**40))
            yield ("board:" + ":".join(fields)).encode()
        elif kind == 4:  # bytes that are not UTF-8
            raw = ("board:" + ":".join(fields)).encode()
            cut = rng.randrange(len(raw))
            yield raw[:cut] + bytes([rng.choice([0x80, 0xC3, 0xFF, 0xFE])]) + raw[cut:]
        elif kind == 5:  # a checker count no board can hold
            fields[rng.randrange(5, 31)] = str(rng.choice([16, -16, 30]))
            yield ("board:" + ":".join(fields)).encode()
        elif kind == 6:  # garbled prefix or noise
            prefix = rng.choice([b"bord:", b"BOARD:", b"", b"\x00\x00", b"roll",
                                 "b\u00f6ard:".encode()])
            yield prefix + rng.randbytes(rng.randrange(40)).replace(b"\n", b"")
        else:  # colour or direction out of range
            fields[rng.choice([40, 41])] = str(rng.choice([0, 2, -7]))
            yield ("board:" + ":".join(fields)).encode()


def test_500_malformed_lines_each_get_an_error_and_the_server_still_plays(
        server: tuple[subprocess.Popen[str], int]) -> None:
    process, port = server
    rng = random.Random(2026)
    with (socket.create_connection(("127.0.0.1", port), timeout=60) as connection,
          connection.makefile("rwb") as stream):
        for line in _mutations(rng, list(BOARDS.values())):
            stream.write(line + b"\n\x00")
            stream.flush()
            reply = stream.readline().decode()
            assert reply.startswith("Error: ") and len(reply) > 12, (line, reply)
        assert process.poll() is None
        good = BOARDS["match7_gnubg1_root4_rolled"]
        stream.write(good.encode() + b"\n\x00")
        stream.flush()
        reply = stream.readline().decode().strip()
    state = FibsBoard.parse(good).state()
    assert state.roll is not None
    parse_play(state.position, state.roll, reply)  # a legal play of 5-2


def test_each_kind_of_decision_gets_its_answer(server: tuple[subprocess.Popen[str], int]
                                               ) -> None:
    _, port = server
    with (socket.create_connection(("127.0.0.1", port), timeout=60) as connection,
          connection.makefile("rwb") as stream):

        def ask(line: str) -> str:
            stream.write(line.encode() + b"\n")
            stream.flush()
            return stream.readline().decode().strip()

        assert ask(BOARDS["match7_root4_gnubg1_doubled"]) in ("take", "drop")
        assert ask(BOARDS["money_before_roll"]) in ("roll", "double")
        crawford = BOARDS["match7_crawford_gnubg1_root6"]
        state = FibsBoard.parse(crawford).state()
        assert state.roll is not None
        parse_play(state.position, state.roll, ask(crawford))
        assert ask("board:nonsense").startswith("Error: a board line has 52 fields")


def test_with_the_cube_off_every_play_is_valued_cubeless() -> None:
    """gnubg's line under ``set cube use off`` still says both sides may double, so
    ``--no-cube`` is what tells the player: its view has no cube in use and it plays the
    best play by cubeless money equity (the engine's ranking without a context)."""
    from gammon.cli.external import ExternalPlayer
    from gammon.engine.cube import CubeInfo
    from gammon.engine.matchbot import MatchBot
    from gammon.engine.player import Engine

    line = BOARDS["money_cube_off_rolled"]
    board = FibsBoard.parse(line)
    assert board.player_may_double and board.opponent_may_double
    state = board.state()
    assert state.roll is not None
    engine = Engine.load()
    cube_off = ExternalPlayer(MatchBot(engine), cube_in_use=False)
    assert cube_off.cube_info(state) == CubeInfo.money(in_use=False)
    assert ExternalPlayer(MatchBot(engine)).cube_info(state) == CubeInfo.money()
    best = engine.rank_plays(state.position, state.roll)[0].play
    assert parse_play(state.position, state.roll, cube_off.answer(line)) == best
