"""Tune ``search:expert``'s evaluation weights by matches (SPSA).

    python -m training.tune [--iterations 100] [--games 64] [--nodes 300] [--workers 2]
                            [--out results/tune_expert] [--seed 0]
                            [--check GAMES] [--check-nodes 1000] [--check-only]

Simultaneous perturbation stochastic approximation, as engine authors tune evaluations,
from the bots' hand-set weights (the result is what ``search:expert`` plays with:
:data:`splut_env.batched.bots.EXPERT_WEIGHTS`):
every iteration draws a random sign per weight, plays ``games`` two-player games between
the weights moved up and down by those signs (batched, compiled, seats alternated, each
pair of games from its own random opening), and moves the weights along the signs by the
score difference. The weights are tuned in log space relative to the dwarf's (an
evaluation's scale does not change alpha-beta's choices); the per-opponent weight is
constant with two players and stays as it is. The search runs at a small node budget
(``--nodes``) to make games cheap; ``--check GAMES`` then plays the tuned weights against
the start at a larger budget (``--check-nodes``), and ``--check-only`` does only that for a
finished run.

Writes ``tune.json`` (the weights after every iteration, the final ones, the settings) and
``tune.png`` (the weights' path) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from tqdm import tqdm

from splut_env.batched import BatchedBot, BatchedGames, kernels
from training.stats import wilson

#: The weights SPSA moves (indices into the evaluation's weights): rock next to the troll,
#: rock distance, wizard distance, kill throw; the dwarf's fixes the scale.
TUNED = (1, 2, 3, 4)
#: Where tuning starts: the bots' hand-set weights.
BOT_WEIGHTS = tuple(float(w) for w in kernels.EVAL_WEIGHTS)
NAMES = (
    "dwarf",
    "rock next to troll",
    "rock distance",
    "wizard distance",
    "kill throw",
    "opponent",
)


def match(
    weights_a: tuple[float, ...],
    weights_b: tuple[float, ...],
    games: int,
    nodes: int,
    seed: int,
    openings: int = 4,
    max_turns: int = 200,
) -> tuple[int, int, int]:
    """``(wins of a, wins of b, draws)`` over ``games`` (even) two-player games of
    ``search:expert`` with two sets of weights: game ``2k`` and ``2k + 1`` start from the
    same ``openings`` random steps with the seats swapped."""
    if games < 2 or games % 2:
        raise ValueError(f"games must be an even number of at least 2, got {games!r}")
    rng = np.random.default_rng(seed)
    board = BatchedGames(games, 2, max_turns)
    for _ in range(openings):
        live = np.flatnonzero(board.to_move() >= 0)
        acts = board.random_actions(rng)
        acts[1::2] = acts[0::2]  # a pair's two games play the same opening
        board.step(acts[live], live)
    bots = (
        BatchedBot("search:expert", seed=seed, weights=weights_a, nodes=nodes),
        BatchedBot("search:expert", seed=seed + 1, weights=weights_b, nodes=nodes),
    )
    # Seats 0 and 2 play two-player games; bot a has seat 0 in even games.
    while True:
        live = np.flatnonzero((board.to_move() >= 0) & (board.turn() <= max_turns))
        if not live.size:
            break
        who = ((board.to_move(live) > 0).astype(np.int64) + live) % 2
        acts = np.empty(live.size, dtype=np.int64)
        for k, bot in enumerate(bots):
            chosen = who == k
            if chosen.any():
                acts[chosen] = bot.act_games(board, live[chosen])
        board.step(acts, live)
    winner = board.winner()
    wins = [0, 0, 0]
    for i, seat in enumerate(winner):
        wins[2 if seat < 0 else (int(seat > 0) + i) % 2] += 1
    return wins[0], wins[1], wins[2]


def _match(args: tuple) -> tuple[int, int, int]:
    return match(*args)


def _play(
    pool: ProcessPoolExecutor,
    weights_a: tuple[float, ...],
    weights_b: tuple[float, ...],
    games: int,
    nodes: int,
    seeds: list[int],
) -> tuple[int, int, int]:
    """:func:`match` split evenly over ``len(seeds)`` workers of ``pool``, summed."""
    per_worker = max(2, games // len(seeds) // 2 * 2)
    jobs = [(weights_a, weights_b, per_worker, nodes, seed) for seed in seeds]
    wins, losses, draws = np.array(list(pool.map(_match, jobs))).sum(axis=0)
    return int(wins), int(losses), int(draws)


def _pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def spsa(
    iterations: int,
    games: int,
    nodes: int,
    workers: int,
    seed: int,
    start: tuple[float, ...] = BOT_WEIGHTS,
    c: float = 0.3,
    a: float = 0.6,
    progress: bool = True,
    out: Path | None = None,
) -> dict:
    """Run SPSA from ``start``; the history (weights per iteration, scores) and result,
    also written to ``out/tune.json`` after every iteration when ``out`` is given."""
    rng = np.random.default_rng(seed)
    theta = np.log(np.asarray(start, dtype=np.float64)[list(TUNED)])
    big_a = max(1.0, 0.1 * iterations)
    history = []
    with _pool(workers) as pool:
        bar = tqdm(range(1, iterations + 1), desc="SPSA", disable=not progress, file=sys.stdout)
        for k in bar:
            ck = c / k**0.101
            ak = a / (big_a + k) ** 0.602
            delta = rng.choice([-1.0, 1.0], size=theta.size)
            plus, minus = _weights(start, theta + ck * delta), _weights(start, theta - ck * delta)
            seeds = [int(rng.integers(2**31)) for _ in range(workers)]
            results = _play(pool, plus, minus, games, nodes, seeds)
            played = sum(results)
            score = (results[0] - results[1]) / played  # in [-1, 1]
            theta = theta + ak * score / (2 * ck) * delta
            current = _weights(start, theta)
            history.append(
                {"iteration": k, "score": float(score), "games": played, "weights": list(current)}
            )
            bar.set_postfix(score=f"{score:+.3f}", w=" ".join(f"{v:.3f}" for v in current))
            result = {
                "start": list(start),
                "weights": list(current),
                "settings": {
                    "iterations": iterations,
                    "games": games,
                    "nodes": nodes,
                    "seed": seed,
                    "c": c,
                    "a": a,
                },
                "history": history,
            }
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                (out / "tune.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def check(
    weights: tuple[float, ...],
    start: tuple[float, ...],
    games: int,
    nodes: int,
    workers: int,
    seed: int,
) -> dict:
    """``weights`` against ``start`` over ``games`` games at ``nodes`` (split over
    ``workers``): wins, losses, draws, the score and its Wilson 95 % interval."""
    with _pool(workers) as pool:
        wins, losses, draws = _play(
            pool, weights, start, games, nodes, [seed + 7919 * k for k in range(workers)]
        )
    played = wins + losses + draws
    score = (wins + 0.5 * draws) / played
    return {
        "games": played,
        "nodes": nodes,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "score": score,
        "interval": list(wilson(wins + 0.5 * draws, played)),
    }


def _weights(start: tuple[float, ...], theta: np.ndarray) -> tuple[float, ...]:
    w = list(start)
    for i, v in zip(TUNED, np.exp(theta), strict=True):
        w[i] = round(float(v), 4)
    return tuple(w)


def plot(result: dict, path: Path) -> None:
    """The tuned weights' path over the iterations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    history = result["history"]
    its = [h["iteration"] for h in history]
    fig, ax = plt.subplots(figsize=(7, 4))
    for i in TUNED:
        ax.plot(its, [h["weights"][i] for h in history], label=NAMES[i])
    ax.set_xlabel("SPSA iteration")
    ax.set_ylabel("weight (dwarf = 1)")
    ax.set_yscale("log")
    ax.set_title(
        f"search:expert evaluation weights, {result['settings']['games']} games per "
        f"iteration at {result['settings']['nodes']} nodes"
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--games", type=int, default=64, help="games per iteration")
    parser.add_argument("--nodes", type=int, default=300, help="the expert's node budget")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("results/tune_expert"))
    parser.add_argument(
        "--check",
        type=int,
        default=0,
        metavar="GAMES",
        help="then play this many games of the tuned weights against the start",
    )
    parser.add_argument("--check-nodes", type=int, default=1000, help="the node budget of --check")
    parser.add_argument(
        "--check-only", action="store_true", help="no tuning: check --out's tune.json"
    )
    args = parser.parse_args(argv)
    for name in ("iterations", "games", "nodes", "workers", "check_nodes"):
        if getattr(args, name) < 1:
            flag = name.replace("_", "-")
            parser.error(f"--{flag} must be at least 1, got {getattr(args, name)}")
    if args.games < 2 * args.workers:
        parser.error(
            f"--games must be at least 2 per worker ({2 * args.workers}), got {args.games}"
        )
    path = args.out / "tune.json"
    if args.check_only:
        if not path.is_file():
            parser.error(f"--check-only reads {str(path)!r}, which does not exist: tune first")
        result = json.loads(path.read_text())
    else:
        result = spsa(
            args.iterations, args.games, args.nodes, args.workers, args.seed, out=args.out
        )
        plot(result, args.out / "tune.png")
        print(
            "tuned weights:",
            ", ".join(f"{n} {w}" for n, w in zip(NAMES, result["weights"], strict=True)),
        )
    if args.check or args.check_only:
        games = args.check or 200
        print(f"checking: {games} games, tuned against start, at {args.check_nodes} nodes")
        c = result["check"] = check(
            tuple(result["weights"]),
            tuple(result["start"]),
            games,
            args.check_nodes,
            args.workers,
            args.seed + 1,
        )
        low, high = c["interval"]
        print(
            f"tuned against start: {c['wins']} wins, {c['losses']} losses, {c['draws']} draws: "
            f"score {100 * c['score']:.1f} % ({100 * low:.1f}-{100 * high:.1f} %)"
        )
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {path}" + ("" if args.check_only else f" and {args.out / 'tune.png'}"))


if __name__ == "__main__":
    main()
