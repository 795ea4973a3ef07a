"""Splendor's PettingZoo AEC environment and its features: API conformance, turns, privacy,
the global state, rewards, truncation, positions, errors."""

from __future__ import annotations

import os
import pickle
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from test_splendor_notation import AFTER
from test_splendor_rules import EMPTY, L3_5, make
from test_splendor_view import hidden_shuffle, reached_positions

from splendor_env import rules, splendor_v0
from splendor_env.encoding import (
    CARD,
    DECK_PLACES,
    DECK_TOPS,
    HIDDEN_CARDS,
    MARKET,
    MY_HAND,
    NOBLES,
    NUM_ACTIONS,
    OBS_SHAPE,
    OTHER_HANDS,
    PLAYER,
    PLAYERS,
    STATE_SHAPE,
    UNSEEN,
    action_mask,
    global_state,
    observation,
)
from splendor_env.envs.aec import env as make_env
from splendor_env.envs.aec import final_rewards, raw_env

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


def play_random(env, seed: int) -> list[str]:
    """Play one random game through ``env``; the agents in the order they acted."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    acted = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        acted.append(agent)
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return acted


# --- PettingZoo's own tests ------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test(players):
    env = raw_env(num_players=players)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(100 + i)
    api_test(env, num_cycles=200)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_seed_test(players):
    seed_test(lambda: make_env(num_players=players), num_cycles=100)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_render_test(players, monkeypatch):
    monkeypatch.setitem(raw_env.metadata, "render_fps", 1000)  # no waiting in "human"
    render_test(lambda render_mode=None: make_env(num_players=players, render_mode=render_mode))


# --- turns and masks ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_game_follows_the_rules_engine(players):
    env = make_env(num_players=players)
    play_random(env, seed=players)
    state = env.unwrapped.game_state
    assert env.agents == [] and rules.is_over(state)
    assert state.turn % players == 0 or not state.final


def test_only_the_agent_to_move_has_a_mask_and_all_see_their_own_seat():
    env = make_env(num_players=3)
    env.reset(seed=1)
    rng = random.Random(1)
    for agent in env.agent_iter(200):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.unwrapped.game_state
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        assert list(np.flatnonzero(mask)) == state.legal_move_ids()
        for other in env.agents:
            seen = env.observe(other)
            seat = int(other[-1])
            np.testing.assert_array_equal(seen["observation"], observation(state, seat))
            if other != agent:
                assert seen["action_mask"].sum() == 0
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_returns_and_noble_choices_are_moves_of_the_same_agent():
    # P0 holds 9 tokens and takes 3: it returns 2, one action each, then P1 moves.
    env = raw_env(num_players=2)
    env.reset(options={"position": make(players=["w3b3g3r0k0y0/-/-/-"])})
    env.step(env.move_to_action("take grk"))
    assert env.agent_selection == "player_0" and env.game_state.phase == 1
    env.step(env.move_to_action("return w"))
    assert env.agent_selection == "player_0"
    env.step(env.move_to_action("return b"))
    assert env.agent_selection == "player_1" and env.game_state.phase == 0


# --- privacy and the global state --------------------------------------------------------------


def test_privacy_an_observation_ignores_what_its_agent_may_not_see():
    rng = random.Random(5)
    envs = {n: (raw_env(num_players=n), raw_env(num_players=n)) for n in (2, 3, 4)}
    checked = 0
    for state in reached_positions():
        if rules.is_over(state):
            continue
        n = state.num_players
        a, b = envs[n]
        a.reset(options={"position": rules.to_text(state)})
        for seat, agent in enumerate(a.possible_agents):
            alt = hidden_shuffle(state, seat, rng)
            b.reset(options={"position": rules.to_text(alt)})
            seen_a, seen_b = a.observe(agent), b.observe(agent)
            np.testing.assert_array_equal(seen_a["observation"], seen_b["observation"])
            np.testing.assert_array_equal(seen_a["action_mask"], seen_b["action_mask"])
            if rules.to_text(alt) != rules.to_text(state):
                assert not np.array_equal(a.state(), b.state())  # the state holds it all
                checked += 1
    assert checked > 10


def test_an_agent_sees_its_own_reserved_cards_and_only_the_backs_of_the_others():
    state = rules.from_text(AFTER)  # P1 holds 79 (from deck 3) and 31 (from the market)
    mine, theirs = observation(state, 1), observation(state, 0)
    slot = mine[MY_HAND : MY_HAND + 5]
    assert list(slot) == [1, 0, 0, 1, 1]  # a card, level 3, from a deck
    assert mine[MY_HAND + 5] == 1 and mine[MY_HAND + 28 + 5] == 1  # both card blocks
    assert not theirs[MY_HAND : MY_HAND + 84].any()  # P0's hand is empty
    backs = theirs[OTHER_HANDS : OTHER_HANDS + 10]
    assert list(backs) == [1, 0, 0, 1, 1, 1, 1, 0, 0, 0]
    # P0 cannot see 79 and 31 (nor the decks); P1 sees its own cards.
    assert theirs[UNSEEN + 78] == 1 and theirs[UNSEEN + 30] == 1
    assert mine[UNSEEN + 78] == 0 and mine[UNSEEN + 30] == 0
    assert theirs[UNSEEN:].sum() == 35 + 26 + 15 + 2 and mine[UNSEEN:].sum() == 35 + 26 + 15


def test_features_of_a_known_position():
    state = rules.from_text(AFTER)
    obs = observation(state, 0)
    assert obs.shape == OBS_SHAPE and obs.dtype == np.float32 and 0 <= obs.min() <= obs.max() <= 1
    assert list(obs[:8]) == [1, 0, 0, 1, 0, 0, 0, 0]  # 2 players, phase main, not final
    assert list(obs[8:12]) == [1, 0, 0, 0]  # me to move
    np.testing.assert_allclose(obs[14:20], [3 / 4, 3 / 4, 3 / 4, 2 / 4, 4 / 4, 3 / 5])
    # Market slot 1.0 is card 25 (bonus g, 0 points, cost b2 r1 ... per the data files).
    block = obs[MARKET : MARKET + CARD]
    assert block[0] == 1 and block[1:6].sum() == 1
    # Me: tokens w1 b1 g1 r2; the opponent: 2 gold and 2 reserved cards.
    me, other = obs[PLAYERS : PLAYERS + PLAYER], obs[PLAYERS + PLAYER : PLAYERS + 2 * PLAYER]
    np.testing.assert_allclose(me[1:7], [1 / 7, 1 / 7, 1 / 7, 2 / 7, 0, 0])
    assert other[6] == pytest.approx(2 / 5) and other[17] == pytest.approx(2 / 3)
    assert me[18] == 1 and other[18] == 1  # both would share the win now
    assert obs[PLAYERS + 2 * PLAYER :].any() and not obs[PLAYERS + 2 * PLAYER : NOBLES].any()
    assert obs[NOBLES : NOBLES + 30 : 10].tolist() == [1, 1, 1]


def test_the_global_state_holds_everything():
    state = rules.from_text(AFTER)
    full = global_state(state)
    assert full.shape == STATE_SHAPE and 0 <= full.min() <= full.max() <= 1
    np.testing.assert_array_equal(full[:HIDDEN_CARDS], observation(state, 0))
    assert full[HIDDEN_CARDS] == 1 and full[HIDDEN_CARDS + CARD] == 1  # P1's two cards
    assert full[DECK_TOPS : DECK_TOPS + 3 * CARD : CARD].tolist() == [1, 1, 1]
    # Deck places: the top of deck 1 is card 39, the next 5; 28 left the deck.
    assert full[DECK_PLACES + 38] == 1.0 and full[DECK_PLACES + 4] == pytest.approx(1 - 1 / 40)
    assert full[DECK_PLACES + 27] == 0 and full[DECK_PLACES + 78] == 0
    env = raw_env(num_players=2)
    env.reset(options={"position": AFTER})
    np.testing.assert_array_equal(env.state(), full)
    assert env.state_space.contains(full)


def test_the_mask_is_the_legal_moves():
    state = rules.from_text(AFTER)
    assert list(np.flatnonzero(action_mask(state, 0))) == state.legal_move_ids()
    assert not action_mask(state, 1).any()


# --- chance and positions ------------------------------------------------------------------------


def test_reset_with_a_seed_shuffles_reproducibly():
    a, b = raw_env(num_players=3), raw_env(num_players=3)
    a.reset(seed=11)
    b.reset(seed=11)
    first = rules.to_text(a.game_state)
    assert first == rules.to_text(b.game_state)
    a.reset(seed=12)
    assert rules.to_text(a.game_state) != first
    a.reset(seed=11)
    a.reset()
    b.reset()
    assert rules.to_text(a.game_state) == rules.to_text(b.game_state) != first
    starts = set()
    for seed in range(5):
        a.reset(seed=seed)
        starts.add(rules.to_text(a.game_state))
    assert len(starts) == 5


def test_reset_from_a_position_and_bad_positions():
    env = raw_env(num_players=2)
    env.reset(options={"position": AFTER})
    assert rules.to_text(env.game_state) == AFTER and env.agent_selection == "player_0"
    with pytest.raises(ValueError, match="is a 3-player position, this env has 2 players"):
        env.reset(options={"position": rules.initial_text(3, 0)})
    finished = rules.to_text(
        rules.play(
            rules.from_text(
                make(players=[EMPTY, "w0b0g4r0k0y0/74,77,78/-/-"], turn=1, rows={1: "8,5,6,7"})
            ),
            "buy 1.0",
        )
    )
    with pytest.raises(ValueError, match="finished game"):
        env.reset(options={"position": finished})
    with pytest.raises(rules.InvalidNotationError, match=r"options\['position'\].*'nonsense'"):
        env.reset(options={"position": "nonsense"})
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(options="splendor 2")


# --- rewards and the end ---------------------------------------------------------------------


def finish(position: str, move: str, **kwargs):
    env = make_env(num_players=int(position.split()[1]), **kwargs)
    env.reset(options={"position": position})
    env.step(env.unwrapped.move_to_action(move))
    assert rules.is_over(env.unwrapped.game_state)
    return env


def test_the_winner_gets_1_and_the_others_minus_1_and_dead_steps_follow():
    position = make(players=[EMPTY, "w0b0g4r0k0y0/74,77,78/-/-"], turn=1, rows={1: "8,5,6,7"})
    env = finish(position, "buy 1.0")
    assert env.rewards == {"player_0": -1, "player_1": 1}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term and not trunc
        seen[agent] = reward
        with pytest.raises(ValueError, match="dead, the only valid action is None"):
            env.unwrapped.step(0)
        env.step(None)
    assert seen == {"player_0": -1, "player_1": 1} and env.agents == []
    with pytest.raises(ValueError, match="after the game is over"):
        env.unwrapped.step(None)


def test_a_shared_win_gives_0_to_the_sharers():
    # Both end with 15 points and 4 cards (SPLENDOR_RULES.md §5: shared win).
    p0 = f"w0b0g0r0k0y0/5,{L3_5}/-/-"
    p1 = "w0b0g0r0k4y2/8,86,90/-/-"
    position = make(players=[p0, p1], turn=41, final="yes", rows={3: "72,71,73,75"})
    env = finish(position, "buy 3.0")
    assert env.rewards == {"player_0": 0, "player_1": 0}
    assert all(env.terminations.values())


def test_a_deadlock_ends_the_game_with_0_for_everyone():
    position = make(
        players=["w4b4g2r0k0y0/-/26,27/-", "w0b0g2r4k4y0/-/29,30,36/-"],
        rows={1: "13,14,20,21", 2: "42,50,53,59", 3: "71,73,75,79"},
    )
    env = make_env(num_players=2)
    env.reset(options={"position": position})
    env.step(env.unwrapped.move_to_action("reserve deck 1"))
    env.step(env.unwrapped.move_to_action("return y"))
    assert env.rewards == {"player_0": 0, "player_1": 0}
    assert all(env.terminations.values()) and not any(env.truncations.values())


@pytest.mark.parametrize("n", [2, 4])
def test_the_round_cap_is_a_truncation(n):
    env = finish(make(n, turn=100 * n - 1), "take wbg")
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert set(env.rewards.values()) == {0}
    for _agent in env.agent_iter():
        assert env.last()[3]
        env.step(None)
    assert env.agents == []


def test_final_rewards_without_a_winner_are_0():
    state = rules.from_text(make(3, turn=299))
    state.apply(0)
    assert final_rewards(state) == [0.0, 0.0, 0.0]


def test_margin_rewards_add_up_to_the_final_margin():
    env = raw_env(num_players=3, reward="margin")
    totals = dict.fromkeys(env.possible_agents, 0.0)
    env.reset(seed=3)
    rng = random.Random(3)
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(None if term or trunc else int(rng.choice(legal)))
    points = rules.scores(env.game_state)
    for k, agent in enumerate(env.possible_agents):
        best_other = max(v for j, v in enumerate(points) if j != k)
        assert totals[agent] == pytest.approx((points[k] - best_other) / 15)


# --- actions and errors -------------------------------------------------------------------------


def test_moves_and_actions_convert_for_the_agent_to_move():
    env = raw_env(num_players=2)
    env.reset(options={"position": AFTER})
    assert env.move_to_action("take wbg") == 0 and env.action_to_move(0) == "take wbg"
    assert env.action_to_move(np.int64(29)) == "take2 k"
    with pytest.raises(ValueError, match="action must be a whole number from 0 to 76"):
        env.action_to_move(77)


def test_raw_env_refuses_an_illegal_action_naming_the_move_and_the_legal_ones():
    env = raw_env(num_players=2)
    env.reset(options={"position": AFTER})
    with pytest.raises(
        rules.IllegalMoveError, match=r"illegal action 76 \('pass'\) for player_0"
    ) as err:
        env.step(76)
    # The position as player_0 may see it: an error tells an agent nothing hidden.
    seen = rules.view_text(rules.from_text(AFTER), 0)
    assert seen != AFTER and f"in position {seen!r}" in str(err.value)
    assert "legal: 0 (take wbg)" in str(err.value) and AFTER not in str(err.value)
    with pytest.raises(
        rules.IllegalMoveError, match="illegal action 77 for player_0: expected a move id"
    ):
        env.step(77)
    assert rules.to_text(env.game_state) == AFTER  # nothing changed


def test_wrapped_env_ends_the_game_on_an_illegal_action():
    env = make_env()
    env.reset(seed=0)
    env.step(76)
    assert all(env.terminations.values()) or all(env.truncations.values())
    assert env.rewards["player_0"] == -1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 5}, "num_players must be 2, 3 or 4, got 5"),
        ({"num_players": 2.0}, "num_players must be 2, 3 or 4, got 2.0"),
        ({"render_mode": "video"}, "render_mode must be None or one of"),
        ({"reward": "points"}, r"reward must be one of \('win', 'margin'\), got 'points'"),
    ],
)
def test_bad_settings_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_env(**kwargs)


def test_env_pickles_and_is_deterministic():
    env = make_env(num_players=4)
    clone = pickle.loads(pickle.dumps(env))
    play_random(env, 5)
    play_random(clone, 5)
    assert rules.to_text(env.unwrapped.game_state) == rules.to_text(clone.unwrapped.game_state)


def test_versioned_alias_is_the_same_env():
    assert splendor_v0.env is make_env and splendor_v0.raw_env is raw_env
    assert raw_env.metadata["name"] == "splendor_v0"
