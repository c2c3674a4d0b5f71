"""Generate the Match ID and XGID reference tables from GNU Backgammon itself.

Regenerate (from the repository root; needs ``apt-get install gnubg``, 1.07 was used)::

    gnubg -t -q -p scripts/make_match_id_reference.py < /dev/null

(``set xgid`` asks whether to swap the players; with stdin at end of file gnubg swaps.)

The script runs inside GNU Backgammon's embedded Python (the ``gnubg`` module exists only
there) and imports nothing from gammon, so the tables are an independent reference.

``tests/data/match_id_reference.tsv``
    gnubg is driven through real match states with its own commands (roll, move, double,
    take, drop, resign, accept, set score/cube/crawford, bear off the last checker, ...).
    Each row is ``gnubg.matchid()`` next to the fields read back from gnubg's own state,
    not from the ID: ``gnubg.cubeinfo()`` (cube, owner, player on move, match length,
    Crawford, Jacoby), ``gnubg.posinfo()`` (dice, turn, resignation, doubled, game state)
    and ``show score`` (``cubeinfo`` reports a money session's score as 0-0; the Match ID
    holds the real one). gnubg keeps the Jacoby rule off in match play whatever
    ``set jacoby`` says. Dice are written as gnubg holds them; its Match ID puts the higher
    die first.

``tests/data/xgid_reference.tsv``
    Hand-written XGIDs fed to ``set xgid`` (gnubg 1.07 imports XGIDs but cannot write them),
    with the Position ID and Match ID gnubg ends up with. Two habits of gnubg's importer
    show in the table: when the top player is on roll it swaps the players so the player on
    roll sits at the bottom (``swapped`` = 1, read from gnubg's state), and it cannot keep a
    double on offer, so a ``D`` XGID comes back as the position before the double.

Nothing is left to chance: the dice are set explicitly (``set dice``) and the seed that
settles the opening rolls is fixed, so a rerun writes the same tables.
"""

import os
import re
import sys

sys.path.insert(0, "scripts")  # run from the repository root, as the paths below are
import gnubg_session

try:
    import gnubg  # only importable inside GNU Backgammon
except ImportError:
    sys.exit("Run with GNU Backgammon: gnubg -t -q -p scripts/make_match_id_reference.py")

MATCH_ID_PATH = os.path.join("tests", "data", "match_id_reference.tsv")
XGID_PATH = os.path.join("tests", "data", "xgid_reference.tsv")

MATCH_ID_COLUMNS = (
    "match_id",
    "cube",
    "cube_owner",
    "dice_owner",
    "crawford",
    "game_state",
    "turn",
    "double_offered",
    "resignation",
    "dice",
    "match_length",
    "score0",
    "score1",
    "jacoby",
    "state",
)
XGID_COLUMNS = ("xgid", "position_id", "match_id", "swapped", "note")

def run(text: str, *, check: bool = True) -> str:
    """Run a gnubg command and return what it printed; with ``check``, stop if gnubg
    refused it."""
    return gnubg_session.command(text, check=check)


