"""The RLlib path's warm start, checkpoints and resume (``training.rllib``,
:mod:`training.rllib_resume`): the warm start runs in the driver and its weights reach the
learner; a checkpoint (safe files, signed) and a player file after every iteration; a resumed
run goes on from the saved weights, optimizer, league and counters; tampered, missing and
foreign files are refused by name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import ray
import torch
from conftest import small_league
from safetensors.torch import load_file

from splut_env.envs.match import play_game
from splut_env.players import make_agent
from splut_env.players.checkpoint import load_agent
from splut_env.players.network import NetworkShape, build_policy
from training import manifest
from training.config import ConfigError, RLlibConfig, parse_config
from training.rllib import (
    learner_module_id,
    main,
    resume_config,
    train,
    warm_start_weights,
)
from training.rllib_resume import CHECKPOINT_FILES, verified_checkpoint
from training.rllib_vector import pool_callback

SMALL = {"channels": 8, "blocks": 1, "features_dim": 32}
PRETRAIN = {"games": 4, "epochs": 1, "batch_size": 64, "teacher": "greedy"}


def small_config(**extra) -> RLlibConfig:
    """One env runner stepping 8 games, 200 env steps per iteration, a checkpoint after each."""
    return parse_config(
        {
            "env_runner": "batched",
            "num_envs_per_env_runner": 8,
            "num_env_runners": 1,
            "iterations": 2,
            "checkpoint_every": 1,
            "max_turns": 60,
            "shaping": 0.2,
            "ppo": {"n_steps": 200, "batch_size": 100, "n_epochs": 1},
            "network": SMALL,
            "league": small_league(150),
            "pretrain": PRETRAIN,
            "eval_games": 0,
            **extra,
        },
        RLlibConfig,
    )


def policy_weights(algorithm, module_id) -> dict[str, torch.Tensor]:
    """The learner's policy weights (a copy)."""

    def weights(learner):
        state = learner.module[module_id].policy.state_dict()
        return {k: v.detach().clone() for k, v in state.items()}

    return next(iter(algorithm.learner_group.foreach_learner(weights))).get()


def same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def key_file(tmp_path_factory):
    """This module's signing key (not the user's)."""
    key = tmp_path_factory.mktemp("key") / "run.key"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPLUT_ENV_KEY_FILE", str(key))
        yield key


@pytest.fixture(scope="module")
def local_ray(key_file):
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def run(local_ray, tmp_path_factory):
    """Two iterations from the warm start, a checkpoint after each: (run folder, facts, the
    warm start's weights, the learner's weights before the first iteration)."""
    config = small_config()
    start = warm_start_weights(config)
    seen = {}
    out = tmp_path_factory.mktemp("rllib") / "run"

    def before(algorithm):
        seen["weights"] = policy_weights(algorithm, learner_module_id(config))

    facts = train(config, out, progress=False, start=start, before_training=before)
    return out, facts, start[0], seen["weights"]


# --- the warm start --------------------------------------------------------------------


def test_the_warm_start_fits_the_teacher_and_is_seeded():
    config = small_config()
    weights, metrics = warm_start_weights(config)
    torch.manual_seed(config.seed)
    fresh = build_policy(NetworkShape(**SMALL)).state_dict()
    assert weights.keys() == fresh.keys()
    assert not same(weights, fresh)
    assert 0 < metrics["accuracy"] <= 1 and metrics["samples"][0] > 100
    again, _ = warm_start_weights(config)
    assert same(weights, again)


def test_the_run_starts_from_the_warm_start(run):
    _, facts, start, before = run
    assert same(before, start)
    assert facts["pretrain"]["accuracy"] > 0


# --- checkpoints -------------------------------------------------------------------------


