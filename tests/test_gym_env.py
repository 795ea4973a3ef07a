"""The Gymnasium single-agent view: env checker, the learner's rewards, masks, vector envs."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import splut_env
from splut_env import rules
from splut_env.encoding import step_id_to_action
from splut_env.envs.gym import SplutGymEnv
from splut_env.rules import IllegalStepError
from tabletop.agents import Agent


class ScriptedAgent(Agent):
    """Plays the given steps in order (step notation), then random legal steps."""

    needs_observation = False

    def __init__(self, steps: list[str]) -> None:
        self.steps = list(steps)

    def act(self, state, observation=None):
        if self.steps:
            return step_id_to_action(state.to_move, rules.step_id(state, self.steps.pop(0)))
        return step_id_to_action(state.to_move, state.legal_ids()[0])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_gymnasium_env_checker(players):
    env = gymnasium.make("splut_env/Splut-v0", num_players=players)
    check_env(env.unwrapped, skip_render_check=False)


def test_registered_id_and_kwargs():
    env = gymnasium.make("splut_env/Splut-v0", num_players=3, opponents=["random", "random"])
    obs, info = env.reset(seed=0)
    assert obs.shape == (22, 9, 9) and obs.dtype == np.float32
    assert info["action_mask"].sum() > 0
    np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))


def test_learner_wins_with_plus_one():
    env = SplutGymEnv(learner_player=0)
    env.reset(options={"spn": "S:c4,e4,- N:g5,d8,e8 R:a5,e1,e5,i5 S 10 3 - - -"})
    _, reward, terminated, truncated, _ = env.step(env.step_to_action("Tnxe"))
    assert (reward, terminated, truncated) == (1.0, True, False)


def test_learner_killed_on_an_opponents_step_gets_minus_one():
    # S (learner) plays one step; N then throws the e6 rock west onto S's wizard on c6.
    position = "S:c6,f2,- N:g7,e5,- R:a5,e1,e6,i5 S 10 1 - - -"
    env = SplutGymEnv(opponents=ScriptedAgent(["Tnxw"]), learner_player=0)
    env.reset(options={"spn": position})
    _, reward, terminated, truncated, _info = env.step(env.step_to_action("Tn"))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert rules.winner(env.game_state) == "N"
    assert not env.action_masks().any()


def test_learner_is_out_in_a_three_player_game_while_others_play_on():
    position = "S:c6,f2,- W:b6,b4,b5 N:g7,e5,- R:a5,e1,e6,i5 S 10 1 - - -"
    west, north = ScriptedAgent(["De", "Dw", "De"]), ScriptedAgent(["Tnxw"])
    env = SplutGymEnv(num_players=3, opponents=[west, north])
    env.reset(options={"spn": position, "learner_player": 0})
    _, reward, terminated, _, _ = env.step(env.step_to_action("Tn"))
    assert (reward, terminated) == (-1.0, True)
    assert (
        rules.to_spn(env.game_state) == "S:-,-,- W:b6,b4,c5 N:g7,e6,- R:a5,c6,e1,i5 W 13 3 - c6 -"
    )


def test_opponents_move_first_when_the_learner_sits_later():
    env = SplutGymEnv(num_players=4, learner_player=2)
    _obs, info = env.reset(seed=3)
    assert env.game_state.to_move == 2 and info["seat"] == "N"
    assert env.game_state.turn == 3 and env.game_state.steps_left == 3


def test_learner_player_varies_with_the_seed():
    env = SplutGymEnv(num_players=4)
    seats = {env.reset(seed=s)[1]["seat"] for s in range(40)}
    assert seats == {"S", "W", "N", "E"}


def test_reset_is_deterministic_under_a_seed():
    a, b = SplutGymEnv(num_players=3), SplutGymEnv(num_players=3)
    for seed in (0, 1, 2):
        (oa, _ia), (ob, _ib) = a.reset(seed=seed), b.reset(seed=seed)
        np.testing.assert_array_equal(oa, ob)
        rng = np.random.default_rng(seed)
        for _ in range(60):
            action = int(rng.choice(np.flatnonzero(a.action_masks())))
            ra, rb = a.step(action), b.step(action)
            np.testing.assert_array_equal(ra[0], rb[0])
            assert ra[1:4] == rb[1:4]
            if ra[2] or ra[3]:
                break


def test_full_random_games_end_with_a_sensible_reward():
    env = SplutGymEnv(num_players=2, max_turns=200)
    outcomes = set()
    for seed in range(30):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            mask = env.action_masks()
            assert mask.any()
            _, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            if terminated or truncated:
                outcomes.add((reward, terminated, truncated))
                break
    assert outcomes <= {(1.0, True, False), (-1.0, True, False), (0.0, False, True)}
    assert (1.0, True, False) in outcomes and (-1.0, True, False) in outcomes


def test_illegal_action_terminates_or_raises():
    env = SplutGymEnv()
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    env = SplutGymEnv(illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalStepError, match=f"illegal action {illegal}"):
        env.step(illegal)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 7}, "num_players must be 2, 3 or 4"),
        ({"opponents": ["random", "random"]}, "or a list of 1 for 2 players"),
        ({"opponents": None}, "or a list of 1 for 2 players, got None"),
        ({"opponents": 123}, "or a list of 1 for 2 players, got 123"),
        ({"opponents": [123]}, "unknown agent 123"),
        ({"opponents": "nobody"}, "unknown agent 'nobody'"),
        ({"learner_player": 2}, "learner_player must be None or a player index 0..1"),
        ({"learner_player": 1.0}, "learner_player must be None or a player index 0..1, got 1.0"),
        ({"learner_player": True}, "learner_player must be None or a player index 0..1, got True"),
        ({"num_players": 2.0}, "num_players must be 2, 3 or 4, got 2.0"),
        ({"illegal_action": "ignore"}, "illegal_action must be"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SplutGymEnv(**kwargs)


def test_works_under_sb3_subproc_vec_env_with_action_masks():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = make_vec_env(
        "splut_env:splut_env/Splut-v0",
        n_envs=2,
        seed=0,
        vec_env_cls=SubprocVecEnv,
        env_kwargs={"num_players": 2},
    )
    try:
        obs = vec.reset()
        assert obs.shape == (2, 22, 9, 9)
        rng = np.random.default_rng(0)
        for _ in range(50):
            masks = get_action_masks(vec)
            assert masks.shape == (2, 196) and masks.any(axis=1).all()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            vec.step(actions)
    finally:
        vec.close()


def test_ansi_and_rgb_render():
    env = SplutGymEnv(render_mode="ansi")
    env.reset(seed=0)
    assert "to move" in env.render()
    env = SplutGymEnv(render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape[2] == 3


def test_random_is_a_registered_agent():
    assert isinstance(splut_env.make_agent("random"), splut_env.RandomAgent)
