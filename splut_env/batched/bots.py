"""The bots in compiled kernels, for many games at once: :class:`BatchedBot` plays
``greedy`` and ``search:easy|medium|hard``.

The same players as :class:`splut_env.players.bots.GreedyAgent` and
:class:`~splut_env.players.bots.SearchAgent` (see there): greedy enumerates the positions
its turn can end in, takes a winning or killing turn if there is one, else the
best-evaluated of the first 40 turns after which no opponent can kill its wizard with one
turn, else the best-evaluated turn; a search bot keeps ``width`` such turns and searches
each ``depth`` turns deep. Ties between equal evaluations are broken by their own random
draws (and turns are enumerated in another order), so they do not replay the scalar bots'
games move for move. Like them, they choose a whole turn at its first step and play it step
by step, choosing again if the position is not the one expected. Positions are told apart
by a 64-bit hash.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from splut_env.batched import kernels as K
from splut_env.batched.games import BatchedGames
from splut_env.players.bots import WIN, SearchAgent
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
    st = np.empty(K.WIDTH, dtype=np.int64)
    stack[0] = g
    top = 1
    ids = np.empty(K.MAX_LEGAL, dtype=np.int64)
    while top:
        top -= 1
        st[:] = stack[top]
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
            child = stack[top]
            child[:] = st
            K._apply(child, ids[k])
            if child[K.TURN] != turn:
                continue
            key = _key(child)
            if key not in seen:
                seen[key] = 1
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
def _turn_ends(g):
    """Every distinct position the current turn can end in (``ends``), each with a step
    sequence (board frame, -1 padded to 3) that reaches it (``seqs``)."""
    turn = g[K.TURN]
    seen = Dict.empty(key_type=types.int64, value_type=types.int64)
    stack = np.empty((_STACK, K.WIDTH), dtype=np.int64)
    stack_seqs = np.full((_STACK, 3), -1, dtype=np.int64)
    st = np.empty(K.WIDTH, dtype=np.int64)
    seq = np.empty(3, dtype=np.int64)
    ids = np.empty(K.MAX_LEGAL, dtype=np.int64)
    capacity = 256
    ends = np.empty((capacity, K.WIDTH), dtype=np.int64)
    seqs = np.empty((capacity, 3), dtype=np.int64)
    count = 0
    stack[0] = g
    top = 1
    while top:
        top -= 1
        st[:] = stack[top]
        seq[:] = stack_seqs[top]
        depth = 0
        while depth < 3 and seq[depth] >= 0:
            depth += 1
        n = K._legal(st, ids)
        for k in range(n):
            child = stack[top]
            child[:] = st
            K._apply(child, ids[k])
            key = _key(child)
            if key in seen:
                continue
            seen[key] = 1
            if child[K.TURN] != turn or child[K.TO_MOVE] < 0:
                if count == capacity:
                    capacity *= 2
                    grown = np.empty((capacity, K.WIDTH), dtype=np.int64)
                    grown[:count] = ends
                    ends = grown
                    grown_seqs = np.empty((capacity, 3), dtype=np.int64)
                    grown_seqs[:count] = seqs
                    seqs = grown_seqs
                ends[count] = child
                seqs[count] = seq
                seqs[count, depth] = ids[k]
                count += 1
            else:
                stack_seqs[top] = seq
                stack_seqs[top, depth] = ids[k]
                top += 1
    return ends[:count], seqs[:count]


@njit(cache=True)
def _candidates(g, ends, width, out):
    """Greedy's choice among the turn's ``ends`` (see the module doc), keeping up to
    ``width`` of them, best first, in ``out``; their number."""
    seat = g[K.TO_MOVE]
    alive = K._alive_count(g)
    count = ends.shape[0]
    scores = np.empty(count)
    for k in range(count):
        scores[k] = K._evaluate(ends[k], seat)
    # Best evaluation first, ties in random order.
    order = np.argsort(-scores + np.random.random(count) * 1e-6)
    n = 0
    for j in range(count):
        o = order[j]
        if scores[o] > -WIN and K._alive_count(ends[o]) < alive:
            out[n] = o
            n += 1
            if n == width:
                return n
    if n:
        return n
    for j in range(min(count, CANDIDATES)):
        o = order[j]
        if scores[o] > -WIN and not _exposed(ends[o], seat):
            out[n] = o
            n += 1
            if n == width:
                return n
    if n == 0:
        out[0] = order[0]
        n = 1
    return n


@njit(cache=True)
def _search(g, seat, depth, beam):
    """The search bots' value of position ``g`` for ``seat``, ``depth`` turns ahead (as
    ``splut_env.players.bots._search``)."""
    if g[K.TO_MOVE] < 0 or g[K.POS + seat * 3] < 0 or depth == 0:
        return K._evaluate(g, seat)
    mover = g[K.TO_MOVE]
    ends, _ = _turn_ends(g)
    n = ends.shape[0]
    ours = mover == seat
    if not ours and K._alive_count(g) > 2:
        best = 0
        best_value = -np.inf
        for k in range(n):
            value = K._evaluate(ends[k], mover)
            if value > best_value:
                best, best_value = k, value
        return _search(ends[best], seat, depth - 1, beam)
    values = np.empty(n)
    for k in range(n):
        values[k] = K._evaluate(ends[k], seat)
    order = np.argsort(-values if ours else values, kind="mergesort")
    if depth == 1:
        return values[order[0]]
    result = -np.inf if ours else np.inf
    for j in range(min(beam, n)):
        value = _search(ends[order[j]], seat, depth - 1, beam)
        result = max(result, value) if ours else min(result, value)
    return result


@njit(cache=True)
def _choose(g, depth, width, beam):
    """The steps (board frame, -1 padded) of the turn greedy (``depth`` 1) or a search bot
    chooses from position ``g``."""
    ends, seqs = _turn_ends(g)
    chosen = np.empty(max(width, 1), dtype=np.int64)
    n = _candidates(g, ends, width, chosen)
    if depth <= 1:
        return seqs[chosen[0]]
    seat = g[K.TO_MOVE]
    best, best_value = chosen[0], -2 * WIN
    for j in range(n):
        value = _search(ends[chosen[j]], seat, depth - 1, beam)
        if value > best_value:
            best, best_value = chosen[j], value
    return seqs[best]


@njit(cache=True)
def bot_actions(games, rows, depth, width, beam, seed, plans, expect, out):
    """``out[i]``: the bot's action (in the mover's frame) in row ``rows[i]``, -1 if over.
    A turn is chosen at its first step and played from ``plans[row]`` (the steps still to
    play, -1 padded) while the position is the one expected (``expect[row]``, its hash)."""
    np.random.seed(seed)
    after = np.empty(K.WIDTH, dtype=np.int64)
    for i in range(rows.shape[0]):
        row = rows[i]
        g = games[row]
        if g[K.TO_MOVE] < 0:
            out[i] = -1
            continue
        if plans[row, 0] >= 0 and expect[row] == _key(g):
            sid = plans[row, 0]
            plans[row, 0] = plans[row, 1]
            plans[row, 1] = plans[row, 2]
        else:
            seq = _choose(g, depth, width, beam)
            sid = seq[0]
            plans[row, 0] = seq[1]
            plans[row, 1] = seq[2]
        plans[row, 2] = -1
        if plans[row, 0] >= 0:
            after[:] = g
            K._apply(after, sid)
            expect[row] = _key(after)
        out[i] = K._ROT_ID[g[K.TO_MOVE], sid]


#: name: (depth, width, beam), as ``splut_env.players.bots``; greedy is depth 1, width 1.
LEVELS = {"greedy": (1, 1, 1), **{f"search:{k}": v for k, v in SearchAgent.LEVELS.items()}}


class BatchedBot:
    """``greedy`` or ``search:easy|medium|hard`` for the games of a :class:`BatchedGames`,
    compiled (see the module doc)."""

    def __init__(self, name: str = "greedy", seed: int | None = None) -> None:
        if name not in LEVELS:
            raise ValueError(f"unknown compiled bot {name!r}: expected one of {list(LEVELS)}")
        self.name = name
        self.depth, self.width, self.beam = LEVELS[name]
        self._rng = np.random.default_rng(seed)
        self._games: BatchedGames | None = None
        self._plans: np.ndarray | None = None
        self._expect = np.zeros(0, dtype=np.int64)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act_games(self, games: BatchedGames, rows: np.ndarray) -> np.ndarray:
        """The bot's action in each of ``rows`` (the mover's frame; -1 for a finished game).
        It remembers its planned turn per game of ``games``, one batch at a time."""
        rows = np.asarray(rows, dtype=np.int64)
        if self._plans is None or self._games is not games:
            self._games = games
            self._plans = np.full((games.size, 3), -1, dtype=np.int64)
            self._expect = np.zeros(games.size, dtype=np.int64)
        out = np.empty(rows.size, dtype=np.int64)
        seed = int(self._rng.integers(2**31))
        bot_actions(
            *(games.games, rows, self.depth, self.width, self.beam, seed),
            *(self._plans, self._expect, out),
        )
        return out

    def __repr__(self) -> str:
        return f"BatchedBot({self.name!r})"
