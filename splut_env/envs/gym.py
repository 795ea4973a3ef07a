"""A single-agent Gymnasium view of Splut!: the learner is one player, opponents the rest.

Registered as ``splut_env/Splut-v0``::

    env = gymnasium.make("splut_env/Splut-v0", num_players=2, opponents="random")

Observations are the learner's ``float32[22, 9, 9]`` planes (:mod:`splut_env.encoding`),
actions are ``Discrete(196)`` in the learner's frame, ``action_masks()`` gives the legal
ones (the sb3-contrib ``MaskablePPO`` contract; also ``info["action_mask"]``). After each
learner step the opponents play until the learner is to move again or the game ends.

Rewards are the learner's own: +1 when it wins, −1 when its wizard dies (the episode
terminates at once, on its own step or on an opponent's), 0 otherwise; the turn cap gives
``truncated=True`` with 0. An illegal action ends the episode with −1 (``illegal_action=
"terminate"``, as PettingZoo classic) or raises (``"raise"``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from splut_env.encoding import (
    NUM_ACTIONS,
    OBS_SHAPE,
    action_mask,
    action_to_step_id,
    checked_action,
    checked_step_id,
    observation,
    observation_planes,
    step_id_to_action,
)
from splut_env.envs.aec import RENDER_MODES, check_settings, start_state
from splut_env.envs.render import Renderer
from splut_env.players import make_agent
from splut_env.rules import step_id
from splut_env.rules.board import SEATS, SEATS_IN_PLAY, whole_number
from splut_env.rules.notation import IllegalStepError, format_spn, step_text
from tabletop import gym_env
from tabletop.agents import Agent
from tabletop.gym_env import opponent_specs as opponent_specs  # re-exported

OpponentSpec = str | Agent


def player_index(value: object, num_players: int, name: str = "learner_player") -> int:
    """``value`` as a player index ``0..num_players - 1``; raises ``ValueError``."""
    index = whole_number(value)
    if index not in range(num_players):
        raise ValueError(
            f"{name} must be None or a player index 0..{num_players - 1}, got {value!r:.80}"
        )
    return index


def _learner_player(settings: dict[str, Any], default: int | None) -> tuple[object, str]:
    """The ``learner_player`` of ``settings`` (or its old name ``learner_seat``, with a
    ``DeprecationWarning``) and the name it was given under."""
    if "learner_seat" in settings:
        warnings.warn(
            "learner_seat is now called learner_player (a player index; seats are S, W, N, E)",
            DeprecationWarning,
            stacklevel=3,
        )
        if "learner_player" in settings:
            raise ValueError("give learner_player or learner_seat (its old name), not both")
        return settings["learner_seat"], "learner_seat"
    return settings.get("learner_player", default), "learner_player"


def opponent_agents(
    opponents: OpponentSpec | Sequence[OpponentSpec], num_players: int
) -> list[Agent]:
    """The agents of :func:`opponent_specs`, checked to be made for this table size."""
    return gym_env.opponent_agents(opponents, num_players, make_agent)


class SplutGymEnv(gymnasium.Env):
    """Splut! from one player's point of view, the other players played by ``opponents``.

    Args:
        num_players: 2, 3 or 4.
        max_turns: turn cap; the episode is truncated after that many turns.
        opponents: one agent (or registered name) for every other seat, or a list of
            ``num_players - 1`` of them, given to the other seats in turn order after the
            learner. Default ``"random"``.
        learner_player: the learner's player index (0 moves first), or ``None`` to draw it
            from ``np_random`` every episode (``learner_seat``, its old name, still works).
        illegal_action: ``"terminate"`` (−1, episode over) or ``"raise"``.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        num_players: int = 2,
        max_turns: int = 200,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
        learner_player: int | None = None,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        learner_seat: int | None = None,
    ) -> None:
        num_players = check_settings(num_players, max_turns, render_mode)
        given = {"learner_player": learner_player, "learner_seat": learner_seat}
        settings = {key: value for key, value in given.items() if value is not None}
        learner_player, name = _learner_player(settings, None)
        if learner_player is not None:
            learner_player = player_index(learner_player, num_players, name)
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}"
            )
        self.num_players = num_players
        self.set_opponents(opponents)
        self.max_turns = max_turns
        #: The learner's player index, or ``None`` to draw one every episode.
        self.learner_player = learner_player
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        #: The rules engine's position of the game (a :class:`splut_env.rules.State`).
        self.game_state = start_state(num_players, None)
        #: This episode's learner: its player index and its seat (0..3 for S, W, N, E).
        self.player, self.seat = 0, 0
        self._seat_opponent: dict[int, Agent] = {}
        self._renderer = Renderer(render_mode, self.metadata["render_fps"])

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Replace the opponents (takes effect at the next reset)."""
        self.opponents = opponent_agents(opponents, self.num_players)

    # --- episode ------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New game. ``options``: ``"spn"`` a start position, ``"learner_player"`` a player
        index."""
        super().reset(seed=seed)
        options = options or {}
        self.game_state = start_state(self.num_players, options)
        index, name = _learner_player(options, self.learner_player)
        if index is None:
            index = int(self.np_random.integers(self.num_players))
        index = player_index(index, self.num_players, name)
        seats = SEATS_IN_PLAY[self.num_players]
        self.player, self.seat = index, seats[index]
        others = seats[index + 1 :] + seats[:index]
        self._seat_opponent = dict(zip(others, self.opponents, strict=True))
        for opp in self.opponents:
            opp.reset(seed=int(self.np_random.integers(2**31)))
        _, terminated, truncated = self._play_opponents()
        if terminated or truncated:
            raise ValueError(
                f"the game from {format_spn(self.game_state)!r} ends before the learner "
                f"(seat {SEATS[self.seat]}) moves; choose another seat or position"
            )
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        state = self.game_state
        try:
            sid = checked_step_id(state, self.seat, action, who="the learner")
        except IllegalStepError as err:
            if self.illegal_action == "raise":
                raise
            gymnasium.logger.warn(str(err))
            info = self._info()
            info["illegal_action"] = True
            return self._obs(), -1.0, True, False, info
        state.apply(sid)
        reward, terminated, truncated = self._outcome()
        if not (terminated or truncated):
            reward, terminated, truncated = self._play_opponents()
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, terminated, truncated, self._info()

    def _outcome(self) -> tuple[float, bool, bool]:
        state = self.game_state
        if not state.alive(self.seat):
            return -1.0, True, False
        if state.is_over():
            return (1.0 if state.winner() == self.seat else 0.0), True, False
        if state.turn > self.max_turns:
            return 0.0, False, True
        return 0.0, False, False

    def _play_opponents(self) -> tuple[float, bool, bool]:
        state = self.game_state
        while True:
            reward, terminated, truncated = self._outcome()
            if terminated or truncated or state.to_move == self.seat:
                return reward, terminated, truncated
            seat = state.to_move
            opp = self._seat_opponent[seat]
            obs = observation(state, seat, self.max_turns) if opp.needs_observation else None
            action = opp.act(state, obs)
            state.apply(checked_step_id(state, seat, action, who=f"opponent {opp!r}"))

    # --- conversions for the learner --------------------------------------------------

    def action_to_step(self, action: int) -> str:
        """Step notation (board frame) of a learner's ``action``."""
        return step_text(action_to_step_id(self.seat, checked_action(action)))

    def step_to_action(self, step: str) -> int:
        """The learner's action for a legal step in notation (the learner must be to move)."""
        return step_id_to_action(self.seat, step_id(self.game_state, step))

    # --- views --------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all false once the game is over)."""
        return action_mask(self.game_state, self.seat).astype(bool)

    def _obs(self) -> np.ndarray:
        return observation_planes(self.game_state, self.seat, self.max_turns)

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": action_mask(self.game_state, self.seat),
            "player": self.player,
            "seat": SEATS[self.seat],
            "turn": self.game_state.turn,
        }

    def render(self) -> str | np.ndarray | None:
        return self._renderer.render(self.game_state)

    def close(self) -> None:
        self._renderer.close()
