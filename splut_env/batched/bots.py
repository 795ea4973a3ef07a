"""The bots in compiled kernels, for many games at once (:class:`BatchedBot`) or one game
at a time (:class:`CompiledAgent`, how ``make_agent`` plays them): ``greedy``,
``search:easy|medium|hard`` and ``search:expert``.

``greedy`` and the search levels are the same players as
:class:`splut_env.players.bots.GreedyAgent` and :class:`~splut_env.players.bots.SearchAgent`
(see there): greedy enumerates the positions its turn can end in, takes a winning or killing
turn if there is one, else the best-evaluated of the first 40 turns after which no opponent
can kill its wizard with one turn, else the best-evaluated turn; a search bot keeps
``width`` such turns and searches each ``depth`` turns deep. Ties between equal evaluations
are broken by their own random draws (and turns are enumerated in another order), so they
do not replay the scalar bots' games move for move. Like them, they choose a whole turn at
its first step and play it step by step, choosing again if the position is not the one
expected. Positions are told apart by a 64-bit hash.

``search:expert`` searches whole turns with alpha-beta (paranoid: with 3 or 4 players every
opponent minimises its value), by iterative deepening, one more turn of depth at a time
while its budget of :data:`EXPERT_NODES` positions lasts (up to :data:`EXPERT_DEPTH` turns).
A transposition table of the positions turns end in keeps each position's best turn, which
is searched first next time; the other turns are ordered by the evaluation. Every leaf is
extended by one exact turn: a leaf where the player to move can kill the searching seat's
wizard is a loss, one where the searching seat, with one opponent left, can kill it is a
win. Decided values (wins and losses found by the search, sooner ones worth more) end the
deepening. The evaluation is the bots' with weights tuned by matches
(:data:`EXPERT_WEIGHTS`); :class:`BatchedBot` takes other weights. Turns of equal value are
searched in random order, or in the order of a ranking given to
:meth:`BatchedBot.plan_ranked` (how :mod:`splut_env.players.guided` lets a network choose
among them).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from splut_env.batched import kernels as K
from splut_env.batched.games import BatchedGames
from splut_env.players.bots import WIN, SearchAgent, TurnPlanner
from splut_env.rules.board import NUM_STEP_IDS, TROLL_BASE
from splut_env.rules.engine import State

#: Greedy looks for a safe turn among this many of its best-evaluated turns.
CANDIDATES = 40
_STACK = 160  # a turn is at most 3 steps of at most MAX_LEGAL children each
_SET_SIZE = 2048  # the first size of a turn's set of seen positions (a power of 2)


@njit(cache=True)
def _add(table, count, key):
    """Add ``key`` to the open-addressing hash set ``table`` holding ``count`` keys (0 marks a
    free slot, so key 0 is stored as 1): the table, grown (:func:`_grown`) before it is half
    full, and its new count (``count`` + 1 if the key was new)."""
    if 2 * (count + 1) > table.shape[0]:
        table = _grown(table)
    key = key if key != 0 else np.int64(1)
    i = _slot(table, key)
    if table[i] == key:
        return table, count
    table[i] = key
    return table, count + 1


@njit(cache=True)
def _slot(table, key):
    """The slot of ``key`` (not 0) in ``table``, or the free one where it belongs."""
    mask = table.shape[0] - 1
    i = key & mask
    while table[i] != 0 and table[i] != key:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _grown(table):
    """``table``'s keys in a set twice its size."""
    bigger = np.zeros(table.shape[0] * 2, dtype=np.int64)
    for key in table:
        if key != 0:
            bigger[_slot(bigger, key)] = key
    return bigger


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
    seen = np.zeros(_SET_SIZE, dtype=np.int64)
    count = 0
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
            seen, added = _add(seen, count, _key(child))
            if added > count:
                count = added
                top += 1
    return False


