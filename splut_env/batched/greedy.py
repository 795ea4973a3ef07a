"""``greedy`` in compiled kernels, for many games at once: :class:`BatchedGreedy`.

The same player as :class:`splut_env.players.bots.GreedyAgent` (see there): it enumerates
the positions its turn can end in, takes a winning or killing turn if there is one, else
the best-evaluated of the first 40 turns after which no opponent can kill its wizard with
one turn, else the best-evaluated turn. Ties between equal evaluations are broken by its own
random draws, so it does not replay the scalar bot's games move for move. It keeps no plan:
at every step it chooses the turn again from the position and plays that turn's first step
(turns found from mid-turn positions are the rest of the turns found at its start, so the
choice is the same up to those ties). End positions are told apart by a 64-bit hash.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from splut_env.batched import kernels as K
from splut_env.batched.games import BatchedGames
from splut_env.players.bots import WIN
from splut_env.rules.board import TROLL_BASE

#: Greedy looks for a safe turn among this many of its best-evaluated turns.
CANDIDATES = 40
_STACK = 160  # a turn is at most 3 steps of at most MAX_LEGAL children each


@njit(cache=True)
def _key(g):
    """A 64-bit hash of everything that defines the position (``State.key()``)."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for k in range(K.CELLS, K.CELLS + 41):
        h = (h ^ np.uint64(g[k] + 1)) * np.uint64(0x100000001B3)
    for k in (K.TO_MOVE, K.TURN, K.STEPS_LEFT, K.LEV, K.LOCKED, K.MOVED):
        h = (h ^ np.uint64(g[k] + 3)) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return np.int64(h)


@njit(cache=True)
def _is_throw(sid):
    return sid >= TROLL_BASE and sid < TROLL_BASE + 24 and (sid - TROLL_BASE) % 6 >= 2


@njit(cache=True)
def _threatens(g, victim):
    """Whether the player to move can kill ``victim``'s wizard within its current turn."""
    mover = g[K.TO_MOVE]
    if mover < 0 or mover == victim:
        return False
    target = 2 + victim * 3
    turn = g[K.TURN]
    seen = Dict.empty(key_type=types.int64, value_type=types.int64)
    stack = np.empty((_STACK, K.WIDTH), dtype=np.int64)
    stack[0] = g
    top = 1
    ids = np.empty(K.MAX_LEGAL, dtype=np.int64)
    while top:
        top -= 1
        st = stack[top].copy()
        n = K._legal(st, ids)
        x = st[K.POS + st[K.TO_MOVE] * 3 + 1]
        for k in range(n):
            sid = ids[k]
            if _is_throw(sid):
                d = (sid - TROLL_BASE) // 6
                land = K._flight(st, K._NB[d, x], (sid - TROLL_BASE) % 6 - 2, x)
                if st[K.CELLS + land] == target:
                    return True
        if st[K.STEPS_LEFT] <= 1:
            continue
        for k in range(n):
            if _is_throw(ids[k]):
                continue
            child = st.copy()
            K._apply(child, ids[k])
            if child[K.TURN] != turn:
                continue
            key = _key(child)
            if key not in seen:
                seen[key] = 1
                stack[top] = child
                top += 1
    return False


@njit(cache=True)
def _exposed(g, seat):
    """Whether an opponent could kill ``seat``'s wizard with a full turn (as
    :func:`splut_env.players.tactics.exposed`)."""
    if _threatens(g, seat):
        return True
    for k in range(g[K.NUM_SEATS]):
        other = g[K.SEATS + k]
        if other == seat or other == g[K.TO_MOVE] or g[K.POS + other * 3] < 0:
            continue
        probe = g.copy()
        probe[K.TO_MOVE] = other
        probe[K.STEPS_LEFT] = 3
        probe[K.LEV] = -1
        probe[K.LOCKED] = 0
        probe[K.MOVED] = 0
        if _threatens(probe, seat):
            return True
    return False


@njit(cache=True)
def _choose(g, ids):
    """The first step (board frame) of greedy's turn from position ``g``."""
    seat = g[K.TO_MOVE]
    turn = g[K.TURN]
    alive = K._alive_count(g)
    seen = Dict.empty(key_type=types.int64, value_type=types.int64)
    stack = np.empty((_STACK, K.WIDTH), dtype=np.int64)
    first = np.empty(_STACK, dtype=np.int64)
    capacity = 1024
    scores = np.empty(capacity)
    firsts = np.empty(capacity, dtype=np.int64)
    kills = np.empty(capacity, dtype=np.bool_)
    ends = np.empty((capacity, K.WIDTH), dtype=np.int64)
    count = 0
    stack[0] = g
    first[0] = -1
    top = 1
    while top:
        top -= 1
        st = stack[top].copy()
        head = first[top]
        n = K._legal(st, ids)
        for k in range(n):
            child = st.copy()
            K._apply(child, ids[k])
            key = _key(child)
            if key in seen:
                continue
            seen[key] = 1
            step = ids[k] if head < 0 else head
            if child[K.TURN] != turn or child[K.TO_MOVE] < 0:
                if count == capacity:
                    capacity *= 2
                    scores = np.concatenate((scores, np.empty(capacity - count)))
                    firsts = np.concatenate((firsts, np.empty(capacity - count, np.int64)))
                    kills = np.concatenate((kills, np.empty(capacity - count, np.bool_)))
                    ends = np.concatenate((ends, np.empty((capacity - count, K.WIDTH), np.int64)))
                value = K._evaluate(child, seat)
                scores[count] = value
                firsts[count] = step
                kills[count] = value > -WIN and K._alive_count(child) < alive
                ends[count] = child
                count += 1
            else:
                stack[top] = child
                first[top] = step
                top += 1
    # Best evaluation first, ties in random order.
    order = np.argsort(-scores[:count] + np.random.random(count) * 1e-6)
    for j in range(count):
        if kills[order[j]]:
            return firsts[order[j]]
    for j in range(min(count, CANDIDATES)):
        o = order[j]
        if scores[o] > -WIN and not _exposed(ends[o], seat):
            return firsts[o]
    return firsts[order[0]]


@njit(cache=True)
def greedy_actions(games, rows, seed, out):
    """``out[i]``: greedy's action (in the mover's frame) in row ``rows[i]``, -1 if over."""
    np.random.seed(seed)
    ids = np.empty(K.MAX_LEGAL, dtype=np.int64)
    for i in range(rows.shape[0]):
        g = games[rows[i]]
        if g[K.TO_MOVE] < 0:
            out[i] = -1
        else:
            out[i] = K._ROT_ID[g[K.TO_MOVE], _choose(g, ids)]


class BatchedGreedy:
    """``greedy`` for the games of a :class:`BatchedGames`, compiled (see the module doc)."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act_games(self, games: BatchedGames, rows: np.ndarray) -> np.ndarray:
        """Greedy's action in each of ``rows`` (the mover's frame; -1 for a finished game)."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.empty(rows.size, dtype=np.int64)
        greedy_actions(games.games, rows, int(self._rng.integers(2**31)), out)
        return out
