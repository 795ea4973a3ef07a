"""Baseline bots: ``random``, ``greedy`` and ``search:easy|medium|hard``.

This is their reference implementation, in Python; ``make_agent`` plays the search levels
compiled (:mod:`splut_env.batched.bots`, the same players with their own tie-breaks), where
the strongest bot, ``search:expert``, lives too.

Both plan a whole turn at its first step and then play the plan step by step (replanning if
the position is not the one they expected). Turns are enumerated exhaustively: every step
sequence until the turn ends, deduplicated by resulting position (:func:`turn_outcomes`).

**Evaluation** (:func:`evaluate`, from one seat's point of view): ``+1000`` for a win,
``-1000`` once its wizard is dead, otherwise ``f(own) - mean(f(opponent)) - 3 * (number of
opponents alive)`` where ``f(seat)`` is

- ``+1.0`` if its dwarf is alive (material);
- ``+0.4`` per rock next to its troll, at most two, and ``-0.1`` per square between its
  troll and the nearest rock (rock access);
- ``-0.1`` per square between its troll and the nearest enemy wizard (pressure; for the
  opponents' ``f`` this is the distance to *our* wizard, so it also scores wizard safety);
- ``+0.5`` per throw its troll could make right now that would land on an enemy wizard
  (a standing threat).

**greedy** takes a winning or killing turn if there is one; otherwise it goes through its
turns best evaluation first and takes the first one after which no opponent can kill its
wizard with one turn (checked exactly, by searching that turn: for the next player as the
position stands, for the others as if they moved next), looking at up to 40 candidates (if
none is safe: the best evaluation).

**search** is a turn-level search with the same evaluation: at the root it keeps the
winning/killing turns and the best ``width`` safe turns (found as greedy does); every later
turn, ours or an opponent's, is enumerated in full. We maximise our evaluation; with two
players left the opponent minimises it (paranoid, i.e. minimax); with three or four, each
opponent plays the turn that maximises its own evaluation (max-n with a static opponent
model). Depth counts turns including the root; at inner nodes only the ``beam`` best
turns (by static evaluation) are searched deeper. Levels:

==========  =====  =====  ====  ======================================================
level       depth  width  beam  cost per decision (one turn, 2 players)
==========  =====  =====  ====  ======================================================
``easy``    2      3      –     about 3 opponent turns enumerated
``medium``  2      8      –     about 8 opponent turns enumerated
``hard``    3      6      3     about 6 opponent turns and 18 own turns enumerated
==========  =====  =====  ====  ======================================================

Measured times per decision are in the bot table of docs/players.md (``python -m training.evaluate``
prints them as ms/step).
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import numpy as np

from splut_env.encoding import step_id_to_action
from splut_env.players.tactics import Outcome, exposed, kill_throws, turn_outcomes
from splut_env.rules.board import (
    NEIGHBOUR,
    NUM_SQUARES,
    ROCK,
    SQUARE_XY,
)
from splut_env.rules.engine import State
from tabletop.agents import Agent

WIN = 1000.0
DIST: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        abs(SQUARE_XY[a][0] - SQUARE_XY[b][0]) + abs(SQUARE_XY[a][1] - SQUARE_XY[b][1])
        for b in range(NUM_SQUARES)
    )
    for a in range(NUM_SQUARES)
)


def _features(state: State, seat: int) -> float:
    pos, cells = state.pos, state.cells
    base = seat * 3
    x = pos[base + 1]
    score = 1.0 if pos[base + 2] >= 0 else 0.0
    adjacent = sum(1 for d in range(4) if NEIGHBOUR[d][x] >= 0 and cells[NEIGHBOUR[d][x]] == ROCK)
    score += 0.4 * min(adjacent, 2)
    dist = DIST[x]
    score -= 0.1 * min(dist[r] for r in state.rocks)
    enemies = [pos[s * 3] for s in state.seats if s != seat and pos[s * 3] >= 0]
    if enemies:
        score -= 0.1 * min(dist[w] for w in enemies)
    return score + 0.5 * kill_throws(state, seat)


def evaluate(state: State, seat: int) -> float:
    """The documented static evaluation of ``state`` for ``seat`` (higher is better)."""
    if state.pos[seat * 3] < 0:
        return -WIN
    others = [s for s in state.seats if s != seat and state.pos[s * 3] >= 0]
    if not others:
        return WIN
    opp = sum(_features(state, s) for s in others) / len(others)
    return _features(state, seat) - opp - 3.0 * len(others)


#: Training's reward-shaping potential is :func:`evaluate` clipped to ± this.
POTENTIAL_BOUND = 5.0


def potential(state: State, seat: int) -> float:
    """The reward-shaping potential of ``seat`` in ``state``: :func:`evaluate` clipped to
    ±``POTENTIAL_BOUND`` (the self-play trainers' shaping; the search player takes it back
    out of a network's value)."""
    return min(max(evaluate(state, seat), -POTENTIAL_BOUND), POTENTIAL_BOUND)


class RandomAgent(Agent):
    """Plays a uniformly random legal step."""

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
        return step_id_to_action(state.to_move, self._rng.choice(state.legal_ids()))

    def act_batch(self, observations: np.ndarray | None, action_masks: np.ndarray) -> np.ndarray:
        return uniform_choice(self._batch_rng, action_masks)


def uniform_choice(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random index among the true entries of each row of ``masks``."""
    counts = masks.sum(axis=1)
    picks = (rng.random(len(masks)) * counts).astype(np.int64)
    return (np.cumsum(masks, axis=1) > picks[:, None]).argmax(axis=1)


class TurnPlanner(Agent):
    """Plans a whole turn at its first step, then plays the plan one step per call."""

    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._plan: list[int] = []
        self._expect: tuple | None = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
        self._plan, self._expect = [], None

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        if not self._plan or state.key() != self._expect:
            self._plan = list(self.plan_turn(state))
        step = self._plan.pop(0)
        if self._plan:
            nxt = state.copy()
            nxt.apply(step)
            self._expect = nxt.key()
        return step_id_to_action(state.to_move, step)

    def plan_turn(self, state: State) -> tuple[int, ...]:
        """The step ids of the turn to play from ``state`` (its player to move)."""
        raise NotImplementedError

    def _candidates(self, state: State, width: int) -> list[Outcome]:
        """Winning or killing turns if any (best first); else up to ``width`` turns after
        which the next player cannot kill our wizard, best evaluation first (or the single
        best turn if none of the first 40 is safe)."""
        seat = state.to_move
        alive = len(state.alive_seats())
        outcomes = turn_outcomes(state)
        self._rng.shuffle(outcomes)  # seeded tie-breaking
        scored = sorted(
            ((evaluate(st, seat), k, (seq, st)) for k, (seq, st) in enumerate(outcomes)),
            key=lambda e: (-e[0], e[1]),
        )
        killing = [o for v, _, o in scored if v > -WIN and len(o[1].alive_seats()) < alive]
        if killing:
            return killing[:width]
        safe: list[Outcome] = []
        for value, _, outcome in scored[:40]:
            if value > -WIN and not exposed(outcome[1], seat):
                safe.append(outcome)
                if len(safe) == width:
                    break
        return safe or [scored[0][2]]


class GreedyAgent(TurnPlanner):
    """Kill if possible, else the best-evaluated turn that leaves no kill to the next player."""

    name = "greedy"

    def plan_turn(self, state: State) -> tuple[int, ...]:
        return self._candidates(state, 1)[0][0]


def _search(state: State, seat: int, depth: int, beam: int) -> float:
    if state.to_move < 0 or state.pos[seat * 3] < 0 or depth == 0:
        return evaluate(state, seat)
    mover = state.to_move
    ours = mover == seat
    outcomes = [st for _, st in turn_outcomes(state)]
    if not ours and len(state.alive_seats()) > 2:
        # Free-for-all: the opponent plays the turn that is best for itself.
        best = max(outcomes, key=lambda st: evaluate(st, mover))
        return _search(best, seat, depth - 1, beam)
    values = [(evaluate(st, seat), st) for st in outcomes]
    values.sort(key=lambda e: e[0], reverse=ours)
    if depth == 1:
        return values[0][0]
    best = [_search(st, seat, depth - 1, beam) for _, st in values[:beam]]
    return max(best) if ours else min(best)


class SearchAgent(TurnPlanner):
    """Turn-level paranoid search over the greedy evaluation (see the module doc)."""

    LEVELS: dict[str, tuple[int, int, int]] = {
        "easy": (2, 3, 1),
        "medium": (2, 8, 1),
        "hard": (3, 6, 3),
    }

    def __init__(self, level: str = "medium", seed: int | None = None) -> None:
        if level not in self.LEVELS:
            raise ValueError(f"unknown search level {level!r}: expected one of {list(self.LEVELS)}")
        super().__init__(seed)
        self.level = level
        self.name = f"search:{level}"
        self.depth, self.width, self.beam = self.LEVELS[level]

    def plan_turn(self, state: State) -> tuple[int, ...]:
        seat = state.to_move
        best_value, best_seq = -2 * WIN, ()
        for seq, st in self._candidates(state, self.width):
            value = _search(st, seat, self.depth - 1, self.beam)
            if value > best_value:
                best_value, best_seq = value, seq
        return best_seq


def easy(seed: int | None = None) -> SearchAgent:
    """``search:easy``."""
    return SearchAgent("easy", seed=seed)


def medium(seed: int | None = None) -> SearchAgent:
    """``search:medium``."""
    return SearchAgent("medium", seed=seed)


def hard(seed: int | None = None) -> SearchAgent:
    """``search:hard``."""
    return SearchAgent("hard", seed=seed)
