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
Numbers depend on the machine's idle cores: run it alone. ``--cluster`` runs each count of
runners on a simulated cluster instead (``ray.cluster_utils.Cluster``: a head without CPUs
and one node of 1 CPU per runner), as on separate machines but sharing this one's cores.
``--out DIR`` writes the rows (``scaling.csv``) and a plot of env steps/s against runners
(``scaling.png``).
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
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


@contextmanager
def ray_with(runners: int, cluster: bool) -> Iterator[None]:
    """Ray for ``runners`` env runners: local with one CPU each, or a simulated cluster of
    one 1-CPU node each (and a head without CPUs)."""
    if not cluster:
        ray.init(num_cpus=runners, include_dashboard=False, log_to_driver=False)
        try:
            yield
        finally:
            ray.shutdown()
        return
    from ray.cluster_utils import Cluster

    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    try:
        for _ in range(runners):
            nodes.add_node(num_cpus=1)
        ray.init(address=nodes.address, include_dashboard=False, log_to_driver=False)
        try:
            yield
        finally:
            ray.shutdown()
    finally:
        nodes.shutdown()


def write_report(rows: list[dict[str, Any]], out: Path, cluster: bool) -> None:
    """``scaling.csv`` and ``scaling.png`` (env steps/s against env runners) in ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    with (out / "scaling.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    runners = [row["env_runners"] for row in rows]
    speeds = [row["env_steps_per_s"] for row in rows]
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(runners, speeds, "o-", label="measured")
    axes.plot(runners, [speeds[0] * r / runners[0] for r in runners], ":", label="linear")
    axes.set_xlabel("env runners" + (" (simulated nodes, 1 CPU each)" if cluster else ""))
    axes.set_ylabel("env steps/s (sampling)")
    axes.set_xticks(runners)
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(out / "scaling.png", dpi=100)
    plt.close(figure)


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
    parser.add_argument("--cluster", action="store_true", help="one simulated node per runner")
    parser.add_argument("--out", type=Path, default=None, help="folder for scaling.csv/.png")
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
    rows: list[dict[str, Any]] = []
    for config in configs:
        with ray_with(config.num_env_runners, args.cluster):
            rows.append(bench(config, args.rounds, args.learn))
        base = rows[0]["env_steps_per_s"]
        rows[-1]["speedup"] = round(rows[-1]["env_steps_per_s"] / base, 2)
        print(json.dumps(rows[-1]), flush=True)
    if args.out is not None:
        write_report(rows, args.out, args.cluster)
    return rows


if __name__ == "__main__":
    main()
