"""The expert bot (``search:expert``): exact where it must be, and its alpha-beta search
returns the minimax value."""

from __future__ import annotations

import numpy as np
import pytest
from test_tactics import play_turn, random_positions

from splut_env.batched import BatchedBot, BatchedGames
from splut_env.batched import bots as B
from splut_env.batched.bots import CompiledAgent
from splut_env.envs.match import play_game
from splut_env.players import make_agent
from splut_env.players.bots import WIN
from splut_env.players.tactics import exposed, threatens, turn_outcomes
from splut_env.rules import State

WEIGHTS = np.array(B.EXPERT_WEIGHTS)


def minimax(g: np.ndarray, seat: int, depth: int, ply: int) -> float:
    """The expert's search value without pruning or table: every turn of every player."""
    if g[B.K.TO_MOVE] < 0 or g[B.K.POS + seat * 3] < 0:
        return B._terminal_value(g, seat, ply)
    if depth == 0:
        return B._leaf(g, seat, ply, WEIGHTS)
    ends, _ = B._turn_ends(g)
    values = [minimax(end, seat, depth - 1, ply + 1) for end in ends]
    return max(values) if g[B.K.TO_MOVE] == seat else min(values)


def row(state: State) -> np.ndarray:
    games = BatchedGames(1, len(state.seats))
    games.set_state(0, state)
    return games.games[0].copy()


def test_the_seen_set_is_a_set_through_its_growth():
    """The open-addressing set of positions seen in a turn answers as a Python set, key 0
    (the free-slot mark, stored as 1) and negative keys included, while it grows."""
    rng = np.random.default_rng(0)
    keys = np.concatenate([[0, -1], rng.integers(-(2**63), 2**63 - 1, 3000), [5, 0, -1]])
    keys = np.concatenate([keys, keys[::7]])  # repeats
    table = np.zeros(B._SET_SIZE, dtype=np.int64)
    seen: set[int] = set()
    for key in keys:
        table, count = B._add(table, len(seen), key)
        assert (count > len(seen)) == (int(key) not in seen)
        seen.add(int(key))
    assert table.shape[0] > B._SET_SIZE and np.count_nonzero(table) == len(seen)


def test_compiled_turn_ends_and_threats_match_the_scalar_engine():
    """Over seeded random positions the compiled kernels find exactly the scalar engine's
    distinct end-of-turn positions, and the same threats on each seat's wizard."""
    checked = 0
    for _, state in random_positions(seed=5, games=40):
        g = row(state)
        ends, seqs = B._turn_ends(g)
        outcomes = turn_outcomes(state)
        assert len(ends) == len(outcomes)
        got = {tuple(int(s) for s in seq if s >= 0) for seq in seqs}
        keys = {st.key() for _, st in outcomes}
        for seq in got:
            st = state.copy()
            for sid in seq:
                st.apply(sid)
            keys.discard(st.key())
        assert not keys  # every scalar end is reached by a compiled sequence
        for seat in state.seats:
            assert B._threatens(g, seat) == threatens(state, seat)
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize("steps", [0, 1, 3])
def test_alpha_beta_returns_the_minimax_value(steps):
    """From early positions (few turns to enumerate), two turns deep, the pruned search with
    its transposition table gives exactly the full minimax value, for both seats."""
    rng = np.random.default_rng(steps)
    state = State.initial(2)
    for _ in range(steps):
        state.apply(int(rng.choice(state.legal_ids())))
    g = row(state)
    for seat in state.seats:
        table = np.zeros((1 << 10, 4), dtype=np.int64)
        values = np.zeros(1 << 10)
        budget = np.array([0, 10**9, 0], dtype=np.int64)
        got = B._alphabeta(g, seat, 2, -np.inf, np.inf, 0, WEIGHTS, table, values, budget)
        assert budget[2] == 0
        assert got == pytest.approx(minimax(g, seat, 2, 0))


def test_expert_kills_when_it_can_and_never_walks_into_a_kill():
    """Over seeded random positions: a whole turn of the expert wins whenever some turn
    wins, and otherwise ends safe (no kill for the next player) whenever some turn does."""
    agent = CompiledAgent("search:expert", seed=0, nodes=400)  # any budget: depth 1 is exact
    checked = {"kill": 0, "safe": 0}
    for game, state in random_positions(seed=5, games=30):
        seat = state.to_move
        ends = [end for _, end in turn_outcomes(state)]
        can_win = any(end.is_over() and end.pos[seat * 3] >= 0 for end in ends)
        can_be_safe = any(not end.is_over() and not exposed(end, seat) for end in ends)
        play_turn(agent, state, seed=game)
        if can_win:
            assert state.is_over() and state.pos[seat * 3] >= 0, game
            checked["kill"] += 1
        elif can_be_safe:
            assert not threatens(state, seat), game
            checked["safe"] += 1
    assert checked["kill"] >= 3 and checked["safe"] >= 10, checked


def test_expert_sees_a_forced_loss_a_turn_ahead():
    """The search's values are decided wins and losses when it finds them: from the
    position after a kill is set up, the side that can throw is valued as winning."""
    for game, state in random_positions(seed=8, games=60):
        seat = state.to_move
        if len(state.seats) != 2 or not threatens(state, 2 - seat):
            continue
        # The player to move can kill its opponent this turn: a win one turn away for it,
        # a loss for the other, whatever depth is searched.
        g = row(state)
        for depth in (0, 1, 2):
            table = np.zeros((1 << 10, 4), dtype=np.int64)
            values = np.zeros(1 << 10)
            budget = np.array([0, 10**9, 0], dtype=np.int64)
            other = B._alphabeta(
                g, 2 - seat, depth, -np.inf, np.inf, 0, WEIGHTS, table, values, budget
            )
            assert other <= -WIN + 100, (game, depth)
        return
    pytest.fail("no position with a kill to make among the seeded ones")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_expert_plays_legal_reproducible_games(players):
    """Whole games against greedy from every seat count: legal (the match runner checks every
    step) and the same game again with the same seeds."""
    table = ["search:expert"] + ["greedy"] * (players - 1)
    records = [
        play_game([make_agent(name, seed=k) for k, name in enumerate(table)], seed=3, max_turns=12)
        for _ in range(2)
    ]
    assert records[0].steps == records[1].steps and len(records[0].steps) > 12


def test_node_budget_and_weights_are_checked():
    bot = BatchedBot("search:expert", nodes=50, weights=(1, 0.4, 0.1, 0.1, 0.5, 3))
    games = BatchedGames(2, 2)
    assert (bot.act_games(games, np.arange(2)) >= 0).all()
    with pytest.raises(ValueError, match="node budget"):
        BatchedBot("search:hard", nodes=100)
    with pytest.raises(ValueError, match="node budget"):
        BatchedBot("search:expert", nodes=0)
    with pytest.raises(ValueError, match="expected 6 numbers"):
        BatchedBot("search:expert", weights=(1.0, 2.0))


def test_the_yardstick_stays_out_of_every_shipped_training_config():
    """``search:expert`` measures players; no shipped config trains with or against it."""
    from pathlib import Path

    root = Path(__file__).parent.parent
    configs = sorted([*root.glob("configs/**/*.yaml"), *root.glob("results/*/config.yaml")])
    assert len(configs) >= 20
    for path in configs:
        text = path.read_text()
        body = "\n".join(line.partition("#")[0] for line in text.splitlines())
        assert "search:expert" not in body, path.name
