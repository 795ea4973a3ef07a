"""Compiled kernels of the batched engine: the rules of :mod:`splut_env.rules.engine` and the
encoding of :mod:`splut_env.encoding` over many games at once, as numba functions on one
``int64`` array with a row per game.

A row holds a whole position (the same fields as :class:`splut_env.rules.State`) at the
column offsets below. Row functions (``_legal``, ``_apply``, ...) work on one game; the
public kernels loop over the rows listed in an index array. Every kernel is compiled on its
first call and cached on disk (``cache=True``), so later processes load it in milliseconds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from splut_env.encoding import (
    FRAME_CELL,
    NUM_ACTIONS,
    PLANE_BOARD,
    PLANE_LEV,
    PLANE_LEV_AVAILABLE,
    PLANE_LOCKED,
    PLANE_MOVED,
    PLANE_ONE_STEP,
    PLANE_ROCKS,
    PLANE_TURN,
)
from splut_env.players.bots import DIST, WIN
from splut_env.rules.board import (
    CELL_KIND,
    DECODED,
    DWARF,
    DWARF_BASE,
    EMPTY,
    NEIGHBOUR,
    NUM_SQUARES,
    PULL,
    ROCK,
    ROTATE_ID,
    SEATS_IN_PLAY,
    START,
    STOPS_THROW,
    TROLL,
    TROLL_BASE,
    UNROTATE_ID,
    WIZARD,
)

# --- the row layout ------------------------------------------------------------------------

CELLS = 0  # 41 cell codes
POS = 41  # 12 piece squares, seat * 3 + kind, -1 gone
ROCKS = 53  # 4 rock squares
SEATS = 57  # the seats in play, in turn order, -1 padded to 4
NUM_SEATS = 61
TO_MOVE = 62  # seat, -1 when the game is over
TURN = 63
STEPS_LEFT = 64
LEV = 65  # -1 levitation available, -2 over for this turn, else the levitated rock's square
LOCKED = 66  # bit masks of rock squares
MOVED = 67
WIDTH = 68
#: More than the most legal steps a position can have (20 wizard, 16 troll, 4 dwarf).
MAX_LEGAL = 48

# --- tables as arrays ----------------------------------------------------------------------

_NB = np.array(NEIGHBOUR, dtype=np.int64)
_KIND = np.array(CELL_KIND, dtype=np.int64)
_STOPS = np.array(STOPS_THROW, dtype=np.bool_)
_START = np.array(START, dtype=np.int64)
_IN_PLAY = np.full((5, 4), -1, dtype=np.int64)
for _n, _seats in SEATS_IN_PLAY.items():
    _IN_PLAY[_n, : len(_seats)] = _seats
_DECODED = np.array(DECODED, dtype=np.int64)
_ROT_ID = np.array(ROTATE_ID, dtype=np.int64)
_UNROT_ID = np.array(UNROTATE_ID, dtype=np.int64)
_FRAME = np.array(FRAME_CELL, dtype=np.int64)
_DIST = np.array(DIST, dtype=np.int64)


# --- one game ------------------------------------------------------------------------------


@njit(cache=True)
def _alive_count(g):
    n = 0
    for k in range(g[NUM_SEATS]):
        if g[POS + g[SEATS + k] * 3] >= 0:
            n += 1
    return n


@njit(cache=True)
def _legal(g, out):
    """Fill ``out`` with the legal step ids (board frame) of the player to move; their count."""
    seat = g[TO_MOVE]
    if seat < 0:
        return 0
    n = 0
    base = POS + seat * 3
    w = g[base]
    lev = g[LEV]
    for d in range(4):
        t = _NB[d, w]
        if t < 0:
            continue
        t_empty = g[CELLS + t] == EMPTY
        if t_empty:
            out[n] = d * 42
            n += 1
        if lev == -2:
            continue
        for k in range(4):
            r = g[ROCKS + k]
            if lev == -1:
                if (g[LOCKED] >> r) & 1:
                    continue
            elif r != lev:
                continue
            rt = _NB[d, r]
            if rt >= 0 and (t_empty or t == r) and (g[CELLS + rt] == EMPTY or rt == w):
                out[n] = d * 42 + 1 + r
                n += 1
    x = g[base + 1]
    if x >= 0:
        for d in range(4):
            t = _NB[d, x]
            if t < 0:
                continue
            c = g[CELLS + t]
            tid = TROLL_BASE + d * 6
            if c == EMPTY:
                out[n] = tid
                n += 1
                b = _NB[d ^ 2, x]
                if b >= 0 and g[CELLS + b] == ROCK:
                    out[n] = tid + PULL
                    n += 1
            elif c == ROCK:
                for td in range(4):
                    f = _NB[td, t]
                    if f >= 0 and (f == x or not _STOPS[g[CELLS + f]]):
                        out[n] = tid + 2 + td
                        n += 1
    x = g[base + 2]
    if x >= 0:
        for d in range(4):
            t = _NB[d, x]
            while t >= 0 and g[CELLS + t] != EMPTY:
                t = _NB[d, t]
            if t >= 0:
                out[n] = DWARF_BASE + d
                n += 1
    return n


@njit(cache=True)
def _can_step(g):
    base = POS + g[TO_MOVE] * 3
    for k in range(3):
        p = g[base + k]
        if p >= 0:
            for d in range(4):
                t = _NB[d, p]
                if t >= 0 and g[CELLS + t] == EMPTY:
                    return True
    scratch = np.empty(MAX_LEGAL, dtype=np.int64)
    return _legal(g, scratch) > 0


@njit(cache=True)
def _move_rock(g, a, b):
    for k in range(4):
        if g[ROCKS + k] == a:
            g[ROCKS + k] = b
            break
    bit_a = np.int64(1) << a
    bit_b = np.int64(1) << b
    if g[LOCKED] & bit_a:
        g[LOCKED] = (g[LOCKED] & ~bit_a) | bit_b
    g[MOVED] = (g[MOVED] & ~bit_a) | bit_b


@njit(cache=True)
def _finish(g):
    g[TO_MOVE] = -1
    g[STEPS_LEFT] = 0
    g[LEV] = -1
    g[LOCKED] = g[MOVED]
    g[MOVED] = 0


@njit(cache=True)
def _next_turn(g):
    n = g[NUM_SEATS]
    idx = 0
    while g[SEATS + idx] != g[TO_MOVE]:
        idx += 1
    forfeits = 0
    while True:
        g[LOCKED] = g[MOVED]
        g[MOVED] = 0
        g[LEV] = -1
        idx = (idx + 1) % n
        while g[POS + g[SEATS + idx] * 3] < 0:
            idx = (idx + 1) % n
        g[TO_MOVE] = g[SEATS + idx]
        g[TURN] += 1
        g[STEPS_LEFT] = 3 if g[TURN] >= 3 else g[TURN]
        if _can_step(g):
            return
        forfeits += 1
        if forfeits >= _alive_count(g):
            _finish(g)
            return


@njit(cache=True)
def _flight(g, t, td, vacated):
    """Landing square of a rock thrown from ``t`` towards ``td`` (``vacated`` counts as
    empty); a wizard's square for a SPLUT!"""
    land = t
    s = _NB[td, t]
    while s >= 0:
        c = g[CELLS + s]
        if c == EMPTY or s == vacated or _KIND[c] == DWARF:
            land = s
            s = _NB[td, s]
        elif c == ROCK or _KIND[c] == TROLL:
            break
        else:
            return s
    return land