class MatchIdTable:
    """Rows of (gnubg's Match ID, the state gnubg holds) for the current session."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []
        self.jacoby = False

    def start(self, command: str, *, jacoby: bool) -> None:
        """Start a session or match (gnubg reads the Jacoby setting when one starts)."""
        run("set jacoby " + ("on" if jacoby else "off"))
        run(command)
        self.jacoby = jacoby

    def record(self, state: str) -> None:
        cube = gnubg.cubeinfo()
        pos = gnubg.posinfo()
        dice = pos["dice"]
        # "The score (after 2 games) is: <player 0> 1, <player 1> 0 (money session...)"
        score = re.search(r"is: .+? (\d+), .+? (\d+)", run("show score"))
        if score is None:
            raise SystemExit("no score in gnubg's 'show score'")
        score0, score1 = int(score[1]), int(score[2])
        jacoby = bool(cube["jacoby"])
        if cube["matchto"] and (score0, score1) != tuple(cube["score"]):
            raise SystemExit(f"show score and cubeinfo disagree: {score[0]} {cube}")
        if not cube["matchto"] and jacoby != self.jacoby:
            raise SystemExit(f"gnubg did not take 'set jacoby': {cube}")
        row = (
            gnubg.matchid(),
            cube["cube"],
            "-" if cube["cubeowner"] == -1 else cube["cubeowner"],
            cube["move"],
            cube["crawford"],
            pos["gamestate"],
            pos["turn"],
            pos["doubled"],
            pos["resigned"],
            f"{dice[0]}{dice[1]}" if dice[0] else "-",
            cube["matchto"],
            score0,
            score1,
            int(jacoby),
            state,
        )
        self.rows.append(tuple(str(v) for v in row))
        print("\t".join(self.rows[-1]), flush=True)


def setup() -> None:
    for command in (
        "set player 0 human",
        "set player 1 human",
        "set automatic roll off",
        "set automatic game off",
        "set automatic bearoff off",
        "set automatic move off",
        "set automatic doubles 0",
        "set confirm new off",
        "set cube use on",
        "set beavers 3",
        "set rng mersenne",
        "set seed 2024",
    ):
        run(command)


def money_states(table: MatchIdTable) -> None:
    table.start("new session", jacoby=False)
    run("set dice 31")
    table.record("money: opening roll 3-1 to play")
    run("move 8/5 6/5")
    table.record("money: after 8/5 6/5, the other player to roll")
    run("double")
    table.record("money: double offered")
    run("take")
    table.record("money: double taken, doubler to roll")
    run("set dice 13")
    table.record("money: dice set as 1-3 (low die first)")
    run("move 8/7 8/5")
    run("double")
    table.record("money: redouble offered by the cube owner")
    run("drop")
    table.record("money: redouble dropped")

    table.start("new session", jacoby=True)
    run("set dice 64")
    table.record("money, Jacoby: new session, 6-4 to play")
    run("move 24/14")
    run("resign gammon")
    table.record("money, Jacoby: gammon resignation offered")
    run("reject")
    run("set dice 55")
    table.record("money, Jacoby: resignation rejected, 5-5 to play")
    run("move 13/8(2) 6/1*(2)")
    run("resign single")
    table.record("money, Jacoby: single resignation offered")
    run("accept")
    table.record("money, Jacoby: resignation accepted")
    run("new game")
    run("set dice 65")
    table.record("money, Jacoby: second game, session score 1-0")


def match_states(table: MatchIdTable) -> None:
    table.start("new match 7", jacoby=False)
    run("set dice 52")
    table.record("7-point match: opening roll 5-2")
    run("set score 6 3")
    run("set crawford on")
    table.record("7-point match at 6-3, Crawford game")
    run("set crawford off")
    run("set turn 1")
    table.record("7-point match at 6-3, post-Crawford, player 1 to roll")
    run("double")
    table.record("7-point match at 6-3, post-Crawford double offered")
    run("take")
    table.record("7-point match at 6-3, post-Crawford double taken")

    table.start("new match 11", jacoby=True)
    run("set score 4 9")
    run("set turn 0")
    run("set cube value 8")
    run("set cube owner 1")
    run("set dice 66")
    table.record("11-point match at 4-9, 8-cube owned by player 1, 6-6 to play (Jacoby set)")
    run("resign backgammon")
    table.record("11-point match at 4-9: backgammon resignation offered")

    table.start("new match 25", jacoby=False)
    run("set score 20 17")
    run("set turn 1")
    run("set cube value 2")
    run("set cube owner 0")
    # Player 1 on roll with one checker left on its ace point; player 0 has 14 checkers on
    # its 6-point and one on the bar, none borne off: a backgammon.
    run("set board 4P8HAEABAAAAAA")
    run("set dice 21")
    table.record("25-point match at 20-17, last checker to bear off")
    run("move 1/off")
    table.record("25-point match: game over, won by bearing off")

    table.start("new match 1", jacoby=False)
    run("set dice 43")
    table.record("1-point match: opening roll 4-3")


# Hand-written XGIDs: the published example, both players on roll, checkers on both bars,
# every cube owner, Crawford and post-Crawford, money flags, a double on offer, a bear-off.
XGIDS = (
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10", "published example, money"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "start, money, no flags"),
    ("XGID=-b---AD-C---dD---c-db---BA:1:-1:1:64:3:5:0:9:10", "bottom on bar and on roll"),
    ("XGID=-b---AD-C---dD---c-db---BA:2:1:-1:00:3:5:0:9:10", "top to roll, bottom owns 4"),
    ("XGID=aa--AAD-C---dD---c-db---B-:0:0:-1:31:6:3:1:7:10", "top on bar, Crawford"),
    ("XGID=aa--AAD-C---dD---c-db---B-:0:0:1:62:6:5:0:7:10", "post-Crawford, bottom rolls"),
    ("XGID=-b---AD-C---dD---c-db---BA:1:1:1:D:2:4:0:9:10", "bottom redoubles to 4"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:-1:D:0:0:0:0:10", "top doubles, money"),
    ("XGID=-BCC-A--------------c-d-b-:0:0:1:66:0:0:1:0:10", "bear-off, Jacoby"),
    ("XGID=-BCC-A--------------c-d-b-:3:-1:-1:21:0:0:2:0:10", "bear-off, top owns 8, beaver"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:43:0:0:0:1:10", "1-point match"),
    ("XGID=-b---AD-C---dD---c-db---BA:4:1:-1:00:20:17:0:25:10", "25-point match, 16-cube"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:8", "max cube 256"),
)


def xgid_rows() -> list[tuple[str, ...]]:
    rows = []
    for xgid, note in XGIDS:
        run("new session")
        output = run("set xgid " + xgid, check=False)  # a "D" XGID makes gnubg complain
        if "Not a valid XGID" in output or "llegal" in output:
            raise SystemExit(f"gnubg refused {xgid}: {output}")
        turn = int(xgid.split(":")[3])
        swapped = int(turn == -1 and gnubg.cubeinfo()["move"] == 1)
        row = (xgid, gnubg.positionid(), gnubg.matchid(), str(swapped), note)
        print("\t".join(row), flush=True)
        rows.append(row)
    return rows


def write(path: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write("\t".join(columns) + "\n")
        for row in rows:
            out.write("\t".join(row) + "\n")


def main() -> None:
    setup()
    table = MatchIdTable()
    money_states(table)
    match_states(table)
    write(MATCH_ID_PATH, MATCH_ID_COLUMNS, table.rows)
    write(XGID_PATH, XGID_COLUMNS, xgid_rows())
    print(f"wrote {len(table.rows)} rows to {MATCH_ID_PATH} and {len(XGIDS)} to {XGID_PATH}")


main()
