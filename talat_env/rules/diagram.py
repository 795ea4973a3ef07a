"""The text diagram of a position (``str(state)``): the three boards side by side, ranks 5
to 1 and files a to e, then who moves, the scores, the piles and the position text.

Needs a position that has ``scores()`` and ``winners()`` besides the attributes of
:class:`~talat_env.rules.notation.Position`. Pure Python.
"""

from __future__ import annotations

from typing import Protocol

from talat_env.rules.board import (
    BOARD_COLOURS,
    BOARD_NAMES,
    COLOUR_NAMES,
    COLOURS,
    FILES,
    OVER,
    PLACE,
    TOWER_NAMES,
)
from talat_env.rules.notation import Position, format_position


class Scored(Position, Protocol):
    def scores(self) -> list[int]: ...

    def winners(self) -> list[int]: ...

    def placing_colour(self) -> int: ...


_GAP = "    "


def status_line(state: Scored) -> str:
    """Who is to move (or place), or the result."""
    if state.phase == OVER:
        win = state.winners()
        names = " and ".join(f"{COLOURS[s]} ({COLOUR_NAMES[s]})" for s in win)
        return f"game over: {names} {'wins' if len(win) == 1 else 'share the win'}"
    s = state.to_move
    who = f"{COLOURS[s]} ({COLOUR_NAMES[s]})"
    if state.phase == PLACE:
        colour = state.placing_colour()
        what = "a Zihin (grey)" if colour != s else "an own"
        return f"set-up: {who} to place {what} tower"
    return f"{who} to move"


def render(state: Scored) -> str:
    """The three boards as text, with the status, scores, piles and the position text."""
    cells = state.cells
    heads = []
    for b in range(3):
        head = f"{BOARD_NAMES[b]}{' (frozen)' if state.frozen[b] else ''}"
        heads.append(f"   {head:<18}")
    lines = [_GAP.join(heads).rstrip()]
    for r in range(4, -1, -1):
        rows = []
        for b in range(3):
            base = b * 25 + r * 5
            row = " ".join(TOWER_NAMES[c] or " . " for c in cells[base : base + 5])
            rows.append(f"{r + 1} {row}")
        lines.append(_GAP.join(rows).rstrip())
    files = "  " + " ".join(f" {f} " for f in FILES)
    lines.append(_GAP.join([files] * 3).rstrip())
    up = ", ".join(f"{BOARD_NAMES[b]} {COLOURS[BOARD_COLOURS[b][0]]}" for b in range(3))
    down = ", ".join(f"{BOARD_NAMES[b]} {COLOURS[BOARD_COLOURS[b][1]]}" for b in range(3))
    lines.append(f"moving up from rank 1: {up}; down from rank 5: {down}")
    lines.append(status_line(state))
    scores = state.scores()
    lines.append(
        "scores: "
        + ", ".join(f"{COLOURS[s]} {v}" for s, v in enumerate(scores))
        + "; piles: "
        + " ".join(
            f"{COLOURS[s]}=" + (",".join(sorted(TOWER_NAMES[c] for c in p)) or "-")
            for s, p in enumerate(state.piles)
        )
    )
    lines.append(format_position(state))
    return "\n".join(lines)