@njit(cache=True)
def _throw(g, x, t, td):
    base = POS + g[TO_MOVE] * 3
    g[CELLS + x] = EMPTY
    g[CELLS + t] = 3 + (base - POS)
    g[base + 1] = t
    land = _flight(g, t, td, x)
    c = g[CELLS + land]
    if c >= 2:
        victim = c - 2
        if _KIND[c] == WIZARD:
            for p in range(victim, victim + 3):
                if g[POS + p] >= 0:
                    g[CELLS + g[POS + p]] = EMPTY
                    g[POS + p] = -1
        else:
            g[POS + victim] = -1
    g[CELLS + land] = ROCK
    _move_rock(g, t, land)
    if _alive_count(g) == 1:
        _finish(g)
    else:
        _next_turn(g)


@njit(cache=True)
def _apply(g, sid):
    """Play legal step id ``sid`` (board frame) in place."""
    seat = g[TO_MOVE]
    base = POS + seat * 3
    code = 2 + seat * 3
    kind = _DECODED[sid, 0]
    d = _DECODED[sid, 1]
    extra = _DECODED[sid, 2]
    if kind == WIZARD:
        w = g[base]
        t = _NB[d, w]
        if extra >= 0:
            rt = _NB[d, extra]
            g[CELLS + w] = EMPTY
            g[CELLS + extra] = EMPTY
            g[CELLS + rt] = ROCK
            _move_rock(g, extra, rt)
            g[LEV] = rt
        elif g[LEV] >= 0:
            g[CELLS + w] = EMPTY
            g[LEV] = -2
        else:
            g[CELLS + w] = EMPTY
        g[CELLS + t] = code
        g[base] = t
    else:
        if g[LEV] >= 0:
            g[LEV] = -2
        x = g[base + kind]
        t = _NB[d, x]
        if kind == TROLL:
            if extra >= 2:
                _throw(g, x, t, extra - 2)
                return
            g[CELLS + x] = EMPTY
            g[CELLS + t] = code + 1
            g[base + 1] = t
            if extra == PULL:
                b = _NB[d ^ 2, x]
                g[CELLS + b] = EMPTY
                g[CELLS + x] = ROCK
                _move_rock(g, b, x)
        else:
            end = t
            while g[CELLS + end] != EMPTY:
                end = _NB[d, end]
            while end != t:
                prev = _NB[d ^ 2, end]
                c = g[CELLS + prev]
                g[CELLS + end] = c
                if c == ROCK:
                    _move_rock(g, prev, end)
                else:
                    g[POS + c - 2] = end
                end = prev
            g[CELLS + x] = EMPTY
            g[CELLS + t] = code + 2
            g[base + 2] = t
    g[STEPS_LEFT] -= 1
    if g[STEPS_LEFT] > 0 and _can_step(g):
        return
    _next_turn(g)


