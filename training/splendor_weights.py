"""Fit the weights of Splendor's search evaluation to game outcomes, one set per player
count:

    python -m training.splendor_weights --games 1500 --out results/splendor_weights

For each player count plays games of ``greedy`` against itself, one move in
:data:`EXPLORE` random (as the search players' rollouts play; each game seeded, its deal
shuffled), records at every position each seat's points and the counts of
:data:`~splendor_env.players.bots.FEATURES` (:func:`~splendor_env.players.bots.feature_counts`),
and fits the conditional logit of :mod:`training.weight_fit`: the weights of
:func:`~splendor_env.players.bots.evaluation` in points, and its temperature (one over the
points' coefficient). Every fifth game is held out: the report compares its log-loss under the
fitted and the hand-set weights (:data:`~splendor_env.players.bots.HAND`, at its best scale
and at its own temperature). No search player plays a game here: ``search:hard`` stays the
yardstick.

Writes ``weights.json`` (the fits, the data's sizes and the held-out losses) and
``summary.md`` to ``--out``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from functools import partial

import numpy as np

from splendor_env import rules
from splendor_env.players.bots import FEATURES, HAND, Weights, feature_counts, greedy_move
from training import weight_fit
from training.weight_fit import HOLD_OUT, Positions, best_scaled_loss, log_loss, play_games, split

#: The share of random moves in the games.
EXPLORE = 0.1


def play_positions(index: int, seed: int = 0, num_players: int = 2) -> Positions:
    """Game ``index`` of ``num_players`` (seeded ``seed + index``), position by position."""
    game_seed = seed + index
    rng = random.Random(game_seed)
    state = rules.initial_state(num_players, seed=game_seed)
    scores, features = [], []
    while state.to_move >= 0:  # the rules end a game at their round cap
        scores.append(list(state.points))
        features.append([feature_counts(state, s) for s in range(num_players)])
        if rng.random() < EXPLORE:
            legal = state.legal_move_ids()
            state.apply(legal[rng.randrange(len(legal))])
        else:
            state.apply(greedy_move(state))
    result = np.zeros(num_players)
    winners = state.winners() if state.to_move < 0 else []
    if winners:
        result[list(winners)] = 1.0 / len(winners)
    else:
        result[:] = 1.0 / num_players
    count = len(scores)
    return Positions(
        np.array(scores, dtype=np.float64),
        np.array(features, dtype=np.float64),
        np.zeros((count, num_players)),
        np.tile(result, (count, 1)),
        np.full(count, index),
    )


def fit(data: Positions, l2: float = 1e-4) -> Weights:
    """The fitted evaluation weights on ``data`` (:func:`training.weight_fit.fit`), the
    temperature one over the points' coefficient."""
    result = weight_fit.fit(data, l2)
    return Weights(*result.weights, temperature=round(1 / result.scale, 3))


def report(data: Positions, num_players: int) -> dict:
    """Fit on ``data``'s fitted games, compare on its held-out ones."""
    train, held_out = split(data)
    weights = fit(train)
    own = len(FEATURES)
    hand_best, hand_scale = best_scaled_loss(held_out, HAND[:own], 0.0)
    hand_own = log_loss(held_out, _coefficients(HAND))
    fitted = log_loss(held_out, _coefficients(weights))
    return {
        "players": num_players,
        "games": int(data.game.max()) + 1,
        "positions": len(data.game),
        "held_out_positions": len(held_out.game),
        "weights": weights._asdict(),
        "held_out_log_loss": {
            "fitted": fitted,
            "hand": hand_own,
            "hand_best_scale": hand_best,
            "uniform": float(np.log(num_players)),
        },
        "hand_best_temperature": 1 / hand_scale,
    }


def _coefficients(weights: Weights) -> np.ndarray:
    """The model's coefficients (points, features, greedy) of an evaluation's weights."""
    scale = 1 / weights.temperature
    return np.concatenate([[scale], scale * np.array(weights[: len(FEATURES)]), [0.0]])


def main(argv: Sequence[str] | None = None) -> None:
    """Play, fit and report (see the module doc)."""
    parser = weight_fit.command_line(__doc__, 1500, "games per player count (default 1500)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    args = weight_fit.parse(parser, argv)
    games = (args.games, args.seed, args.workers)
    try:
        reports = [
            report(play_games(partial(play_positions, num_players=n), *games), n)
            for n in args.players
        ]
    except ValueError as err:
        parser.error(str(err))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "weights.json").write_text(
        json.dumps({"seed": args.seed, "explore": EXPLORE, "fits": reports}, indent=2) + "\n"
    )
    lines = [f"# Splendor's evaluation weights fitted to {args.games} games a player count", ""]
    for r in reports:
        loss = r["held_out_log_loss"]
        fitted = Weights(**r["weights"])
        lines += [
            f"## {r['players']} players",
            "",
            f"{r['positions']:,} positions ({r['held_out_positions']:,} of every {HOLD_OUT}th "
            f"game held out). Held-out log-loss of the winner: fitted {loss['fitted']:.4f}, "
            f"hand-set {loss['hand']:.4f} (at its best temperature "
            f"{r['hand_best_temperature']:.2f}: {loss['hand_best_scale']:.4f}), uniform "
            f"{loss['uniform']:.4f}.",
            "",
            *weight_fit.weights_table(Weights._fields, HAND, fitted),
            "",
        ]
    (args.out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
