"""Property tests: whatever text comes in, the answer is a result or the documented
``ValueError`` subclass quoting it; games driven by arbitrary choices keep the invariants;
positions that read back write back the same. Examples are derandomised with a fixed budget,
so the module is deterministic and quick."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_splendor_notation import AFTER, START
from test_splendor_playouts import check_invariants

from splendor_env import rules

SETTINGS = settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
ALPHABET = "splendor 0123456789,/-*:#?wbgrkyLP.turnmoveinalpasyesnoover\t\n"


def reached(n: int, seed: int, plies: int) -> rules.State:
    rng = random.Random(seed)
    state = rules.initial_state(n, seed)
    for _ in range(plies):
        if rules.is_over(state):
            break
        state.apply(rng.choice(state.legal_move_ids()))
    return state


POSITIONS = [START, AFTER] + [rules.to_text(reached(2 + k % 3, k, 20 * k)) for k in range(1, 9)]


def reads_or_refuses(text: str) -> rules.State | None:
    """A state, or ``None`` after an :class:`InvalidNotationError` that quotes ``text``."""
    try:
        state = rules.from_text(text)
    except rules.InvalidNotationError as err:
        assert repr(text)[:40] in str(err)
        return None
    assert rules.to_text(rules.from_text(rules.to_text(state))) == rules.to_text(state)
    return state


@SETTINGS
@given(st.text(alphabet=ALPHABET, max_size=300))
def test_any_text_reads_or_is_refused(text):
    reads_or_refuses(text)


@SETTINGS
@given(
    st.sampled_from(POSITIONS),
    st.lists(
        st.tuples(st.integers(0, 2000), st.integers(0, 3), st.sampled_from(ALPHABET)),
        min_size=1,
        max_size=4,
    ),
)
def test_edited_positions_read_or_are_refused(text, edits):
    for at, how, ch in edits:
        at %= len(text) + 1
        if how == 0:
            text = text[:at] + text[at + 1 :]
        elif how == 1:
            text = text[:at] + ch + text[at:]
        elif how == 2:
            text = text[:at] + ch + text[at + 1 :]
        else:  # swap two fields
            fields = text.split(" ")
            i, j = at % len(fields), (at // 7) % len(fields)
            fields[i], fields[j] = fields[j], fields[i]
            text = " ".join(fields)
    state = reads_or_refuses(text)
    if state is not None:
        check_invariants(state, set(state.nobles) | {x for o in state.owned for x in o})


@SETTINGS
@given(st.sampled_from(POSITIONS), st.text(alphabet=ALPHABET, max_size=20))
def test_any_move_text_plays_or_is_refused(text, move):
    state = rules.from_text(text)
    try:
        nxt = rules.play(state, move)
    except (rules.InvalidNotationError, rules.IllegalMoveError) as err:
        assert repr(move) in str(err)
        return
    assert move in rules.legal_moves(state) and nxt != state


@settings(SETTINGS, max_examples=60)
@given(
    st.integers(2, 4), st.integers(0, 2**32), st.lists(st.integers(0, 76), min_size=1, max_size=50)
)
def test_games_driven_by_any_choices_keep_the_invariants(n, seed, choices):
    """Whole games whose moves follow ``choices`` over and over."""
    state = rules.initial_state(n, seed)
    table = set(state.nobles)
    ply = 0
    while not rules.is_over(state):
        check_invariants(state, table)
        moves = rules.legal_moves(state)
        state = rules.play(state, moves[choices[ply % len(choices)] % len(moves)])
        ply += 1
    check_invariants(state, table)
    text = rules.to_text(state)
    assert rules.to_text(rules.from_text(text)) == text
    for seat in range(n):
        sample = rules.determinise(rules.view(state, seat), seed)
        assert rules.view(sample, seat) == rules.view(state, seat)


@SETTINGS
@given(st.integers(2, 4), st.integers(0, 2**64))
def test_every_start_is_valid(n, seed):
    text = rules.initial_text(n, seed)
    state = rules.from_text(text)
    assert rules.to_text(state) == text
    assert rules.perft(state, 1) == len(rules.legal_moves(state)) == 30
