"""What every game's PettingZoo AEC environment shares: :class:`GameAECEnv`, agents
``player_0 … player_{n-1}`` taking turns as the game's rules say, over the game's
:class:`~tabletop.games.Game` descriptor and the :class:`~tabletop.gym_env.GameEnvHooks` the
game supplies; and :func:`classic_env`, PettingZoo's classic wrappers around one."""

from __future__ import annotations

import abc
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from tabletop.games import Game, get_game
from tabletop.gym_env import GameEnvHooks


def classic_env(env: AECEnv) -> AECEnv:
    """``env`` in PettingZoo's classic wrappers: an illegal action ends the game, −1 to the
    player who made it; out-of-bounds actions are refused; the API order is enforced."""
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


class GameAECEnv(GameEnvHooks, AECEnv, EzPickle):
    """A game as a bare PettingZoo AEC env: illegal actions raise the game's
    ``IllegalMoveError``.

    Args:
        num_players: a table size of the game.
        render_mode: ``None`` or one of ``metadata["render_modes"]``.
        reward: ``"win"`` (the final rewards at the end) or ``"margin"`` (the change of each
            player's score margin, every move).

    Besides :class:`~tabletop.gym_env.GameEnvHooks` a game supplies :attr:`state_shape`,
    :meth:`state`, :meth:`action_to_move` and :meth:`move_to_action`, and its
    ``metadata``.
    """

    #: The shape of :meth:`state`, the global state.
    state_shape: tuple[int, ...]

    def __init__(
        self, num_players: int = 2, render_mode: str | None = None, reward: str = "win"
    ) -> None:
        EzPickle.__init__(self, num_players, render_mode, reward)
        AECEnv.__init__(self)
        num_players = self._check_settings(num_players, render_mode, reward)
        #: The game's descriptor.
        self.game: Game = get_game(self.game_name)
        self.num_players = num_players
        self.render_mode = render_mode
        self.reward_mode = reward
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        num_actions = self.game.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, self.game.observation_shape, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, self.state_shape, dtype=np.float32)
        self.np_random, self.np_random_seed = gymnasium.utils.seeding.np_random(None)
        #: The rules engine's position of the game.
        self.game_state = self._start_state(None)
        self._margins_before = [0.0] * num_players
        self._renderer = self._make_renderer(render_mode)

    @abc.abstractmethod
    def state(self) -> np.ndarray:
        """The global state (``state_space``), for centralised critics."""

    @abc.abstractmethod
    def action_to_move(self, action: int) -> str:
        """The move text of ``action``, a legal action of the agent to move; raises
        ``ValueError`` otherwise."""

    @abc.abstractmethod
    def move_to_action(self, move: str) -> int:
        """The action, in the frame of the agent to move, of a legal move in text."""

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (a game of chance shuffled from ``np_random``, seeded by
        ``seed``); ``options={"position": text}`` starts from that position instead."""
        if seed is not None:
            self.np_random, self.np_random_seed = gymnasium.utils.seeding.np_random(seed)
        self.game_state = self._start_state(options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.player_to_move(self.game_state)]
        self._skip_agent_selection = None
        if self.reward_mode == "margin":
            self._margins_before = self._margins(self.game_state)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seat[agent]
        return {
            "observation": self._observation(self.game_state, seat),
            "action_mask": self._action_mask(self.game_state, seat).view(np.int8),
        }

    def step(self, action: int | None) -> None:
        if not self.agents:
            raise ValueError("step() after the game is over (no agent left): call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        self.game.play_action(state, action, agent)
        self._cumulative_rewards[agent] = 0
        if self.reward_mode == "margin":
            after = self._margins(state)
            for a, s in self.agent_seat.items():
                self.rewards[a] = after[s] - self._margins_before[s]
            self._margins_before = after
            self._accumulate_rewards()
        # With reward="win" the rewards stay 0 until the end: nothing to clear or add.
        seat = self.game.player_to_move(state)
        if seat is None:
            if self._is_truncated(state):
                self.truncations = dict.fromkeys(self.agents, True)
            else:
                if self.reward_mode == "win":
                    rewards = self._final_rewards(state)
                    for a, r in zip(self.possible_agents, rewards, strict=True):
                        self.rewards[a] = r
                    self._accumulate_rewards()
                self.terminations = dict.fromkeys(self.agents, True)
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[seat]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        return self._renderer.render(self.game_state)

    def close(self) -> None:
        self._renderer.close()
