"""Self-play MaskablePPO: ``python -m training.train --config configs/default.yaml``.

    python -m training.train --config configs/default.yaml [key=value ...]
    python -m training.train --resume runs/<run>            # or runs/<run>/checkpoints/<step>

Each run writes to its own folder ``runs/<name>__seed<seed>__<time>/``: ``config.yaml``,
``versions.json``, TensorBoard logs (``tb/``), checkpoints every ``checkpoint_every`` steps
(``checkpoints/step_<n>/``: the model, the opponent pool, the counters, a signed
manifest), ``eval.csv`` (the periodic evaluations), and at the end ``player.zip`` (the policy
as a player checkpoint: no pickle, safe to share), ``learning_curve.png`` and
``MODEL_CARD.md``. Ctrl-C (or SIGTERM) stops after saving a checkpoint; ``--resume`` goes on
from the latest one with the same step counter and pool.

A training checkpoint's ``model.zip`` is the whole algorithm state as stable-baselines3
saves it, which is read with pickle: resume only your own runs. ``--resume`` first checks
the folder's manifest (:mod:`training.manifest`: the SHA-256 of every file, signed with this
user's key) and refuses a changed or foreign folder unless ``--trust-checkpoint`` is given.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import signal
import sys
import time
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from splut_env.encoding import LAYOUT_VERSION
from splut_env.envs.match import play_game
from splut_env.players import make_agent
from splut_env.players.checkpoint import save_player
from splut_env.players.network import PolicyAgent
from training import manifest
from training.config import ConfigError, TrainConfig, load_config
from training.config import to_dict as config_dict
from training.selfplay import (
    SelfPlayEnv,
    SnapshotPool,
    network_shape,
    opponent_kind,
)
from training.stats import wilson

# --- the pieces --------------------------------------------------------------------------


def make_env_fn(config: TrainConfig, rank: int):
    def make() -> SelfPlayEnv:
        # Environment processes leave Ctrl-C to the main one, which checkpoints and stops.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return SelfPlayEnv(
            config.num_players,
            config.max_turns,
            config.pool,
            config.network,
            seed=config.seed * 1000 + rank,
            shaping=config.reward.shaping,
            gamma=config.ppo.gamma,
        )

    return make


def make_vec_env(config: TrainConfig, clock: dict[str, float]):
    """The environment processes, with the seconds the learner spends sending them actions
    and waiting for their results added to ``clock["env"]``."""
    from stable_baselines3.common.vec_env import (
        DummyVecEnv,
        SubprocVecEnv,
        VecEnvWrapper,
        VecMonitor,
    )

    class LearnerVecEnv(VecEnvWrapper):
        """Times the environment processes, and answers ``env_method("action_masks")``
        (which ``MaskablePPO`` calls before every step) from the masks the processes already
        sent in their step and reset infos, saving a round trip to every process per step."""

        masks: np.ndarray | None = None

        def reset(self):
            obs = self.venv.reset()
            self._keep_masks(self.venv.reset_infos, [True] * self.num_envs)
            return obs

        def step_async(self, actions) -> None:
            started = time.perf_counter()
            self.venv.step_async(actions)
            clock["env"] += time.perf_counter() - started

        def step_wait(self):
            started = time.perf_counter()
            obs, rewards, dones, infos = self.venv.step_wait()
            clock["env"] += time.perf_counter() - started
            self._keep_masks(infos, dones)
            return obs, rewards, dones, infos

        def _keep_masks(self, infos, reset) -> None:
            try:
                self.masks = np.stack([
                    (self.venv.reset_infos[i] if reset[i] else info)["action_mask"]
                    for i, info in enumerate(infos)
                ]).astype(bool)  # fmt: skip
            except (KeyError, IndexError, TypeError):
                self.masks = None

        def env_method(self, method_name, *args, indices=None, **kwargs):
            if method_name == "action_masks" and self.masks is not None and indices is None:
                return list(self.masks)
            return self.venv.env_method(method_name, *args, indices=indices, **kwargs)

    fns = [make_env_fn(config, rank) for rank in range(config.n_envs)]
    vec = DummyVecEnv(fns) if config.n_envs == 1 else SubprocVecEnv(fns, start_method="spawn")
    vec.seed(config.seed)
    return VecMonitor(LearnerVecEnv(vec))


def evaluate_policy(
    policy: Any, config: TrainConfig, bots: list[str], games: int, seed: int
) -> dict:
    """Deterministic policy vs each bot, seats alternated: ``{bot: (wins, draws, games)}``."""
    agent = PolicyAgent(policy, "learner", deterministic=True, max_turns=config.max_turns)
    results = {}
    for bot_name in bots:
        bot = make_agent(bot_name)
        wins = draws = 0
        for g in range(games):
            seat = g % config.num_players
            others = [make_agent(bot_name) for _ in range(config.num_players - 2)]
            lineup = [bot, *others]
            lineup.insert(seat, agent)
            record = play_game(lineup, seed=seed * 100_003 + g, max_turns=config.max_turns)
            wins += record.winner == seat
            draws += record.winner is None
        results[bot_name] = (wins, draws, games)
    return results


CHECKPOINT_FILES = ("model.zip", *SnapshotPool.FILES, "trainer.json")


def save_checkpoint(
    folder: Path, model: Any, pool: SnapshotPool, state: dict, config: TrainConfig
) -> None:
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    model.save(tmp / "model.zip")
    pool.save(tmp)
    (tmp / "trainer.json").write_text(json.dumps(state, indent=2))
    manifest.write(
        tmp,
        CHECKPOINT_FILES,
        layout_version=LAYOUT_VERSION,
        steps=model.num_timesteps,
    )
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)  # a checkpoint appears whole or not at all


def save_final_player(path: Path, policy: Any, config: TrainConfig, steps: int) -> Path:
    """The learner's policy as a player checkpoint (safe to share and load anywhere)."""
    return save_player(
        policy,
        path,
        network_shape(config.network),
        config.num_players,
        config.max_turns,
        steps=steps,
        run=config.name,
        seed=config.seed,
    )


