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

import numpy as np
from pettingzoo import AECEnv

from tabletop.aec_env import GameAECEnv, classic_env
from tabletop.gym_env import GameEnvHooks, score_margins
from talat_env.encoding import (
    NUM_ACTIONS,
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
    return score_margins(state.scores(), MARGIN_POINTS)


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
    return classic_env(raw_env(**kwargs))


class TalatEnvHooks(GameEnvHooks):
    """What Talat's environments (:class:`raw_env` and
    :class:`~talat_env.envs.gym.TalatGymEnv`) supply to the core's bases: this module's
    settings check, start, rewards and renderer, and :mod:`talat_env.encoding`'s
    observations and masks."""

    game_name = "talat"
    _final_rewards = staticmethod(final_rewards)
    _margins = staticmethod(margins)
    _observation = staticmethod(observation)
    _action_mask = staticmethod(action_mask)
    _check_settings = staticmethod(check_settings)
    renderer_class = Renderer

    def _start_state(self, options: dict[str, Any] | None) -> State:
        return start_state(self.num_players, options)


class raw_env(TalatEnvHooks, GameAECEnv):
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
    state_shape = STATE_SHAPE

    def state(self) -> np.ndarray:
        """The global state (``state_space``, ``float32[74, 5, 17]``): the observation of
        ``player_0``, in the boards' own frame (:func:`talat_env.encoding.global_state`)."""
        return global_state(self.game_state)

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
