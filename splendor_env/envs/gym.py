"""A single-agent Gymnasium view of Splendor: the learner is one player, opponents the rest.

Registered as ``splendor_env/Splendor-v0``::

    env = gymnasium.make("splendor_env/Splendor-v0", num_players=3, opponents="greedy")

Observations are the learner's ``float32[644]`` features (:mod:`splendor_env.encoding`:
only what it may see), actions are the 77 move ids, ``action_masks()`` gives the legal ones
(the sb3-contrib ``MaskablePPO`` contract; also ``info["action_mask"]``). After each learner
action the opponents play until the learner is to move again or the game ends, so the masks
are always the learner's own. A game stopped by the cap of 100 rounds is truncated.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from splendor_env.encoding import checked_move_id
from splendor_env.envs.aec import RENDER_MODES, SplendorEnvHooks, checked_action
from splendor_env.players import make_agent
from splendor_env.rules import move_id, move_text
from splendor_env.rules.moves import MOVE_TEXTS
from tabletop import gym_env
from tabletop.agents import Agent
from tabletop.gym_env import GameGymEnv
from tabletop.gym_env import OpponentSpec as OpponentSpec
from tabletop.gym_env import player_index as player_index


def opponent_agents(
    opponents: OpponentSpec | Sequence[OpponentSpec], num_players: int
) -> list[Agent]:
    """One agent per other player: ``opponents`` itself if it is a list of
    ``num_players - 1`` agents (or names, :func:`splendor_env.players.make_agent`), or one
    spec for all; raises ``ValueError``."""
    return gym_env.opponent_agents(opponents, num_players, make_agent)


class SplendorGymEnv(SplendorEnvHooks, GameGymEnv):
    """Splendor from one player's point of view, the other players played by ``opponents``.

    Args:
        num_players: 2, 3 or 4.
        opponents: one agent (or registered name, :func:`splendor_env.players.make_agent`)
            for every other seat, or a list of ``num_players - 1`` of them, given to the
            other seats in turn order after the learner. Default ``"random"``.
        learner_player: the learner's seat, or ``None`` to draw it from ``np_random`` every
            episode.
        reward: ``"win"``: at the end +1 for a sole win, 0 for a shared one or none, −1 for
            a loss; ``"margin"``: after every learner action the change of its prestige
            margin (own points minus the best other) / 15 since its previous action,
            opponents' moves included.
        illegal_action: ``"terminate"`` (−1, episode over) or ``"raise"``
            (:class:`~splendor_env.rules.IllegalMoveError`).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.

    ``info`` has ``action_mask`` (int8), ``legal_moves`` (the learner's legal move texts,
    by id) and ``player``; after an illegal action also ``illegal_action: True``.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def _move_texts(self, actions: np.ndarray) -> list[str]:
        return [MOVE_TEXTS[i] for i in actions]

    def action_to_move(self, action: int) -> str:
        """Move text of a legal learner ``action``."""
        return move_text(
            checked_move_id(self.game_state, self.seat, checked_action(action), "the learner")
        )

    def move_to_action(self, move: str) -> int:
        """The learner's action for a legal move in text (the learner must be to move)."""
        return move_id(self.game_state, move)
