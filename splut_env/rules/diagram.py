"""The text diagram of a position: the diamond with two characters per square, a legend,
the status line and the SPN (``str(state)``; ANSI colours on request). Pure Python."""

from __future__ import annotations

from splut_env.rules.board import EMPTY, KINDS, NUM_SQUARES, ROCK, SEATS, SQUARE_XY, Position
from splut_env.rules.notation import format_spn

SEAT_COLOURS = ("red", "blue", "green", "yellow")
_ANSI = {0: "\x1b[1;31m", 1: "\x1b[1;34m", 2: "\x1b[1;32m", 3: "\x1b[1;33m"}
_ANSI_ROCK, _ANSI_LOCKED, _ANSI_LEV, _ANSI_DIM, _ANSI_RESET = (
    "\x1b[1;37m",
    "\x1b[2;37m",
    "\x1b[1;35m",
    "\x1b[2m",
    "\x1b[0m",
)


def cell_label(state: Position, sq: int) -> str:
    """Two characters for a square: kind + seat letter (``WS``), a rock ``()``, a locked rock
    ``[]``, the rock being levitated ``{}``, or ``..`` for an empty square."""
    c = state.cells[sq]
    if c == EMPTY:
        return ".."
    if c == ROCK:
        if sq == state.lev:
            return "{}"
        return "[]" if (state.locked >> sq) & 1 else "()"
    piece = c - 2
    return KINDS[piece % 3] + SEATS[piece // 3]


def status_line(state: Position) -> str:
    if state.to_move >= 0:
        s = state.to_move
        return (
            f"{SEATS[s]} ({SEAT_COLOURS[s]}) to move, turn {state.turn}, "
            f"{state.steps_left} step(s) left"
        )
    alive = [s for s in state.seats if state.pos[s * 3] >= 0]
    win = alive[0] if len(alive) == 1 else -1
    result = f"{SEATS[win]} ({SEAT_COLOURS[win]}) wins" if win >= 0 else "no winner"
    return f"game over after turn {state.turn}: {result}"


def render_ansi(state: Position, color: bool = True) -> str:
    """The diamond as text with ANSI colours, a legend, the status and the SPN."""
    grid = [["  "] * 9 for _ in range(9)]
    for sq in range(NUM_SQUARES):
        f, r = SQUARE_XY[sq]
        label = cell_label(state, sq)
        if color:
            c = state.cells[sq]
            if c == EMPTY:
                style = _ANSI_DIM
            elif c == ROCK:
                locked = (state.locked >> sq) & 1
                style = _ANSI_LEV if sq == state.lev else _ANSI_LOCKED if locked else _ANSI_ROCK
            else:
                style = _ANSI[(c - 2) // 3]
            label = f"{style}{label}{_ANSI_RESET}"
        grid[r][f] = label
    lines = [(f"{r + 1}  " + " ".join(grid[r])).rstrip() for r in range(8, -1, -1)]
    lines.append("   " + "  ".join("abcdefghi"))
    seats = " ".join(
        (_ANSI[s] if color else "")
        + f"{SEATS[s]}={SEAT_COLOURS[s]}"
        + (_ANSI_RESET if color else "")
        for s in state.seats
    )
    lines.append(
        f"WS/TS/DS wizard/troll/dwarf of seat S; () rock, [] locked, {{}} levitated. {seats}"
    )
    lines.append(status_line(state))
    lines.append(format_spn(state))
    return "\n".join(lines)
