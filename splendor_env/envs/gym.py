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
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from splendor_env.encoding import (
    NUM_ACTIONS,
    OBS_SHAPE,
    action_mask,
    checked_move_id,
    observation,
)
from splendor_env.envs.aec import (
    RENDER_MODES,
    check_settings,
    checked_action,
    final_rewards,
    margins,
    shuffle_seed,
    start_state,
)
from splendor_env.envs.render import Renderer
from splendor_env.players import make_agent
from splendor_env.rules import IllegalMoveError, is_truncated, move_id, move_text, to_text
from splendor_env.rules.moves import MOVE_TEXTS
from tabletop.agents import Agent, check_table

OpponentSpec = str | Agent


def player_index(value: object, num_players: int, name: str = "learner_player") -> int:
    """``value`` as a player index ``0..num_players - 1``; raises ``ValueError``."""
    if isinstance(value, np.integer):
        value = int(value)
    if type(value) is not int or value not in range(num_players):
        raise ValueError(
            f"{name} must be None or a player index 0..{num_players - 1}, got {value!r:.80}"
        )
    return value


def opponent_agents(
    opponents: OpponentSpec | Sequence[OpponentSpec], num_players: int
) -> list[Agent]:
    """One agent per other player: ``opponents`` itself if it is a list of
    ``num_players - 1`` agents (or names, :func:`splendor_env.players.make_agent`), or one
    spec for all; raises ``ValueError``."""
    n = num_players
    if isinstance(opponents, (str, Agent)):
        specs = [opponents] * (n - 1)
    elif isinstance(opponents, (list, tuple)) and len(opponents) == n - 1:
        specs = list(opponents)
    else:
        raise ValueError(
            f"opponents: expected an agent (or its name) or a list of {n - 1} for {n} "
            f"players, got {opponents!r:.120}"
        )
    agents = [make_agent(spec) for spec in specs]
    check_table(agents, n)
    return agents


class SplendorGymEnv(gymnasium.Env):
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

    def __init__(
        self,
        num_players: int = 2,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
        learner_player: int | None = None,
        reward: str = "win",
        illegal_action: str = "terminate",
        render_mode: str | None = None,
    ) -> None:
        num_players = check_settings(num_players, render_mode, reward)
        if learner_player is not None:
            learner_player = player_index(learner_player, num_players)
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r:.80}"
            )
        self.num_players = num_players
        self.set_opponents(opponents)
        #: The learner's seat, or ``None`` to draw one every episode.
        self.learner_player = learner_player
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        #: The rules engine's position of the game (a :class:`splendor_env.rules.State`).
        self.game_state = start_state(num_players, None, 0)
        #: This episode's learner seat.
        self.seat = 0
        self._seat_opponent: dict[int, Agent] = {}
        self._margin = 0.0
        self._renderer = Renderer(render_mode, self.metadata["render_fps"])

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Replace the opponents (takes effect at the next reset)."""
        self.opponents = opponent_agents(opponents, self.num_players)

    # --- episode ------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New game shuffled from ``np_random``. ``options``: ``"position"`` a start position
        (text), ``"learner_player"`` a seat."""
        super().reset(seed=seed)
        options = options or {}
        self.game_state = start_state(self.num_players, options, shuffle_seed(self.np_random))
        seat = options.get("learner_player", self.learner_player)
        if seat is None:
            seat = int(self.np_random.integers(self.num_players))
        self.seat = player_index(seat, self.num_players)
        n = self.num_players
        others = [(self.seat + k) % n for k in range(1, n)]
        self._seat_opponent = dict(zip(others, self.opponents, strict=True))
        for opp in self.opponents:
            opp.reset(seed=int(self.np_random.integers(2**31)))
        self._margin = margins(self.game_state)[self.seat]
        self._play_opponents()
        if self.game_state.is_over():
            raise ValueError(
                f"the game from {to_text(self.game_state)!r} ends before the learner "
                f"(seat {self.seat}) moves; choose another seat or position"
            )
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        state = self.game_state
        if state.is_over():
            raise ValueError("step() after the episode ended: call reset() first")
        try:
            move = checked_move_id(state, self.seat, action, who="the learner")
        except IllegalMoveError as err:
            if self.illegal_action == "raise":
                raise
            gymnasium.logger.warn(str(err))
            info = self._info()
            info["illegal_action"] = True
            return self._obs(), -1.0, True, False, info
        state.apply(move)
        self._play_opponents()
        reward = self._reward()
        if self.render_mode == "human":
            self.render()
        truncated = is_truncated(state)
        return self._obs(), reward, state.is_over() and not truncated, truncated, self._info()

    def _reward(self) -> float:
        state = self.game_state
        if self.reward_mode == "margin":
            after = margins(state)[self.seat]
            reward, self._margin = after - self._margin, after
            return reward
        if state.is_over():
            return final_rewards(state)[self.seat]
        return 0.0

    def _play_opponents(self) -> None:
        state = self.game_state
        while not state.is_over() and state.to_move != self.seat:
            seat = state.to_move
            opp = self._seat_opponent[seat]
            obs = None
            if opp.needs_observation:
                obs = {
                    "observation": observation(state, seat),
                    "action_mask": action_mask(state, seat).view(np.int8),
                }
            action = opp.act(state, obs)
            state.apply(checked_move_id(state, seat, action, who=f"opponent {opp!r}"))

    # --- conversions for the learner ----------------------------------------------------

    def action_to_move(self, action: int) -> str:
        """Move text of a legal learner ``action``."""
        return move_text(
            checked_move_id(self.game_state, self.seat, checked_action(action), "the learner")
        )

    def move_to_action(self, move: str) -> int:
        """The learner's action for a legal move in text (the learner must be to move)."""
        return move_id(self.game_state, move)

    # --- views --------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all false once the game is over)."""
        return action_mask(self.game_state, self.seat)

    def _obs(self) -> np.ndarray:
        return observation(self.game_state, self.seat)

    def _info(self) -> dict[str, Any]:
        state = self.game_state
        mask = action_mask(state, self.seat)
        return {
            "action_mask": mask.view(np.int8),
            "legal_moves": [MOVE_TEXTS[i] for i in np.flatnonzero(mask)],
            "player": self.seat,
        }

    def render(self) -> str | np.ndarray | None:
        return self._renderer.render(self.game_state)

    def close(self) -> None:
        self._renderer.close()
