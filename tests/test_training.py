"""Training: configs, checkpoints that load back as players, a smoke run and its resume."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from splut_env import load_agent, make_agent, rules
from splut_env.envs.gym import SplutGymEnv
from splut_env.envs.match import play_game
from splut_env.players.checkpoint import META_NAME, WEIGHTS_NAME, CheckpointError, save_player
from splut_env.players.network import NetworkShape, build_policy
from training import reports
from training.config import ConfigError, load_config, parse_config

ROOT = Path(__file__).resolve().parent.parent


TINY = NetworkShape(channels=8, blocks=1, features_dim=32)


@pytest.fixture(scope="module")
def tiny_policy():
    """A freshly initialised policy (no training), seeded."""
    torch.manual_seed(3)
    return build_policy(TINY)


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory, tiny_policy) -> Path:
    """``tiny_policy`` saved as a player checkpoint."""
    path = tmp_path_factory.mktemp("ckpt") / "tiny.zip"
    return save_player(tiny_policy, path, TINY, num_players=2, max_turns=200, steps=0)


# The configs a user runs (configs/splut/) and each past study's config beside its results
# (results/<study>/config.yaml). The configs of the other trainers are loaded by their own
# tests (test_expert_iteration.py, test_rllib.py); every other one is a PPO config.
OTHER_TRAINERS = {
    "configs/splut/exit_2p.yaml",
    "configs/splut/rllib_2p.yaml",
    "results/rllib_2p/config.yaml",
    "results/exit_2p_trial/config.yaml",
    "results/shield_ft_2p_trial/config.yaml",
    "results/shield_2p_trial/config.yaml",
    "results/shield_3p/config.yaml",
    "results/shield_4p/config.yaml",
}
USER_CONFIGS = sorted(
    p.relative_to(ROOT).as_posix() for p in (ROOT / "configs/splut").glob("*.yaml")
)
STUDY_CONFIGS = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("results/*/config.yaml"))
PPO_CONFIGS = [path for path in USER_CONFIGS + STUDY_CONFIGS if path not in OTHER_TRAINERS]


@pytest.mark.parametrize("config", PPO_CONFIGS)
def test_shipped_configs_are_valid(config):
    cfg = load_config(ROOT / config)
    assert cfg.total_steps > 0
    if cfg.init_from and config.startswith("configs/"):  # a user's start is shipped
        assert (ROOT / cfg.init_from).is_file(), cfg.init_from


def test_every_ppo_config_is_checked():
    assert {"configs/splut/default.yaml", "configs/splut/smoke.yaml"} <= set(PPO_CONFIGS)
    assert "results/finetune_2p_stage4/config.yaml" in PPO_CONFIGS
    assert len(PPO_CONFIGS) >= 11


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
        ({"pool": {"player_weights": [1, 2, 3]}}, "pool.player_weights must have one weight per"),
        ({"pool": {"bot_weights": [1]}}, "pool.bot_weights must have one weight per entry"),
        ({"pool": {"bot_weights": [0, 0]}}, "non-negative with a positive sum"),
        ({"pool": {"bot_weights": ["a", 1]}}, "pool.bot_weights must be a list of finite numbers"),
        ({"pool": {"bot_weights": [float("nan"), 1]}}, "pool.bot_weights must be a list of finite"),
        (
            {"pool": {"player_weights": [float("inf"), 1]}},
            "pool.player_weights must be a list of finite",
        ),
        ({"pool": {"bot_weights": [-1, 2]}}, "non-negative with a positive sum"),
        ({"ppo": {"learning_rate": float("nan")}}, "ppo.learning_rate must be a finite number"),
        ({"ppo": {"learning_rate": float("inf")}}, "ppo.learning_rate must be a finite number"),
        ({"ppo": {"clip_range": -0.2}}, "ppo.clip_range must be positive"),
        ({"ppo": {"clip_range": float("nan")}}, "ppo.clip_range must be a finite number"),
        ({"ppo": {"ent_coef": -0.01}}, "ppo.ent_coef must be at least 0"),
        ({"ppo": {"vf_coef": float("-inf")}}, "ppo.vf_coef must be a finite number"),
        ({"ppo": {"max_grad_norm": 0}}, "ppo.max_grad_norm must be positive"),
        ({"ppo": {"gamma": float("nan")}}, "ppo.gamma must be a finite number"),
        ({"pretrain": {"learning_rate": -1e-3}}, "pretrain.learning_rate must be positive"),
        ({"reward": {"shaping": float("nan")}}, "reward.shaping must be a finite number"),
        ({"reward": {"shaping": -1}}, "reward.shaping must be at least 0"),
        ({"pool": {"p_bots": float("nan")}}, "pool.p_bots must be a finite number"),
        ({"seed": -1}, "seed must be from 0"),
        ({"name": "../x"}, "name must be 1-100 letters"),
        ({"name": ".hidden"}, "name must be 1-100 letters"),
        ({"name": "a/b"}, "name must be 1-100 letters"),
        ({"max_turns": 10**9}, "max_turns must be at most"),
        ({"network": {"policy_head": "conv"}}, "network.policy_head must be one of linear, steps"),
        ({"network": {"inputs": "rays"}}, "network.inputs must be one of planes, lines"),
        ({"network": {"stem": 5}}, r"network.stem \(the first convolution's kernel\) must be"),
        ({"network": {"stem": 1}}, "network.stem must be 3 for Splut!"),
        ({"pretrain": {"soft": True}}, r"pretrain.soft \(distillation of a network teacher\)"),
        (
            {"game": "talat", "pretrain": {"soft": True, "teacher": "search:easy"}},
            r"pretrain.teacher must be a player file \(\*.zip\), got 'search:easy'",
        ),
        ({"opening_steps": -2}, "opening_steps must be at least 0"),
        ({"eval": {"openings": -1}}, "eval.openings must be at least 0"),
        ({"num_players": 3, "eval": {"ladder": {"greedy": 710}}}, "eval.ladder holds 2-player"),
        ({"eval": {"ladder": {"nobody": 1}}}, "eval.ladder: unknown bot 'nobody'"),
        ({"eval": {"ladder": {"search:hard": 972}}}, r"none of \['search:hard'\] is in eval.bots"),
        ({"eval": {"ladder": {"greedy": "high"}}}, "eval.ladder must map names to finite numbers"),
        ({"init_value": "new"}, "init_value must be one of auto, keep, fresh, got 'new'"),
        ({"perception": {"fraction": 1.5}}, "perception.fraction must be between 0 and 1"),
        ({"perception": {"epochs": 0}}, "perception.epochs must be at least 1"),
        ({"perception": {"batch_size": 0}}, "perception.batch_size must be at least 1"),
        ({"perception": {"fractions": 1}}, "unknown field 'perception.fractions'"),
        (
            {"init_from": "a.zip", "pretrain": {"games": 5}},
            r"init_from \('a.zip'\) starts from a trained network: set "
            "pretrain.games=0",
        ),
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
    cfg = load_config(
        ROOT / "configs" / "splut" / "smoke.yaml", ["total_steps=1024", "ppo.n_epochs=2"]
    )
    assert (cfg.total_steps, cfg.ppo.n_epochs) == (1024, 2)
    with pytest.raises(ConfigError, match="expected key=value"):
        load_config(ROOT / "configs" / "splut" / "smoke.yaml", ["total_steps"])
    with pytest.raises(
        ConfigError, match=r"override 'total_steps=\[': the value is not valid YAML"
    ):
        load_config(ROOT / "configs" / "splut" / "smoke.yaml", ["total_steps=["])
    with pytest.raises(ConfigError, match=r"ppo\.learning_rate must be a finite number"):
        load_config(ROOT / "configs" / "splut" / "smoke.yaml", ["ppo.learning_rate=.nan"])
    for text in ("- 1\n- 2\n", "42\n", "just text\n"):
        bad.write_text(text)
        with pytest.raises(ConfigError, match="must hold a mapping of fields"):
            load_config(bad)
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path)  # a folder
    with pytest.raises(ConfigError, match="larger than"):
        load_config("/dev/zero")


def test_checkpoint_loads_back_and_gives_the_same_actions(tiny_checkpoint, tiny_policy):
    agent = load_agent(str(tiny_checkpoint), num_players=2)
    again = make_agent(str(tiny_checkpoint))
    rng = np.random.default_rng(0)
    state = rules.initial_state(2)
    for _ in range(40):
        obs = {"observation": _planes(state), "action_mask": _mask(state)}
        action = agent.act(state, obs)
        expected, _ = tiny_policy.predict(obs["observation"], deterministic=True,
                                          action_masks=obs["action_mask"].astype(bool))  # fmt: skip
        assert action == int(expected) == again.act(state, obs)
        state.apply(int(rng.choice(state.legal_ids())))
        if state.is_over():
            state = rules.initial_state(2)
    loaded = agent.policy.state_dict()
    assert all(torch.equal(loaded[k], v) for k, v in tiny_policy.state_dict().items())
    assert agent.meta["steps"] == 0 and agent.meta["network"]["channels"] == 8


def _planes(state):
    from splut_env.encoding import observation_planes

    return observation_planes(state, state.to_move, 200)


def _mask(state):
    from splut_env.encoding import action_mask

    return action_mask(state, state.to_move)


def test_player_checkpoint_holds_json_and_safetensors_only(tiny_checkpoint):
    with zipfile.ZipFile(tiny_checkpoint) as zf:
        assert zf.namelist() == [META_NAME, WEIGHTS_NAME]
        meta = json.loads(zf.read(META_NAME))
        weights = zf.read(WEIGHTS_NAME)
    assert meta["format"] == "splut-env-player" and meta["num_players"] == 2
    header_size = int.from_bytes(weights[:8], "little")  # safetensors: a JSON header, then data
    assert json.loads(weights[8 : 8 + header_size])["action_net.weight"]["shape"] == [196, 32]


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
    assert_whole_game(record, 2)


def assert_whole_game(record, players: int) -> None:
    """A finished (won or truncated) game whose logged steps replay to its final position."""
    from splut_env.envs.gamelog import positions

    states = positions(record.start_spn, record.steps)
    assert rules.to_spn(states[-1]) == record.final_spn and len(states[0].seats) == players
    assert states[-1].is_over() or states[-1].turn > 200
    assert sum(record.decisions) == len(record.steps) > 0


def _rewrite(source: Path, target: Path, change) -> Path:
    """Copy a checkpoint with ``change(name, bytes) -> bytes | None`` applied to every
    member (``None`` drops it)."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as dst:
        for info in src.infolist():
            data = change(info.filename, src.read(info))
            if data is not None:
                dst.writestr(info.filename, data)
    return target


