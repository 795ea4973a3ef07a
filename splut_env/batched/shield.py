"""The shield's tiers (:class:`splut_env.players.tactics.ShieldedAgent`) in compiled
kernels: the same exact searches (:func:`~splut_env.players.tactics.exposed`,
:func:`~splut_env.players.tactics.forced_win`), some 20 times faster. Checkpoints played
under the shield (``path.zip:shield``, ``best:Np``) use this."""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from splut_env.batched import kernels as K
from splut_env.batched.bots import _exposed, _key, _threatens, _turn_ends
from splut_env.batched.games import BatchedGames
from splut_env.rules.engine import State

_MEMO = types.DictType(types.int64, types.int64)


@njit(cache=True)
def _forced_win(g, seat):
    """As :func:`splut_env.players.tactics.forced_win`."""
    victim = g[K.TO_MOVE]
    if victim < 0 or victim == seat or K._alive_count(g) != 2:
        return False
    ends, _ = _turn_ends(g)
    for k in range(ends.shape[0]):
        if ends[k, K.POS + victim * 3] >= 0 and not _threatens(ends[k], victim):
            return False
    return True


@njit(
    types.int64(types.int64[::1], types.int64, types.int64, types.int64, types.int64, _MEMO),
    cache=True,
)
def _after(g, sid, seat, alive, turn, memo):
    """The best tier the turn can reach after step ``sid`` from ``g`` (-1: our wizard
    dies), memoised by position (``ShieldedAgent._after``)."""
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
            tier = max(tier, _after(child, ids[k], seat, alive, turn, memo))
            if tier == 3:
                break
    elif child[K.POS + seat * 3] < 0:
        tier = -1
    elif child[K.TO_MOVE] < 0 or K._alive_count(child) < alive:
        tier = 3
    elif _exposed(child, seat):
        tier = 0
    else:
        tier = 2 if _forced_win(child, seat) else 1
    memo[key] = tier
    return tier


@njit(cache=True)
def _tiers(g, ids, out, memo):
    """``out[k]``: the tier of legal step ``ids[k]`` of ``g``; their number. ``memo`` holds
    the tiers of the turn's positions seen so far."""
    n = K._legal(g, ids)
    seat, alive, turn = g[K.TO_MOVE], K._alive_count(g), g[K.TURN]
    for k in range(n):
        out[k] = _after(g, ids[k], seat, alive, turn, memo)
    return n


def _new_memo() -> Dict:
    return Dict.empty(key_type=types.int64, value_type=types.int64)


class CompiledTiers:
    """``tiers(state)``: each legal step id of ``state`` (board frame) with its tier. A tier
    depends on the position after the step, the seat to move and how many wizards were alive
    when the turn began; tiers are kept while those two and the turn stay the same."""

    def __init__(self) -> None:
        self._games = BatchedGames(1, 2)
        self._memo = _new_memo()
        self._turn = (-1, -1, 0)
        self._ids = np.empty(K.MAX_LEGAL, dtype=np.int64)
        self._out = np.empty(K.MAX_LEGAL, dtype=np.int64)

    def __call__(self, state: State) -> dict[int, int]:
        turn = (state.turn, state.to_move, len(state.alive_seats()))
        if turn != self._turn:
            self._memo, self._turn = _new_memo(), turn
        self._games.set_state(0, state)
        n = _tiers(self._games.games[0], self._ids, self._out, self._memo)
        return {int(i): int(t) for i, t in zip(self._ids[:n], self._out[:n], strict=True)}
