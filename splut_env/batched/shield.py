"""The shield's searches (:class:`splut_env.players.tactics.ShieldTactics`) in compiled
kernels: the same exact searches (:func:`~splut_env.players.tactics.exposed`,
:func:`~splut_env.players.tactics.forced_win`, :func:`~splut_env.players.tactics.forced_loss`),
several times faster. Checkpoints played under the shield (``path.zip:shield``) use
:class:`CompiledTactics`."""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from splut_env.batched import kernels as K
from splut_env.batched.bots import _exposed, _key, _probe, _threatens, _turn_ends
from splut_env.batched.games import BatchedGames
from splut_env.players.tactics import ShieldTactics
from splut_env.rules.engine import State

_MEMO = types.DictType(types.int64, types.int64)


#: What :meth:`CompiledTactics.escapes` may spend per turn, in one-turn kill checks (about
#: 25 µs each; listing a turn's end positions counts as 40): once it is spent, it stops
#: looking for forced losses.
ESCAPE_SEARCHES = 6000
_ENDS_COST = 40
_UNLIMITED = 1 << 60


@njit(cache=True)
def _parried(g, victim, budget):
    """Whether ``victim`` (to move) has a turn after which it is alive and the next player
    cannot kill it; turns that move its wizard are tried first (they parry most threats).
    Each kill check spends one of ``budget[0]``; ``True`` once they are spent."""
    budget[0] -= _ENDS_COST
    ends, _ = _turn_ends(g)
    wizard = g[K.POS + victim * 3]
    for moved in (True, False):
        for k in range(ends.shape[0]):
            square = ends[k, K.POS + victim * 3]
            if square < 0 or (square != wizard) != moved:
                continue
            budget[0] -= 1
            if budget[0] < 0 or not _threatens(ends[k], victim):
                return True
    return False


@njit(cache=True)
def _forced_win(g, seat):
    """As :func:`splut_env.players.tactics.forced_win`."""
    victim = g[K.TO_MOVE]
    if victim < 0 or victim == seat or K._alive_count(g) != 2:
        return False
    return not _parried(g, victim, np.array([_UNLIMITED]))


@njit(
    types.int64(
        types.int64[::1], types.int64, types.int64, types.int64, types.int64, _MEMO, types.boolean
    ),
    cache=True,
)
def _after(g, sid, seat, alive, turn, memo, forced):
    """The best tier the turn can reach after step ``sid`` from ``g`` (-1: our wizard
    dies), memoised by position (``ShieldedAgent._after``); without ``forced``, forced wins
    are not looked for (no tier 2: those turns are safe, tier 1)."""
    child = g.copy()
    K._apply(child, sid)
    key = _key(child)
    if key in memo:
        return memo[key]
    if child[K.TURN] == turn and child[K.TO_MOVE] >= 0:  # the turn goes on
        tier = -1
        ids = np.empty(K.MAX_LEGAL, dtype=np.int64)
        n = K._legal(child, ids)
        for k in range(n):
            tier = max(tier, _after(child, ids[k], seat, alive, turn, memo, forced))
            if tier == 3:
                break
    elif child[K.POS + seat * 3] < 0:
        tier = -1
    elif child[K.TO_MOVE] < 0 or K._alive_count(child) < alive:
        tier = 3
    elif _exposed(child, seat):
        tier = 0
    else:
        tier = 2 if forced and _forced_win(child, seat) else 1
    memo[key] = tier
    return tier


@njit(cache=True)
def _tiers(g, ids, out, memo, forced=True):
    """``out[k]``: the tier of legal step ``ids[k]`` of ``g``; their number. ``memo`` holds
    the tiers of the turn's positions seen so far."""
    n = K._legal(g, ids)
    seat, alive, turn = g[K.TO_MOVE], K._alive_count(g), g[K.TURN]
    for k in range(n):
        out[k] = _after(g, ids[k], seat, alive, turn, memo, forced)
    return n


