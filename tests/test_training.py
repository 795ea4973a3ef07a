"""Training: configs, checkpoints that load back as players, a smoke run and its resume."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import greedy_turns

from splut_env import load_agent, make_agent, rules
from splut_env.agents import play_game
from splut_env.gym_env import SplutGymEnv
from splut_env.policy import META_NAME, write_meta
from training.config import ConfigError, NetworkConfig, load_config, parse_config

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory) -> Path:
    """A freshly initialised MaskablePPO policy saved as a checkpoint (no training)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.selfplay import policy_kwargs

    env = DummyVecEnv([lambda: SplutGymEnv(num_players=2)])
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=3, device="cpu",
                        policy_kwargs=policy_kwargs(NetworkConfig(8, 1, 32)))  # fmt: skip
    path = tmp_path_factory.mktemp("ckpt") / "tiny.zip"
    model.save(path)
    write_meta(path, {"num_players": 2, "max_turns": 200, "steps": 0})
    return path


@pytest.mark.parametrize(
    "config", ["default", "strong_2p", "three_players", "four_players", "smoke"]
)
def test_shipped_configs_are_valid(config):
    cfg = load_config(ROOT / "configs" / f"{config}.yaml")
    assert cfg.total_steps > 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"totl_steps": 5}, "unknown field 'totl_steps'"),
        ({"ppo": {"batch_sise": 5}}, "unknown field 'ppo.batch_sise'"),
        ({"total_steps": "many"}, "total_steps must be int"),
        ({"total_steps": 0}, "total_steps must be at least 1"),
        ({"num_players": 5}, "num_players must be 2, 3 or 4"),
        ({"ppo": {"gamma": 1.5}}, "ppo.gamma must be between 0 and 1"),
        ({"ppo": {"learning_rate": -1}}, "ppo.learning_rate must be positive"),
        ({"ppo": 3}, "ppo must be a mapping"),
        ({"pool": {"p_latest": 0.9}}, "must be 1, got 1.4"),
        ({"pool": {"bots": ["random", "nobody"]}}, "pool.bots: unknown bot 'nobody'"),
        ({"eval": {"bots": "greedy"}}, "eval.bots must be a list of names"),
        ({"ppo": {"batch_size": 100}}, "ppo.batch_size \\(100\\) must divide"),
        ({"n_envs": True}, "n_envs must be int"),
        ({"pool": {"seat_weights": [1, 2, 3]}}, "pool.seat_weights must have one weight per"),
        ({"pool": {"bot_weights": [1]}}, "pool.bot_weights must have one weight per entry"),
        ({"pool": {"bot_weights": [0, 0]}}, "non-negative with a positive sum"),
        ({"pool": {"bot_weights": ["a", 1]}}, "pool.bot_weights must be a list of numbers"),
    ],
)
def test_config_errors_name_the_field(data, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(data)


def test_config_file_errors_and_overrides(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    cfg = load_config(ROOT / "configs" / "smoke.yaml", ["total_steps=1024", "ppo.n_epochs=2"])
    assert (cfg.total_steps, cfg.ppo.n_epochs) == (1024, 2)
    with pytest.raises(ConfigError, match="expected key=value"):
        load_config(ROOT / "configs" / "smoke.yaml", ["total_steps"])


def test_checkpoint_loads_back_and_gives_the_same_actions(tiny_checkpoint):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(tiny_checkpoint, device="cpu")
    agent = load_agent(str(tiny_checkpoint), num_players=2)
    again = make_agent(str(tiny_checkpoint))
    rng = np.random.default_rng(0)
    state = rules.initial_state(2)
    for _ in range(40):
        obs = {"observation": _planes(state), "action_mask": _mask(state)}
        action = agent.act(state, obs)
        expected, _ = model.predict(obs["observation"], deterministic=True,
                                    action_masks=obs["action_mask"].astype(bool))  # fmt: skip
        assert action == int(expected) == again.act(state, obs)
        state.apply(int(rng.choice(state.legal_ids())))
        if state.is_over():
            state = rules.initial_state(2)


def _planes(state):
    from splut_env.encoding import observation_planes

    return observation_planes(state, state.to_move, 200)


def _mask(state):
    from splut_env.encoding import action_mask

    return action_mask(state, state.to_move)


def test_exported_player_is_smaller_and_plays_the_same(tiny_checkpoint, tmp_path):
    from splut_env.policy import export_player

    player = tmp_path / "player.zip"
    export_player(tiny_checkpoint, player)
    assert player.stat().st_size < tiny_checkpoint.stat().st_size
    a, b = load_agent(str(tiny_checkpoint)), load_agent(str(player))
    state = rules.initial_state(2)
    rng = np.random.default_rng(1)
    for _ in range(30):
        assert a.act(state) == b.act(state)
        state.apply(int(rng.choice(state.legal_ids())))
        if state.is_over():
            break


def test_loaded_checkpoint_plays_full_games_as_an_opponent(tiny_checkpoint):
    env = SplutGymEnv(num_players=2, opponents=load_agent(str(tiny_checkpoint)))
    for seed in range(3):
        env.reset(seed=seed)
        done = False
        while not done:
            action = int(np.flatnonzero(env.action_masks())[0])
            _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
    record = play_game([make_agent(str(tiny_checkpoint)), make_agent("random")], seed=1)
    assert record.turns > 0


def test_bad_checkpoints_give_clear_errors(tmp_path, tiny_checkpoint):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_agent(str(tmp_path / "none.zip"))
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip at all")
    with pytest.raises(ValueError, match="is not a splut-env checkpoint"):
        load_agent(str(junk))
    bare = tmp_path / "bare.zip"
    with zipfile.ZipFile(bare, "w") as zf:
        zf.writestr("data", "{}")
    with pytest.raises(ValueError, match="is not a splut-env checkpoint"):
        load_agent(str(bare))
    old = tmp_path / "old.zip"
    old.write_bytes(tiny_checkpoint.read_bytes())
    with zipfile.ZipFile(old, "a") as zf:
        zf.writestr(META_NAME, json.dumps({"format": "splut-env-policy", "layout_version": 0}))
    with pytest.raises(ValueError, match="layout 0"):
        load_agent(str(old))
    with pytest.raises(ValueError, match="trained for 2 players, not 4"):
        load_agent(str(tiny_checkpoint), num_players=4)
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(broken, "w") as zf:
        zf.writestr(META_NAME, json.dumps({"format": "splut-env-policy", "layout_version": 1,
                                           "num_actions": 196, "num_players": 2}))  # fmt: skip
    with pytest.raises(ValueError, match="cannot be loaded"):
        load_agent(str(broken))


def run_train(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "training.train", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_smoke_training_then_resume_continues_the_counter_and_pool(tmp_path):
    runs = tmp_path / "runs"
    first = run_train("--config", "configs/smoke.yaml", "--runs", str(runs), "total_steps=256")
    assert first.returncode == 0, first.stderr[-3000:]
    (run_dir,) = runs.iterdir()
    for name in (
        "config.yaml",
        "versions.json",
        "final.zip",
        "MODEL_CARD.md",
        "learning_curve.png",
    ):
        assert (run_dir / name).is_file(), name
    assert "| random |" in (run_dir / "MODEL_CARD.md").read_text()
    state = json.loads((run_dir / "checkpoints" / "step_0000000256" / "trainer.json").read_text())
    assert state["steps"] == 256

    second = run_train("--resume", str(run_dir), "total_steps=512")
    assert second.returncode == 0, second.stderr[-3000:]
    assert "resumed from" in second.stdout and "at step 256" in second.stdout
    last = json.loads((run_dir / "checkpoints" / "step_0000000512" / "trainer.json").read_text())
    assert last["steps"] == 512 and [e["steps"] for e in last["evals"]][1:] == [256, 512]
    split = last["time_split"]  # seconds, summed over both runs
    assert set(split) == {"env", "inference", "learn", "evaluate"}
    assert all(v > 0 for v in split.values()) and split["env"] > state["time_split"]["env"]
    assert "- self-play time: environment processes" in (run_dir / "MODEL_CARD.md").read_text()
    import torch

    labels = [
        label for label, _ in torch.load(run_dir / "checkpoints" / "step_0000000512" / "pool.pt")
    ]
    assert labels[0] == "self@0" and "self@384" in labels
    agent = load_agent(str(run_dir / "final.zip"))
    assert agent.meta["steps"] == 512


def test_train_command_line_errors():
    result = run_train("--config", "configs/nothing.yaml")
    assert result.returncode == 2 and "cannot read config" in result.stderr
    result = run_train("--config", "configs/smoke.yaml", "ppo.gamma=2")
    assert result.returncode == 2 and "ppo.gamma must be between 0 and 1" in result.stderr
    result = run_train("--resume", "/nonexistent/run")
    assert result.returncode == 2 and "no checkpoint" in result.stderr


def test_teacher_games_and_imitation_fit():
    from training.pretrain import fit, teacher_game
    from training.selfplay import build_policy

    game = teacher_game(("greedy", 2, 200, 0.0, 7, 0.99))
    n = len(game["actions"])
    assert game["planes"].shape == (n, 22, 9, 9) and game["masks"].shape == (n, 196)
    assert all(game["masks"][i, a] for i, a in enumerate(game["actions"]))  # teacher is legal
    assert abs(game["values"][-1]) == 1.0  # greedy self-play ends with a winner
    config = parse_config({"pretrain": {"games": 1, "epochs": 60, "batch_size": 64, "learning_rate": 0.01},
                           "network": {"channels": 8, "blocks": 1, "features_dim": 32}})  # fmt: skip
    policy = build_policy(config.network)
    metrics = fit(policy, game, config, progress=False)
    assert metrics["accuracy"] > 0.8  # a small network memorises one game


@pytest.mark.parametrize("players", [3, 4])
def test_smoke_training_with_more_players(tmp_path, players):
    result = run_train("--config", "configs/smoke.yaml", "--runs", str(tmp_path),
                       f"num_players={players}", "n_envs=1", "total_steps=128",
                       "ppo.n_steps=64", "pretrain.games=2", "eval.final_games=1")  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    (run_dir,) = tmp_path.iterdir()
    agent = load_agent(str(run_dir / "player.zip"), num_players=players)
    record = play_game([agent] + [make_agent("random") for _ in range(players - 1)], seed=0)
    assert record.turns > 0


@pytest.mark.parametrize(("name", "players"), [("splut_2p", 2), ("splut_3p", 3), ("splut_4p", 4)])
def test_shipped_checkpoints_load_and_beat_random_players(name, players):
    path = ROOT / "checkpoints" / f"{name}.zip"
    assert (ROOT / "checkpoints" / f"{name}.md").is_file()  # its model card
    agent = load_agent(str(path), num_players=players)
    with pytest.raises(ValueError, match=f"trained for {players} players"):
        load_agent(str(path), num_players=5 - players if players != 3 else 2)
    wins = 0
    for seed in range(8):
        table = [make_agent("random", seed=seed) for _ in range(players - 1)]
        seat = seed % players
        table.insert(seat, agent)
        record = play_game(table, seed=seed)
        wins += record.winner == seat
    assert wins >= 5, f"{name} won {wins} of 8 games against random players"


def test_pool_weights_choose_bots_and_learner_seats():
    from training.selfplay import SelfPlayEnv

    overrides = {"bots": ["greedy", "random"], "bot_weights": [3, 1], "seat_weights": [1, 3],
                 "p_bots": 1.0, "p_latest": 0.0, "p_past": 0.0}  # fmt: skip
    config = parse_config({"pool": overrides})
    env = SelfPlayEnv(2, 200, config.pool, config.network, seed=1)
    seats, bots = [], []
    for k in range(400):
        _, info = env.reset(seed=1 if k == 0 else None)
        seats.append(env.unwrapped.seat)
        bots.append(info["opponents"][0])
    assert 0.65 < seats.count(2) / 400 < 0.85  # N, weighted 3:1 against S
    assert 0.65 < bots.count("greedy") / 400 < 0.85


def play_turn(agent, state, seed: int = 0) -> None:
    """Let ``agent`` play the rest of the current turn on ``state`` (in place)."""
    from splut_env.encoding import action_to_step_id

    agent.reset(seed=seed)
    turn = state.turn
    while state.turn == turn and not state.is_over():
        state.apply(action_to_step_id(state.to_move, agent.act(state)))


def test_shield_takes_kills_and_avoids_walking_into_one():
    """Over seeded random positions, a whole turn of the shielded agent kills when a turn
    can kill, and otherwise ends safe whenever some turn does."""
    from splut_env.bots import exposed, turn_outcomes
    from splut_env.engine import State
    from splut_env.policy import ShieldedAgent

    agent = make_agent("checkpoints/splut_2p.zip:shield")
    assert isinstance(agent, ShieldedAgent) and agent.name == "splut_2p.zip:shield"
    rng = np.random.default_rng(3)
    checked = {"kill": 0, "safe": 0}
    for game in range(40):
        state = State.initial(2)
        for _ in range(int(rng.integers(4, 40))):
            if state.is_over():
                break
            state.apply(int(rng.choice(state.legal_ids())))
        if state.is_over():
            continue
        seat = state.to_move
        outcomes = [st for _, st in turn_outcomes(state)]
        can_kill = any(st.alive_seats() == [seat] for st in outcomes)
        can_be_safe = any(not exposed(st, seat) for st in outcomes)
        play_turn(agent, state, seed=game)
        if can_kill:
            checked["kill"] += 1
            assert state.is_over() and state.winner() == seat
        elif can_be_safe:
            checked["safe"] += 1
            assert not exposed(state, seat)
    assert checked["kill"] >= 3 and checked["safe"] >= 10, checked


def test_shield_plays_a_forced_win_in_two_turns():
    """Where a turn can leave the opponent only replies after which we kill (found in
    seeded greedy games: greedy's own turn did), the shielded agent's turn does too, and
    its next turn kills whatever greedy replies."""
    from splut_env.bots import forced_win

    shielded, forced = make_agent("checkpoints/splut_2p.zip:shield"), 0
    for start, end in greedy_turns():
        seat = start.to_move
        if not forced_win(end, seat):
            continue
        forced += 1
        state = start.copy()
        play_turn(shielded, state)
        assert not state.is_over() and forced_win(state, seat), rules.to_spn(start)
        play_turn(make_agent("greedy", seed=0), state)
        play_turn(shielded, state)
        assert state.winner() == seat, rules.to_spn(start)
    assert forced >= 2


def test_learner_vec_env_serves_the_true_action_masks():
    from training.train import make_vec_env

    config = load_config(ROOT / "configs" / "smoke.yaml", ["n_envs=2"])
    clock = {"env": 0.0}
    vec = make_vec_env(config, clock)
    try:
        processes = vec.venv.venv  # under the monitor and the learner wrapper
        rng = np.random.default_rng(0)
        vec.reset()
        dones = 0
        for _ in range(150):
            served = np.stack(vec.env_method("action_masks"))
            true = np.stack(processes.env_method("action_masks"))
            assert np.array_equal(served, true)
            actions = [rng.choice(np.flatnonzero(mask)) for mask in true]
            dones += int(vec.step(np.array(actions))[2].sum())
        assert dones >= 2 and clock["env"] > 0  # masks checked across episode resets
    finally:
        vec.close()
