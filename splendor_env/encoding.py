"""Actions and observations for learning agents: a feature vector of what the acting seat
may see (SPLENDOR_RULES.md §9), in that seat's own frame.

**The frame.** Players are listed *relative* to the observing seat: relative player 0 is
me, 1 the next seat in turn order, 2 the one after, and so on (``(seat + r) mod n``). Slots
of players absent at a table of 2 or 3 stay zero. One policy can so play every seat at every
table size.

**Actions**: ``Discrete(77)``, the move ids of :mod:`splendor_env.rules.moves` as they are
(a move means the same for every seat: ``buy r0`` buys from one's own hand). The mask has
ones on the legal moves of the seat to move and is all zero for every other seat.
:func:`checked_move_id` checks an action and names the move and the legal ones when it is
not legal.

**Observation**: ``float32[644]``, every value in ``[0, 1]``. A *card block* (23 values)
describes one visible card:

======  ==========================================================================
offset  card block content
======  ==========================================================================
0       1 (a card is there)
1-5     its bonus colour, one-hot ``w b g r k``
6       its points / 5
7-11    its cost per colour / 7
12-16   what I lack per colour after my bonuses and tokens / 7
17      the gold I would need to buy it (sum of 12-16 unscaled) / 10, at most 1
18      1 if I can buy it now (that need is at most my gold)
19      its net price after my bonuses (tokens I would spend) / 15, at most 1
20-22   1 if relative player 1, 2, 3 can buy it now
======  ==========================================================================

=========  ================================================================================
slice      content
=========  ================================================================================
0-2        player count 2, 3, 4, one-hot
3-6        phase ``main``, ``return``, ``noble``, ``over``, one-hot
7          ``final``: the end is triggered (§4.3)
8-11       relative player to move, one-hot (all zero once over)
12         completed turns / the cap (100 rounds, §6)
13         completed rounds / 40, at most 1
14-18      supply per colour / the table's count of that colour (§1)
19         gold in the supply / 5
20-22      deck sizes / 36, 26, 16 (levels 1-3; their size after the deal)
23-298     the market: 12 card blocks, level 1 slots 0-3, then level 2, level 3
299-382    my hand: 3 slots of 28: 1 (a card), level one-hot (3), 1 if reserved from a
           deck, then its card block
383-427    the other players' hands (relative players 1-3): 3 slots of 5 each: 1 (a card),
           level one-hot (3), 1 if reserved from a deck; the card itself is hidden (§9)
428-503    players, relative 0-3, 19 values each: 1 (present), tokens ``w b g r k`` / 7,
           gold / 5, all tokens / 13, bonuses ``w b g r k`` / 7 (at most 1), points / 20
           (at most 1), 1 if 15 points or more, purchased cards / 20 (at most 1), nobles / 5,
           hand size / 3, 1 if it would win were the game over now (§5, ties included)
504-553    the table's nobles by id, 5 slots of 10: 1 (present), requirement ``w b g r k``
           / 4, then per relative player 0-3 the bonuses it still lacks / 9
554-643    per card id 1-90: 1 if I cannot see it (in a deck or another player's hand)
=========  ================================================================================

**Global state** (``env.state()``, :func:`global_state`): ``float32[1010]``, everything, for
centralised critics: the observation of seat 0 (whose frame is the seats' own), then the
card blocks (from seat 0's side) of the cards in the other players' hands (644-850: relative
players 1-3, hand slots 0-2), of the top card of each deck (851-919) and, per card id 1-90
(920-1009), its place in a deck: ``1 - depth / 40`` (the top card 1), 0 if not in a deck.

**Speed.** One function (:func:`_fill`) writes the features from a compact integer summary
of the position (:func:`_summary`, which leaves out what the seat may not see); numba
compiles it on first use and caches it on disk.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from splendor_env.rules import IllegalMoveError, State
from splendor_env.rules.components import (
    CARD_BONUS,
    CARD_COST,
    CARD_LEVEL,
    CARD_POINTS,
    NOBLE_NEEDS,
    NUM_CARDS,
)
from splendor_env.rules.moves import MOVE_TEXTS, NUM_MOVES
from splendor_env.rules.notation import format_position

NUM_ACTIONS = NUM_MOVES
#: Version of the feature layout and action ids; a player file made for another layout
#: cannot be loaded.
LAYOUT_VERSION = 1
MAX_PLAYERS = 4

CARD = 23
GLOBAL = 23
MARKET = GLOBAL
MY_HAND = MARKET + 12 * CARD
MY_SLOT = 5 + CARD
OTHER_HANDS = MY_HAND + 3 * MY_SLOT
OTHER_SLOT = 5
PLAYERS = OTHER_HANDS + 3 * 3 * OTHER_SLOT
PLAYER = 19
NOBLES = PLAYERS + MAX_PLAYERS * PLAYER
NOBLE = 10
UNSEEN = NOBLES + 5 * NOBLE
OBS_SIZE = UNSEEN + NUM_CARDS
OBS_SHAPE = (OBS_SIZE,)
HIDDEN_CARDS = OBS_SIZE
DECK_TOPS = HIDDEN_CARDS + 9 * CARD
DECK_PLACES = DECK_TOPS + 3 * CARD
STATE_SIZE = DECK_PLACES + NUM_CARDS
STATE_SHAPE = (STATE_SIZE,)
#: The deepest a card can lie in a deck is 35; ``1 - depth / DECK_DEPTH`` stays above 0.
DECK_DEPTH = 40.0

if (OBS_SIZE, STATE_SIZE) != (644, 1010):
    raise AssertionError("the feature layout changed: update the module doc and LAYOUT_VERSION")

# The summary (:func:`_summary`): a flat int list read by :func:`_fill`.
_S_PLAYER = 33  # per absolute seat 0-3, 24 ints each
_S_PLAYER_SIZE = 24
_S_TOPS = _S_PLAYER + MAX_PLAYERS * _S_PLAYER_SIZE  # 3 deck tops (global state only)
_S_BOUGHT = _S_TOPS + 3  # a count, then every purchased card id

# The tables (one int64 array): cost, bonus, points per card id 0-90; needs per noble 0-10.
_T_COST = 0
_T_BONUS = _T_COST + 91 * 5
_T_POINTS = _T_BONUS + 91
_T_NOBLE = _T_POINTS + 91
_TABLES = np.array(
    [v for cost in CARD_COST for v in cost]
    + [max(b, 0) for b in CARD_BONUS]
    + list(CARD_POINTS)
    + [v for need in NOBLE_NEEDS for v in need],
    dtype=np.int64,
)


def _fill(out: np.ndarray, s: np.ndarray, t: np.ndarray, full: bool) -> None:
    """Write the features (module doc) of summary ``s`` into the zeroed ``out``; with
    ``full`` the global state's hidden cards and deck tops too (:func:`_kernel`)."""
    n = s[0]
    seat = s[1]
    turn = s[2]
    to_move = s[3]
    phase = s[4]
    out[n - 2] = 1.0
    out[3 + phase] = 1.0
    out[7] = s[5]
    if to_move >= 0:
        out[8 + (to_move - seat) % n] = 1.0
    out[12] = turn / (100.0 * n)
    out[13] = min(1.0, (turn // n) / 40.0)
    count = 4.0 if n == 2 else 5.0 if n == 3 else 7.0
    for c in range(5):
        out[14 + c] = s[7 + c] / count
    out[19] = s[12] / 5.0
    out[20] = s[13] / 36.0
    out[21] = s[14] / 26.0
    out[22] = s[15] / 16.0
    # Per relative player: tokens + bonuses, gold, and its base in the summary.
    base = np.zeros(4, dtype=np.int64)
    for r in range(n):
        base[r] = 33 + 24 * ((seat + r) % n)
    # The cards to describe: (card id, offset); the market, my hand, and with full the
    # others' hands and the deck tops.
    cards = np.zeros((27, 2), dtype=np.int64)
    m = 0
    for i in range(12):
        cards[m, 0] = s[16 + i]
        cards[m, 1] = 23 + 23 * i
        m += 1
    me = base[0]
    for h in range(s[me + 14]):
        o = 299 + 28 * h
        out[o] = 1.0
        out[o + 1 + s[me + 18 + h]] = 1.0
        out[o + 4] = s[me + 21 + h]
        cards[m, 0] = s[me + 15 + h]
        cards[m, 1] = o + 5
        m += 1
    for r in range(1, n):
        b = base[r]
        for h in range(s[b + 14]):
            o = 383 + 15 * (r - 1) + 5 * h
            out[o] = 1.0
            out[o + 1 + s[b + 18 + h]] = 1.0
            out[o + 4] = s[b + 21 + h]
            if full:
                cards[m, 0] = s[b + 15 + h]
                cards[m, 1] = 644 + 69 * (r - 1) + 23 * h
                m += 1
    if full:
        for level in range(3):
            cards[m, 0] = s[129 + level]
            cards[m, 1] = 851 + 23 * level
            m += 1
    for j in range(m):
        k = cards[j, 0]
        o = cards[j, 1]
        if k <= 0:
            continue
        out[o] = 1.0
        out[o + 1 + t[455 + k]] = 1.0
        out[o + 6] = t[546 + k] / 5.0
        lack_sum = 0
        net_sum = 0
        for c in range(5):
            cost = t[k * 5 + c]
            out[o + 7 + c] = cost / 7.0
            need = cost - s[me + 6 + c]
            if need > 0:
                net_sum += need
                lack = need - s[me + c]
                if lack > 0:
                    out[o + 12 + c] = lack / 7.0
                    lack_sum += lack
        out[o + 17] = min(1.0, lack_sum / 10.0)
        if lack_sum <= s[me + 5]:
            out[o + 18] = 1.0
        out[o + 19] = min(1.0, net_sum / 15.0)
        for r in range(1, n):
            b = base[r]
            short = 0
            for c in range(5):
                lack = t[k * 5 + c] - s[b + 6 + c] - s[b + c]
                if lack > 0:
                    short += lack
            if short <= s[b + 5]:
                out[o + 19 + r] = 1.0
    # Players, and who would win now (most points, then fewest purchased cards).
    best = -1
    fewest = 1000
    for r in range(n):
        b = base[r]
        points = s[b + 11]
        if points > best or (points == best and s[b + 12] < fewest):
            best = points
            fewest = s[b + 12]
    for r in range(n):
        b = base[r]
        o = 428 + 19 * r
        out[o] = 1.0
        held = 0
        for c in range(5):
            out[o + 1 + c] = s[b + c] / 7.0
            out[o + 8 + c] = min(1.0, s[b + 6 + c] / 7.0)
            held += s[b + c]
        out[o + 6] = s[b + 5] / 5.0
        out[o + 7] = (held + s[b + 5]) / 13.0
        points = s[b + 11]
        out[o + 13] = min(1.0, points / 20.0)
        if points >= 15:
            out[o + 14] = 1.0
        out[o + 15] = min(1.0, s[b + 12] / 20.0)
        out[o + 16] = s[b + 13] / 5.0
        out[o + 17] = s[b + 14] / 3.0
        if points == best and s[b + 12] == fewest:
            out[o + 18] = 1.0
    # The table's nobles.
    for i in range(5):
        x = s[28 + i]
        if x <= 0:
            continue
        o = 504 + 10 * i
        out[o] = 1.0
        for c in range(5):
            out[o + 1 + c] = t[637 + x * 5 + c] / 4.0
        for r in range(n):
            b = base[r]
            lack = 0
            for c in range(5):
                d = t[637 + x * 5 + c] - s[b + 6 + c]
                if d > 0:
                    lack += d
            out[o + 6 + r] = lack / 9.0
    # The cards I cannot see: not in the market, my hand or anyone's purchases.
    seen = np.zeros(91, dtype=np.bool_)
    for i in range(12):
        seen[s[16 + i]] = True
    for h in range(s[me + 14]):
        seen[s[me + 15 + h]] = True
    for i in range(s[132]):
        seen[s[133 + i]] = True
    for k in range(1, 91):
        if not seen[k]:
            out[553 + k] = 1.0


if (
    _T_BONUS,
    _T_POINTS,
    _T_NOBLE,
    _S_TOPS,
    _S_BOUGHT,
    MY_HAND,
    OTHER_HANDS,
    PLAYERS,
    NOBLES,
    UNSEEN,
    DECK_TOPS,
) != (455, 546, 637, 129, 132, 299, 383, 428, 504, 554, 851):
    raise AssertionError("the offsets written out in _fill changed")

_KERNEL: list[Callable[..., None]] = []


def _kernel() -> Callable[..., None]:
    """:func:`_fill` compiled by numba (on first use; cached on disk)."""
    if not _KERNEL:
        from numba import njit

        _KERNEL.append(njit(cache=True)(_fill))
    return _KERNEL[0]


_PAD = ([0, 0, 0], [0, 0], [0], [])
_NO_LEVELS = ([-1, -1, -1], [-1, -1], [-1], [])
_ABSENT = [0] * _S_PLAYER_SIZE


def _summary(state: State, seat: int, full: bool) -> list[int]:
    """The ints :func:`_fill` reads: the position as ``seat`` sees it (hand cards of other
    seats as 0), or everything with ``full``."""
    n = state.num_players
    market = state.market
    decks = state.decks
    nobles = state.nobles
    s = [
        n,
        seat,
        state.turn,
        state.to_move,
        state.phase,
        int(state.final),
        int(full),
        *state.supply,
        len(decks[0]),
        len(decks[1]),
        len(decks[2]),
        *market[0],
        *market[1],
        *market[2],
        *nobles,
    ]
    s += [0] * (5 - len(nobles))
    bought = state.bought
    for p in range(MAX_PLAYERS):
        if p >= n:
            s += _ABSENT
            continue
        hand = state.hands[p]
        k = len(hand)
        s += state.tokens[p]
        s += state.bonus[p]
        s += (state.points[p], len(bought[p]), len(state.owned[p]), k)
        s += hand if p == seat or full else [0] * k
        s += _PAD[k]
        s += [CARD_LEVEL[c] for c in hand]
        s += _NO_LEVELS[k]
        s += state.blind[p]
        s += _PAD[k]
    if full:
        s += [d[-1] if d else 0 for d in decks]
    else:
        s += _PAD[0]
    all_bought = [c for cards in bought[:n] for c in cards]
    s.append(len(all_bought))
    s += all_bought
    return s


def check_seat(state: State, seat: object) -> int:
    """``seat`` if it is a seat of ``state``'s table; ``ValueError`` naming it otherwise."""
    n = state.num_players
    if type(seat) is not int or not 0 <= seat < n:
        raise ValueError(f"a seat of a {n}-player game is 0 to {n - 1}, got {seat!r:.80}")
    return seat


def observation(state: State, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The ``float32[644]`` features of ``state`` as ``seat`` may see it (module doc),
    written into ``out`` if given."""
    check_seat(state, seat)
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        if out.shape != OBS_SHAPE or out.dtype != np.float32:
            raise ValueError(
                f"out must be a float32 array of shape {OBS_SHAPE}, got {out.dtype} {out.shape}"
            )
        out[...] = 0.0
    _kernel()(out, np.array(_summary(state, seat, False), dtype=np.int64), _TABLES, False)
    return out


def global_state(state: State) -> np.ndarray:
    """The ``float32[1010]`` global state (module doc): everything, from seat 0's side."""
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    _kernel()(out, np.array(_summary(state, 0, True), dtype=np.int64), _TABLES, True)
    for deck in state.decks:
        size = len(deck)
        for i, card in enumerate(deck):  # the top card last
            out[DECK_PLACES + card - 1] = 1.0 - (size - 1 - i) / DECK_DEPTH
    return out


# --- actions ---------------------------------------------------------------------------------


def action_mask(state: State, seat: int) -> np.ndarray:
    """``bool[77]``, true on the legal moves of ``seat`` (all false unless it is to move)."""
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    if state.to_move == seat:
        mask[state.legal_move_ids()] = True
    return mask


def action_index(action: object) -> int | None:
    """``action`` as an index ``0..76`` (a Python or numpy integer, or a one-element integer
    array), or ``None``."""
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, np.integer):
        action = int(action)
    if type(action) is not int or not 0 <= action < NUM_ACTIONS:
        return None
    return action


def describe_legal(state: State) -> str:
    """The legal moves of the seat to move as ``"id (text)"``, ascending."""
    return ", ".join(f"{i} ({MOVE_TEXTS[i]})" for i in state.legal_move_ids()) or "none"


def checked_move_id(state: State, seat: int, action: object, who: str) -> int:
    """``action`` as a move id if it is legal for ``seat`` (to move) in ``state``; else an
    :class:`~splendor_env.rules.IllegalMoveError` naming ``who``, the move, the position as
    ``seat`` may see it (§9: no deck order, no other player's reserved card, so an error
    tells an agent nothing its observation does not) and the legal moves. Every caller that
    applies an agent's action checks it here."""
    index = action_index(action)
    if index is not None and state.to_move == seat and index in state.legal_move_ids():
        return index
    if index is None:
        raise IllegalMoveError(
            f"illegal action {action!r:.80} for {who}: expected a move id 0 to "
            f"{NUM_ACTIONS - 1}; legal: {describe_legal(state)}"
        )
    if state.to_move != seat:
        raise IllegalMoveError(
            f"illegal action {index} ({MOVE_TEXTS[index]!r}) for {who}: seat {seat} is not to "
            f"move in position {format_position(state, seat)!r}"
        )
    raise IllegalMoveError(
        f"illegal action {index} ({MOVE_TEXTS[index]!r}) for {who} (seat {seat}) in position "
        f"{format_position(state, seat)!r}; legal: {describe_legal(state)}"
    )