@njit(cache=True)
def _forced_loss(g, seat, budget):
    """As :func:`splut_env.players.tactics.forced_loss`, each kill check spending one of
    ``budget[0]``; ``False`` (none found) once they are spent."""
    opponent = g[K.TO_MOVE]
    if opponent < 0 or opponent == seat or K._alive_count(g) != 2:
        return False
    budget[0] -= _ENDS_COST
    ends, _ = _turn_ends(g)
    for k in range(ends.shape[0]):
        end = ends[k]
        if end[K.POS + seat * 3] < 0:
            return True
        if end[K.TO_MOVE] < 0:
            continue
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if end[K.TO_MOVE] == opponent:  # seat had no legal step: its turn was forfeited
            if _threatens(end, seat):
                return True
        elif _threatens(_probe(end, opponent), seat) and not _parried(end, seat, budget):
            return budget[0] >= 0
    return False


@njit(cache=True)
def _escapes(g, sid, memo, budget):
    """As :meth:`splut_env.players.tactics.ShieldTactics.escapes`; ``budget[0]``: the kill
    checks left this turn (``True`` once they are spent)."""
    seat, turn = g[K.TO_MOVE], g[K.TURN]
    child = g.copy()
    K._apply(child, sid)
    if child[K.TURN] == turn and child[K.TO_MOVE] >= 0:
        ends, _ = _turn_ends(child)
    else:
        ends = child.reshape(1, -1)
    for k in range(ends.shape[0]):
        end = ends[k]
        key = _key(end)
        if key in memo:
            safe = memo[key]
        else:
            if end[K.POS + seat * 3] < 0 or _exposed(end, seat):
                safe = 0
            else:
                safe = 0 if _forced_loss(end, seat, budget) else 1
                if budget[0] < 0:
                    return True
            memo[key] = safe
        if safe:
            return True
    return False


def new_memo() -> Dict:
    """An empty memo of tiers by position, for :func:`tier_labels`."""
    return Dict.empty(key_type=types.int64, value_type=types.int64)


class CompiledTactics(ShieldTactics):
    """:class:`~splut_env.players.tactics.ShieldTactics` in compiled kernels: the same
    tiers, and the same :meth:`escapes` while the turn's ``budget`` of kill checks lasts
    (:data:`ESCAPE_SEARCHES`; after it, every step escapes)."""

    def __init__(self, budget: int = ESCAPE_SEARCHES) -> None:
        self.budget = budget
        self._games = BatchedGames(1, 2)
        self._ids = np.empty(K.MAX_LEGAL, dtype=np.int64)
        self._out = np.empty(K.MAX_LEGAL, dtype=np.int64)
        self._left = np.zeros(1, dtype=np.int64)
        super().__init__()

    def _clear(self) -> None:
        self._memo, self._safe, self._labels = new_memo(), new_memo(), new_memo()
        self._left[0] = self.budget

    def _row(self, state: State) -> np.ndarray:
        self._new_turn(state)
        self._games.set_state(0, state)
        return self._games.games[0]

    def tiers(self, state: State) -> dict[int, int]:
        n = _tiers(self._row(state), self._ids, self._out, self._memo)
        return {int(i): int(t) for i, t in zip(self._ids[:n], self._out[:n], strict=True)}

    def escapes(self, state: State, step: int) -> bool:
        return bool(_escapes(self._row(state), step, self._safe, self._left))

    def labels(self, state: State, out: np.ndarray) -> None:
        """:func:`tier_labels` of ``state`` into ``out`` (``int8[196]``), memoised within the
        turn like :meth:`tiers`."""
        tier_labels(self._row(state), out, self._labels)


@njit(cache=True)
def tier_labels(g, out, memo):
    """``out[a]``: the tier of action ``a`` (in the mover's frame) in position ``g`` as the
    shield sorts steps (3 kills this turn, 1 safe, 0 exposed, -1 our wizard dies; forced
    wins are not looked for), -2 where ``a`` is not legal or the game is over. ``memo``:
    the tiers of this turn's positions so far (a fresh one for each turn). The labels the
    network alone is trained towards (``training.expert_iteration``, ``targets: shield``)."""
    out[:] = -2
    seat = g[K.TO_MOVE]
    if seat < 0:
        return
    ids = np.empty(K.MAX_LEGAL, dtype=np.int64)
    tiers = np.empty(K.MAX_LEGAL, dtype=np.int64)
    n = _tiers(g, ids, tiers, memo, False)
    for k in range(n):
        out[K._ROT_ID[seat, ids[k]]] = tiers[k]
