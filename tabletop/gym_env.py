"""What every game's environments share, and the single-agent Gymnasium one.

:class:`GameEnvHooks` is what a game supplies to the core's environment bases (its settings
check, start positions, observations, action masks, rewards and renderer), for
:class:`GameGymEnv` here and :class:`~tabletop.aec_env.GameAECEnv`; a game writes them once,
in a mixin that both its environments inherit. :class:`GameGymEnv` is one learner seat
against opponents given by name or as agents, over the game's
:class:`~tabletop.games.Game` descriptor. The helpers check its settings
(:func:`player_index`, :func:`opponent_specs`, :func:`opponent_agents`) and give the margins
of ``reward="margin"`` (:func:`score_margins`).
"""

from __future__ import annotations

import abc
import operator
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from tabletop.agents import Agent, check_table
from tabletop.games import Game, get_game
from tabletop.render import Renderer
from tabletop.vector import OpponentSpec


def player_index(value: object, num_players: int, name: str = "learner_player") -> int:
    """``value`` as a player index ``0..num_players - 1`` (a Python or numpy integer, not a
    bool); raises ``ValueError``."""
    try:
        index = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        index = None
    if index is None or index not in range(num_players):
        raise ValueError(
            f"{name} must be None or a player index 0..{num_players - 1}, got {value!r:.80}"
        )
    return index


def opponent_specs(
    opponents: OpponentSpec | Sequence[OpponentSpec], num_players: int
) -> list[OpponentSpec]:
    """One opponent spec (an agent or its name) per other player: ``opponents`` itself if
    it is a list of ``num_players - 1``, or one spec for all; raises ``ValueError``."""
    n = num_players
    if isinstance(opponents, (str, Agent)):
        return [opponents] * (n - 1)
    if not isinstance(opponents, (list, tuple)) or len(opponents) != n - 1:
        raise ValueError(
            f"opponents: expected an agent (or its name) or a list of {n - 1} for {n} "
            f"players, got {opponents!r:.120}"
        )
    return list(opponents)


def opponent_agents(
    opponents: OpponentSpec | Sequence[OpponentSpec],
    num_players: int,
    make_agent: Callable[[OpponentSpec], Agent],
) -> list[Agent]:
    """The agents of :func:`opponent_specs` (names made by the game's ``make_agent``),
    checked to be made for this table size."""
    agents = [make_agent(spec) for spec in opponent_specs(opponents, num_players)]
    check_table(agents, num_players)
    return agents


def score_margins(scores: Sequence[float], points: float) -> list[float]:
    """Per player, its score minus the best score of the other players, in units of
    ``points``."""
    out = []
    for s, score in enumerate(scores):
        best_other = max(v for o, v in enumerate(scores) if o != s)
        out.append((score - best_other) / points)
    return out


class GameEnvHooks(abc.ABC):
    """What a game supplies to the core's environment bases: :attr:`game_name`,
    :attr:`renderer_class` and the methods ``_check_settings``, ``_start_state``,
    ``_observation``, ``_action_mask``, ``_margins``, ``_final_rewards`` (and
    ``_is_truncated`` for a game that cuts some games). They may read the environment's
    ``num_players``, ``np_random`` and ``metadata``."""

    #: The game's registered name (:func:`tabletop.games.get_game`).
    game_name: str
    #: The game's renderer, made as ``renderer_class(render_mode, fps)``.
    renderer_class: type[Renderer]

    @abc.abstractmethod
    def _check_settings(self, num_players: Any, render_mode: Any, reward: Any) -> int:
        """The player count; ``ValueError`` naming the first bad setting."""

    @abc.abstractmethod
    def _start_state(self, options: dict[str, Any] | None) -> Any:
        """A start for an episode (a game of chance shuffled from ``np_random``), or
        ``options["position"]`` checked against the settings."""

    @abc.abstractmethod
    def _observation(self, state: Any, seat: int) -> np.ndarray:
        """``seat``'s observation of ``state``."""

    @abc.abstractmethod
    def _action_mask(self, state: Any, seat: int) -> np.ndarray:
        """``bool[num_actions]``: ``seat``'s legal actions in ``state`` (all false unless it
        is to move)."""

    @abc.abstractmethod
    def _margins(self, state: Any) -> list[float]:
        """Per seat, the score margin that ``reward="margin"`` follows, in reward units."""

    @abc.abstractmethod
    def _final_rewards(self, state: Any) -> list[float]:
        """Per seat, the ``reward="win"`` reward of the finished game ``state``."""

    def _make_renderer(self, render_mode: str | None) -> Renderer:
        """The game's renderer for ``render_mode``."""
        return self.renderer_class(render_mode, self.metadata["render_fps"])

    def _is_truncated(self, state: Any) -> bool:
        """Whether the finished game ``state`` was cut rather than ended by the rules."""
        return False