@njit(cache=True)
def _reset(g, num_players):
    g[:] = 0
    for k in range(12):
        g[POS + k] = -1
    for s in range(4):
        g[ROCKS + s] = _START[s, 0]
        g[CELLS + _START[s, 0]] = ROCK
        g[SEATS + s] = _IN_PLAY[num_players, s]
    g[NUM_SEATS] = num_players
    for k in range(num_players):
        s = _IN_PLAY[num_players, k]
        for kind in range(3):
            sq = _START[s, 1 + kind]
            g[POS + s * 3 + kind] = sq
            g[CELLS + sq] = 2 + s * 3 + kind
    g[TO_MOVE] = 0
    g[TURN] = 1
    g[STEPS_LEFT] = 1
    g[LEV] = -1


@njit(cache=True)
def _mask(g, seat, out, ids):
    """Set ``out`` to the legal actions of ``seat`` in its frame (``ids``: scratch)."""
    out[:] = False
    if g[TO_MOVE] != seat or seat < 0:
        return
    n = _legal(g, ids)
    for i in range(n):
        out[_ROT_ID[seat, ids[i]]] = True


@njit(cache=True)
def _refresh(g, mask, legal, counts, row, ids):
    """Bring row ``row``'s mask and its list of legal actions (``legal[row, :counts[row]]``)
    up to date with its position: the player to move's actions, in its frame."""
    for k in range(counts[row]):
        mask[row, legal[row, k]] = False
    seat = g[TO_MOVE]
    n = _legal(g, ids)
    for k in range(n):
        a = _ROT_ID[seat, ids[k]]
        mask[row, a] = True
        legal[row, k] = a
    counts[row] = n


