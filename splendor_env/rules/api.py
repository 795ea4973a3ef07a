"""The stable public rules API: positions and moves as text, states never mutated.

>>> from splendor_env import rules
>>> s = rules.initial_state(2, seed=7)
>>> len(rules.legal_moves(s)), rules.legal_moves(s)[:2]
(30, ['reserve 1.0', 'reserve 1.1'])
>>> s = rules.play(s, "take wbg")
>>> rules.to_move(s), rules.to_text(s).split()[6]
(1, 'supply:w3b3g3r4k4y5')

Seats are ``0 .. n-1``. For speed, :class:`State` also has an unchecked in-place interface
over the move ids ``0..76`` (``state.legal_move_ids()``, ``state.apply(id)``); see
:mod:`splendor_env.rules.engine` and the id layout in :mod:`splendor_env.rules.moves`.
"""

from __future__ import annotations

import random

from splendor_env.rules.components import (
    CARD_COST,
    COLOURS,
    GOLD,
    HAND_LIMIT,
    ROUND_CAP,
    SLOTS,
    TOKENS,
    shortfall,
)
from splendor_env.rules.engine import NOBLE_PHASE, OVER, RETURN_PHASE, State, player_count
from splendor_env.rules.moves import (
    BUY,
    BUY_HAND,
    MOVE_IDS,
    MOVE_TEXTS,
    NOBLE,
    NUM_MOVES,
    PASS,
    RESERVE,
    RESERVE_DECK,
    RETURN,
    TAKE2,
    TAKE_COLOURS,
)
from splendor_env.rules.notation import (
    IllegalMoveError,
    InvalidNotationError,
    format_position,
    parse_move,
    quote,
)
from splendor_env.rules.view import View, make_view
from splendor_env.rules.view import determinise as _determinise

__all__ = [
    "MOVE_IDS",
    "MOVE_TEXTS",
    "NUM_MOVES",
    "PASS",
    "IllegalMoveError",
    "InvalidNotationError",
    "State",
    "View",
    "determinise",
    "from_text",
    "initial_state",
    "initial_text",
    "is_over",
    "is_truncated",
    "legal_moves",
    "move_id",
    "move_text",
    "perft",
    "play",
    "scores",
    "to_move",
    "to_text",
    "view",
    "view_text",
    "winner",
    "winners",
]


def _rng(seed: object) -> random.Random:
    if isinstance(seed, random.Random):
        return seed
    if type(seed) is not int:
        raise ValueError(f"a seed is an int or a random.Random, got {quote(seed)}")
    return random.Random(seed)


def initial_state(num_players: int, seed: int | random.Random) -> State:
    """A shuffled start for 2 to 4 players (§2) from ``random.Random(seed)``: each level's
    deck shuffled (market first, then the deck), then the nobles drawn."""
    return State.initial(player_count(num_players), _rng(seed))


def initial_text(num_players: int, seed: int | random.Random) -> str:
    """The position text of :func:`initial_state`."""
    return format_position(initial_state(num_players, seed))


def from_text(text: str) -> State:
    """Read a position (§8.2); raises :class:`InvalidNotationError` quoting the text."""
    return State(text)


def to_text(state: State) -> str:
    """The canonical position text of ``state``, decks included."""
    return format_position(state)


def legal_moves(state: State) -> list[str]:
    """Every legal move of the seat to move as canonical text, sorted as plain strings
    (empty once the game is over)."""
    return sorted(MOVE_TEXTS[i] for i in state.legal_move_ids())


def move_text(move: int) -> str:
    """The canonical text of move id ``move`` (0 to 76)."""
    if type(move) is not int or not 0 <= move < NUM_MOVES:
        raise ValueError(
            f"a move id is a whole number from 0 to {NUM_MOVES - 1}, got {quote(move)}"
        )
    return MOVE_TEXTS[move]


def move_id(state: State, move: str) -> int:
    """The id of a legal ``move`` (text); raises :class:`InvalidNotationError` for malformed
    text and :class:`IllegalMoveError` for a move the position does not allow."""
    i = parse_move(move)
    if i in state.legal_move_ids():
        return i
    shown = legal_moves(state)
    listed = ", ".join(shown[:20]) + (f", ... ({len(shown)} in all)" if len(shown) > 20 else "")
    expected = f"; expected one of: {listed}" if shown else ""
    raise IllegalMoveError(
        f"illegal move {quote(move)} in position {quote(format_position(state), 2000)}: "
        f"{_why_illegal(state, i)}{expected}"
    )


