"""Talat's evaluation as weighted features, and the fit of its weights to game outcomes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from talat_env import rules
from talat_env.players import make_agent
from talat_env.players.bots import FEATURES, HAND, Weights, evaluate, feature_counts, positional
from training.talat_weights import fit, play_positions
from training.weight_fit import Positions, log_loss, split


def _positions(seed: int, games: int) -> list[rules.State]:
    rng, found = random.Random(seed), []
    for game in range(games):
        state = rules.initial_state(2 + game % 2)
        while not state.is_over():
            found.append(state.copy())
            state.apply(rng.choice(state.legal_ids()))
    return found


def test_the_positional_terms_are_the_features_weighted():
    rng = np.random.default_rng(3)
    other = Weights(*rng.uniform(-1, 3, len(FEATURES)), leader=0.5)
    for state in _positions(seed=5, games=6):
        counts = np.array(feature_counts(state))
        for weights in (HAND, other):
            expected = counts @ np.array(weights[: len(FEATURES)])
            assert np.allclose(positional(state, weights), expected)


def test_other_weights_change_the_evaluation_and_leave_finished_games_alone():
    changed = Weights(*(2 * w for w in HAND[: len(FEATURES)]), leader=0.5)
    states = _positions(seed=6, games=4)
    assert any(evaluate(s, 0) != evaluate(s, 0, changed) for s in states if not s.is_over())
    state = states[-1].copy()
    rng = random.Random(0)
    while not state.is_over():
        state.apply(rng.choice(state.legal_ids()))
    assert evaluate(state, 1) == evaluate(state, 1, changed)


def _synthetic(coefficients: np.ndarray, positions: int, seed: int) -> Positions:
    rng = np.random.default_rng(seed)
    seats = 3
    scores = rng.integers(0, 30, (positions, seats)).astype(np.float64)
    features = rng.uniform(0, 4, (positions, seats, len(FEATURES)))
    greedy = np.zeros((positions, seats))
    greedy[np.arange(positions), rng.integers(0, seats, positions)] = 1.0
    columns = np.concatenate([scores[..., None], features, greedy[..., None]], 2)
    logits = columns @ coefficients
    chance = np.exp(logits - logits.max(1, keepdims=True))
    chance /= chance.sum(1, keepdims=True)
    winner = (chance.cumsum(1) > rng.random((positions, 1))).argmax(1)
    result = np.zeros((positions, seats))
    result[np.arange(positions), winner] = 1.0
    return Positions(scores, features, greedy, result, np.arange(positions))


def test_the_fit_recovers_the_weights_that_made_the_results():
    weights = np.linspace(0.2, 2.0, len(FEATURES))
    scale = 0.25
    truth = np.concatenate([[scale], scale * weights, [-3.0]])
    data = _synthetic(truth, positions=40_000, seed=7)
    train, held_out = split(data)
    result = fit(train, l2=0.0)
    assert result.scale == pytest.approx(scale, rel=0.1)
    assert result.greedy == pytest.approx(-3.0, abs=0.3)
    assert np.allclose(result.weights[: len(FEATURES)], weights, atol=0.15)
    assert log_loss(held_out, result.coefficients) < log_loss(held_out, truth) + 0.01


def test_the_positions_of_a_game_carry_its_result_and_every_seat():
    data = play_positions(0, seed=11)
    count = len(data.game)
    assert count > 27  # the set-up and some play
    assert data.features.shape == (count, 3, len(FEATURES))
    assert np.allclose(data.result.sum(1), 1.0)
    assert data.greedy[0].tolist() == [0.0, 0.0, 1.0]  # game 0: hard, hard, greedy
    assert np.all(data.scores[0] == 0)


def test_the_fitted_search_player_plays_with_the_fitted_weights():
    from talat_env.players.bots import FITTED_3P

    agent = make_agent("search:fitted=200", seed=1)
    assert agent.weights == FITTED_3P != HAND
    state = rules.initial_state(3)
    for _ in range(30):
        move = agent.choose(state)
        assert move in state.legal_ids()
        state.apply(move)
