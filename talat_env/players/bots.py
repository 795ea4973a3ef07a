"""Talat's baseline bots ``random`` and ``greedy``, the evaluation every bot shares
(:func:`evaluate`, :func:`potential`) and the board tables the search players use
(:mod:`talat_env.players.search`).

**Evaluation** (:func:`evaluate`, in points, from one seat's point of view). A finished game
is worth ``+WIN`` for a sole winner, ``0`` for a win shared by two, ``-WIN / 3`` for one
shared by three and ``-WIN`` for a loss, plus the final score margin. Otherwise every seat
``s`` gets ``t(s) = score(s) + p(s)``: its score (5 a pile tower, 3 a controlled tower on
its goal line, :meth:`State.scores`) and positional terms counted on boards that are not
frozen (a frozen board changes no more, so only its score counts):

each term a count of one feature (:data:`FEATURES`, :func:`feature_counts`) times its weight
(:class:`Weights`; the built-in bots use :data:`HAND`):

- ``advance`` per rank each controlled tower has advanced from its start line, and
  ``mobility`` per empty square it could step to (spare moves);
- per pair of opposing towers in contact where one beats the other: ``threat_to_move``
  for the attacker's controller if it is to move, else ``threat_waiting``; the
  ``…_defended`` weight instead when another tower of the victim's colour could take the
  attacker back on the victim's square;
- per pair that can still come into contact (rules §6.4: rank gap ``g``, file gap at most
  ``g + 1``) where one beats the other: ``latent_g`` for the beater's controller (a
  potential capture by type);
- during set-up the towers not yet placed count in such pairs too (``unplaced``), each on a
  board with the chance that it goes there (the share of its colour's free start squares
  on that board).

With 2 players the value is ``t(seat) - t(opponent)``; with 3 players
``t(seat) - (leader * max + (1 - leader) * min)`` of the opponents' ``t``.
:data:`FITTED_3P` are weights fitted to the outcomes of 3-player games
(:mod:`training.talat_weights`), which ``search:fitted`` plays with.

**random** plays a uniformly random legal move.

**greedy** looks one move ahead. During set-up it places the tower whose position has the
best :func:`evaluate`. In play it prefers a move that wins the game alone, then one that
shares the win, then one that goes on, and a move that loses last; among those, the move
with the best net gain: score gained (5 a capture, 3 a tower
reaching its goal line) minus the worst loss an opponent could then inflict with one capture
(5, or 8 for a tower on its goal line), then the most valuable victim; equal moves are
chosen between by a seeded random draw.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from tabletop.agents import Agent
from talat_env.encoding import action_of
from talat_env.rules.board import (
    BEATS,
    BOARD_COLOURS,
    CODE_COLOUR,
    CODE_TYPE,
    CONTROL,
    MOVES_DOWN,
    MOVES_UP,
    NUM_CELLS,
    PASS,
    STEP_BASE,
    VALUE_ORDER,
)
from talat_env.rules.engine import State

# --- Board tables (derived from talat_env.rules.board) ------------------------------------

COLOUR_OF, TYPE_OF = CODE_COLOUR, CODE_TYPE
#: ``TARGET[side][cell][dir]``: the cell a tower of ``side`` (0 moves up, 1 down) on ``cell``
#: reaches in direction ``dir`` (the move-id layout's), or -1 off the board.
TARGET = tuple(
    tuple(
        tuple(-1 if t < 0 else cell // 25 * 25 + t for t in moves[cell % 25])
        for cell in range(NUM_CELLS)
    )
    for moves in (MOVES_UP, MOVES_DOWN)
)
#: ``FORWARD[side][cell]``: the cells a tower of ``side`` on ``cell`` could step to.
FORWARD = tuple(
    tuple(tuple(t for t in TARGET[side][cell][:3] if t >= 0) for cell in range(NUM_CELLS))
    for side in (0, 1)
)
#: ``SOURCES[side][cell]``: the cells from which a tower of ``side`` could capture on ``cell``.
SOURCES = tuple(
    tuple(
        tuple(c for c in range(NUM_CELLS) if cell in TARGET[side][c]) for cell in range(NUM_CELLS)
    )
    for side in (0, 1)
)
#: ``SIDE_OF[board][colour]``: 0 if the colour starts on rank 1 there, 1 on rank 5, -1 none.
SIDE_OF = tuple(
    tuple(
        0 if c == BOARD_COLOURS[b][0] else 1 if c == BOARD_COLOURS[b][1] else -1 for c in range(3)
    )
    for b in range(3)
)
#: ``CONTROLLER[num_players][board][colour]``: the seat that moves that colour's towers there
#: (-1: nobody), from :data:`~talat_env.rules.board.CONTROL`.
CONTROLLER = {
    n: tuple(
        tuple(
            next((seat for seat in range(n) if (board, colour) in CONTROL[n][seat]), -1)
            for colour in range(3)
        )
        for board in range(3)
    )
    for n in CONTROL
}
_BEATS = BEATS


def _value_table() -> tuple[int, ...]:
    """``VALUE[type]``: 8 for the most valuable type (L6) down to 0 (S3)."""
    order = [int(t) for t in VALUE_ORDER]
    return tuple(8 - order.index(t) for t in range(9))


VALUE = _value_table()


def step_target(cells: Sequence[int], move: int) -> int:
    """The cell that step or capture ``move`` ends on (the tower on its from-cell moves)."""
    start, direction = divmod(move - STEP_BASE, 5)
    side = SIDE_OF[start // 25][COLOUR_OF[cells[start]]]
    return TARGET[side][start][direction]


def captures_against(state: State, seat: int) -> list[tuple[int, int]]:
    """``(attacker cell, victim cell)`` of every capture an opponent of ``seat`` could make
    on a tower ``seat`` controls, on boards that are not frozen, as if it moved now."""
    cells, control = state.cells, CONTROLLER[state.num_players]
    found = []
    for board in range(3):
        if state.frozen[board]:
            continue
        owner = control[board]
        for cell in range(board * 25, board * 25 + 25):
            code = cells[cell]
            if not code or owner[COLOUR_OF[code]] == seat:
                continue
            side = SIDE_OF[board][COLOUR_OF[code]]
            kind = TYPE_OF[code]
            for target in TARGET[side][cell]:
                if target >= 0:
                    victim = cells[target]
                    if (
                        victim
                        and owner[COLOUR_OF[victim]] == seat
                        and COLOUR_OF[victim] != COLOUR_OF[code]
                        and _BEATS[kind][TYPE_OF[victim]]
                    ):
                        found.append((cell, target))
    return found


# --- Evaluation -------------------------------------------------------------------------

WIN = 1000.0


class Weights(NamedTuple):
    """The evaluation's weights, in points: one per positional feature
    (:data:`FEATURES`) and, with 3 players, ``leader``."""

    #: Per rank a controlled tower has advanced from its start line.
    advance: float = 0.15
    #: Per empty square a controlled tower could step to.
    mobility: float = 0.08
    #: A tower in contact with one it beats, its controller to move; the victim undefended
    #: or defended (another tower of its colour could take the attacker back).
    threat_to_move: float = 3.0
    threat_to_move_defended: float = 3.0 * 0.4
    #: The same, its controller not to move.
    threat_waiting: float = 2.5
    threat_waiting_defended: float = 2.5 * 0.4
    #: A pair at rank gap 1, 2, 3, 4 that can still meet, one beating the other.
    latent_1: float = 0.9
    latent_2: float = 0.6
    latent_3: float = 0.45
    latent_4: float = 0.3
    #: A pair with a tower still to be placed (set-up), times its chance.
    unplaced: float = 0.3
    #: With 3 players, the weight of the better opponent's ``t`` (the other gets the rest).
    leader: float = 0.75


#: The positional features :func:`feature_counts` counts, in :class:`Weights`' order.
FEATURES = Weights._fields[:-1]
_NUM_FEATURES = len(FEATURES)
#: The weights of the built-in bots, set by hand.
HAND = Weights()
#: The weights fitted to the outcomes of 3-player games by :mod:`training.talat_weights`
#: (``results/talat_3p_weights``); ``search:fitted`` plays with them.
FITTED_3P = Weights(0.003, 0.17, 3.525, 1.848, 2.739, 0.909, 1.031, 1.32, 1.017, 0.789, 1.478)
_UNIT = tuple(
    Weights(*(float(i == f) for i in range(_NUM_FEATURES)), leader=HAND.leader)
    for f in range(_NUM_FEATURES)
)


def terminal_value(state: State, seat: int) -> float:
    """The value of a finished game for ``seat`` (see the module doc)."""
    winners = state.winners()
    scores = state.scores()
    others = [scores[s] for s in range(state.num_players) if s != seat]
    margin = scores[seat] - max(others)
    if seat not in winners:
        return -WIN + margin
    return WIN * (2.0 / len(winners) - 1.0) + margin


def _geometry() -> tuple[tuple[int, ...], ...]:
    """``GEOMETRY[up square][down square]``: -1 if an upward tower on the first square and a
    downward one on the second are in contact, their rank gap ``g`` (1..4) if they can still
    come into contact (rules §6.4), else 0."""
    table = []
    for up in range(25):
        row = []
        for down in range(25):
            gap, apart = down // 5 - up // 5, abs(down % 5 - up % 5)
            if (gap == 1 and apart <= 1) or (gap == 0 and apart == 1):
                row.append(-1)
            elif gap >= 1 and apart <= gap + 1:
                row.append(gap)
            else:
                row.append(0)
        table.append(tuple(row))
    return tuple(table)


GEOMETRY = _geometry()
#: ``RELATION[up type][down type]``: 1 if the upward tower beats the other, 2 if the
#: downward one does, 0 if neither.
RELATION = tuple(
    tuple(1 if _BEATS[u][d] else 2 if _BEATS[d][u] else 0 for d in range(9)) for u in range(9)
)


def _threat(
    cells: Sequence[int],
    attacker: int,
    victim: int,
    victim_side: int,
    undefended: float,
    defended: float,
) -> float:
    """The contact term of the tower on ``attacker`` threatening the one on ``victim``:
    ``defended`` if another tower of the victim's colour could take the attacker back on
    the victim's square, else ``undefended``."""
    colour = COLOUR_OF[cells[victim]]
    kind = TYPE_OF[cells[attacker]]
    for source in SOURCES[victim_side][victim]:
        code = cells[source]
        if code and COLOUR_OF[code] == colour and _BEATS[TYPE_OF[code]][kind]:
            return defended
    return undefended


