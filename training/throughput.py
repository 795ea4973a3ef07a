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
from training import threads

BUSY = "while True: pass"
SETTINGS = ("alone", "beside_busy", "beside_nice19")


def measure(config_path: str, steps: int, snapshots: int, overrides: list[str]) -> float:
    """Learner steps/s of ``steps`` PPO steps on ``config_path`` in this process, after a
    first rollout and update that are not timed (they compile and warm the caches)."""
    from sb3_contrib import MaskablePPO  # noqa: F401 (imported before the clock starts)

    from training.config import load_config
    from training.pool import SnapshotPool
    from training.train import RunState, SelfPlayCallback, make_vec_env, new_model, seed_everything

    never = 10**12
    config = load_config(
        Path(config_path),
        [
            "pretrain.games=0",
            "pretrain.dagger_rounds=0",
            f"eval.every={never}",
            f"checkpoint_every={never}",
            *overrides,
        ],
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


def run_child(args: argparse.Namespace, beside: str, before: bool = False) -> float:
    """One measurement in a fresh process, beside nothing, a busy loop or a nice-19 one."""
    busy = None
    if beside != "alone":
        prefix = ["nice", "-n", "19"] if beside == "beside_nice19" else []
        busy = subprocess.Popen([*prefix, sys.executable, "-c", BUSY])
    try:
        command = [sys.executable, "-m", "training.throughput", "--child", "--config"]
        command += [args.config, "--steps", str(args.steps), "--snapshots", str(args.snapshots)]
        command += ["--as-before"] if before else []
        done = subprocess.run(
            [*command, *args.overrides], check=True, capture_output=True, text=True
        )
        out = done.stdout
        chosen = [line for line in done.stderr.splitlines() if line.startswith("threads by")]
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    if chosen and not args.json:
        print(f"{'':>25}({chosen[-1]})", flush=True)
    return float(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/splut/default.yaml")
    parser.add_argument("--steps", type=int_range(1000), default=65_536)
    parser.add_argument("--snapshots", type=int_range(0, 50), default=5)
    parser.add_argument(
        "--beside",
        nargs="+",
        choices=SETTINGS,
        default=list(SETTINGS),
        help="which measurements to make (default: all three)",
    )
    parser.add_argument(
        "--reference",
        action="store_true",
        help="also measure the trainer with a fixed thread count (thread_policy=fixed, as "
        "before thread tuning), interleaved in the same run",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--as-before", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("overrides", nargs="*", help="config overrides, e.g. torch_threads=1")
    args = parser.parse_args(argv)
    if args.child:
        overrides = list(args.overrides)
        if args.as_before:
            overrides.append("thread_policy=fixed")
        print(measure(args.config, args.steps, args.snapshots, overrides))
        return
    rates = {}
    # Interleaved, so that a change in the machine's load touches both alike.
    runs = [(b, before) for b in args.beside for before in (False, True)[: 1 + args.reference]]
    for beside, before in runs:
        key = f"{beside} (before)" if before else beside
        rates[key] = run_child(args, beside, before)
        if not args.json:
            print(f"{key:>23}: {rates[key]:8.0f} learner steps/s", flush=True)
    ratios = {}
    for key, rate in rates.items():
        base = rates.get("alone (before)" if key.endswith("(before)") else "alone")
        if base and not key.startswith("alone"):
            ratios[key] = rate / base
    if "alone (before)" in rates and "alone" in rates:
        ratios["alone vs alone (before)"] = rates["alone"] / rates["alone (before)"]
    if args.json:
        print(json.dumps({"steps_per_second": rates, "ratio_to_alone": ratios}))
    else:
        for k, r in ratios.items():
            print(f"{k:>23}: {r:8.2f}" + ("" if k.startswith("alone") else " x alone"))


if __name__ == "__main__":
    main()