def next_multiple(steps: int, every: int) -> int:
    """The first multiple of ``every`` after ``steps``."""
    return (steps // every + 1) * every


def latest_checkpoint(path: Path) -> Path:
    """``path`` if it is a checkpoint folder, else the newest checkpoint of a run folder."""
    if (path / "trainer.json").is_file():
        return path
    found = sorted((path / "checkpoints").glob("step_*[0-9]"))
    if not found:
        raise FileNotFoundError(f"no checkpoint in {str(path)!r} (expected checkpoints/step_*)")
    return found[-1]


def versions() -> dict:
    import gymnasium
    import pettingzoo
    import sb3_contrib
    import stable_baselines3

    import splut_env

    return {"python": platform.python_version(), "splut_env": splut_env.__version__,
            "torch": torch.__version__, "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__, "gymnasium": gymnasium.__version__,
            "pettingzoo": pettingzoo.__version__, "numpy": np.__version__}  # fmt: skip


# --- the run -----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="YAML config (see configs/)")
    parser.add_argument("--resume", type=Path, help="a run folder or one of its checkpoints")
    parser.add_argument("--runs", type=Path, default=Path("runs"), help="where run folders go")
    parser.add_argument(
        "--trust-checkpoint", action="store_true",
        help="resume from a checkpoint not signed on this machine (it is unpickled: only "
        "for files you trust)",
    )  # fmt: skip
    parser.add_argument("overrides", nargs="*", help="config overrides, e.g. total_steps=50000")
    args = parser.parse_args(argv)
    if (args.config is None) == (args.resume is None):
        parser.error("give either --config or --resume")

    # Configuration, run folder, seeding.
    try:
        if args.resume:
            checkpoint = latest_checkpoint(args.resume)
            run_dir = checkpoint.parent.parent
            signed = manifest.verify(checkpoint, trust=args.trust_checkpoint)
            unlisted = sorted(set(CHECKPOINT_FILES) - set(signed["files"]))
            if unlisted:
                raise ValueError(f"{checkpoint}: manifest.json does not list {unlisted}")
            if signed.get("layout_version") != LAYOUT_VERSION:
                raise ValueError(
                    f"{checkpoint} was trained on observation/action layout "
                    f"{signed.get('layout_version')!r}; this splut-env uses {LAYOUT_VERSION}"
                )
            config = load_config(run_dir / "config.yaml", args.overrides)
            trainer = json.loads((checkpoint / "trainer.json").read_text())
        else:
            config = load_config(args.config, args.overrides)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            run_dir = args.runs / f"{config.name}__seed{config.seed}__{stamp}"
            run_dir.mkdir(parents=True)
            trainer = {"steps": 0, "wall_seconds": 0.0, "next_snapshot": 0,
                       "next_eval": 0, "next_checkpoint": config.checkpoint_every,
                       "evals": []}  # fmt: skip
    except (ConfigError, FileNotFoundError, ValueError, OSError) as err:
        parser.error(str(err))
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config_dict(config), sort_keys=False))
    (run_dir / "versions.json").write_text(json.dumps(versions(), indent=2))
    torch.set_num_threads(config.torch_threads)
    print(f"run folder: {run_dir}")
    print("config: " + json.dumps(config_dict(config)))

    # Environments, model, pool.
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    clock = {"env": 0.0}
    vec_env = make_vec_env(config, clock)
    pool = SnapshotPool(config.pool.max_snapshots)
    if args.resume:
        model = MaskablePPO.load(checkpoint / "model.zip", env=vec_env, device="cpu",
                                 tensorboard_log=str(run_dir / "tb"))  # fmt: skip
        pool.load(checkpoint)
        print(f"resumed from {checkpoint} at step {model.num_timesteps}, pool {pool.labels()}")
    else:
        ppo = config.ppo
        model = MaskablePPO(
            "MlpPolicy", vec_env, n_steps=ppo.n_steps, batch_size=ppo.batch_size,
            n_epochs=ppo.n_epochs, learning_rate=ppo.learning_rate, gamma=ppo.gamma,
            gae_lambda=ppo.gae_lambda, clip_range=ppo.clip_range, ent_coef=ppo.ent_coef,
            vf_coef=ppo.vf_coef, max_grad_norm=ppo.max_grad_norm, seed=config.seed,
            policy_kwargs=network_shape(config.network).policy_kwargs(),
            tensorboard_log=str(run_dir / "tb"),
            device="cpu",
        )  # fmt: skip
    if not args.resume and config.pretrain.games > 0:
        from training.pretrain import fit, generate

        started = time.time()
        data = generate(config, workers=max(1, min(config.n_envs, os.cpu_count() or 1)))
        trainer["pretrain"] = fit(model.policy, data, config)
        trainer["wall_seconds"] += time.time() - started
        del data
    if "time_split" not in trainer:  # runs from older versions measure from here on
        trainer["time_split"] = dict.fromkeys(["env", "inference", "learn", "evaluate"], 0.0)
        trainer["time_split_from"] = model.num_timesteps
    if not pool.snapshots:
        pool.add(model.policy, model.num_timesteps)
        trainer["next_snapshot"] = next_multiple(model.num_timesteps, config.pool.snapshot_every)
    vec_env.env_method("set_pool", pool.payload())

    stop = {"requested": False}

    def request_stop(signum, _frame):
        print(f"\nsignal {signum}: saving a checkpoint and stopping", flush=True)
        stop["requested"] = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)

    class SelfPlayCallback(BaseCallback):
        """Pool snapshots, periodic evaluation, checkpoints, progress bar, win-rate logs."""

        def __init__(self) -> None:
            super().__init__()
            self.recent: dict[str, deque] = defaultdict(lambda: deque(maxlen=200))
            self.per_member: dict[str, deque] = defaultdict(lambda: deque(maxlen=200))
            self.started = time.time()
            self.base_seconds = trainer["wall_seconds"]
            self.last_checkpoint = -1
            self.mark = time.perf_counter()

        def _lap(self, key: str) -> None:
            now = time.perf_counter()
            trainer["time_split"][key] += now - self.mark
            self.mark = now

        def _on_rollout_start(self) -> None:
            self._lap("learn")
            clock["env"] = 0.0

        def _on_training_start(self) -> None:
            from tqdm import tqdm

            self.mark = time.perf_counter()
            self.bar = tqdm(total=config.total_steps, initial=min(self.num_timesteps, config.total_steps),
                            unit="step", desc="training", dynamic_ncols=True)  # fmt: skip

        def _on_step(self) -> bool:
            latest = pool.labels()[-1]
            for info in self.locals["infos"]:
                if "outcome" in info:
                    for label in info["opponents"]:
                        self.recent[opponent_kind(label, latest)].append(info["outcome"])
                        self.per_member[label].append(info["outcome"])
            self.bar.update(self.training_env.num_envs)
            steps = self.num_timesteps
            if steps >= trainer["next_snapshot"]:
                trainer["next_snapshot"] = next_multiple(steps, config.pool.snapshot_every)
                pool.add(self.model.policy, steps)
                self.training_env.env_method("set_pool", pool.payload())
            if steps >= trainer["next_eval"]:
                trainer["next_eval"] = next_multiple(steps, config.eval.every)
                self.evaluate(steps)
            if steps >= trainer["next_checkpoint"] or stop["requested"]:
                trainer["next_checkpoint"] = next_multiple(steps, config.checkpoint_every)
                self.checkpoint(steps)
            return not stop["requested"]

        def _on_rollout_end(self) -> None:
            self._lap("inference")
            split = trainer["time_split"]
            split["env"] += clock["env"]
            split["inference"] -= clock["env"]
            total = sum(split.values())
            for key, seconds in split.items():
                self.logger.record(f"time/share_{key}", seconds / total)
            rates = {}
            for kind, outcomes in sorted(self.recent.items()):
                if outcomes:
                    rates[kind] = sum(o > 0 for o in outcomes) / len(outcomes)
                    self.logger.record(f"winrate/vs_{kind}", rates[kind])
            for label, outcomes in self.per_member.items():
                if outcomes and (label in pool.labels() or not label.startswith("self@")):
                    rate = sum(o > 0 for o in outcomes) / len(outcomes)
                    self.logger.record(f"winrate_member/{label}", rate)
            self.bar.set_postfix_str(" ".join(f"{k}:{100 * v:.0f}%" for k, v in rates.items()))

        def evaluate(self, steps: int) -> None:
            self._lap("inference")
            results = evaluate_policy(self.model.policy, config, config.eval.bots,
                                      config.eval.games, seed=steps)  # fmt: skip
            row = {"steps": steps, "wall_seconds": round(self.wall(), 1)}
            for bot, (wins, _, games) in results.items():
                row[f"vs_{bot}"] = wins / games
                self.logger.record(f"eval/winrate_vs_{bot}", wins / games)
            trainer["evals"].append(row)
            self.bar.write(f"step {steps}: evaluation " + ", ".join(
                f"{bot} {w}/{g}" for bot, (w, _, g) in results.items()))  # fmt: skip
            self._lap("evaluate")

        def checkpoint(self, steps: int) -> None:
            self._lap("inference")
            trainer.update(steps=steps, wall_seconds=self.wall())
            self.last_checkpoint = steps
            folder = run_dir / "checkpoints" / f"step_{steps:010d}"
            save_checkpoint(folder, self.model, pool, trainer, config)
            self.bar.write(f"step {steps}: checkpoint {folder}")
            self._lap("evaluate")

        def wall(self) -> float:
            return self.base_seconds + time.time() - self.started

        def _on_training_end(self) -> None:
            self._lap("learn")
            if self.last_checkpoint != self.num_timesteps:
                self.checkpoint(self.num_timesteps)
            trainer["wall_seconds"] = self.wall()
            self.bar.close()

    # Training.
    callback = SelfPlayCallback()
    remaining = config.total_steps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=False, tb_log_name="ppo")
    vec_env.close()
    if stop["requested"]:
        print(f"stopped at step {model.num_timesteps}; resume with --resume {run_dir}")
        sys.exit(130)

    # Final evaluation, player, curve and card.
    player = save_final_player(run_dir / "player.zip", model.policy, config, model.num_timesteps)
    print(f"final evaluation: {config.eval.final_games} games per bot ...", flush=True)
    results = evaluate_policy(model.policy, config, config.eval.bots, config.eval.final_games,
                              seed=10**6)  # fmt: skip
    write_eval_csv(run_dir / "eval.csv", trainer["evals"])
    plot_learning_curve(run_dir / "learning_curve.png", trainer["evals"], config)
    card = model_card(config, model.num_timesteps, trainer["wall_seconds"], results, player,
                      trainer.get("pretrain"), trainer["time_split"],
                      trainer["time_split_from"])  # fmt: skip
    (run_dir / "MODEL_CARD.md").write_text(card)
    print(card)
    print(f"checkpoint: {player} (to play; to train on: --resume {run_dir})")
    return player


