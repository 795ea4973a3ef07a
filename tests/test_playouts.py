"""Invariants over many seeded random games of 2, 3 and 4 players, and property tests."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splut_env import rules
from splut_env.rules.board import EMPTY, NUM_SQUARES, ROCK
from splut_env.rules.engine import State
from splut_env.rules.notation import step_text


def check_invariants(state: State) -> None:
    cells = state.cells
    assert len(state.rocks) == 4 and len(set(state.rocks)) == 4
    assert sum(c == ROCK for c in cells) == 4
    assert all(cells[r] == ROCK for r in state.rocks)
    pieces = [(p, sq) for p, sq in enumerate(state.pos) if sq >= 0]
    assert len({sq for _, sq in pieces}) == len(pieces)  # no two pieces on one square
    assert all(cells[sq] == 2 + p for p, sq in pieces)
    assert sum(c not in (EMPTY, ROCK) for c in cells) == len(pieces)
    for s in state.seats:  # trolls never die alone; a dead wizard takes its team
        alive = state.pos[s * 3] >= 0
        assert (state.pos[s * 3 + 1] >= 0) == alive
        assert alive or state.pos[s * 3 + 2] < 0
    assert (state.locked | state.moved) < (1 << NUM_SQUARES)
    for mask in (state.locked, state.moved):
        assert all(cells[sq] == ROCK for sq in range(NUM_SQUARES) if (mask >> sq) & 1)
    if state.is_over():
        assert state.legal_ids() == [] and state.steps_left == 0
    else:
        assert state.legal_ids(), "the player to move always has a legal step"
        assert 1 <= state.steps_left <= min(state.turn, 3)


def random_game(players: int, seed: int, max_turns: int = 200) -> tuple[State, int]:
    rng = random.Random(seed)
    state = rules.initial_state(players)
    steps = 0
    while not state.is_over() and state.turn <= max_turns:
        check_invariants(state)
        text = rules.to_spn(state)
        assert rules.to_spn(rules.from_spn(text)) == text
        legal = rules.legal_steps(state)
        assert legal == sorted(legal)
        step = rng.choice(legal)
        nxt = rules.play(state, step)
        assert rules.to_spn(state) == text, "play must not mutate its argument"
        state = nxt
        steps += 1
    check_invariants(state)
    return state, steps


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("chunk", range(2))
def test_random_playouts_keep_the_invariants(players, chunk):
    games = 250  # 500 games per player count over the chunks
    finished = 0
    for seed in range(chunk * games, (chunk + 1) * games):
        state, _ = random_game(players, seed)
        finished += state.is_over()
        if state.is_over() and rules.winner(state) is not None:
            assert len(state.alive_seats()) == 1
    assert finished > games // 2


def test_every_listed_step_plays_and_the_fast_interface_agrees():
    rng = random.Random(7)
    for players in (2, 3, 4):
        for _ in range(30):
            state = rules.initial_state(players)
            while not state.is_over():
                for step in rules.legal_steps(state):
                    rules.play(state, step)  # raises if a listed step were illegal
                i = rng.choice(state.legal_ids())
                fast = state.copy()
                fast.apply(i)
                assert rules.to_spn(rules.play(state, step_text(i))) == rules.to_spn(fast)
                state = fast


@settings(max_examples=200, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), choices=st.lists(st.integers(0, 10**6), max_size=400))
def test_any_sequence_of_legal_steps_keeps_the_invariants(players, choices):
    state = rules.initial_state(players)
    for c in choices:
        if state.is_over():
            break
        legal = rules.legal_steps(state)
        state = rules.play(state, legal[c % len(legal)])
        check_invariants(state)
        assert rules.from_spn(rules.to_spn(state)) == state
