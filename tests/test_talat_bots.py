"""Talat's built-in players: legality over whole games, determinism, tactics, the registry
and a cheap strength ladder."""

from __future__ import annotations

import random

import numpy as np
import pytest

from talat_env import rules
from talat_env.encoding import action_mask, action_of, move_of
from talat_env.players import BEST, PLAYERS, agent_names, make_agent, register_agent
from talat_env.players.bots import (
    PASS,
    POTENTIAL_BOUND,
    WIN,
    GreedyAgent,
    RandomAgent,
    evaluate,
    potential,
)
from talat_env.players.ladder import main as ladder_main
from talat_env.players.ladder import play_game, play_pairing
from talat_env.players.search import LEVELS, SearchAgent, child_key, zobrist

BOTS = ["random", "greedy", "search:easy", "search:medium", "search:hard", "search:expert"]

# White to move on wb: its L6 on c2 takes the undefended black M4 on c3 for 5 points.
FREE_CAPTURE_3P = (
    "3p wb:...../...../..bM4../..wL6../..... bg:gM4..../...../...../...../bM3.... "
    "gw:wM4..../...../...../...../gM3.... play w w=bS3,bS4,bS6,gS3,gS4,gS6 "
    "b=wS3,wS4,wS6,gM6,gL3,gL4,gL6 g=wM3,wM6,wL3,wL4,bM6,bL3,bL4,bL6"
)
FREE_CAPTURE_2P = (
    "2p wb:...../...../..bM4../..wL6../..... bg:gM4..../...../...../...../bM3.... "
    "gw:wM4..../...../...../...../gM3.... play w w=bS3,bS4,bS6,bM6,bL3,bL4,bL6,gS3,gS4,gS6 "
    "b=wS3,wS4,wS6,wM3,wM6,wL3,wL4,gM6,gL3,gL4"
)
# gw is frozen and white trails 50 to 60: the same capture freezes wb and ends the game,
# lost 55 to 60; every other move plays on.
CAPTURE_LOSES_2P = (
    "2p wb:...../...../..bM4../..wL6../..... bg:gM4..../...../...../...../bM3.... "
    "gw*:...../...../...../...../..... play w w=bS3,bS4,bS6,bM6,bL3,bL4,bL6,gS3,gS4,gS6 "
    "b=wS3,wS4,wS6,wM3,wM6,wL3,wL4,gM6,gL3,gL4,wM4,gM3"
)
# TALAT_PERFT.md position C: wb frozen; after most white moves black can only pass.
LATE_3P = (
    "3p wb*:wL6.wS6.wL3/...../...wM3./.bS4.../.bS6.bL6. bg:.bL4.../...../.gM6.gL6gS4/....bL3/"
    ".gS3gL3.. gw:.gL4.gM3./.wM6.../...wL4gM4/wS4wM4.../..... play w w=bM3,bS3,gS6 b=- "
    "g=bM4,bM6,wS3"
)
# TALAT_PERFT.md position D: the last two placements of a 2-player set-up.
LAST_PLACEMENTS_2P = (
    "2p wb:bM4bS4.bL4bS6/...../...../...../wM3.wL4wS6. bg:.gM4gS4gS6gL6/...../...../...../"
    "bM3bL3.bM6bL6 gw:wL3wS3wL6wM6wS4/...../...../...../gS3gM6gL4.gL3 place w w=- b=-"
)


def choice(agent, state) -> str:
    """The move text ``agent`` plays in ``state``, checked legal."""
    action = agent.act(state, None)
    move = move_of(state.num_players, state.to_move, action)
    assert move in state.legal_ids()
    return rules.move_text(state, move)


# --- legality --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lineup",
    [
        ["greedy", "random"],
        ["random", "search:easy"],
        ["search:medium=300", "greedy"],
        ["search:expert=200", "search:hard=200"],
        ["greedy", "random", "search:easy"],
        ["random", "search:medium=200", "greedy"],
        ["search:hard=150", "search:expert=150", "random"],
    ],
)
def test_bots_play_only_legal_moves_in_whole_games(lineup):
    # play_game raises ValueError if any agent picks an illegal move; set-up included.
    for seed in range(2):
        game = play_game([make_agent(name) for name in lineup], seed=seed)
        assert game.final.is_over() and game.winners
        replay = rules.initial_state(len(lineup))
        for move in game.moves:
            replay = rules.play(replay, rules.move_text(replay, move))
        assert rules.to_text(replay) == rules.to_text(game.final)


@pytest.mark.parametrize("name", BOTS)
def test_bots_pass_when_forced_and_place_in_set_up(name):
    agent = make_agent(name, seed=0)
    late = rules.from_text(LATE_3P)
    move = choice(agent, late)
    after = rules.play(late, move)
    if not after.is_over() and after.legal_ids() == [PASS]:
        assert choice(agent, after) == "pass"
    placing = rules.from_text(LAST_PLACEMENTS_2P)
    assert choice(agent, placing) in rules.legal_moves(placing)
    for players in (2, 3):
        assert "@" in choice(agent, rules.initial_state(players))


def test_random_acts_on_batches_of_masks():
    states = [rules.initial_state(2), rules.from_text(LATE_3P), rules.from_text(FREE_CAPTURE_2P)]
    masks = np.stack([action_mask(state, state.to_move) for state in states])
    picks = RandomAgent(seed=3).act_batch(None, masks)
    assert all(masks[row, a] for row, a in enumerate(picks))
    assert list(RandomAgent(seed=3).act_batch(None, masks)) == list(picks)


