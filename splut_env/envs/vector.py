"""Many games in one process: :class:`SplutVectorEnv`, a Gymnasium vector environment over
the batched engine (:mod:`splut_env.batched`).

Each of the ``num_envs`` games is seen by one learner, as in
:class:`splut_env.envs.gym.SplutGymEnv` (same observations, actions, rewards and
``action_masks()``); the other players are played in this process after every learner step:
a *batched* agent (a trained policy, ``random``) gets one call for every game where it is to
move, ``greedy`` and the search bots play all their games in compiled kernels
(:class:`splut_env.batched.bots.BatchedBot`), and other agents are asked game by game, each
game with its own instance.

Autoreset: ``AutoresetMode.SAME_STEP``. When a game ends, ``step`` returns the first
observation of the next game in its place; the last observation of the ended one is in
``infos["final_obs"][i]`` (and ``infos["_final_obs"][i]`` is true), and its outcome in
``infos["final_info"]["outcome"][i]``.

``step(actions, active=mask)`` steps only the games where ``mask`` is true: the others keep
their position and observation, get reward 0 and are neither terminated nor truncated, and
their actions are not read (for an adapter to ``AutoresetMode.NEXT_STEP``,
:mod:`training.rllib_vector`).

    from splut_env.envs.vector import SplutVectorEnv
    envs = SplutVectorEnv(num_envs=256, num_players=2, opponents="random")
    obs, infos = envs.reset(seed=0)
    obs, rewards, terminated, truncated, infos = envs.step(actions)   # one per game
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from splut_env.batched import BatchedGames
from splut_env.batched import kernels as K
from splut_env.batched.bots import LEVELS, BatchedBot
from splut_env.encoding import NUM_ACTIONS, OBS_SHAPE, checked_step_id
from splut_env.envs.aec import check_settings
from splut_env.envs.gym import OpponentSpec, opponent_agents, opponent_specs, player_index
from splut_env.players import make_agent
from splut_env.rules.board import SEATS_IN_PLAY
from splut_env.rules.notation import quote
from tabletop.agents import Agent
from tabletop.vector import active_games

#: Draws of a game's opening and opponents before :meth:`SplutVectorEnv.reset` gives up on
#: a game that keeps ending before its learner's first step.
START_TRIES = 100


class SplutVectorEnv(VectorEnv):
    """``num_envs`` Splut! games, each from its learner's point of view.

    Args:
        num_envs: number of games.
        num_players: 2, 3 or 4.
        max_turns: turn cap; a game is truncated after that many turns.
        opponents: one agent (or registered name) for every other seat, or a list of
            ``num_players - 1`` of them, in turn order after the learner. A name is made
            once per game for agents that are not batched (so each game's bot keeps its own
            plan). Default ``"random"``.
        learner_player: the learner's player index in every game, or ``None`` to draw it
            for each game at each reset.
        illegal_action: ``"terminate"`` (that game ends with −1) or ``"raise"``.
        opening_steps: each game starts after this many uniformly random legal steps (a
            different opening for every game, as ``training.evaluate --openings``), so
            that deterministic opponents do not repeat the same few games. Default 0.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 16,
        num_players: int = 2,
        max_turns: int = 200,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
        learner_player: int | None = None,
        illegal_action: str = "terminate",
        opening_steps: int = 0,
    ) -> None:
        num_players = check_settings(num_players, max_turns, None)
        if not isinstance(opening_steps, int) or opening_steps < 0:
            raise ValueError(
                f"opening_steps must be a whole number of steps, 0 or more, got {opening_steps!r}"
            )
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}"
            )
        if learner_player is not None:
            learner_player = player_index(learner_player, num_players)
        self.games = BatchedGames(num_envs, num_players, max_turns)
        self.num_envs = self.games.size
        self.num_players = num_players
        self.max_turns = max_turns
        self.learner_player = learner_player
        self.illegal_action = illegal_action
        self.opening_steps = opening_steps
        self.single_observation_space = spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        #: Each game's learner: its player index and its seat (0..3 for S, W, N, E).
        self.player = np.zeros(self.num_envs, dtype=np.int64)
        self.seat = np.zeros(self.num_envs, dtype=np.int64)
        self._rng = np.random.default_rng()
        # The opponents: ``_agents`` holds every agent in play (a batched agent once, a bot
        # by name); ``_seat_agent[i, s]`` is the index of the one playing seat s of game i;
        # bots that are not batched get one instance per game and seat in ``_own``.
        self._agents: list[Agent | BatchedBot | str | None] = []
        self._seat_agent = np.full((self.num_envs, 4), -1, dtype=np.int64)
        self._own: dict[tuple[int, int, str], Agent] = {}
        self._obs = np.zeros((self.num_envs, *OBS_SHAPE), dtype=np.float32)
        self.set_opponents(opponents)

    # --- opponents -----------------------------------------------------------------------

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Replace the opponents of every game (from each game's next reset on)."""
        specs = opponent_specs(opponents, self.num_players)
        agents = opponent_agents(specs, self.num_players)
        self._opponent_slots = [
            self._slot(spec, agent) for spec, agent in zip(specs, agents, strict=True)
        ]

    def _slot(self, spec: OpponentSpec, agent: Agent) -> int:
        """The index in ``_agents`` of an opponent (added if new)."""
        entry: Agent | BatchedBot | str = (
            agent if agent.batched or not isinstance(spec, str) else spec
        )
        for index, known in enumerate(self._agents):
            if known is entry or (isinstance(entry, str) and known == entry):
                return index
            if isinstance(known, BatchedBot) and known.name == spec:
                return index
        if isinstance(entry, str) and entry in LEVELS:
            entry = BatchedBot(entry)
        if not isinstance(entry, str):
            entry.reset(seed=int(self._rng.integers(2**31)))
        if None in self._agents:
            index = self._agents.index(None)
            self._agents[index] = entry
            return index
        self._agents.append(entry)
        return len(self._agents) - 1

    def drop_agent(self, agent: Agent) -> bool:
        """Forget an opponent no game plays any more; ``False`` (kept) if one still does."""
        for index, known in enumerate(self._agents):
            if known is agent:
                if (self._seat_agent == index).any():
                    return False
                self._agents[index] = None
        return True

    def choose_opponents(self, rows: np.ndarray) -> np.ndarray:
        """``int[len(rows), num_players - 1]``: the opponents (indices into the agents in
        play) of each game about to start, in turn order after its learner. Subclasses
        override this to draw them (self-play pools)."""
        return np.tile(self._opponent_slots, (len(rows), 1))

    def choose_players(self, rows: np.ndarray) -> np.ndarray:
        """The learner's player index in each game about to start (when ``learner_player``
        is ``None``): uniform. Subclasses may weigh them."""
        return self._rng.integers(self.num_players, size=len(rows))

    # --- episodes ------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game. ``options``: ``"learner_player"`` for all games this time."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for entry in self._agents:
                if entry is not None and not isinstance(entry, str):
                    entry.reset(seed=int(self._rng.integers(2**31)))
        options = options or {}
        if not isinstance(options, dict) or set(options) - {"learner_player"}:
            raise ValueError(f"options may only hold 'learner_player', got {options!r:.120}")
        rows = np.arange(self.num_envs)
        self._start(rows, options.get("learner_player", self.learner_player))
        self._observe(rows)
        return self._obs.copy(), self._infos()

    def _start(self, rows: np.ndarray, learner_player: int | None) -> None:
        """New games in ``rows``, played up to their learner's first step. A game that ends
        before it (the opponents kill the learner's wizard straight from a random opening)
        is drawn again: an agent is never asked to act without a legal step."""
        g = self.games.games
        pending = rows
        for _ in range(START_TRIES):
            self._start_once(pending, learner_player)
            out = g[pending, K.POS + 3 * self.seat[pending]] < 0
            pending = pending[(g[pending, K.TO_MOVE] < 0) | out]
            if not pending.size:
                return
        raise RuntimeError(
            f"games {pending.tolist()} ended before their learner's first step in "
            f"{START_TRIES} draws of their opening and opponents"
        )

    def _start_once(self, rows: np.ndarray, learner_player: int | None) -> None:
        n = self.num_players
        if learner_player is None:
            players = self.choose_players(rows)
        else:
            players = np.full(len(rows), player_index(learner_player, n))
        seats = np.array(SEATS_IN_PLAY[n])
        self._open(rows)
        self.player[rows] = players
        self.seat[rows] = seats[players]
        chosen = self.choose_opponents(rows)
        self._seat_agent[rows] = -1
        for k in range(1, n):
            self._seat_agent[rows, seats[(players + k) % n]] = chosen[:, k - 1]
        seeds = self._rng.integers(2**31, size=(len(rows), 4))
        for j, row in enumerate(rows.tolist()):
            for seat in range(4):
                entry = (
                    self._agents[self._seat_agent[row, seat]]
                    if self._seat_agent[row, seat] >= 0
                    else None
                )
                if isinstance(entry, str):
                    self._own_agent(row, seat, entry).reset(seed=int(seeds[j, seat]))
        self._play_opponents(rows, np.zeros(self.num_envs, dtype=np.float32))

    def _open(self, rows: np.ndarray) -> None:
        """Reset the games in ``rows`` and play their ``opening_steps`` random steps; a game
        in which those steps took a wizard off the board is started again."""
        pending = rows
        while pending.size:
            self.games.reset(pending)
            for _ in range(self.opening_steps):
                live = pending[self.games.games[pending, K.TO_MOVE] >= 0]
                self.games.step(self.games.random_actions(self._rng, live), live)
            pending = pending[self.games.alive(pending).sum(axis=1) < self.num_players]

    def _own_agent(self, row: int, seat: int, name: str) -> Agent:
        agent = self._own.get((row, seat, name))
        if agent is None:
            agent = self._own[(row, seat, name)] = make_agent(name)
        return agent

    def step(
        self, actions: Any, active: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner step in each game (in the games where ``active`` is true, when
        given; see the module doc)."""
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} whole numbers (one per game), got "
                f"{quote(actions)}"
            )
        stepped = active_games(active, self.num_envs)
        acts = acts.astype(np.int64)
        rows = np.arange(self.num_envs)
        legal = (acts >= 0) & (acts < NUM_ACTIONS)
        legal[legal] = self.games.masks[rows[legal], acts[legal]]
        legal |= ~stepped  # the actions of games left out are not read
        if not legal.all() and self.illegal_action == "raise":
            i = int(np.argmin(legal))
            seat = int(self.seat[i])
            checked_step_id(self.games.state(i), seat, int(acts[i]), f"the learner of game {i}")
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        moved = rows[legal & stepped]
        if moved.size:
            seat_rewards, _, _ = self.games.step(acts[moved], moved)
            rewards[moved] = seat_rewards[np.arange(moved.size), self.seat[moved]]
            self._play_opponents(moved, rewards)
        g = self.games.games
        learner_out = g[rows, K.POS + 3 * self.seat] < 0
        terminated = ((g[:, K.TO_MOVE] < 0) | learner_out | ~legal) & stepped
        truncated = ~terminated & (g[:, K.TURN] > self.max_turns) & stepped
        rewards[~legal] = -1.0
        self._observe(rows[stepped])
        infos = self._infos()
        done = np.flatnonzero(terminated | truncated)
        if done.size:
            final = np.full(self.num_envs, None, dtype=object)
            final[done] = list(self._obs[done].copy())
            has_final = np.zeros(self.num_envs, dtype=bool)
            has_final[done] = True
            outcome = np.where(has_final, rewards, 0.0)
            infos["final_obs"], infos["_final_obs"] = final, has_final
            infos["final_info"] = {
                "outcome": outcome,
                "_outcome": has_final,
                "illegal_action": ~legal,
                "_illegal_action": has_final,
            }
            infos["_final_info"] = has_final
            self._start(done, self.learner_player)
            self._observe(done)
            infos["player"][done] = self.player[done]
            infos["seat"][done] = self.seat[done]
        return self._obs.copy(), rewards, terminated, truncated, infos

    # --- opponents' steps ----------------------------------------------------------------

    def _play_opponents(self, rows: np.ndarray, rewards: np.ndarray) -> None:
        """Let the opponents play in ``rows`` until each game's learner is to move or is out,
        or the game is over or past its turn cap; add the learner's rewards to ``rewards``."""
        g = self.games.games
        pending = rows
        while pending.size:
            to_move = g[pending, K.TO_MOVE]
            seat = self.seat[pending]
            waiting = (
                (to_move >= 0)
                & (to_move != seat)
                & (g[pending, K.POS + 3 * seat] >= 0)
                & (g[pending, K.TURN] <= self.max_turns)
            )
            pending, to_move = pending[waiting], to_move[waiting]
            if not pending.size:
                return
            agent_of = self._seat_agent[pending, to_move]
            actions = np.empty(pending.size, dtype=np.int64)
            # Batched agents of one class are asked together (policies: one forward pass).
            together: dict[type, list[tuple[Agent, np.ndarray]]] = {}
            for index in np.unique(agent_of).tolist():
                chosen = agent_of == index
                entry = self._agents[index]
                if isinstance(entry, Agent) and entry.batched:
                    together.setdefault(type(entry), []).append((entry, chosen))
                else:
                    actions[chosen] = self._act(index, pending[chosen], to_move[chosen])
            for kind, group in together.items():
                agents = [agent for agent, _ in group]
                planes = [
                    self.games.observations(pending[chosen]) if agent.needs_observation else None
                    for agent, chosen in group
                ]
                masks = [self.games.masks[pending[chosen]] for _, chosen in group]
                answers = kind.act_batches(agents, planes, masks)
                for (_, chosen), acts in zip(group, answers, strict=True):
                    actions[chosen] = np.asarray(acts, dtype=np.int64)
            seat_rewards, _, _ = self.games.step(actions, pending)
            rewards[pending] += seat_rewards[np.arange(pending.size), self.seat[pending]]

    def _act(self, index: int, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
        entry = self._agents[index]
        if isinstance(entry, BatchedBot):
            return entry.act_games(self.games, rows)
        masks = self.games.masks[rows]
        actions = np.empty(rows.size, dtype=np.int64)
        for k, (row, seat) in enumerate(zip(rows.tolist(), seats.tolist(), strict=True)):
            agent = self._own_agent(row, seat, entry) if isinstance(entry, str) else entry
            obs = None
            if agent.needs_observation:
                planes = self.games.observations([row])[0]
                obs = {"observation": planes, "action_mask": masks[k].astype(np.int8)}
            actions[k] = agent.act(self.games.state(row), obs)
        return actions

    # --- views ---------------------------------------------------------------------------

    def _observe(self, rows: np.ndarray) -> None:
        self._obs[rows] = self.games.observations(rows, self.seat[rows])

    def _infos(self) -> dict[str, Any]:
        every = np.ones(self.num_envs, dtype=bool)
        return {
            "player": self.player.copy(),
            "_player": every,
            "seat": self.seat.copy(),
            "_seat": every,
        }

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, 196]``: each learner's legal actions (the ``MaskablePPO``
        contract)."""
        return self.games.masks.copy()

    def spn(self, index: int) -> str:
        """The position of game ``index`` in SPN."""
        return self.games.spn(index)
