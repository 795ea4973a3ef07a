"""Talat's search players ``search:easy|medium|hard|expert``.

**In play** they search with alpha-beta over :func:`~talat_env.players.bots.evaluate`, from
the searching seat's point of view: it maximises, every other seat minimises (with 2
players this is plain minimax, i.e. negamax; with 3 it is the *paranoid* search, the mover
against both others). With 3 players ``expert`` searches at each opponent turn only the
``beam`` moves best for that opponent by its own evaluation (the moves it is likely to
play), so that it sees further and fears less.

Iterative deepening goes one ply deeper at a time until ``depth`` or until the budget of
positions is spent (the last finished depth decides, or the unfinished one if it has
already found a better move than that depth's best, which it searches first). Every leaf
is extended by a capture-only quiescence search (up to :data:`QUIESCENCE_PLIES` captures;
either side may stop capturing), so no exchange is cut in the middle. The points that the
move to play gains itself (a capture, a tower reaching its goal line) count
:data:`IN_HAND` times more, so a search that sees the same capture now and later takes it
now.

Moves are tried in this order: the transposition-table move, captures (most valuable
victim first, then least valuable attacker), steps onto the goal line, the two killer moves
of the ply, then by history score. The transposition table is keyed by a 64-bit Zobrist
hash of the 75 cells, the phase, the seat to move, the frozen flags, the pile sizes and the
searching seat, updated incrementally; static evaluations are kept under the same key.
Finished games count ±``WIN`` by the rules' winners (tie-break included), plus the score
margin. Moves of equal value are chosen between by a seeded shuffle, so a player is
deterministic given its seed.

**Guided** (:meth:`SearchAgent.choose_guided`, how :mod:`talat_env.players.guided` lets a
network choose): the same search and set-up, given one prior per legal move. Root moves are
searched in order of their value at the depth before, then of prior; each root move after
the first is searched with its window lowered to ``margin`` below the best so far, so that
every move within ``margin`` of the best gets its exact value, and among those (equal within
:data:`TIE` when ``margin`` is 0) the move of highest prior is played. ``choose`` is
unchanged.

**During set-up** (about 90 placements a ply) they rank their placements by the evaluation
after them; ``hard`` and ``expert`` keep the best ``setup_width`` of them and answer each
with the next placer's reply that is worst for the searcher, taking the best of those;
``easy`` and ``medium`` take the best one-move value.

==========  =====  ======  ===========  ====  ========================================
level       depth  budget  setup_width  beam  note
==========  =====  ======  ===========  ====  ========================================
``easy``    1      300     0            –     one ply plus quiescence
``medium``  2      1500    0            –
``hard``    4      5000    6            –
``expert``  16     40000   12           3     under 0.5 s a move in mid-game, one core
==========  =====  ======  ===========  ====  ========================================

``budget`` counts positions visited (quiescence and the opponent moves a beam ranks
included); ``search:<level>=N`` sets it.

**``search:fitted``** is ``expert`` evaluating with the weights fitted to the outcomes of
3-player games (:data:`~talat_env.players.bots.FITTED_3P`, :mod:`training.talat_weights`)
instead of the hand-set ones; it is not a level of the ladder, whose top ``expert`` stays
the yardstick.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from tabletop.agents import Agent
from talat_env.encoding import action_of
from talat_env.players.bots import (
    COLOUR_OF,
    FITTED_3P,
    HAND,
    SIDE_OF,
    TARGET,
    TYPE_OF,
    VALUE,
    WIN,
    Weights,
    evaluate,
    ranked_placements,
    terminal_value,
)
from talat_env.rules.board import NUM_CELLS, PASS, STEP_BASE
from talat_env.rules.engine import State


class Level(NamedTuple):
    """A search level: the deepest ply, positions per move, set-up candidates answered, and
    with 3 players the opponent moves searched at each of their turns (0: all)."""

    depth: int
    budget: int
    setup_width: int
    beam: int


LEVELS: dict[str, Level] = {
    "easy": Level(1, 300, 0, 0),
    "medium": Level(2, 1500, 0, 0),
    "hard": Level(4, 5000, 6, 0),
    "expert": Level(16, 40000, 12, 3),
}
#: The most captures a quiescence search plays in a row.
QUIESCENCE_PLIES = 4
#: Points gained by the root move itself count this much more (a capture now is worth a
#: little more than the same capture a few plies later, which may never come).
IN_HAND = 0.1
#: The transposition table is emptied when it grows past this many positions.
TABLE_LIMIT = 400_000
#: Guided root values closer than this are equal (sums of the same points in other orders).
TIE = 1e-9
#: A guide's priors: ``priors(state, moves)``, one number per legal move, higher preferred.
Priors = Callable[[State, list[int]], Sequence[float]]
_EXACT, _LOWER, _UPPER = 0, 1, 2
_INF = float("inf")


def _zobrist_keys() -> tuple[
    list[int], list[list[int]], list[int], list[int], list[int], list[list[int]]
]:
    """Random 64-bit keys: per searching seat, per cell and code, per seat to move, per
    frozen board, per phase, per seat and pile size."""
    rng = random.Random(0x7A1A7)
    seats = [rng.getrandbits(64) for _ in range(3)]
    cells = [[0] + [rng.getrandbits(64) for _ in range(27)] for _ in range(NUM_CELLS)]
    to_move = [rng.getrandbits(64) for _ in range(4)]  # seat + 1 (0: nobody)
    frozen = [rng.getrandbits(64) for _ in range(3)]
    phase = [rng.getrandbits(64) for _ in range(3)]
    piles = [[rng.getrandbits(64) for _ in range(28)] for _ in range(3)]
    return seats, cells, to_move, frozen, phase, piles


_Z_SEAT, _Z_CELL, _Z_MOVE, _Z_FROZEN, _Z_PHASE, _Z_PILE = _zobrist_keys()


def zobrist(state: State, seat: int) -> int:
    """The transposition-table key of ``state`` searched for ``seat``, from scratch."""
    key = _Z_SEAT[seat] ^ _Z_MOVE[state.to_move + 1] ^ _Z_PHASE[state.phase]
    for cell, code in enumerate(state.cells):
        key ^= _Z_CELL[cell][code]
    for board in range(3):
        if state.frozen[board]:
            key ^= _Z_FROZEN[board]
    for s, pile in enumerate(state.piles):
        key ^= _Z_PILE[s][len(pile)]
    return key


def child_key(key: int, parent: State, child: State, move: int) -> int:
    """:func:`zobrist` of ``child`` (``parent`` after ``move``) from ``key``, ``parent``'s."""
    before, after = parent.cells, child.cells
    if move < STEP_BASE:
        cell = move // 9
        key ^= _Z_CELL[cell][before[cell]] ^ _Z_CELL[cell][after[cell]]
    elif move != PASS:
        start, direction = divmod(move - STEP_BASE, 5)
        end = TARGET[SIDE_OF[start // 25][COLOUR_OF[before[start]]]][start][direction]
        key ^= _Z_CELL[start][before[start]] ^ _Z_CELL[start][after[start]]
        key ^= _Z_CELL[end][before[end]] ^ _Z_CELL[end][after[end]]
    if parent.to_move != child.to_move:
        key ^= _Z_MOVE[parent.to_move + 1] ^ _Z_MOVE[child.to_move + 1]
    if parent.phase != child.phase:
        key ^= _Z_PHASE[parent.phase] ^ _Z_PHASE[child.phase]
    for board in range(3):
        if parent.frozen[board] != child.frozen[board]:
            key ^= _Z_FROZEN[board]
    for s, pile in enumerate(parent.piles):
        size = len(child.piles[s])
        if size != len(pile):
            key ^= _Z_PILE[s][len(pile)] ^ _Z_PILE[s][size]
    return key


class _OutOfBudget(Exception):
    """Raised inside the search when the position budget is spent."""


def _capture_order(cells: list[int], move: int) -> int:
    """The ordering score of a step or capture: victim value first, cheap attacker next;
    -1 for a step onto an empty square."""
    start, direction = divmod(move - STEP_BASE, 5)
    attacker = cells[start]
    end = TARGET[SIDE_OF[start // 25][COLOUR_OF[attacker]]][start][direction]
    victim = cells[end]
    if not victim:
        return -1
    return 16 * VALUE[TYPE_OF[victim]] + 8 - VALUE[TYPE_OF[attacker]]


def _reaches_goal(cells: list[int], move: int) -> bool:
    """Whether step ``move`` ends on the moving tower's goal line."""
    start, direction = divmod(move - STEP_BASE, 5)
    side = SIDE_OF[start // 25][COLOUR_OF[cells[start]]]
    end = TARGET[side][start][direction]
    return (end % 25) // 5 == (4 if side == 0 else 0)


class SearchAgent(Agent):
    """Alpha-beta (paranoid with 3 players) with quiescence, iterative deepening, a
    transposition table and a position budget per move (see the module doc)."""

    needs_observation = False

    def __init__(
        self,
        level: str = "medium",
        seed: int | None = None,
        budget: int | None = None,
        weights: Weights = HAND,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown search level {level!r}: expected one of {list(LEVELS)}")
        self.level = level
        depth, default_budget, self.setup_width, self.beam = LEVELS[level]
        self.depth = depth
        self.budget = default_budget if budget is None else budget
        if self.budget < 1:
            raise ValueError(f"a search budget must be at least 1 position, got {budget!r}")
        self.name = f"search:{level}" if budget is None else f"search:{level}={budget}"
        self.weights = weights
        self._rng = random.Random(seed)
        self._table: dict[int, tuple[int, int, float, int]] = {}
        self._evals: dict[int, float] = {}
        self._history: dict[int, int] = {}
        self._killers: dict[int, list[int]] = {}
        #: Positions visited and the deepest finished iteration of the last search.
        self.nodes = 0
        self.reached = 0
        #: The root values the last guided move was chosen from (exact within its margin).
        self.values: dict[int, float] = {}
        self._limit = 0
        self._seat = 0

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
        self._table.clear()
        self._evals.clear()
        self._history.clear()
        self._killers.clear()

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        return action_of(state.num_players, state.to_move, self.choose(state))

    def choose(self, state: State) -> int:
        """The engine move id this player plays in ``state``."""
        moves = state.legal_ids()
        if len(moves) == 1:
            return moves[0]
        if state.phase == 0:
            return self._place(state, moves)
        return self._search(state, moves)

    # --- set-up -------------------------------------------------------------------------

    def _place(self, state: State, moves: list[int]) -> int:
        ranked = ranked_placements(state, self._rng, moves, self.weights)
        if self.setup_width <= 0:
            return ranked[0][1]
        seat = state.to_move
        best_value, best_move = -_INF, ranked[0][1]
        for _, move in ranked[: self.setup_width]:
            value = _answered(state, move, seat, best_value, self.weights)
            if value > best_value:
                best_value, best_move = value, move
        return best_move

    # --- play ---------------------------------------------------------------------------

    def _start(self, state: State) -> int:
        """Make ready to search from ``state`` (its mover the searching seat); its key."""
        self._seat = state.to_move
        if len(self._table) + len(self._evals) > TABLE_LIMIT:
            self._table.clear()
            self._evals.clear()
        self._killers.clear()
        self.nodes = self.reached = 0
        return zobrist(state, self._seat)

    def _search(self, state: State, moves: list[int]) -> int:
        root_key = self._start(state)
        order = list(moves)
        self._rng.shuffle(order)
        order = self._ordered(state, order, -1, 0)
        best_move = order[0]
        for depth in range(1, self.depth + 1):
            self._limit = self.budget if depth > 1 else 1 << 60
            found: list[tuple[float, int]] = []
            try:
                value = self._root(state, root_key, order, depth, found)
            except _OutOfBudget:
                if found and found[-1][1] != order[0]:
                    best_move = found[-1][1]
                break
            best_move = found[-1][1]
            self.reached = depth
            order.remove(best_move)
            order.insert(0, best_move)
            if abs(value) >= 0.5 * WIN or self.nodes >= self.budget:
                break
        return best_move

    def _root(
        self, state: State, key: int, order: list[int], depth: int, found: list[tuple[float, int]]
    ) -> float:
        """Search the root moves in ``order``; ``found`` gets each improvement."""
        alpha, beta = -_INF, _INF
        seat = self._seat
        before = state.scores()[seat]
        for move in order:
            child = state.copy()
            child.apply(move)
            bonus = IN_HAND * (child.scores()[seat] - before) if child.phase != 2 else 0.0
            value = bonus + self._node(
                child, child_key(key, state, child, move), depth - 1, alpha - bonus, beta, 1
            )
            if value > alpha:
                alpha = value
                found.append((value, move))
        return alpha

    def _node(
        self, state: State, key: int, depth: int, alpha: float, beta: float, ply: int
    ) -> float:
        self.nodes += 1
        if self.nodes > self._limit:
            raise _OutOfBudget
        if state.phase == 2:
            return terminal_value(state, self._seat)
        if depth <= 0:
            return self._quiesce(state, key, alpha, beta, QUIESCENCE_PLIES)
        entry = self._table.get(key)
        table_move = -1
        if entry is not None:
            entry_depth, flag, value, table_move = entry
            if entry_depth >= depth and (
                flag == _EXACT
                or (flag == _LOWER and value >= beta)
                or (flag == _UPPER and value <= alpha)
            ):
                return value
        maximising = state.to_move == self._seat
        alpha0, beta0 = alpha, beta
        best, best_move = (-_INF if maximising else _INF), -1
        if maximising or not self.beam or state.num_players == 2:
            moves = self._ordered(state, state.legal_ids(), table_move, ply)
        else:
            moves = self._plausible(state, key, table_move)
        for move in moves:
            child = state.copy()
            child.apply(move)
            value = self._node(
                child, child_key(key, state, child, move), depth - 1, alpha, beta, ply + 1
            )
            if maximising:
                if value > best:
                    best, best_move = value, move
                    alpha = max(alpha, value)
            elif value < best:
                best, best_move = value, move
                beta = min(beta, value)
            if alpha >= beta:
                self._cutoff(state, move, depth, ply)
                break
        flag = _UPPER if best <= alpha0 else _LOWER if best >= beta0 else _EXACT
        self._table[key] = (depth, flag, best, best_move)
        return best

    def _plausible(self, state: State, key: int, table_move: int) -> list[int]:
        """The ``beam`` moves of an opponent best for itself by its own evaluation (the
        table move first)."""
        mover = state.to_move
        swap = _Z_SEAT[self._seat] ^ _Z_SEAT[mover]
        scored = []
        for move in state.legal_ids():
            child = state.copy()
            child.apply(move)
            child_hash = child_key(key, state, child, move) ^ swap
            value = self._evals.get(child_hash)
            if value is None:
                value = self._evals[child_hash] = evaluate(child, mover, self.weights)
            scored.append((-value, move))
        self.nodes += len(scored)
        scored.sort()
        moves = [move for _, move in scored[: self.beam]]
        if table_move in moves:
            moves.remove(table_move)
            moves.insert(0, table_move)
        return moves

    # --- guided -------------------------------------------------------------------------

    def choose_guided(self, state: State, priors: Priors, margin: float = 0.0) -> int:
        """The engine move to play in ``state`` with the root's near-equal moves decided by
        ``priors`` (called once; see the module doc): of the moves valued within ``margin``
        of the best, the one of highest prior."""
        if not margin >= 0.0:
            raise ValueError(f"a guided search margin must be at least 0, got {margin!r}")
        moves = list(state.legal_ids())
        self.values = {}
        if len(moves) == 1:
            return moves[0]
        self._rng.shuffle(moves)  # equal priors in a seeded order
        scores = priors(state, moves)
        if len(scores) != len(moves):
            raise ValueError(f"priors gave {len(scores)} numbers for {len(moves)} moves")
        prior = {move: float(p) for move, p in zip(moves, scores, strict=True)}
        if state.phase == 0:
            return self._place_guided(state, moves, prior, margin)
        return self._search_guided(state, moves, prior, margin)

    @staticmethod
    def _preferred(values: dict[int, float], prior: dict[int, float], margin: float) -> int:
        """The move of highest prior among those of ``values`` within ``margin`` of the
        best (the first in ``values``' order among equal priors)."""
        floor = max(values.values()) - margin - TIE
        return max((move for move, value in values.items() if value > floor), key=prior.get)

    def _place_guided(
        self, state: State, moves: list[int], prior: dict[int, float], margin: float
    ) -> int:
        """:meth:`_place` with the placements of equal one-move value ranked by prior and
        the answered ones within ``margin`` of the best decided by prior."""
        seat = state.to_move
        ranked = []
        for move in moves:
            child = state.copy()
            child.apply(move)
            ranked.append((evaluate(child, seat, self.weights), prior[move], move))
        ranked.sort(key=lambda e: (-e[0], -e[1]))
        if self.setup_width <= 0:
            self.values = {move: value for value, _, move in ranked}
            return self._preferred(self.values, prior, margin)
        self.values = values = {}
        best = -_INF
        for _, _, move in ranked[: self.setup_width]:
            value = _answered(state, move, seat, best - margin - TIE, self.weights)
            values[move] = value
            best = max(best, value)
        return self._preferred(values, prior, margin)

    def _search_guided(
        self, state: State, moves: list[int], prior: dict[int, float], margin: float
    ) -> int:
        """:meth:`_search` with the root in order of value at the depth before, then prior,
        and the move chosen at each depth by :meth:`_preferred`."""
        root_key = self._start(state)
        order = sorted(moves, key=lambda m: -prior[m])
        best_move = order[0]
        for depth in range(1, self.depth + 1):
            self._limit = self.budget if depth > 1 else 1 << 60
            values: dict[int, float] = {}
            try:
                self._root_values(state, root_key, order, depth, margin, values)
            except _OutOfBudget:
                # an unfinished depth decides only if it has refuted the last one's choice
                if values and values[order[0]] <= max(values.values()) - margin - TIE:
                    best_move = self._preferred(values, prior, margin)
                    self.values = values
                break
            best_move = self._preferred(values, prior, margin)
            self.values = values
            self.reached = depth
            order = self._reordered(order, values, prior, margin)
            if abs(max(values.values())) >= 0.5 * WIN or self.nodes >= self.budget:
                break
        return best_move

    @staticmethod
    def _reordered(
        order: list[int], values: dict[int, float], prior: dict[int, float], margin: float
    ) -> list[int]:
        """The root order for the next depth: the moves within ``margin`` of the best by
        prior, then the others by value, then prior."""
        floor = max(values.values()) - margin - TIE
        near = sorted((m for m in order if values[m] > floor), key=lambda m: -prior[m])
        rest = sorted(
            (m for m in order if values[m] <= floor), key=lambda m: (-values[m], -prior[m])
        )
        return near + rest

    def _root_values(
        self,
        state: State,
        key: int,
        order: list[int],
        depth: int,
        margin: float,
        values: dict[int, float],
    ) -> None:
        """Search the root moves in ``order`` into ``values``: exact for those within
        ``margin`` of the best, upper bounds below it for the others."""
        seat = self._seat
        before = state.scores()[seat]
        best = -_INF
        for move in order:
            child = state.copy()
            child.apply(move)
            bonus = IN_HAND * (child.scores()[seat] - before) if child.phase != 2 else 0.0
            floor = best - margin - TIE
            value = bonus + self._node(
                child, child_key(key, state, child, move), depth - 1, floor - bonus, _INF, 1
            )
            values[move] = value
            best = max(best, value)

    def _cutoff(self, state: State, move: int, depth: int, ply: int) -> None:
        if move == PASS or move < STEP_BASE or _capture_order(state.cells, move) >= 0:
            return
        killers = self._killers.setdefault(ply, [])
        if move not in killers:
            killers.insert(0, move)
            del killers[2:]
        self._history[move] = self._history.get(move, 0) + depth * depth

    def _ordered(self, state: State, moves: list[int], table_move: int, ply: int) -> list[int]:
        cells = state.cells
        killers = self._killers.get(ply, ())
        history = self._history
        scored = []
        for move in moves:
            if move == table_move:
                score = 1 << 40
            elif move == PASS or move < STEP_BASE:
                score = 0
            else:
                capture = _capture_order(cells, move)
                if capture >= 0:
                    score = (1 << 32) + capture
                elif _reaches_goal(cells, move):
                    score = 1 << 31
                elif move in killers:
                    score = (1 << 30) - killers.index(move)
                else:
                    score = history.get(move, 0)
            scored.append((score, move))
        scored.sort(key=lambda e: -e[0])
        return [move for _, move in scored]

    def _quiesce(self, state: State, key: int, alpha: float, beta: float, plies: int) -> float:
        self.nodes += 1
        if self.nodes > self._limit:
            raise _OutOfBudget
        if state.phase == 2:
            return terminal_value(state, self._seat)
        best = self._evals.get(key)
        if best is None:
            best = self._evals[key] = evaluate(state, self._seat, self.weights)
        if plies == 0:
            return best
        maximising = state.to_move == self._seat
        if maximising:
            if best >= beta:
                return best
            alpha = max(alpha, best)
        else:
            if best <= alpha:
                return best
            beta = min(beta, best)
        cells = state.cells
        captures = []
        for move in state.legal_ids():
            if STEP_BASE <= move < PASS:
                order = _capture_order(cells, move)
                if order >= 0:
                    captures.append((order, move))
        captures.sort(key=lambda e: -e[0])
        for _, move in captures:
            child = state.copy()
            child.apply(move)
            value = self._quiesce(child, child_key(key, state, child, move), alpha, beta, plies - 1)
            if maximising:
                if value > best:
                    best = value
                    alpha = max(alpha, value)
            elif value < best:
                best = value
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best


def easy(seed: int | None = None, budget: int | None = None) -> SearchAgent:
    """``search:easy`` (``search:easy=N``: a budget of N positions per move)."""
    return SearchAgent("easy", seed=seed, budget=budget)


def medium(seed: int | None = None, budget: int | None = None) -> SearchAgent:
    """``search:medium`` (``search:medium=N``: a budget of N positions per move)."""
    return SearchAgent("medium", seed=seed, budget=budget)


def hard(seed: int | None = None, budget: int | None = None) -> SearchAgent:
    """``search:hard`` (``search:hard=N``: a budget of N positions per move)."""
    return SearchAgent("hard", seed=seed, budget=budget)


def expert(seed: int | None = None, budget: int | None = None) -> SearchAgent:
    """``search:expert`` (``search:expert=N``: a budget of N positions per move)."""
    return SearchAgent("expert", seed=seed, budget=budget)


def _answered(state: State, move: int, seat: int, floor: float, weights: Weights = HAND) -> float:
    """The evaluation for ``seat`` of its placement ``move`` answered by the next placer's
    reply that is worst for it (the placement alone when no other placer follows),
    stopping once one reply brings it to ``floor`` or below."""
    child = state.copy()
    child.apply(move)
    if child.phase != 0 or child.to_move == seat:
        return evaluate(child, seat, weights)
    value = _INF
    for reply in child.legal_ids():
        after = child.copy()
        after.apply(reply)
        value = min(value, evaluate(after, seat, weights))
        if value <= floor:
            break
    return value


def fitted(seed: int | None = None, budget: int | None = None) -> SearchAgent:
    """``search:fitted``: ``search:expert`` evaluating with the weights fitted to game
    outcomes, :data:`~talat_env.players.bots.FITTED_3P` (``search:fitted=N``: a budget of N
    positions per move)."""
    agent = SearchAgent("expert", seed=seed, budget=budget, weights=FITTED_3P)
    agent.name = "search:fitted" if budget is None else f"search:fitted={budget}"
    return agent
