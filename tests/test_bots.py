"""Baseline bots: legality over many games, determinism, the greedy rules, search levels."""

from __future__ import annotations

import pytest
from conftest import greedy_turns, spn

from splut_env import make_agent, rules
from splut_env.envs.match import play_game
from splut_env.players.bots import GreedyAgent, SearchAgent, evaluate
from splut_env.players.tactics import exposed, forced_win, threatens, turn_outcomes
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


def test_turn_outcomes_are_every_distinct_end_of_turn_position():
    state = rules.from_spn("S:d3,e4,f2 N:c4,d8,e7 R:b5,e1,e9,g4 S 7 3 - g4 -")
    outcomes = turn_outcomes(state)
    keys = [st.key() for _, st in outcomes]
    assert len(set(keys)) == len(keys)
    for seq, st in outcomes:
        replay = state
        for i in seq:
            replay = rules.play(replay, step_text(i))
        assert replay == st and (st.turn == 8 or st.is_over())

    def ends(s, acc):
        for i in s.legal_ids():
            child = s.copy()
            child.apply(i)
            if child.turn != s.turn or child.is_over():
                acc.add(child.key())
            else:
                ends(child, acc)
        return acc

    assert set(keys) == ends(state, set())


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
    with pytest.raises(ValueError, match="unknown agent 'search:expert'"):
        make_agent("search:expert")


def test_exposure_counts_every_opponent_in_multiplayer_games():
    # W moves next and cannot reach S's wizard on e3; N, moving after W, could (Tsxs).
    state = rules.from_spn("S:e3,f2,- W:b6,b4,b5 N:h5,e6,- R:a5,e1,e5,i5 W 11 3 - - -")
    assert not threatens(state, 0) and exposed(state, 0)
    far = rules.from_spn("S:c3,f2,- W:b6,b4,b5 N:f8,g6,- R:a5,e1,e9,i5 W 11 3 - - -")
    assert not exposed(far, 0)


def test_forced_win_agrees_with_trying_every_reply():
    """At the end of every turn of seeded greedy games, ``forced_win`` says whether every
    turn of the next player leaves the last mover a kill, as enumerating them all does."""
    found = {True: 0, False: 0}
    for start, end in greedy_turns():
        victim = end.to_move
        every_reply = all(
            st.pos[victim * 3] < 0 or threatens(st, victim) for _, st in turn_outcomes(end)
        )
        assert forced_win(end, start.to_move) == every_reply, rules.to_spn(end)
        found[every_reply] += 1
    assert found[True] >= 2 and found[False] >= 50, found
    assert not forced_win(rules.initial_state(3), 1)  # two players only