def test_every_iteration_writes_a_signed_checkpoint_and_a_player(run):
    out, facts, _, _ = run
    folders = sorted((out / "checkpoints").iterdir())
    assert [f.name for f in folders] == ["iter_000001", "iter_000002"]
    assert facts["checkpoints"] == [str(f) for f in folders]
    steps = []
    for folder in folders:
        signed = manifest.verify(folder)
        assert set(signed["files"]) == set(CHECKPOINT_FILES)
        assert signed["trainer"] == "rllib" and signed["game"] == "splut"
        counters = json.loads((folder / "trainer.json").read_text())
        steps.append(counters["env_steps"])
        assert counters["iteration"] == int(folder.name[5:])
        agent = load_agent(folder / "player.zip")
        assert agent.policy.state_dict().keys() == load_file(folder / "module.safetensors").keys()
        record = play_game([agent, make_agent("random")], seed=0, max_turns=60)
        assert record.turns >= 1
    assert 0 < steps[0] < steps[1] == facts["env_steps"]
    latest = (folders[-1] / "player.zip").read_bytes()
    assert (out / "player.zip").read_bytes() == latest
    exported = load_agent(out / "player.zip").policy.state_dict()
    assert same(exported, load_file(folders[-1] / "module.safetensors"))
    assert not list(out.glob(".*.tmp")) and not list((out / "checkpoints").glob("*.tmp"))
    pool = json.loads((folders[-1] / "pool.json").read_text())["labels"]
    assert pool[0] == "self@0" and pool == facts["league"]


# --- resume ------------------------------------------------------------------------------


