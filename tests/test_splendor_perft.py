"""Move-sequence counts (perft): the page's reference counts (SPLENDOR_RULES.md §8.2), and
the fast engine against a slow reference written here from the page alone (its own reading
and writing of positions, dicts and text moves), by perft and move by move in random games.

``python tests/test_splendor_perft.py`` prints the counts with timings."""

from __future__ import annotations

import copy
import csv
import random
import re
import sys
import time
from itertools import combinations
from pathlib import Path

import pytest
from test_splendor_notation import AFTER, START
from test_splendor_rules import BONUSES, STUCK, make

from splendor_env import rules

PAGE_COUNTS = [(START, [30, 865, 24190, 659505]), (AFTER, [26, 669, 18974, 331068])]


@pytest.mark.parametrize(("text", "counts"), PAGE_COUNTS, ids=["start", "after-four"])
def test_the_pages_perft_counts(text, counts):
    state = rules.from_text(text)
    assert [rules.perft(state, d) for d in range(1, 5)] == counts
    assert rules.to_text(state) == text  # perft leaves its argument alone


def test_perft_depth_zero_a_finished_game_and_bad_depths():
    state = rules.from_text(START)
    assert rules.perft(state, 0) == 1
    over = rules.from_text(make(turn=200, phase="over"))
    assert rules.perft(over, 0) == rules.perft(over, 3) == 1
    for bad in (-1, 1.5, "2", True, None):
        with pytest.raises(ValueError, match="perft depth must be a whole number"):
            rules.perft(state, bad)


# --- a slow reference, from the page -------------------------------------------------------------

DATA = Path(__file__).resolve().parents[1] / "splendor_env" / "rules" / "data"
WBGRK = "wbgrk"
with open(DATA / "cards.csv", newline="") as f:
    CARDS = {
        int(r["id"]): (int(r["level"]), r["bonus"], int(r["points"]), {c: int(r[c]) for c in WBGRK})
        for r in csv.DictReader(f)
    }
with open(DATA / "nobles.csv", newline="") as f:
    NOBLES = {int(r["id"]): {c: int(r[c]) for c in WBGRK} for r in csv.DictReader(f)}
COUNT = {2: 4, 3: 5, 4: 7}


def ref_read(text: str) -> dict:
    """A canonical position text as a dict (no checks: the input is trusted)."""
    f = text.split()
    n = int(f[1])
    kv = dict(x.split(":", 1) for x in f[2:])

    def ids(s):
        return [] if s == "-" else [int(x) for x in s.split(",")]

    def tokens(s):
        counts = re.fullmatch(r"w(\d+)b(\d+)g(\d+)r(\d+)k(\d+)y(\d+)", s).groups()
        return dict(zip("wbgrky", map(int, counts), strict=True))

    rows, decks = [], []
    for level in "123":
        row, deck = kv["L" + level].split("/")
        rows.append([None if x == "-" else int(x) for x in row.split(",")])
        decks.append(ids(deck))
    players = []
    for p in range(n):
        tok, cards, hand, nobles = kv[f"P{p}"].split("/")
        entries = [] if hand == "-" else hand.split(",")
        players.append(
            {
                "tok": tokens(tok),
                "cards": ids(cards),
                "hand": [(int(e.rstrip("*")), e.endswith("*")) for e in entries],
                "nobles": ids(nobles),
            }
        )
    return {
        "n": n,
        "turn": int(kv["turn"]),
        "phase": kv["phase"],
        "final": kv["final"] == "yes",
        "supply": tokens(kv["supply"]),
        "nobles": ids(kv["nobles"]),
        "rows": rows,
        "decks": decks,
        "players": players,
    }


def ref_write(pos: dict) -> str:
    def ids(xs):
        return ",".join(map(str, xs)) or "-"

    def tokens(t):
        return "".join(f"{c}{t[c]}" for c in "wbgrky")

    over = pos["phase"] == "over"
    out = [
        f"splendor {pos['n']} turn:{pos['turn']} move:{'-' if over else pos['turn'] % pos['n']}",
        f"phase:{pos['phase']} final:{'yes' if pos['final'] else 'no'}",
        f"supply:{tokens(pos['supply'])} nobles:{ids(sorted(pos['nobles']))}",
    ]
    for level in range(3):
        row = ",".join("-" if x is None else str(x) for x in pos["rows"][level])
        out.append(f"L{level + 1}:{row}/{ids(pos['decks'][level])}")
    for p, pl in enumerate(pos["players"]):
        hand = ",".join(f"{c}{'*' if blind else ''}" for c, blind in pl["hand"]) or "-"
        out.append(
            f"P{p}:{tokens(pl['tok'])}/{ids(sorted(pl['cards']))}/{hand}/{ids(sorted(pl['nobles']))}"
        )
    return " ".join(out)


