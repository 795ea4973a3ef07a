"""A seat's view (SPLENDOR_RULES.md §9) and the determiniser: the view does not change when
only what the seat may not see changes, it changes with anything else, and sampled positions
are valid, agree with the view and cover the unseen cards."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from test_splendor_notation import AFTER, AFTER_VIEW_P0
from test_splendor_rules import make

from splendor_env import rules
from splendor_env.rules.components import CARD_LEVEL
from splendor_env.rules.engine import State


def reached_positions(count: int = 12) -> list[State]:
    """Seeded random-game positions of 2-4 players with cards in hands, some finished."""
    out = []
    for seed in range(count):
        n = 2 + seed % 3
        rng = random.Random(seed)
        state = rules.initial_state(n, seed)
        plies = 0
        while state.phase != 3 and plies < 40 + 10 * seed:
            state.apply(rng.choice(state.legal_move_ids()))
            plies += 1
        out.append(state)
    assert sum(len(h) for s in out for h in s.hands) > 20
    return out


def hidden_shuffle(state: State, seat: int, rng: random.Random) -> State:
    """A full position that differs from ``state`` only in what ``seat`` may not see: per
    level, the decks and the other players' hand cards are dealt again (same levels, same
    face-down marks, same deck sizes)."""
    alt = state.copy()
    for level in range(3):
        slots = [
            (p, h)
            for p in range(alt.num_players)
            if p != seat
            for h, c in enumerate(alt.hands[p])
            if CARD_LEVEL[c] == level
        ]
        pool = [alt.hands[p][h] for p, h in slots] + alt.decks[level]
        rng.shuffle(pool)
        for p, h in slots:
            alt.hands[p][h] = pool.pop()
        alt.decks[level] = pool
    return rules.from_text(rules.to_text(alt))  # still a valid position


# --- the view -------------------------------------------------------------------------------------


def test_the_view_of_the_pages_example():
    state = rules.from_text(AFTER)
    view = rules.view(state, 0)
    assert view.text == rules.view_text(state, 0) == AFTER_VIEW_P0
    assert view.deck_sizes == (35, 26, 15)
    assert view.hands == ((), (0, 0)) and view.hand_levels == ((), (2, 0))
    assert view.blind == ((), (True, False))
    assert rules.view(state, 1).hands == ((), (79, 31))


def test_privacy_the_view_ignores_what_the_seat_may_not_see():
    rng = random.Random(3)
    for state in reached_positions():
        for seat in range(state.num_players):
            view = rules.view(state, seat)
            for _ in range(3):
                alt = hidden_shuffle(state, seat, rng)
                assert rules.view(alt, seat) == view
                assert rules.view_text(alt, seat) == view.text


def test_the_view_shows_everything_else():
    state = rules.from_text(AFTER)
    p0 = rules.view_text(state, 0)
    # P1's own cards, the market and the tokens are in the views that may see them.
    assert rules.view_text(state, 1) != p0
    changed = rules.from_text(AFTER.replace("L1:25,23,28,37/39,", "L1:25,23,28,39/37,"))
    assert rules.view_text(changed, 0) != p0
    swapped = rules.from_text(AFTER.replace("79*,31", "31,79*"))
    assert rules.view_text(swapped, 0) != p0  # the order of the backs is public
    deeper = rules.from_text(AFTER.replace("/39,5,", "/5,39,"))
    assert rules.view_text(deeper, 0) == p0 and rules.to_text(deeper) != AFTER


def test_a_view_needs_a_seat_of_the_game():
    state = rules.from_text(AFTER)
    for bad in (-1, 2, "0", None, 1.0):
        with pytest.raises(ValueError, match="a seat of a 2-player game is 0 to 1"):
            rules.view(state, bad)


# --- the determiniser --------------------------------------------------------------------------


def test_samples_are_valid_and_agree_with_the_view():
    for state in reached_positions():
        for seat in range(state.num_players):
            view = rules.view(state, seat)
            for seed in range(3):
                sample = rules.determinise(view, seed)
                text = rules.to_text(sample)
                assert rules.to_text(rules.from_text(text)) == text
                assert rules.view(sample, seat) == view
                assert sample.hands[seat] == state.hands[seat]
                assert sample.market == state.market
                if seat == state.to_move:  # a mover's moves depend on what it sees
                    assert rules.legal_moves(sample) == rules.legal_moves(state)


def test_samples_are_seeded():
    state = reached_positions()[5]
    view = rules.view(state, 0)
    assert rules.to_text(rules.determinise(view, 7)) == rules.to_text(rules.determinise(view, 7))
    assert rules.to_text(rules.determinise(view, random.Random(7))) == rules.to_text(
        rules.determinise(view, 7)
    )
    texts = {rules.to_text(rules.determinise(view, seed)) for seed in range(20)}
    assert len(texts) == 20


def test_samples_cover_the_unseen_cards():
    state = rules.from_text(AFTER)
    view = rules.view(state, 0)
    unseen = view.unseen()
    assert [len(u) for u in unseen] == [36, 26, 16]  # decks and P1's two hidden cards
    tops: list[Counter] = [Counter(), Counter(), Counter()]
    hand_cards: list[Counter] = [Counter(), Counter()]
    for seed in range(600):
        sample = rules.determinise(view, seed)
        for level in range(3):
            tops[level][sample.decks[level][-1]] += 1
        for h in range(2):
            hand_cards[h][sample.hands[1][h]] += 1
    for level in range(3):
        assert set(tops[level]) == set(unseen[level])  # every unseen card comes on top
    assert set(hand_cards[0]) == set(unseen[2])  # P1's ?3 is any unseen level-3 card
    assert set(hand_cards[1]) == set(unseen[0])
    # Roughly uniform: no level-3 card on top of its deck twice as often as it should be.
    assert max(tops[2].values()) < 2 * 600 / 16


def test_samples_respect_a_deadlock_that_hidden_cards_decide():
    # Over by deadlock: from P0's view, P1's three hidden level-1 cards could be cheap ones
    # (P1 holds g2 r4 k4); a sample must keep all three out of P1's reach.
    text = make(
        players=["w4b4g2r0k0y0/-/1,26,27/-", "w0b0g2r4k4y0/-/29,30,36/-"],
        rows={1: "13,14,20,21", 2: "42,50,53,59", 3: "71,73,75,79"},
        turn=1,
        phase="over",
    )
    view = rules.view(rules.from_text(text), 0)
    seen = Counter()
    for seed in range(40):
        sample = rules.determinise(view, seed)
        rules.from_text(rules.to_text(sample))
        seen.update(sample.hands[1])
    assert len(seen) > 6  # several fillings, all of them deadlocks


def test_determinise_needs_a_view():
    with pytest.raises(ValueError, match="determinise needs a View"):
        rules.determinise(rules.view_text(rules.from_text(AFTER), 0), 1)