@njit(cache=True)
def _probe(g, seat):
    """``g`` with ``seat`` to move a whole fresh turn, as if the player to move passed."""
    probe = g.copy()
    probe[K.TO_MOVE] = seat
    probe[K.STEPS_LEFT] = 3
    probe[K.LEV] = -1
    probe[K.LOCKED] = 0
    probe[K.MOVED] = 0
    return probe


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
        if _threatens(_probe(g, other), seat):
            return True
    return False


@njit(cache=True)
def _turn_ends(g):
    """Every distinct position the current turn can end in (``ends``), each with a step
    sequence (board frame, -1 padded to 3) that reaches it (``seqs``)."""
    turn = g[K.TURN]
    seen = np.zeros(_SET_SIZE, dtype=np.int64)
    distinct = 0
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
            seen, added = _add(seen, distinct, _key(child))
            if added == distinct:
                continue
            distinct = added
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
def _choose(g, depth, width, beam, nodes, weights, tt, tt_value):
    """The steps (board frame, -1 padded) of the turn greedy (``depth`` 1), a search bot, or
    the expert (``nodes`` > 0) chooses from position ``g``."""
    if nodes > 0:
        return _expert_choose(g, depth, nodes, weights, tt, tt_value)
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


# --- the expert: iterative deepening alpha-beta over whole turns -----------------------------

#: The expert's evaluation weights (:data:`~splut_env.batched.kernels.EVAL_WEIGHTS`'s order),
#: tuned by matches from the bots' own (``python -m training.tune``: 90 SPSA iterations of
#: 64 games at 300 nodes, ``results/tune_expert/``; 65.8 % against the bots' weights over
#: 200 games at 1,000 nodes).
EXPERT_WEIGHTS = (1.0, 0.212, 0.0646, 0.1234, 0.4757, 3.0)
_EXACT, _LOWER, _UPPER = 0, 1, 2
_TT_SIZE = 1 << 17
#: A value this close to ``WIN`` is a forced win or loss found by the search.
_DECIDED = WIN - 100


@njit(cache=True)
def _terminal_value(g, seat, ply):
    """A finished game (or ``seat`` out) seen ``ply`` turns from the root; quicker wins and
    slower losses are worth more."""
    if g[K.POS + seat * 3] < 0:
        return -WIN + ply
    if K._alive_count(g) == 1:
        return WIN - ply
    return 0.0


@njit(cache=True)
def _leaf(g, seat, ply, w):
    """A search leaf for ``seat``, extended by one exact turn: lost if the player to move can
    kill ``seat``'s wizard with its turn, won if it is ``seat`` with one opponent left that it
    can kill; else the weighted evaluation."""
    mover = g[K.TO_MOVE]
    if mover != seat:
        if _threatens(g, seat):
            return -WIN + ply + 1
    elif K._alive_count(g) == 2:
        for k in range(g[K.NUM_SEATS]):
            s = g[K.SEATS + k]
            if s != seat and g[K.POS + s * 3] >= 0 and _threatens(g, s):
                return WIN - ply - 1
    return K._weighted_evaluate(g, seat, w)


