"""The stable public rules API: positions and moves as text, states never mutated.

>>> from talat_env import rules
>>> s = rules.initial_state(3)
>>> rules.legal_moves(s)[:3]
['gw:L3@a5', 'gw:L3@b5', 'gw:L3@c5']
>>> s = rules.play(s, "wb:L6@c1")
>>> rules.to_move(s), rules.to_text(s).split()[1]
('b', 'wb:...../...../...../...../..wL6..')

For speed, :class:`State` also has an unchecked in-place interface over integer move ids
(``state.legal_ids()``, ``state.apply(id)``); see :mod:`talat_env.rules.engine` and the id
layout in :mod:`talat_env.rules.board`.
"""

from __future__ import annotations

from talat_env.rules.board import (
    BOARD_NAMES,
    CODE_BEATS,
    CODE_COLOUR,
    COLOUR_BOARDS,
    COLOUR_NAMES,
    COLOURS,
    CONTROL,
    NUM_MOVES,
    OVER,
    PASS,
    PLACE,
    SQUARE_NAMES,
    STEP_BASE,
    STEP_TARGET,
    TOWER_NAMES,
    TYPE_NAMES,
    UP_CODE,
    placement_id,
    player_count,
    start_squares,
    step_id,
    whole_number,
)
from talat_env.rules.engine import State
from talat_env.rules.notation import (
    IllegalMoveError,
    InvalidNotationError,
    format_position,
    parse_move,
    quote,
)
from talat_env.rules.notation import move_text as _move_text

__all__ = [
    "NUM_MOVES",
    "PASS",
    "IllegalMoveError",
    "InvalidNotationError",
    "State",
    "from_text",
    "initial_state",
    "initial_text",
    "is_over",
    "legal_moves",
    "move_id",
    "move_text",
    "perft",
    "play",
    "scores",
    "seat_to_move",
    "seats",
    "to_move",
    "to_text",
    "winner",
    "winners",
]


def seats(num_players: int) -> list[str]:
    """The seats' colours in turn order: ``['w', 'b']`` for 2 players, ``['w', 'b', 'g']``
    for 3. Player ``k`` sits at ``seats(n)[k]``."""
    return list(COLOURS[: player_count(num_players)])


def initial_state(num_players: int) -> State:
    """The start of a game for 2 or 3 players: empty boards, white to place."""
    return State.initial(num_players)


def initial_text(num_players: int) -> str:
    """The position text of the start of a game for 2 or 3 players."""
    return format_position(initial_state(num_players))


def from_text(text: str) -> State:
    """Read a position (§9.3); raises :class:`InvalidNotationError` quoting the text."""
    return State(text)


def to_text(state: State) -> str:
    """The canonical position text of ``state``."""
    return format_position(state)


def legal_moves(state: State) -> list[str]:
    """Every legal move of the seat to move, as canonical text sorted by code point (empty
    once the game is over)."""
    cells = state.cells
    return sorted(_move_text(cells, i) for i in state.legal_ids())


