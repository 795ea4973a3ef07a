"""Fit the weights of Talat's search evaluation to game outcomes:

    python -m training.talat_weights --games 1600 --out results/talat_3p_weights

Plays 3-player games of ``search:hard`` tables (two ``search:hard`` and ``greedy``, and three
``search:hard``; seats rotated, each game seeded), records at every position each seat's
score and positional features (:func:`talat_env.players.bots.feature_counts`), and fits by
maximum likelihood the model that the winner of the game is seat ``s`` with probability

    softmax_s( a * (score_s + sum_f w_f * feature_f(s)) + c * [s is greedy] )

(a win shared by k seats counts 1/k for each). The greedy term absorbs the strength gap
between the players, so that the weights say what a position is worth and not who tends to
reach it. ``w`` are the fitted evaluation weights, in points (the score's weight is 1, as in
:func:`~talat_env.players.bots.evaluate`). Every fifth game is held out: the report compares
its log-loss under the fitted and the hand-set weights (:data:`~talat_env.players.bots.HAND`),
each at its best scale ``a``. ``search:expert`` plays no game here: it stays the yardstick.

Writes ``weights.json`` (the fit, the data's size and the held-out losses) and
``summary.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from talat_env import rules
from talat_env.players import make_agent
from talat_env.players.bots import FEATURES, HAND, Weights, feature_counts
from talat_env.players.ladder import play_game

#: The tables the games are played at (seats rotated from game to game).
TABLES = (
    ("search:hard", "search:hard", "greedy"),
    ("search:hard", "search:hard", "search:hard"),
)
#: Every ``HOLD_OUT``-th game is kept out of the fit.
HOLD_OUT = 5


@dataclass
class Positions:
    """Every position of some games: per seat its score, features and whether it is
    ``greedy``; the game's result per seat (1/k for each of k winners); the game's index."""

    scores: np.ndarray  # (N, seats)
    features: np.ndarray  # (N, seats, len(FEATURES))
    greedy: np.ndarray  # (N, seats)
    result: np.ndarray  # (N, seats)
    game: np.ndarray  # (N,)

    @staticmethod
    def join(parts: Sequence[Positions]) -> Positions:
        """The positions of ``parts``, in order."""
        return Positions(
            *(
                np.concatenate([getattr(p, name) for p in parts])
                for name in Positions.__annotations__
            )
        )


def table_of(index: int) -> tuple[str, ...]:
    """The players of game ``index``, seat by seat."""
    table = TABLES[index % len(TABLES)]
    turn = (index // len(TABLES)) % len(table)
    return table[turn:] + table[:turn]


def play_positions(index: int, seed: int = 0) -> Positions:
    """Game ``index`` (seeded ``seed + index``) at :func:`table_of` its index, position by
    position."""
    names = table_of(index)
    game_seed = seed + index
    game = play_game([make_agent(name, seed=game_seed) for name in names], seed=game_seed)
    state = rules.initial_state(len(names))
    scores, features = [], []
    for move in game.moves:
        scores.append(state.scores())
        features.append(feature_counts(state))
        state.apply(move)
    result = np.zeros(len(names))
    result[list(game.winners)] = 1.0 / len(game.winners)
    count = len(scores)
    return Positions(
        np.array(scores, dtype=np.float64),
        np.array(features, dtype=np.float64),
        np.tile([name == "greedy" for name in names], (count, 1)).astype(np.float64),
        np.tile(result, (count, 1)),
        np.full(count, index),
    )


def _play_job(job: tuple[int, int]) -> Positions:
    return play_positions(*job)


def play_games(games: int, seed: int = 0, workers: int = 1) -> Positions:
    """The positions of games ``0 .. games - 1`` (:func:`play_positions`), with a progress
    bar, on ``workers`` processes."""
    indices = range(games)
    bar = tqdm(total=games, desc="games", unit="game")
    parts: dict[int, Positions] = {}
    if workers <= 1:
        for index in indices:
            parts[index] = play_positions(index, seed)
            bar.update()
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            jobs = [(index, seed) for index in indices]
            for part in pool.imap_unordered(_play_job, jobs):
                parts[int(part.game[0])] = part
                bar.update()
    bar.close()
    return Positions.join([parts[index] for index in indices])


def _inputs(data: Positions) -> torch.Tensor:
    """Per position and seat: score, features, greedy (the model's columns)."""
    columns = np.concatenate([data.scores[..., None], data.features, data.greedy[..., None]], 2)
    return torch.from_numpy(columns)


def log_loss(data: Positions, coefficients: np.ndarray) -> float:
    """The mean negative log-likelihood of the results under ``coefficients`` (score,
    features, greedy)."""
    logits = (_inputs(data) * torch.from_numpy(np.asarray(coefficients, np.float64))).sum(-1)
    likelihood = torch.from_numpy(data.result) * torch.log_softmax(logits, -1)
    return float(-likelihood.sum(-1).mean())


@dataclass
class Fit:
    """A fit: the weights in points, the score's coefficient ``scale`` and the greedy
    term's, and the coefficients they come from."""

    weights: Weights
    scale: float
    greedy: float
    coefficients: np.ndarray


def fit(data: Positions, l2: float = 1e-4, leader: float = HAND.leader) -> Fit:
    """The maximum-likelihood coefficients of the module doc's model on ``data`` (an L2
    penalty ``l2``), as evaluation weights (``leader`` kept)."""
    inputs, result = _inputs(data), torch.from_numpy(data.result)
    theta = torch.zeros(inputs.shape[-1], dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.LBFGS([theta], max_iter=1000, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        optimiser.zero_grad()
        logits = (inputs * theta).sum(-1)
        loss = -(result * torch.log_softmax(logits, -1)).sum(-1).mean() + l2 * (theta**2).sum()
        loss.backward()
        return loss

    optimiser.step(closure)
    coefficients = theta.detach().numpy().copy()
    scale = float(coefficients[0])
    if scale <= 0:
        raise ValueError(f"the fitted score coefficient is {scale:.4g}: more games are needed")
    per_feature = coefficients[1 : 1 + len(FEATURES)] / scale
    return Fit(
        Weights(*(round(float(w), 3) for w in per_feature), leader=leader),
        scale,
        float(coefficients[-1]),
        coefficients,
    )


def best_scaled_loss(data: Positions, weights: Weights, greedy: float) -> tuple[float, float]:
    """The lowest :func:`log_loss` of ``weights`` (and the greedy term ``greedy``) over the
    scale ``a``, and that scale."""
    per_feature = np.array(weights[: len(FEATURES)])
    losses = []
    for scale in np.linspace(0.01, 1.0, 100):
        coefficients = np.concatenate([[scale], scale * per_feature, [greedy]])
        losses.append((log_loss(data, coefficients), float(scale)))
    return min(losses)


def split(data: Positions) -> tuple[Positions, Positions]:
    """``data``'s positions of fitted games and of held-out ones (every ``HOLD_OUT``-th)."""
    held = data.game % HOLD_OUT == 0
    pick = [
        Positions(*(getattr(data, name)[rows] for name in Positions.__annotations__))
        for rows in (~held, held)
    ]
    return pick[0], pick[1]


def main(argv: Sequence[str] | None = None) -> None:
    """Play, fit and report (see the module doc)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1600, help="games to play (default 1600)")
    parser.add_argument("--seed", type=int, default=1000, help="seed of the first game")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the report")
    args = parser.parse_args(argv)
    if args.games < 2 * HOLD_OUT:
        parser.error(f"--games must be at least {2 * HOLD_OUT}, got {args.games}")
    data = play_games(args.games, args.seed, args.workers)
    train, held_out = split(data)
    result = fit(train)
    hand_loss, hand_scale = best_scaled_loss(held_out, HAND, result.greedy)
    fit_loss, fit_scale = best_scaled_loss(held_out, result.weights, result.greedy)
    report = {
        "games": args.games,
        "seed": args.seed,
        "tables": [list(t) for t in TABLES],
        "positions": len(data.game),
        "held_out_positions": len(held_out.game),
        "weights": result.weights._asdict(),
        "hand": HAND._asdict(),
        "score_coefficient": result.scale,
        "greedy_coefficient": result.greedy,
        "held_out_log_loss": {"fitted": fit_loss, "hand": hand_loss, "uniform": np.log(3)},
        "best_scale": {"fitted": fit_scale, "hand": hand_scale},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "weights.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        f"# Talat's evaluation weights fitted to {args.games} games",
        "",
        f"{len(data.game):,} positions ({len(held_out.game):,} of every {HOLD_OUT}th game held "
        f"out). Held-out log-loss of the winner: fitted {fit_loss:.4f}, hand-set "
        f"{hand_loss:.4f}, uniform {np.log(3):.4f}.",
        "",
        "| weight | hand-set | fitted |",
        "|---|---|---|",
        *(
            f"| `{name}` | {HAND[k]:.3f} | {result.weights[k]:.3f} |"
            for k, name in enumerate(FEATURES)
        ),
        "",
        f"Score coefficient {result.scale:.4f} per point; the greedy seat's term "
        f"{result.greedy:.3f}.",
    ]
    (args.out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