@njit(cache=True)
def _planes(g, seat, max_turns, out):
    """The observation planes of ``seat``, flat (``float32[22 * 81]``), as ``encoding``
    makes them."""
    out[:] = 0.0
    for sq in range(NUM_SQUARES):
        out[PLANE_BOARD * 81 + _FRAME[0, sq]] = 1.0
    n = g[NUM_SEATS]
    first = 0
    while g[SEATS + first] != seat:
        first += 1
    for slot in range(n):
        base = POS + g[SEATS + (first + slot) % n] * 3
        for kind in range(3):
            sq = g[base + kind]
            if sq >= 0:
                out[(slot * 3 + kind) * 81 + _FRAME[seat, sq]] = 1.0
    for k in range(4):
        sq = g[ROCKS + k]
        c = _FRAME[seat, sq]
        out[PLANE_ROCKS * 81 + c] = 1.0
        if (g[LOCKED] >> sq) & 1:
            out[PLANE_LOCKED * 81 + c] = 1.0
        if (g[MOVED] >> sq) & 1:
            out[PLANE_MOVED * 81 + c] = 1.0
    if g[LEV] >= 0:
        out[PLANE_LEV * 81 + _FRAME[seat, g[LEV]]] = 1.0
    if g[LEV] == -1:
        out[PLANE_LEV_AVAILABLE * 81 : PLANE_LEV_AVAILABLE * 81 + 81] = 1.0
    if g[STEPS_LEFT] > 0:
        start = (PLANE_ONE_STEP + g[STEPS_LEFT] - 1) * 81
        out[start : start + 81] = 1.0
    out[PLANE_TURN * 81 : PLANE_TURN * 81 + 81] = np.float32(min(g[TURN] / max_turns, 1.0))


@njit(cache=True)
def _kill_throws(g, seat):
    x = g[POS + seat * 3 + 1]
    if x < 0:
        return 0
    kills = 0
    for d in range(4):
        t = _NB[d, x]
        if t < 0 or g[CELLS + t] != ROCK:
            continue
        for td in range(4):
            f = _NB[td, t]
            if f < 0 or (f != x and _STOPS[g[CELLS + f]]):
                continue
            c = g[CELLS + _flight(g, t, td, x)]
            if c >= 2 and _KIND[c] == WIZARD and (c - 2) // 3 != seat:
                kills += 1
    return kills


#: The evaluation's weights, in the order of :func:`_features`: dwarf alive, per rock next
#: to the troll (at most two), per square from the troll to the nearest rock, per square
#: from the troll to the nearest enemy wizard, per standing kill throw, per opponent alive
#: (:func:`splut_env.players.bots.evaluate`'s numbers).
EVAL_WEIGHTS = np.array([1.0, 0.4, 0.1, 0.1, 0.5, 3.0])


@njit(cache=True)
def _features(g, seat, w):
    """``f(seat)`` of the bots' evaluation with the weights ``w``."""
    base = POS + seat * 3
    x = g[base + 1]
    score = w[0] if g[base + 2] >= 0 else 0.0
    adjacent = 0
    for d in range(4):
        t = _NB[d, x]
        if t >= 0 and g[CELLS + t] == ROCK:
            adjacent += 1
    score += w[1] * min(adjacent, 2)
    nearest = 1000
    for k in range(4):
        nearest = min(nearest, _DIST[x, g[ROCKS + k]])
    score -= w[2] * nearest
    nearest = -1
    for k in range(g[NUM_SEATS]):
        s = g[SEATS + k]
        wiz = g[POS + s * 3]
        if s != seat and wiz >= 0 and (nearest < 0 or _DIST[x, wiz] < nearest):
            nearest = _DIST[x, wiz]
    if nearest >= 0:
        score -= w[3] * nearest
    return score + w[4] * _kill_throws(g, seat)


@njit(cache=True)
def _weighted_evaluate(g, seat, w):
    """The bots' evaluation (:func:`splut_env.players.bots.evaluate`) with the weights ``w``."""
    if g[POS + seat * 3] < 0:
        return -WIN
    total = 0.0
    others = 0
    for k in range(g[NUM_SEATS]):
        s = g[SEATS + k]
        if s != seat and g[POS + s * 3] >= 0:
            total += _features(g, s, w)
            others += 1
    if others == 0:
        return WIN
    return _features(g, seat, w) - total / others - w[5] * others


@njit(cache=True)
def _evaluate(g, seat):
    """The bots' static evaluation (:func:`splut_env.players.bots.evaluate`)."""
    return _weighted_evaluate(g, seat, EVAL_WEIGHTS)


# --- many games ------------------------------------------------------------------------------


