"""Board tables and limits of the rules: squares, directions, seats, pieces, start squares,
the step-id layout and its rotation into each seat's frame, and the checks on player counts
and turn numbers. Pure Python, no imports from the rest of the package.

Squares are small integers ``0..40`` (rank by rank from the bottom, file by file from the
left), directions are ``0..3`` for ``n e s w`` (clockwise), seats are ``0..3`` for
``S W N E`` (the order of play), piece kinds are ``0..2`` for wizard, troll, dwarf.

A step is an integer *step id* in ``0..195`` laid out as:

=========  =====================================  =======================================
ids        piece                                  meaning
=========  =====================================  =======================================
0..167     wizard ``dir * 42 + k``                ``k = 0``: no levitation; ``k = 1 + sq``:
                                                  levitate the rock standing on ``sq``
168..191   troll ``168 + dir * 6 + v``            ``v = 0`` plain step, ``1`` pull,
                                                  ``2 + t`` step onto a rock, throw to ``t``
192..195   dwarf ``192 + dir``                    step (pushing a line if occupied)
=========  =====================================  =======================================

The environments' ``Discrete(196)`` action space is this layout seen from the acting seat's
rotated frame (:data:`ROTATE_ID`); :mod:`splut_env.encoding` converts between the two.
"""

from __future__ import annotations

import operator
from typing import Protocol

# --- board geometry -------------------------------------------------------------------

NUM_SQUARES = 41
#: The largest turn number a position may carry (SPN, environments' ``max_turns``): far
#: beyond any game (the environments stop at 200 turns by default), small enough to count.
MAX_TURN = 1_000_000
FILES = "abcdefghi"
DIRS = "nesw"
DIR_DELTA = ((0, 1), (1, 0), (0, -1), (-1, 0))  # (file, rank) per direction

#: (file, rank) of every square index, 0-based.
SQUARE_XY: tuple[tuple[int, int], ...] = tuple(
    (f, r) for r in range(9) for f in range(9) if abs(f - 4) + abs(r - 4) <= 4
)
XY_SQUARE: dict[tuple[int, int], int] = {xy: i for i, xy in enumerate(SQUARE_XY)}
SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[f]}{r + 1}" for f, r in SQUARE_XY)
NAME_SQUARE: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}


def _neighbour(sq: int, d: int) -> int:
    f, r = SQUARE_XY[sq]
    df, dr = DIR_DELTA[d]
    return XY_SQUARE.get((f + df, r + dr), -1)


#: ``NEIGHBOUR[d][sq]``: the square next to ``sq`` in direction ``d``, or -1 off the board.
NEIGHBOUR: tuple[tuple[int, ...], ...] = tuple(
    tuple(_neighbour(sq, d) for sq in range(NUM_SQUARES)) for d in range(4)
)


def _rotate_ccw(sq: int) -> int:
    f, r = SQUARE_XY[sq]
    return XY_SQUARE[(4 - (r - 4), 4 + (f - 4))]


def _rotation_tables() -> tuple[tuple[int, ...], ...]:
    tables = [tuple(range(NUM_SQUARES))]
    for _ in range(3):
        tables.append(tuple(_rotate_ccw(tables[-1][sq]) for sq in range(NUM_SQUARES)))
    return tuple(tables)


#: ``ROTATE[k][sq]``: ``sq`` rotated a quarter turn counter-clockwise ``k`` times. Seat
#: ``k``'s home tip lands at the bottom (``e1``): this is the seat's own frame.
ROTATE: tuple[tuple[int, ...], ...] = _rotation_tables()

# --- pieces and seats ------------------------------------------------------------------

SEATS = "SWNE"
WIZARD, TROLL, DWARF = 0, 1, 2
KINDS = "WTD"
SEATS_IN_PLAY: dict[int, tuple[int, ...]] = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}

# Cell codes: 0 empty, 1 rock, 2 + seat * 3 + kind for a piece.
EMPTY, ROCK = 0, 1
CELL_KIND: tuple[int, ...] = (-1, -1, *tuple(k for _ in range(4) for k in range(3)))
#: Cell codes a thrown rock cannot enter first (a rock or a troll): that direction is blocked.
STOPS_THROW = tuple(c == ROCK or CELL_KIND[c] == TROLL for c in range(14))

#: Start squares per seat: (rock, wizard, troll, dwarf), by the set-up table of the rules.
START: tuple[tuple[int, int, int, int], ...] = tuple(
    tuple(NAME_SQUARE[n] for n in names)
    for names in (
        ("e1", "d2", "f2", "e2"),
        ("a5", "b6", "b4", "b5"),
        ("e9", "f8", "d8", "e8"),
        ("i5", "h4", "h6", "h5"),
    )
)

