"""The batched env runner of ``training.rllib`` (``env_runner: batched``,
:mod:`training.rllib_vector`): the vector envs' subset stepping, the adapter to RLlib's
``NEXT_STEP`` autoreset, the config, and a short run that exports a player."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import ray
from conftest import small_league
from gymnasium.vector import AutoresetMode

from splut_env.envs.match import play_game
from splut_env.envs.vector import SplutVectorEnv
from splut_env.players import make_agent
from splut_env.players.checkpoint import load_agent, save_player
from splut_env.players.network import NetworkShape, build_policy
from tabletop.games import get_game
from tabletop.vector import GamesVectorEnv
from training.config import ConfigError, RLlibConfig, load_config, parse_config
from training.rllib import train
from training.rllib_vector import (
    BatchedSelfPlayEnv,
    NextStepVectorEnv,
    batched_env_config,
    selfplay_games,
)

ROOT = Path(__file__).parent.parent
SMALL = {"channels": 8, "blocks": 1, "features_dim": 32}
BOTS = {"p_latest": 0.0, "p_past": 0.0, "p_bots": 1.0, "bots": ["random"]}


def env_config(game: str, num_envs: int, max_turns: int, shaping: float = 0.0) -> dict:
    config = parse_config(
        {
            "game": game,
            "env_runner": "batched",
            "num_envs_per_env_runner": num_envs,
            "ppo": {"n_steps": num_envs * 8, "gamma": 0.9},
            "max_turns": max_turns,
            "shaping": shaping,
            "network": SMALL,
            "league": BOTS,
        },
        RLlibConfig,
    )
    return batched_env_config(config) | {"num_envs": num_envs}


def unplayable(mask: np.ndarray) -> int:
    """An action that is illegal for ``mask`` (all zeros: any)."""
    return int(np.flatnonzero(mask < 0.5)[0])


# --- subset stepping ---------------------------------------------------------------------


def test_splut_games_left_out_of_a_step_are_untouched():
    envs = SplutVectorEnv(num_envs=4, num_players=2, max_turns=60, opponents="random")
    obs, _ = envs.reset(seed=3)
    rng = np.random.default_rng(0)
    masks = envs.action_masks()
    before = envs.games.games.copy()
    active = np.array([True, False, True, False])
    acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    acts[~active] = -7  # not read: an action of a game left out never ends it as illegal
    after, rewards, terminated, truncated, infos = envs.step(acts, active=active)
    assert np.array_equal(envs.games.games[~active], before[~active])
    assert np.array_equal(after[~active], obs[~active])
    assert not rewards[~active].any() and not (terminated | truncated)[~active].any()
    assert "final_info" not in infos or not infos["_final_info"][~active].any()
    assert not np.array_equal(envs.games.games[active], before[active])
    with pytest.raises(ValueError, match="active must be 4 booleans"):
        envs.step(acts, active=[1, 0, 1, 0])


def test_stepping_every_game_with_active_is_stepping_without_it():
    a = SplutVectorEnv(num_envs=3, num_players=2, max_turns=30, opponents="random")
    b = SplutVectorEnv(num_envs=3, num_players=2, max_turns=30, opponents="random")
    a.reset(seed=5), b.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(60):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in a.action_masks()])
        out_a = a.step(acts)
        out_b = b.step(acts, active=np.ones(3, dtype=bool))
        for x, y in zip(out_a[:4], out_b[:4], strict=True):
            assert np.array_equal(x, y)


def test_core_games_left_out_of_a_step_are_untouched():
    envs = GamesVectorEnv("talat", num_envs=3, num_players=2, opponents="random")
    obs, _ = envs.reset(seed=2)
    game = get_game("talat")
    rng = np.random.default_rng(0)
    texts = [game.to_text(s) for s in envs.states]
    moves = envs.moves.copy()
    active = np.array([False, True, False])
    acts = np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()])
    acts[~active] = 10**6  # not read (played, it would raise)
    after, rewards, terminated, truncated, _ = envs.step(acts, active=active)
    for row in np.flatnonzero(~active).tolist():
        assert game.to_text(envs.states[row]) == texts[row]
    assert np.array_equal(envs.moves[~active], moves[~active])
    assert np.array_equal(after[~active], obs[~active])
    assert not rewards[~active].any() and not (terminated | truncated)[~active].any()
    assert game.to_text(envs.states[1]) != texts[1]
    with pytest.raises(ValueError, match="active must be 3 booleans"):
        envs.step(acts, active=np.ones(2, dtype=bool))


# --- the NEXT_STEP adapter -----------------------------------------------------------------


@pytest.mark.parametrize(("game", "max_turns", "steps"), [("splut", 24, 240), ("talat", 40, 120)])
def test_the_adapter_gives_next_step_autoreset(game, max_turns, steps):
    """Step the adapter and, in lockstep, a twin of its env (same seed) as the adapter must
    step it: the adapter's rewards and ends are the env's (shaped, with gamma < 1), a game's
    last observation comes at its end, and at the next step the adapter returns the
    observation the env started the next game with, reward 0, not done, without playing
    the (illegal) action it was given."""
    config = env_config(game, num_envs=4, max_turns=max_turns, shaping=0.5)
    adapter = NextStepVectorEnv(selfplay_games(config))
    twin = selfplay_games(config)
    assert adapter.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert adapter.observation_space["action_mask"].dtype == np.float32
    obs, _ = adapter.reset(seed=11)
    twin_obs, _ = twin.reset(seed=11)
    assert np.array_equal(obs["observations"], twin_obs)
    assert np.array_equal(obs["action_mask"], twin.action_masks().astype(np.float32))
    rng = np.random.default_rng(0)
    restarting = np.zeros(4, dtype=bool)
    started = np.zeros_like(obs["observations"])
    ends = restarts = 0
    for _ in range(steps):
        masks = obs["action_mask"]
        acts = np.array(
            [
                unplayable(m) if r else rng.choice(np.flatnonzero(m))
                for m, r in zip(masks, restarting, strict=True)
            ]
        )
        obs, rewards, terminated, truncated, infos = adapter.step(acts)
        t_obs, t_rewards, t_terminated, t_truncated, t_infos = twin.step(acts, active=~restarting)
        assert np.array_equal(rewards, t_rewards)
        assert np.array_equal(terminated, t_terminated)
        assert np.array_equal(truncated, t_truncated)
        done = terminated | truncated
        if restarting.any():
            restarts += 1
            assert not rewards[restarting].any() and not done[restarting].any()
            assert np.array_equal(obs["observations"][restarting], started[restarting])
        for row in np.flatnonzero(done).tolist():
            ends += 1
            assert np.array_equal(obs["observations"][row], t_infos["final_obs"][row])
            assert not obs["action_mask"][row].any()
            assert infos["outcome"][row] == t_infos["final_info"]["outcome"][row]
            assert infos["opponents"][row] == ("random",)
            assert infos["opponent_kinds"][row] == ("random",)
        live = ~done
        assert np.array_equal(obs["observations"][live], t_obs[live])
        masks_now = twin.action_masks().astype(np.float32)
        assert np.array_equal(obs["action_mask"][live], masks_now[live])
        started[done] = t_obs[done]  # the next game's first observation, returned next step
        restarting = done
    assert ends >= 2 and restarts >= 2


def test_the_adapter_wants_a_same_step_env_and_whole_actions():
    with pytest.raises(ValueError, match=r"AutoresetMode\.SAME_STEP"):
        NextStepVectorEnv(object())
    adapter = BatchedSelfPlayEnv(env_config("splut", num_envs=2, max_turns=30))
    adapter.reset(seed=0)
    with pytest.raises(ValueError, match="actions must be 2 whole numbers"):
        adapter.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match=r"lacks \['num_envs'\]"):
        selfplay_games({k: v for k, v in env_config("splut", 2, 30).items() if k != "num_envs"})


# --- config --------------------------------------------------------------------------------


def test_the_batched_settings_are_checked():
    base = {"env_runner": "batched", "num_envs_per_env_runner": 8, "ppo": {"n_steps": 64}}
    assert parse_config(base, RLlibConfig).num_envs_per_env_runner == 8
    for bad, expected in [
        ({"env_runner": "vectorised"}, "env_runner must be one of multi_agent, batched"),
        ({**base, "ppo": {"n_steps": 60}}, r"ppo\.n_steps \(60\) must be a multiple"),
        ({**base, "num_envs_per_env_runner": 0}, "num_envs_per_env_runner must be at least 1"),
        ({**base, "opening_steps": -1}, "opening_steps must be at least 0"),
        ({**base, "league": {"snapshot_every": 0}}, "league.snapshot_every must be at least 1"),
        ({**base, "league": {"player_weights": [1]}}, r"league\.player_weights must have one"),
    ]:
        with pytest.raises(ConfigError, match=expected):
            parse_config(bad, RLlibConfig)
    # The shipped config is the batched one; the multi-agent env runner is an override away.
    shipped = ROOT / "configs/splut/rllib_2p.yaml"
    assert load_config(shipped, [], RLlibConfig).env_runner == "batched"
    multi = load_config(shipped, ["env_runner=multi_agent"], RLlibConfig)
    assert multi.env_runner == "multi_agent"


# --- a run ---------------------------------------------------------------------------------


def test_two_batched_iterations_train_and_export_a_player(tmp_path, monkeypatch):
    """One env runner stepping 8 games at once, two iterations from a player file: the
    league gets its first snapshot at the start and another after ``snapshot_every`` steps,
    the learner's games are logged per opponent kind, the weights moved from the start file,
    and the exported player loads and plays a legal game."""
    shape = NetworkShape(**SMALL)
    start = save_player(build_policy(shape), tmp_path / "start.zip", shape, 2, 60)
    config = parse_config(
        {
            "env_runner": "batched",
            "init_from": str(start),
            "num_envs_per_env_runner": 8,
            "iterations": 2,
            "num_env_runners": 1,
            "max_turns": 60,
            "shaping": 0.2,
            "ppo": {"n_steps": 400, "batch_size": 200, "n_epochs": 1},
            "network": SMALL,
            "league": small_league(300),
            "eval_games": 0,
        },
        RLlibConfig,
    )
    monkeypatch.setenv("SPLUT_ENV_KEY_FILE", str(tmp_path / "run.key"))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        facts = train(config, tmp_path / "run", progress=False)
    finally:
        ray.shutdown()
    assert facts["env_steps"] >= 800 and facts["illegal_actions"] == 0
    assert facts["games_per_env_runner"] == [8]
    assert facts["league"][0] == "self@0" and facts["league_size"] == 2
    assert facts["win_vs"] and set(facts["win_vs"]) <= {"random", "self-latest", "self-past"}
    trained, started = load_agent(facts["player"]).policy, load_agent(start).policy
    drift = max(
        (a - b).abs().max().item()
        for a, b in zip(trained.parameters(), started.parameters(), strict=True)
    )
    assert 0 < drift < 0.05
    record = play_game([load_agent(facts["player"]), make_agent("random")], seed=0, max_turns=60)
    assert record.turns >= 1


def test_the_bench_samples_batched_runners_on_a_simulated_cluster_and_plots(tmp_path):
    from training.rllib_bench import main as bench

    small = ["network.channels=4", "network.blocks=1", "ppo.batch_size=20"]
    runs = ["--runners", "1", "2", "--games", "4", "--steps", "40", "--rounds", "1"]
    rows = bench([*runs, "--cluster", "--out", str(tmp_path), *small])
    assert [row["env_runners"] for row in rows] == [1, 2]
    assert all(row["games_per_runner"] == 4 for row in rows)
    assert rows[0]["env_steps"] >= 40 and rows[1]["env_steps"] >= 80  # every runner sampled
    assert rows[0]["speedup"] == 1.0 and rows[1]["env_steps_per_s"] > 0
    assert (tmp_path / "scaling.csv").read_text().count("\n") == 3
    assert (tmp_path / "scaling.png").stat().st_size > 1000


def test_the_study_run_config_is_the_shipped_one():
    root = Path(__file__).resolve().parents[1]
    ran = load_config(root / "results/rllib_2p/config.yaml", [], kind=RLlibConfig)
    shipped = load_config(root / "configs/splut/rllib_2p.yaml", [], kind=RLlibConfig)
    assert ran == shipped
