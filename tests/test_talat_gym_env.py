"""Talat's Gymnasium single-agent view: env checkers, the learner's rewards, masks after the
opponents moved, determinism, errors."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop.agents import Agent
from talat_env import rules
from talat_env.encoding import OBS_SHAPE, action_mask, action_of, move_of
from talat_env.envs.gym import TalatGymEnv

#: White (the learner) to move; after its ``wb:d4-c5`` black's ``wb:a3-a2`` ends the game,
#: black winning 31 to 12.
TWO_BEFORE_THE_END = (
    "2p wb:.wM6.../..bL3wS6./bS6wS4.../..bL6.bL4/..... bg:..bM4../....bM3/..bM6../..gS6.bS4/"
    "bS3gL4... gw*:....gL3/gM4gS4.gL6./....wL3/...wL6./wL4.... play w w=- "
    "b=gM3,gS3,wM3,wM4,wS3"
)


class ScriptedAgent(Agent):
    """Plays the given moves in order (move text), then the first legal move."""

    needs_observation = False

    def __init__(self, moves: list[str]) -> None:
        self.moves = list(moves)

    def act(self, state, observation=None):
        move = rules.move_id(state, self.moves.pop(0)) if self.moves else state.legal_ids()[0]
        return action_of(state.num_players, state.to_move, move)


class ObservingAgent(Agent):
    """Checks the observation it is given, then plays its first legal action."""

    needs_observation = True

    def __init__(self) -> None:
        self.seen = 0

    def act(self, state, observation=None):
        assert observation["observation"].shape == OBS_SHAPE
        mask = observation["action_mask"]
        np.testing.assert_array_equal(mask, action_mask(state, state.to_move))
        self.seen += 1
        return int(np.flatnonzero(mask)[0])


#: The env checkers try random actions: most are illegal and end the episode with a warning.
quiet_illegal = pytest.mark.filterwarnings("ignore:.*illegal action:UserWarning")


@quiet_illegal
@pytest.mark.filterwarnings("ignore::UserWarning:stable_baselines3")  # any 3-D Box is an "image"
@pytest.mark.parametrize("players", [2, 3])
def test_stable_baselines3_env_checker(players):
    from stable_baselines3.common.env_checker import check_env

    check_env(TalatGymEnv(num_players=players), warn=True)


@quiet_illegal
@pytest.mark.filterwarnings("ignore:.*alternative render modes:UserWarning")
def test_gymnasium_env_checker():
    from gymnasium.utils.env_checker import check_env

    check_env(TalatGymEnv(num_players=3, render_mode="rgb_array"), skip_render_check=False)


def test_masks_are_the_learners_after_the_opponents_moved():
    env = TalatGymEnv(num_players=3, opponents="random", learner_player=2)
    obs, info = env.reset(seed=4)
    state = env.game_state
    assert state.to_move == 2 and sum(1 for c in state.cells if c) == 2  # w, b placed
    np.testing.assert_array_equal(env.action_masks(), action_mask(state, 2))
    assert obs.shape == OBS_SHAPE and info["player"] == 2 and info["colour"] == "g"
    rng = np.random.default_rng(0)
    for _ in range(60):
        mask = env.action_masks()
        assert mask.dtype == np.bool_ and mask.any()
        moves = sorted(move_of(3, 2, int(a)) for a in np.flatnonzero(mask))
        assert moves == env.game_state.legal_ids()
        assert list(info["legal_actions"]) == list(np.flatnonzero(mask))
        assert info["legal_moves"] == [env.action_to_move(int(a)) for a in info["legal_actions"]]
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated:
            break
        assert env.game_state.to_move == 2


def test_learner_wins_with_plus_one():
    env = TalatGymEnv(opponents=ScriptedAgent(["wb:d4-c5"]), learner_player=1)
    env.reset(options={"position": TWO_BEFORE_THE_END})
    assert env.game_state.to_move == 1  # white's move was played in reset
    _, reward, terminated, truncated, _ = env.step(env.move_to_action("wb:a3-a2"))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert not env.action_masks().any()


def test_learner_loses_on_an_opponents_move_with_minus_one():
    env = TalatGymEnv(opponents=ScriptedAgent(["wb:a3-a2"]), learner_player=0)
    env.reset(options={"position": TWO_BEFORE_THE_END})
    _, reward, terminated, _, _ = env.step(env.move_to_action("wb:d4-c5"))
    assert (reward, terminated) == (-1.0, True)
    assert rules.winners(env.game_state) == ["b"]
    with pytest.raises(ValueError, match="call reset"):
        env.step(0)


def test_margin_reward_counts_the_opponents_moves_too():
    env = TalatGymEnv(opponents=ScriptedAgent(["wb:a3-a2"]), learner_player=0, reward="margin")
    env.reset(options={"position": TWO_BEFORE_THE_END})
    _, reward, terminated, _, _ = env.step(env.move_to_action("wb:d4-c5"))
    # White's S6 reaches its goal line on wb (+3): 9 to 31 becomes 12 to 31.
    assert terminated and reward == pytest.approx(0.3)


def test_a_game_that_ends_before_the_learner_moves_is_refused():
    env = TalatGymEnv(opponents=ScriptedAgent(["wb:a3-a2"]), learner_player=0)
    position = rules.to_text(rules.play(rules.from_text(TWO_BEFORE_THE_END), "wb:d4-c5"))
    with pytest.raises(ValueError, match="ends before the learner"):
        env.reset(options={"position": position})


def test_observing_opponents_get_their_own_observation():
    opponent = ObservingAgent()
    env = TalatGymEnv(num_players=2, opponents=opponent, learner_player=0)
    env.reset(seed=0)
    for _ in range(20):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    # Black placed the set-up's last tower and also makes the first move of the play.
    assert opponent.seen == 21


def test_reset_is_deterministic_under_a_seed_and_the_seat_varies():
    a, b = TalatGymEnv(num_players=3), TalatGymEnv(num_players=3)
    for seed in (0, 1):
        (oa, ia), (ob, ib) = a.reset(seed=seed), b.reset(seed=seed)
        np.testing.assert_array_equal(oa, ob)
        assert ia["player"] == ib["player"]
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


def test_full_random_games_end_with_a_sensible_reward():
    env = TalatGymEnv(num_players=2)
    outcomes = set()
    for seed in range(6):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            mask = env.action_masks()
            _, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not truncated
            if terminated:
                outcomes.add(reward)
                break
    assert outcomes <= {1.0, 0.0, -1.0} and len(outcomes) >= 2


@quiet_illegal
def test_illegal_action_terminates_or_raises():
    env = TalatGymEnv(learner_player=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    env = TalatGymEnv(learner_player=0, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(rules.IllegalMoveError, match=f"illegal action {illegal} for the learner"):
        env.step(illegal)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 4}, "num_players must be 2 or 3"),
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
        TalatGymEnv(**kwargs)


def test_named_opponents_for_three_players():
    env = TalatGymEnv(num_players=3, opponents=["greedy", "random"], learner_player=0)
    env.reset(seed=2)
    assert [type(o).__name__ for o in env.opponents] == ["GreedyAgent", "RandomAgent"]
    for _ in range(30):
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated:
            break


def test_works_with_sb3_vector_envs_and_maskable_masks():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: TalatGymEnv(num_players=2) for _ in range(2)])
    obs = vec.reset()
    assert obs.shape == (2, *OBS_SHAPE)
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = get_action_masks(vec)
        assert masks.shape == (2, 1051) and masks.any(axis=1).all()
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    vec.close()