def test_a_resumed_run_goes_on_from_its_checkpoint(run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(run[0], out)
    checkpoint = verified_checkpoint(out)
    assert checkpoint.name == "iter_000002"
    saved = json.loads((checkpoint / "trainer.json").read_text())
    config = resume_config(checkpoint, ["iterations=3"])
    seen = {}

    def before(algorithm):
        module_id = learner_module_id(config)
        seen["weights"] = policy_weights(algorithm, module_id)
        seen["runner"] = algorithm.env_runner_group.foreach_env_runner(
            lambda runner: {k: v.clone() for k, v in runner.module.policy.state_dict().items()},
            local_env_runner=False,
        )[0]

        def optimizer(learner):
            state = learner.get_optimizer(module_id).state_dict()
            return {i: {k: v.clone() for k, v in s.items()} for i, s in state["state"].items()}

        seen["optimizer"] = next(iter(algorithm.learner_group.foreach_learner(optimizer))).get()
        seen["pool"] = pool_callback(algorithm).pool.labels()

    facts = train(config, out, progress=False, resume=checkpoint, before_training=before)
    module = load_file(checkpoint / "module.safetensors")
    assert same(seen["weights"], module) and same(seen["runner"], module)
    stored = load_file(checkpoint / "optimizer.safetensors")
    loaded = {f"{i}/{k}": v for i, values in seen["optimizer"].items() for k, v in values.items()}
    assert stored and same(loaded, stored)
    assert seen["pool"] == json.loads((checkpoint / "pool.json").read_text())["labels"]
    assert facts["resumed_from"] == 2 and facts["iterations"] == 3
    assert facts["env_steps"] > saved["env_steps"]
    counters = json.loads((out / "checkpoints/iter_000003/trainer.json").read_text())
    assert counters["iteration"] == 3 and counters["env_steps"] == facts["env_steps"]
    assert facts["pretrain"] == saved["pretrain"]  # the warm start is not run again
    assert not same(load_file(out / "checkpoints/iter_000003/module.safetensors"), module)


def test_resume_refuses_changed_missing_and_foreign_files(run, tmp_path, key_file, capsys):
    out = tmp_path / "run"
    shutil.copytree(run[0], out)
    latest = out / "checkpoints/iter_000002"
    weights = latest / "module.safetensors"
    original = weights.read_bytes()
    data = bytearray(original)
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    with pytest.raises(manifest.ManifestError, match=r"module\.safetensors changed"):
        verified_checkpoint(out)
    with pytest.raises(SystemExit):
        main(["--resume", str(out), "iterations=3"])
    assert "module.safetensors changed" in capsys.readouterr().err
    weights.write_bytes(original)
    assert verified_checkpoint(out) == latest
    (latest / "optimizer.json").unlink()
    with pytest.raises(manifest.ManifestError, match=r"'optimizer\.json' listed in manifest\.json"):
        verified_checkpoint(latest)
    # The first checkpoint is intact; signed with another key, only --trust-checkpoint reads it.
    first = out / "checkpoints/iter_000001"
    assert verified_checkpoint(first) == first
    other = tmp_path / "other.key"
    other.write_text("0" * 64)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPLUT_ENV_KEY_FILE", str(other))
        with pytest.raises(manifest.ManifestError, match="no pickle"):
            verified_checkpoint(first)
        assert verified_checkpoint(first, trust=True) == first
    with pytest.raises(FileNotFoundError, match="no checkpoint in"):
        verified_checkpoint(tmp_path)
    with pytest.raises(ConfigError, match="network cannot change"):
        resume_config(first, ["network.channels=4"])
    with pytest.raises(SystemExit):
        main(["--resume", str(first), "--config", "configs/splut/rllib_2p.yaml"])
    assert "either --config or --resume" in capsys.readouterr().err


def test_the_multi_agent_league_is_saved_and_resumed(local_ray, tmp_path):
    """The one-game env runner (``env_runner: multi_agent``): a snapshot module after each
    iteration, the oldest dropped; the resumed run has the saved snapshot module, with its
    weights, before it trains, and goes on numbering them."""
    config = small_config(
        env_runner="multi_agent",
        pretrain={"games": 0},
        checkpoint_every=2,
        ppo={"n_steps": 300, "batch_size": 300, "n_epochs": 1},
        league={
            "p_latest": 0.4,
            "p_past": 0.4,
            "p_bots": 0.2,
            "bots": ["random"],
            "win_rate": 0.0,  # a snapshot after every iteration
            "min_games": 1,
            "max_snapshots": 1,
        },
    )
    out = tmp_path / "run"
    facts = train(config, out, progress=False)
    assert facts["modules"] == [["main", "snapshot_2"]] and facts["league_size"] == 1
    assert facts["illegal_actions"] == 0 and facts["env_steps"] >= 600
    checkpoint = verified_checkpoint(out)
    assert checkpoint.name == "iter_000002"
    seen = {}

    def before(algorithm):
        seen["modules"] = algorithm.env_runner_group.foreach_env_runner(
            lambda runner: sorted(runner.module.keys()), local_env_runner=False
        )
        seen["snapshot"] = policy_weights(algorithm, "snapshot_2")
        seen["main"] = policy_weights(algorithm, "main")

    resumed = train(
        resume_config(checkpoint, ["iterations=3"]),
        out,
        progress=False,
        resume=checkpoint,
        before_training=before,
    )
    assert seen["modules"] == [["main", "snapshot_2"]]
    stored = load_file(checkpoint / "pool.safetensors")
    assert same(seen["snapshot"], {k[2:]: v for k, v in stored.items()})
    assert same(seen["main"], load_file(checkpoint / "module.safetensors"))
    assert resumed["modules"] == [["main", "snapshot_3"]] and resumed["iterations"] == 3
    assert resumed["env_steps"] >= facts["env_steps"] + 300


# --- the config --------------------------------------------------------------------------


def test_the_warm_start_and_checkpoint_settings_are_checked(tmp_path):
    shipped = parse_config({"pretrain": {"games": 3000}}, RLlibConfig)
    assert shipped.pretrain.games == 3000 and shipped.checkpoint_every >= 1
    for bad, expected in [
        ({"init_from": "start.zip", "pretrain": {"games": 5}}, "set pretrain.games=0"),
        ({"pretrain": {"explore": 1.5}}, "pretrain.explore must be between 0 and 1"),
        ({"pretrain": {"teacher": "nobody"}}, "unknown bot"),
        ({"pretrain": {"epochs": 0}}, "pretrain.epochs must be at least 1"),
        ({"pretrain": {"games": -1}}, "pretrain.games must be at least 0"),
        ({"pretrain": {"soft": True}}, "pretrain.soft"),
        ({"checkpoint_every": 0}, "checkpoint_every must be at least 1"),
        ({"pretrain": {"epoch": 2}}, "pretrain.epoch"),
    ]:
        with pytest.raises(ConfigError, match=expected):
            parse_config(bad, RLlibConfig)


def test_the_shipped_config_is_the_batched_one_with_the_warm_start():
    from training.config import load_config

    config = load_config(
        Path(__file__).parent.parent / "configs/splut/rllib_2p.yaml", [], RLlibConfig
    )
    assert config.env_runner == "batched" and config.num_envs_per_env_runner >= 2
    assert config.pretrain.games > 0 and config.pretrain.teacher == "greedy"
    steps = config.iterations * config.ppo.n_steps * config.num_env_runners
    assert 900_000 <= steps <= 1_100_000
