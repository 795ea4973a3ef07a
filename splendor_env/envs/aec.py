"""# Splendor — PettingZoo AEC environment

| Import             | `from splendor_env import splendor_v0; env = splendor_v0.env(num_players=3)` |
|--------------------|-------------------------------------------------------------------------------|
| Actions            | Discrete(77), one move: a main action, a returned token or a noble choice    |
| Parallel API       | No                                                                            |
| Manual control     | No                                                                            |
| Agents             | `player_0 … player_{n-1}` (n = 2, 3 or 4)                                     |
| Action shape       | (1,)                                                                          |
| Action values      | 0..76, masked                                                                 |
| Observation shape  | `{"observation": float32[644], "action_mask": int8[77]}`                      |
| Observation values | [0, 1]                                                                        |

Splendor for 2 to 4 players: take gem tokens, buy development cards that become permanent
discounts and bring prestige, attract nobles; a player's 15 points end the game at the end
of the round. Rules: `SPLENDOR_RULES.md`, implemented by :mod:`splendor_env.rules`.

One action is one move of the rules (§8.1): a turn is a main action, then, if the player
holds more than 10 tokens, one `return <x>` action per token, then, if several nobles
qualify, a `noble <id>` action; all by the same agent. A player with no main action must
play `pass` (action 76), then its only legal action. `agent_selection` always follows the
rules engine. Seats: `player_k` is seat k; seat 0 starts.

## Chance
`reset(seed=…)` shuffles the three decks and draws the nobles from the env's seeded
`np_random`, so the same seed gives the same game; `reset()` without a seed draws the next
shuffle from the same generator. The shuffle is the only chance: refills come from the
shuffled decks.

## Observation
What the observing agent may see (§9), in its own frame (me first, then the others in turn
order): supply, nobles, market cards with their costs and what the agent lacks to buy
each, deck sizes, every player's tokens, bonuses, points, nobles and hand size, its own
reserved cards (only the level and the deck mark of the others'), and which cards it cannot
see. Never the decks' order nor another player's reserved cards. The feature layout is
documented in :mod:`splendor_env.encoding`. `action_mask` has ones on the legal moves of the
agent to move and is all zero for every other agent; for the agent to move it is never all
zero.

## Action space
`Discrete(77)`: the move ids of :mod:`splendor_env.rules.moves` (take 0..24, take2 25..29,
reserve 30..44, buy 45..59, return 60..65, noble 66..75, pass 76).
`env.unwrapped.action_to_move(a)` and `move_to_action("take wbg")` convert to and from move
text for the agent to move.

## Rewards
`reward="win"` (default): 0 until the game ends; then +1 to a sole winner and −1 to every
other player (§5: most points, then fewest purchased cards); a shared win gives 0 to each
sharer and −1 to the others; a game over in a deadlock (§6) gives 0 to everyone.
`reward="margin"`: after every move each player gets the change of its prestige margin (its
points minus the best points of the other players) divided by 15; over a game these add up
to the final margin / 15 (from a start, whose margin is 0).

## Termination and truncation
A game over by §5 or in a deadlock is a termination. A game stopped by the cap of 100 rounds
(§6) is a truncation: `truncations` are true, `terminations` false, every reward 0.

## Illegal actions
The bare `raw_env` raises `IllegalMoveError` naming the agent, the move and the legal
moves. `env()` adds PettingZoo's classic wrappers: an illegal action ends the game, −1 to
the player who made it.

## State
`env.state()` is the global state for centralised critics, `float32[1010]`
(`env.state_space`): the observation of `player_0`, then the cards in the other hands, the
decks' top cards and every card's place in its deck.

## Positions
`env.unwrapped.game_state` is the rules engine's position
(:func:`splendor_env.rules.to_text` gives its text, the ``ansi`` render draws it);
`reset(options={"position": text})` starts from any position of a game still running.

## Version history
* v0: first release.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from pettingzoo import AECEnv

from splendor_env.encoding import (
    NUM_ACTIONS,
    STATE_SHAPE,
    action_index,
    action_mask,
    checked_move_id,
    global_state,
    observation,
)
from splendor_env.envs.render import RENDER_MODES, Renderer
from splendor_env.rules import (
    InvalidNotationError,
    State,
    from_text,
    is_truncated,
    move_id,
    move_text,
    to_text,
)
from splendor_env.rules.components import WIN_POINTS
from splendor_env.rules.engine import player_count
from tabletop.aec_env import GameAECEnv, classic_env
from tabletop.gym_env import GameEnvHooks, score_margins

REWARD_MODES = ("win", "margin")
#: Points of prestige margin per unit of reward with ``reward="margin"``.
MARGIN_POINTS = float(WIN_POINTS)


def check_settings(num_players: Any, render_mode: Any, reward: Any = "win") -> int:
    """The player count; raises ``ValueError`` naming the first bad environment setting."""
    try:
        count = player_count(num_players)
    except ValueError:
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r:.80}") from None
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r:.80}")
    return count


def shuffle_seed(np_random: np.random.Generator) -> int:
    """A seed for the next shuffle, drawn from an env's generator."""
    return int(np_random.integers(2**62))


