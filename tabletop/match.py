"""Whole games between agents, for any registered game: the rules and the agents, without
the environment wrappers. The evaluation harness (:mod:`tabletop.evaluate`) and training's
periodic evaluations play their games through :meth:`tabletop.games.Game.play_game`, whose
default is :func:`play_game` here."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tabletop.agents import Agent, agent_seed, check_table

if TYPE_CHECKING:
    from tabletop.games import Game


@dataclass
class GameRecord:
    """One finished (or truncated) game: everything needed to score and replay it. The
    positions (``start_spn``, ``final_spn``) and ``steps`` are in the game's own notation."""

    start_spn: str
    steps: list[str]
    winner: int | None  # player index (seat order of the game), None for no winner
    eliminated: list[int]  # player indices in the order they went out (games with that)
    turns: int
    final_spn: str
    think_seconds: list[float] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)
    #: Finishing ranks by player index (1 = best), for games ranked at the end (``None``:
    #: ranked by ``eliminated``).
    ranks: list[int] | None = None


def play_game(
    game: Game,
    agents: Sequence[Agent],
    seed: int | None = None,
    max_turns: int | None = None,
    start: str | None = None,
) -> GameRecord:
    """Play one game of ``game``, ``agents[k]`` as ``player_k``, each reset with a seed
    derived from ``seed``; cut after ``max_turns`` turns (the game's own cap by default).
    Raises ``ValueError`` naming an agent that plays illegally."""
    n = len(agents)
    state = game.from_text(start) if start else game.initial_state(game.check_players(n), seed)
    if game.num_players(state) != n:
        raise ValueError(f"{n} agents given for a {game.num_players(state)}-player position")
    max_turns = game.max_turns if max_turns is None else max_turns
    check_table(agents, n)
    for k, agent in enumerate(agents):
        agent.reset(seed=agent_seed(seed, k))
    start_turn = game.turn(state)
    counted = start_turn is None  # the game keeps no turn counter: count the moves played

    def turn() -> int:
        return len(record.steps) if counted else game.turn(state)

    record = GameRecord(game.to_text(state), [], None, [], start_turn or 0, "", [0.0] * n, [0] * n)
    while (k := game.player_to_move(state)) is not None and turn() <= max_turns:
        agent = agents[k]
        obs = game.observe(state, k, max_turns) if agent.needs_observation else None
        start_time = time.perf_counter()
        action = agent.act(state, obs)
        record.think_seconds[k] += time.perf_counter() - start_time
        record.decisions[k] += 1
        record.steps.append(game.apply_action(state, action, who=f"agent {agent!r} (player_{k})"))
    record.winner = game.winner(state)
    record.ranks = game.ranks(state)
    record.turns = min(turn(), max_turns)
    record.final_spn = game.to_text(state)
    return record
