"""Generate tests/data/movegen_reference.tsv: legal-play counts computed by GNU Backgammon.

What it does
------------
This script runs *inside* GNU Backgammon's embedded Python interpreter (it imports the
``gnubg`` module that only exists there).  It builds a few hundred positions with gnubg's
own commands, sets the dice, and asks gnubg's move generator for the full list of legal
plays (``gnubg.hint`` at 0-ply with a limit far above the largest possible list).  gnubg
already merges plays that lead to the same position, so the length of that list is the
number of *distinct legal plays* (0 when the roll cannot be played at all).

The counts in the table therefore come from GNU Backgammon 1.07 (Debian package
``gnubg`` 1.07.001), not from the gammon package; this script imports nothing from gammon.

Regenerate (from the repository root; needs ``apt-get install gnubg``)::

    gnubg -t -q -p scripts/make_movegen_reference.py

Output: a TSV with the header ``position_id  dice  plays  category``.  ``position_id`` is
gnubg's 14-character Position ID with the side to play on roll; ``dice`` is written
higher die first (``31``, ``66``); ``plays`` is the number of distinct legal plays.

Everything is deterministic: gnubg's dice come from the Mersenne Twister with fixed
seeds and every other random choice uses ``random.Random`` with a fixed seed.

Conventions found by checking gnubg 1.07
----------------------------------------
* ``gnubg.board()`` / ``gnubg.positionfromid()`` return ``(opponent, on_roll)``: two
  lists of 25 ints, index 0..23 = points 1..24 *from that side's own point of view*,
  index 24 = that side's bar.  Checkers borne off are not stored (15 minus the rest).
* The Position ID encodes the side **not on roll first**: the first run of the bit
  string (points 1..24 then bar, each as that many 1-bits plus a 0) is the opponent,
  the second run is the player on roll.  Checked with the asymmetric position
  ``4HPwATDgc/ABUA`` (start position, but the player on roll has one of his two back
  checkers on the bar): it differs from the start ID ``4HPwATDgc/ABMA`` only in the
  last bits, i.e. in the second half.
* Hint notation: ``8/5 6/5``; a hit is ``8/2*``; a checker that moves on with further
  dice is written as one step, ``24/16`` (for 53 or 62) or ``bar/20*`` or ``4/off`` (11
  from the 4 point), and only a point where it hits on the way is shown:
  ``24/21*/16``, ``8/2*/1*``, ``bar/22*/21``; identical steps are merged as
  ``13/9(2)``, ``13/9(4)``, ``6/off(2)``; entering is ``bar/22``; bearing off ``6/off``.
  ``gnubg.parsemove`` turns a play into (from, to) steps with bar = 25 and off = 0.
"""

import base64
import os
import random
import sys

sys.path.insert(0, "scripts")  # run from the repository root, as the paths below are
from gnubg_session import command as gnubg_cmd

try:
    import gnubg  # only importable inside GNU Backgammon (gnubg -t -q -p this_file)
except ImportError:
    sys.exit("Run with GNU Backgammon: gnubg -t -q -p scripts/make_movegen_reference.py")

OUT_PATH = os.path.join("tests", "data", "movegen_reference.tsv")
HINT_LIMIT = 100_000  # far above the largest possible number of legal plays
START_ID = "4HPwATDgc/ABMA"

# Published sanity values; the script stops if gnubg does not reproduce them.
SANITY = [
    (START_ID, (3, 1), 16),
    (START_ID, (4, 4), 52),
    ("AACAkCRJqqoAAA", (1, 1), 2220),
    ("4HPwATDgc/ABUA", (6, 6), 0),
]

ALL_ROLLS = [(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1)]  # 21 rolls, high die first
DOUBLES = [(d, d) for d in range(1, 7)]
NON_DOUBLES = [r for r in ALL_ROLLS if r[0] != r[1]]

# gnubg's position classes (positionclass enum in gnubg's eval.h)
CLASS_CRASHED, CLASS_CONTACT = 9, 10

def log(message: str) -> None:
    print(message, flush=True)


# --------------------------------------------------------------------------- match state