def start_state(num_players: int, options: dict[str, Any] | None, seed: int) -> State:
    """A start shuffled with ``random.Random(seed)``, or the position ``options["position"]``
    checked against the settings; raises ``ValueError`` quoting a bad position."""
    if options is not None and not isinstance(options, dict):
        raise ValueError(
            f"options must be a dict such as {{'position': ...}} or None, got {options!r:.120}"
        )
    text = (options or {}).get("position")
    if text is None:
        return State.initial(num_players, random.Random(seed))
    try:
        state = from_text(text)
    except InvalidNotationError as err:
        raise InvalidNotationError(f"options['position']: {err}") from None
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
    sharer of a shared win, −1 every other player; 0 to all with no winner (§6)."""
    winners = state.winners()
    n = state.num_players
    if not winners:
        return [0.0] * n
    if len(winners) == 1:
        return [1.0 if s in winners else -1.0 for s in range(n)]
    return [0.0 if s in winners else -1.0 for s in range(n)]


def margins(state: State) -> list[float]:
    """Per seat, its points minus the best points of the other seats, in reward units
    (:data:`MARGIN_POINTS` points each)."""
    return score_margins(state.points, MARGIN_POINTS)


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
    """The Splendor AEC env with PettingZoo's classic wrappers (illegal action: −1, game
    over)."""
    return classic_env(raw_env(**kwargs))


class SplendorEnvHooks(GameEnvHooks):
    """What Splendor's environments (:class:`raw_env` and
    :class:`~splendor_env.envs.gym.SplendorGymEnv`) supply to the core's bases: this module's
    settings check, shuffled start, rewards and renderer, :mod:`splendor_env.encoding`'s
    observations and masks, and the round cap's truncation."""

    game_name = "splendor"
    _final_rewards = staticmethod(final_rewards)
    _margins = staticmethod(margins)
    _observation = staticmethod(observation)
    _action_mask = staticmethod(action_mask)
    _check_settings = staticmethod(check_settings)
    renderer_class = Renderer
    _is_truncated = staticmethod(is_truncated)

    def _start_state(self, options: dict[str, Any] | None) -> State:
        return start_state(self.num_players, options, shuffle_seed(self.np_random))


class raw_env(SplendorEnvHooks, GameAECEnv):
    """The bare Splendor AEC env: illegal actions raise :class:`IllegalMoveError`.

    Args:
        num_players: 2, 3 or 4.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        reward: ``"win"`` (±1 at the end) or ``"margin"`` (prestige margin, every move).
    """

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "splendor_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    state_shape = STATE_SHAPE

    def state(self) -> np.ndarray:
        """The global state (``state_space``, ``float32[1010]``): everything, from seat 0's
        side (:func:`splendor_env.encoding.global_state`)."""
        return global_state(self.game_state)

    # --- conversions for the agent to move ----------------------------------------------

    def action_to_move(self, action: int) -> str:
        """The move text of ``action``, a legal action of the agent to move; raises
        ``ValueError`` otherwise."""
        state = self.game_state
        seat = checked_seat(state)
        return move_text(
            checked_move_id(state, seat, checked_action(action), self.possible_agents[seat])
        )

    def move_to_action(self, move: str) -> int:
        """The action of ``move`` (text), a legal move of the agent to move."""
        state = self.game_state
        checked_seat(state)
        return move_id(state, move)