@njit(
    "float64(int64[::1], int64, int64, float64, float64, int64, float64[::1], int64[:, ::1],"
    " float64[::1], int64[::1])",
    cache=True,
)
def _alphabeta(g, seat, depth, alpha, beta, ply, w, tt, tt_value, budget):
    """The value of ``g`` for ``seat`` searched ``depth`` turns deep (paranoid: every
    opponent minimises it), with a transposition table of the positions turns end in and
    the best turn first. ``budget``: nodes used, the limit, and 1 once it ran out (then the
    value means nothing)."""
    if g[K.TO_MOVE] < 0 or g[K.POS + seat * 3] < 0:
        return _terminal_value(g, seat, ply)
    budget[0] += 1
    if depth == 0:
        return _leaf(g, seat, ply, w)
    if budget[0] > budget[1]:
        budget[2] = 1
        return 0.0
    key = _key(g)
    slot = key & (tt.shape[0] - 1)
    first = -1
    if tt[slot, 0] == key:
        first = tt[slot, 3]
        if tt[slot, 1] >= depth:
            value, flag = tt_value[slot], tt[slot, 2]
            if (
                flag == _EXACT
                or (flag == _LOWER and value >= beta)
                or (flag == _UPPER and value <= alpha)
            ):
                return value
    ends, _ = _turn_ends(g)
    n = ends.shape[0]
    ours = g[K.TO_MOVE] == seat
    keys = np.empty(n)
    for k in range(n):
        value = K._weighted_evaluate(ends[k], seat, w)
        keys[k] = -value if ours else value
    if 0 <= first < n:
        keys[first] = -np.inf
    order = np.argsort(keys)
    low, high = alpha, beta
    best = order[0]
    result = -np.inf if ours else np.inf
    for j in range(n):
        k = order[j]
        value = _alphabeta(ends[k], seat, depth - 1, alpha, beta, ply + 1, w, tt, tt_value, budget)
        if budget[2]:
            return 0.0
        if ours and value > result:
            result, best = value, k
            alpha = max(alpha, value)
        elif not ours and value < result:
            result, best = value, k
            beta = min(beta, value)
        if alpha >= beta:
            break
    flag = _EXACT
    if result <= low:
        flag = _UPPER
    elif result >= high:
        flag = _LOWER
    tt[slot, 0], tt[slot, 1], tt[slot, 2], tt[slot, 3] = key, depth, flag, best
    tt_value[slot] = result
    return result


@njit(cache=True)
def _expert_choose(g, max_depth, nodes, w, tt, tt_value):
    """The expert's turn from ``g`` (:func:`_expert_search` over all of the turn's ends, ties
    broken at random)."""
    ends, seqs = _turn_ends(g)
    return seqs[_expert_search(g, ends, np.empty(0), max_depth, nodes, w, tt, tt_value)]


@njit(cache=True)
def _ranked_order(values, rank):
    """Indices of ``values``, highest first; ties in the order of ``rank`` (highest first),
    or in random order where ``rank`` is empty."""
    n = values.shape[0]
    if rank.shape[0] == 0:
        return np.argsort(-values + np.random.random(n) * 1e-6, kind="mergesort")
    by_rank = np.argsort(-rank, kind="mergesort")
    return by_rank[np.argsort(-values[by_rank], kind="mergesort")]


@njit(cache=True)
def _expert_search(g, ends, rank, max_depth, nodes, w, tt, tt_value):
    """The index in ``ends`` of the expert's turn from ``g``: iterative deepening, one more
    turn of depth while the node budget lasts (the best turn of a search cut short is kept
    if it searched the last iteration's best first), stopping once a win or loss is forced.
    Turns of equal value are searched, and so chosen, in the order of ``rank`` (one number
    per end, higher first; at random if empty)."""
    seat = g[K.TO_MOVE]
    n = ends.shape[0]
    static = np.empty(n)
    for k in range(n):
        static[k] = K._weighted_evaluate(ends[k], seat, w)
    order = _ranked_order(static, rank)
    if n == 1 or static[order[0]] >= WIN:
        return order[0]
    tt[:, 0] = 0
    budget = np.array([0, nodes, 0], dtype=np.int64)
    best = order[0]
    values = np.empty(n)
    for depth in range(1, max_depth + 1):
        alpha = -np.inf
        found = -1
        values[:] = -np.inf
        for j in range(n):
            k = order[j]
            value = _alphabeta(ends[k], seat, depth - 1, alpha, np.inf, 1, w, tt, tt_value, budget)
            if budget[2]:
                break
            values[k] = value
            if value > alpha:
                alpha, found = value, k
        if found >= 0:
            best = found
        if budget[2] or abs(alpha) >= _DECIDED:
            break
        order = _ranked_order(values, rank)
    return best


