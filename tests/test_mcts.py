"""The search player over the network (``…zip:mcts``): legal, deterministic, sees kills that
end the game, plays every table size, and its spec is checked."""

from __future__ import annotations

import numpy as np
import pytest
from test_tactics import play_turn, random_positions

from splut_env.encoding import action_mask, action_to_step_id
from splut_env.envs.match import play_game
from splut_env.players import make_agent
from splut_env.players.mcts import (
    DEFAULT_SIMULATIONS,
    MCTSAgent,
    Node,
    final_values,
    leaf_values,
)
from splut_env.players.tactics import turn_outcomes
from splut_env.rules import State, from_spn


def test_the_spec_names_the_budget():
    agent = make_agent("checkpoints/splut_2p.zip:mcts")
    assert isinstance(agent, MCTSAgent) and agent.simulations == DEFAULT_SIMULATIONS
    assert make_agent("checkpoints/splut_2p.zip:mcts=12").simulations == 12
    for bad in ["checkpoints/splut_2p.zip:mcts=0", "checkpoints/splut_2p.zip:mcts=many"]:
        with pytest.raises(ValueError, match="whole number of simulations"):
            make_agent(bad)


def test_values_per_seat():
    """A finished game: +1 to the winner, -1 to the others; a leaf: the mover's value, the
    opposite shared by the others still in play, -1 to a seat that is out."""
    state = State.initial(3)
    assert leaf_values(state, 0.6).tolist() == [0.6, -0.3, -0.3, 0.0]
    assert leaf_values(state, 7.0)[0] == 1.0  # clipped
    out = from_spn("S:e3,f2,- W:-,-,- N:h5,e6,- R:a5,e1,e5,i5 N 11 3 - - -")
    values = leaf_values(out, 0.2)
    assert values[1] == -1.0 and values[2] == 0.2 and values[0] == -0.2
    for end in [e for _, s in random_positions(5, 60) for _, e in turn_outcomes(s)]:
        if end.is_over():
            result = final_values(end)
            assert result[end.winner()] == 1.0 and result.sum() == 2.0 - len(end.seats)
            break
    else:
        raise AssertionError("no finished game found")


def test_the_search_finds_the_kills_its_network_misses():
    """Over seeded positions where some turn kills, the searching player's whole turn kills
    in nearly all; the network alone misses some of them."""
    search = make_agent("checkpoints/splut_2p.zip:mcts=64")
    alone = make_agent("checkpoints/splut_2p.zip")
    found = {"positions": 0, "search": 0, "alone": 0}
    for game, state in random_positions(seed=11, games=120):
        seat = state.to_move
        if not any(st.alive_seats() == [seat] for _, st in turn_outcomes(state)):
            continue
        found["positions"] += 1
        for name, agent in [("search", search), ("alone", alone)]:
            played = state.copy()
            play_turn(agent, played, seed=game)
            found[name] += played.is_over() and played.winner() == seat
    assert found["positions"] >= 8, found
    assert found["search"] >= 0.9 * found["positions"], found
    assert found["search"] > found["alone"], found


@pytest.mark.parametrize("players", [2, 3, 4])
def test_legal_and_deterministic_games(players):
    checkpoint = f"checkpoints/splut_{players}p.zip:mcts=8"
    agents = [make_agent(checkpoint)] + [make_agent("random") for _ in range(players - 1)]
    first = play_game(agents, seed=3, max_turns=30)
    again = play_game(agents, seed=3, max_turns=30)
    assert first.steps == again.steps and len(first.steps) > 0


def test_every_chosen_action_is_legal_for_the_player_to_move():
    agent = make_agent("checkpoints/splut_2p.zip:mcts=16")
    for _, state in random_positions(seed=2, games=12):
        action = agent.act(state)
        assert action_mask(state, state.to_move)[action] == 1
        state.apply(action_to_step_id(state.to_move, action))


def test_a_node_knows_a_step_that_wins_at_once():
    """Expanding a position where a throw kills the last opponent marks that step as the
    node's win, and the selection then always takes it."""
    for _, state in random_positions(seed=11, games=120):
        seat = state.to_move
        wins = [s for s in state.legal_ids() if _wins(state, s, seat)]
        if wins:
            break
    else:
        raise AssertionError("no position with a winning step found")
    node = Node(state.copy(), max_turns=200)
    node.expand(np.zeros(196), max_turns=200)
    assert node.win >= 0 and node.steps[node.win] in wins
    assert node.choose(c_puct=1.5, first_play=0.0) == node.win


def _wins(state, step, seat):
    after = state.copy()
    after.apply(step)
    return after.is_over() and after.winner() == seat
