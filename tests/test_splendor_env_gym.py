"""Splendor's Gymnasium single-agent view: env checkers, the learner's rewards, masks after
the opponents moved, truncation, determinism, errors, the registered id."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from test_splendor_rules import EMPTY, make

import splendor_env  # noqa: F401 (registers splendor_env/Splendor-v0)
from splendor_env import rules
from splendor_env.encoding import OBS_SHAPE, action_mask
from splendor_env.encoding import observation as features
from splendor_env.envs.gym import SplendorGymEnv
from tabletop.agents import Agent

#: P0 to move; P1 (14 points) can buy card 8 (g4, 1 point) and end the game at once.
P1_CAN_WIN = make(players=[EMPTY, "w0b0g4r0k0y0/74,77,78/-/-"], rows={1: "8,5,6,7"})


class ScriptedAgent(Agent):
    """Plays the given moves in order (text), then the first legal move."""

    needs_observation = False

    def __init__(self, moves: list[str]) -> None:
        self.moves = list(moves)

    def act(self, state, observation=None):
        return rules.move_id(state, self.moves.pop(0)) if self.moves else state.legal_move_ids()[0]


class ObservingAgent(Agent):
    """Checks the observation it is given, then plays its first legal action."""

    needs_observation = True

    def __init__(self) -> None:
        self.seen = 0

    def act(self, state, observation=None):
        np.testing.assert_array_equal(observation["observation"], features(state, state.to_move))
        mask = observation["action_mask"]
        np.testing.assert_array_equal(mask, action_mask(state, state.to_move))
        self.seen += 1
        return int(np.flatnonzero(mask)[0])


#: The env checkers try random actions: most are illegal and end the episode with a warning.
quiet_illegal = pytest.mark.filterwarnings("ignore:.*illegal action:UserWarning")


@quiet_illegal
@pytest.mark.parametrize("players", [2, 3, 4])
def test_stable_baselines3_env_checker(players):
    from stable_baselines3.common.env_checker import check_env

    check_env(SplendorGymEnv(num_players=players), warn=True)


@quiet_illegal
@pytest.mark.filterwarnings("ignore:.*alternative render modes:UserWarning")
def test_gymnasium_env_checker():
    from gymnasium.utils.env_checker import check_env

    check_env(SplendorGymEnv(num_players=3, render_mode="rgb_array"), skip_render_check=False)


def test_registered_id_with_opponents_by_name():
    env = gymnasium.make("splendor_env/Splendor-v0", num_players=3, opponents="greedy")
    obs, info = env.reset(seed=0)
    assert obs.shape == OBS_SHAPE and info["action_mask"].any()
    assert [type(o).__name__ for o in env.unwrapped.opponents] == ["GreedyAgent"] * 2
    env.close()


def test_masks_are_the_learners_after_the_opponents_moved():
    env = SplendorGymEnv(num_players=3, opponents="random", learner_player=2)
    obs, info = env.reset(seed=4)
    state = env.game_state
    assert state.to_move == 2 and state.turn == 2
    np.testing.assert_array_equal(env.action_masks(), action_mask(state, 2))
    np.testing.assert_array_equal(obs, features(state, 2))
    assert info["player"] == 2
    rng = np.random.default_rng(0)
    for _ in range(60):
        mask = env.action_masks()
        assert mask.dtype == np.bool_ and mask.any()
        assert list(np.flatnonzero(mask)) == env.game_state.legal_move_ids()
        assert info["legal_moves"] == [env.action_to_move(int(a)) for a in np.flatnonzero(mask)]
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated:
            break
        assert env.game_state.to_move == 2


def test_learner_wins_with_plus_one():
    env = SplendorGymEnv(opponents=ScriptedAgent(["take wbr"]), learner_player=1)
    env.reset(options={"position": P1_CAN_WIN})
    assert env.game_state.to_move == 1  # P0's move was played in reset
    _, reward, terminated, truncated, _ = env.step(env.move_to_action("buy 1.0"))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert not env.action_masks().any()
    with pytest.raises(ValueError, match="call reset"):
        env.step(0)


def test_learner_loses_on_an_opponents_move_with_minus_one():
    env = SplendorGymEnv(opponents=ScriptedAgent(["buy 1.0"]), learner_player=0)
    env.reset(options={"position": P1_CAN_WIN})
    _, reward, terminated, _, _ = env.step(env.move_to_action("take wbr"))
    assert (reward, terminated) == (-1.0, True)
    assert rules.winner(env.game_state) == 1


def test_margin_reward_counts_the_opponents_moves_too():
    env = SplendorGymEnv(opponents=ScriptedAgent(["buy 1.0"]), learner_player=0, reward="margin")
    env.reset(options={"position": P1_CAN_WIN})
    _, reward, terminated, _, _ = env.step(env.move_to_action("take wbr"))
    assert terminated and reward == pytest.approx(-1 / 15)  # 0 to 14, then 0 to 15


def test_the_round_cap_is_a_truncation():
    env = SplendorGymEnv(opponents=ScriptedAgent(["take wbg"]), learner_player=0)
    env.reset(options={"position": make(2, turn=198)})
    _, reward, terminated, truncated, _ = env.step(env.move_to_action("take wbg"))
    assert (reward, terminated, truncated) == (0.0, False, True)


def test_a_game_that_ends_before_the_learner_moves_is_refused():
    env = SplendorGymEnv(opponents=ScriptedAgent(["buy 1.0"]), learner_player=0)
    position = rules.to_text(rules.play(rules.from_text(P1_CAN_WIN), "take wbr"))
    with pytest.raises(ValueError, match="ends before the learner"):
        env.reset(options={"position": position})


def test_observing_opponents_get_their_own_observation():
    opponent = ObservingAgent()
    env = SplendorGymEnv(num_players=2, opponents=opponent, learner_player=0)
    env.reset(seed=0)
    for _ in range(10):
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated:
            break
    assert opponent.seen >= 10


def test_reset_is_deterministic_under_a_seed_and_the_seat_varies():
    a, b = SplendorGymEnv(num_players=3), SplendorGymEnv(num_players=3)
    for seed in (0, 1):
        (oa, ia), (ob, ib) = a.reset(seed=seed), b.reset(seed=seed)
        np.testing.assert_array_equal(oa, ob)
        assert ia["player"] == ib["player"]
        assert rules.to_text(a.game_state) == rules.to_text(b.game_state)
        rng = np.random.default_rng(seed)
        for _ in range(50):
            action = int(rng.choice(np.flatnonzero(a.action_masks())))
            ra, rb = a.step(action), b.step(action)
            np.testing.assert_array_equal(ra[0], rb[0])
            assert ra[1:4] == rb[1:4]
            if ra[2]:
                break
    seats = {a.reset(seed=s)[1]["player"] for s in range(30)}
    assert seats == {0, 1, 2}


@quiet_illegal
def test_illegal_action_terminates_or_raises():
    env = SplendorGymEnv(learner_player=0)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(76)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    env = SplendorGymEnv(learner_player=0, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(
        rules.IllegalMoveError, match=r"illegal action 76 \('pass'\) for the learner"
    ):
        env.step(76)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 5}, "num_players must be 2, 3 or 4"),
        ({"opponents": ["random", "random"]}, "or a list of 1 for 2 players"),
        ({"opponents": None}, "or a list of 1 for 2 players, got None"),
        ({"opponents": [123]}, "unknown agent 123"),
        ({"opponents": "nobody"}, "unknown agent 'nobody'"),
        ({"learner_player": 2}, "learner_player must be None or a player index 0..1"),
        ({"learner_player": 1.0}, "learner_player must be None or a player index 0..1, got 1.0"),
        ({"illegal_action": "ignore"}, "illegal_action must be"),
        ({"reward": "score"}, "reward must be one of"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SplendorGymEnv(**kwargs)


def test_works_with_sb3_vector_envs_and_maskable_masks():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: SplendorGymEnv(num_players=2) for _ in range(2)])
    obs = vec.reset()
    assert obs.shape == (2, *OBS_SHAPE)
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = get_action_masks(vec)
        assert masks.shape == (2, 77) and masks.any(axis=1).all()
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    vec.close()
