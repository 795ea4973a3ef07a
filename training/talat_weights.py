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
each at its best scale ``a`` (the model and the fit: :mod:`training.weight_fit`). ``search:expert`` plays no game here: it stays the yardstick.

Writes ``weights.json`` (the fit, the data's size and the held-out losses) and
``summary.md`` to ``--out``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from talat_env import rules
from talat_env.players import make_agent
from talat_env.players.bots import FEATURES, HAND, Weights, feature_counts
from talat_env.players.ladder import play_game
from training import weight_fit
from training.weight_fit import HOLD_OUT, Positions, best_scaled_loss, play_games, split

#: The tables the games are played at (seats rotated from game to game).
TABLES = (
    ("search:hard", "search:hard", "greedy"),
    ("search:hard", "search:hard", "search:hard"),
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


def fit(data: Positions, l2: float = 1e-4, leader: float = HAND.leader) -> weight_fit.Fit:
    """:func:`training.weight_fit.fit` on ``data``, its weights as Talat's :class:`Weights`
    (``leader``, which no feature counts, kept)."""
    result = weight_fit.fit(data, l2)
    return replace(result, weights=Weights(*result.weights, leader=leader))


def main(argv: Sequence[str] | None = None) -> None:
    """Play, fit and report (see the module doc)."""
    parser = weight_fit.command_line(__doc__, 1600, "games to play (default 1600)")
    args = weight_fit.parse(parser, argv)
    data = play_games(play_positions, args.games, args.seed, args.workers)
    train, held_out = split(data)
    try:
        result = fit(train)
    except ValueError as err:
        parser.error(str(err))
    hand_loss, hand_scale = best_scaled_loss(held_out, HAND[: len(FEATURES)], result.greedy)
    fit_loss, fit_scale = best_scaled_loss(held_out, result.weights[: len(FEATURES)], result.greedy)
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
        *weight_fit.weights_table(FEATURES, HAND, result.weights),
        "",
        f"Score coefficient {result.scale:.4f} per point; the greedy seat's term "
        f"{result.greedy:.3f}.",
    ]
    (args.out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
