"""Training past one machine: the RLlib path (``training.rllib``) — its environment, its
module around the project's network, and two iterations of the batched env runners on a
local two-node Ray cluster, then a resume."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import ray
import torch
from ray.cluster_utils import Cluster
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from splut_env.envs.match import play_game
from splut_env.players import make_agent
from splut_env.players.checkpoint import load_agent, save_player
from splut_env.players.network import NetworkShape, build_policy
from training.config import ConfigError, RLlibConfig, load_config, parse_config
from training.pretrain import start_weights
from training.rllib import (
    LEARNER,
    SplutMultiAgentEnv,
    SplutRLModule,
    opponent_mapping,
    resume_config,
    train,
)
from training.rllib_resume import verified_checkpoint


def play_out(env, rng, illegal_at=None):
    """One game with random legal actions; every step's outputs checked."""
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    returns = dict.fromkeys(env.possible_agents, 0.0)
    seen = set(obs)
    ended: set[str] = set()
    for step in range(10_000):
        (agent,) = set(obs) - ended
        assert agent in env.agents
        mask = obs[agent]["action_mask"]
        assert obs[agent]["observations"].shape == (22, 9, 9) and mask.any()
        action = int(rng.choice(np.flatnonzero(mask)))
        if step == illegal_at:
            action = int(np.flatnonzero(mask == 0)[0])
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        seen |= set(obs)
        ended |= {a for a in obs if terminated.get(a) or truncated.get(a)}
        assert set(obs) <= set(env.agents)
        for a, r in rewards.items():
            returns[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            assert set(obs) == set(env.agents)
            return returns, seen, terminated, truncated, infos
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_multi_agent_env_plays_whole_games(players):
    """Only the agent to move observes; a winner gets +1, an eliminated agent −1, and each
    agent's last observation comes with its end; bot seats are not agents."""
    env = SplutMultiAgentEnv(
        {"num_players": players, "max_turns": 60, "p_bots": 0.5, "bots": ["random"]}
    )
    rng = np.random.default_rng(players)
    outcomes = set()
    for _ in range(12):
        returns, seen, _, truncated, _ = play_out(env, rng)
        assert LEARNER in seen and seen <= set(env.possible_agents)
        assert all(r in (-1.0, 0.0, 1.0) for r in returns.values())
        assert sum(r > 0 for r in returns.values()) <= 1
        if truncated["__all__"]:
            assert all(r <= 0 for r in returns.values())
        outcomes.add(max(returns.values()))
    assert 1.0 in outcomes


def test_shaping_adds_potential_differences_between_an_agents_observations():
    """With gamma 1, an agent's shaped rewards add up to its game result minus the shaping
    weight times the potential at its first observation (the differences telescope)."""

    def totals(shaping):
        env = SplutMultiAgentEnv(
            {"num_players": 2, "max_turns": 40, "shaping": shaping, "gamma": 1.0}
        )
        rng = np.random.default_rng(9)
        obs, _ = env.reset(seed=4)
        sums, first = {}, {}
        while True:
            for agent in obs:
                first.setdefault(agent, env._potential(agent))
            (agent,) = [a for a in obs if a in env.agents and a not in env._left]
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
    assert any(first.values())


def test_an_illegal_action_ends_the_game_and_is_reported():
    env = SplutMultiAgentEnv({"num_players": 2, "max_turns": 60})
    returns, _, terminated, _, infos = play_out(env, np.random.default_rng(0), illegal_at=3)
    assert terminated["__all__"]
    (agent,) = infos
    assert infos[agent] == {"illegal_action": True} and returns[agent] == -1.0


def test_the_module_masks_illegal_actions_and_is_the_projects_network():
    env = SplutMultiAgentEnv({"num_players": 2})
    module = SplutRLModule(
        observation_space=env.observation_spaces[LEARNER],
        action_space=env.action_spaces[LEARNER],
        model_config={"network": {"channels": 8, "blocks": 1, "features_dim": 32}},
    )
    obs, _ = env.reset(seed=3)
    (agent,) = obs
    batch = {Columns.OBS: {key: torch.as_tensor(value)[None] for key, value in obs[agent].items()}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
    mask = obs[agent]["action_mask"] > 0
    assert (logits[~torch.as_tensor(mask)] == FLOAT_MIN).all()
    assert (logits[torch.as_tensor(mask)] > FLOAT_MIN).all()
    assert module.compute_values(batch).shape == (1,)
    assert set(module.policy.state_dict()) >= {"action_net.weight", "value_net.weight"}


def test_opponents_map_to_main_or_the_snapshots():
    class Episode:
        def __init__(self, i):
            self.id_ = f"episode-{i}"

    assert opponent_mapping([], 0.5, 0.2)("opponent_1", Episode(0)) == "main"
    mapping = opponent_mapping(["snapshot_1", "snapshot_2"], 0.5, 0.5)
    picks = [mapping("opponent_1", Episode(i)) for i in range(400)]
    assert {mapping(LEARNER, Episode(i)) for i in range(50)} == {"main"}
    assert set(picks) == {"main", "snapshot_1", "snapshot_2"}
    assert 140 < picks.count("main") < 260


def test_the_rllib_config_is_checked(tmp_path):
    config = load_config("configs/splut/rllib_2p.yaml", kind=RLlibConfig)
    assert config.num_players == 2 and config.num_env_runners >= 1
    for bad, expected in [
        ({"league": {"p_bots": 0.9}}, "must be 1"),
        ({"league": {"bots": ["nobody"]}}, "unknown bot"),
        ({"num_env_runners": 0}, "num_env_runners must be at least 1"),
        ({"iterations": "many"}, "iterations must be int"),
    ]:
        with pytest.raises(ConfigError, match=expected):
            parse_config(bad, RLlibConfig)


def test_a_run_starts_from_a_player_file_of_its_shape(tmp_path):
    shape = {"channels": 8, "blocks": 1, "features_dim": 32}
    policy = build_policy(NetworkShape(**shape))
    path = save_player(policy, tmp_path / "start.zip", NetworkShape(**shape), 2, 200)
    config = parse_config({"network": shape, "init_from": str(path)}, RLlibConfig)
    weights = start_weights(config.init_from, config.network, config.num_players)
    assert all(torch.equal(weights[k], v) for k, v in policy.state_dict().items())
    default = parse_config({}, RLlibConfig)
    with pytest.raises(ConfigError, match="config asks for"):
        start_weights(str(path), default.network, 2)
    with pytest.raises(ValueError, match="does not exist"):
        start_weights(str(tmp_path / "none.zip"), default.network, 2)


def test_two_iterations_on_a_two_node_cluster_and_a_resume(tmp_path, monkeypatch):
    """A head and one more node (1 CPU each), two batched env runners stepping 4 games each,
    starting from a player file: the runners run on both nodes, the iterations sample at
    least 800 env steps with no illegal action, the league gets its snapshots, each iteration
    writes a signed checkpoint, and the exported player (close to the start file) loads with
    ``load_agent`` and plays a legal game against ``random``. Then the run is resumed on the
    cluster from its last checkpoint for one more iteration: its counters go on."""
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    monkeypatch.setenv("SPLUT_ENV_KEY_FILE", str(tmp_path / "run.key"))
    out = tmp_path / "run"
    try:
        shape = NetworkShape(channels=8, blocks=1, features_dim=32)
        start = save_player(build_policy(shape), tmp_path / "start.zip", shape, 2, 60)
        config = parse_config(
            {
                "env_runner": "batched",
                "num_envs_per_env_runner": 4,
                "init_from": str(start),
                "shaping": 0.2,
                "iterations": 2,
                "checkpoint_every": 1,
                "num_env_runners": 2,
                "max_turns": 60,
                "ppo": {"n_steps": 200, "batch_size": 200, "n_epochs": 1},
                "network": {"channels": 8, "blocks": 1, "features_dim": 32},
                "league": {
                    "p_latest": 0.4,
                    "p_past": 0.4,
                    "p_bots": 0.2,
                    "bots": ["random"],
                    "snapshot_every": 400,
                    "max_snapshots": 2,
                },
                "eval_games": 0,
            },
            RLlibConfig,
        )
        facts = train(config, out, progress=False)
        checkpoint = verified_checkpoint(out)
        resumed = train(
            resume_config(checkpoint, ["iterations=3"]), out, progress=False, resume=checkpoint
        )
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert len(facts["nodes"]) == 2
    assert facts["games_per_env_runner"] == [4, 4]
    assert facts["env_steps"] >= 800
    assert facts["illegal_actions"] == 0
    assert facts["league"][0] == "self@0" and facts["league_size"] == 2
    assert [Path(c).name for c in facts["checkpoints"]] == ["iter_000001", "iter_000002"]
    # It trained from the start file: 4 small Adam steps moved no weight far from it.
    trained, started = load_agent(facts["player"]).policy, load_agent(start).policy
    drift = max(
        (a - b).abs().max().item()
        for a, b in zip(trained.parameters(), started.parameters(), strict=True)
    )
    assert 0 < drift < 0.02
    agent = load_agent(facts["player"])
    record = play_game([agent, make_agent("random")], seed=0, max_turns=60)
    assert record.turns >= 1
    # The resume went on from iteration 2 on both nodes.
    assert resumed["resumed_from"] == 2 and resumed["iterations"] == 3
    assert len(resumed["nodes"]) == 2 and resumed["games_per_env_runner"] == [4, 4]
    assert resumed["env_steps"] >= facts["env_steps"] + 400
    assert verified_checkpoint(out).name == "iter_000003"
    load_agent(out / "player.zip")