@njit(cache=True)
def _turn_steps(g, depth, width, beam, nodes, weights, tt, tt_value, out):
    """``out[a]`` (the mover's frame): whether legal step ``a`` begins a way to the position
    the bot's chosen turn from ``g`` ends in (any order of the same steps, or other steps to
    the same position)."""
    out[:] = False
    seat = g[K.TO_MOVE]
    if seat < 0:
        return
    seq = _choose(g, depth, width, beam, nodes, weights, tt, tt_value)
    end = g.copy()
    for sid in seq:
        if sid >= 0:
            K._apply(end, sid)
    target = _key(end)
    ids = np.empty(K.MAX_LEGAL, dtype=np.int64)
    child = np.empty(K.WIDTH, dtype=np.int64)
    for k in range(K._legal(g, ids)):
        child[:] = g
        K._apply(child, ids[k])
        if child[K.TURN] != g[K.TURN] or child[K.TO_MOVE] < 0:
            reaches = _key(child) == target
        else:
            reaches = False
            for end in _turn_ends(child)[0]:
                if _key(end) == target:
                    reaches = True
                    break
        out[K._ROT_ID[seat, ids[k]]] = reaches


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


@njit(cache=True)
def bot_actions(games, rows, params, weights, tt, tt_value, seed, plans, expect, out):
    """``out[i]``: the bot's action (in the mover's frame) in row ``rows[i]``, -1 if over.
    A turn is chosen at its first step and played from ``plans[row]`` (the steps still to
    play, -1 padded) while the position is the one expected (``expect[row]``, its hash)."""
    depth, width, beam, nodes = params[0], params[1], params[2], params[3]
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
            seq = _choose(g, depth, width, beam, nodes, weights, tt, tt_value)
            sid = seq[0]
            plans[row, 0] = seq[1]
            plans[row, 1] = seq[2]
        plans[row, 2] = -1
        if plans[row, 0] >= 0:
            after[:] = g
            K._apply(after, sid)
            expect[row] = _key(after)
        out[i] = K._ROT_ID[g[K.TO_MOVE], sid]


#: The expert's budget: at most this many turns deep, and this many positions searched.
EXPERT_DEPTH, EXPERT_NODES = 8, 4000

#: name: (depth, width, beam, nodes); greedy is depth 1, width 1; the search bots as
#: ``splut_env.players.bots``; ``nodes`` > 0 is the expert's alpha-beta.
LEVELS = {
    "greedy": (1, 1, 1, 0),
    **{f"search:{k}": (*v, 0) for k, v in SearchAgent.LEVELS.items()},
    "search:expert": (EXPERT_DEPTH, 0, 0, EXPERT_NODES),
}