def move_text(state: State, move: int) -> str:
    """The canonical text of move id ``move`` in ``state``. The move need not be legal, but
    must name a move there: a placement, ``PASS``, or a step id whose from-square holds a
    tower with a target on the board. Raises ``ValueError`` otherwise."""
    i = whole_number(move)
    if i is None or not 0 <= i < NUM_MOVES:
        raise ValueError(f"a move id is a whole number from 0 to {NUM_MOVES - 1}, got {move!r:.80}")
    if STEP_BASE <= i < PASS:
        k = i - STEP_BASE
        cell = k // 5
        code = state.cells[cell]
        if not code:
            raise IllegalMoveError(
                f"move id {i} moves from {BOARD_NAMES[cell // 25]} {SQUARE_NAMES[cell % 25]}, "
                f"where no tower stands in {format_position(state)!r}"
            )
        if STEP_TARGET[k][0 if UP_CODE[cell // 25][code] else 1] < 0:
            raise IllegalMoveError(f"move id {i} leads the tower on {_where(cell)} off the board")
    return _move_text(state.cells, i)


def _where(cell: int) -> str:
    return f"{BOARD_NAMES[cell // 25]} {SQUARE_NAMES[cell % 25]}"


def _why_illegal(state: State, parsed) -> str:
    """Why a well-formed move is not legal in ``state`` (best effort, for the message)."""
    if state.phase == OVER:
        return "the game is over"
    kind, board, a, b = parsed
    seat = state.to_move
    if kind == "pass":
        return "a player may pass only without any legal step or capture (§4)"
    if kind == "place":
        if state.phase != PLACE:
            return "set-up is over: no more placements"
        colour = state.placing_colour()
        who = f"{COLOURS[seat]} places {'a Zihin (grey)' if colour != seat else 'an own'} tower"
        if board not in COLOUR_BOARDS[colour] or a not in start_squares(colour, board):
            lines = " and ".join(
                f"{BOARD_NAMES[x]} rank {1 if start_squares(colour, x)[0] == 0 else 5}"
                for x in COLOUR_BOARDS[colour]
            )
            return f"{who}, on an empty square of the start lines {lines}"
        cell = board * 25 + a
        if state.cells[cell]:
            return f"{_where(cell)} holds {TOWER_NAMES[state.cells[cell]]} already"
        return f"{who} and {COLOUR_NAMES[colour]}'s {TYPE_NAMES[b]} is not left to place"
    if state.phase == PLACE:
        return "during set-up every move is a placement"
    cell = board * 25 + a
    code = state.cells[cell]
    if not code:
        return f"no tower stands on {_where(cell)}"
    colour = dict(CONTROL[state.num_players][seat]).get(board, -1)
    if CODE_COLOUR[code] != colour:
        return f"{COLOURS[seat]} does not move the {TOWER_NAMES[code]} on {_where(cell)} (§4, §8.3)"
    if state.frozen[board]:
        return f"board {BOARD_NAMES[board]} is frozen (§6)"
    up = UP_CODE[board][code]
    rank_step = (b // 5 - a // 5) * (1 if up else -1)
    file_step = b % 5 - a % 5
    if rank_step == 1 and abs(file_step) <= 1:
        d = file_step + 1
    elif rank_step == 0 and abs(file_step) == 1:
        d = 3 if file_step < 0 else 4
    else:
        return (
            f"the {TOWER_NAMES[code]} on {_where(cell)} moves one square forward (straight or "
            "diagonally) or captures beside it"
        )
    target = board * 25 + b
    victim = state.cells[target]
    if kind == "step":
        if victim:
            return f"{_where(target)} holds {TOWER_NAMES[victim]}: a capture is written with 'x'"
        if d >= 3:
            return "a tower moves sideways only to capture (§4)"
    else:
        if not victim:
            return f"{_where(target)} is empty: a step is written with '-'"
        if CODE_COLOUR[victim] == CODE_COLOUR[code]:
            return "own towers are never captured (§5.1)"
        if not CODE_BEATS[code][victim]:
            return f"{TOWER_NAMES[code]} does not beat {TOWER_NAMES[victim]} (§5.2)"
    if step_id(cell, d) not in state.legal_ids():
        return "it is not among the legal moves"
    return ""


def move_id(state: State, move: str) -> int:
    """The move id of a legal ``move`` (text); raises :class:`InvalidNotationError` for
    malformed text and :class:`IllegalMoveError` for a move the position does not allow."""
    parsed = parse_move(move)
    legal = state.legal_ids()
    kind, board, a, b = parsed
    i = -1
    if kind == "pass":
        i = PASS
    elif kind == "place":
        i = placement_id(board, a, b) if state.phase == PLACE else -1
    elif state.phase != PLACE and state.cells[board * 25 + a]:
        cell = board * 25 + a
        up = UP_CODE[board][state.cells[cell]]
        for d in range(5):
            t = STEP_TARGET[cell * 5 + d][0 if up else 1]
            if t == board * 25 + b:
                i = step_id(cell, d)
                break
        if i >= 0 and (kind == "capture") != bool(state.cells[board * 25 + b]):
            i = -1
    if i >= 0 and i in legal:
        return i
    why = _why_illegal(state, parsed) or "it is not among the legal moves"
    shown = legal_moves(state)
    listed = ", ".join(shown[:24]) + (f", ... ({len(shown)} in all)" if len(shown) > 24 else "")
    expected = f"; expected one of: {listed}" if shown else ""
    raise IllegalMoveError(
        f"illegal move {quote(move)} in position {format_position(state)!r}: {why}{expected}"
    )


def play(state: State, move: str) -> State:
    """The state after ``move`` (text); ``state`` itself is left unchanged."""
    i = move_id(state, move)
    nxt = state.copy()
    nxt.apply(i)
    return nxt


def is_over(state: State) -> bool:
    """Whether the game has ended (two frozen boards)."""
    return state.phase == OVER


def seat_to_move(state: State) -> int | None:
    """The seat to move (or place), ``None`` once the game is over."""
    return None if state.to_move < 0 else state.to_move


def to_move(state: State) -> str | None:
    """The colour letter of the seat to move, ``'w'``, ``'b'`` or ``'g'``; ``None`` once over."""
    return None if state.to_move < 0 else COLOURS[state.to_move]


def scores(state: State) -> list[int]:
    """The current scores, one per seat in seat order (§7.1, §8.4)."""
    return state.scores()


def winners(state: State) -> list[str]:
    """The seats sharing the win, as colour letters (one unless the win is shared); empty
    while the game runs."""
    return [COLOURS[s] for s in state.winners()]


def winner(state: State) -> str | None:
    """The winning seat's colour letter; ``None`` while the game runs or when the win is
    shared."""
    w = state.winners()
    return COLOURS[w[0]] if len(w) == 1 else None


def perft(state: State, depth: int) -> int:
    """The number of move sequences of length ``depth`` from ``state``; a finished game is
    one leaf and is not expanded."""
    checked = whole_number(depth)
    if checked is None or checked < 0:
        raise ValueError(f"perft depth must be a whole number from 0, got {depth!r:.80}")
    return _perft(state, checked)


def _perft(state: State, depth: int) -> int:
    if depth == 0 or state.phase == OVER:
        return 1
    legal = state.legal_ids()
    if depth == 1:
        return len(legal)
    total = 0
    for i in legal:
        child = state.copy()
        child.apply(i)
        total += _perft(child, depth - 1)
    return total
