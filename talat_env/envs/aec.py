"""# Talat — PettingZoo AEC environment

| Import             | `from talat_env import talat_v0; env = talat_v0.env(num_players=3)` |
|--------------------|----------------------------------------------------------------------|
| Actions            | Discrete(1051), one placement, step, capture or pass                 |
| Parallel API       | No                                                                   |
| Manual control     | No                                                                   |
| Agents             | `player_0 … player_{n-1}` (n = 2 or 3)                               |
| Action shape       | (1,)                                                                 |
| Action values      | 0..1050, masked                                                      |
| Observation shape  | `{"observation": float32[74, 5, 17], "action_mask": int8[1051]}`     |
| Observation values | [0, 1]                                                               |

Talat for 3 players, or 2 with the imaginary Zihin steering grey: three 5 × 5 boards, each
the duel of two colours; towers of three heights and three shapes step forward and capture
the types they beat; a board freezes when no capture can ever happen on it again, and the
game ends when two boards are frozen. 5 points a captured tower, 3 a tower on its goal line.
Rules: `TALAT_RULES.md`, implemented by :mod:`talat_env.rules`.

The whole game is played through the env: first the set-up, one action per placed tower
(2 players: the 8 Zihin towers first, then the players' own), then the play, one step or
capture per action. A player with no step or capture must pass: `pass` (action 1050) is then
its only legal action. `agent_selection` always follows the rules engine.

Seats: `player_k` is seat k, colour k: `player_0` white (places first; moves first with 3
players), `player_1` black (moves first with 2 players, having placed last), `player_2`
grey. Turns go round in seat order.

## Observation
Seen from the observing agent's seat, in its frame: boards and colours renumbered (and with
2 players flipped for black) so that every seat plays the same part; the three boards side
by side with planes for each player's towers by type, the towers the agent may move, the
towers that can capture or be captured now, goal lines, frozen boards, who is to move, the
phase, the scores and the unplaced towers. Planes and frame are documented in
:mod:`talat_env.encoding`. `action_mask` has ones on the legal actions of the agent to move
and is all zero for every other agent; for the agent to move it is never all zero.

## Action space
`Discrete(1051)` in the acting seat's frame (:mod:`talat_env.encoding`): placements
`board * 225 + sq * 9 + type` (0..674), steps and captures `675 + (board * 25 + sq) * 5 +
dir` (675..1049), pass 1050. `env.unwrapped.action_to_move(a)` and
`move_to_action("wb:c1-d2")` convert to and from move text for the agent to move.

## Rewards
`reward="win"` (default): 0 until the game ends; then +1 to a sole winner and −1 to every
other player; when the win is shared (rules §7.2), 0 to each sharer and −1 to the others (so
0 to everyone when all share it).
`reward="margin"`: after every move each player gets the change of its score margin (its
score minus the best score of the other players; 2 players: minus the opponent's) divided
by 10; over a game these add up to the final margin / 10 (from the initial position, whose
margin is 0). Every game ends (no turn cap is needed).

## Illegal actions
The bare `raw_env` raises `IllegalMoveError`. `env()` adds PettingZoo's classic wrappers:
an illegal action ends the game, −1 to the player who made it.

## State
`env.state()` is the global state for centralised critics, `float32[74, 5, 17]`
(`env.state_space`): the observation of `player_0`, whose frame is the boards' own (absolute
boards, colours and seats, and who is to move).

## Positions
`env.unwrapped.game_state` is the rules engine's position (`str()` draws it,
`talat_env.rules.to_text` gives its text); `reset(options={"position": text})` starts from any
position of a game still running.

## Version history
* v0: first release.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from talat_env.encoding import (
    NUM_ACTIONS,
    OBS_SHAPE,
    STATE_SHAPE,
    action_index,
    action_mask,
    action_of,
    checked_move_id,
    global_state,
    observation,
)
from talat_env.envs.render import RENDER_MODES, Renderer
from talat_env.rules import from_text, initial_state, move_id, move_text, to_text
from talat_env.rules.board import player_count
from talat_env.rules.engine import State

REWARD_MODES = ("win", "margin")
#: Points of score margin per unit of reward with ``reward="margin"``.
MARGIN_POINTS = 10.0


def check_settings(num_players: Any, render_mode: Any, reward: Any = "win") -> int:
    """The player count; raises ``ValueError`` naming the first bad environment setting."""
    count = player_count(num_players)
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r:.80}")
    return count


def start_state(num_players: int, options: dict[str, Any] | None) -> State:
    """The initial state, or the position ``options["position"]`` checked against the
    settings; raises ``ValueError`` quoting a bad position."""
    if options is not None and not isinstance(options, dict):
        raise ValueError(
            f"options must be a dict such as {{'position': ...}} or None, got {options!r:.120}"
        )
    text = (options or {}).get("position")
    if text is None:
        return initial_state(num_players)
    state = from_text(text)
    if state.num_players != num_players:
        raise ValueError(
            f"options['position'] {text!r} is a {state.num_players}-player position, this env "
            f"has {num_players} players"
        )
    if state.is_over():
        raise ValueError(f"options['position'] {text!r} is a finished game: nothing to play")
    return state


def final_rewards(state: State) -> list[float]:
    """Per seat, the ``reward="win"`` reward of a finished game: +1 a sole winner, 0 each
    sharer of a shared win, −1 every other player."""
    winners = state.winners()
    if len(winners) == 1:
        return [1.0 if s in winners else -1.0 for s in range(state.num_players)]
    return [0.0 if s in winners else -1.0 for s in range(state.num_players)]


def margins(state: State) -> list[float]:
    """Per seat, its score minus the best score of the other seats, in reward units
    (``MARGIN_POINTS`` points each)."""
    scores = state.scores()
    out = []
    for s, score in enumerate(scores):
        best_other = max(v for o, v in enumerate(scores) if o != s)
        out.append((score - best_other) / MARGIN_POINTS)
    return out


def checked_seat(state: State) -> int:
    """The seat to move; raises ``ValueError`` once the game is over."""
    if state.to_move < 0:
        raise ValueError(f"the game is over ({to_text(state)!r}): no player to move")
    return state.to_move


def checked_action(action: object) -> int:
    """``action`` as an action index; raises ``ValueError`` naming it otherwise."""
    index = action_index(action)
    if index is None:
        raise ValueError(
            f"action must be a whole number from 0 to {NUM_ACTIONS - 1}, got {action!r:.80}"
        )
    return index


def env(**kwargs: Any) -> AECEnv:
    """The Talat AEC env with PettingZoo's classic wrappers (illegal action: −1, game over)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """The bare Talat AEC env: illegal actions raise :class:`IllegalMoveError`.

    Args:
        num_players: 2 (with the Zihin) or 3.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        reward: ``"win"`` (±1 at the end) or ``"margin"`` (score margin, every move).
    """

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "talat_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self, num_players: int = 2, render_mode: str | None = None, reward: str = "win"
    ) -> None:
        EzPickle.__init__(self, num_players, render_mode, reward)
        super().__init__()
        num_players = check_settings(num_players, render_mode, reward)
        self.num_players = num_players
        self.render_mode = render_mode
        self.reward_mode = reward
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, STATE_SHAPE, dtype=np.float32)
        #: The rules engine's position of the game (a :class:`talat_env.rules.engine.State`).
        self.game_state = initial_state(num_players)
        self._margins = [0.0] * num_players
        self._renderer = Renderer(render_mode, self.metadata["render_fps"])

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (the rules have no chance: ``seed`` only seeds ``np_random``);
        ``options={"position": text}`` starts from that position."""
        if seed is not None:
            self.np_random, self.np_random_seed = gymnasium.utils.seeding.np_random(seed)
        self.game_state = start_state(self.num_players, options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game_state.to_move]
        self._skip_agent_selection = None
        if self.reward_mode == "margin":
            self._margins = margins(self.game_state)
        if self.render_mode == "human":
            self.render()

    def state(self) -> np.ndarray:
        """The global state (``state_space``, ``float32[74, 5, 17]``): the observation of
        ``player_0``, in the boards' own frame (:func:`talat_env.encoding.global_state`)."""
        return global_state(self.game_state)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seat[agent]
        return {
            "observation": observation(self.game_state, seat),
            "action_mask": action_mask(self.game_state, seat).view(np.int8),
        }

    def step(self, action: int | None) -> None:
        if not self.agents:
            raise ValueError("step() after the game is over (no agent left): call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        seat = self.agent_seat[agent]
        state.apply(checked_move_id(state, seat, action, who=agent))
        self._cumulative_rewards[agent] = 0
        if self.reward_mode == "margin":
            after = margins(state)
            for a, s in self.agent_seat.items():
                self.rewards[a] = after[s] - self._margins[s]
            self._margins = after
            self._accumulate_rewards()
        # With reward="win" the rewards stay 0 until the end: nothing to clear or add.
        if state.is_over():
            if self.reward_mode == "win":
                for a, r in zip(self.possible_agents, final_rewards(state), strict=True):
                    self.rewards[a] = r
                self._accumulate_rewards()
            self.terminations = dict.fromkeys(self.agents, True)
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[state.to_move]
        if self.render_mode == "human":
            self.render()

    # --- conversions for the agent to move ----------------------------------------------

    def action_to_move(self, action: int) -> str:
        """Move text (boards' own frame) of ``action`` for the agent to move; raises
        ``ValueError`` if it is not one of its legal actions."""
        state = self.game_state
        seat = checked_seat(state)
        move = checked_move_id(state, seat, checked_action(action), self.possible_agents[seat])
        return move_text(state, move)

    def move_to_action(self, move: str) -> int:
        """The action, in the frame of the agent to move, of a legal move in text."""
        state = self.game_state
        seat = checked_seat(state)
        return action_of(self.num_players, seat, move_id(state, move))

    # --- rendering ----------------------------------------------------------------------

    def render(self) -> str | np.ndarray | None:
        return self._renderer.render(self.game_state)

    def close(self) -> None:
        self._renderer.close()
