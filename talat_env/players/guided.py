"""Talat's expert search guided by a network: :class:`GuidedSearchAgent`, ``path.zip:expert``.

``search:expert`` (:mod:`talat_env.players.search`) values many root moves equally, above
all during set-up, and picks among equals by a seeded shuffle. This player runs the same
search (:meth:`~talat_env.players.search.SearchAgent.choose_guided`) and lets the network
decide among them: one forward pass gives the policy's log-probability of each legal move
(a log-softmax over the legal moves); root moves are searched in order of their value at the
depth before, then of that probability, and of the moves the search values within
``margin`` of the best (0: equal), the network's likeliest is played. During set-up the
search ranks the placements and the network decides among the equal ones the same way. The
search decides what it can see; the network chooses where it cannot. The opponents' beam
moves (3 players) are still chosen by the evaluation.

``make_agent("checkpoints/talat_3p.zip:expert")`` (:data:`DEFAULT_NODES` positions a move,
as ``search:expert``: the forward pass costs about 1 ms a move on one torch thread, under
1 % of the search, so both take about the same time a move) or ``…:expert=N``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from tabletop.agents import Agent, budget_suffix
from talat_env.encoding import action_of, observation
from talat_env.players.search import LEVELS, SearchAgent
from talat_env.rules.engine import State

if TYPE_CHECKING:
    from tabletop.network import PolicyAgent

#: Positions searched per move by ``…:expert`` without a budget: ``search:expert``'s.
DEFAULT_NODES = LEVELS["expert"].budget
GUIDED_SUFFIX = ":expert"


class GuidedSearchAgent(Agent):
    """``search:expert`` with ``nodes`` positions a move, its root moves within ``margin``
    of the best value decided by the network of ``agent`` (see the module doc)."""

    needs_observation = False

    def __init__(
        self,
        agent: PolicyAgent,
        nodes: int = DEFAULT_NODES,
        seed: int | None = None,
        margin: float = 0.0,
    ) -> None:
        if not margin >= 0.0:
            raise ValueError(f"a guided search margin must be at least 0, got {margin!r}")
        self.agent = agent
        self.num_players = agent.num_players
        self.nodes = nodes
        self.margin = margin
        self.name = agent.name + GUIDED_SUFFIX + ("" if nodes == DEFAULT_NODES else f"={nodes}")
        self.search = SearchAgent("expert", seed=seed, budget=nodes)

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)
        self.search.reset(seed)

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        return action_of(state.num_players, state.to_move, self.choose(state))

    def choose(self, state: State) -> int:
        """The engine move id this player plays in ``state``."""
        return self.search.choose_guided(state, self.log_priors, self.margin)

    def log_priors(self, state: State, moves: list[int]) -> np.ndarray:
        """The network's log-probability of each of ``moves`` (engine ids, the legal moves
        of ``state``): its policy's log-softmax over them, from one forward pass."""
        seat = state.to_move
        logits = self.agent.logits(observation(state, seat)[None])[0]
        legal = logits[[action_of(state.num_players, seat, m) for m in moves]].astype(np.float64)
        legal -= legal.max()
        return legal - np.log(np.exp(legal).sum())


def parse_guided(spec: str) -> tuple[str, int] | None:
    """``("path.zip", nodes)`` for ``path.zip:expert`` or ``path.zip:expert=N``; ``None`` for
    a spec without the suffix. Raises ``ValueError`` naming ``spec`` for a bad ``N``."""
    return budget_suffix(
        spec, GUIDED_SUFFIX, DEFAULT_NODES, "of positions a move", head_ends=".zip"
    )