# --- reports -----------------------------------------------------------------------------


def write_eval_csv(path: Path, evals: list[dict]) -> None:
    if not evals:
        return
    keys = list(dict.fromkeys(k for row in evals for k in row))
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, keys)
        writer.writeheader()
        writer.writerows(evals)


def plot_learning_curve(path: Path, evals: list[dict], config: TrainConfig) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for bot in config.eval.bots:
        points = [(row["steps"], row[f"vs_{bot}"]) for row in evals if f"vs_{bot}" in row]
        if points:
            xs, ys = zip(*points, strict=True)
            ax.plot(xs, ys, marker="o", label=f"vs {bot}")
    ax.axhline(1 / config.num_players, color="grey", linestyle=":", label="chance")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("learner steps")
    ax.set_ylabel(f"win rate ({config.eval.games} games per point)")
    ax.set_title(f"{config.name}: win rate during training")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def time_split_line(split: dict[str, float]) -> str:
    """Where the self-play time went, as shares of the four parts of ``split``."""
    total = sum(split.values()) or 1.0
    names = {"env": "environment processes (rules, opponents, shaping)",
             "inference": "learner's policy inference and rollout bookkeeping",
             "learn": "PPO updates", "evaluate": "periodic evaluations and checkpoints"}  # fmt: skip
    return ", ".join(f"{names[k]} {100 * v / total:.0f}%" for k, v in split.items())


