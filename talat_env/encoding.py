"""Actions and observations for learning agents, in the acting seat's own frame.

**The frame.** Every seat sees the game turned so that it plays the same part, and one
policy can play every seat:

- 3 players: seat ``s`` sees board ``b`` as *relative board* ``(b - s) mod 3`` and colour
  ``c`` as *relative colour* ``(c - s) mod 3``; squares, types and directions are unchanged.
- 2 players: seat 0 (white) sees the game as it is. Seat 1 (black) swaps white and black,
  sees ``wb`` as relative board 0, ``gw`` as 1 and ``bg`` as 2, each flipped vertically
  (rank index ``r`` becomes ``4 - r``; files unchanged; directions unchanged, since forward
  flips with the board).

So relative board 0 is always "me on rank 1 against the next player", 1 "the next player on
rank 1 against the previous one" (2 players: the opponent against the Zihin, whose towers I
steer there), 2 "the previous player (the Zihin) on rank 1 against me on rank 5". Relative
colour 0 is me, 1 the next player (the opponent), 2 the previous one (the Zihin).

**Actions**: ``Discrete(1051)``, the move-id layout of :mod:`talat_env.rules.board` with
boards and squares taken in the seat's frame: placement ``board * 225 + sq * 9 + type``
(0..674), step or capture ``675 + (board * 25 + sq) * 5 + dir`` (675..1049), pass 1050.
:func:`action_of` and :func:`move_of` convert (``ACTION_OF`` and ``MOVE_OF`` are the tables).

**Observation**: ``float32[74, 5, 17]``: the three relative boards side by side, columns
``6 * board + file`` (the columns 5 and 11 between them stay blank), row ``4 - rank index``
(row 0 is rank 5, the top; row 4 is rank 1, where the rank-1 colour of each board starts):

=======  ===================================================================================
plane    content
=======  ===================================================================================
0-8      my towers by type ``S3 S4 S6 M3 M4 M6 L3 L4 L6``
9-17     the next player's (2 players: the opponent's) towers by type
18-26    the previous player's (2 players: the Zihin's) towers by type
27       the towers I may move: those I control on boards not frozen, during play
28       towers that can capture now: in contact (rules §5.1) with an enemy tower whose type
         they beat, on a board not frozen, during play
29       towers that can be captured now (the victims of plane 28)
30       towers on their goal line (each scores 3 for its controller)
31       ones on the 75 squares (zero on the two blank columns)
32       ones on the squares of frozen boards
33-35    all ones for the player to move: me, next, previous (all zero once the game is over)
36       all ones during set-up (placement)
37       all ones while the Zihin's towers are being placed (2 players)
38       all ones in a 2-player game
39-41    score of me, next, previous, divided by 100 (at most 1)
42-43    my lead over the best other score, my deficit to it, divided by 50 (at most 1)
44-46    all ones for each player who would win if the game ended now (§7.2, ties included)
47-73    all ones for each tower not yet placed: mine by type, the next player's, the previous
         player's (2 players: the Zihin's, during its set-up)
=======  ===================================================================================

**Why side by side.** Every board is the same duel of two colours on 5 × 5, so one set of
convolution kernels can read all three boards; one blank column keeps a 3 × 3 kernel from
seeing two boards at once. The roles of the boards differ only by whose towers stand on them
(planes 0-26) and are fixed by the frame. Stacking the boards along the channels would give
each board its own kernels and mix unrelated squares of different boards.

The global state (``env.state()``, :func:`global_state`) is the observation of seat 0, whose
frame is the boards' own: absolute boards, colours and seats.

**Speed.** One function writes the planes (:func:`_fill_planes`, tables computed once at
import); numba compiles it on the first observation and caches it on disk, after which an
observation takes a few microseconds.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

import numpy as np

from talat_env.rules import IllegalMoveError, move_text, to_text
from talat_env.rules.board import (
    BEATS,
    BOARD_COLOURS,
    CODE_COLOUR,
    CODE_TYPE,
    COLOUR_NAMES,
    CONTROL,
    GREY,
    NUM_MOVES,
    PASS,
    STEP_BASE,
    VALUE_ORDER,
    goal_squares,
    whole_number,
)
from talat_env.rules.engine import State

NUM_ACTIONS = NUM_MOVES
#: Version of the observation planes and action layout; a checkpoint trained on another
#: layout cannot be loaded.
LAYOUT_VERSION = 1
NUM_PLANES = 74
BOARD_SHAPE = (5, 17)
OBS_SHAPE = (NUM_PLANES, *BOARD_SHAPE)
#: ``env.state()``'s shape: the observation of seat 0.
STATE_SHAPE = OBS_SHAPE
PIXELS = BOARD_SHAPE[0] * BOARD_SHAPE[1]

PLANE_TOWERS = 0  # 27 planes: relative colour * 9 + type
PLANE_MOVABLE = 27
PLANE_CAN_CAPTURE = 28
PLANE_CAPTURABLE = 29
PLANE_GOAL = 30
PLANE_BOARD = 31
PLANE_FROZEN = 32
PLANE_TO_MOVE = 33  # 3 planes
PLANE_SETUP = 36
PLANE_ZIHIN_SETUP = 37
PLANE_TWO_PLAYERS = 38
PLANE_SCORE = 39  # 3 planes
PLANE_LEAD = 42
PLANE_DEFICIT = 43
PLANE_WINNING = 44  # 3 planes
PLANE_UNPLACED = 47  # 27 planes: relative colour * 9 + type
SCORE_SCALE = 100.0
MARGIN_SCALE = 50.0

#: The frames, in the order of the tables' first index.
FRAMES: tuple[tuple[int, int], ...] = ((2, 0), (2, 1), (3, 0), (3, 1), (3, 2))


def frame_index(num_players: int, seat: int) -> int:
    """The index in :data:`FRAMES` of ``seat``'s frame; raises ``ValueError``."""
    if num_players == 2 and seat in (0, 1):
        return seat
    if num_players == 3 and seat in (0, 1, 2):
        return 2 + seat
    raise ValueError(
        f"expected a seat 0..{num_players - 1} of a 2- or 3-player game, got seat {seat!r} "
        f"of {num_players!r} players"
    )


