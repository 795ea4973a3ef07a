"""Move-sequence counts (perft) of the positions in TALAT_PERFT.md, from an independent
engine. The start positions' depth 4 (52,488,000 and 15,240,960) is too slow for the suite:
``python tests/test_talat_perft.py`` checks it."""

from __future__ import annotations

import sys
import time

import pytest

from talat_env import rules

START_3 = rules.initial_text(3)
START_2 = rules.initial_text(2)
A = (
    "3p wb:...wM4./.wL4..bL6/.wS3.bM6./bS4..wM3bM4/wM6.... "
    "bg:...../..gL4bL4./bL3.gS3.bM3/bS6gM6..gS6/..... "
    "gw:..gS4../....wL3/..gM3../wS4wL6.gL6./gL3.... play w w=- b=gM4 g=bS3,wS6"
)
B = (
    "2p wb:bM4...bL4/..bS3../..bL3wS6bS6/.wS4wL3.wS3/..... "
    "bg:...../...gS3./.gM4.bM6./bL6..../gL4.... "
    "gw:....gS4/.wL4wM4../wM3wM6.gS6gL3/.gL6.wL6./..... play b w=bM3,bS4,gM3 b=-"
)
C = (
    "3p wb*:wL6.wS6.wL3/...../...wM3./.bS4.../.bS6.bL6. "
    "bg:.bL4.../...../.gM6.gL6gS4/....bL3/.gS3gL3.. "
    "gw:.gL4.gM3./.wM6.../...wL4gM4/wS4wM4.../..... play w w=bM3,bS3,gS6 b=- g=bM4,bM6,wS3"
)
D = (
    "2p wb:bM4bS4.bL4bS6/...../...../...../wM3.wL4wS6. "
    "bg:.gM4gS4gS6gL6/...../...../...../bM3bL3.bM6bL6 "
    "gw:wL3wS3wL6wM6wS4/...../...../...../gS3gM6gL4.gL3 place w w=- b=-"
)
PERFT = [
    ("start3", START_3, [90, 8100, 729000, 52488000]),
    ("start2", START_2, [90, 6480, 362880, 15240960]),
    ("A", A, [15, 210, 3177, 42723]),
    ("B", B, [20, 379, 7648, 144196]),
    ("C", C, [12, 12, 76, 401]),
    ("D", D, [2, 4, 132, 4554]),
]
CHEAP = {"A", "B", "C", "D"}


@pytest.mark.parametrize(("name", "text", "counts"), PERFT, ids=[p[0] for p in PERFT])
def test_perft(name, text, counts):
    state = rules.from_text(text)
    assert rules.to_text(state) == text
    depth = 4 if name in CHEAP else 3
    assert [rules.perft(state, d) for d in range(1, depth + 1)] == counts[:depth]
    assert rules.to_text(state) == text  # perft leaves its argument alone


def test_perft_through_the_text_api_matches_depth_2():
    def count(state, depth):
        if depth == 0 or rules.is_over(state):
            return 1
        return sum(count(rules.play(state, m), depth - 1) for m in rules.legal_moves(state))

    for _, text, counts in PERFT:
        assert count(rules.from_text(text), 2) == counts[1]


def test_position_c_ends_the_game_inside_the_tree():
    # The four moves of white's gw d3 tower freeze gw and end the game at once.
    state = rules.from_text(C)
    ended = [m for m in rules.legal_moves(state) if rules.is_over(rules.play(state, m))]
    assert ended == ["gw:d3-c2", "gw:d3-d2", "gw:d3-e2", "gw:d3xe3"]
    # After each other move black can only pass.
    for m in rules.legal_moves(state):
        if m not in ended:
            assert rules.legal_moves(rules.play(state, m)) == ["pass"]


def test_perft_depth_zero_and_bad_depths():
    state = rules.from_text(A)
    assert rules.perft(state, 0) == 1
    for bad in (-1, 1.5, "2", True):
        with pytest.raises(ValueError, match="perft depth"):
            rules.perft(state, bad)


def main() -> None:
    """Check every count of TALAT_PERFT.md, depth 4 of the start positions included."""
    for name, text, counts in PERFT:
        state = rules.from_text(text)
        for d, expected in enumerate(counts, 1):
            start = time.perf_counter()
            got = rules.perft(state, d)
            took = time.perf_counter() - start
            status = "ok" if got == expected else f"MISMATCH, expected {expected}"
            print(f"{name:7} d={d} {got:>10} {took:7.2f} s {status}", flush=True)
            if got != expected:
                sys.exit(1)


if __name__ == "__main__":
    main()
