"""Fit a search evaluation's weights to game outcomes, for any game whose evaluation is a
seat's score plus weighted feature counts (``training.talat_weights``,
``training.splendor_weights``).

The model: the winner of a game is seat ``s`` with probability

    softmax_s( a * (score_s + sum_f w_f * feature_f(s)) + c * [s is greedy] )

at every position of the game (a win shared by k seats counts 1/k for each), a conditional
logit fitted by maximum likelihood. ``w`` are the evaluation's weights in points (the
score's weight is 1); ``a`` is one over the evaluation's temperature; the greedy term, where
a table mixes players of different strength, absorbs the gap between them so that the
weights say what a position is worth and not who tends to reach it. Every
:data:`HOLD_OUT`-th game is kept out of the fit to compare weights on.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

#: Every ``HOLD_OUT``-th game is kept out of the fit.
HOLD_OUT = 5


@dataclass
class Positions:
    """Every position of some games: per seat its score, features and whether it is
    ``greedy``; the game's result per seat (1/k for each of k winners); the game's index."""

    scores: np.ndarray  # (N, seats)
    features: np.ndarray  # (N, seats, features)
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

    def take(self, rows: np.ndarray) -> Positions:
        """The positions at ``rows`` (an index or a mask)."""
        return Positions(*(getattr(self, name)[rows] for name in Positions.__annotations__))


def _play_job(job: tuple[Callable[[int, int], Positions], int, int]) -> Positions:
    play, index, seed = job
    return play(index, seed)


def play_games(
    play: Callable[[int, int], Positions], games: int, seed: int = 0, workers: int = 1
) -> Positions:
    """The positions of games ``0 .. games - 1`` (``play(index, seed)``, a module-level
    function), with a progress bar, on ``workers`` processes."""
    indices = range(games)
    bar = tqdm(total=games, desc="games", unit="game")
    parts: dict[int, Positions] = {}
    if workers <= 1:
        for index in indices:
            parts[index] = play(index, seed)
            bar.update()
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            jobs = [(play, index, seed) for index in indices]
            for part in pool.imap_unordered(_play_job, jobs, chunksize=4):
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
    """A fit: the weights in points (one per feature), the score's coefficient ``scale``
    (one over the temperature) and the greedy term's, and the coefficients they come from."""

    weights: Sequence[float]
    scale: float
    greedy: float
    coefficients: np.ndarray


def fit(data: Positions, l2: float = 1e-4) -> Fit:
    """The maximum-likelihood coefficients of the module doc's model on ``data`` (an L2
    penalty ``l2``); raises ``ValueError`` if the score does not come out as making wins
    likelier (too few games)."""
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
    weights = [round(float(w), 3) for w in coefficients[1:-1] / scale]
    return Fit(weights, scale, float(coefficients[-1]), coefficients)


def best_scaled_loss(
    data: Positions, weights: Sequence[float], greedy: float
) -> tuple[float, float]:
    """The lowest :func:`log_loss` of ``weights`` (one per feature, in points; and the greedy
    term ``greedy``) over the scale ``a``, and that scale."""
    per_feature = np.asarray(weights, np.float64)
    losses = []
    for scale in np.linspace(0.01, 1.0, 100):
        coefficients = np.concatenate([[scale], scale * per_feature, [greedy]])
        losses.append((log_loss(data, coefficients), float(scale)))
    return min(losses)


def split(data: Positions) -> tuple[Positions, Positions]:
    """``data``'s positions of fitted games and of held-out ones (every ``HOLD_OUT``-th)."""
    held = data.game % HOLD_OUT == 0
    return data.take(~held), data.take(held)


def weights_table(
    features: Sequence[str], hand: Sequence[float], fitted: Sequence[float]
) -> list[str]:
    """A Markdown table of the hand-set and the fitted weights, feature by feature."""
    return [
        "| weight | hand-set | fitted |",
        "|---|---|---|",
        *(f"| `{name}` | {hand[k]:.3f} | {fitted[k]:.3f} |" for k, name in enumerate(features)),
    ]


def command_line(doc: str, games: int, games_help: str) -> argparse.ArgumentParser:
    """The fitting tools' common options: ``--games`` (default ``games``), ``--seed``,
    ``--workers`` and ``--out``; ``doc``'s first paragraph describes the tool."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=games, help=games_help)
    parser.add_argument("--seed", type=int, default=1000, help="seed of the first game")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the report")
    return parser


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """``parser``'s arguments, refusing too few games to hold some out."""
    args = parser.parse_args(argv)
    if args.games < 2 * HOLD_OUT:
        parser.error(f"--games must be at least {2 * HOLD_OUT}, got {args.games}")
    return args
