"""Actions and observations for learning agents, in the acting seat's own frame.

Every seat sees the board rotated so that its home tip is at the bottom (``e1``): seat S as
is, W a quarter turn counter-clockwise, N half a turn, E a quarter turn clockwise. Actions
use the same frame, so one policy can play every seat.

Action space: ``Discrete(196)``, the step-id layout of :mod:`splut_env.rules.board` (wizard
``0..167``, troll ``168..191``, dwarf ``192..195``; the table is there) with directions and
squares taken in the seat's frame: action ``a`` of seat ``k`` is step id
``UNROTATE_ID[k][a]``.

Observation planes: ``float32[22, 9, 9]``, ``planes[c, 8 - rank, file]`` in the observer's
frame (row 0 is the top of the diamond, the observer's tip is row 8, column 4):

=======  ====================================================================================
plane    content
=======  ====================================================================================
0-2      the observer's wizard, troll, dwarf
3-5      the next player in turn order: wizard, troll, dwarf (empty once it is out)
6-8      the player after that (empty in 2-player games)
9-11     the player after that (4-player games only)
12       rocks
13       locked rocks: moved during the previous turn, cannot be levitated this turn
14       rocks moved so far in this turn
15       the rock levitated on the previous step, which may be levitated again
16       all ones while levitation is still available this turn
17-19    all ones in plane ``16 + k`` when ``k`` steps are left in this turn
20       all equal to ``turn / max_turns``, the fraction of the game's length used
21       ones on the 41 squares of the board
=======  ====================================================================================

The player slots follow the seats in play, in turn order, starting with the observer;
a player's slots keep their place after it is out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from splut_env.rules.board import (
    MIRROR_ID,
    NUM_SQUARES,
    NUM_STEP_IDS,
    ROTATE,
    ROTATE_ID,
    SEATS,
    SQUARE_XY,
    UNROTATE_ID,
    whole_number,
)
from splut_env.rules.engine import State
from splut_env.rules.notation import IllegalStepError, format_spn, quote

NUM_ACTIONS = NUM_STEP_IDS
#: Version of the observation planes and action layout; a checkpoint trained on another
#: layout cannot be loaded.
LAYOUT_VERSION = 1
NUM_PLANES = 22
#: Planes of one player's slot (wizard, troll, dwarf): slot k is planes ``k * SLOT_PLANES`` on.
SLOT_PLANES = 3
BOARD_SHAPE = (9, 9)
OBS_SHAPE = (NUM_PLANES, *BOARD_SHAPE)
PLANE_ROCKS, PLANE_LOCKED, PLANE_MOVED, PLANE_LEV, PLANE_LEV_AVAILABLE = 12, 13, 14, 15, 16
PLANE_ONE_STEP, PLANE_TURN, PLANE_BOARD = 17, 20, 21  # 17-19: one, two, three steps left

#: ``FRAME_CELL[k][sq]``: flat index ``row * 9 + col`` of board square ``sq`` in seat k's frame.
FRAME_CELL: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        (8 - SQUARE_XY[ROTATE[k][sq]][1]) * 9 + SQUARE_XY[ROTATE[k][sq]][0]
        for sq in range(NUM_SQUARES)
    )
    for k in range(4)
)
_BLANK = np.zeros((NUM_PLANES, 81), dtype=np.float32)
_BLANK[PLANE_BOARD, list(FRAME_CELL[0])] = 1.0


#: ``MIRROR_ACTION[a]``: action ``a`` reflected in the observer's north-south axis (its own
#: inverse). In a 2-player game the reflected position (``State.mirrored``) has the planes of
#: :func:`mirror_planes` and, for every per-action array ``x`` (mask, scores), ``x[MIRROR_ACTION]``.
MIRROR_ACTION: np.ndarray = np.array(MIRROR_ID, dtype=np.int64)


def mirror_planes(planes: np.ndarray) -> np.ndarray:
    """Observation planes (``[22, 9, 9]`` or a batch of them) reflected in the observer's
    north-south axis: those of the reflected position, in a 2-player game."""
    return np.ascontiguousarray(planes[..., ::-1])


def mirror_mean(logits: Any, reflected: Any) -> Any:
    """The mean of a batch of per-action scores (numpy or torch, ``[n, 196]``) and those of
    the reflected positions, mapped back to the positions' own actions."""
    return (logits + reflected[:, MIRROR_ACTION]) / 2


def step_id_to_action(seat: int, step_id: int) -> int:
    """The action index, in ``seat``'s frame, of an engine step id (board frame)."""
    return ROTATE_ID[seat][step_id]


def legal_log_policy(logits: np.ndarray, seat: int, step_ids: Sequence[int]) -> np.ndarray:
    """The log-softmax of a policy's ``logits`` (over ``seat``'s actions) restricted to the
    legal steps ``step_ids`` (board frame), in their order."""
    z = logits[[ROTATE_ID[seat][sid] for sid in step_ids]].astype(np.float64)
    z -= z.max()
    return z - np.log(np.exp(z).sum())