def model_card(
    config: TrainConfig,
    steps: int,
    wall: float,
    results: dict,
    path: Path,
    pretrain: dict | None,
    time_split: dict[str, float],
    time_split_from: int,
) -> str:
    since = f" (from step {time_split_from:,})" if time_split_from else ""
    lines = [
        f"# Model card: {config.name}",
        "",
        f"- checkpoint: `{path}` (load with `splut_env.load_agent(path)`)",
        f"- players: {config.num_players}; max turns: {config.max_turns}; seed: {config.seed}",
        f"- learner steps: {steps:,}; wall time: {wall / 60:.1f} min",
        f"- self-play time{since}: {time_split_line(time_split)}",
        f"- network: residual CNN, {config.network.blocks} blocks × {config.network.channels} "
        f"channels, {config.network.features_dim} features; MaskablePPO",
        "- warm start: "
        + (
            f"imitation of {config.pretrain.teacher} over {config.pretrain.games} games "
            f"(teacher agreement {100 * pretrain['accuracy']:.1f}%)"
            if pretrain
            else "none"
        ),
        "",
        f"Evaluation: deterministic policy, {config.eval.final_games} games per bot, seats "
        f"alternated, chance {100 / config.num_players:.0f}%; 95 % Wilson intervals.",
        "",
        "| opponent | games | wins | draws | losses | win rate | 95 % CI |",
        "|---|---|---|---|---|---|---|",
    ]
    for bot, (wins, draws, games) in results.items():
        lo, hi = wilson(wins, games)
        lines.append(f"| {bot} | {games} | {wins} | {draws} | {games - wins - draws} | "
                     f"{100 * wins / games:.1f}% | {100 * lo:.1f}–{100 * hi:.1f}% |")  # fmt: skip
    lines += ["", "Configuration:", "", "```yaml",
              yaml.safe_dump(config_dict(config), sort_keys=False).rstrip(), "```", ""]  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    main()
