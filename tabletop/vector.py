"""Many games of any registered game in one process: :class:`GamesVectorEnv`, a Gymnasium
vector environment over the game's rules (through its :class:`~tabletop.games.Game`).

Each of the ``num_envs`` games is seen by one learner (its player index drawn per game, or
fixed by ``learner_player``); the other players are played in this process after every
learner step: a *batched* agent (a trained policy, ``random``) gets one call for all the
games where it is to move (agents of one class together, so that policies of one shape share
a forward pass), any other agent is asked game by game.

Rewards are the learner's: at the end :meth:`Game.rewards` (``+1`` for the winner, ``-1`` for
the others, ``0`` for those who share a win), else 0. A game past ``max_turns`` is truncated.
Autoreset: ``AutoresetMode.SAME_STEP``, as :class:`splut_env.envs.vector.SplutVectorEnv`:
when a game ends, ``step`` returns the first observation of the next game in its place; the
last observation of the ended one is in ``infos["final_obs"][i]`` and its result for the
learner in ``infos["final_info"]["outcome"][i]``.

``step(actions, active=mask)`` steps only the games where ``mask`` is true: the others keep
their position and observation, get reward 0 and are neither terminated nor truncated, and
their actions are not read (an adapter to ``AutoresetMode.NEXT_STEP`` passes the games whose
reset observation it is returning, :mod:`training.rllib_vector`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from tabletop.agents import Agent, agent_seed
from tabletop.games import Game, get_game

#: An opponent: an agent name of the game, or an :class:`Agent`.
OpponentSpec = str | Agent


def active_games(active: Any, num_envs: int) -> np.ndarray:
    """``bool[num_envs]``: the games a vector env's ``step(actions, active=...)`` steps
    (``None``: all of them); ``ValueError`` naming anything else."""
    if active is None:
        return np.ones(num_envs, dtype=bool)
    mask = np.asarray(active)
    if mask.shape != (num_envs,) or mask.dtype != np.bool_:
        raise ValueError(
            f"active must be {num_envs} booleans (one per game) or None, got {str(active)[:80]!r}"
        )
    return mask


class GamesVectorEnv(VectorEnv):
    """``num_envs`` games of ``game`` for one learner each; see the module doc."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game: Game | str,
        num_envs: int = 16,
        num_players: int = 2,
        max_turns: int | None = None,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
        learner_player: int | None = None,
        opening_steps: int = 0,
    ) -> None:
        self.game = get_game(game)
        num_players = self.game.check_players(num_players)
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number from 1, got {num_envs!r:.40}")
        if type(opening_steps) is not int or opening_steps < 0:
            raise ValueError(
                f"opening_steps must be a whole number of moves, 0 or more, got "
                f"{opening_steps!r:.40}"
            )
        if learner_player is not None and learner_player not in range(num_players):
            raise ValueError(
                f"learner_player must be from 0 to {num_players - 1}, got {learner_player!r:.40}"
            )
        self.num_envs = num_envs
        self.num_players = num_players
        self.max_turns = self.game.max_turns if max_turns is None else max_turns
        self.learner_player = learner_player
        self.opening_steps = opening_steps
        shape = self.game.observation_shape
        self.single_observation_space = spaces.Box(0.0, 1.0, shape, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        #: Each game's position and its learner's player index.
        self.states: list[Any] = [None] * num_envs
        #: Moves played in each game (the turn count of games whose positions keep none).
        self.moves = np.zeros(num_envs, dtype=np.int64)
        self.player = np.zeros(num_envs, dtype=np.int64)
        self._rng = np.random.default_rng()
        self._opening_rng = random.Random()
        # Every opponent in play is in ``_agents`` once; ``_seat_agent[i, k]`` is the index
        # of the one playing player k of game i (-1 for the learner).
        self._agents: list[Agent] = []
        self._seat_agent = np.full((num_envs, num_players), -1, dtype=np.int64)
        self._obs = np.zeros((num_envs, *shape), dtype=np.float32)
        self._masks = np.zeros((num_envs, self.game.num_actions), dtype=bool)
        self.set_opponents(opponents)

    # --- opponents -----------------------------------------------------------------------

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Replace the opponents of every game (from each game's next reset on): one for all
        the other players, or one per other player."""
        specs = [opponents] if isinstance(opponents, str | Agent) else list(opponents)
        if len(specs) == 1:
            specs = specs * (self.num_players - 1)
        if len(specs) != self.num_players - 1:
            raise ValueError(
                f"expected 1 or {self.num_players - 1} opponents for {self.num_players} "
                f"players, got {len(specs)}"
            )
        self._opponent_slots = [self._slot(self.game.make_agent(spec)) for spec in specs]

    def _slot(self, agent: Agent) -> int:
        """The index of ``agent`` in ``_agents`` (added if new)."""
        for index, known in enumerate(self._agents):
            if known is agent:
                return index
        self._agents.append(agent)
        return len(self._agents) - 1

    def choose_opponents(self, rows: np.ndarray) -> np.ndarray:
        """The opponents' slots of the games in ``rows`` at their reset, one column per
        other player (subclasses draw them from a pool)."""
        return np.tile(np.asarray(self._opponent_slots, dtype=np.int64), (len(rows), 1))

    def choose_players(self, rows: np.ndarray) -> np.ndarray:
        """The learner's player index in each game of ``rows`` (uniform by default)."""
        return self._rng.integers(self.num_players, size=len(rows))

    # --- games ---------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._opening_rng = random.Random(seed)
            for k, agent in enumerate(self._agents):  # the opponents draw from the seed too
                agent.reset(seed=agent_seed(seed, k))
        rows = np.arange(self.num_envs)
        self._start(rows)
        return self._obs.copy(), self._infos()

    def _start(self, rows: np.ndarray) -> None:
        """New games in ``rows``, played by their opponents up to the learner's first move."""
        players = (
            np.full(len(rows), self.learner_player)
            if self.learner_player is not None
            else self.choose_players(rows)
        )
        slots = self.choose_opponents(rows)
        for j, row in enumerate(rows.tolist()):
            self.player[row] = players[j]
            others = [k for k in range(self.num_players) if k != players[j]]
            self._seat_agent[row] = -1
            self._seat_agent[row, others] = slots[j]
            self.states[row] = self._opening()
            self.moves[row] = 0
        self._play_opponents(rows, np.zeros(self.num_envs, dtype=np.float32))
        over = [row for row in rows.tolist() if not self._learner_to_move(row)]
        if over:  # a game the opponents finished before the learner moved: start again
            self._start(np.asarray(over))
        self._observe(rows)

    def _opening(self) -> Any:
        if self.opening_steps:
            for _ in range(100):
                text = self.game.random_opening(
                    self.num_players, self.opening_steps, self._opening_rng
                )
                if text is not None:
                    return self.game.from_text(text)
        deal = self._opening_rng.getrandbits(63) if self.game.chance else None
        return self.game.initial_state(self.num_players, deal)

    def _turn(self, row: int) -> int:
        turn = self.game.turn(self.states[row])
        return int(self.moves[row]) if turn is None else turn

    def _learner_to_move(self, row: int) -> bool:
        return self.game.player_to_move(self.states[row]) == self.player[row]

    def step(
        self, actions: Any, active: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner step in each game (in the games where ``active`` is true, when
        given; see the module doc)."""
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} whole numbers (one per game), got "
                f"{str(actions)[:80]!r}"
            )
        stepped = active_games(active, self.num_envs)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        rows = np.flatnonzero(stepped)
        for row, action in zip(rows.tolist(), acts[rows].tolist(), strict=True):
            self.game.play_action(self.states[row], action, f"the learner of game {row}")
        self.moves[rows] += 1
        self._play_opponents(rows, rewards)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        for row in rows.tolist():
            state = self.states[row]
            if self.game.player_to_move(state) is None:
                terminated[row] = True
                rewards[row] = self.game.rewards(state)[self.player[row]]
            elif self._turn(row) > self.max_turns:
                truncated[row] = True
        self._observe(rows)
        infos = self._infos()
        done = np.flatnonzero(terminated | truncated)
        if done.size:
            final = np.full(self.num_envs, None, dtype=object)
            final[done] = list(self._obs[done].copy())
            has_final = np.zeros(self.num_envs, dtype=bool)
            has_final[done] = True
            infos["final_obs"], infos["_final_obs"] = final, has_final
            infos["final_info"] = {
                "outcome": np.where(has_final, rewards, 0.0),
                "_outcome": has_final,
                "final_position": np.array(
                    [
                        self.game.to_text(s) if d else None
                        for s, d in zip(self.states, has_final, strict=True)
                    ],
                    dtype=object,
                ),
                "_final_position": has_final,
            }
            infos["_final_info"] = has_final
            self._start(done)
            infos["player"][done] = self.player[done]
        return self._obs.copy(), rewards, terminated, truncated, infos

    def _play_opponents(self, rows: np.ndarray, rewards: np.ndarray) -> None:
        """Let the opponents move in ``rows`` until each game's learner is to move, or the
        game is over or past its turn cap."""
        game = self.game
        pending = rows.tolist()
        while True:
            waiting = []
            movers = []
            for row in pending:
                state = self.states[row]
                k = game.player_to_move(state)
                if k is None or k == self.player[row] or self._turn(row) > self.max_turns:
                    continue
                waiting.append(row)
                movers.append(k)
            if not waiting:
                return
            by_agent: dict[int, list[tuple[int, int]]] = {}
            for row, k in zip(waiting, movers, strict=True):
                by_agent.setdefault(int(self._seat_agent[row, k]), []).append((row, k))
            together: dict[type, list[tuple[Agent, list[tuple[int, int]]]]] = {}
            actions: dict[int, int] = {}
            for index, games in by_agent.items():
                agent = self._agents[index]
                if agent.batched:
                    together.setdefault(type(agent), []).append((agent, games))
                    continue
                for row, k in games:
                    state = self.states[row]
                    obs = (
                        game.observe(state, k, self.max_turns) if agent.needs_observation else None
                    )
                    actions[row] = agent.act(state, obs)
            for kind, group in together.items():
                agents, planes, masks = [], [], []
                for agent, games in group:
                    seen = [game.observe(self.states[r], k, self.max_turns) for r, k in games]
                    agents.append(agent)
                    planes.append(
                        np.stack([o["observation"] for o in seen])
                        if agent.needs_observation
                        else None
                    )
                    masks.append(np.stack([o["action_mask"] for o in seen]).astype(bool))
                answers = kind.act_batches(agents, planes, masks)
                for (_, games), acts in zip(group, answers, strict=True):
                    for (row, _), action in zip(games, np.asarray(acts).tolist(), strict=True):
                        actions[row] = action
            for row, action in actions.items():
                agent = self._agents[
                    int(self._seat_agent[row, game.player_to_move(self.states[row])])
                ]
                game.play_action(self.states[row], action, f"opponent {agent!r} in game {row}")
                self.moves[row] += 1
            pending = waiting

    # --- views ---------------------------------------------------------------------------

    def _observe(self, rows: np.ndarray) -> None:
        for row in rows.tolist():
            state = self.states[row]
            k = self.game.player_to_move(state)
            if k is None or k != self.player[row]:
                self._masks[row] = False
                continue
            seen = self.game.observe(state, int(k), self.max_turns)
            self._obs[row] = seen["observation"]
            self._masks[row] = seen["action_mask"]

    def _infos(self) -> dict[str, Any]:
        return {"player": self.player.copy(), "_player": np.ones(self.num_envs, dtype=bool)}

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, num_actions]``: each learner's legal actions (the
        ``MaskablePPO`` contract)."""
        return self._masks.copy()

    def position(self, index: int) -> str:
        """The position of game ``index`` as text."""
        return self.game.to_text(self.states[index])
