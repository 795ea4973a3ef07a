"""Invariants over seeded random games of 2 and 3 players, checked at every ply: the towers
are conserved, the text round-trips, the text API and the fast interface agree, nothing
illegal is accepted, the scores add up and every game ends."""

from __future__ import annotations

import random

import pytest

from talat_env import rules
from talat_env.rules.board import (
    CODE_COLOUR,
    CONTROL,
    NUM_MOVES,
    OVER,
    PASS,
    PLACE,
    PLAY,
    goal_squares,
)
from talat_env.rules.engine import State
from talat_env.rules.frozen import is_frozen

#: Every step advances a tower and every capture removes one (§6.4).
MAX_MOVES = 27 * 4 + 26


def expected_scores(state: State) -> list[int]:
    """§7.1 and §8.4, counted afresh."""
    out = []
    for seat in range(state.num_players):
        score = 5 * len(state.piles[seat])
        for board, colour in CONTROL[state.num_players][seat]:
            for sq in goal_squares(colour, board):
                c = state.cells[board * 25 + sq]
                score += 3 * (c > 0 and CODE_COLOUR[c] == colour)
        out.append(score)
    return out


def check_invariants(state: State, placed: int) -> None:
    n = state.num_players
    on_board = [c for c in state.cells if c]
    piled = [c for p in state.piles for c in p]
    assert len(set(on_board + piled)) == len(on_board) + len(piled), "a tower twice"
    for seat, pile in enumerate(state.piles):
        assert all(CODE_COLOUR[c] != seat for c in pile)
    if state.phase == PLACE:
        assert not piled and state.frozen == [False, False, False]
        assert len(on_board) == placed
        unplaced = 27 - placed - (1 if n == 2 else 0)
        assert len(on_board) + unplaced + (1 if n == 2 else 0) == 27
    else:
        # 27 towers conserved: on the boards or in the piles (2 players: one grey is out).
        assert len(on_board) + len(piled) == (27 if n == 3 else 26)
        assert state.frozen == [is_frozen(b, state.cells) for b in range(3)]
        assert (sum(state.frozen) >= 2) == (state.phase == OVER)
    assert rules.scores(state) == expected_scores(state)
    legal = state.legal_ids()
    assert legal == sorted(set(legal))
    if state.phase == OVER:
        assert legal == [] and state.to_move == -1
        win = state.winners()
        best = max(state.scores())
        assert win and all(state.scores()[s] == best for s in win)
    else:
        assert legal and 0 <= state.to_move < n
        assert (legal == [PASS]) or PASS not in legal
    if state.phase == PLAY and legal == [PASS]:
        # §6.4: an open board always has a move for somebody; this seat just has none.
        assert sum(state.frozen) < 2


def random_game(players: int, seed: int, probe_illegal: bool = True) -> tuple[State, int]:
    rng = random.Random(seed)
    state = rules.initial_state(players)
    plies = placed = moves = 0
    while not rules.is_over(state):
        check_invariants(state, placed)
        text = rules.to_text(state)
        back = rules.from_text(text)
        assert rules.to_text(back) == text and back == state
        legal_texts = rules.legal_moves(state)
        ids = state.legal_ids()
        assert legal_texts == sorted(rules.move_text(state, i) for i in ids)
        if probe_illegal:
            for _ in range(3):
                i = rng.randrange(NUM_MOVES)
                if i in ids:
                    continue
                try:
                    shown = rules.move_text(state, i)
                except ValueError:
                    continue
                with pytest.raises(rules.IllegalMoveError):
                    rules.play(state, shown)
        i = rng.choice(ids)
        move = rules.move_text(state, i)
        nxt = rules.play(state, move)
        assert rules.to_text(state) == text, "play must not mutate its argument"
        fast = state.copy()
        fast.apply(i)
        assert fast == nxt
        if state.phase == PLACE:
            placed += 1
        elif i != PASS:
            moves += 1
        state = nxt
        plies += 1
        assert moves <= MAX_MOVES
    check_invariants(state, placed)
    assert rules.to_move(state) is None and rules.winners(state)
    return state, plies


@pytest.mark.parametrize("players", [2, 3])
def test_random_games_keep_the_invariants(players):
    for seed in range(30):
        _, plies = random_game(players, seed, probe_illegal=seed % 3 == 0)
        assert plies > (26 if players == 2 else 27)


def test_many_fast_games_end_and_score_consistently():
    rng = random.Random(11)
    results = {2: [], 3: []}
    for game in range(300):
        players = 2 + game % 2
        state = State.initial(players)
        steps = 0
        while not state.is_over():
            i = rng.choice(state.legal_ids())
            steps += i != PASS and state.phase == PLAY
            state.apply(i)
            assert steps <= MAX_MOVES
        assert state.scores() == expected_scores(state)
        assert sum(state.frozen) >= 2
        results[players].append(len(state.winners()))
    # Shared wins happen but are rare.
    for counts in results.values():
        assert counts.count(1) > len(counts) // 2


def test_the_speed_probe_runs():
    from talat_env.rules.speed import random_playout_rate

    assert random_playout_rate(0.05, seed=1) > 0