def match_state() -> dict:
    """Decode gnubg's current Match ID (layout from the gnubg manual)."""
    raw = int.from_bytes(base64.b64decode(gnubg.matchid()), "little")

    def field(start: int, width: int) -> int:
        return (raw >> start) & ((1 << width) - 1)

    return {
        "game_state": field(8, 3),  # 1 = playing, 2 = game over
        "turn": field(11, 1),
        "dice": (field(15, 3), field(18, 3)),
    }


def setup_gnubg() -> None:
    for command in (
        "set player 0 human",
        "set player 1 human",
        "set automatic move off",  # never play forced moves on its own
        "set automatic roll off",
        "set automatic game off",
        "set automatic bearoff off",
        "set automatic doubles 0",
        "set cube use off",
        "set jacoby off",
        "set confirm new off",
        "set display off",
        "set evaluation chequerplay evaluation plies 0",
        "set evaluation chequerplay evaluation prune off",
        "set rng mersenne",
        "set seed 1",
    ):
        gnubg_cmd(command, check=True)
    gnubg_cmd("new session")


# --------------------------------------------------------------------------- move lists


def current_plays() -> list[str]:
    """All distinct legal plays gnubg lists for the current position and dice."""
    hint = gnubg.hint(HINT_LIMIT)
    expected = f"{gnubg.positionid()}:{gnubg.matchid()}"
    if hint.get("gnubgid") != expected or hint.get("hinttype") != "chequer":
        raise RuntimeError(f"unexpected hint answer for {expected}: {hint.get('gnubgid')}")
    moves = [entry["move"] for entry in hint["hint"]]
    if len(set(moves)) != len(moves):
        raise RuntimeError(f"duplicate plays in gnubg's list for {expected}")
    return moves


def plays_for(position_id: str, dice: tuple[int, int]) -> list[str]:
    """Put `position_id` on the board (side on roll to play), set `dice`, list the plays."""
    if match_state()["game_state"] != 1:
        gnubg_cmd("new game")
    gnubg_cmd(f"set board {position_id}")
    gnubg_cmd(f"set dice {dice[0]} {dice[1]}")
    state = match_state()
    if gnubg.positionid() != position_id or sorted(state["dice"]) != sorted(dice):
        raise RuntimeError(
            f"could not set up {position_id} with {dice}: got {gnubg.positionid()} {state}"
        )
    return current_plays()


def pips_moved(move: str) -> tuple[int, bool]:
    """Total pips of a play in gnubg notation, and whether it bears a checker off."""
    steps = gnubg.parsemove(move)  # ((from, to), ...), bar = 25, off = 0
    return sum(src - dst for src, dst in steps), any(dst == 0 for _, dst in steps)


# --------------------------------------------------------------------------- positions


def make_position(mine: dict, theirs: dict) -> str:
    """Position ID for a board given from the point of view of the player on roll.

    `mine` maps the on-roll player's points 1..24 (or "bar") to checker counts.
    `theirs` maps points *in the on-roll player's numbering* (their point q is our 25-q)
    or "bar" to the opponent's checker counts.  Missing checkers are borne off.
    """
    me, opp = [0] * 25, [0] * 25
    for point, n in mine.items():
        me[24 if point == "bar" else point - 1] += n
    for point, n in theirs.items():
        opp[24 if point == "bar" else 24 - point] += n
    if sum(me) > 15 or sum(opp) > 15 or any(me[i] and opp[23 - i] for i in range(24)):
        raise ValueError(f"illegal board: mine={mine} theirs={theirs}")
    board = (opp, me)
    position_id = gnubg.positionid(board)
    if [list(side) for side in gnubg.positionfromid(position_id)] != [opp, me]:
        raise RuntimeError(f"gnubg did not round-trip {position_id}")
    return position_id