def action_to_step_id(seat: int, action: int) -> int:
    """The engine step id (board frame) of an action index in ``seat``'s frame."""
    return UNROTATE_ID[seat][action]


def _action_index(action: object) -> int | None:
    """``action`` as an index ``0..195`` (a Python or numpy integer, or a one-element integer
    array), or ``None``."""
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        action = action.item()
    index = whole_number(action)
    return index if index is not None and 0 <= index < NUM_ACTIONS else None


def checked_action(action: object) -> int:
    """``action`` as an action index; raises ``ValueError`` naming it otherwise."""
    index = _action_index(action)
    if index is None:
        raise ValueError(
            f"action must be a whole number from 0 to {NUM_ACTIONS - 1}, got {action!r}"
        )
    return index


def legal_step_id(state: State, seat: int, action: object) -> int:
    """The engine step id of ``action`` if it is a legal action of ``seat`` (to move) in
    ``state``, else -1 (wrong type, out of range, or illegal)."""
    action = _action_index(action)
    if action is None or state.to_move != seat:
        return -1
    sid = UNROTATE_ID[seat][action]
    return sid if sid in state.legal_ids() else -1


def checked_step_id(state: State, seat: int, action: object, who: str) -> int:
    """The engine step id of ``action``, a legal action of ``seat`` (to move) in ``state``;
    raises :class:`IllegalStepError` naming ``who`` chose it, the action and the position.
    Every caller that applies an agent's action checks it here."""
    sid = legal_step_id(state, seat, action)
    if sid < 0:
        raise IllegalStepError(
            f"illegal action {quote(action)} for {who} (seat {SEATS[seat]}) in position "
            f"{format_spn(state)!r}: expected an action with a 1 in its action mask"
        )
    return sid


def action_mask(state: State, seat: int) -> np.ndarray:
    """``int8[196]`` with ones on the legal actions of ``seat`` (all zero if not to move)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if state.to_move == seat:
        rot = ROTATE_ID[seat]
        mask[[rot[i] for i in state.legal_ids()]] = 1
    return mask


def observation_planes(state: State, seat: int, max_turns: int) -> np.ndarray:
    """The ``float32[22, 9, 9]`` planes of ``state`` seen from ``seat`` (see module doc)."""
    planes = _BLANK.copy()
    cell = FRAME_CELL[seat]
    channels: list[int] = []
    cells: list[int] = []
    seats = state.seats
    n = len(seats)
    first = seats.index(seat)
    pos = state.pos
    for slot in range(n):
        base = seats[(first + slot) % n] * 3
        for kind in range(3):
            sq = pos[base + kind]
            if sq >= 0:
                channels.append(slot * SLOT_PLANES + kind)
                cells.append(cell[sq])
    locked, moved = state.locked, state.moved
    for sq in state.rocks:
        c = cell[sq]
        channels.append(PLANE_ROCKS)
        cells.append(c)
        if (locked >> sq) & 1:
            channels.append(PLANE_LOCKED)
            cells.append(c)
        if (moved >> sq) & 1:
            channels.append(PLANE_MOVED)
            cells.append(c)
    if state.lev >= 0:
        channels.append(PLANE_LEV)
        cells.append(cell[state.lev])
    planes[channels, cells] = 1.0
    if state.lev == -1:
        planes[PLANE_LEV_AVAILABLE] = 1.0
    if state.steps_left > 0:
        planes[PLANE_ONE_STEP + state.steps_left - 1] = 1.0
    planes[PLANE_TURN] = min(state.turn / max_turns, 1.0)
    return planes.reshape(OBS_SHAPE)


#: Shape of the global state (``env.state()``): the observation planes of player 0 (seat S,
#: whose frame is the board's) and one plane per player slot, all ones for the player to move.
STATE_SHAPE = (NUM_PLANES + 4, *BOARD_SHAPE)


def global_planes(state: State, max_turns: int) -> np.ndarray:
    """The ``float32[26, 9, 9]`` global state of a game, the same whoever asks: the planes of
    :func:`observation_planes` from seat S (so in the board's own frame, players in turn
    order from player 0), then plane ``22 + k`` all ones when player ``k`` is to move (all
    zero once the game is over). For centralised critics."""
    planes = np.zeros(STATE_SHAPE, dtype=np.float32)
    planes[:NUM_PLANES] = observation_planes(state, 0, max_turns)
    if state.to_move >= 0:
        planes[NUM_PLANES + state.seats.index(state.to_move)] = 1.0
    return planes


def observation(state: State, seat: int, max_turns: int) -> dict[str, np.ndarray]:
    """The observation dict ``{"observation": planes, "action_mask": mask}`` of ``seat``."""
    return {
        "observation": observation_planes(state, seat, max_turns),
        "action_mask": action_mask(state, seat),
    }