def _rel_board(n: int, seat: int, board: int) -> int:
    if n == 3:
        return (board - seat) % 3
    return board if seat == 0 else -board % 3  # black: wb, gw, bg


def _rel_colour(n: int, seat: int, colour: int) -> int:
    if n == 3:
        return (colour - seat) % 3
    return colour if seat == 0 or colour == GREY else 1 - colour


def _rel_cell(n: int, seat: int, cell: int) -> int:
    board, sq = divmod(cell, 25)
    if n == 2 and seat == 1:
        rank, file = divmod(sq, 5)
        sq = (4 - rank) * 5 + file
    return _rel_board(n, seat, board) * 25 + sq


def _action_table(n: int, seat: int) -> tuple[int, ...]:
    out = []
    for move in range(NUM_MOVES):
        if move < STEP_BASE:
            board, rest = divmod(move, 225)
            sq, kind = divmod(rest, 9)
            rel = _rel_cell(n, seat, board * 25 + sq)
            out.append(rel * 9 + kind)  # rel = board * 25 + sq, so rel * 9 = board * 225 + sq * 9
        elif move < PASS:
            cell, direction = divmod(move - STEP_BASE, 5)
            out.append(STEP_BASE + _rel_cell(n, seat, cell) * 5 + direction)
        else:
            out.append(PASS)
    return tuple(out)


_FRAME_OF = {frame: f for f, frame in enumerate(FRAMES)}
#: ``ACTION_OF[f][move_id]``: the action of a move id in frame ``f`` (:func:`frame_index`).
ACTION_OF: tuple[tuple[int, ...], ...] = tuple(_action_table(n, s) for n, s in FRAMES)
#: ``MOVE_OF[f][action]``: the inverse permutation.
MOVE_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(range(NUM_MOVES), key=table.__getitem__)) for table in ACTION_OF
)
#: The frames that leave move ids as they are (seat 0's).
_IDENTITY = frozenset(f for f, table in enumerate(ACTION_OF) if table == tuple(range(NUM_MOVES)))
_ACTION_OF_NP = tuple(np.array(t, dtype=np.intp) for t in ACTION_OF)


def _action_pixel(action: int) -> int:
    """Where :class:`tabletop.network.StepScores` reads ``action``'s score: ``kind * PIXELS +
    pixel`` of the square it is played on (kinds 0-8: placing a tower of that type; 9-13:
    a step or capture in direction 0-4), ``-1`` for the pass."""
    if action == PASS:
        return -1
    if action < STEP_BASE:
        rel, kind = divmod(action, 9)
    else:
        rel, direction = divmod(action - STEP_BASE, 5)
        kind = 9 + direction
    board, sq = divmod(rel, 25)
    rank, file = divmod(sq, 5)
    return kind * PIXELS + (4 - rank) * BOARD_SHAPE[1] + board * 6 + file


