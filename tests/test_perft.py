"""Step-sequence counts (perft) of known positions, from an independent engine."""

from __future__ import annotations

import pytest

from splut_env import rules

PERFT = [
    ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -", [3, 9, 79, 691]),
    ("S:d2,f2,e2 W:b6,b4,b5 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -", [3, 9, 73, 219]),
    (
        "S:d2,f2,e2 W:b6,b4,b5 N:f8,d8,e8 E:h4,h6,h5 R:a5,e1,e9,i5 S 1 1 - - -",
        [3, 9, 70, 210],
    ),
    ("S:d3,e4,f2 N:c4,d8,e7 R:b5,e1,e9,g4 S 7 3 - g4 -", [16, 190, 2274, 36425]),
    ("S:d3,f2,f6 N:e6,d8,e8 R:c4,e1,e9,h5 N 8 2 c4 h5 c4", [9, 71, 1077, 14114]),
    ("S:a5,e2,f3 N:g5,f7,f8 R:d6,e6,e9,h6 S 15 3 - - -", [10, 100, 1118, 19420]),
    ("S:e4,f2,e2 W:b6,c4,b5 N:d7,e8,f7 R:a5,e1,e9,g5 S 13 2 - e9 -", [11, 121, 891, 7393]),
    ("S:-,-,- W:c6,f5,c7 N:f8,e9,h5 R:b4,c5,e6,i5 W 12 1 c5 e6 c5", [11, 85, 798, 7459]),
    ("S:f4,g4,f3 W:c6,c7,d5 N:f7,d8,f8 R:e3,e9,f2,h5 N 12 2 f2 e3 f2", [8, 66, 789, 12051]),
    (
        "S:-,-,- W:c4,c3,d5 N:e7,e6,d8 E:h4,h6,g7 R:a5,d2,e8,i5 N 14 2 - e8 -",
        [10, 113, 980, 9330],
    ),
    (
        "S:e2,f3,f2 W:b6,b4,b5 N:f7,f6,c7 E:g4,g7,g6 R:a5,e1,e9,h4 N 11 1 x - h4",
        [6, 44, 308, 2321],
    ),
    (
        "S:d3,g3,e4 W:c6,c3,b5 N:f7,d8,f8 E:g4,f4,g5 R:a5,e1,e9,h5 W 10 1 - h5 -",
        [10, 104, 1114, 10758],
    ),
]


@pytest.mark.parametrize(("spn", "counts"), PERFT, ids=[f"perft{i}" for i in range(len(PERFT))])
def test_perft(spn, counts):
    state = rules.from_spn(spn)
    assert rules.to_spn(state) == spn
    assert [rules.perft(state, d) for d in range(1, len(counts) + 1)] == counts


def test_perft_through_the_string_api_matches_depth_2():
    def count(state, depth):
        if depth == 0 or rules.is_over(state):
            return 1
        return sum(count(rules.play(state, s), depth - 1) for s in rules.legal_steps(state))

    for spn, counts in PERFT[3:6]:
        assert count(rules.from_spn(spn), 2) == counts[1]
