"""Splendor's evaluation as weighted feature counts, its fit to game outcomes
(training/splendor_weights.py) and ``search:fitted``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from splendor_env import rules
from splendor_env.players import make_agent
from splendor_env.players.bots import (
    FEATURES,
    FITTED,
    HAND,
    Weights,
    evaluation,
    feature_counts,
    heuristic,
    win_chances,
)
from training.splendor_weights import fit, play_positions
from training.weight_fit import Positions, split


def _positions(num_players: int, seed: int, count: int = 60) -> list[rules.State]:
    rng = random.Random(seed)
    state = rules.initial_state(num_players, seed=seed)
    seen = []
    while state.to_move >= 0 and len(seen) < count:
        seen.append(state.copy())
        legal = state.legal_move_ids()
        state.apply(legal[rng.randrange(len(legal))])
    return seen


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_hand_set_weights_are_the_heuristic(num_players):
    for state in _positions(num_players, seed=num_players):
        for seat in range(num_players):
            assert len(feature_counts(state, seat)) == len(FEATURES)
            assert evaluation(state, seat, HAND) == pytest.approx(heuristic(state, seat))
        assert win_chances(state, HAND) == pytest.approx(win_chances(state))


def test_other_weights_change_the_chances_and_leave_finished_games_alone():
    state = _positions(3, seed=5, count=40)[-1]
    assert win_chances(state, FITTED[3]) != pytest.approx(win_chances(state))
    assert sum(win_chances(state, FITTED[3])) == pytest.approx(1.0)
    rng = random.Random(0)
    while state.to_move >= 0:
        legal = state.legal_move_ids()
        state.apply(legal[rng.randrange(len(legal))])
    assert win_chances(state, FITTED[3]) == win_chances(state)


def test_the_fit_recovers_the_weights_and_the_temperature():
    rng = np.random.default_rng(3)
    truth = Weights(2.5, 0.4, 0.6, 4.0, -2.5, 0.2, temperature=3.0)
    positions, seats = 30_000, 2
    scores = rng.integers(0, 16, (positions, seats)).astype(np.float64)
    features = rng.uniform(0, 3, (positions, seats, len(FEATURES)))
    logits = (scores + features @ np.array(truth[: len(FEATURES)])) / truth.temperature
    chances = np.exp(logits - logits.max(1, keepdims=True))
    chances /= chances.sum(1, keepdims=True)
    winner = (rng.random(positions)[:, None] > np.cumsum(chances, 1)).sum(1)
    result = np.zeros((positions, seats))
    result[np.arange(positions), winner] = 1.0
    data = Positions(scores, features, np.zeros_like(scores), result, np.arange(positions))
    fitted = fit(split(data)[0], l2=0.0)
    assert fitted.temperature == pytest.approx(truth.temperature, rel=0.1)
    assert np.allclose(fitted[: len(FEATURES)], truth[: len(FEATURES)], atol=0.3)


def test_the_positions_of_a_game_carry_its_result_and_every_seat():
    data = play_positions(4, seed=11, num_players=3)
    count = len(data.game)
    assert count > 30
    assert data.features.shape == (count, 3, len(FEATURES))
    assert np.allclose(data.result.sum(1), 1.0)
    assert np.all(data.result == data.result[0])
    assert np.all(data.scores[0] == 0) and data.scores[-1].max() > 0
    assert np.all(data.game == 4) and not data.greedy.any()


def test_the_fitted_search_player_plays_with_the_weights_of_its_table_size():
    agent = make_agent("search:fitted=60", seed=1)
    assert agent.name == "search:fitted=60"
    assert agent.weights == FITTED and FITTED[2] != HAND
    for num_players in (2, 4):
        state = rules.initial_state(num_players, seed=num_players)
        for _ in range(12):
            move = agent.act(state)
            assert move in state.legal_move_ids()
            state.apply(move)
    assert make_agent("search:hard=60").weights == {}


def test_the_command_refuses_too_few_games(tmp_path, capsys):
    from training.splendor_weights import main

    with pytest.raises(SystemExit):
        main(["--games", "3", "--out", str(tmp_path)])
    assert "--games must be at least 10, got 3" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