def _with_meta(source: Path, target: Path, **changes) -> Path:
    def change(name, data):
        if name != META_NAME:
            return data
        meta = json.loads(data)
        meta.update(changes)
        return json.dumps(meta).encode()

    return _rewrite(source, target, change)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"max_turns": None}, "max_turns must be a whole number from 1"),
        ({"max_turns": "200"}, "max_turns must be a whole number from 1"),
        ({"max_turns": 0}, "max_turns must be a whole number from 1"),
        ({"max_turns": -5}, "max_turns must be a whole number from 1"),
        ({"num_players": 5}, "num_players must be 2, 3 or 4"),
        ({"num_players": True}, "num_players must be 2, 3 or 4"),
        ({"layout_version": 0}, "layout 0"),
        ({"format": "splut-env-policy"}, "old-format checkpoint"),
        ({"format_version": 3}, "unknown checkpoint format"),
        ({"network": {"channels": 10**6, "blocks": 1, "features_dim": 32, "value_hidden": [64]}},
         "network.channels must be a whole number from 1 to 256"),
        ({"network": {"channels": 16, "blocks": 1, "features_dim": 32, "value_hidden": [64]}},
         "does not match the network"),
        ({"network": "big"}, "'network' must be an object"),
        ({"network": {"channels": 8, "blocks": 1, "features_dim": 32, "value_hidden": [64],
                      "policy_head": "conv"}}, "network.policy_head must be one of linear, steps"),
        ({"network": {"channels": 8, "blocks": 1, "features_dim": 32, "value_hidden": [64],
                      "policy_head": "steps"}}, "does not match the network"),
        ({"network": {"channels": 8, "blocks": 1, "features_dim": 32, "value_hidden": [64],
                      "inputs": "rays"}}, "network.inputs must be one of planes, lines"),
        ({"network": {"channels": 8, "blocks": 1, "features_dim": 32, "value_hidden": [64],
                      "inputs": "lines"}}, "does not match the network"),
    ],
)  # fmt: skip
def test_bad_metadata_is_named(tmp_path, tiny_checkpoint, changes, message):
    bad = _with_meta(tiny_checkpoint, tmp_path / "bad.zip", **changes)
    with pytest.raises(CheckpointError, match=message):
        load_agent(str(bad))