def bonus(pl: dict, c: str) -> int:
    return sum(CARDS[x][1] == c for x in pl["cards"])


def points(pl: dict) -> int:
    return sum(CARDS[x][2] for x in pl["cards"]) + 3 * len(pl["nobles"])


def need(pl: dict, card: int) -> dict:
    """§3.4: the net price per colour."""
    return {c: max(0, CARDS[card][3][c] - bonus(pl, c)) for c in WBGRK}


def affordable(pl: dict, card: int) -> bool:
    net = need(pl, card)
    return sum(max(0, net[c] - pl["tok"][c]) for c in WBGRK) <= pl["tok"]["y"]


def qualifies(pl: dict, noble: int) -> bool:
    return all(bonus(pl, c) >= v for c, v in NOBLES[noble].items())


def main_actions(pos: dict, pl: dict) -> list[str]:
    out = []
    have = [c for c in WBGRK if pos["supply"][c] >= 1]
    if len(have) >= 3:
        out += ["take " + "".join(cs) for cs in combinations(have, 3)]
    elif have:
        out.append("take " + "".join(have))
    out += [f"take2 {c}" for c in WBGRK if pos["supply"][c] >= 4]
    if len(pl["hand"]) <= 2:
        for level in range(3):
            out += [f"reserve {level + 1}.{s}" for s, x in enumerate(pos["rows"][level]) if x]
            if pos["decks"][level]:
                out.append(f"reserve deck {level + 1}")
    for level in range(3):
        for s, x in enumerate(pos["rows"][level]):
            if x and affordable(pl, x):
                out.append(f"buy {level + 1}.{s}")
    out += [f"buy r{h}" for h, (x, _) in enumerate(pl["hand"]) if affordable(pl, x)]
    return out


def ref_legal(pos: dict) -> list[str]:
    pl = pos["players"][pos["turn"] % pos["n"]]
    if pos["phase"] == "main":
        moves = main_actions(pos, pl) or ["pass"]
    elif pos["phase"] == "return":
        moves = [f"return {x}" for x in "wbgrky" if pl["tok"][x]]
    elif pos["phase"] == "noble":
        moves = [f"noble {x}" for x in pos["nobles"] if qualifies(pl, x)]
    else:
        moves = []
    return sorted(moves)


def ref_play(pos: dict, move: str) -> dict:
    assert move in ref_legal(pos), move
    pos = copy.deepcopy(pos)
    pl = pos["players"][pos["turn"] % pos["n"]]
    supply, tok = pos["supply"], pl["tok"]
    word, _, arg = move.partition(" ")
    if word == "take":
        for c in arg:
            supply[c] -= 1
            tok[c] += 1
    elif word == "take2":
        supply[arg] -= 2
        tok[arg] += 2
    elif word == "reserve":
        if arg.startswith("deck"):
            pl["hand"].append((pos["decks"][int(arg[-1]) - 1].pop(0), True))
        else:
            level, s = int(arg[0]) - 1, int(arg[2])
            pl["hand"].append((pos["rows"][level][s], False))
            deck = pos["decks"][level]
            pos["rows"][level][s] = deck.pop(0) if deck else None
        if supply["y"]:
            supply["y"] -= 1
            tok["y"] += 1
    elif word == "buy":
        if arg.startswith("r"):
            card = pl["hand"].pop(int(arg[1]))[0]
        else:
            level, s = int(arg[0]) - 1, int(arg[2])
            card = pos["rows"][level][s]
            deck = pos["decks"][level]
            pos["rows"][level][s] = deck.pop(0) if deck else None
        for c, v in need(pl, card).items():
            paid = min(v, tok[c])
            tok[c] -= paid
            supply[c] += paid
            tok["y"] -= v - paid
            supply["y"] += v - paid
        pl["cards"].append(card)
    elif word == "return":
        tok[arg] -= 1
        supply[arg] += 1
    elif word == "noble":
        pos["nobles"].remove(int(arg))
        pl["nobles"].append(int(arg))
        return ref_end_turn(pos, pl)
    if sum(tok.values()) > 10:
        pos["phase"] = "return"
        return pos
    fitting = [x for x in pos["nobles"] if qualifies(pl, x)]
    if len(fitting) >= 2:
        pos["phase"] = "noble"
        return pos
    if fitting:
        pos["nobles"].remove(fitting[0])
        pl["nobles"].append(fitting[0])
    return ref_end_turn(pos, pl)