#: ``ACTION_PIXELS[action]``: the ``steps`` policy head's table (:func:`_action_pixel`).
ACTION_PIXELS: tuple[int, ...] = tuple(_action_pixel(a) for a in range(NUM_ACTIONS))


def action_of(num_players: int, seat: int, move_id: int) -> int:
    """The action index, in ``seat``'s frame, of an engine move id."""
    return ACTION_OF[frame_index(num_players, seat)][move_id]


def move_of(num_players: int, seat: int, action: int) -> int:
    """The engine move id of an action index in ``seat``'s frame."""
    return MOVE_OF[frame_index(num_players, seat)][action]


# --- observation tables ---------------------------------------------------------------------


def _controller(n: int, board: int, colour: int) -> int:
    """The seat that moves ``colour``'s towers on ``board`` (-1: nobody)."""
    for seat in range(n):
        if (board, colour) in CONTROL[n][seat]:
            return seat
    return -1


def _pixel(n: int, seat: int, cell: int) -> int:
    """Flat index ``row * 17 + column`` of absolute ``cell`` in ``seat``'s picture."""
    board, sq = divmod(_rel_cell(n, seat, cell), 25)
    rank, file = divmod(sq, 5)
    return (4 - rank) * BOARD_SHAPE[1] + board * 6 + file


def _is_goal(cell: int, code: int) -> bool:
    board, sq = divmod(cell, 25)
    return code > 0 and sq in goal_squares(CODE_COLOUR[code], board)