def test_bad_checkpoint_files_are_named(tmp_path, tiny_checkpoint):
    with pytest.raises(CheckpointError, match="does not exist"):
        load_agent(str(tmp_path / "none.zip"))
    with pytest.raises(CheckpointError, match="is a folder"):
        load_agent(str(tmp_path))
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip at all")
    with pytest.raises(CheckpointError, match="not a readable zip"):
        load_agent(str(junk))
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(tiny_checkpoint.read_bytes()[:5000])
    with pytest.raises(CheckpointError, match="not a readable zip"):
        load_agent(str(truncated))
    listed = _rewrite(
        tiny_checkpoint, tmp_path / "list.zip", lambda n, d: b"[1, 2]" if n == META_NAME else d
    )
    with pytest.raises(CheckpointError, match="must hold a JSON object"):
        load_agent(str(listed))
    text = _rewrite(
        tiny_checkpoint, tmp_path / "text.zip", lambda n, d: b"{nope" if n == META_NAME else d
    )
    with pytest.raises(CheckpointError, match="is not valid JSON"):
        load_agent(str(text))
    noisy = _rewrite(
        tiny_checkpoint, tmp_path / "noisy.zip", lambda n, d: d[:100] if n == WEIGHTS_NAME else d
    )
    with pytest.raises(CheckpointError, match=r"policy\.safetensors is damaged"):
        load_agent(str(noisy))
    missing = _rewrite(
        tiny_checkpoint, tmp_path / "missing.zip", lambda n, d: None if n == WEIGHTS_NAME else d
    )
    with pytest.raises(CheckpointError, match="holds exactly"):
        load_agent(str(missing))
    with pytest.raises(CheckpointError, match="trained for 2 players, not 4"):
        load_agent(str(tiny_checkpoint), num_players=4)
    with pytest.raises(ValueError, match="trained for 2 players and cannot play at a table of 3"):
        play_game([make_agent(str(tiny_checkpoint))] + [make_agent("random")] * 2, seed=0)


def _flag_member(
    source: Path, target: Path, *, flag_bits: int = 0, method: int | None = None
) -> Path:
    """``source`` with every member's general-purpose flags or compression method (in both
    the local and the central headers) overwritten."""
    data = bytearray(source.read_bytes())
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        while at >= 0:
            data[at + flag_at : at + flag_at + 2] = flag_bits.to_bytes(2, "little")
            if method is not None:
                data[at + flag_at + 2 : at + flag_at + 4] = method.to_bytes(2, "little")
            at = data.find(signature, at + 4)
    target.write_bytes(bytes(data))
    return target


def test_encrypted_or_strangely_compressed_members_are_refused(tmp_path, tiny_checkpoint):
    encrypted = _flag_member(tiny_checkpoint, tmp_path / "encrypted.zip", flag_bits=1)
    with pytest.raises(CheckpointError, match="is encrypted"):
        load_agent(str(encrypted))
    lzma = _flag_member(tiny_checkpoint, tmp_path / "method.zip", method=99)
    with pytest.raises(CheckpointError, match="compression method 99"):
        load_agent(str(lzma))


def test_old_format_checkpoints_are_refused_with_the_conversion_command(tmp_path):
    old = tmp_path / "old.zip"
    with zipfile.ZipFile(old, "w") as zf:
        zf.writestr("data", "{}")
        zf.writestr("policy.pth", b"")
        zf.writestr(META_NAME, json.dumps({"format": "splut-env-policy"}))
    with pytest.raises(CheckpointError, match=r"python -m training\.convert OLD\.zip NEW\.zip"):
        load_agent(str(old))