def spread(rng: random.Random, points: list[int], n: int, cap: int = 5) -> dict:
    """Distribute n checkers over the given points, at most `cap` per point."""
    out: dict = {}
    for _ in range(n):
        choices = [p for p in points if out.get(p, 0) < cap]
        p = rng.choice(choices)
        out[p] = out.get(p, 0) + 1
    return out


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, int, str]] = []
        self.seen: set[tuple[str, str]] = set()

    def add(self, position_id: str, dice: tuple[int, int], plays: int, category: str) -> bool:
        dice_text = f"{max(dice)}{min(dice)}"
        key = (position_id, dice_text)
        if category != "sanity" and key in self.seen:
            return False
        if category != "sanity":
            self.seen.add(key)
        self.rows.append((position_id, dice_text, plays, category))
        return True

    def count(self, position_id: str, dice: tuple[int, int], category: str) -> int:
        plays = len(plays_for(position_id, dice))
        self.add(position_id, dice, plays, category)
        return plays

    def category_size(self, category: str) -> int:
        return sum(1 for row in self.rows if row[3] == category)


# --------------------------------------------------------------------------- categories


def add_sanity(table: Table) -> None:
    for position_id, dice, expected in SANITY:
        got = len(plays_for(position_id, dice))
        log(f"  sanity {position_id} {dice[0]}{dice[1]}: {got} plays (published {expected})")
        if got != expected:
            raise SystemExit(f"sanity check failed for {position_id} {dice}: {got} != {expected}")
        table.add(position_id, dice, got, "sanity")


def add_opening(table: Table) -> None:
    # The starting position with all 21 rolls ...
    for dice in ALL_ROLLS:
        table.count(START_ID, dice, "opening")
    # ... plus the second move of the game: the opponent's reply positions after the
    # opening play gnubg prefers (0-ply) for a few opening rolls, with one double and one
    # non-double each.
    for opening_roll, replies in (
        ((3, 1), [(6, 6), (5, 2)]),
        ((4, 2), [(1, 1), (6, 4)]),
        ((6, 5), [(3, 3), (4, 3)]),
        ((2, 1), [(5, 5), (6, 1)]),
        ((5, 3), [(2, 2), (3, 2)]),
    ):
        best = plays_for(START_ID, opening_roll)[0]
        output = gnubg_cmd(f"move {best}")
        if "Illegal" in output:
            raise RuntimeError(f"gnubg refused its own move {best}")
        reply_id = gnubg.positionid()
        for dice in replies:
            table.count(reply_id, dice, "opening")


def add_bar(table: Table, rng: random.Random) -> None:
    """Checkers on the bar against 0..6 closed points in the opponent's home board."""
    for closed in range(7):
        for on_bar in (1, 2, 3):
            home = rng.sample(range(19, 25), closed)  # our points 19..24 = their home board
            theirs = {p: 2 for p in home}
            left = 15 - 2 * closed
            open_home = [p for p in range(19, 25) if p not in home]
            if open_home and left and rng.random() < 0.6:  # a blot we may hit when entering
                theirs[rng.choice(open_home)] = 1
                left -= 1
            for p, n in spread(rng, [12, 13, 14, 15, 16, 17], left).items():
                theirs[p] = theirs.get(p, 0) + n
            mine = {"bar": on_bar}
            mine.update(spread(rng, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 15 - on_bar))
            position_id = make_position(mine, theirs)
            rolls = rng.sample(NON_DOUBLES, 2) + rng.sample(DOUBLES, 2)
            counts = [table.count(position_id, dice, "bar") for dice in rolls]
            log(f"  bar: {on_bar} on bar vs {closed} closed points {position_id}: {counts}")


def add_bearoff(table: Table, rng: random.Random) -> None:
    """All checkers of the side on roll in its home board."""
    race = {20: 3, 21: 3, 22: 3, 23: 3, 24: 3}  # opponent at home: no contact
    # highest checker on the 5 point: 6s bear off from the highest point; 1s must move inside
    position_id = make_position({5: 3, 4: 2, 3: 2}, race)
    for dice in ALL_ROLLS:
        table.count(position_id, dice, "bearoff")
    # all 15 home with gaps: small numbers must move inside
    position_id = make_position({6: 4, 5: 4, 4: 3, 2: 4}, race)
    for dice in [(1, 1), (2, 1), (3, 1), (3, 3), (6, 6), (6, 5), (5, 3), (4, 1)]:
        table.count(position_id, dice, "bearoff")
    # a lone checker on the 6 point and a big roll; two checkers on the 1 point
    position_id = make_position({6: 1, 1: 2}, race)
    for dice in [(6, 5), (5, 4), (2, 1), (1, 1), (3, 3)]:
        table.count(position_id, dice, "bearoff")
    # random bear-off positions, some with the opponent still holding an anchor in our board
    for i in range(5):
        n = rng.randint(4, 15)
        mine = spread(rng, [1, 2, 3, 4, 5, 6], n, cap=6)
        if i % 2:
            anchor = rng.choice([p for p in range(1, 7) if p not in mine] or [None])
            theirs = {anchor: 2, 20: 4, 21: 3, 22: 3, 23: 3} if anchor else race
        else:
            theirs = race
        position_id = make_position(mine, theirs)
        for dice in rng.sample(ALL_ROLLS, 6):
            table.count(position_id, dice, "bearoff")


