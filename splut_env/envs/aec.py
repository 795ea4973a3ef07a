"""# Splut! — PettingZoo AEC environment

| Import             | `import splut_env; env = splut_env.env(num_players=2)`       |
|--------------------|--------------------------------------------------------------|
| Actions            | Discrete(196), one *step* of one piece                       |
| Parallel API       | No                                                           |
| Manual control     | No                                                           |
| Agents             | `player_0 … player_{n-1}` (n = 2, 3 or 4)                    |
| Action shape       | (1,)                                                         |
| Action values      | 0..195, masked                                               |
| Observation shape  | `{"observation": float32[22, 9, 9], "action_mask": int8[196]}` |
| Observation values | [0, 1]                                                       |

Splut! for 2 to 4 players: each has a wizard, a troll and a dwarf on a 41-square diamond
with 4 rocks; a troll throws a rock onto an enemy wizard (SPLUT!) and that team is out; the
last wizard standing wins. Rules: `SPLUT_RULES.md`, implemented by :mod:`splut_env.rules`.

One action is one **step**. A turn has 1 step (the game's first turn), 2 (the second) or 3
steps, so the same agent acts up to 3 times in a row; a throw ends its turn at once.
`agent_selection` always follows the rules engine.

Seats: `player_0` is S (south, red) and moves first; with 2 players `player_1` is N; with 3
players W, N; with 4 players W, N, E. Play goes clockwise S → W → N → E.

## Observation
Seen from the observing agent's seat, rotated so that its home tip is at the bottom; its own
pieces in the first planes, the other players after it in turn order. Planes are documented
in :mod:`splut_env.encoding`. `action_mask` has ones on the legal actions of the agent to
move and is all zero for every other agent; for the agent to move it is never all zero (the
rules skip a player with no legal step).

## Action space
`Discrete(196)`: wizard × direction × (no levitation | the square of the rock to levitate),
troll × direction × (plain, pull, throw n/e/s/w), dwarf × direction, all in the acting
seat's frame (:mod:`splut_env.encoding`). `env.unwrapped.action_to_step(a)` and
`step_to_action("We@c5")` convert to and from step notation for the agent to move.

## Rewards
−1 to a player at the step its wizard dies (it is terminated, takes its dead step and
leaves `agents`); +1 to the winner when only its wizard is left; 0 otherwise. After
`max_turns` turns every remaining agent is truncated with 0.

## Illegal actions
The bare `raw_env` raises `IllegalStepError`. `env()` adds PettingZoo's classic wrappers:
an illegal action ends the game, −1 to the player who made it.

## State
`env.state()` is the global state for centralised critics, `float32[26, 9, 9]`
(`env.state_space`): the 22 observation planes as seat S sees them (the board's own frame,
players in turn order from `player_0`) and 4 planes marking the player to move.

## Positions
`env.unwrapped.game_state` is the rules engine's position (`str()` draws it,
`splut_env.rules.to_spn` gives its SPN); `reset(options={"spn": ...})` starts from any
position.

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

from splut_env.encoding import (
    NUM_ACTIONS,
    OBS_SHAPE,
    STATE_SHAPE,
    action_to_step_id,
    checked_action,
    checked_step_id,
    global_planes,
    observation,
    step_id_to_action,
)
from splut_env.envs.render import Renderer
from splut_env.rules import from_spn, step_id
from splut_env.rules.board import SEATS_IN_PLAY, player_count, turn_cap
from splut_env.rules.engine import State
from splut_env.rules.notation import format_spn, step_text

RENDER_MODES = ("human", "ansi", "rgb_array")


def check_settings(num_players: Any, max_turns: Any, render_mode: Any) -> int:
    """The player count; raises ``ValueError`` naming the first bad environment setting."""
    count = player_count(num_players)
    turn_cap(max_turns)
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
    return count


def start_state(num_players: int, options: dict[str, Any] | None) -> State:
    """The initial state, or the position ``options["spn"]`` checked against the settings."""
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"options must be a dict such as {{'spn': ...}} or None, got {options!r}")
    spn = (options or {}).get("spn")
    if spn is None:
        return State.initial(num_players)
    state = from_spn(spn)
    if state.seats != SEATS_IN_PLAY[num_players]:
        raise ValueError(
            f"options['spn'] {spn!r} has {len(state.seats)} seats, this env has {num_players} players"
        )
    if state.is_over():
        raise ValueError(f"options['spn'] {spn!r} is a finished game: nothing to play")
    return state


def checked_seat(state: State) -> int:
    """The seat to move; raises ``ValueError`` once the game is over."""
    if state.to_move < 0:
        raise ValueError(f"the game is over ({format_spn(state)!r}): no player to move")
    return state.to_move


def env(**kwargs: Any) -> AECEnv:
    """The Splut! AEC env with PettingZoo's classic wrappers (illegal action: −1, game over)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """The bare Splut! AEC env: illegal actions raise :class:`IllegalStepError`."""

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "splut_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self, num_players: int = 2, max_turns: int = 200, render_mode: str | None = None
    ) -> None:
        EzPickle.__init__(self, num_players, max_turns, render_mode)
        super().__init__()
        num_players = check_settings(num_players, max_turns, render_mode)
        self.num_players = num_players
        self.max_turns = max_turns
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_seat = dict(zip(self.possible_agents, SEATS_IN_PLAY[num_players], strict=True))
        self.seat_agent = {s: a for a, s in self.agent_seat.items()}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, STATE_SHAPE, dtype=np.float32)
        #: The rules engine's position of the game (a :class:`splut_env.rules.State`).
        self.game_state = State.initial(num_players)
        self._renderer = Renderer(render_mode, self.metadata["render_fps"])

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (the rules have no chance: ``seed`` only seeds ``np_random``);
        ``options={"spn": ...}`` starts from that position."""
        if seed is not None:
            self.np_random, self.np_random_seed = gymnasium.utils.seeding.np_random(seed)
        self.game_state = start_state(self.num_players, options)
        self.agents = [self.seat_agent[s] for s in self.game_state.alive_seats()]
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.seat_agent[self.game_state.to_move]
        self._skip_agent_selection = None
        if self.render_mode == "human":
            self.render()

    def state(self) -> np.ndarray:
        """The global state (``state_space``, ``float32[26, 9, 9]``): the board from seat S
        with every player's pieces and who is to move, the same for every agent
        (:func:`splut_env.encoding.global_planes`)."""
        return global_planes(self.game_state, self.max_turns)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return observation(self.game_state, self.agent_seat[agent], self.max_turns)

    def step(self, action: int | None) -> None:
        if not self.agents:
            raise ValueError("step() after the game is over (no agent left): call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        seat = self.agent_seat[agent]
        sid = checked_step_id(state, seat, action, who=agent)
        alive_before = state.alive_seats()
        state.apply(sid)
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        for s in alive_before:
            if not state.alive(s):
                dead = self.seat_agent[s]
                self.rewards[dead] = -1
                self.terminations[dead] = True
        if state.is_over():
            win = state.winner()
            if win >= 0:
                self.rewards[self.seat_agent[win]] = 1
            self.terminations = dict.fromkeys(self.agents, True)
        elif state.turn > self.max_turns:
            self.truncations = {a: not self.terminations[a] for a in self.agents}
        else:
            self.agent_selection = self.seat_agent[state.to_move]
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    # --- conversions for the agent to move ----------------------------------------------

    def action_to_step(self, action: int) -> str:
        """Step notation (board frame) of ``action`` for the agent to move (legal or not)."""
        return step_text(action_to_step_id(checked_seat(self.game_state), checked_action(action)))

    def step_to_action(self, step: str) -> int:
        """The action, in the frame of the agent to move, of a legal step in notation."""
        return step_id_to_action(self.game_state.to_move, step_id(self.game_state, step))

    # --- rendering ----------------------------------------------------------------------

    def render(self) -> str | np.ndarray | None:
        return self._renderer.render(self.game_state)

    def close(self) -> None:
        self._renderer.close()