def test_convert_reads_old_files_whose_pickle_names_a_module_that_is_gone(tmp_path):
    """0.1/0.2 files pickle the network's class under its old module path; the conversion
    reads the shape from the weights and converts them unchanged."""
    import types

    from stable_baselines3.common.save_util import load_from_zip_file, save_to_zip_file

    from training.convert import convert

    gone = types.ModuleType("splut_env_gone")
    gone.BoardNet = type("BoardNet", (), {"__module__": "splut_env_gone"})
    shape = NetworkShape(channels=8, blocks=2, features_dim=32, value_hidden=(16, 8))
    policy = build_policy(shape)
    old, new = tmp_path / "old.zip", tmp_path / "new.zip"
    sys.modules["splut_env_gone"] = gone
    try:
        kwargs = {"features_extractor_class": gone.BoardNet}
        save_to_zip_file(
            old, data={"policy_kwargs": kwargs}, params={"policy": policy.state_dict()}
        )
    finally:
        del sys.modules["splut_env_gone"]
    with zipfile.ZipFile(old, "a") as zf:
        meta = {"format": "splut-env-policy", "num_players": 2, "max_turns": 200, "steps": 7}
        zf.writestr(META_NAME, json.dumps(meta))
    with pytest.raises(ModuleNotFoundError, match="splut_env_gone"):
        load_from_zip_file(old, device="cpu")  # what a plain load of such a file does
    convert(old, new)
    loaded = load_agent(str(new))
    assert loaded.meta["network"]["value_hidden"] == [16, 8] and loaded.meta["steps"] == 7
    for name, tensor in policy.state_dict().items():
        assert torch.equal(loaded.policy.state_dict()[name], tensor), name


