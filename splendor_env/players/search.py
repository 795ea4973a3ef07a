"""Splendor's search players ``search:easy|medium|hard``: information-set Monte Carlo tree
search over determinised positions.

**Only what the seat may know.** At every decision the player takes its seat's view of the
position (:func:`splendor_env.rules.view`, SPLENDOR_RULES.md §9) and draws
``determinisations`` full positions consistent with it (:func:`splendor_env.rules.determinise`:
decks and the other players' reserved cards redrawn from the cards it has not seen). The
real position's hidden cards are never read, so two positions with the same view give the
same move for the same seed.

**The search** (single-observer information-set MCTS): one tree of move sequences for all
determinisations. Iteration ``i`` copies determinisation ``i mod determinisations`` and
descends the tree choosing, among the moves legal in that copy, the one of highest
``mean + EXPLORATION * sqrt(ln(available) / visits)``, where ``mean`` is the mean chance to
win of the player who made the move and ``available`` counts the iterations in which the
move was legal. At the first move not yet in the tree it adds it (at a new node the greedy
policy's move first, then the others in random order), then plays ``rollout``
moves of the greedy policy (:func:`~splendor_env.players.bots.greedy_move`; one in
:data:`EPSILON` is random instead) and scores the position for every seat with
:func:`~splendor_env.players.bots.win_chances` (the rules' result once the game is over),
which every node on the path adds for the player who moved into it. A decision with one
legal move is played without searching. The most visited move is played, ties by the higher
mean, then the lower id.

==========  ==========  ================  =======  ===========================
level       iterations  determinisations  rollout  note
==========  ==========  ================  =======  ===========================
``easy``    150         8                 4        about 15 ms a decision, one core
``medium``  500         16                8        won 33 of 40 games against greedy
``hard``    1500        24                12
==========  ==========  ================  =======  ===========================

``search:<level>=N`` sets the iterations to N. ``search:fitted`` is ``search:hard`` with
the evaluation's weights fitted to game outcomes, one set per player count
(:data:`~splendor_env.players.bots.FITTED`, :mod:`training.splendor_weights`) instead of
:func:`~splendor_env.players.bots.heuristic`'s hand-set ones. Everything is seeded: a player
is deterministic given its seed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from splendor_env.players.bots import FITTED, Weights, greedy_move, win_chances
from splendor_env.rules import State, determinise, view
from tabletop.agents import Agent

#: The exploration constant of the selection rule (win chances lie in ``[0, 1]``).
EXPLORATION = 0.7
#: The share of random moves in rollouts.
EPSILON = 0.1


class Level(NamedTuple):
    """A search level: iterations per decision, determinisations drawn per decision, and
    the greedy moves played from each new node before it is scored."""

    iterations: int
    determinisations: int
    rollout: int


LEVELS: dict[str, Level] = {
    "easy": Level(150, 8, 4),
    "medium": Level(500, 16, 8),
    "hard": Level(1500, 24, 12),
}


class _Node:
    __slots__ = ("available", "children", "seat", "total", "visits")

    def __init__(self, seat: int) -> None:
        #: The seat that made the move leading here (-1 at the root).
        self.seat = seat
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0


class SearchAgent(Agent):
    """Information-set MCTS on determinised positions (see the module doc)."""

    needs_observation = False

    def __init__(
        self,
        level: str = "medium",
        seed: int | None = None,
        budget: int | None = None,
        weights: Mapping[int, Weights] | None = None,
        name: str | None = None,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown search level {level!r}: expected one of {list(LEVELS)}")
        iterations, self.determinisations, self.rollout = LEVELS[level]
        self.level = level
        self.iterations = iterations if budget is None else budget
        if type(self.iterations) is not int or self.iterations < 1:
            raise ValueError(f"a search budget must be at least 1 iteration, got {budget!r}")
        #: The evaluation's weights per player count (None, or a count missing: the
        #: hand-set :func:`~splendor_env.players.bots.heuristic`).
        self.weights = dict(weights or {})
        base = name or f"search:{level}"
        self.name = base if budget is None else f"{base}={budget}"
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        return self.choose(state)

    def choose(self, state: State) -> int:
        """The move id this player plays in ``state``, planned on its seat's view only."""
        legal = state.legal_move_ids()
        if len(legal) == 1:
            return legal[0]
        rng = self._rng
        seen = view(state, state.to_move)
        worlds = [determinise(seen, rng) for _ in range(self.determinisations)]
        root = _Node(-1)
        weights = self.weights.get(state.num_players)
        for i in range(self.iterations):
            self._iterate(root, worlds[i % len(worlds)].copy(), rng, weights)
        best = max(
            root.children.items(),
            key=lambda item: (item[1].visits, item[1].total / max(item[1].visits, 1), -item[0]),
        )
        return best[0]

    def _iterate(
        self, root: _Node, state: State, rng: random.Random, weights: Weights | None
    ) -> None:
        node = root
        path = []
        while state.to_move >= 0:
            legal = state.legal_move_ids()
            children = node.children
            fresh = [m for m in legal if m not in children]
            if fresh:
                move = greedy_move(state) if not children else -1
                if move not in fresh:
                    move = fresh[rng.randrange(len(fresh))] if len(fresh) > 1 else fresh[0]
                child = children[move] = _Node(state.to_move)
                for m in legal:
                    if m in children:
                        children[m].available += 1
                state.apply(move)
                path.append(child)
                break
            log_n = 0.0
            best_score, best_move = -1.0, legal[0]
            for m in legal:
                child = children[m]
                child.available += 1
                log_n = math.log(child.available)
                score = child.total / child.visits + EXPLORATION * math.sqrt(log_n / child.visits)
                if score > best_score:
                    best_score, best_move = score, m
            node = children[best_move]
            state.apply(best_move)
            path.append(node)
        for _ in range(self.rollout):
            if state.to_move < 0:
                break
            if rng.random() < EPSILON:
                legal = state.legal_move_ids()
                state.apply(legal[rng.randrange(len(legal))])
            else:
                state.apply(greedy_move(state))
        chances = win_chances(state, weights)
        for node in path:
            node.visits += 1
            node.total += chances[node.seat]


def easy(seed: int | None = None, budget: int | None = None) -> SearchAgent:
    """``search:easy`` (``search:easy=N``: N iterations per decision)."""
    return SearchAgent("easy", seed=seed, budget=budget)


def medium(seed: int | None = None, budget: int | None = None) -> SearchAgent:
    """``search:medium`` (``search:medium=N``: N iterations per decision)."""
    return SearchAgent("medium", seed=seed, budget=budget)


def hard(seed: int | None = None, budget: int | None = None) -> SearchAgent:
    """``search:hard`` (``search:hard=N``: N iterations per decision)."""
    return SearchAgent("hard", seed=seed, budget=budget)


def fitted(seed: int | None = None, budget: int | None = None) -> SearchAgent:
    """``search:fitted``: ``search:hard``'s search with the evaluation weights fitted to game
    outcomes (:data:`~splendor_env.players.bots.FITTED`, one set per player count)."""
    return SearchAgent("hard", seed=seed, budget=budget, weights=FITTED, name="search:fitted")
