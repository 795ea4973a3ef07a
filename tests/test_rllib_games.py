"""The RLlib path for the other games on the core (``game: talat``): the environment over
the game's descriptor (:class:`training.rllib.GameMultiAgentEnv`), the module around the
game's network, and one iteration on a local Ray that exports a Talat player file."""

from __future__ import annotations

import numpy as np
import pytest
import ray
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

import talat_env
from tabletop.games import get_game
from talat_env.encoding import NUM_ACTIONS, OBS_SHAPE
from training.config import ConfigError, ExItConfig, RLlibConfig, parse_config
from training.rllib import LEARNER, BoardRLModule, GameMultiAgentEnv, train

SMALL = {"channels": 8, "blocks": 1, "features_dim": 32}


def play_out(env, rng, illegal_at=None):
    """One game with random legal actions (or an illegal one at step ``illegal_at``)."""
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    returns = dict.fromkeys(env.possible_agents, 0.0)
    seen = set(obs)
    for step in range(10_000):
        (agent,) = obs
        assert agent in env.agents
        mask = obs[agent]["action_mask"]
        assert obs[agent]["observations"].shape == OBS_SHAPE and mask.shape == (NUM_ACTIONS,)
        action = int(rng.choice(np.flatnonzero(mask)))
        if step == illegal_at:
            action = int(np.flatnonzero(mask == 0)[0])
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        seen |= set(obs)
        for a, r in rewards.items():
            returns[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            assert set(obs) == set(env.agents)
            return returns, seen, terminated, truncated, infos
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("players", [2, 3])
def test_talat_games_end_with_the_games_rewards(players):
    env = GameMultiAgentEnv(
        {"game": "talat", "num_players": players, "p_bots": 0.5, "bots": ["random"]}
    )
    rng = np.random.default_rng(players)
    winners = 0
    for _ in range(6):
        returns, seen, terminated, truncated, _ = play_out(env, rng)
        assert terminated["__all__"] and not truncated["__all__"]
        assert LEARNER in seen and seen == set(env.agents)
        assert all(r in (-1.0, 0.0, 1.0) for r in returns.values())
        assert sum(r > 0 for r in returns.values()) <= 1
        winners += any(r > 0 for r in returns.values())
    assert winners


def test_a_cut_game_is_truncated_and_an_illegal_action_ends_it():
    env = GameMultiAgentEnv({"game": "talat", "num_players": 2, "max_turns": 10})
    returns, _, terminated, truncated, _ = play_out(env, np.random.default_rng(0))
    assert truncated["__all__"] and not terminated["__all__"]
    assert set(returns.values()) == {0.0}
    env = GameMultiAgentEnv({"game": "talat", "num_players": 3})
    returns, _, terminated, _, infos = play_out(env, np.random.default_rng(1), illegal_at=2)
    (agent,) = infos
    assert terminated["__all__"] and infos[agent] == {"illegal_action": True}
    assert returns[agent] == -1.0


def test_shaping_telescopes_to_the_result_minus_the_first_potential():
    game = get_game("talat")

    def totals(shaping):
        env = GameMultiAgentEnv(
            {"game": "talat", "num_players": 2, "shaping": shaping, "gamma": 1.0}
        )
        rng = np.random.default_rng(4)
        obs, _ = env.reset(seed=4)
        sums, first = {}, {}
        while True:
            for agent in obs:
                first.setdefault(agent, game.potential(env.state, env._player(agent)))
            (agent,) = obs
            action = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
            obs, rewards, terminated, truncated, _ = env.step({agent: action})
            for a, r in rewards.items():
                sums[a] = sums.get(a, 0.0) + r
            if terminated["__all__"] or truncated["__all__"]:
                return sums, first

    plain, _ = totals(0.0)
    shaped, first = totals(0.5)
    for agent in plain:
        assert shaped[agent] == pytest.approx(plain[agent] - 0.5 * first[agent])


def test_the_module_is_the_games_network_and_masks_illegal_actions():
    env = GameMultiAgentEnv({"game": "talat", "num_players": 3})
    module = BoardRLModule(
        observation_space=env.observation_spaces[LEARNER],
        action_space=env.action_spaces[LEARNER],
        model_config={"game": "talat", "network": {**SMALL, "policy_head": "steps"}},
    )
    obs, _ = env.reset(seed=3)
    (agent,) = obs
    batch = {Columns.OBS: {key: torch.as_tensor(value)[None] for key, value in obs[agent].items()}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
    mask = torch.as_tensor(obs[agent]["action_mask"] > 0)
    assert (logits[~mask] == FLOAT_MIN).all() and (logits[mask] > FLOAT_MIN).all()
    assert type(module.policy.action_net).__name__ == "StepLogits"


def test_configs_of_other_games_are_checked():
    with pytest.raises(ConfigError, match="unknown bot 'search:nope'"):
        parse_config({"game": "talat", "league": {"bots": ["search:nope"]}}, RLlibConfig)
    with pytest.raises(ConfigError, match=r"network\.inputs must be 'planes' for talat"):
        parse_config({"game": "talat", "network": {"inputs": "lines"}}, RLlibConfig)
    with pytest.raises(ConfigError, match=r"expert iteration cannot train splendor"):
        parse_config({"game": "splendor"}, ExItConfig)


def _one_iteration(tmp_path, monkeypatch, **settings) -> dict:
    """One RLlib iteration (1 env runner, 400 env steps) of a small config with
    ``settings``; its facts."""
    monkeypatch.setenv("SPLUT_ENV_KEY_FILE", str(tmp_path / "run.key"))  # its checkpoint's key
    config = parse_config(
        {
            "num_players": 2,
            "iterations": 1,
            "num_env_runners": 1,
            "ppo": {"n_steps": 400, "batch_size": 200, "n_epochs": 1},
            "league": {"p_latest": 0.8, "p_past": 0.0, "p_bots": 0.2, "bots": ["greedy"]},
            "eval_games": 0,
            **settings,
        },
        RLlibConfig,
    )
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        return train(config, tmp_path, progress=False)
    finally:
        ray.shutdown()


def test_one_iteration_of_talat_exports_a_talat_player(tmp_path, monkeypatch):
    network = {**SMALL, "policy_head": "steps"}
    facts = _one_iteration(tmp_path, monkeypatch, game="talat", max_turns=1000, network=network)
    assert facts["env_steps"] >= 400 and facts["illegal_actions"] == 0
    agent = talat_env.load_agent(facts["player"], num_players=2)
    game = get_game("talat")
    record = game.play_game([agent, game.make_agent("random")], seed=0)
    assert record.winner is not None or record.ranks


@pytest.mark.parametrize(
    "game, network",
    [("talat", {**SMALL, "policy_head": "steps"}), ("splendor", {"blocks": 1, "features_dim": 32})],
)
def test_one_batched_iteration_of_a_core_game_exports_its_player(
    tmp_path, monkeypatch, game, network
):
    facts = _one_iteration(
        tmp_path,
        monkeypatch,
        game=game,
        network=network,
        env_runner="batched",
        num_envs_per_env_runner=8,
    )
    assert facts["env_steps"] >= 400
    rules = get_game(game)
    agent = rules.make_agent(facts["player"])
    record = rules.play_game([agent, rules.make_agent("random")], seed=0)
    assert record.winner is not None or record.ranks
