"""Self-play MaskablePPO: ``python -m training.train --config configs/splut/default.yaml``.

    python -m training.train --config configs/splut/default.yaml [key=value ...]
    python -m training.train --resume runs/<run>            # or runs/<run>/checkpoints/<step>

Each run writes to its own folder ``runs/<name>__seed<seed>__<time>/``: ``config.yaml``,
``versions.json``, TensorBoard logs (``tb/``), checkpoints every ``checkpoint_every`` steps
(``checkpoints/step_<n>/``: the model, the opponent pool, the run state, a signed
manifest), ``eval.csv`` (the periodic evaluations), and at the end ``player.zip`` (the policy
as a player checkpoint: no pickle, safe to share), ``learning_curve.png`` and
``MODEL_CARD.md``. Ctrl-C (or SIGTERM) stops after saving a checkpoint; ``--resume`` goes on
from the latest one with the same step counter and pool.

A training checkpoint's ``model.zip`` is the whole algorithm state as stable-baselines3
saves it, which is read with pickle: resume only your own runs. ``--resume`` first checks
the folder's manifest (:mod:`training.manifest`: the SHA-256 of every file, signed with this
user's key) and refuses a changed or foreign folder unless ``--trust-checkpoint`` is given.

The file reads top to bottom: seeding, the run state, the environments, the callback that
runs the self-play loop, checkpoints, then :func:`main`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import shutil
import signal
import sys
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecMonitor
from tqdm import tqdm

from training import manifest, perception, reports, threads
from training.config import ConfigError, TrainConfig, load_config
from training.config import to_dict as config_dict
from training.evaluate import evaluate_agent
from training.kits import training_kit
from training.pool import SnapshotPool, opponent_kind
from training.sb3vec import InPlaceRolloutBuffer, SB3VecEnv
from training.stats import ladder_rating

# --- seeding -----------------------------------------------------------------------------


def seed_everything(seed: int) -> None:
    """Seed every generator a run draws from in this process: Python's, numpy's global one
    and torch's (the environments, the pool and MaskablePPO seed their own from ``seed``)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


# --- the run state -----------------------------------------------------------------------


@dataclass
class RunState:
    """What a run carries from step to step and across resumes (``trainer.json``)."""

    steps: int = 0
    wall_seconds: float = 0.0
    next_snapshot: int = 0
    next_eval: int = 0
    next_checkpoint: int = 0
    evals: list[dict[str, float]] = field(default_factory=list)
    """One row per periodic evaluation: steps, wall seconds, win rate per bot."""
    pretrain: dict[str, Any] | None = None
    """The warm start's metrics (teacher agreement, samples per stage), if there was one."""
    time_split: dict[str, float] = field(
        default_factory=lambda: {k: 0.0 for k in reports.TIME_PARTS if k != "perception"}
    )
    """Seconds spent in each part of self-play (:data:`training.reports.TIME_PARTS`)."""
    time_split_from: int = 0
    """The step the time split counts from."""

    @classmethod
    def read(cls, path: Path) -> RunState:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a JSON object")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"{path}: unknown fields {unknown}")
        return cls(**data)

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(dataclasses.asdict(self), indent=2))


