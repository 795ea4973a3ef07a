"""The expert's search guided by the network (``…zip:expert``): the network breaks exactly
the search's ties, its turn probabilities are the policy's, and the spec is checked."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_expert import WEIGHTS, row
from test_tactics import random_positions

from splut_env.batched import bots as B
from splut_env.batched.bots import CompiledAgent
from splut_env.encoding import action_to_step_id
from splut_env.encoding import observation as encode
from splut_env.envs.match import play_game
from splut_env.players import make_agent
from splut_env.players.guided import DEFAULT_NODES, GuidedSearchAgent, parse_guided
from splut_env.rules import State


def test_the_spec_names_the_budget_and_leaves_the_bot_alone():
    agent = make_agent("checkpoints/splut_2p.zip:expert")
    assert isinstance(agent, GuidedSearchAgent) and agent.nodes == DEFAULT_NODES
    assert agent.name == "splut_2p.zip:expert"
    small = make_agent("checkpoints/splut_2p.zip:expert=300")
    assert small.nodes == 300 and small.name == "splut_2p.zip:expert=300"
    for bad in ["checkpoints/splut_2p.zip:expert=0", "checkpoints/splut_2p.zip:expert=lots"]:
        with pytest.raises(ValueError, match="whole number of positions a turn"):
            make_agent(bad)
    assert parse_guided("search:expert") is None and parse_guided("search:expert=500") is None
    assert isinstance(make_agent("search:expert=500"), CompiledAgent)


def test_turns_are_searched_and_kept_in_the_order_of_value_then_rank():
    """One turn deep with no budget limit: the root's turns are searched in the order of
    their static evaluation, ties by rank (highest first), and the first of the best leaf
    value is kept; with no rank, some turn of the best leaf value."""
    rng = np.random.default_rng(4)
    tt, tt_value = np.zeros((B._TT_SIZE, 4), dtype=np.int64), np.zeros(B._TT_SIZE)
    tied = 0
    for _, state in random_positions(seed=8, games=40):
        g = row(state)
        ends, _ = B._turn_ends(g)
        seat = state.to_move
        static = np.array([B.K._weighted_evaluate(end, seat, WEIGHTS) for end in ends])
        leaf = np.array([B._leaf(end, seat, 1, WEIGHTS) for end in ends])
        rank = rng.permutation(len(ends)).astype(np.float64)
        order = sorted(range(len(ends)), key=lambda k: (-static[k], -rank[k]))
        best = [k for k in order if leaf[k] == leaf.max()]
        expected = order[0] if static[order[0]] >= B.WIN else best[0]
        assert B._expert_search(g, ends, rank, 1, 10**9, WEIGHTS, tt, tt_value) == expected
        assert B._expert_search(g, ends, np.empty(0), 1, 10**9, WEIGHTS, tt, tt_value) in best
        tied += len(best) > 1
    assert tied >= 5  # the positions exercise the tie-break


def test_turn_probabilities_are_the_policys_step_by_step():
    """A turn's log-probability is the sum of the network's log-softmax over the legal steps
    of each position on its way (computed here one position at a time, from the encoder's
    mask); over all of a position's distinct turns the probabilities sum to at most 1."""
    agent = make_agent("checkpoints/splut_2p.zip:expert=50")
    policy = agent.agent
    rng = np.random.default_rng(1)
    for _, state in random_positions(seed=6, games=6):
        turns = [tuple(int(s) for s in seq if s >= 0) for seq in B._turn_ends(row(state))[1]]
        log_p = agent.turn_log_priors(state, turns)
        assert log_p.shape == (len(turns),) and np.all(log_p <= 1e-9)
        assert np.exp(log_p).sum() <= 1 + 1e-6
        for k in rng.choice(len(turns), size=min(5, len(turns)), replace=False):
            position, expected = state.copy(), 0.0
            for step in turns[k]:
                obs = encode(position, position.to_move, policy.max_turns)
                logits = torch.as_tensor(policy.logits(obs["observation"][None])[0]).double()
                logits[torch.as_tensor(obs["action_mask"]) == 0] = -torch.inf
                action = next(
                    a for a in range(len(logits)) if action_to_step_id(position.to_move, a) == step
                )
                expected += float(torch.log_softmax(logits, 0)[action])
                position.apply(step)
            assert log_p[k] == pytest.approx(expected, abs=1e-4)


def test_the_network_decides_the_ties_and_the_play_is_legal_and_repeatable():
    """The guided player's turn does not depend on the seed where the bot's random
    tie-break does, and its games are legal and the same when played again."""
    guided = [make_agent("checkpoints/splut_2p.zip:expert=400", seed=s) for s in (1, 2)]
    bots = [make_agent("search:expert=400", seed=s) for s in (1, 2)]
    differ = 0
    for _, state in random_positions(seed=9, games=12):
        first, second = (a.plan_turn(state) for a in guided)
        assert first == second
        differ += bots[0].plan_turn(state) != bots[1].plan_turn(state)
    assert differ >= 1  # the bots' ties were there to break
    agents = [make_agent("checkpoints/splut_2p.zip:expert=200"), make_agent("random")]
    game = play_game(agents, seed=3, max_turns=30)
    assert game.steps and game.steps == play_game(agents, seed=3, max_turns=30).steps


def test_a_network_for_another_table_size_is_refused():
    agents = [make_agent("checkpoints/splut_3p.zip:expert=50"), make_agent("random")]
    with pytest.raises(ValueError, match=r"splut_3p\.zip:expert=50.*trained for 3 players"):
        play_game(agents, seed=0, max_turns=5)


def test_it_is_refused_for_a_bot_that_does_not_search_by_alpha_beta():
    with pytest.raises(ValueError, match="only search:expert"):
        B.BatchedBot("search:hard").plan_ranked(State.initial(2), lambda turns: np.zeros(0))
