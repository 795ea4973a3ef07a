"""Statistics for evaluations: Wilson intervals, Elo (Bradley–Terry), a rating against a
fixed ladder, and free-for-all ratings."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959964


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default); ``(0, 1)`` when n = 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _bradley_terry(
    k: int, wins: list[float], pairs: dict[tuple[int, int], float], prior_games: float
) -> list[float]:
    """Bradley–Terry strengths by Hunter's MM algorithm (a virtual opponent of strength 1
    met ``prior_games`` times by everyone)."""
    gamma = [1.0] * k
    for _ in range(10_000):
        new = []
        for i in range(k):
            denom = prior_games / (gamma[i] + 1.0)
            for (a, b), n in pairs.items():
                if i in (a, b):
                    denom += n / (gamma[a] + gamma[b])
            new.append(wins[i] / denom if denom > 0 else gamma[i])
        change = max(abs(math.log(x / y)) for x, y in zip(new, gamma, strict=True))
        gamma = new
        if change < 1e-10:
            break
    return gamma


def elo_ratings(
    names: Sequence[str],
    games: Sequence[tuple[str, str, float]],
    prior_games: float = 1.0,
    anchor: str | None = None,
) -> dict[str, tuple[float, float]]:
    """Maximum-likelihood Elo ratings (the Bradley–Terry model) of 2-player results, each
    with its standard error: ``{name: (elo, sigma)}``.

    ``games`` holds ``(a, b, score_of_a)`` with score 1, 0.5 (draw) or 0. Each agent also
    gets ``prior_games`` virtual games, half won, against a virtual opponent rated 0, so
    that unbeaten agents keep a finite rating. Ratings are shifted so that ``anchor`` (or,
    without one, the mean) is 0; ``sigma`` is the standard error of an agent's rating
    relative to the mean of all of them (so it measures how well the agent is placed in the
    field, whatever the anchor), from the likelihood's curvature (the Fisher information).
    Fitted with Hunter's MM algorithm; order-independent.
    """
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    wins = [prior_games / 2] * k
    pairs: dict[tuple[int, int], float] = {}
    for a, b, score in games:
        i, j = index[a], index[b]
        wins[i] += score
        wins[j] += 1 - score
        key = (min(i, j), max(i, j))
        pairs[key] = pairs.get(key, 0.0) + 1
    gamma = _bradley_terry(k, wins, pairs, prior_games)
    info = np.zeros((k, k))
    for i in range(k):
        p = gamma[i] / (gamma[i] + 1.0)
        info[i, i] += prior_games * p * (1 - p)
    for (a, b), n in pairs.items():
        p = gamma[a] / (gamma[a] + gamma[b])
        w = n * p * (1 - p)
        info[a, a] += w
        info[b, b] += w
        info[a, b] -= w
        info[b, a] -= w
    cov = np.linalg.pinv(info)
    scale = 400 / math.log(10)
    elo = [400 * math.log10(g) for g in gamma]
    base = elo[index[anchor]] if anchor is not None else sum(elo) / k
    out = {}
    for n in names:
        d = np.full(k, -1.0 / k)
        d[index[n]] += 1.0
        out[n] = (elo[index[n]] - base, scale * math.sqrt(max(float(d @ cov @ d), 0.0)))
    return out


def ladder_rating(ladder: dict[str, float], results: dict[str, tuple[int, int, int]]) -> float:
    """The maximum-likelihood Elo of a player with ``results`` ``{bot: (wins, draws,
    games)}`` against bots of fixed ratings (draws count half); NaN without rated bots."""
    games = [(ladder[b], (w + d / 2), n) for b, (w, d, n) in results.items() if b in ladder and n]
    if not games:
        return math.nan
    # Half a win and half a loss against each bot keep the estimate finite.
    score = sum(s + 0.5 for _, s, _ in games)

    def expected(r: float) -> float:
        return sum((n + 1) / (1 + 10 ** ((b - r) / 400)) for b, _, n in games)

    low, high = min(b for b, _, _ in games) - 2000, max(b for b, _, _ in games) + 2000
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if expected(mid) < score else (low, mid)
    return (low + high) / 2


def finishing_ranks(num_seats: int, eliminated: Sequence[int]) -> list[int]:
    """Ranks (1 = best) of the seat positions of one free-for-all game: the winner first,
    then the others by how long they survived; players still in at a draw share a rank."""
    ranks = [0] * num_seats
    survivors = [s for s in range(num_seats) if s not in eliminated]
    for s in survivors:
        ranks[s] = 1
    for place, s in enumerate(reversed(eliminated)):
        ranks[s] = len(survivors) + 1 + place
    return ranks


def ffa_ratings(
    names: Sequence[str], games: Sequence[tuple[Sequence[str], Sequence[int]]]
) -> dict[str, tuple[float, float]]:
    """Plackett–Luce ratings (openskill) from ``(agents by seat, ranks by seat)`` games, in
    order: ``{name: (mu, sigma)}``; the conservative estimate is ``mu - 3 sigma``."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    for agents, ranks in games:
        teams = [[ratings[a]] for a in agents]
        for a, (new,) in zip(agents, model.rate(teams, ranks=list(ranks)), strict=True):
            ratings[a] = new
    return {n: (r.mu, r.sigma) for n, r in ratings.items()}


__all__ = ["Z95", "elo_ratings", "ffa_ratings", "finishing_ranks", "ladder_rating", "wilson"]
