"""A search player over the board network: :class:`MCTSAgent`, Monte Carlo tree search at
step level (PUCT, as AlphaZero), the network's policy as the prior and its value at the
leaves, the leaves of a few simulations evaluated in one forward pass.

A turn is 1 to 3 steps by the same player, so a node's player is whoever is to move in its
position and values change perspective only when that changes. Every node backs up one
value per seat (max-n): the player to move maximises its own. At a leaf, the network's
value ``v`` (with the reward shaping it was trained with taken back out, then clipped to
[-1, 1]) is the mover's, each other seat still in play gets ``-v / (seats in play - 1)``,
and a seat that is out gets -1. A finished game backs up its exact result: +1 to the
winner, -1 to every other seat; a game past its turn cap is 0 for every seat still in play.

Wins are known exactly where they are cheap to see: before searching, the player looks
through every way its turn can end (as the shield does) and plays the first step of one
that wins the game; inside the tree, expanding a node tries each of its steps once, so a
step that wins at once is known, and so is a step to a position of the same player that has
a known win (a kill later in the turn). Otherwise the most visited step is played.

``make_agent("checkpoints/splut_2p.zip:mcts")`` (``DEFAULT_SIMULATIONS`` simulations per
step) or ``…:mcts=N``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from splut_env.encoding import (
    NUM_ACTIONS,
    legal_log_policy,
    observation_planes,
    step_id_to_action,
)
from splut_env.players.bots import potential
from splut_env.players.network import PolicyAgent
from splut_env.players.tactics import iter_turn_outcomes
from splut_env.rules.engine import State
from tabletop.agents import Agent, budget_suffix

#: Simulations per step of ``…:mcts``: 260 ms per step for the shipped 2-player network
#: (6 × 64) on the 2-core development machine (two games at once, one per core); the budget
#: is 300 ms.
DEFAULT_SIMULATIONS = 256
MCTS_SUFFIX = ":mcts"


class Node:
    """A position in the tree: its player to move (``-1`` when the game is over), the legal
    steps with their priors, and per step the visit count and the summed value per seat."""

    __slots__ = ("children", "mover", "prior", "result", "state", "steps", "value", "visits", "win")

    def __init__(self, state: State, max_turns: int) -> None:
        self.state = state
        self.result: np.ndarray | None = None
        if state.is_over() or state.turn > max_turns:
            self.mover = -1
            self.result = final_values(state)
        else:
            self.mover = state.to_move
        self.steps: list[int] = []
        self.prior = np.zeros(0)
        self.visits = np.zeros(0)
        self.value = np.zeros((0, 4))
        self.children: dict[int, Node] = {}
        #: The index of a step that wins for the player to move within its turn (a step
        #: that ends the game in its favour, or one to a position of its own with such a
        #: step), once found; -1 until then.
        self.win = -1

    @property
    def expanded(self) -> bool:
        return bool(self.steps)

    def expand(self, prior_logits: np.ndarray, max_turns: int) -> None:
        """Legal steps, priors from the network's logits, and any step that wins at once."""
        self.steps = self.state.legal_ids()
        for k, step in enumerate(self.steps):
            state = self.state.copy()
            state.apply(step)
            if state.is_over() and state.winner() == self.mover:
                self.children[step] = Node(state, max_turns)
                self.win = k
                break
        self.prior = np.exp(legal_log_policy(prior_logits, self.mover, self.steps))
        self.visits = np.zeros(len(self.steps))
        self.value = np.zeros((len(self.steps), 4))

    def choose(self, c_puct: float, first_play: float) -> int:
        """The index of the step PUCT picks for the player to move (a winning step once
        one is known)."""
        if self.win >= 0:
            return self.win
        total = self.visits.sum()
        q = np.where(
            self.visits > 0, self.value[:, self.mover] / np.maximum(self.visits, 1), first_play
        )
        u = c_puct * self.prior * math.sqrt(total + 1) / (1 + self.visits)
        return int(np.argmax(q + u))


def final_values(state: State) -> np.ndarray:
    """Per-seat values of a finished (or capped) game."""
    values = np.zeros(4)
    winner = state.winner() if state.is_over() else -1
    for seat in state.seats:
        if winner >= 0:
            values[seat] = 1.0 if seat == winner else -1.0
        elif not state.alive(seat):
            values[seat] = -1.0
    return values


def leaf_values(state: State, value: float) -> np.ndarray:
    """Per-seat values of a position the network rated ``value`` for its player to move."""
    v = float(np.clip(value, -1.0, 1.0))
    alive = state.alive_seats()
    values = np.zeros(4)
    for seat in state.seats:
        if not state.alive(seat):
            values[seat] = -1.0
        elif seat == state.to_move:
            values[seat] = v
        else:
            values[seat] = -v / max(len(alive) - 1, 1)
    return values


