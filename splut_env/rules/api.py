"""The stable public rules API: positions as SPN, steps as text, states never mutated.

>>> from splut_env import rules
>>> s = rules.from_spn(rules.initial_spn(2))
>>> rules.legal_steps(s)
['Dn', 'Tn', 'Wn']
>>> s = rules.play(s, "Dn")
>>> rules.to_spn(s)
'S:d2,f2,e3 N:f8,d8,e8 R:a5,e1,e9,i5 N 2 2 - - -'

For speed, :class:`State` also has an unchecked in-place interface over integer step ids
(``state.legal_ids()``, ``state.apply(id)``); see :mod:`splut_env.rules.engine`.
"""

from __future__ import annotations

from splut_env.rules.board import MAX_TURN, SEATS, SEATS_IN_PLAY, player_count, whole_number
from splut_env.rules.engine import State
from splut_env.rules.notation import (
    IllegalStepError,
    InvalidNotationError,
    format_spn,
    parse_step,
    quote,
    step_text,
)

__all__ = [
    "MAX_TURN",
    "IllegalStepError",
    "InvalidNotationError",
    "State",
    "from_spn",
    "initial_spn",
    "initial_state",
    "is_over",
    "legal_steps",
    "perft",
    "play",
    "seats",
    "step_id",
    "to_spn",
    "winner",
]


def seats(num_players: int) -> list[str]:
    """The seats in play, in turn order: ``['S', 'N']`` for 2 players, ``['S', 'W', 'N']``
    for 3, ``['S', 'W', 'N', 'E']`` for 4. Player ``k`` sits at ``seats(n)[k]``."""
    return [SEATS[s] for s in SEATS_IN_PLAY[player_count(num_players)]]


def initial_spn(num_players: int) -> str:
    """SPN of the start position for 2, 3 or 4 players."""
    return format_spn(initial_state(num_players))


def initial_state(num_players: int) -> State:
    """The start position for 2, 3 or 4 players."""
    return State.initial(num_players)


def from_spn(text: str) -> State:
    """Parse SPN (§7.2); raises :class:`InvalidNotationError` quoting the text."""
    return State(text)


def to_spn(state: State) -> str:
    """Canonical SPN of ``state``."""
    return format_spn(state)


def legal_steps(state: State) -> list[str]:
    """Every legal step of the player to move, in step notation, sorted as text."""
    return sorted(step_text(i) for i in state.legal_ids())


def step_id(state: State, step: str) -> int:
    """The engine id of a legal ``step``; raises on bad notation or an illegal step."""
    i = parse_step(step)
    if i not in state.legal_ids():
        spn = format_spn(state)
        if state.to_move < 0:
            why = "the game is over"
        else:
            why = f"expected one of: {', '.join(legal_steps(state))}"
        raise IllegalStepError(f"illegal step {quote(step)} in position {spn!r}: {why}")
    return i


def play(state: State, step: str) -> State:
    """The state after ``step``; ``state`` itself is left unchanged."""
    i = step_id(state, step)
    nxt = state.copy()
    nxt.apply(i)
    return nxt


def winner(state: State) -> str | None:
    """The winning seat letter, or ``None`` while the game goes on or ended with no winner."""
    w = state.winner()
    return SEATS[w] if w >= 0 else None


def is_over(state: State) -> bool:
    """Whether the game has ended."""
    return state.is_over()


def perft(state: State, depth: int) -> int:
    """Number of step sequences of length ``depth`` (a finished game is one leaf)."""
    checked = whole_number(depth)
    if checked is None or checked < 0:
        raise ValueError(f"perft depth must be a whole number from 0, got {depth!r}")
    return _perft(state, checked)


def _perft(state: State, depth: int) -> int:
    if depth == 0 or state.to_move < 0:
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
