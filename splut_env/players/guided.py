"""The expert's search guided by a network: :class:`GuidedSearchAgent`, ``path.zip:expert``.

``search:expert`` searches whole turns by iterative-deepening alpha-beta with a hand-made
evaluation tuned by matches (:mod:`splut_env.batched.bots`). Many of the turns it compares
end in positions that evaluation cannot tell apart, and among equals the bot picks at
random. This player runs the same search and lets the network decide among the turns the
search values equally. At each depth of the deepening the root's turns are searched in
order of their value at the depth before (first, of the evaluation), then of the network's
probability of the turn: the product of its policy's probabilities of the turn's steps,
each over the legal steps of its position, all positions in one forward pass. The first
turn to reach the best value is kept, so among turns of equal value the network's likeliest
is played. The search decides what it can see; the network chooses where it cannot.

``make_agent("checkpoints/splut_2p.zip:expert")`` (:data:`DEFAULT_NODES` positions a turn)
or ``…:expert=N``.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from splut_env.encoding import legal_log_policy, observation_planes
from splut_env.players.bots import TurnPlanner
from splut_env.players.network import PolicyAgent
from splut_env.rules.engine import State
from tabletop.agents import budget_suffix, load_entry_point

#: Positions searched per turn by ``…:expert`` without a budget: with the network's share of
#: the time, about the cost per step of ``search:expert=6500``. ``best:2p`` names its own
#: budget (``splut_env.players.BEST``).
DEFAULT_NODES = 6000
GUIDED_SUFFIX = ":expert"
#: The expert's search in compiled kernels (a layer above this one: named, not imported).
COMPILED_BOT = "splut_env.batched.bots:BatchedBot"


class GuidedSearchAgent(TurnPlanner):
    """``search:expert`` with ``nodes`` positions a turn, its ties among the root's turns
    broken by the network of ``agent`` (see the module doc)."""

    def __init__(self, agent: PolicyAgent, nodes: int = DEFAULT_NODES, seed: int | None = None):
        super().__init__(seed)
        self.agent = agent
        self.num_players = agent.num_players
        self.nodes = nodes
        self.name = agent.name + GUIDED_SUFFIX + ("" if nodes == DEFAULT_NODES else f"={nodes}")
        self._bot = load_entry_point(COMPILED_BOT)("search:expert", seed=seed, nodes=nodes)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.agent.reset(seed)
        self._bot.reset(seed)

    def plan_turn(self, state: State) -> tuple[int, ...]:
        return self._bot.plan_ranked(state, partial(self.turn_log_priors, state))

    def turn_log_priors(self, state: State, turns: list[tuple[int, ...]]) -> np.ndarray:
        """The network's log-probability of each turn (step ids, board frame) from
        ``state``: the sum over its steps of the policy's log-softmax over the legal steps
        of the position each is played from (all positions in one forward pass)."""
        positions: dict[tuple[int, ...], State] = {(): state}
        for turn in turns:
            for i in range(1, len(turn)):
                prefix = turn[:i]
                if prefix not in positions:
                    after = positions[prefix[:-1]].copy()
                    after.apply(prefix[-1])
                    positions[prefix] = after
        prefixes = list(positions)
        max_turns = self.agent.max_turns
        planes = np.stack(
            [observation_planes(positions[p], positions[p].to_move, max_turns) for p in prefixes]
        )
        logits = self.agent.logits(planes)
        log_p: dict[tuple[int, ...], dict[int, float]] = {}
        for prefix, row in zip(prefixes, logits, strict=True):
            position = positions[prefix]
            ids = position.legal_ids()
            log_p[prefix] = dict(
                zip(ids, legal_log_policy(row, position.to_move, ids), strict=True)
            )
        return np.array([sum(log_p[turn[:i]][turn[i]] for i in range(len(turn))) for turn in turns])


def parse_guided(spec: str) -> tuple[str, int] | None:
    """``("path.zip", nodes)`` for ``path.zip:expert`` or ``path.zip:expert=N``; ``None`` for
    a spec without the suffix. Raises ``ValueError`` for a bad ``N``."""
    return budget_suffix(
        spec, GUIDED_SUFFIX, DEFAULT_NODES, "of positions a turn", head_ends=".zip"
    )