# --- step ids ---------------------------------------------------------------------------

NUM_STEP_IDS = 196
TROLL_BASE, DWARF_BASE = 168, 192
PULL = 1  # a troll step id's variant: 0 plain, 1 pull, 2 + t throw to t


def wizard_id(d: int, rock: int = -1) -> int:
    return d * 42 + 1 + rock


def troll_id(d: int, variant: int) -> int:
    return TROLL_BASE + d * 6 + variant


def dwarf_id(d: int) -> int:
    return DWARF_BASE + d


def decode_id(i: int) -> tuple[int, int, int]:
    """``(kind, dir, extra)``: extra is the rock square (-1 none) for a wizard, the variant
    (0 plain, 1 pull, 2 + throw dir) for a troll, 0 for a dwarf."""
    if i < TROLL_BASE:
        return WIZARD, i // 42, i % 42 - 1
    if i < DWARF_BASE:
        return TROLL, (i - TROLL_BASE) // 6, (i - TROLL_BASE) % 6
    return DWARF, i - DWARF_BASE, 0


DECODED = tuple(decode_id(i) for i in range(NUM_STEP_IDS))


def _rotate_id(i: int, k: int) -> int:
    kind, d, extra = DECODED[i]
    d2 = (d - k) % 4
    if kind == WIZARD:
        return wizard_id(d2, -1 if extra < 0 else ROTATE[k][extra])
    if kind == TROLL:
        return troll_id(d2, extra if extra < 2 else 2 + (extra - 2 - k) % 4)
    return dwarf_id(d2)


#: ``ROTATE_ID[k][i]``: step id ``i`` (board frame) expressed in seat ``k``'s frame.
ROTATE_ID: tuple[tuple[int, ...], ...] = tuple(
    tuple(_rotate_id(i, k) for i in range(NUM_STEP_IDS)) for k in range(4)
)
#: ``UNROTATE_ID[k][a]``: the inverse of ``ROTATE_ID[k]``.
UNROTATE_ID: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(range(NUM_STEP_IDS), key=lambda i, k=k: ROTATE_ID[k][i])) for k in range(4)
)

#: ``MIRROR[sq]``: ``sq`` reflected in the board's north-south axis (file ``a`` to ``i``).
#: The rules do not tell east from west, so in a 2-player game (seats S and N both on
#: that axis) a reflected position plays exactly as the position reflected.
MIRROR: tuple[int, ...] = tuple(XY_SQUARE[(8 - f, r)] for f, r in SQUARE_XY)
_MIRROR_DIR = (0, 3, 2, 1)


def _mirror_id(i: int) -> int:
    kind, d, extra = DECODED[i]
    if kind == WIZARD:
        return wizard_id(_MIRROR_DIR[d], -1 if extra < 0 else MIRROR[extra])
    if kind == TROLL:
        return troll_id(_MIRROR_DIR[d], extra if extra < 2 else 2 + _MIRROR_DIR[extra - 2])
    return dwarf_id(_MIRROR_DIR[d])


#: ``MIRROR_ID[i]``: step id ``i`` reflected as :data:`MIRROR` reflects squares (its own
#: inverse). Read in a seat's frame, it reflects that frame's north-south axis.
MIRROR_ID: tuple[int, ...] = tuple(_mirror_id(i) for i in range(NUM_STEP_IDS))


def whole_number(value: object) -> int | None:
    """``value`` as an ``int`` if it is an integer (Python or numpy, not a bool), else
    ``None``: floats, strings and containers are not silently converted."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def player_count(value: object) -> int:
    """``value`` as a player count (2, 3 or 4); raises ``ValueError``."""
    count = whole_number(value)
    if count not in SEATS_IN_PLAY:
        raise ValueError(f"num_players must be 2, 3 or 4, got {value!r:.80}")
    return count


def turn_cap(value: object) -> int:
    """``value`` as a ``max_turns`` setting (a whole number from 1 to :data:`MAX_TURN`);
    raises ``ValueError``."""
    cap = whole_number(value)
    if cap is None or not 1 <= cap <= MAX_TURN:
        raise ValueError(
            f"max_turns must be a whole number from 1 to {MAX_TURN}, got {value!r:.80}"
        )
    return cap


class Position(Protocol):
    """What the notation and the diagram read of a position (the attributes of
    :class:`splut_env.rules.engine.State`; see there)."""

    cells: list[int]
    pos: list[int]
    rocks: list[int]
    seats: tuple[int, ...]
    to_move: int
    turn: int
    steps_left: int
    lev: int
    locked: int
    moved: int
