"""The PettingZoo AEC environment: API conformance, eliminations, frames, errors."""

from __future__ import annotations

import os
import pickle
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import splut_env
from splut_env import rules
from splut_env.encoding import NUM_PLANES, OBS_SHAPE, PLANE_BOARD
from splut_env.rules import IllegalStepError

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


class RecordingEnv(splut_env.raw_env):
    """Remembers how many agents were in the game after every step."""

    agent_counts: list[int] = []

    def step(self, action):
        super().step(action)
        self.agent_counts.append(len(self.game_state.alive_seats()))


def play_random(env, seed: int) -> None:
    rng = random.Random(seed)
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"])))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test_with_eliminations(players):
    raw = RecordingEnv(num_players=players, max_turns=400)
    raw.agent_counts = []
    for i, agent in enumerate(raw.possible_agents):
        raw.action_space(agent).seed(100 + i)
    api_test(raw, num_cycles=3000)
    assert set(range(1, players + 1)) <= set(raw.agent_counts), "some game must end with a win"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_seed_test(players):
    seed_test(lambda: splut_env.env(num_players=players), num_cycles=200)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_render_test(players, monkeypatch):
    monkeypatch.setitem(splut_env.raw_env.metadata, "render_fps", 1000)  # no waiting in "human"
    render_test(
        lambda render_mode=None: splut_env.env(num_players=players, render_mode=render_mode)
    )


def test_four_player_game_goes_down_to_three_then_two_then_a_winner():
    env = splut_env.env(num_players=4, max_turns=1000)
    for seed in range(20):
        rng = random.Random(seed)
        env.reset(seed=seed)
        alive_counts, rewards = [4], {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                rewards[agent] = reward
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
            alive = len(env.unwrapped.game_state.alive_seats())
            if alive != alive_counts[-1]:
                alive_counts.append(alive)
        if rules.winner(env.unwrapped.game_state) is not None:
            break
    assert alive_counts == [4, 3, 2, 1]
    assert sorted(rewards.values()) == [-1, -1, -1, 1]
    assert env.agents == []


def test_only_the_agent_to_move_has_a_mask_and_it_is_never_empty():
    env = splut_env.env(num_players=3)
    rng = random.Random(3)
    env.reset(seed=3)
    for agent in env.agent_iter(2000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].sum() > 0
        for other in env.agents:
            if other != agent:
                assert env.observe(other)["action_mask"].sum() == 0
        env.step(rng.choice(np.flatnonzero(obs["action_mask"])))


def test_same_agent_acts_for_each_step_of_its_turn():
    env = splut_env.env(num_players=2)
    env.reset()
    seen = []
    for _ in range(6):
        seen.append(env.agent_selection)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert seen == ["player_0", "player_1", "player_1", "player_0", "player_0", "player_0"]


def test_every_seat_sees_the_symmetric_start_the_same_way():
    env = splut_env.raw_env(num_players=4)
    env.reset()
    planes = [env.observe(a)["observation"] for a in env.possible_agents]
    assert planes[0].shape == OBS_SHAPE and OBS_SHAPE[0] == NUM_PLANES
    for p in planes[1:]:
        np.testing.assert_array_equal(p, planes[0])
    assert planes[0][PLANE_BOARD].sum() == 41
    # Own wizard, troll, dwarf on d2, f2, e2 of the own frame: rows 7, columns 3, 5, 4.
    assert planes[0][0, 7, 3] == planes[0][1, 7, 5] == planes[0][2, 7, 4] == 1
    first = env.observe("player_0")["action_mask"]
    env.step(env.step_to_action("Dn"))
    assert env.agent_selection == "player_1"
    np.testing.assert_array_equal(env.observe("player_1")["action_mask"], first)
    assert env.action_to_step(env.step_to_action("De")) == "De"
    assert env.step_to_action("De") == 192 and first[192] == 1  # W's "De" is "Dn" in its frame


def test_raw_env_raises_on_an_illegal_action_naming_it():
    env = splut_env.raw_env()
    env.reset()
    with pytest.raises(IllegalStepError, match="illegal action 5 for player_0"):
        env.step(5)
    with pytest.raises(IllegalStepError, match="illegal action 999"):
        env.step(999)


def test_wrapped_env_ends_the_game_on_an_illegal_action():
    env = splut_env.env()
    env.reset()
    env.step(5)
    assert all(env.terminations.values()) or all(env.truncations.values())
    assert env.rewards["player_0"] == -1


def test_reset_from_spn_and_errors():
    env = splut_env.raw_env(num_players=2)
    position = "S:c4,e4,- N:g5,d8,e8 R:a5,e1,e5,i5 S 10 3 - - -"
    env.reset(options={"spn": position})
    assert rules.to_spn(env.unwrapped.game_state) == position
    env.step(env.step_to_action("Tnxe"))
    assert env.rewards == {"player_0": 1, "player_1": -1}
    assert env.terminations == {"player_0": True, "player_1": True}
    with pytest.raises(ValueError, match="has 3 seats, this env has 2"):
        env.reset(options={"spn": rules.initial_spn(3)})
    with pytest.raises(ValueError, match="finished game"):
        env.reset(options={"spn": "S:c4,e5,- N:-,-,- R:a5,e1,g5,i5 - 10 0 - g5 -"})
    with pytest.raises(rules.InvalidNotationError):
        env.reset(options={"spn": "nonsense"})


def test_reset_from_a_position_with_a_dead_seat():
    env = splut_env.raw_env(num_players=3)
    env.reset(options={"spn": "S:-,-,- W:c6,f5,c7 N:f8,e9,h5 R:b4,c5,e6,i5 W 12 1 c5 e6 c5"})
    assert env.agents == ["player_1", "player_2"] and env.agent_selection == "player_1"


def test_truncation_after_max_turns():
    env = splut_env.env(num_players=2, max_turns=3)
    env.reset()
    for _ in range(6):  # turns of 1, 2 and 3 steps
        agent = env.agent_selection
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert set(env.rewards.values()) == {0}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 5}, "num_players must be 2, 3 or 4"),
        ({"num_players": 1}, "num_players must be 2, 3 or 4"),
        ({"num_players": 2.0}, "num_players must be 2, 3 or 4, got 2.0"),
        ({"num_players": [2]}, r"num_players must be 2, 3 or 4, got \[2\]"),
        ({"num_players": True}, "num_players must be 2, 3 or 4, got True"),
        ({"max_turns": 0}, "max_turns must be a whole number from 1 to 1000000"),
        ({"max_turns": 2.5}, "max_turns must be a whole number from 1 to 1000000"),
        ({"max_turns": 10**400}, "max_turns must be a whole number from 1 to 1000000"),
        ({"render_mode": "video"}, "render_mode must be None or one of"),
    ],
)
def test_bad_settings_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        splut_env.env(**kwargs)


def test_env_pickles_and_is_deterministic():
    env = splut_env.env(num_players=3)
    clone = pickle.loads(pickle.dumps(env))
    env.reset(seed=1)
    clone.reset(seed=1)
    play_random(env, 5)
    play_random(clone, 5)
    assert rules.to_spn(env.unwrapped.game_state) == rules.to_spn(clone.unwrapped.game_state)


def test_renders():
    env = splut_env.env(num_players=4, render_mode="ansi")
    env.reset()
    text = env.render()
    assert rules.initial_spn(4) in text and "\x1b[" in text
    env = splut_env.env(num_players=4, render_mode="rgb_array")
    env.reset()
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10


def test_versioned_alias_is_the_same_env():
    assert splut_env.env.__module__ == "splut_env.envs.aec"
    assert splut_env.splut_v0.env is splut_env.env