@njit(cache=True)
def reset_games(games, masks, legal, counts, rows, num_players):
    """Start positions for ``num_players[i]`` players in the listed rows, and their masks."""
    ids = np.empty(MAX_LEGAL, dtype=np.int64)
    for i in range(rows.shape[0]):
        _reset(games[rows[i]], num_players[i])
        _refresh(games[rows[i]], masks, legal, counts, rows[i], ids)


@njit(cache=True)
def refresh(games, masks, legal, counts, rows):
    """Recompute the masks and legal lists of the listed rows (after a position was set)."""
    ids = np.empty(MAX_LEGAL, dtype=np.int64)
    for i in range(rows.shape[0]):
        _refresh(games[rows[i]], masks, legal, counts, rows[i], ids)


@njit(cache=True)
def seat_masks(games, rows, seats, out):
    """``out[i]``: the legal actions of ``seats[i]`` in row ``rows[i]``, in that seat's frame
    (all false when it is not to move)."""
    ids = np.empty(MAX_LEGAL, dtype=np.int64)
    for i in range(rows.shape[0]):
        _mask(games[rows[i]], seats[i], out[i], ids)


@njit(cache=True)
def planes(games, rows, seats, max_turns, out):
    """``out[i]`` (``float32[22 * 81]``): the observation planes of ``seats[i]``."""
    for i in range(rows.shape[0]):
        _planes(games[rows[i]], seats[i], max_turns, out[i])


@njit(cache=True)
def step(games, masks, legal, counts, rows, actions, max_turns, rewards, terminated, truncated):
    """Play ``actions[i]`` (in the frame of the player to move, legal by ``masks``) in row
    ``rows[i]`` and update its mask; fill the per-seat rewards (+1 the winner, -1 a seat
    eliminated by this step), ``terminated`` and ``truncated`` (turn beyond ``max_turns``).
    Returns the index ``i`` of the first illegal action, or -1; with an illegal action no
    game is changed."""
    for i in range(rows.shape[0]):
        a = actions[i]
        if a < 0 or a >= NUM_ACTIONS or not masks[rows[i], a]:
            return i
    ids = np.empty(MAX_LEGAL, dtype=np.int64)
    for i in range(rows.shape[0]):
        g = games[rows[i]]
        alive = 0
        for s in range(4):
            if g[POS + s * 3] >= 0:
                alive |= 1 << s
        _apply(g, _UNROT_ID[g[TO_MOVE], actions[i]])
        for s in range(4):
            rewards[i, s] = -1.0 if (alive >> s) & 1 and g[POS + s * 3] < 0 else 0.0
        over = g[TO_MOVE] < 0
        if over and _alive_count(g) == 1:
            for k in range(g[NUM_SEATS]):
                s = g[SEATS + k]
                if g[POS + s * 3] >= 0:
                    rewards[i, s] = 1.0
        terminated[i] = over
        truncated[i] = not over and g[TURN] > max_turns
        _refresh(g, masks, legal, counts, rows[i], ids)
    return -1


@njit(cache=True)
def random_actions(legal, counts, rows, uniforms, out):
    """``out[i]``: a uniformly random legal action of row ``rows[i]``'s player to move
    (``uniforms[i]`` in [0, 1) picks it); -1 when the game is over."""
    for i in range(rows.shape[0]):
        n = counts[rows[i]]
        out[i] = legal[rows[i], min(int(uniforms[i] * n), n - 1)] if n else -1


@njit(cache=True)
def evaluate(games, rows, seats, out):
    """``out[i]``: the bots' static evaluation of row ``rows[i]`` for ``seats[i]``."""
    for i in range(rows.shape[0]):
        out[i] = _evaluate(games[rows[i]], seats[i])


@njit(cache=True)
def perft(g, depth):
    """The number of step sequences of ``depth`` steps from the position in row ``g`` (a
    finished game is one leaf)."""
    if depth == 0 or g[TO_MOVE] < 0:
        return 1
    ids = np.empty(MAX_LEGAL, dtype=np.int64)
    n = _legal(g, ids)
    if depth == 1:
        return n
    total = 0
    child = np.empty_like(g)
    for k in range(n):
        child[:] = g
        _apply(child, ids[k])
        total += perft(child, depth - 1)
    return total
