"""Constants and precomputed tables of the Talat rules: colours, tower types, boards,
squares, the move-id layout, who controls which towers, and the checks on player counts.
Pure Python, no imports from the rest of the package.

Colours are ``0..2`` for white ``w``, black ``b``, grey ``g``; seat ``k`` plays colour ``k``
(with 2 players grey is the Zihin, §8). Tower types are ``0..8`` in the order
``S3 S4 S6 M3 M4 M6 L3 L4 L6`` (``type = height * 3 + shape``). Boards are ``0..2`` for
``wb``, ``bg``, ``gw``; on board ``b`` the colour ``BOARD_COLOURS[b][0]`` starts on rank 1 and
moves up, ``BOARD_COLOURS[b][1]`` starts on rank 5 and moves down.

A square of a board is ``sq = rank_index * 5 + file`` (rank index 0..4 for ranks 1..5, file
0..4 for ``a..e``); a *cell* is ``board * 25 + sq`` (75 cells). A cell holds a tower code
``colour * 9 + type + 1`` (1..27) or 0 for empty.

A move is an integer *move id* in ``0..1050``:

==========  ==========================================  ===================================
ids         move                                        meaning
==========  ==========================================  ===================================
0..674      placement ``board * 225 + sq * 9 + type``   the colour being placed is implied
675..1049   ``675 + cell * 5 + dir``                    a step onto an empty square or a
                                                        capture, by the tower on ``cell``
1050        :data:`PASS`                                the forced pass (§4)
==========  ==========================================  ===================================

``dir`` is 0 forward and file - 1, 1 straight forward, 2 forward and file + 1, 3 beside on
file - 1, 4 beside on file + 1 (3 and 4 only capture); *forward* is up for the board's
rank-1 colour and down for its rank-5 colour.
"""

from __future__ import annotations

import operator

# --- colours, types, towers -----------------------------------------------------------------

WHITE, BLACK, GREY = 0, 1, 2
COLOURS = "wbg"
COLOUR_NAMES = ("white", "black", "grey")
NUM_TYPES = 9
TYPE_NAMES: tuple[str, ...] = ("S3", "S4", "S6", "M3", "M4", "M6", "L3", "L4", "L6")
TYPE_INDEX: dict[str, int] = {name: t for t, name in enumerate(TYPE_NAMES)}
NUM_TOWERS = 27
EMPTY = 0


def tower_code(colour: int, tower_type: int) -> int:
    """The cell code of a tower: ``colour * 9 + type + 1``."""
    return colour * 9 + tower_type + 1


#: ``CODE_COLOUR[code]`` and ``CODE_TYPE[code]`` for codes 1..27 (-1 for the empty code 0).
CODE_COLOUR: tuple[int, ...] = (-1, *((c - 1) // 9 for c in range(1, 28)))
CODE_TYPE: tuple[int, ...] = (-1, *((c - 1) % 9 for c in range(1, 28)))
#: ``TOWER_NAMES[code]``: ``'wS3'`` ... ``'gL6'`` (``''`` for 0).
TOWER_NAMES: tuple[str, ...] = (
    "",
    *(COLOURS[CODE_COLOUR[c]] + TYPE_NAMES[CODE_TYPE[c]] for c in range(1, 28)),
)
NAME_CODE: dict[str, int] = {name: c for c, name in enumerate(TOWER_NAMES) if name}


def _beats(a: int, b: int) -> bool:
    if (a, b) == (0, 8):  # David & Goliath: S3 beats L6
        return True
    ha, sa, hb, sb = a // 3, a % 3, b // 3, b % 3
    return ha == hb + 1 or (ha == hb and sa > sb)


#: ``BEATS[a][b]``: whether type ``a`` beats (may capture) type ``b`` (§5.2).
BEATS: tuple[tuple[bool, ...], ...] = tuple(
    tuple(_beats(a, b) for b in range(NUM_TYPES)) for a in range(NUM_TYPES)
)
#: Types from the most valuable to the least (§7.2 tie-break): L6 L4 L3 M6 M4 M3 S6 S4 S3.
VALUE_ORDER: tuple[int, ...] = tuple(range(NUM_TYPES - 1, -1, -1))
#: ``CODE_BEATS[a][b]`` over tower codes: a beats b and they differ in colour.
CODE_BEATS: tuple[tuple[bool, ...], ...] = tuple(
    tuple(
        a > 0 and b > 0 and CODE_COLOUR[a] != CODE_COLOUR[b] and BEATS[CODE_TYPE[a]][CODE_TYPE[b]]
        for b in range(28)
    )
    for a in range(28)
)

# --- boards and squares ---------------------------------------------------------------------

NUM_BOARDS = 3
BOARD_NAMES: tuple[str, ...] = ("wb", "bg", "gw")
#: ``BOARD_COLOURS[b] = (X, Y)``: X starts on rank 1 and moves up, Y on rank 5, moving down.
BOARD_COLOURS: tuple[tuple[int, int], ...] = ((WHITE, BLACK), (BLACK, GREY), (GREY, WHITE))
BOARD_SQUARES = 25
NUM_CELLS = 75
FILES = "abcde"
SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[sq % 5]}{sq // 5 + 1}" for sq in range(25))
NAME_SQUARE: dict[str, int] = {name: sq for sq, name in enumerate(SQUARE_NAMES)}
RANK_1 = (0, 1, 2, 3, 4)
RANK_5 = (20, 21, 22, 23, 24)

#: ``MOVES_UP`` (``MOVES_DOWN``): ``[sq][dir]`` the square a tower moving up (down) on ``sq``
#: reaches in direction ``dir`` (module docstring), or -1 off the board.
MOVES_UP: tuple[tuple[int, ...], ...]
MOVES_DOWN: tuple[tuple[int, ...], ...]


def _targets(forward: int) -> tuple[tuple[int, ...], ...]:
    out = []
    for sq in range(25):
        r, f = divmod(sq, 5)
        row = []
        for dr, df in ((forward, -1), (forward, 0), (forward, 1), (0, -1), (0, 1)):
            r2, f2 = r + dr, f + df
            row.append(r2 * 5 + f2 if 0 <= r2 < 5 and 0 <= f2 < 5 else -1)
        out.append(tuple(row))
    return tuple(out)


MOVES_UP = _targets(1)
MOVES_DOWN = _targets(-1)


def moves_up(colour: int, board: int) -> bool:
    """Whether ``colour``'s towers move up (towards rank 5) on ``board``."""
    return BOARD_COLOURS[board][0] == colour


def start_squares(colour: int, board: int) -> tuple[int, ...]:
    """The start line of ``colour`` on ``board`` (rank 1 for X, rank 5 for Y)."""
    return RANK_1 if moves_up(colour, board) else RANK_5


def goal_squares(colour: int, board: int) -> tuple[int, ...]:
    """The goal line of ``colour`` on ``board``: the other colour's start line."""
    return RANK_5 if moves_up(colour, board) else RANK_1


#: ``COLOUR_BOARDS[c]``: the two boards colour ``c`` plays on, ascending.
COLOUR_BOARDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(b for b in range(NUM_BOARDS) if c in BOARD_COLOURS[b]) for c in range(3)
)
#: ``START_CELLS[c]``: the ten cells of colour ``c``'s start lines, ascending.
START_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(b * 25 + sq for b in COLOUR_BOARDS[c] for sq in start_squares(c, b)) for c in range(3)
)