def run_train(*args: str, key: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m training.train`` with ``key`` as the run-signing key file."""
    env = dict(os.environ)
    if key is not None:
        env["SPLUT_ENV_KEY_FILE"] = str(key)
    return subprocess.run(
        [sys.executable, "-m", "training.train", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


def test_smoke_training_then_resume_continues_the_counter_and_pool(tmp_path):
    runs, key = tmp_path / "runs", tmp_path / "run.key"
    first = run_train(
        "--config", "configs/splut/smoke.yaml", "--runs", str(runs), "total_steps=256", key=key
    )
    assert first.returncode == 0, first.stderr[-3000:]
    (run_dir,) = runs.iterdir()
    # Training is deterministic for a seed: a second run gives the same weights.
    # The rating on a fixed ladder changes nothing but the reports.
    ladder = "eval.ladder={random: 0, greedy: 710}"
    again = run_train(
        "--config",
        "configs/splut/smoke.yaml",
        "--runs",
        str(tmp_path / "again"),
        "total_steps=256",
        ladder,
        key=key,
    )
    assert again.returncode == 0, again.stderr[-3000:]
    (rated,) = (tmp_path / "again").iterdir()
    with open(rated / "eval.csv") as f:
        ratings = [float(row["rating"]) for row in csv.DictReader(f)]
    assert len(ratings) >= 2 and all(-2000 < r < 2710 for r in ratings)
    assert (
        "Rating on the fixed ladder (random 0, greedy 710): "
        in (rated / "MODEL_CARD.md").read_text()
    )
    weights = [
        load_agent(str(next((folder).iterdir()) / "player.zip")).policy.state_dict()
        for folder in (runs, tmp_path / "again")
    ]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    for name in (
        "config.yaml",
        "versions.json",
        "player.zip",
        "MODEL_CARD.md",
        "learning_curve.png",
    ):
        assert (run_dir / name).is_file(), name
    assert "| random |" in (run_dir / "MODEL_CARD.md").read_text()
    checkpoint = run_dir / "checkpoints" / "step_0000000256"
    state = json.loads((checkpoint / "trainer.json").read_text())
    assert state["steps"] == 256
    assert sorted(json.loads((checkpoint / "manifest.json").read_text())["files"]) == [
        "model.zip", "player.zip", "pool.json", "pool.safetensors", "trainer.json"
    ]  # fmt: skip
    # Each checkpoint holds its policy as a player file.
    assert load_agent(str(checkpoint / "player.zip")).meta["steps"] == 256

    # A run folder signed with another key (written elsewhere), or changed since, is refused
    # before anything is unpickled.
    foreign = run_train("--resume", str(run_dir), "total_steps=512", key=tmp_path / "other.key")
    assert foreign.returncode == 2 and "not written by a run of this user" in foreign.stderr
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    (copy / "checkpoints" / "step_0000000256" / "trainer.json").write_text('{"steps": 1}')
    changed = run_train("--resume", str(copy), key=key)
    assert (
        changed.returncode == 2 and "trainer.json changed since the run wrote it" in changed.stderr
    )

    second = run_train("--resume", str(run_dir), "total_steps=512", key=key)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "resumed from" in second.stdout and "at step 256" in second.stdout
    last = json.loads((run_dir / "checkpoints" / "step_0000000512" / "trainer.json").read_text())
    assert last["steps"] == 512 and [e["steps"] for e in last["evals"]][1:] == [256, 512]
    split = last["time_split"]  # seconds, summed over both runs
    assert set(split) == {"env", "inference", "learn", "evaluate"}
    assert all(v > 0 for v in split.values()) and split["env"] > state["time_split"]["env"]
    assert (
        "- self-play time: games (rules, opponents, shaping)"
        in (run_dir / "MODEL_CARD.md").read_text()
    )
    pool = json.loads((run_dir / "checkpoints" / "step_0000000512" / "pool.json").read_text())
    assert pool["labels"][0] == "self@0" and "self@384" in pool["labels"]
    agent = load_agent(str(run_dir / "player.zip"))
    assert agent.meta["steps"] == 512 and agent.meta["run"] == "smoke"

    # The last two checkpoints' players average into one network, parameter by parameter.
    players = sorted((run_dir / "checkpoints").glob("step_*/player.zip"))
    averaged = subprocess.run(
        [sys.executable, "-m", "training.average", *map(str, players), "--last", "2",
         "--out", str(tmp_path / "avg.zip")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert averaged.returncode == 0, averaged.stderr[-3000:]
    assert "averaged 2 networks" in averaged.stdout
    assert len(players) >= 2
    ends = [load_agent(str(p)).policy.state_dict() for p in players[-2:]]
    mean = load_agent(str(tmp_path / "avg.zip"))
    assert mean.meta["averaged_from"] == [str(p) for p in players[-2:]]
    for name, tensor in mean.policy.state_dict().items():
        assert torch.allclose(tensor, (ends[0][name] + ends[1][name]) / 2, atol=1e-6), name
    assert not torch.equal(ends[0]["action_net.weight"], ends[1]["action_net.weight"])


def test_average_refuses_networks_of_other_shapes_and_bad_arguments(tmp_path, tiny_checkpoint):
    from training.average import average, main

    torch.manual_seed(4)
    wider = NetworkShape(channels=16, blocks=1, features_dim=32)
    other = save_player(build_policy(wider), tmp_path / "wider.zip", wider, 2, 200)
    with pytest.raises(CheckpointError, match=r"wider\.zip'.*network is .*only networks of one"):
        average([tiny_checkpoint, other], tmp_path / "out.zip")
    with pytest.raises(ValueError, match="at least one"):
        average([], tmp_path / "out.zip")
    # A network averaged with itself is itself.
    same = load_agent(str(average([tiny_checkpoint] * 2, tmp_path / "same.zip"))).policy
    original = load_agent(str(tiny_checkpoint)).policy.state_dict()
    assert all(torch.equal(t, original[k]) for k, t in same.state_dict().items())
    with pytest.raises(SystemExit) as stop:
        main([str(tiny_checkpoint), "--last", "0", "--out", str(tmp_path / "x.zip")])
    assert stop.value.code == 2
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "missing.zip"), "--out", str(tmp_path / "x.zip")])
    assert stop.value.code == 2 and not (tmp_path / "x.zip").exists()


def test_smoke_training_with_a_perception_phase_after_every_update(tmp_path):
    runs = tmp_path / "runs"
    result = run_train(
        "--config",
        "configs/splut/smoke.yaml",
        "--runs",
        str(runs),
        "total_steps=256",
        "perception.fraction=1.0",
        key=tmp_path / "run.key",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (run_dir,) = runs.iterdir()
    state = json.loads((run_dir / "checkpoints" / "step_0000000256" / "trainer.json").read_text())
    assert state["time_split"]["perception"] > 0
    assert "perception phases (tier labels and fits)" in (run_dir / "MODEL_CARD.md").read_text()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (folder,) = {path.parent for path in (run_dir / "tb").rglob("events.out.tfevents.*")}
    scalars = EventAccumulator(str(folder))
    scalars.Reload()
    positions = [e.value for e in scalars.Scalars("perception/positions")]
    assert positions and all(p > 0 for p in positions)


def test_train_command_line_errors():
    result = run_train("--config", "configs/nothing.yaml")
    assert result.returncode == 2 and "cannot read config" in result.stderr
    result = run_train("--config", "configs/splut/smoke.yaml", "ppo.gamma=2")
    assert result.returncode == 2 and "ppo.gamma must be between 0 and 1" in result.stderr
    result = run_train("--resume", "/nonexistent/run")
    assert result.returncode == 2 and "no checkpoint" in result.stderr


def test_bad_configs_stop_before_the_run_folder_is_made(tmp_path):
    for override, message in [
        ("seed=-1", "seed must be from 0"),
        ("name=../x", "name must be 1-100 letters"),
        ("total_steps=[", "the value is not valid YAML"),
        ("ppo.clip_range=-1", "ppo.clip_range must be positive"),
    ]:
        result = run_train(
            "--config", "configs/splut/smoke.yaml", "--runs", str(tmp_path / "runs"), override
        )
        assert result.returncode == 2 and message in result.stderr, result.stderr[-2000:]
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "runs").exists() and not (tmp_path / "x").exists()


def test_init_from_starts_the_learner_from_a_player_file(tmp_path, tiny_checkpoint, tiny_policy):
    """``init_from``: the new PPO learner holds the file's weights; a file of another shape
    or table size is refused by name, on the command line before a run folder is made."""
    from training.pretrain import start_weights
    from training.train import make_vec_env, new_model

    tiny = {"channels": 8, "blocks": 1, "features_dim": 32}
    config = parse_config({"init_from": str(tiny_checkpoint), "pretrain": {"games": 0},
                           "n_envs": 2, "ppo": {"n_steps": 64, "batch_size": 64},
                           "network": tiny})  # fmt: skip
    model = new_model(config, make_vec_env(config, {"env": 0.0}), tmp_path)
    loaded, source = model.policy.state_dict(), tiny_policy.state_dict()
    assert all(torch.equal(loaded[k], source[k]) for k in source)
    with pytest.raises(ConfigError, match=r"holds a 2-player network .*'channels': 8.*asks for "
                                          r"2 players and .*'channels': 16"):  # fmt: skip
        start_weights(str(tiny_checkpoint), NetworkShape(channels=16, blocks=1, features_dim=32), 2)
    with pytest.raises(ConfigError, match="asks for 3 players"):
        start_weights(str(tiny_checkpoint), TINY, 3)
    result = run_train("--config", "configs/splut/smoke.yaml", "--runs", str(tmp_path / "runs"),
                       f"init_from={tiny_checkpoint}", "pretrain.games=0", "network.channels=16")  # fmt: skip
    assert result.returncode == 2 and "the config asks for 2 players" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "runs").exists()


def test_init_value_starts_a_dead_value_head_fresh(tmp_path, tiny_policy):
    """``init_value``: ``auto`` keeps a living value head and starts a dead one (the same
    value everywhere) fresh; ``keep`` and ``fresh`` do as they say; the tower and policy
    are always the file's."""
    from training.pretrain import VALUE_HEAD, load_start, value_spread

    dead = build_policy(TINY)
    dead.load_state_dict(tiny_policy.state_dict())
    with torch.no_grad():
        dead.mlp_extractor.value_net[0].bias.fill_(-100.0)  # every hidden unit off
    dead_file = save_player(
        dead, tmp_path / "dead.zip", TINY, num_players=2, max_turns=200, steps=0
    )
    live_file = save_player(tiny_policy, tmp_path / "live.zip", TINY, num_players=2, max_turns=200, steps=0)  # fmt: skip
    assert value_spread(dead, 2) < 1e-6 < value_spread(tiny_policy, 2)
    for path, init_value, expected in [
        (dead_file, "auto", "fresh"),
        (live_file, "auto", "keep"),
        (dead_file, "keep", "keep"),
        (live_file, "fresh", "fresh"),
    ]:
        config = parse_config({"init_from": str(path), "init_value": init_value,
                               "pretrain": {"games": 0}, "network": TINY.to_json()})  # fmt: skip
        torch.manual_seed(11)
        learner = build_policy(TINY)
        own = {k: v.clone() for k, v in learner.state_dict().items()}
        assert load_start(learner, config) == expected, (path.name, init_value)
        source = (dead if path == dead_file else tiny_policy).state_dict()
        for name, tensor in learner.state_dict().items():
            start = own if expected == "fresh" and name.startswith(VALUE_HEAD) else source
            assert torch.equal(tensor, start[name]), (path.name, init_value, name)
        assert (value_spread(learner, 2) < 1e-6) == (path == dead_file and expected == "keep")


def test_teacher_games_and_imitation_fit():
    from training.pretrain import fit, generate

    config = parse_config({"pretrain": {"games": 1, "epochs": 60, "batch_size": 64, "learning_rate": 0.01, "explore": 0.0},
                           "network": {"channels": 8, "blocks": 1, "features_dim": 32}})  # fmt: skip
    game = generate(config, progress=False)
    n = len(game["actions"])
    assert game["planes"].shape == (n, 22, 9, 9) and game["masks"].shape == (n, 196)
    assert all(game["masks"][i, a] for i, a in enumerate(game["actions"]))  # teacher is legal
    assert abs(game["values"][-1]) == 1.0  # greedy self-play ends with a winner
    assert set(np.unique(game["planes"])) <= {0, 1} and 0 < game["turns"].max() <= 1
    policy = build_policy(config.network)
    metrics = fit(policy, game, config, progress=False)
    assert metrics["accuracy"] > 0.8  # a small network memorises one game


def test_dagger_rounds_label_the_students_games_with_the_teachers_steps():
    """A DAgger round's positions come from the student's games (an untrained network, so
    not greedy's), each labelled with the step greedy plays there; the data grows by each
    round and the student is fitted on all of it."""
    from training.pretrain import generate, warm_start

    config = parse_config({"pretrain": {"games": 2, "epochs": 1, "batch_size": 64, "explore": 0.0,
                                        "dagger_rounds": 2, "dagger_games": 2},
                           "network": {"channels": 8, "blocks": 1, "features_dim": 32}})  # fmt: skip
    policy = build_policy(config.network)
    student = generate(config, False, student=policy, games=2, round_=1)
    teacher = generate(config, False)
    assert all(student["masks"][i, a] for i, a in enumerate(student["actions"]))
    # Greedy's games are short; an untrained student's (nearly random steps) last longer.
    assert len(student["actions"]) > len(teacher["actions"])
    metrics = warm_start(policy, config, progress=False)
    assert len(metrics["samples"]) == 3 and metrics["samples"][0] == len(teacher["actions"])
    assert all(n > 0 for n in metrics["samples"])
    with pytest.raises(ConfigError, match=r"pretrain\.dagger_rounds must be at least 0"):
        parse_config({"pretrain": {"dagger_rounds": -1}})
    with pytest.raises(ConfigError, match=r"needs pretrain\.games"):
        parse_config({"pretrain": {"dagger_rounds": 1, "games": 0}})


@pytest.mark.parametrize("players", [3, 4])
def test_smoke_training_with_more_players(tmp_path, players):
    result = run_train("--config", "configs/splut/smoke.yaml", "--runs", str(tmp_path),
                       f"num_players={players}", "n_envs=1", "total_steps=128",
                       "ppo.n_steps=64", "pretrain.games=2", "eval.final_games=1",
                       key=tmp_path.parent / f"{tmp_path.name}.key")  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    (run_dir,) = tmp_path.iterdir()
    agent = load_agent(str(run_dir / "player.zip"), num_players=players)
    record = play_game([agent] + [make_agent("random") for _ in range(players - 1)], seed=0)
    assert_whole_game(record, players)


@pytest.mark.parametrize(
    ("name", "players"), [("splut_2p", 2), ("splut_2p_guide", 2), ("splut_3p", 3), ("splut_4p", 4)]
)
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


def test_pool_weights_choose_bots_and_learner_players():
    from training.selfplay import SelfPlayVecEnv

    overrides = {"bots": ["greedy", "random"], "bot_weights": [3, 1], "player_weights": [1, 3],
                 "p_bots": 1.0, "p_latest": 0.0, "p_past": 0.0}  # fmt: skip
    config = parse_config({"pool": overrides})
    env = SelfPlayVecEnv(400, 2, 200, config.pool, config.network, seed=1)
    env.reset(seed=1)
    seats = env.seat.tolist()
    bots = env._labels[:, 0].tolist()
    assert 0.65 < seats.count(2) / 400 < 0.85  # N, weighted 3:1 against S
    assert 0.65 < bots.count("greedy") / 400 < 0.85


def test_self_play_games_draw_snapshots_shape_rewards_and_report_outcomes():
    """With the pool's latest snapshot as every opponent: the snapshot plays batched, each
    ended game reports its outcome and opponents, and the shaped reward is the potential
    difference of the bots' evaluation added to the outcome."""
    from splut_env.players.network import build_policy
    from training.pool import SnapshotPool
    from training.train import make_vec_env

    config = load_config(
        ROOT / "configs" / "splut" / "smoke.yaml",
        ["n_envs=8", "pool.p_latest=1.0", "pool.p_past=0", "pool.p_bots=0", "reward.shaping=0.2"],
    )
    clock = {"env": 0.0}
    vec = make_vec_env(config, clock)
    pool = SnapshotPool(3)
    torch.manual_seed(0)  # the snapshot's weights, whatever ran before in this process
    pool.add(build_policy(config.network), 0)
    vec.env_method("set_pool", pool.payload())
    games = vec.venv.env
    rng = np.random.default_rng(0)
    vec.reset()
    outcomes = []
    for _ in range(200):
        masks = np.stack(vec.env_method("action_masks"))
        assert np.array_equal(masks, games.action_masks())
        phi = games._phi.copy()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        _, rewards, dones, infos = vec.step(actions)
        shaped = config.reward.shaping
        for i, info in enumerate(infos):
            if dones[i]:
                assert info["opponents"].tolist() == ["self@0"]
                assert rewards[i] == pytest.approx(info["outcome"] - shaped * phi[i], abs=1e-5)
                outcomes.append(info["outcome"])
            else:
                after = games.games.evaluate([games.seat[i]], [i])[0]
                expected = shaped * (config.ppo.gamma * np.clip(after, -5, 5) - phi[i])
                assert rewards[i] == pytest.approx(expected, abs=1e-5)
    assert len(outcomes) >= 10 and clock["env"] > 0
    assert {-1.0, 1.0} <= set(outcomes)


def test_stages_join_into_one_learning_curve_with_ladder_ratings(tmp_path):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text("steps,wall_seconds,vs_greedy\n0,1,0.25\n100,9,0.5\n")
    second.write_text("steps,wall_seconds,vs_greedy\n64,1,0.5\n100,9,0.75\n")
    config = parse_config({"eval": {"every": 100, "games": 4, "bots": ["greedy"],
                                    "ladder": {"greedy": 700}}})  # fmt: skip
    rows = reports.read_stages([first, second], config)
    assert [r["steps"] for r in rows] == [0, 100, 200]  # the second stage's start dropped
    ratings = [r["rating"] for r in rows]
    assert ratings[0] < 700 < ratings[2] and abs(ratings[1] - 700) < 1
    out = tmp_path / "curve.png"
    reports.main(["curve", str(first), str(second), "--out", str(out),
                  "--config", str(ROOT / "results" / "finetune_2p_stage2" / "config.yaml")])  # fmt: skip
    assert out.stat().st_size > 10_000
    second.write_text("steps,vs_greedy\n100,half\n")
    with pytest.raises(ValueError, match=r"b.csv, line 2: expected an eval.csv row"):
        reports.read_stages([first, second], config)


def test_curve_command_names_a_missing_or_empty_eval_csv(tmp_path, capsys):
    config = str(ROOT / "results" / "finetune_2p_stage2" / "config.yaml")
    empty = tmp_path / "empty.csv"
    empty.write_text("steps,vs_greedy\n")
    for path, message in [
        (tmp_path / "none.csv", "no eval.csv at"),
        (empty, "hold no evaluations"),
    ]:
        with pytest.raises(SystemExit):
            reports.main(["curve", str(path), "--config", config, "--out", str(tmp_path / "c.png")])
        assert message in capsys.readouterr().err
    assert not (tmp_path / "c.png").exists()


def test_ratings_command_draws_a_runs_checkpoints_in_step_order(tmp_path, capsys):
    header = "agent,games,wins,draws,losses,win_rate,ci_low,ci_high,avg_turns,rating,rating_sigma,ms_per_step"
    rows = [
        "runs/r/checkpoints/step_0000200000/player.zip,40,12,0,28,0.3,0.18,0.45,50,24.0,2.0,2.5",
        "runs/r/checkpoints/step_0000100000/player.zip,40,8,0,32,0.2,0.1,0.35,50,21.0,2.0,2.5",
        "runs/r/start.zip,40,2,0,38,0.05,0.01,0.17,50,15.0,2.1,2.5",
        "greedy,120,30,0,90,0.25,0.18,0.33,50,23.0,1.5,2.7",
    ]
    folder = tmp_path / "eval"
    folder.mkdir()
    (folder / "agents.csv").write_text("\n".join([header, *rows]) + "\n")
    (folder / "seats.csv").write_text(
        "agent,seat,player,games,wins,draws,win_rate\n"
        + "".join(f"greedy,{s},player_{k},40,10,0,0.25\n" for k, s in enumerate("SWN"))
    )
    points, fixed = reports.read_rating_points(folder / "agents.csv", {"runs/r/start.zip": 0})
    assert [(p["steps"], p["rating"]) for p in points] == [
        (0, 15.0),
        (100000, 21.0),
        (200000, 24.0),
    ]
    assert [f["agent"] for f in fixed] == ["greedy"]
    assert reports.table_size(folder / "seats.csv") == 3
    out = tmp_path / "curve.png"
    reports.main(["ratings", str(folder), "--at", "runs/r/start.zip=0", "--out", str(out)])
    assert out.stat().st_size > 10_000
    assert "200,000  rating    24.0" in capsys.readouterr().out
    # Bad input: named, nothing written.
    out.unlink()
    for argv, message in [
        ([str(tmp_path)], "no agents.csv in"),
        ([str(folder), "--at", "start.zip"], "expected AGENT=STEPS"),
        ([str(folder), "--at", "missing.zip=5"], "does not hold"),
    ]:
        with pytest.raises(SystemExit):
            reports.main(["ratings", *argv, "--out", str(out)])
        assert message in capsys.readouterr().err
    (folder / "agents.csv").write_text("\n".join([header, rows[3]]) + "\n")
    with pytest.raises(SystemExit):
        reports.main(["ratings", str(folder), "--out", str(out)])
    assert "holds no checkpoint of a run" in capsys.readouterr().err
    assert not out.exists()


def test_transfer_reseats_a_network_for_another_table_size(tmp_path, tiny_checkpoint):
    from splut_env.encoding import SLOT_PLANES, observation_planes
    from training.transfer import main, transfer

    out = transfer(tiny_checkpoint, 3, tmp_path / "three.zip")
    source = load_agent(str(tiny_checkpoint))
    three = load_agent(str(out))
    assert three.meta["num_players"] == 3
    assert three.meta["transferred_from"] == {"path": str(tiny_checkpoint), "num_players": 2}
    # Only the stem's weights for the new opponent slot change: a copy of the first one's.
    old, new = source.policy.state_dict(), three.policy.state_dict()
    stem = "features_extractor.stem.0.weight"
    assert torch.equal(new[stem][:, 2 * SLOT_PLANES : 3 * SLOT_PLANES], old[stem][:, 3:6])
    assert not torch.equal(old[stem][:, 6:9], old[stem][:, 3:6])
    assert all(torch.equal(t, old[k]) for k, t in new.items() if not k.endswith("stem.0.weight"))
    # With the third player's planes empty, both networks read a position alike; with them
    # filled, the re-seated one reads them.
    state = rules.play(rules.from_spn(rules.initial_spn(3)), "Dn")
    planes = observation_planes(state, state.seats[state.to_move], 200)[None]
    cleared = planes.copy()
    cleared[:, 2 * SLOT_PLANES : 3 * SLOT_PLANES] = 0
    assert np.array_equal(source.logits(cleared), three.logits(cleared))
    assert not np.allclose(source.logits(planes), three.logits(planes))
    # It plays at a table of three, where the 2-player file is refused.
    record = play_game([three, make_agent("random"), make_agent("random")], seed=1)
    assert len(record.steps) > 0
    with pytest.raises(ValueError, match="2 players"):
        play_game([source, make_agent("random"), make_agent("random")], seed=1)
    for bad in (["--players", "5"], ["--players", "x"]):
        with pytest.raises(SystemExit) as stop:
            main([str(tiny_checkpoint), *bad, "--out", str(tmp_path / "x.zip")])
        assert stop.value.code == 2 and not (tmp_path / "x.zip").exists()
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "missing.zip"), "--players", "3", "--out", str(tmp_path / "x.zip")])
    assert stop.value.code == 2 and not (tmp_path / "x.zip").exists()