def _unplaced(state: State, board: int, colour: int) -> list[tuple[int, float]]:
    """``(type, chance)`` of each unplaced tower of ``colour`` going to ``board``."""
    cells = state.cells
    placed_types: set[int] = set()
    on_board = placed = 0
    for b in range(3):
        if SIDE_OF[b][colour] < 0:
            continue
        for cell in range(b * 25, b * 25 + 25):
            code = cells[cell]
            if code and COLOUR_OF[code] == colour:
                placed_types.add(TYPE_OF[code])
                placed += 1
                on_board += b == board
    zihin = state.num_players == 2 and colour == 2
    remaining = (8 if zihin else 9) - placed
    if remaining <= 0:
        return []
    free = 10 - placed
    types = [t for t in range(9) if t not in placed_types]
    chance = remaining / len(types) * (5 - on_board) / free
    return [(t, chance) for t in types]


def positional(state: State, weights: Weights = HAND) -> list[float]:
    """The positional terms ``p(s)`` of every seat (see the module doc)."""
    n, cells, to_move = state.num_players, state.cells, state.to_move
    totals = [0.0] * n
    control = CONTROLLER[n]
    advance, mobility = weights.advance, weights.mobility
    latent = (0.0, weights.latent_1, weights.latent_2, weights.latent_3, weights.latent_4)
    # (undefended, defended) threat weights of a seat not to move, to move
    threats = (
        (weights.threat_waiting, weights.threat_waiting_defended),
        (weights.threat_to_move, weights.threat_to_move_defended),
    )
    setting_up = state.phase == 0
    for board in range(3):
        if state.frozen[board]:
            continue
        colour_up, colour_down = BOARD_COLOURS[board]
        seat_up, seat_down = control[board][colour_up], control[board][colour_down]
        ups, downs = [], []
        advanced_up = advanced_down = free_up = free_down = 0
        for square in range(25):
            cell = board * 25 + square
            code = cells[cell]
            if code:
                if COLOUR_OF[code] == colour_up:
                    ups.append((square, TYPE_OF[code], cell))
                    advanced_up += square // 5
                    for target in FORWARD[0][cell]:
                        free_up += not cells[target]
                else:
                    downs.append((square, TYPE_OF[code], cell))
                    advanced_down += 4 - square // 5
                    for target in FORWARD[1][cell]:
                        free_down += not cells[target]
        totals[seat_up] += advance * advanced_up + mobility * free_up
        totals[seat_down] += advance * advanced_down + mobility * free_down
        up_threat = threats[seat_up == to_move]
        down_threat = threats[seat_down == to_move]
        up_total = down_total = 0.0
        for square_u, kind_u, cell_u in ups:
            geometry, relation = GEOMETRY[square_u], RELATION[kind_u]
            for square_d, kind_d, cell_d in downs:
                beater = relation[kind_d]
                if beater:
                    gap = geometry[square_d]
                    if gap > 0:
                        if beater == 1:
                            up_total += latent[gap]
                        else:
                            down_total += latent[gap]
                    elif gap:
                        if beater == 1:
                            up_total += _threat(cells, cell_u, cell_d, 1, *up_threat)
                        else:
                            down_total += _threat(cells, cell_d, cell_u, 0, *down_threat)
        totals[seat_up] += up_total
        totals[seat_down] += down_total
        if setting_up:
            _unplaced_pairs(state, board, ups, downs, totals, seat_up, seat_down, weights.unplaced)
    return totals


