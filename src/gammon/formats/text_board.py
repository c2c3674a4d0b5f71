"""The board as text, for the terminal: the side on roll (X) at the bottom, moving from its
24-point (top right) round to its home board (bottom right), in the layout of GNU
Backgammon's text board.

>>> from gammon.core.position import Position
>>> print(draw(Position.initial()).splitlines()[0])
 +13-14-15-16-17-18------19-20-21-22-23-24-+
"""

from __future__ import annotations

from collections.abc import Sequence

from gammon.core.position import BAR, OPPONENT_BAR, Position

_ROWS = 5  # checkers drawn per half-column; a taller stack shows its count in the last row


def _cell(count: int, row: int, mark: str) -> str:
    """Row ``row`` (0 = nearest the edge) of a stack of ``count`` checkers."""
    if count > _ROWS and row == _ROWS - 1:
        return f"{count:>2} "[:3] if count < 100 else "## "
    return f" {mark} " if count > row else "   "


def draw(
    position: Position, *, notes: Sequence[str] = (), names: tuple[str, str] = ("", "")
) -> str:
    """Draw ``position`` with X on roll; ``notes`` are printed beside the board's top rows.

    ``names`` are the players' names (side on roll first), shown beside X and O.
    """
    board = position.board
    top = list(range(13, 19)), list(range(19, 25))
    bottom = list(range(12, 6, -1)), list(range(6, 0, -1))

    def stack(point: int, row: int) -> str:
        count = board[point]
        return _cell(abs(count), row, "X" if count > 0 else "O")

    def half_row(points: list[int], row: int) -> str:
        return "".join(stack(p, row) for p in points)

    mine_bar, their_bar = board[BAR], -board[OPPONENT_BAR]
    lines = [" +13-14-15-16-17-18------19-20-21-22-23-24-+"]
    for row in range(_ROWS):
        bar = _cell(their_bar, row, "O")
        lines.append(f" |{half_row(top[0], row)}|{bar}|{half_row(top[1], row)}|")
    lines.append(" |                  |BAR|                  |")
    for row in reversed(range(_ROWS)):
        bar = _cell(mine_bar, row, "X")
        lines.append(f" |{half_row(bottom[0], row)}|{bar}|{half_row(bottom[1], row)}|")
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+")

    pips_x, pips_o = position.pips()
    off_x, off_o = position.borne_off()
    label_x = f"X {names[0]}".rstrip()
    label_o = f"O {names[1]}".rstrip()
    side = [
        f"{label_o}: pips {pips_o}, off {off_o}",
        "",
        *notes,
    ]
    bottom_side = [f"{label_x} on roll: pips {pips_x}, off {off_x}"]
    for i, text in enumerate(side):
        if 1 + i < len(lines) and text:
            lines[1 + i] += "   " + text
    lines[-2] += "   " + bottom_side[0]
    return "\n".join(lines)