class BatchedBot:
    """``greedy``, ``search:easy|medium|hard`` or ``search:expert`` for the games of a
    :class:`BatchedGames`, compiled (see the module doc). ``weights`` replaces the expert's
    evaluation weights (:data:`EXPERT_WEIGHTS`)."""

    def __init__(
        self,
        name: str = "greedy",
        seed: int | None = None,
        weights: tuple[float, ...] | None = None,
        nodes: int | None = None,
    ) -> None:
        if name not in LEVELS:
            raise ValueError(f"unknown compiled bot {name!r}: expected one of {list(LEVELS)}")
        self.name = name
        self.params = np.array(LEVELS[name], dtype=np.int64)
        if nodes is not None:
            if self.params[3] == 0 or nodes < 1:
                raise ValueError(f"a node budget ({nodes!r}) is for search:expert, at least 1")
            self.params[3] = nodes
        self.weights = np.array(EXPERT_WEIGHTS if weights is None else weights, dtype=np.float64)
        if self.weights.shape != (len(EXPERT_WEIGHTS),):
            raise ValueError(
                f"expert weights {weights!r}: expected {len(EXPERT_WEIGHTS)} numbers "
                "(dwarf, rock next to troll, rock distance, wizard distance, kill throw, opponent)"
            )
        size = _TT_SIZE if self.params[3] else 1
        self._tt = np.zeros((size, 4), dtype=np.int64)
        self._tt_value = np.zeros(size)
        self._rng = np.random.default_rng(seed)
        self._games: BatchedGames | None = None
        self._single: BatchedGames | None = None
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
            *(games.games, rows, self.params, self.weights, self._tt, self._tt_value, seed),
            *(self._plans, self._expect, out),
        )
        return out

    def plan_turn(self, state: State) -> tuple[int, ...]:
        """The step ids (board frame) of the turn the bot plays from ``state``."""
        depth, width, beam, nodes = (int(v) for v in self.params)
        seq = _choose(self._row(state), depth, width, beam, nodes, self.weights, self._tt,
                      self._tt_value)  # fmt: skip
        return tuple(int(sid) for sid in seq if sid >= 0)

    def plan_ranked(
        self, state: State, rank: Callable[[list[tuple[int, ...]]], np.ndarray]
    ) -> tuple[int, ...]:
        """The expert's turn from ``state`` with its ties broken by ``rank``: called with a
        step sequence (board frame) to each distinct position the turn can end in, it
        returns one number per sequence, higher preferred among turns the search values
        equally."""
        if self.params[3] == 0:
            raise ValueError(f"{self.name!r} does not search by alpha-beta; only search:expert")
        g = self._row(state)
        ends, seqs = _turn_ends(g)
        turns = [tuple(int(sid) for sid in seq if sid >= 0) for seq in seqs]
        values = np.asarray(rank(turns), dtype=np.float64)
        if values.shape != (len(turns),):
            raise ValueError(f"rank gave {values.shape} numbers for {len(turns)} turns")
        best = _expert_search(
            g, ends, values, self.params[0], self.params[3], self.weights, self._tt, self._tt_value
        )
        return turns[best]

    def turn_steps(self, state: State) -> np.ndarray:
        """``bool[NUM_STEP_IDS]`` over the actions of ``state``'s mover (its frame): the
        legal steps that begin a way to the position the turn the bot chooses from
        ``state`` ends in; all False once the game is over."""
        g = self._row(state)
        out = np.zeros(NUM_STEP_IDS, dtype=np.bool_)
        _turn_steps(g, *(int(v) for v in self.params), self.weights, self._tt, self._tt_value, out)
        return out

    def _row(self, state: State) -> np.ndarray:
        if self._single is None:
            self._single = BatchedGames(1, len(state.seats))
        self._single.set_state(0, state)
        _seed(int(self._rng.integers(2**31)))
        return self._single.games[0]

    def __repr__(self) -> str:
        return f"BatchedBot({self.name!r})"


class CompiledAgent(TurnPlanner):
    """A compiled bot as a scalar :class:`~tabletop.agents.Agent`, one game at a
    time: how ``make_agent`` plays ``search:easy|medium|hard|expert``."""

    def __init__(
        self, name: str = "search:expert", seed: int | None = None, nodes: int | None = None
    ) -> None:
        super().__init__(seed)
        self.name = name if nodes is None else f"{name}={nodes}"
        self.level = name.partition(":")[2]
        self._bot = BatchedBot(name, seed=seed, nodes=nodes)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._bot.reset(seed)

    def plan_turn(self, state: State) -> tuple[int, ...]:
        return self._bot.plan_turn(state)


def easy(seed: int | None = None) -> CompiledAgent:
    """``search:easy``."""
    return CompiledAgent("search:easy", seed=seed)


def medium(seed: int | None = None) -> CompiledAgent:
    """``search:medium``."""
    return CompiledAgent("search:medium", seed=seed)


def hard(seed: int | None = None) -> CompiledAgent:
    """``search:hard``."""
    return CompiledAgent("search:hard", seed=seed)


def expert(seed: int | None = None, budget: int | None = None) -> CompiledAgent:
    """``search:expert``: iterative deepening alpha-beta over whole turns (see the module
    doc); ``search:expert=N`` searches ``budget`` = N positions per turn instead of
    :data:`EXPERT_NODES`."""
    return CompiledAgent("search:expert", seed=seed, nodes=budget)