def _why_illegal(state: State, i: int) -> str:
    """Why the well-formed move ``i`` is not legal in ``state``."""
    phase = state.phase
    seat = state.to_move
    if phase == OVER:
        return "the game is over"
    held = sum(state.tokens[seat]) if seat >= 0 else 0
    if phase == RETURN_PHASE:
        if RETURN <= i < NOBLE:
            return f"P{seat} holds no {TOKENS[i - RETURN]} token"
        return f"P{seat} holds {held} tokens and returns one at a time down to 10 first (§4.1)"
    if phase == NOBLE_PHASE:
        if NOBLE <= i < PASS:
            return f"noble {i - NOBLE + 1} is not on the table or P{seat} does not meet it"
        return f"P{seat} picks one of the nobles that qualify first (§4.2)"
    if RETURN <= i < NOBLE:
        return "tokens are returned only above 10 after a main action (§4.1)"
    if NOBLE <= i < PASS:
        return "a noble is picked only when several qualify at the end of a turn (§4.2)"
    if i == PASS:
        return "a player passes only without any main action (§3.6)"
    supply = state.supply
    if i < TAKE2:
        have = [c for c in range(5) if supply[c]]
        empty = [COLOURS[c] for c in TAKE_COLOURS[i] if not supply[c]]
        if empty:
            return f"the supply holds no {' and no '.join(empty)} token"
        return (
            f"the supply holds {len(have)} colours, so a take takes one of each of "
            f"{'exactly 3 different colours' if len(have) >= 3 else 'all of them'} (§3.1)"
        )
    if i < RESERVE:
        c = i - TAKE2
        return f"the supply holds {supply[c]} {COLOURS[c]} tokens, take2 needs at least 4 (§3.2)"
    hand = state.hands[seat]
    if i < BUY:
        if len(hand) >= HAND_LIMIT:
            return f"P{seat} holds {HAND_LIMIT} reserved cards already (§3.3)"
        if i >= RESERVE_DECK:
            return f"deck {i - RESERVE_DECK + 1} is empty (§3.3)"
        level, s = divmod(i - RESERVE, SLOTS)
        return f"market slot {level + 1}.{s} is empty (§3.3)"
    if i < BUY_HAND:
        level, s = divmod(i - BUY, SLOTS)
        card = state.market[level][s]
        if not card:
            return f"market slot {level + 1}.{s} is empty"
    else:
        h = i - BUY_HAND
        if h >= len(hand):
            return f"P{seat}'s hand holds {len(hand)} cards, no slot r{h}"
        card = hand[h]
    tokens = state.tokens[seat]
    cost = "".join(f"{COLOURS[c]}{v}" for c, v in enumerate(CARD_COST[card]) if v)
    short = shortfall(card, tokens, state.bonus[seat])
    return (
        f"card {card} costs {cost}; with its bonuses and tokens P{seat} lacks {short}, "
        f"more than its {tokens[GOLD]} gold (§3.4)"
    )


def play(state: State, move: str) -> State:
    """The state after ``move`` (text); ``state`` itself is left unchanged."""
    i = move_id(state, move)
    nxt = state.copy()
    nxt.apply(i)
    return nxt


def is_over(state: State) -> bool:
    """Whether the game has ended (§5 or §6)."""
    return state.phase == OVER


def is_truncated(state: State) -> bool:
    """Whether the game ended at the cap of 100 rounds (§6), which environments report as
    a truncation rather than a termination."""
    n = state.num_players
    return state.phase == OVER and not state.final and state.turn == ROUND_CAP * n


def to_move(state: State) -> int | None:
    """The seat to move, ``None`` once the game is over."""
    return None if state.phase == OVER else state.to_move


def scores(state: State) -> list[int]:
    """Every seat's points (cards and nobles), in seat order."""
    return state.points[:]


def winners(state: State) -> list[int]:
    """The seats sharing the win (§5), ascending; empty while the game runs and when it
    ended at the cap or in a deadlock (§6)."""
    return state.winners()


def winner(state: State) -> int | None:
    """The winning seat; ``None`` while the game runs, when the win is shared, or when the
    game ended with no winner (§6)."""
    w = state.winners()
    return w[0] if len(w) == 1 else None


def view(state: State, seat: int) -> View:
    """What ``seat`` may see of ``state`` (§9)."""
    return make_view(state, seat)


def view_text(state: State, seat: int) -> str:
    """The view text of ``seat`` (§9): the position text with each deck written
    ``#<count>`` and each card in another player's hand ``?<level>``."""
    return make_view(state, seat).text


def determinise(seen: View, seed: int | random.Random) -> State:
    """A full position consistent with the view ``seen``: decks and other players' hidden
    hand cards redrawn from the cards its seat has not seen, with ``random.Random(seed)``."""
    if not isinstance(seen, View):
        raise ValueError(f"determinise needs a View (rules.view(state, seat)), got {quote(seen)}")
    return _determinise(seen, _rng(seed))


def perft(state: State, depth: int) -> int:
    """The number of move sequences of length ``depth`` from ``state``; a finished game is
    one leaf and is not expanded."""
    if type(depth) is not int or depth < 0:
        raise ValueError(f"perft depth must be a whole number from 0, got {quote(depth)}")
    return _perft(state, depth)


def _perft(state: State, depth: int) -> int:
    if depth == 0 or state.phase == OVER:
        return 1
    legal = state.legal_move_ids()
    if depth == 1:
        return len(legal)
    total = 0
    for i in legal:
        child = state.copy()
        child.apply(i)
        total += _perft(child, depth - 1)
    return total