# Tables of the kernel below, indexed by frame ``f``, absolute cell, board and tower code.
#: ``[f, cell]``: the cell's pixel (``row * 17 + column``) in frame ``f``.
_PIX = np.array([[_pixel(n, s, c) for c in range(75)] for n, s in FRAMES], dtype=np.int64)
#: ``[f, code]``: the tower plane of a tower code (relative colour * 9 + type).
_CODE_PLANE = np.array(
    [
        [0] + [_rel_colour(n, s, CODE_COLOUR[c]) * 9 + CODE_TYPE[c] for c in range(1, 28)]
        for n, s in FRAMES
    ],
    dtype=np.int64,
)
#: ``[f, board, code]``: whether frame ``f``'s seat moves that tower on that board.
_CONTROLS = np.array(
    [
        [[c > 0 and _controller(n, b, CODE_COLOUR[c]) == s for c in range(28)] for b in range(3)]
        for n, s in FRAMES
    ],
    dtype=np.bool_,
)
#: ``[n - 2, cell, code]``: the seat that scores 3 for that tower there, or 3 (nobody).
_GOAL_SEAT = np.array(
    [
        [
            [
                _controller(n, cell // 25, CODE_COLOUR[c]) if _is_goal(cell, c) else 3
                for c in range(28)
            ]
            for cell in range(75)
        ]
        for n in (2, 3)
    ],
    dtype=np.int64,
)
#: ``[board, code]``: the type of a tower of the board's rank-1 colour (moving up), else 9;
#: ``_DOWN_TYPE`` the same for its rank-5 colour.
_UP_TYPE = np.array(
    [
        [CODE_TYPE[c] if c and CODE_COLOUR[c] == x else 9 for c in range(28)]
        for x, _ in BOARD_COLOURS
    ],
    dtype=np.int64,
)
_DOWN_TYPE = np.array(
    [
        [CODE_TYPE[c] if c and CODE_COLOUR[c] == y else 9 for c in range(28)]
        for _, y in BOARD_COLOURS
    ],
    dtype=np.int64,
)
_BEATS = np.array(BEATS, dtype=np.bool_)
_FRAME_PLAYERS = np.array([n for n, _ in FRAMES], dtype=np.int64)
_FRAME_SEAT = np.array([s for _, s in FRAMES], dtype=np.int64)
#: ``[f, colour]``: the colour (or seat) relative to frame ``f``'s seat.
_REL = np.array([[_rel_colour(n, s, c) for c in range(3)] for n, s in FRAMES], dtype=np.int64)
#: ``[code]``: whether the tower is grey (the Zihin's in a 2-player game).
_GREY_CODE = np.array([c > 0 and CODE_COLOUR[c] == GREY for c in range(28)], dtype=np.bool_)


def _contact_pairs() -> tuple[np.ndarray, np.ndarray]:
    """Every ``(U cell, D cell)`` pair of squares in contact (§5.1: D one rank above U with
    files at most one apart, or on U's rank in the next file)."""
    up, down = [], []
    for board in range(3):
        for sq in range(25):
            rank, file = divmod(sq, 5)
            for dr, df in ((1, -1), (1, 0), (1, 1), (0, -1), (0, 1)):
                r, f = rank + dr, file + df
                if 0 <= r < 5 and 0 <= f < 5:
                    up.append(board * 25 + sq)
                    down.append(board * 25 + r * 5 + f)
    return np.array(up, dtype=np.int64), np.array(down, dtype=np.int64)


_PAIR_UP, _PAIR_DOWN = _contact_pairs()
_NUM_PAIRS = len(_PAIR_UP)

#: All the tables above in one array, passed to the kernel as an argument (so that a table
#: built from changed rules is never read from a stale compiled copy), and where each
#: starts in it; the sizes are fixed by the shapes (5 frames, 3 boards, 75 cells, 28 codes).
_PARTS = {
    "pix": _PIX,
    "plane": _CODE_PLANE,
    "controls": _CONTROLS,
    "goal": _GOAL_SEAT,
    "up": _UP_TYPE,
    "down": _DOWN_TYPE,
    "beats": _BEATS,
    "players": _FRAME_PLAYERS,
    "seat": _FRAME_SEAT,
    "rel": _REL,
    "grey": _GREY_CODE,
    "pair_up": _PAIR_UP,
    "pair_down": _PAIR_DOWN,
}
_TABLES = np.concatenate([a.ravel().astype(np.int64) for a in _PARTS.values()])
_START = dict(
    zip(_PARTS, np.cumsum([0] + [a.size for a in _PARTS.values()]).tolist(), strict=False)
)
_T_PIX, _T_PLANE, _T_CONTROLS, _T_GOAL = (_START[k] for k in ("pix", "plane", "controls", "goal"))
_T_UP, _T_DOWN, _T_BEATS, _T_PLAYERS = (_START[k] for k in ("up", "down", "beats", "players"))
_T_SEAT, _T_REL, _T_GREY = (_START[k] for k in ("seat", "rel", "grey"))
_T_PAIR_UP, _T_PAIR_DOWN = _START["pair_up"], _START["pair_down"]


def _fill_planes(
    flat: np.ndarray, cells: np.ndarray, t: np.ndarray, f: int, status: int, pile_sizes: int
) -> int:
    """The observation (module doc) of frame ``f`` into the zeroed ``flat``, from the tower
    codes ``cells``, the tables ``t`` (:data:`_TABLES`), the ``status`` (bits 0-1 the phase,
    2-4 the frozen boards, 5 whether the Zihin's towers are being placed, 6-7 the seat to
    move + 1) and the piles' sizes (8 bits each). Returns the scores (10 bits each), plus
    ``1 << 30`` when tied leaders with captured towers are left for :func:`leaders` to tell
    apart (their winning planes are then not written). Compiled with numba on first use
    (:func:`_kernel`)."""
    p = 85  # PIXELS
    n = t[_T_PLAYERS + f]
    seat = t[_T_SEAT + f]
    phase = status & 3
    frozen = (status >> 2) & 7
    zihin = (status >> 5) & 1 == 1
    to_move = (status >> 6) - 1
    present = np.zeros(28, dtype=np.bool_)
    goals = np.zeros(4, dtype=np.int64)
    for cell in range(75):
        px = t[_T_PIX + f * 75 + cell]
        b = cell // 25
        live = (frozen >> b) & 1 == 0
        flat[31 * p + px] = 1.0
        if not live:
            flat[32 * p + px] = 1.0
        code = cells[cell]
        if code == 0:
            continue
        present[code] = True
        flat[t[_T_PLANE + f * 28 + code] * p + px] = 1.0
        scorer = t[_T_GOAL + ((n - 2) * 75 + cell) * 28 + code]
        if scorer < 3:
            flat[30 * p + px] = 1.0
            goals[scorer] += 1
        if phase == 1 and live and t[_T_CONTROLS + (f * 3 + b) * 28 + code]:
            flat[27 * p + px] = 1.0
    if phase == 1:
        for k in range(_NUM_PAIRS):
            u = t[_T_PAIR_UP + k]
            b = u // 25
            if (frozen >> b) & 1:
                continue
            tu = t[_T_UP + b * 28 + cells[u]]
            if tu == 9:
                continue
            d = t[_T_PAIR_DOWN + k]
            td = t[_T_DOWN + b * 28 + cells[d]]
            if td == 9:
                continue
            if t[_T_BEATS + tu * 9 + td]:
                flat[28 * p + t[_T_PIX + f * 75 + u]] = 1.0
                flat[29 * p + t[_T_PIX + f * 75 + d]] = 1.0
            elif t[_T_BEATS + td * 9 + tu]:
                flat[28 * p + t[_T_PIX + f * 75 + d]] = 1.0
                flat[29 * p + t[_T_PIX + f * 75 + u]] = 1.0
    elif phase == 0:
        for code in range(1, 28):
            if not present[code] and (n == 3 or zihin or not t[_T_GREY + code]):
                start = (47 + t[_T_PLANE + f * 28 + code]) * p
                flat[start : start + p] = 1.0
    # Planes all one value: to move, set-up, Zihin set-up, 2 players, scores, margin, winners.
    if to_move >= 0:
        start = (33 + t[_T_REL + f * 3 + to_move]) * p
        flat[start : start + p] = 1.0
    if phase == 0:
        flat[36 * p : 37 * p] = 1.0
        if zihin:
            flat[37 * p : 38 * p] = 1.0
    if n == 2:
        flat[38 * p : 39 * p] = 1.0
    scores = np.zeros(3, dtype=np.int64)
    best = 0
    for s in range(n):
        scores[s] = 5 * ((pile_sizes >> (8 * s)) & 255) + 3 * goals[s]
        best = max(best, scores[s])
        start = (39 + t[_T_REL + f * 3 + s]) * p
        flat[start : start + p] = min(scores[s] / 100.0, 1.0)  # SCORE_SCALE
    other = 0
    for s in range(n):
        if s != seat:
            other = max(other, scores[s])
    margin = scores[seat] - other
    if margin > 0:
        flat[42 * p : 43 * p] = min(margin / 50.0, 1.0)  # MARGIN_SCALE
    elif margin < 0:
        flat[43 * p : 44 * p] = min(-margin / 50.0, 1.0)
    tied = 0
    captured = 0
    for s in range(n):
        if scores[s] == best:
            tied += 1
            captured += (pile_sizes >> (8 * s)) & 255
    packed = scores[0] | scores[1] << 10 | scores[2] << 20
    if tied > 1 and captured > 0:
        return packed | 1 << 30
    for s in range(n):
        if scores[s] == best:
            start = (44 + t[_T_REL + f * 3 + s]) * p
            flat[start : start + p] = 1.0
    return packed


_KERNEL: list = []


def _kernel() -> Callable[..., int]:
    """:func:`_fill_planes` compiled by numba (on first use; cached on disk)."""
    if not _KERNEL:
        from numba import njit

        _KERNEL.append(njit(cache=True)(_fill_planes))
    return _KERNEL[0]


#: ``_REL_COLOUR[f][c]``: colour (or seat) ``c`` relative to frame ``f``'s seat.
_REL_COLOUR = tuple(tuple(_rel_colour(n, s, c) for c in range(3)) for n, s in FRAMES)
#: ``_CODE_VALUE_RANK[code]``: the place of the tower's type in the value order (0: L6).
_CODE_VALUE_RANK = (-1, *(VALUE_ORDER.index(CODE_TYPE[c]) for c in range(1, 28)))


def leaders(scores: list[int], piles: list[list[int]]) -> list[int]:
    """The seats that would win if the game ended with these scores and piles (§7.2): the
    highest score; among tied leaders the first type in value order that one of them holds
    more often than each other; all tied leaders if no type decides."""
    best = max(scores)
    tied = [s for s, score in enumerate(scores) if score == best]
    if len(tied) == 1:
        return tied
    counts = []
    for s in tied:
        row = [0] * 9
        for code in piles[s]:
            row[_CODE_VALUE_RANK[code]] += 1
        counts.append(row)
    if counts.count(counts[0]) == len(counts):
        return tied
    for rank in range(9):
        column = [row[rank] for row in counts]
        top = max(column)
        if column.count(top) == 1:
            return [tied[column.index(top)]]
    return tied


def observation(state: State, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The ``float32[74, 5, 17]`` planes of ``state`` seen from ``seat`` (module doc),
    written into ``out`` if given."""
    n = state.num_players
    f = _FRAME_OF.get((n, seat))
    if f is None:
        f = frame_index(n, seat)  # raises
    if out is None:
        result = np.zeros(OBS_SHAPE, dtype=np.float32)
    else:
        if out.shape != OBS_SHAPE or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(
                f"out must be a C-contiguous float32 array of shape {OBS_SHAPE}, got "
                f"{out.dtype} {out.shape}"
            )
        result = out
        result[...] = 0.0
    flat = result.reshape(-1)
    frozen = state.frozen
    phase = state.phase
    piles = state.piles
    sizes = 0
    for s in range(n):
        sizes |= len(piles[s]) << (8 * s)
    status = phase | (frozen[0] | frozen[1] << 1 | frozen[2] << 2) << 2
    if n == 2 and phase == 0 and state.placing_colour() == GREY:
        status |= 32
    status |= (state.to_move + 1) << 6
    cells = np.frombuffer(bytes(state.cells), dtype=np.uint8)
    packed = _kernel()(flat, cells, _TABLES, f, status, sizes)
    if packed >> 30:  # tied leaders with captured towers: the tie-break by value
        scores = [packed >> (10 * s) & 1023 for s in range(n)]
        planes = flat.reshape(NUM_PLANES, PIXELS)
        for s in leaders(scores, piles):
            planes[PLANE_WINNING + _REL_COLOUR[f][s]] = 1.0
    return result


def global_state(state: State) -> np.ndarray:
    """The global state (``env.state()``): the observation of seat 0, whose frame is the
    boards' own (absolute boards, colours and seats)."""
    return observation(state, 0)


# --- legal actions --------------------------------------------------------------------------


def legal_actions(state: State, seat: int) -> np.ndarray:
    """The legal actions of ``seat`` in its frame, ascending (empty unless it is to move)."""
    if state.to_move != seat:
        return np.zeros(0, dtype=np.intp)
    return np.sort(_ACTION_OF_NP[frame_index(state.num_players, seat)][state.legal_ids()])


def action_mask(state: State, seat: int) -> np.ndarray:
    """``bool[1051]``, true on the legal actions of ``seat`` (all false if not to move)."""
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    if state.to_move == seat:
        f = frame_index(state.num_players, seat)
        legal = np.array(state.legal_ids(), dtype=np.intp)
        mask[legal if f in _IDENTITY else _ACTION_OF_NP[f][legal]] = True
    return mask


def action_index(action: object) -> int | None:
    """``action`` as an index ``0..1050`` (a Python or numpy integer, or a one-element
    integer array), or ``None``."""
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        action = action.item()
    index = whole_number(action)
    return index if index is not None and 0 <= index < NUM_ACTIONS else None


def legal_move_id(state: State, seat: int, action: object) -> int:
    """The engine move id of ``action`` if it is a legal action of ``seat`` (to move) in
    ``state``, else -1 (wrong type, out of range, not to move, or illegal)."""
    index = action_index(action)
    if index is None or state.to_move != seat:
        return -1
    move = MOVE_OF[frame_index(state.num_players, seat)][index]
    legal = state.legal_ids()
    i = bisect.bisect_left(legal, move)
    return move if i < len(legal) and legal[i] == move else -1


def describe_legal(state: State, seat: int, limit: int = 12) -> str:
    """The legal actions of ``seat`` as ``"action (move)"``, ascending, at most ``limit``."""
    if state.to_move != seat:
        return "none (not to move)"
    n = state.num_players
    actions = legal_actions(state, seat)
    items = [f"{a} ({move_text(state, move_of(n, seat, int(a)))})" for a in actions[:limit]]
    more = f", … {len(actions) - limit} more" if len(actions) > limit else ""
    return ", ".join(items) + more


def checked_move_id(state: State, seat: int, action: object, who: str) -> int:
    """The engine move id of ``action``, a legal action of ``seat`` (to move) in ``state``;
    raises :class:`~talat_env.rules.IllegalMoveError` naming ``who`` chose it, the action,
    the position and the legal actions. Every caller that applies an agent's action checks
    it here."""
    move = legal_move_id(state, seat, action)
    if move < 0:
        colour = COLOUR_NAMES[seat] if 0 <= seat < 3 else "?"
        if action_index(action) is None:
            why = f"an action index 0..{NUM_ACTIONS - 1}"
        else:
            why = "an action with a 1 in its action mask"
        index = whole_number(action)
        shown = str(index) if index is not None else f"{action!r:.80}"
        raise IllegalMoveError(
            f"illegal action {shown} for {who} (seat {seat}, {colour}) in position "
            f"{to_text(state)!r}: expected {why}; legal: {describe_legal(state, seat)}"
        )
    return move