def next_multiple(steps: int, every: int) -> int:
    """The first multiple of ``every`` after ``steps``."""
    return (steps // every + 1) * every


# --- environments ------------------------------------------------------------------------


def make_vec_env(config: TrainConfig, clock: dict[str, float]) -> VecMonitor:
    """The self-play games (``n_envs`` of them, stepped together in this process), as a
    stable-baselines3 ``VecEnv``; ``clock["env"]`` adds up the seconds spent in them."""
    games = training_kit(config.game).selfplay_env(config)
    vec = SB3VecEnv(games, clock)
    vec.seed(config.seed)
    return VecMonitor(vec)


def evaluate_policy(
    policy: Any, config: TrainConfig, games: int, seed: int
) -> dict[str, tuple[int, int, int]]:
    """The deterministic policy against each of ``config.eval.bots``: ``{bot: (wins, draws,
    games)}``, played as ``python -m training.evaluate`` plays them (``--openings
    eval.openings``)."""
    agent = training_kit(config.game).policy_agent(
        policy, "learner", deterministic=True, max_turns=config.max_turns
    )
    bots, players, turns = config.eval.bots, config.num_players, config.max_turns
    return evaluate_agent(
        agent, bots, players, games, seed, turns, openings=config.eval.openings, game=config.game
    )


# --- the self-play loop ------------------------------------------------------------------


class SelfPlayCallback(BaseCallback):
    """What happens around PPO's steps: pool snapshots, periodic evaluations, checkpoints,
    the progress bar, win-rate and time-split logs, and stopping on a signal."""

    def __init__(
        self,
        config: TrainConfig,
        run_dir: Path,
        pool: SnapshotPool,
        state: RunState,
        clock: dict[str, float],
    ) -> None:
        super().__init__()
        self.config = config
        self.run_dir = run_dir
        self.pool = pool
        self.state = state
        self.clock = clock
        self.stop_requested = False
        self.recent: dict[str, deque] = defaultdict(lambda: deque(maxlen=200))
        self.per_member: dict[str, deque] = defaultdict(lambda: deque(maxlen=200))
        self.started = time.time()
        self.base_seconds = state.wall_seconds
        self.last_checkpoint = -1
        self.mark = time.perf_counter()
        self.bar: Any = None
        self.perception_samples: dict[str, np.ndarray] | None = None
        self.perception_rng = np.random.default_rng([config.seed, state.steps])
        self.threads = threads.ThreadTuner(
            config.torch_threads, tune=config.thread_policy == "auto"
        )

    def request_stop(self, signum: int, _frame: Any) -> None:
        print(f"\nsignal {signum}: saving a checkpoint and stopping", flush=True)
        self.stop_requested = True

    def wall(self) -> float:
        return self.base_seconds + time.time() - self.started

    def _lap(self, key: str) -> None:
        now = time.perf_counter()
        split = self.state.time_split
        split[key] = split.get(key, 0.0) + now - self.mark
        self.mark = now

    def _on_training_start(self) -> None:
        self.mark = time.perf_counter()
        total = self.config.total_steps
        self.bar = tqdm(
            total=total,
            initial=min(self.num_timesteps, total),
            unit="step",
            desc="training",
            dynamic_ncols=True,
        )
        if self.config.perception.fraction > 0:
            self.training_env.env_method("record_positions", indices=0)

    def _on_rollout_start(self) -> None:
        self.threads.stop()  # the update (or the start) ends here
        self.threads.start("rollout")
        self._lap("learn")
        self.clock["env"] = 0.0
        if self.perception_samples is not None:
            self.perception_phase(self.perception_samples)
            self.perception_samples = None

    def _on_step(self) -> bool:
        config, state = self.config, self.state
        latest = self.pool.labels()[-1]
        for info in self.locals["infos"]:
            if "outcome" in info:
                for label in info["opponents"]:
                    self.recent[opponent_kind(label, latest)].append(info["outcome"])
                    self.per_member[label].append(info["outcome"])
        self.bar.update(self.training_env.num_envs)
        steps = self.num_timesteps
        if steps >= state.next_snapshot:
            state.next_snapshot = next_multiple(steps, config.pool.snapshot_every)
            self.pool.add(self.model.policy, steps)
            self.training_env.env_method("set_pool", self.pool.payload())
        if steps >= state.next_eval:
            state.next_eval = next_multiple(steps, config.eval.every)
            self.evaluate(steps)
        if steps >= state.next_checkpoint or self.stop_requested:
            state.next_checkpoint = next_multiple(steps, config.checkpoint_every)
            self.checkpoint(steps)
        return not self.stop_requested

    def _on_rollout_end(self) -> None:
        self.threads.stop()
        self._lap("inference")
        split = self.state.time_split
        split["env"] += self.clock["env"]
        split["inference"] -= self.clock["env"]
        total = sum(split.values())
        for key, seconds in split.items():
            self.logger.record(f"time/share_{key}", seconds / total)
        rates = {}
        for kind, outcomes in sorted(self.recent.items()):
            if outcomes:
                rates[kind] = sum(o > 0 for o in outcomes) / len(outcomes)
                self.logger.record(f"winrate/vs_{kind}", rates[kind])
        for label, outcomes in self.per_member.items():
            if outcomes and (label in self.pool.labels() or not label.startswith("self@")):
                rate = sum(o > 0 for o in outcomes) / len(outcomes)
                self.logger.record(f"winrate_member/{label}", rate)
        self.bar.set_postfix_str(" ".join(f"{k}:{100 * v:.0f}%" for k, v in rates.items()))
        if self.config.perception.fraction > 0:
            self.label_rollout()
        self.threads.start("update")

    def label_rollout(self) -> None:
        """Label a share of the rollout's positions with the shield's tiers, for the
        perception phase after PPO's update."""
        positions = self.training_env.env_method("take_positions", indices=0)[0]
        buffer = self.model.rollout_buffer
        if len(positions) == buffer.buffer_size and buffer.full:
            self.perception_samples = perception.rollout_samples(
                positions,
                buffer.observations,
                buffer.action_masks,
                self.config.perception.fraction,
                self.perception_rng,
            )
        self._lap("perception")

    def perception_phase(self, samples: dict[str, np.ndarray]) -> None:
        """Fit the policy to the shield's choice on the last rollout's critical positions."""
        cfg, policy = self.config.perception, self.model.policy
        metrics = perception.perception_phase(
            policy, policy.optimizer, samples, cfg.epochs, cfg.batch_size, self.perception_rng
        )
        for key, value in metrics.items():
            self.logger.record(f"perception/{key}", value)
        self._lap("perception")

    def evaluate(self, steps: int) -> None:
        self._lap("inference")
        with self.threads.aside():
            results = evaluate_policy(self.model.policy, self.config, self.config.eval.games, steps)
        row = {"steps": steps, "wall_seconds": round(self.wall(), 1)}
        for bot, (wins, _, games) in results.items():
            row[f"vs_{bot}"] = wins / games
            self.logger.record(f"eval/winrate_vs_{bot}", wins / games)
        if self.config.eval.ladder:
            row["rating"] = round(ladder_rating(self.config.eval.ladder, results), 1)
            self.logger.record("eval/rating", row["rating"])
        self.state.evals.append(row)
        scores = ", ".join(f"{bot} {w}/{g}" for bot, (w, _, g) in results.items())
        self.bar.write(f"step {steps}: evaluation {scores}")
        self._lap("evaluate")

    def checkpoint(self, steps: int) -> None:
        self._lap("inference")
        self.state.steps, self.state.wall_seconds = steps, self.wall()
        self.last_checkpoint = steps
        folder = self.run_dir / "checkpoints" / f"step_{steps:010d}"
        with self.threads.aside(torch.get_num_threads()):
            save_checkpoint(folder, self.model, self.pool, self.state, self.config)
        self.bar.write(f"step {steps}: checkpoint {folder}")
        self._lap("evaluate")

    def _on_training_end(self) -> None:
        self.threads.stop()
        self._lap("learn")
        if self.last_checkpoint != self.num_timesteps:
            self.checkpoint(self.num_timesteps)
        self.state.wall_seconds = self.wall()
        self.bar.close()


# --- checkpoints -------------------------------------------------------------------------

CHECKPOINT_FILES = ("model.zip", *SnapshotPool.FILES, "trainer.json")
#: The policy at that step as a player file (safe to load and share; ``training.average``).
CHECKPOINT_PLAYER = "player.zip"


def write_player(model: Any, path: Path, config: TrainConfig) -> Path:
    """Write ``model``'s policy as a player checkpoint with the run's facts."""
    return training_kit(config.game).save_player(
        model.policy,
        path,
        config,
        steps=model.num_timesteps,
        run=config.name,
        seed=config.seed,
        reward_shaping=config.reward.shaping,
    )


def save_checkpoint(
    folder: Path, model: Any, pool: SnapshotPool, state: RunState, config: TrainConfig
) -> None:
    """Write a training checkpoint and its signed manifest; it appears whole or not at all."""
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    model.save(tmp / "model.zip")
    pool.save(tmp)
    state.write(tmp / "trainer.json")
    write_player(model, tmp / CHECKPOINT_PLAYER, config)
    files = (*CHECKPOINT_FILES, CHECKPOINT_PLAYER)
    layout = training_kit(config.game).layout_version
    manifest.write(tmp, files, layout_version=layout, steps=model.num_timesteps)
    manifest.commit(tmp, folder)


def latest_checkpoint(path: Path) -> Path:
    """``path`` if it is a checkpoint folder, else the newest checkpoint of a run folder."""
    if (path / "trainer.json").is_file():
        return path
    return manifest.newest_checkpoint(path, "step_", "expected checkpoints/step_*")


def verified_checkpoint(path: Path, trust: bool, game: str | None = None) -> Path:
    """The checkpoint to resume from, its manifest checked before anything is unpickled
    (``game``: the run's, whose layout it must have; ``None``: read from the run's
    config)."""
    checkpoint = latest_checkpoint(path)
    signed = manifest.verify(checkpoint, trust=trust)
    unlisted = sorted(set(CHECKPOINT_FILES) - set(signed["files"]))
    if unlisted:
        raise ValueError(f"{checkpoint}: manifest.json does not list {unlisted}")
    if game is None:
        game = load_config(checkpoint.parent.parent / "config.yaml", []).game
    manifest.check_layout(signed, training_kit(game).layout_version, str(checkpoint), game)
    return checkpoint


def new_model(config: TrainConfig, vec_env: Any, run_dir: Path) -> MaskablePPO:
    """A new MaskablePPO learner; its weights are ``config.init_from``'s when that is set."""
    ppo = config.ppo
    kit = training_kit(config.game)
    model = MaskablePPO(
        kit.policy_class,
        vec_env,
        n_steps=ppo.n_steps,
        batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs,
        learning_rate=ppo.learning_rate,
        gamma=ppo.gamma,
        gae_lambda=ppo.gae_lambda,
        clip_range=ppo.clip_range,
        ent_coef=ppo.ent_coef,
        vf_coef=ppo.vf_coef,
        max_grad_norm=ppo.max_grad_norm,
        seed=config.seed,
        policy_kwargs=kit.policy_kwargs(config.network),
        tensorboard_log=str(run_dir / "tb"),
        device="cpu",
        rollout_buffer_class=InPlaceRolloutBuffer,
    )
    if config.init_from:
        kit.load_start(model.policy, config)
    return model


# --- the run -----------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="YAML config (see configs/)")
    parser.add_argument("--resume", type=Path, help="a run folder or one of its checkpoints")
    parser.add_argument("--runs", type=Path, default=Path("runs"), help="where run folders go")
    parser.add_argument(
        "--trust-checkpoint",
        action="store_true",
        help="resume from a checkpoint not signed on this machine (it is unpickled: only "
        "for files you trust)",
    )
    parser.add_argument("overrides", nargs="*", help="config overrides, e.g. total_steps=50000")
    args = parser.parse_args(argv)
    if (args.config is None) == (args.resume is None):
        parser.error("give either --config or --resume")
    return parser, args


def main(argv: list[str] | None = None) -> Path:
    parser, args = parse_args(argv)

    # Configuration, run folder, run state.
    checkpoint = None
    try:
        if args.resume:
            checkpoint = verified_checkpoint(args.resume, args.trust_checkpoint)
            run_dir = checkpoint.parent.parent
            config = load_config(run_dir / "config.yaml", args.overrides)
            state = RunState.read(checkpoint / "trainer.json")
        else:
            config = load_config(args.config, args.overrides)
            if config.init_from:
                kit = training_kit(config.game)
                probe = kit.build_policy(config.network, ortho_init=False)  # resolves init_value
                config.init_value = kit.load_start(probe, config)
                print(f"init_from {config.init_from}: {reports.value_start(config)}")
            stamp = time.strftime("%Y%m%d-%H%M%S")
            run_dir = args.runs / f"{config.name}__seed{config.seed}__{stamp}"
            run_dir.mkdir(parents=True)
            state = RunState(next_checkpoint=config.checkpoint_every)
    except (ConfigError, FileNotFoundError, ValueError, TypeError, OSError) as err:
        parser.error(str(err))
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config_dict(config), sort_keys=False))
    (run_dir / "versions.json").write_text(json.dumps(reports.versions(), indent=2))
    print(f"run folder: {run_dir}")
    print("config: " + json.dumps(config_dict(config)))

    # Seeding (on resume too, so a resumed run draws the same as its first part did).
    seed_everything(config.seed)
    threads.configure(config.torch_threads)
    kit = training_kit(config.game)

    # Environments, model, pool.
    clock = {"env": 0.0}
    vec_env = make_vec_env(config, clock)
    pool = SnapshotPool(config.pool.max_snapshots)
    if checkpoint is not None:
        model = MaskablePPO.load(
            checkpoint / "model.zip",
            env=vec_env,
            device="cpu",
            tensorboard_log=str(run_dir / "tb"),
            # The network's keyword arguments and the policy's class come from the run's
            # config rather than from the pickle, which names classes by the module path
            # they had when the run began (splut_env.policy before 0.3).
            custom_objects={
                "policy_kwargs": kit.policy_kwargs(config.network),
                "policy_class": kit.policy_class,
            },
        )
        pool.load(checkpoint)
        print(f"resumed from {checkpoint} at step {model.num_timesteps}, pool {pool.labels()}")
    else:
        model = new_model(config, vec_env, run_dir)

    # Warm start: imitate the teacher bot, then DAgger.
    if checkpoint is None and config.pretrain.games > 0:
        started = time.time()
        state.pretrain = kit.warm_start(model.policy, config)
        state.wall_seconds += time.time() - started
    if not pool.snapshots:
        pool.add(model.policy, model.num_timesteps)
        state.next_snapshot = next_multiple(model.num_timesteps, config.pool.snapshot_every)
    vec_env.env_method("set_pool", pool.payload())

    # Self-play.
    callback = SelfPlayCallback(config, run_dir, pool, state, clock)
    signal.signal(signal.SIGINT, callback.request_stop)
    signal.signal(signal.SIGTERM, callback.request_stop)
    remaining = config.total_steps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=False, tb_log_name="ppo")
    vec_env.close()
    if callback.stop_requested:
        print(f"stopped at step {model.num_timesteps}; resume with --resume {run_dir}")
        sys.exit(130)

    # The player, its final evaluation, the curve and the card.
    player = write_player(model, run_dir / "player.zip", config)
    print(f"final evaluation: {config.eval.final_games} games per bot ...", flush=True)
    results = evaluate_policy(model.policy, config, config.eval.final_games, seed=10**6)
    reports.write_eval_csv(run_dir / "eval.csv", state.evals)
    reports.plot_learning_curve(run_dir / "learning_curve.png", state.evals, config)
    card = reports.model_card(
        config,
        model.num_timesteps,
        state.wall_seconds,
        results,
        player,
        state.pretrain,
        state.time_split,
        state.time_split_from,
    )
    (run_dir / "MODEL_CARD.md").write_text(card)
    print(card)
    print(f"checkpoint: {player} (to play; to train on: --resume {run_dir})")
    return player


if __name__ == "__main__":
    main()
