"""Sampling throughput of ``training.rllib``'s env runners, without learning:

    python -m training.rllib_bench [--config configs/splut/rllib_2p.yaml] [--runners 1 2]
        [--env-runner batched] [--games 128] [--steps 8192] [--rounds 3] [--learn] [overrides ...]

For each number of env runners, builds the config's algorithm on a local Ray instance (one
CPU per runner), gives the batched path its first snapshot, samples once to warm up (the
engine's compilation, the first resets), then times ``--rounds`` rounds in which every runner
samples ``--steps`` env steps at once (``EnvRunner.sample()``; the steps are counted on the
runner, so shipping the episodes to the driver is not timed). Prints env steps/s per round
count and the speed-up over the first. ``--learn`` times one ``Algorithm.train()`` afterwards
(sampling, the update and the weight sync together) and prints RLlib's update timer.
The config's own settings are overridden by ``--env-runner`` (``batched`` by default;
``multi_agent`` measures the one-game-at-a-time runner), ``--games`` (games per batched
runner, 128) and ``--steps`` (``ppo.n_steps``, 8192).
Numbers depend on the machine's idle cores: run it alone.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import ray
import torch
from ray.rllib.utils.metrics import LEARNER_UPDATE_TIMER, TIMERS

from training.config import ConfigError, RLlibConfig, load_config
from training.rllib import algorithm_config
from training.rllib_vector import pool_callback


def sample_steps(runner: Any) -> int:
    """One ``sample()`` of an env runner; the env steps it took."""
    return sum(episode.env_steps() for episode in runner.sample())


def bench(config: RLlibConfig, rounds: int, learn: bool) -> dict[str, Any]:
    """Env steps/s of ``rounds`` timed sampling rounds of ``config``'s env runners (and,
    with ``learn``, one training iteration's seconds). Needs Ray started."""
    torch.set_num_threads(config.torch_threads)
    algorithm = algorithm_config(config).build_algo()
    try:
        if config.env_runner == "batched":
            pool_callback(algorithm).add_snapshot(algorithm, 0)
        group = algorithm.env_runner_group
        group.foreach_env_runner(sample_steps, local_env_runner=False)  # warm-up
        steps, seconds = 0, 0.0
        for _ in range(rounds):
            start = time.perf_counter()
            steps += sum(group.foreach_env_runner(sample_steps, local_env_runner=False))
            seconds += time.perf_counter() - start
        figures: dict[str, Any] = {
            "env_runner": config.env_runner,
            "env_runners": config.num_env_runners,
            "games_per_runner": (
                config.num_envs_per_env_runner if config.env_runner == "batched" else 1
            ),
            "env_steps": steps,
            "seconds": round(seconds, 2),
            "env_steps_per_s": round(steps / seconds, 1),
        }
        if learn:
            start = time.perf_counter()
            result = algorithm.train()
            figures["train_iteration_s"] = round(time.perf_counter() - start, 2)
            update = result.get(TIMERS, {}).get(LEARNER_UPDATE_TIMER)
            figures["update_s"] = round(float(update), 2) if update is not None else None
        return figures
    finally:
        algorithm.stop()


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(
        prog="python -m training.rllib_bench", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--config", default="configs/splut/rllib_2p.yaml")
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2], help="env runners")
    parser.add_argument("--games", type=int, default=128, help="games per runner (batched)")
    parser.add_argument("--steps", type=int, default=8192, help="env steps per runner per round")
    parser.add_argument("--rounds", type=int, default=3, help="timed sampling rounds")
    parser.add_argument("--learn", action="store_true", help="also time one train() iteration")
    parser.add_argument("--env-runner", choices=["batched", "multi_agent"], default="batched")
    parser.add_argument("overrides", nargs="*", help="config overrides, e.g. max_turns=100")
    args = parser.parse_args(argv)
    if args.rounds < 1 or min(args.runners) < 1:
        parser.error(
            f"--rounds and --runners must be at least 1, got {args.rounds}, {args.runners}"
        )
    overrides = [
        f"env_runner={args.env_runner}",
        f"num_envs_per_env_runner={args.games}",
        f"ppo.n_steps={args.steps}",
        *args.overrides,
    ]
    configs = []
    try:
        for runners in args.runners:
            more = [*overrides, f"num_env_runners={runners}", "eval_games=0"]
            configs.append(load_config(args.config, more, kind=RLlibConfig))
    except ConfigError as err:
        parser.error(str(err))
    ray.init(num_cpus=max(args.runners), include_dashboard=False, log_to_driver=False)
    rows: list[dict[str, Any]] = []
    try:
        for config in configs:
            rows.append(bench(config, args.rounds, args.learn))
            base = rows[0]["env_steps_per_s"]
            rows[-1]["speedup"] = round(rows[-1]["env_steps_per_s"] / base, 2)
            print(json.dumps(rows[-1]), flush=True)
    finally:
        ray.shutdown()
    return rows


if __name__ == "__main__":
    main()
