"""A single-agent Gymnasium view of Talat: the learner is one player, opponents the rest.

Registered as ``talat_env/Talat-v0``::

    env = gymnasium.make("talat_env/Talat-v0", num_players=3, opponents="greedy")

Observations are the learner's ``float32[74, 5, 17]`` planes (:mod:`talat_env.encoding`),
actions are ``Discrete(1051)`` in the learner's frame, ``action_masks()`` gives the legal
ones (the sb3-contrib ``MaskablePPO`` contract; also ``info["action_mask"]``). After each
learner action the opponents play until the learner is to move again or the game ends, so
the masks are always the learner's own. The set-up is played too: one action per placement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop import gym_env
from tabletop.agents import Agent
from tabletop.gym_env import GameGymEnv
from tabletop.gym_env import OpponentSpec as OpponentSpec
from tabletop.gym_env import opponent_specs as opponent_specs
from tabletop.gym_env import player_index as player_index
from talat_env.encoding import action_of, checked_move_id, legal_actions, move_of
from talat_env.envs.aec import RENDER_MODES, TalatEnvHooks, checked_action
from talat_env.players import make_agent
from talat_env.rules import move_id, move_text
from talat_env.rules.board import COLOUR_NAMES, COLOURS


def opponent_agents(
    opponents: OpponentSpec | Sequence[OpponentSpec], num_players: int
) -> list[Agent]:
    """The agents of :func:`opponent_specs` (names made by
    :func:`talat_env.players.make_agent`), checked to be made for this table size."""
    return gym_env.opponent_agents(opponents, num_players, make_agent)


class TalatGymEnv(TalatEnvHooks, GameGymEnv):
    """Talat from one player's point of view, the other players played by ``opponents``.

    Args:
        num_players: 2 (with the Zihin) or 3.
        opponents: one agent (or registered name, :func:`talat_env.players.make_agent`) for
            every other seat, or a list of ``num_players - 1`` of them, given to the other
            seats in turn order after the learner. Default ``"random"``.
        learner_player: the learner's seat (0 white, 1 black, 2 grey), or ``None`` to draw
            it from ``np_random`` every episode.
        reward: ``"win"``: at the end +1 for a sole win, 0 for a shared one, −1 for a loss
            (rules §7.2); ``"margin"``: after every learner action the change of its score
            margin (own score minus the best other) / 10 since its previous action,
            opponents' moves included, adding up to the final margin / 10.
        illegal_action: ``"terminate"`` (−1, episode over) or ``"raise"``
            (:class:`~talat_env.rules.IllegalMoveError`).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.

    ``info`` has ``action_mask`` (int8), ``legal_actions`` (the learner's legal actions,
    ascending), ``legal_moves`` (their move texts, in the same order), ``player`` and
    ``colour``; after an illegal action also ``illegal_action: True``.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def _move_texts(self, actions: np.ndarray) -> list[str]:
        n, seat = self.num_players, self.seat
        return [move_text(self.game_state, move_of(n, seat, int(a))) for a in actions]

    def _learner_name(self, seat: int) -> str:
        return COLOUR_NAMES[seat]

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        info["legal_actions"] = legal_actions(self.game_state, self.seat)
        info["colour"] = COLOURS[self.seat]
        return info

    def action_to_move(self, action: int) -> str:
        """Move text (boards' own frame) of a legal learner ``action``."""
        move = checked_move_id(self.game_state, self.seat, checked_action(action), "the learner")
        return move_text(self.game_state, move)

    def move_to_action(self, move: str) -> int:
        """The learner's action for a legal move in text (the learner must be to move)."""
        return action_of(self.num_players, self.seat, move_id(self.game_state, move))
