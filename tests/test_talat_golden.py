"""Talat's golden playthroughs, as OpenSpiel keeps them: recorded games (2 and 3 players,
the set-up included, with captures, frozen boards and a forced pass) that store, after every
move, the position, the legal moves (their number and a digest of their texts) and a
checksum of the observation of the player to move. Replaying them pins the rules, the
notation and the observation encoding through refactors and for other engines.

Regenerate (only when a change of behaviour is intended, and say so in the commit):
``python tests/test_talat_golden.py``.
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

import pytest

from talat_env import rules
from talat_env.encoding import action_mask, observation
from talat_env.rules.engine import State

GOLDEN = Path(__file__).resolve().parent / "golden" / "talat"
#: name: (players, seed, what it shows); the games are uniformly random legal moves.
GAMES = {
    "two_players": (2, 0, "a 2-player game with the Zihin set-up"),
    "three_players_pass": (3, 35, "a 3-player game with a forced pass"),
}


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def line(move: str, state: State) -> str:
    legal = rules.legal_moves(state)
    moves = f"{len(legal)} {digest(' '.join(legal).encode())}" if legal else "-"
    seat = state.to_move
    seen = "-"
    if seat >= 0:
        seen = digest(observation(state, seat).tobytes() + action_mask(state, seat).tobytes())
    return f"{move} | {rules.to_text(state)} | {moves} | {seen}"


def record(players: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    state = rules.initial_state(players)
    lines = [line("start", state)]
    while not rules.is_over(state):
        move = rng.choice(rules.legal_moves(state))
        state = rules.play(state, move)
        lines.append(line(move, state))
    return lines


def write() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for name, (players, seed, what) in GAMES.items():
        body = record(players, seed)
        header = [f"# talat_env golden playthrough: {what}",
                  f"# {players} players, uniformly random moves, seed {seed}; each line:",
                  "# <move> | <position after it> | <legal moves: count sha> | <observation sha>"]  # fmt: skip
        (GOLDEN / f"{name}.txt").write_text("\n".join(header + body) + "\n")
        print(f"{name}: {len(body) - 1} moves")


def read(name: str) -> list[list[str]]:
    rows = []
    for text in (GOLDEN / f"{name}.txt").read_text().splitlines():
        if not text.startswith("#"):
            rows.append([field.strip() for field in text.split("|")])
    return rows


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough_replays_exactly(name):
    rows = read(name)
    (start, text, _, _), *moves = rows
    assert start == "start"
    state = rules.from_text(text)
    assert line("start", state) == " | ".join(rows[0])
    captures = passes = 0
    for k, (move, *_) in enumerate(moves, start=1):
        state = rules.play(state, move)
        assert line(move, state) == " | ".join(rows[k]), f"move {k} ({move})"
        captures += "x" in move
        passes += move == "pass"
    assert rules.is_over(state) and captures >= 3
    assert sum(state.frozen) >= 2
    assert (passes >= 1) == name.endswith("pass")


def test_the_recorded_games_are_what_the_generator_makes():
    for name, (players, seed, _) in GAMES.items():
        assert [" | ".join(row) for row in read(name)] == record(players, seed), name


if __name__ == "__main__":
    write()
    sys.exit(0)
