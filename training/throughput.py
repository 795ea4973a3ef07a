"""How the trainer holds up on a shared machine: ``python -m training.throughput``.

Runs the self-play trainer's inner loop (the default config's environments, network, PPO
update and a pool of ``--snapshots`` snapshots; no warm start, no evaluation) for
``--steps`` learner steps three times in one run: alone, beside one busy single-threaded
process (``python -c 'while True: pass'``), and beside the same process at ``nice 19``. It
prints learner steps/s for each and the ratios to the run alone, which is the figure to
compare between machines (``--json`` prints them as one JSON object).

Each measurement is a fresh child process, so that the thread settings it reads at start
(:func:`training.threads.configure`) apply as they do in ``python -m training.train``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabletop.cli import int_range

BUSY = "while True: pass"
SETTINGS = ("alone", "beside_busy", "beside_nice19")


def measure(config_path: str, steps: int, snapshots: int, overrides: list[str]) -> float:
    """Learner steps/s of ``steps`` PPO steps on ``config_path`` in this process, after a
    first rollout and update that are not timed (they compile and warm the caches)."""
    from sb3_contrib import MaskablePPO  # noqa: F401 (imported before the clock starts)

    from training import threads
    from training.config import load_config
    from training.pool import SnapshotPool
    from training.train import RunState, SelfPlayCallback, make_vec_env, new_model, seed_everything

    never = 10**12
    config = load_config(
        Path(config_path),
        ["pretrain.games=0", f"eval.every={never}", f"checkpoint_every={never}", *overrides],
    )
    seed_everything(config.seed)
    threads.configure(config.torch_threads)
    clock = {"env": 0.0}
    vec_env = make_vec_env(config, clock)
    run_dir = Path(tempfile.mkdtemp(prefix="throughput_"))
    model = new_model(config, vec_env, run_dir)
    model.tensorboard_log = None
    pool = SnapshotPool(max(snapshots, 1))
    for k in range(snapshots):
        pool.add(model.policy, k)
    vec_env.env_method("set_pool", pool.payload())
    state = RunState(next_snapshot=never, next_eval=never, next_checkpoint=never)

    class Timed(SelfPlayCallback):
        def checkpoint(self, steps: int) -> None:  # measured runs save nothing
            self.last_checkpoint = steps

    callback = Timed(config, run_dir, pool, state, clock)
    rollout = config.n_envs * config.ppo.n_steps
    model.learn(rollout, callback=callback, reset_num_timesteps=True)
    start = time.perf_counter()
    model.learn(max(steps, rollout), callback=callback, reset_num_timesteps=False)
    seconds = time.perf_counter() - start
    vec_env.close()
    shutil.rmtree(run_dir, ignore_errors=True)
    print(f"threads by phase: {callback.threads.summary()}", file=sys.stderr)
    return (model.num_timesteps - rollout) / seconds


def run_child(args: argparse.Namespace, beside: str) -> float:
    """One measurement in a fresh process, beside nothing, a busy loop or a nice-19 one."""
    busy = None
    if beside != "alone":
        prefix = ["nice", "-n", "19"] if beside == "beside_nice19" else []
        busy = subprocess.Popen([*prefix, sys.executable, "-c", BUSY])
    try:
        command = [sys.executable, "-m", "training.throughput", "--child", "--config"]
        command += [args.config, "--steps", str(args.steps), "--snapshots", str(args.snapshots)]
        out = subprocess.run(
            [*command, *args.overrides], check=True, capture_output=True, text=True
        ).stdout
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    return float(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--steps", type=int_range(1000), default=65_536)
    parser.add_argument("--snapshots", type=int_range(0, 50), default=5)
    parser.add_argument(
        "--beside",
        nargs="+",
        choices=SETTINGS,
        default=list(SETTINGS),
        help="which measurements to make (default: all three)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("overrides", nargs="*", help="config overrides, e.g. torch_threads=1")
    args = parser.parse_args(argv)
    if args.child:
        print(measure(args.config, args.steps, args.snapshots, args.overrides))
        return
    rates = {}
    for beside in args.beside:
        rates[beside] = run_child(args, beside)
        if not args.json:
            print(f"{beside:>14}: {rates[beside]:8.0f} learner steps/s", flush=True)
    alone = rates.get("alone")
    ratios = {k: r / alone for k, r in rates.items() if alone and k != "alone"}
    if args.json:
        print(json.dumps({"steps_per_second": rates, "ratio_to_alone": ratios}))
    else:
        for k, r in ratios.items():
            print(f"{k:>14}: {r:8.2f} x alone")


if __name__ == "__main__":
    main()