def add_bearoff_hit(table: Table) -> None:
    """14 checkers home, the 15th on the bar or outside: no bearing off allowed."""
    theirs = {19: 2, 20: 2, 22: 3, 12: 4, 13: 4}  # two points made in their home board
    position_id = make_position({"bar": 1, 6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 1}, theirs)
    for dice in ALL_ROLLS:
        table.count(position_id, dice, "bearoff_hit")
    position_id = make_position({8: 1, 6: 4, 5: 3, 4: 3, 3: 2, 1: 2}, theirs)
    for dice in [(6, 6), (6, 5), (2, 1), (1, 1), (4, 3), (3, 3), (6, 1), (5, 5)]:
        table.count(position_id, dice, "bearoff_hit")
    position_id = make_position({21: 1, 6: 2, 5: 2, 4: 4, 2: 3, 1: 3}, {19: 2, 20: 3, 12: 10})
    for dice in [(6, 6), (4, 4), (6, 2), (5, 1), (2, 2), (3, 1)]:
        table.count(position_id, dice, "bearoff_hit")


def blocked_candidate(rng: random.Random) -> str:
    """A position where only a few of our checkers can move, between opponent blocks."""
    mine: dict = {}
    for point in rng.sample(range(7, 25), rng.randint(1, 3)):
        mine[point] = rng.choice([1, 1, 2])
    if rng.random() < 0.2:
        mine["bar"] = 1
    if rng.random() < 0.3:
        mine[rng.choice([2, 3, 4])] = 2  # a few home checkers that can move a little
    mine[1] = 15 - sum(mine.values())  # the rest sit on the ace point and cannot move
    free = [p for p in range(2, 24) if p not in mine]
    blocks = rng.sample(free, rng.randint(5, 7))
    theirs = {p: 2 for p in blocks}
    for _ in range(15 - 2 * len(blocks)):
        p = rng.choice(blocks)
        theirs[p] += 1
    return make_position(mine, theirs)


def add_partial_rolls(table: Table, rng: random.Random, target: int = 40) -> None:
    """`one_die`: only one die can be played.  `higher_die`: either die alone, not both.

    Checked with gnubg's lists only: a play's pip total (from gnubg.parsemove) tells how
    many dice it uses (no bear-offs in these positions), and "die d can be played at all"
    is the same as "the roll d-d has at least one legal play".
    """
    per_position_cap = 2
    tried = 0
    while table.category_size("one_die") < target or table.category_size("higher_die") < target:
        tried += 1
        if tried > 5000:
            raise RuntimeError("could not find enough one_die / higher_die positions")
        position_id = blocked_candidate(rng)
        lists = {dice: plays_for(position_id, dice) for dice in ALL_ROLLS}
        playable = {d: bool(lists[(d, d)]) for d in range(1, 7)}
        taken = {"one_die": 0, "higher_die": 0}
        for dice in rng.sample(ALL_ROLLS, len(ALL_ROLLS)):
            plays = lists[dice]
            if not plays:
                continue
            pips = [pips_moved(play) for play in plays]
            if any(off for _, off in pips):
                continue
            hi, lo = dice
            if hi == lo:
                category = "one_die" if all(p == hi for p, _ in pips) else None
            elif all(p == hi for p, _ in pips) and playable[lo] and playable[hi]:
                category = "higher_die"
            elif all(p in (hi, lo) for p, _ in pips) and playable[hi] != playable[lo]:
                category = "one_die"
            else:
                category = None
            if (
                category
                and taken[category] < per_position_cap
                and table.category_size(category) < target
                and table.add(position_id, dice, len(plays), category)
            ):
                taken[category] += 1
        if any(taken.values()):
            log(f"  candidate {tried} {position_id}: {taken}")