def _unplaced_pairs(
    state: State,
    board: int,
    ups: list[tuple[int, int, int]],
    downs: list[tuple[int, int, int]],
    totals: list[float],
    seat_up: int,
    seat_down: int,
    far: float,
) -> None:
    """Add the terms of pairs with an unplaced tower on ``board`` (set-up), ``far`` each
    times its chance."""
    colour_up, colour_down = BOARD_COLOURS[board]
    up_types = [(u[1], 1.0) for u in ups]
    down_types = [(d[1], 1.0) for d in downs]
    new_up = _unplaced(state, board, colour_up)
    new_down = _unplaced(state, board, colour_down)
    for kinds_u, kinds_d in ((new_up, down_types), (up_types, new_down), (new_up, new_down)):
        for kind_u, chance_u in kinds_u:
            for kind_d, chance_d in kinds_d:
                if _BEATS[kind_u][kind_d]:
                    totals[seat_up] += far * chance_u * chance_d
                elif _BEATS[kind_d][kind_u]:
                    totals[seat_down] += far * chance_u * chance_d


def feature_counts(state: State) -> list[list[float]]:
    """Every seat's positional features (:data:`FEATURES`): :func:`positional` with each
    feature's weight 1 in turn and the others 0 (for fitting weights; slower)."""
    columns = [positional(state, _UNIT[f]) for f in range(_NUM_FEATURES)]
    return [[column[s] for column in columns] for s in range(state.num_players)]