class MCTSAgent(Agent):
    """PUCT search over single steps with a trained policy as prior and value (module doc).

    Args:
        inner: the network's player (:class:`PolicyAgent`).
        simulations: simulations per step (the budget).
        c_puct: weight of the prior in the selection.
        batch: leaves evaluated together in one forward pass (virtual visits spread the
            simulations of a batch over different paths).
    """

    needs_observation = False

    def __init__(
        self,
        inner: PolicyAgent,
        simulations: int = DEFAULT_SIMULATIONS,
        c_puct: float = 1.5,
        batch: int = 8,
    ) -> None:
        if not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a whole number ≥ 1, got {simulations!r}")
        self.inner = inner
        self.policy = inner.policy
        self.simulations = simulations
        self.c_puct = c_puct
        self.batch = max(1, min(batch, simulations))
        self.max_turns = inner.max_turns
        self.num_players = inner.num_players
        #: The reward-shaping weight the network was trained with: its value head learnt
        #: the shaped return, ``V(s) - shaping * phi(s)``, so the search adds
        #: ``shaping * phi(s)`` back (``phi``: :func:`~splut_env.players.bots.potential`).
        self.shaping = float(self.meta.get("reward_shaping", 0.0))
        self.name = f"{inner.name}{MCTS_SUFFIX}={simulations}"

    @property
    def meta(self) -> dict[str, Any]:
        return getattr(self.inner, "meta", {})

    def act(self, state: State, observation: Any = None) -> int:
        return int(np.argmax(self.search(state)))

    def search(
        self,
        state: State,
        simulations: int | None = None,
        noise: tuple[float, float, np.random.Generator] | None = None,
    ) -> np.ndarray:
        """The search's visit counts over the actions (the mover's frame) after
        ``simulations`` (default: the agent's budget); a turn that wins at once gets all the
        visits on its first step. ``noise`` ``(alpha, fraction, rng)`` mixes Dirichlet noise
        into the root's priors, for self-play."""
        visits = np.zeros(NUM_ACTIONS)
        for steps, end in iter_turn_outcomes(state):
            if end.is_over() and end.winner() == state.to_move:
                visits[step_id_to_action(state.to_move, steps[0])] = 1.0
                return visits
        simulations = self.simulations if simulations is None else simulations
        root = Node(state.copy(), self.max_turns)
        self._evaluate([root])
        if noise is not None and root.win < 0:
            alpha, fraction, rng = noise
            root.prior = (1 - fraction) * root.prior + fraction * rng.dirichlet(
                np.full(len(root.steps), alpha)
            )
        done = simulations if root.win >= 0 else 0
        while done < simulations:
            paths = [self._select(root) for _ in range(min(self.batch, simulations - done))]
            leaves = [path[-1][0] for path in paths]
            fresh = list({id(leaf): leaf for leaf in leaves if leaf.result is None}.values())
            values = self._evaluate(fresh)
            for path in paths:
                leaf = path[-1][0]
                result = leaf.result if leaf.result is not None else values[id(leaf)]
                self._backup(path, result)
            done += len(paths)
        if root.win >= 0:
            visits[step_id_to_action(root.mover, root.steps[root.win])] = 1.0
            return visits
        for step, count in zip(root.steps, root.visits, strict=True):
            visits[step_id_to_action(root.mover, step)] = count
        return visits

    def _select(self, root: Node) -> list[tuple[Node, int]]:
        """A path from the root to a leaf (an unexpanded or finished node); each visited
        step gets a virtual visit with a loss for its mover until the backup."""
        path: list[tuple[Node, int]] = []
        node = root
        while node.expanded and node.result is None:
            first_play = node.value[:, node.mover].sum() / max(node.visits.sum(), 1) - 0.2
            k = node.choose(self.c_puct, first_play)
            node.visits[k] += 1
            node.value[k, node.mover] -= 1.0
            path.append((node, k))
            step = node.steps[k]
            child = node.children.get(step)
            if child is None:
                state = node.state.copy()
                state.apply(step)
                child = node.children[step] = Node(state, self.max_turns)
            node = child
        path.append((node, -1))
        return path

    def _backup(self, path: list[tuple[Node, int]], values: np.ndarray) -> None:
        child = path[-1][0]
        for node, k in reversed(path[:-1]):
            node.value[k, node.mover] += 1.0  # undo the virtual loss
            node.value[k] += values
            if node.win < 0 and child.win >= 0 and child.mover == node.mover:
                node.win = k  # the same player's turn goes on to a winning step
            child = node

    @torch.no_grad()
    def _evaluate(self, nodes: list[Node]) -> dict[int, np.ndarray]:
        """Expand ``nodes`` with the network's priors; their per-seat leaf values by id."""
        if not nodes:
            return {}
        planes = np.stack(
            [observation_planes(node.state, node.mover, self.max_turns) for node in nodes]
        )
        obs = torch.as_tensor(planes)
        policy = self.policy
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
        logits = policy.action_net(latent_pi).numpy()
        values = policy.value_net(latent_vf).numpy()[:, 0]
        out = {}
        for node, row, value in zip(nodes, logits, values, strict=True):
            if not node.expanded:
                node.expand(row, self.max_turns)
            if self.shaping:
                value += self.shaping * potential(node.state, node.mover)
            out[id(node)] = leaf_values(node.state, value)
        return out


def parse_mcts(spec: str) -> tuple[str, int] | None:
    """``("path.zip", simulations)`` for ``path.zip:mcts`` or ``path.zip:mcts=N``; ``None``
    for a spec without the suffix. Raises ``ValueError`` for a bad ``N``."""
    return budget_suffix(spec, MCTS_SUFFIX, DEFAULT_SIMULATIONS, "of simulations", 100_000)