class GameGymEnv(GameEnvHooks, gymnasium.Env):
    """One game from one player's point of view, the other players played by ``opponents``.

    Args:
        num_players: a table size of the game.
        opponents: one agent (or a name the game's ``make_agent`` knows) for every other
            seat, or a list of ``num_players - 1`` of them, given to the other seats in turn
            order after the learner. Default ``"random"``.
        learner_player: the learner's seat, or ``None`` to draw it from ``np_random`` every
            episode.
        reward: ``"win"``: at the end the learner's final reward; ``"margin"``: after every
            learner action the change of its score margin since its previous action,
            opponents' moves included.
        illegal_action: ``"terminate"`` (−1, episode over) or ``"raise"`` (the game's
            ``IllegalMoveError``).
        render_mode: ``None`` or one of ``metadata["render_modes"]``.

    After each learner action the opponents play until the learner is to move again or the
    game ends, so ``action_masks()`` and ``info["action_mask"]`` are always the learner's.
    ``info`` has ``action_mask`` (int8), ``legal_moves`` (the texts of the learner's legal
    actions, ascending) and ``player``; after an illegal action also ``illegal_action: True``.
    Besides :class:`GameEnvHooks` a game supplies :meth:`_move_texts`, :meth:`action_to_move`
    and :meth:`move_to_action`.
    """

    def __init__(
        self,
        num_players: int = 2,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
        learner_player: int | None = None,
        reward: str = "win",
        illegal_action: str = "terminate",
        render_mode: str | None = None,
    ) -> None:
        num_players = self._check_settings(num_players, render_mode, reward)
        if learner_player is not None:
            learner_player = player_index(learner_player, num_players)
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r:.80}"
            )
        #: The game's descriptor.
        self.game: Game = get_game(self.game_name)
        self.num_players = num_players
        self.set_opponents(opponents)
        #: The learner's seat, or ``None`` to draw one every episode.
        self.learner_player = learner_player
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        shape = self.game.observation_shape
        self.observation_space = spaces.Box(0.0, 1.0, shape, dtype=np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        #: The rules engine's position of the game (until the first reset, a start dealt
        #: from seed 0).
        self.game_state = self.game.initial_state(num_players, 0)
        #: This episode's learner seat.
        self.seat = 0
        self._seat_opponent: dict[int, Agent] = {}
        self._margin = 0.0
        self._renderer = self._make_renderer(render_mode)

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Replace the opponents (takes effect at the next reset)."""
        self.opponents = opponent_agents(opponents, self.num_players, self.game.make_agent)

    # --- what each game supplies besides the hooks ----------------------------------------

    @abc.abstractmethod
    def _move_texts(self, actions: np.ndarray) -> list[str]:
        """The move texts of the learner's legal ``actions``."""

    @abc.abstractmethod
    def action_to_move(self, action: int) -> str:
        """Move text of a legal learner ``action``."""

    @abc.abstractmethod
    def move_to_action(self, move: str) -> int:
        """The learner's action for a legal move in text (the learner must be to move)."""

    def _learner_name(self, seat: int) -> str:
        """How messages name the learner's ``seat``."""
        return f"seat {seat}"

    # --- episode --------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New game (a game of chance shuffled from ``np_random``). ``options``:
        ``"position"`` a start position (text), ``"learner_player"`` a seat."""
        super().reset(seed=seed)
        options = options or {}
        self.game_state = self._start_state(options)
        seat = options.get("learner_player", self.learner_player)
        if seat is None:
            seat = int(self.np_random.integers(self.num_players))
        self.seat = player_index(seat, self.num_players)
        n = self.num_players
        others = [(self.seat + k) % n for k in range(1, n)]
        self._seat_opponent = dict(zip(others, self.opponents, strict=True))
        for opp in self.opponents:
            opp.reset(seed=int(self.np_random.integers(2**31)))
        self._margin = self._margins(self.game_state)[self.seat]
        self._play_opponents()
        if self._is_over():
            raise ValueError(
                f"the game from {self.game.to_text(self.game_state)!r} ends before the learner "
                f"({self._learner_name(self.seat)}) moves; choose another seat or position"
            )
        return self._obs(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        state = self.game_state
        if self._is_over():
            raise ValueError("step() after the episode ended: call reset() first")
        try:
            self.game.play_action(state, action, "the learner")
        except ValueError as err:  # the game's IllegalMoveError
            if self.illegal_action == "raise":
                raise
            gymnasium.logger.warn(str(err))
            info = self._info()
            info["illegal_action"] = True
            return self._obs(), -1.0, True, False, info
        self._play_opponents()
        reward = self._reward()
        if self.render_mode == "human":
            self.render()
        truncated = self._is_truncated(state)
        return self._obs(), reward, self._is_over() and not truncated, truncated, self._info()

    def _is_over(self) -> bool:
        return self.game.player_to_move(self.game_state) is None

    def _reward(self) -> float:
        if self.reward_mode == "margin":
            after = self._margins(self.game_state)[self.seat]
            reward, self._margin = after - self._margin, after
            return reward
        if self._is_over():
            return self._final_rewards(self.game_state)[self.seat]
        return 0.0

    def _play_opponents(self) -> None:
        state, game = self.game_state, self.game
        while (seat := game.player_to_move(state)) is not None and seat != self.seat:
            opp = self._seat_opponent[seat]
            obs = game.observe(state, seat, game.max_turns) if opp.needs_observation else None
            game.play_action(state, opp.act(state, obs), f"opponent {opp!r}")

    # --- views ----------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all false once the game is over)."""
        return self._action_mask(self.game_state, self.seat)

    def _obs(self) -> np.ndarray:
        return self._observation(self.game_state, self.seat)

    def _info(self) -> dict[str, Any]:
        mask = self.action_masks()
        return {
            "action_mask": mask.view(np.int8),
            "legal_moves": self._move_texts(np.flatnonzero(mask)),
            "player": self.seat,
        }

    def render(self) -> str | np.ndarray | None:
        return self._renderer.render(self.game_state)

    def close(self) -> None:
        self._renderer.close()