# --- players and control --------------------------------------------------------------------

PLAYER_COUNTS = (2, 3)
#: Phases of a game: set-up, play, finished.
PLACE, PLAY, OVER = 0, 1, 2
PHASE_NAMES = ("place", "play", "over")
#: Placements of a whole set-up: 27 with 3 players; 8 grey plus 18 own with 2.
PLACEMENTS = {2: 26, 3: 27}
ZIHIN_TOWERS = 8

#: ``CONTROL[n][seat]``: the ``(board, colour)`` pairs whose towers the seat moves, one per
#: board, boards ascending (§4, §8.3: with 2 players white also steers grey on ``bg``,
#: black grey on ``gw``).
CONTROL: dict[int, tuple[tuple[tuple[int, int], ...], ...]] = {
    3: tuple(tuple((b, s) for b in COLOUR_BOARDS[s]) for s in range(3)),
    2: (((0, WHITE), (1, GREY), (2, WHITE)), ((0, BLACK), (1, BLACK), (2, GREY))),
}

# --- move ids -------------------------------------------------------------------------------

NUM_MOVES = 1051
STEP_BASE = 675
PASS = 1050


def placement_id(board: int, sq: int, tower_type: int) -> int:
    return board * 225 + sq * 9 + tower_type


def step_id(cell: int, direction: int) -> int:
    return STEP_BASE + cell * 5 + direction


#: ``STEP_TARGET[k]`` for step id ``675 + k``: ``(cell moving up, cell moving down)`` the
#: tower reaches, -1 where that is off the board.
STEP_TARGET: tuple[tuple[int, int], ...] = tuple(
    (
        -1 if MOVES_UP[k // 5 % 25][k % 5] < 0 else (k // 125) * 25 + MOVES_UP[k // 5 % 25][k % 5],
        -1
        if MOVES_DOWN[k // 5 % 25][k % 5] < 0
        else (k // 125) * 25 + MOVES_DOWN[k // 5 % 25][k % 5],
    )
    for k in range(NUM_CELLS * 5)
)
#: ``UP_CODE[board][code]``: whether a tower with that code moves up on ``board``.
UP_CODE: tuple[tuple[bool, ...], ...] = tuple(
    tuple(c > 0 and CODE_COLOUR[c] == BOARD_COLOURS[b][0] for c in range(28))
    for b in range(NUM_BOARDS)
)

# --- checks on arguments --------------------------------------------------------------------


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
    """``value`` as a player count (2 or 3); raises ``ValueError`` naming it."""
    count = whole_number(value)
    if count not in PLAYER_COUNTS:
        raise ValueError(f"num_players must be 2 or 3, got {value!r:.80}")
    return count