def play_turns(seed: int, rng: random.Random, p_random: float):
    """Self-play from the opening with gnubg's dice (fixed seed).

    Yields (position_id, dice, plays, turn_number) before each move; the move played is
    a uniformly random legal play with probability `p_random`, otherwise gnubg's 0-ply
    choice (the first entry of its list).
    """
    gnubg_cmd("set rng mersenne")
    gnubg_cmd(f"set seed {seed}")
    gnubg_cmd("new session")
    turn = 0
    while True:
        state = match_state()
        if state["game_state"] != 1:
            gnubg_cmd("new game")
            turn = 0
            continue
        if state["dice"] == (0, 0):
            gnubg_cmd("roll")
            continue
        position_id, plays = gnubg.positionid(), current_plays()
        yield position_id, state["dice"], plays, turn
        turn += 1
        if not plays:
            output = gnubg_cmd("move")  # no legal play: pass
        else:
            play = rng.choice(plays) if rng.random() < p_random else plays[0]
            output = gnubg_cmd(f"move {play}")
        after = match_state()
        if "Illegal" in output or (after["game_state"] == 1 and after["turn"] == state["turn"]):
            raise RuntimeError(f"gnubg did not accept the move in {position_id}: {output}")


def add_doubles(table: Table, rng: random.Random, positions: int = 7) -> None:
    """Middle-game positions (contact, from seeded self-play) with all six doubles."""
    picked = []
    for position_id, _, _, turn in play_turns(seed=2024, rng=rng, p_random=0.3):
        board = gnubg.positionfromid(position_id)
        if turn < 8 or gnubg.classifypos(board) not in (CLASS_CONTACT, CLASS_CRASHED):
            continue
        if rng.random() < 0.7:  # spread the picks over several games
            continue
        picked.append((position_id, turn))
        if len(picked) == positions:
            break
    # counting needs the board, so only after the self-play generator is done with it
    for position_id, turn in picked:
        counts = [table.count(position_id, dice, "doubles") for dice in DOUBLES]
        log(f"  doubles {position_id} (turn {turn}): {counts}")


def add_random(table: Table, rng: random.Random, target: int = 200) -> None:
    """Positions met in random self-play games from the opening, with the dice rolled."""
    for position_id, dice, plays, turn in play_turns(seed=12345, rng=rng, p_random=0.6):
        if table.add(position_id, dice, len(plays), "random") and turn % 40 == 0:
            log(f"  random: {table.category_size('random')} rows so far")
        if table.category_size("random") >= target:
            break


def main() -> None:
    if not os.path.isdir("tests"):
        raise SystemExit("run from the repository root")
    setup_gnubg()
    table = Table()
    steps = [
        ("sanity", lambda: add_sanity(table)),
        ("opening", lambda: add_opening(table)),
        ("bar", lambda: add_bar(table, random.Random(101))),
        ("doubles", lambda: add_doubles(table, random.Random(102))),
        ("bearoff", lambda: add_bearoff(table, random.Random(103))),
        ("bearoff_hit", lambda: add_bearoff_hit(table)),
        ("one_die/higher_die", lambda: add_partial_rolls(table, random.Random(104))),
        ("random", lambda: add_random(table, random.Random(105))),
    ]
    for name, step in steps:
        log(f"[{name}]")
        step()
    os.makedirs(os.path.dirname(OUT_PATH), exist_ok=True)
    with open(OUT_PATH, "w", encoding="ascii", newline="\n") as out:
        out.write("position_id\tdice\tplays\tcategory\n")
        for position_id, dice, plays, category in table.rows:
            out.write(f"{position_id}\t{dice}\t{plays}\t{category}\n")
    log(f"wrote {len(table.rows)} rows to {OUT_PATH}")
    for category in dict.fromkeys(row[3] for row in table.rows):
        log(f"  {category}: {table.category_size(category)}")


main()
