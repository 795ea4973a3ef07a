"""Whole games between agents, fast: the rules engine and the agents, without the
environment wrappers. The evaluation harness (``training.evaluate``) and training's periodic
evaluations play their games here."""

from __future__ import annotations

import time
from collections.abc import Sequence

from splut_env.encoding import checked_step_id, observation
from splut_env.rules import from_spn
from splut_env.rules.engine import State
from splut_env.rules.notation import format_spn, step_text
from tabletop.agents import Agent, agent_seed, check_table
from tabletop.match import GameRecord


def play_game(
    agents: Sequence[Agent],
    seed: int | None = None,
    max_turns: int = 200,
    start_spn: str | None = None,
) -> GameRecord:
    """Play one game, ``agents[k]`` as ``player_k``; each agent is reset with a seed derived
    from ``seed``. Raises :class:`IllegalStepError` naming an agent that plays illegally."""
    n = len(agents)
    state = from_spn(start_spn) if start_spn else State.initial(n)
    if len(state.seats) != n:
        raise ValueError(f"{n} agents given for a {len(state.seats)}-player position")
    check_table(agents, n)
    for k, agent in enumerate(agents):
        agent.reset(seed=agent_seed(seed, k))
    player = {seat: k for k, seat in enumerate(state.seats)}
    record = GameRecord(format_spn(state), [], None, [], state.turn, "", [0.0] * n, [0] * n)
    alive = set(state.alive_seats())
    while not state.is_over() and state.turn <= max_turns:
        seat = state.to_move
        k = player[seat]
        agent = agents[k]
        obs = observation(state, seat, max_turns) if agent.needs_observation else None
        start = time.perf_counter()
        action = agent.act(state, obs)
        record.think_seconds[k] += time.perf_counter() - start
        record.decisions[k] += 1
        step = checked_step_id(state, seat, action, who=f"agent {agent!r} (player_{k})")
        record.steps.append(step_text(step))
        state.apply(step)
        now = set(state.alive_seats())
        record.eliminated += [player[s] for s in sorted(alive - now)]
        alive = now
    winner = state.winner()
    record.winner = player[winner] if winner >= 0 else None
    record.turns = min(state.turn, max_turns)
    record.final_spn = format_spn(state)
    return record
