"""Talat's PettingZoo AEC environment: API conformance, turns, rewards, positions, errors."""

from __future__ import annotations

import os
import pickle
import random
from types import SimpleNamespace

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from talat_env import rules, talat_v0
from talat_env.encoding import NUM_ACTIONS, OBS_SHAPE, action_of, observation
from talat_env.envs.aec import env as make_env
from talat_env.envs.aec import final_rewards, raw_env

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

#: Black to move in a 2-player game; ``wb:a3-a2`` freezes wb, the second frozen board:
#: black wins 31 to 12.
LAST_MOVE_2P = (
    "2p wb:.wM6wS6../..bL3../bS6wS4.../..bL6.bL4/..... bg:..bM4../....bM3/..bM6../..gS6.bS4/"
    "bS3gL4... gw*:....gL3/gM4gS4.gL6./....wL3/...wL6./wL4.... play b w=- "
    "b=gM3,gS3,wM3,wM4,wS3"
)
#: Black to move in a 3-player game; ``wb:b3-a2`` ends it: 19, 29, 13, black wins.
LAST_MOVE_3P = (
    "3p wb:wM6wL3.../....bM3/wL6bL4.../...../...bM4. bg:.bS3bS6../....gM3/...bL6./...gL3./"
    ".gS6bL3.. gw*:...../wL4.gL6../gS4...gL4/..wM4../..wS6.. play b w=bM6,gM4 "
    "b=gM6,gS3,wM3,wS4 g=bS4,wS3"
)


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


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_api_test(players):
    env = raw_env(num_players=players)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(100 + i)
    api_test(env, num_cycles=400)


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_seed_test(players):
    seed_test(lambda: make_env(num_players=players), num_cycles=150)


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_render_test(players, monkeypatch):
    monkeypatch.setitem(raw_env.metadata, "render_fps", 1000)  # no waiting in "human"
    render_test(lambda render_mode=None: make_env(num_players=players, render_mode=render_mode))


@pytest.mark.parametrize("players", [2, 3])
def test_a_whole_game_set_up_included_in_seat_order(players):
    env = make_env(num_players=players)
    acted = play_random(env, seed=players)
    placements = 26 if players == 2 else 27
    order = [f"player_{k % players}" for k in range(placements)]
    assert acted[:placements] == order
    if players == 2:  # black placed last and moves first
        assert acted[placements] == "player_1"
    else:
        assert acted[placements] == "player_0"
    assert env.agents == [] and rules.is_over(env.unwrapped.game_state)


def test_only_the_agent_to_move_has_a_mask_and_others_see_their_own_frame():
    env = make_env(num_players=3)
    env.reset(seed=1)
    rng = random.Random(1)
    for agent in env.agent_iter(300):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,) and mask.sum() > 0
        state = env.unwrapped.game_state
        for other in env.agents:
            if other != agent:
                seen = env.observe(other)
                assert seen["action_mask"].sum() == 0
                seat = int(other[-1])
                np.testing.assert_array_equal(seen["observation"], observation(state, seat))
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_forced_pass_is_the_only_legal_action():
    # The first position of seeded random 3-player games where the player to move has no
    # step or capture.
    rng = random.Random(7)
    for _ in range(200):
        state = rules.initial_state(3)
        while not state.is_over() and state.legal_ids() != [rules.PASS]:
            state.apply(rng.choice(state.legal_ids()))
        if not state.is_over():
            break
    else:
        pytest.skip("no forced pass in 200 random games")
    env = raw_env(num_players=3)
    env.reset(options={"position": rules.to_text(state)})
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    assert list(np.flatnonzero(mask)) == [1050]
    assert env.action_to_move(1050) == "pass"
    env.step(1050)
    assert env.agent_selection != agent


@pytest.mark.parametrize(
    ("position", "move", "rewards"),
    [
        (LAST_MOVE_2P, "wb:a3-a2", {"player_0": -1, "player_1": 1}),
        (LAST_MOVE_3P, "wb:b3-a2", {"player_0": -1, "player_1": 1, "player_2": -1}),
    ],
)
def test_rewards_of_a_known_finished_game_and_the_dead_steps(position, move, rewards):
    env = make_env(num_players=len(rewards))
    env.reset(options={"position": position})
    env.step(env.unwrapped.move_to_action(move))
    assert rules.is_over(env.unwrapped.game_state)
    assert env.rewards == rewards
    assert all(env.terminations.values()) and not any(env.truncations.values())
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term and not trunc
        seen[agent] = reward
        with pytest.raises(ValueError, match="dead, the only valid action is None"):
            env.unwrapped.step(0)
        env.step(None)
    assert seen == rewards and env.agents == []
    with pytest.raises(ValueError, match="after the game is over"):
        env.unwrapped.step(None)