def test_the_in_place_rollout_buffer_gives_the_parents_minibatches():
    from gymnasium import spaces
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    from training.sb3vec import InPlaceRolloutBuffer

    obs_space, action_space = spaces.Box(0, 1, (3, 2, 2), np.float32), spaces.Discrete(5)
    buffers = [cls(4, obs_space, action_space, n_envs=3)
               for cls in (MaskableRolloutBuffer, InPlaceRolloutBuffer)]  # fmt: skip
    rng = np.random.default_rng(0)
    for _ in range(4):
        step = (rng.random((3, 3, 2, 2)).astype(np.float32), rng.integers(0, 5, (3, 1)),
                rng.random(3), np.zeros(3, bool), torch.tensor(rng.random(3)),
                torch.tensor(rng.random(3)))  # fmt: skip
        masks = rng.random((3, 5)) > 0.5
        for buffer in buffers:
            buffer.add(*step, action_masks=masks)
    batches = []
    for buffer in buffers:
        buffer.compute_returns_and_advantage(torch.zeros(3), np.zeros(3, bool))
        np.random.seed(7)
        batches.append(list(buffer.get(5)))
    assert len(batches[1]) == 3
    for theirs, ours in zip(*batches, strict=True):
        for a, b in zip(theirs, ours, strict=True):
            assert torch.equal(a, b)
    assert np.shares_memory(buffers[1].observations, buffers[1].observations.base)
