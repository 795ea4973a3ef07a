"""Baseline bots: legality over many games, determinism, the greedy rules, search levels."""

from __future__ import annotations

import pytest
from conftest import spn

from splut_env import make_agent, rules
from splut_env.envs.match import play_game
from splut_env.players.bots import GreedyAgent, SearchAgent, evaluate
from splut_env.players.tactics import threatens, turn_outcomes
from splut_env.rules.notation import step_text


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_only_choose_legal_steps(players):
    # play_game raises IllegalStepError if any agent picks an illegal step.
    lineups = {
        2: [["greedy", "random"], ["random", "greedy"], ["search:easy", "greedy"]],
        3: [["greedy", "random", "search:easy"], ["random", "greedy", "greedy"]],
        4: [["greedy", "random", "search:easy", "random"], ["random"] * 2 + ["greedy"] * 2],
    }[players]
    finished = 0
    for seed in range(6):
        for lineup in lineups:
            record = play_game([make_agent(a) for a in lineup], seed=seed, max_turns=120)
            finished += record.winner is not None
            replay = rules.from_spn(record.start_spn)
            for step in record.steps:
                replay = rules.play(replay, step)
            assert rules.to_spn(replay) == record.final_spn
    assert finished > 0


@pytest.mark.parametrize("name", ["greedy", "search:easy", "random"])
def test_bots_are_deterministic_given_a_seed(name):
    games = [
        play_game([make_agent(name), make_agent("random")], seed=11, max_turns=60).steps
        for _ in range(2)
    ]
    assert games[0] == games[1]


def test_greedy_kills_when_it_can():
    start = rules.from_spn(spn("c4,e4,-", "g5,d8,e8", "a5,e1,e5,i5"))
    end = start.copy()
    for i in GreedyAgent(seed=0).plan_turn(start):
        end.apply(i)
    assert rules.winner(end) == "S"


def test_threat_detection_and_greedy_avoids_it():
    # N's troll on e6 next to the rock on e5: one step (Tsxs) kills a wizard on e3, not d3.
    assert threatens(rules.from_spn(spn("e3,a5,-", "h5,e6,-", "c5,e1,e5,i5", "N", steps=1)), 0)
    assert not threatens(rules.from_spn(spn("d3,a5,-", "h5,e6,-", "c5,e1,e5,i5", "N", steps=1)), 0)
    # S to move, one step; after it N has a 3-step turn. Most S steps leave a kill to N.
    start = rules.from_spn(spn("d3,a5,-", "h5,e6,-", "c5,e1,e5,i5", steps=1))
    exposed = {step_text(seq[0]): threatens(st, 0) for seq, st in turn_outcomes(start)}
    assert exposed["Wn"] and exposed["Te"] and not exposed["Ws@e5"]
    for seed in range(5):
        (step,) = GreedyAgent(seed=seed).plan_turn(start)
        assert not exposed[step_text(step)]


def test_evaluation_sees_wins_and_losses():
    won = rules.from_spn("S:c4,e5,- N:-,-,- R:a5,e1,g5,i5 - 10 0 - g5 -")
    assert evaluate(won, 0) == 1000 and evaluate(won, 2) == -1000
    start = rules.initial_state(2)
    assert evaluate(start, 0) == pytest.approx(evaluate(start, 2))


def test_search_levels_and_registry():
    assert make_agent("search:hard").name == "search:hard"
    assert (SearchAgent("easy").depth, SearchAgent("hard").depth) == (2, 3)
    with pytest.raises(ValueError, match="unknown search level 'expert'"):
        SearchAgent("expert")
    with pytest.raises(ValueError, match="unknown agent 'search:impossible'"):
        make_agent("search:impossible")