def test_margin_rewards_add_up_to_the_final_margin():
    env = raw_env(num_players=3, reward="margin")
    env.reset(options={"position": LAST_MOVE_3P})
    env.step(env.move_to_action("wb:b3-a2"))
    # 19, 29, 13 before and after (the last step captures nothing): margins -10, +10, -16.
    assert env.rewards == {"player_0": 0, "player_1": 0, "player_2": 0}
    totals = dict.fromkeys(env.possible_agents, 0.0)
    env.reset(seed=3)
    rng = random.Random(3)
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(None if term or trunc else int(rng.choice(legal)))
    scores = rules.scores(env.game_state)
    for k, agent in enumerate(env.possible_agents):
        best_other = max(v for j, v in enumerate(scores) if j != k)
        assert totals[agent] == pytest.approx((scores[k] - best_other) / 10)


@pytest.mark.parametrize(
    ("winners", "expected"),
    [([1], [-1, 1, -1]), ([0, 2], [0, -1, 0]), ([0, 1, 2], [0, 0, 0]), ([0, 1], [0, 0])],
)
def test_a_shared_win_gives_0_to_the_sharers_and_minus_1_to_the_others(winners, expected):
    finished = SimpleNamespace(num_players=len(expected), winners=lambda: winners)
    assert final_rewards(finished) == expected


def test_reset_from_a_position_and_bad_positions():
    env = raw_env(num_players=2)
    env.reset(options={"position": LAST_MOVE_2P})
    assert rules.to_text(env.game_state) == LAST_MOVE_2P
    assert env.agent_selection == "player_1"
    with pytest.raises(ValueError, match="is a 3-player position, this env has 2 players"):
        env.reset(options={"position": rules.initial_text(3)})
    with pytest.raises(ValueError, match="finished game"):
        env.reset(options={"position": _finished(LAST_MOVE_2P, "wb:a3-a2")})
    with pytest.raises(rules.InvalidNotationError, match="'nonsense'"):
        env.reset(options={"position": "nonsense"})
    with pytest.raises(ValueError, match=r"options must be a dict"):
        env.reset(options="2p")


def _finished(position: str, move: str) -> str:
    return rules.to_text(rules.play(rules.from_text(position), move))


def test_state_is_the_absolute_observation_of_player_0():
    env = make_env(num_players=3)
    env.reset(seed=0)
    rng = random.Random(0)
    for agent in env.agent_iter(80):
        obs, _, term, trunc, _ = env.last()
        state = env.state()
        assert state.shape == OBS_SHAPE and env.unwrapped.state_space.contains(state)
        np.testing.assert_array_equal(state, observation(env.unwrapped.game_state, 0))
        if agent == "player_0":
            np.testing.assert_array_equal(state, obs["observation"])
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_moves_and_actions_convert_for_the_agent_to_move():
    env = raw_env(num_players=2)
    env.reset()
    env.step(env.move_to_action("gw:L6@c1"))  # white places a Zihin tower
    assert env.agent_selection == "player_1"
    action = env.move_to_action("bg:S3@a5")  # black's frame: bg is relative board 2, flipped
    assert action == action_of(2, 1, 1 * 225 + 20 * 9 + 0) == 450 + 0 * 9 + 0
    assert env.action_to_move(action) == "bg:S3@a5"
    with pytest.raises(rules.IllegalMoveError, match="illegal action 5 for player_1"):
        env.action_to_move(5)
    with pytest.raises(ValueError, match="action must be a whole number from 0 to 1050"):
        env.action_to_move(2000)


def test_raw_env_raises_on_an_illegal_action_naming_it():
    env = raw_env()
    env.reset()
    with pytest.raises(rules.IllegalMoveError, match="illegal action 5 for player_0"):
        env.step(5)
    with pytest.raises(rules.IllegalMoveError, match="illegal action 1051"):
        env.step(1051)


def test_wrapped_env_ends_the_game_on_an_illegal_action():
    env = make_env()
    env.reset()
    env.step(5)
    assert all(env.terminations.values()) or all(env.truncations.values())
    assert env.rewards["player_0"] == -1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 4}, "num_players must be 2 or 3, got 4"),
        ({"num_players": 2.0}, "num_players must be 2 or 3, got 2.0"),
        ({"num_players": True}, "num_players must be 2 or 3, got True"),
        ({"render_mode": "video"}, "render_mode must be None or one of"),
        ({"reward": "points"}, "reward must be one of \\('win', 'margin'\\), got 'points'"),
    ],
)
def test_bad_settings_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_env(**kwargs)


def test_env_pickles_and_is_deterministic():
    env = make_env(num_players=3)
    clone = pickle.loads(pickle.dumps(env))
    play_random(env, 5)
    play_random(clone, 5)
    assert rules.to_text(env.unwrapped.game_state) == rules.to_text(clone.unwrapped.game_state)


def test_versioned_alias_is_the_same_env():
    assert talat_v0.env is make_env and talat_v0.raw_env is raw_env
    assert raw_env.metadata["name"] == "talat_v0"
