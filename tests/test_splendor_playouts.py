"""Invariants over seeded random games of 2, 3 and 4 players, checked at every ply: tokens,
cards and nobles are conserved, the text round-trips, the text API and the fast interface
agree, every legal move is playable, nothing illegal is accepted, and every game ends with
equal turns."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from splendor_env import rules
from splendor_env.rules.components import (
    CARD_BONUS,
    CARD_LEVEL,
    CARD_POINTS,
    COLOUR_COUNT,
    NUM_CARDS,
)
from splendor_env.rules.engine import MAIN, NOBLE_PHASE, OVER, RETURN_PHASE, State


def check_invariants(state: State, table_nobles: set[int]) -> None:
    n = state.num_players
    for x in range(6):
        held = state.supply[x] + sum(t[x] for t in state.tokens)
        assert held == (5 if x == 5 else COLOUR_COUNT[n]), "tokens conserved"
        assert state.supply[x] >= 0 and all(t[x] >= 0 for t in state.tokens)
    cards = [c for row in state.market for c in row if c]
    cards += [c for deck in state.decks for c in deck]
    cards += [c for hand in state.hands for c in hand] + [c for b in state.bought for c in b]
    assert sorted(cards) == list(range(1, NUM_CARDS + 1)), "all 90 cards, once each"
    for level in range(3):
        assert all(CARD_LEVEL[c] == level for c in state.decks[level])
        assert all(CARD_LEVEL[c] == level for c in state.market[level] if c)
        assert 0 not in state.market[level] or not state.decks[level]
    owned = [x for o in state.owned for x in o]
    assert set(state.nobles) | set(owned) == table_nobles == set(state.nobles + owned)
    assert state.nobles == sorted(state.nobles)
    for p in range(n):
        bonus = [0] * 5
        for c in state.bought[p]:
            bonus[CARD_BONUS[c]] += 1
        assert state.bonus[p] == bonus
        points = sum(CARD_POINTS[c] for c in state.bought[p]) + 3 * len(state.owned[p])
        assert rules.scores(state)[p] == points
        assert len(state.hands[p]) == len(state.blind[p]) <= 3
        held = sum(state.tokens[p])
        if p == state.to_move and state.phase == RETURN_PHASE:
            assert 11 <= held <= 13
        else:
            assert held <= 10
    ids = state.legal_move_ids()
    assert ids == sorted(set(ids))
    texts = [rules.MOVE_TEXTS[i] for i in ids]
    if state.phase == OVER:
        assert ids == [] and rules.to_move(state) is None
        if state.final:
            assert state.turn % n == 0, "equal turns"
            assert max(state.points) >= 15
        else:
            assert rules.winners(state) == []
    else:
        assert ids and rules.to_move(state) == state.turn % n
        assert state.turn < 100 * n
        kinds = {t.split()[0] for t in texts}
        if state.phase == MAIN:
            assert kinds <= {"take", "take2", "reserve", "buy", "pass"}
            assert texts == ["pass"] or "pass" not in texts
        elif state.phase == RETURN_PHASE:
            assert kinds == {"return"}
        else:
            assert state.phase == NOBLE_PHASE and kinds == {"noble"} and len(ids) >= 2


def random_game(n: int, seed: int, probe: int) -> State:
    """One random game through the text API, checking every ply; every ``probe``-th ply
    also plays each legal move and tries each illegal one."""
    rng = random.Random(seed)
    state = rules.initial_state(n, seed)
    table_nobles = set(state.nobles)
    ply = 0
    while True:
        check_invariants(state, table_nobles)
        text = rules.to_text(state)
        back = rules.from_text(text)
        assert rules.to_text(back) == text and back == state
        if rules.is_over(state):
            return state
        ids = state.legal_move_ids()
        assert rules.legal_moves(state) == sorted(rules.MOVE_TEXTS[i] for i in ids)
        if ply % probe == 0:
            for i in range(rules.NUM_MOVES):
                if i in ids:
                    child = state.copy()
                    child.apply(i)
                    assert rules.play(state, rules.MOVE_TEXTS[i]) == child
                else:
                    with pytest.raises(rules.IllegalMoveError):
                        rules.play(state, rules.MOVE_TEXTS[i])
            assert rules.to_text(state) == text
        i = rng.choice(ids)
        nxt = rules.play(state, rules.MOVE_TEXTS[i])
        assert rules.to_text(state) == text, "play must not mutate its argument"
        fast = state.copy()
        fast.apply(i)
        assert fast == nxt
        state = nxt
        ply += 1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_keep_the_invariants(n):
    for seed in range(8):
        end = random_game(n, seed, probe=7)
        assert rules.is_over(end)


def test_many_fast_games_end_with_equal_turns():
    rng = random.Random(5)
    ends: Counter = Counter()
    for game in range(300):
        n = 2 + game % 3
        state = State.initial(n, rng)
        table_nobles = set(state.nobles)
        moves = 0
        while state.phase != OVER:
            state.apply(rng.choice(state.legal_move_ids()))
            moves += 1
        check_invariants(state, table_nobles)
        if state.final:
            assert state.turn % n == 0 and rules.winners(state)
            ends["shared" if rules.winner(state) is None else "won"] += 1
        else:
            ends["truncated" if rules.is_truncated(state) else "deadlock"] += 1
        assert moves < 1000
    # Random play ends by the 15-point trigger almost always; shared wins are rare.
    assert ends["won"] > 280 and ends["truncated"] == 0


def test_the_speed_probe_runs():
    from splendor_env.rules.speed import random_playout_rate

    assert random_playout_rate(0.05, seed=1) > 0