def evaluate(state: State, seat: int, weights: Weights = HAND) -> float:
    """The static evaluation of ``state`` for ``seat``, in points (see the module doc)."""
    if state.is_over():
        return terminal_value(state, seat)
    scores = state.scores()
    extra = positional(state, weights)
    totals = [scores[s] + extra[s] for s in range(state.num_players)]
    others = [totals[s] for s in range(state.num_players) if s != seat]
    if len(others) == 1:
        return totals[seat] - others[0]
    leader = weights.leader
    return totals[seat] - (leader * max(others) + (1.0 - leader) * min(others))


#: Training's reward-shaping potential is :func:`evaluate` clipped to ± this many points.
POTENTIAL_BOUND = 20.0


def potential(state: State, seat: int) -> float:
    """The reward-shaping potential of ``seat`` in ``state``: :func:`evaluate` clipped to
    ±``POTENTIAL_BOUND``."""
    return min(max(evaluate(state, seat), -POTENTIAL_BOUND), POTENTIAL_BOUND)


# --- Placement ----------------------------------------------------------------------------


def ranked_placements(
    state: State,
    rng: random.Random,
    moves: Sequence[int] | None = None,
    weights: Weights = HAND,
) -> list[tuple[float, int]]:
    """``(value, move)`` of every legal placement by its one-move :func:`evaluate` for the
    seat to move, best first; equal values in a random order drawn from ``rng``."""
    seat = state.to_move
    moves = list(state.legal_ids() if moves is None else moves)
    rng.shuffle(moves)
    ranked = []
    for move in moves:
        child = state.copy()
        child.apply(move)
        ranked.append((evaluate(child, seat, weights), move))
    ranked.sort(key=lambda e: -e[0])
    return ranked