# --- determinism -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["random", "greedy", "search:easy", "search:hard=300"])
def test_bots_are_deterministic_given_a_seed(name):
    games = [play_game([make_agent(name), make_agent("greedy")], seed=11).moves for _ in range(2)]
    assert games[0] == games[1]
    other = play_game([make_agent(name), make_agent("greedy")], seed=12).moves
    assert other != games[0]


def test_the_incremental_hash_follows_a_game():
    rng = random.Random(5)
    for players in (2, 3):
        state = rules.initial_state(players)
        key = zobrist(state, 1)
        while not state.is_over():
            move = rng.choice(state.legal_ids())
            child = state.copy()
            child.apply(move)
            key = child_key(key, state, child, move)
            assert key == zobrist(child, 1)
            state = child


# --- tactics ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [FREE_CAPTURE_2P, FREE_CAPTURE_3P])
@pytest.mark.parametrize("name", ["greedy", "search:easy", "search:medium", "search:expert"])
def test_bots_take_a_free_capture(name, text):
    for seed in range(3):
        assert choice(make_agent(name, seed=seed), rules.from_text(text)) == "wb:c2xc3"


@pytest.mark.parametrize("name", ["greedy", "search:easy", "search:medium", "search:expert"])
def test_bots_avoid_a_capture_that_ends_the_game_lost(name):
    state = rules.from_text(CAPTURE_LOSES_2P)
    assert rules.winners(rules.play(state, "wb:c2xc3")) == ["b"]
    for seed in range(3):
        assert choice(make_agent(name, seed=seed), state) != "wb:c2xc3"


def test_search_does_not_step_into_a_capture():
    # White's M4 on wb c3, black's L4 on d5: stepping to c4 or d4 puts it in contact with
    # the L4, which takes it.
    state = rules.from_text(
        "2p wb:...bL4./...../..wM4../...../..... bg:gM4..../...../...../...../bM3.... "
        "gw:wL4..../...../...../...../gM3.... play w "
        "w=bS3,bS4,bS6,bM6,bL3,bM4,bL6,gS3,gS4,gS6 b=wS3,wS4,wS6,wM3,wM6,wL3,wL6,gM6,gL3,gL4"
    )
    for name in ("greedy", "search:medium", "search:expert"):
        move = choice(make_agent(name, seed=0), state)
        assert move not in ("wb:c3-c4", "wb:c3-d4"), name


def test_evaluation_scores_finished_games_by_the_winner():
    state = rules.from_text(CAPTURE_LOSES_2P)
    lost = rules.play(state, "wb:c2xc3")
    assert evaluate(lost, 0) == -WIN - 5 and evaluate(lost, 1) == WIN + 5
    assert abs(potential(lost, 0)) == POTENTIAL_BOUND
    start = rules.initial_state(2)
    assert evaluate(start, 0) == pytest.approx(evaluate(start, 1))
    assert -POTENTIAL_BOUND <= potential(state, 0) <= POTENTIAL_BOUND
    # The side that can take a tower is ahead of the one that is about to lose it.
    free = rules.from_text(FREE_CAPTURE_2P)
    assert evaluate(free, 0) > 0 > evaluate(free, 1)


# --- registry --------------------------------------------------------------------------------


def test_names_make_their_bots():
    assert set(agent_names()) >= set(BOTS) | {"best:2p", "best:3p"}
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    for level in LEVELS:
        agent = make_agent(f"search:{level}", seed=1)
        assert isinstance(agent, SearchAgent) and agent.name == f"search:{level}"
        assert (agent.depth, agent.budget, agent.setup_width, agent.beam) == LEVELS[level]
    assert [LEVELS[k].budget for k in ("easy", "medium", "hard", "expert")] == sorted(
        LEVELS[k].budget for k in LEVELS
    )
    for n in (2, 3):
        assert make_agent(f"best:{n}p").name == BEST[n]


def test_budgets_parse_through_the_registry():
    agent = make_agent("search:hard=100", seed=2)
    assert (agent.name, agent.budget, agent.level) == ("search:hard=100", 100, "hard")
    state = rules.from_text(FREE_CAPTURE_2P)
    assert agent.act(state) == action_of(2, 0, rules.move_id(state, "wb:c2xc3"))
    for bad in (
        "search:hard=0",
        "search:hard=x",
        "search:hard=١٠",
        "search:hard=",
        "search:hard=-1",
    ):
        with pytest.raises(ValueError, match=r"expected search:hard=N with N a whole number"):
            make_agent(bad)
    with pytest.raises(ValueError, match="agent 'greedy' takes no search budget"):
        make_agent("greedy=5")


def test_unknown_names_are_refused_clearly():
    with pytest.raises(ValueError, match=r"unknown agent 'search:impossible'.*'search:expert'"):
        make_agent("search:impossible")
    with pytest.raises(ValueError, match="unknown search level 'impossible'"):
        SearchAgent("impossible")


def test_register_agent_adds_a_name():
    register_agent("test:greedy", GreedyAgent)
    try:
        assert isinstance(make_agent("test:greedy", seed=1), GreedyAgent)
        assert "test:greedy" in agent_names()
    finally:
        PLAYERS._factories.pop("test:greedy")


# --- strength --------------------------------------------------------------------------------


def test_greedy_beats_random():
    assert play_pairing("random", "greedy", 20).points >= 17


def test_search_medium_beats_greedy():
    assert play_pairing("greedy", "search:medium", 10).points >= 8


def test_ladder_prints_rates_and_times(capsys):
    ladder_main(["--games", "2", "--levels", "random", "greedy"])
    out = capsys.readouterr().out
    assert "greedy" in out and "100.0%" in out and "ms/move" in out
    three = play_pairing("random", "greedy", 3, players=3)
    assert three.games == 3 and three.thinking["greedy"].play_decisions > 0
    with pytest.raises(SystemExit):
        ladder_main(["--games", "0"])