def ref_end_turn(pos: dict, pl: dict) -> dict:
    if points(pl) >= 15:
        pos["final"] = True
    pos["turn"] += 1
    n = pos["n"]
    deadlock = not any(
        main_actions(pos, q) or any(qualifies(q, x) for x in pos["nobles"]) for q in pos["players"]
    )
    ended = pos["final"] and pos["turn"] % n == 0
    capped = pos["turn"] == 100 * n
    pos["phase"] = "over" if ended or capped or (not pos["final"] and deadlock) else "main"
    return pos


def ref_perft(pos: dict, depth: int) -> int:
    if depth == 0 or pos["phase"] == "over":
        return 1
    moves = ref_legal(pos)
    if depth == 1:
        return len(moves)
    return sum(ref_perft(ref_play(pos, m), depth - 1) for m in moves)


# --- the engine against the reference -----------------------------------------------------------


def test_the_reference_reproduces_the_pages_counts_to_depth_3():
    for text, counts in PAGE_COUNTS:
        pos = ref_read(text)
        assert ref_write(pos) == text
        assert [ref_perft(pos, d) for d in (1, 2, 3)] == counts[:3]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_seeded_starts_against_the_reference_to_depth_3(n):
    text = rules.initial_text(n, seed=10 + n)
    state, pos = rules.from_text(text), ref_read(text)
    assert [rules.perft(state, d) for d in (1, 2, 3)] == [ref_perft(pos, d) for d in (1, 2, 3)]


def midgame_positions() -> dict[str, str]:
    """Positions of seeded random games: every 25th ply and the first return, noble choice,
    buy from a hand, forced pass and triggered end of each player count."""
    found: dict[str, str] = {}  # by player count and tag
    for seed in range(60):
        n = 2 + seed % 3
        rng = random.Random(seed)
        state = rules.initial_state(n, seed)
        ply = 0
        while not rules.is_over(state):
            ids = state.legal_move_ids()
            first = rules.MOVE_TEXTS[ids[0]]
            tags = [
                ("return", first.startswith("return")),
                ("noble", first.startswith("noble")),
                ("hand", any(rules.MOVE_TEXTS[i].startswith("buy r") for i in ids)),
                ("pass", first == "pass"),
                ("final", state.final),
                (f"ply{ply}", ply % 25 == 0 and seed < 12),
            ]
            for tag, hit in tags:
                if hit and f"{n}:{tag}" not in found:
                    found[f"{n}:{tag}"] = rules.to_text(state)
            state.apply(rng.choice(ids))
            ply += 1
    return found


HANDMADE = [
    make(players=[BONUSES], nobles="1,3,5", rows={1: "12,5,6,7"}),
    STUCK,
    make(players=["w2b2g2r2k2y0/-/1*,2/-"]),
    make(3, ["w0b0g4r0k0y0/74,77,78/-/-"], turn=3, rows={1: "8,5,6,7"}),
]


def test_the_engine_against_the_reference_by_perft():
    found = midgame_positions()
    assert {"2:noble", "3:noble", "4:noble", "3:pass", "4:pass", "2:final"} <= found.keys()
    for text in [*found.values(), *HANDMADE]:
        state, pos = rules.from_text(text), ref_read(text)
        assert ref_write(pos) == text
        depth = 3 if len(rules.legal_moves(state)) < 20 else 2
        assert [rules.perft(state, d) for d in range(1, depth + 1)] == [
            ref_perft(pos, d) for d in range(1, depth + 1)
        ], text


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_engine_against_the_reference_move_by_move(n):
    for seed in range(6):
        rng = random.Random(100 + seed)
        state = rules.initial_state(n, rng)
        pos = ref_read(rules.to_text(state))
        while True:
            moves = rules.legal_moves(state)
            assert moves == ref_legal(pos), rules.to_text(state)
            if not moves:
                break
            move = rng.choice(moves)
            state, pos = rules.play(state, move), ref_play(pos, move)
            assert rules.to_text(state) == ref_write(pos), move
        assert rules.is_over(state) and pos["phase"] == "over"


def main() -> None:
    """Print the page's counts with timings, failing on a mismatch."""
    for name, (text, counts) in zip(("start", "after-four"), PAGE_COUNTS, strict=True):
        state = rules.from_text(text)
        for d, expected in enumerate(counts, 1):
            begin = time.perf_counter()
            got = rules.perft(state, d)
            took = time.perf_counter() - begin
            status = "ok" if got == expected else f"MISMATCH, expected {expected}"
            print(f"{name:10} d={d} {got:>8} {took:7.2f} s {status}", flush=True)
            if got != expected:
                sys.exit(1)


if __name__ == "__main__":
    main()