# --- Agents -------------------------------------------------------------------------------


class RandomAgent(Agent):
    """Plays a uniformly random legal move."""

    needs_observation = False
    batched = True
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._batch_rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
            self._batch_rng = np.random.default_rng(seed)

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        move = self._rng.choice(state.legal_ids())
        return action_of(state.num_players, state.to_move, move)

    def act_batch(self, observations: np.ndarray | None, action_masks: np.ndarray) -> np.ndarray:
        return uniform_choice(self._batch_rng, np.asarray(action_masks, dtype=bool))


def uniform_choice(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random index among the true entries of each row of ``masks``."""
    counts = masks.sum(axis=1)
    picks = (rng.random(len(masks)) * counts).astype(np.int64)
    return (np.cumsum(masks, axis=1) > picks[:, None]).argmax(axis=1)


def outcome_class(state: State, seat: int) -> int:
    """2 if ``seat`` has won ``state`` alone, 1 if it shares the win, -1 if it has lost, 0
    while the game goes on."""
    if not state.is_over():
        return 0
    winners = state.winners()
    if seat not in winners:
        return -1
    return 2 if len(winners) == 1 else 1


def worst_capture(state: State, seat: int) -> int:
    """The most points ``seat`` could lose to one capture by an opponent in ``state``: 5 for
    the tower, 3 more if it stands on its goal line; 0 if none is possible."""
    worst = 0
    for _, victim in captures_against(state, seat):
        rank = (victim % 25) // 5
        side = SIDE_OF[victim // 25][COLOUR_OF[state.cells[victim]]]
        worst = max(worst, 8 if rank == (4 if side == 0 else 0) else 5)
    return worst


class GreedyAgent(Agent):
    """One move ahead: the best net gain, avoiding towers left to be taken (module doc)."""

    needs_observation = False
    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        return action_of(state.num_players, state.to_move, self.choose(state))

    def choose(self, state: State) -> int:
        """The engine move id greedy plays in ``state``."""
        moves = state.legal_ids()
        if len(moves) == 1:
            return moves[0]
        if state.phase == 0:
            return ranked_placements(state, self._rng, moves)[0][1]
        seat = state.to_move
        before = state.scores()[seat]
        cells = state.cells
        best_key, best_move = None, moves[0]
        for move in moves:
            child = state.copy()
            child.apply(move)
            outcome = outcome_class(child, seat)
            net = child.scores()[seat] - before
            if outcome == 0:
                net -= worst_capture(child, seat)
            victim = cells[step_target(cells, move)] if STEP_BASE <= move < PASS else 0
            key = (outcome, net, VALUE[TYPE_OF[victim]] if victim else -1, self._rng.random())
            if best_key is None or key > best_key:
                best_key, best_move = key, move
        return best_move
