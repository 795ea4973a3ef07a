"""Golden playthroughs, as OpenSpiel keeps them: recorded games (2, 3 and 4 players, with
eliminations and a forfeited turn) that store, after every step, the SPN, the legal steps
and a checksum of the observation of the player to move. Replaying them pins the rules, the
notation and the observation encoding through refactors and for other engines.

Regenerate (only when a change of behaviour is intended, and say so in the commit):
``python tests/test_golden.py``.
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

import pytest

from splut_env import rules
from splut_env.encoding import observation
from splut_env.rules.engine import State
from splut_env.rules.notation import step_text

GOLDEN = Path(__file__).resolve().parent / "golden"
MAX_TURNS = 200
#: name: (players, seed, what it shows); the games are uniformly random legal steps.
GAMES = {
    "two_players": (2, 0, "a 2-player game won by a throw"),
    "three_players": (3, 1, "a 3-player game with two eliminations"),
    "four_players_forfeit": (
        4,
        299,
        "a 4-player game with three eliminations and a forfeited turn",
    ),
}


def checksum(state: State) -> str:
    """SHA-256 (first 16 hex digits) of the observation planes and mask of the player to
    move (``-`` once the game is over)."""
    if state.to_move < 0:
        return "-"
    obs = observation(state, state.to_move, MAX_TURNS)
    digest = hashlib.sha256(obs["observation"].tobytes() + obs["action_mask"].tobytes())
    return digest.hexdigest()[:16]


def line(step: str, state: State) -> str:
    legal = " ".join(rules.legal_steps(state)) or "-"
    return f"{step} | {rules.to_spn(state)} | {legal} | {checksum(state)}"


def record(players: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    state = State.initial(players)
    lines = [line("start", state)]
    while not state.is_over() and state.turn <= MAX_TURNS:
        step = rng.choice(state.legal_ids())
        state.apply(step)
        lines.append(line(step_text(step), state))
    return lines


def write() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, (players, seed, what) in GAMES.items():
        body = record(players, seed)
        header = [f"# splut-env golden playthrough: {what}",
                  f"# {players} players, uniformly random steps, seed {seed}; each line:",
                  "# <step> | <SPN after it> | <legal steps> | <observation checksum>"]  # fmt: skip
        (GOLDEN / f"{name}.txt").write_text("\n".join(header + body) + "\n")
        print(f"{name}: {len(body) - 1} steps")


def read(name: str) -> list[list[str]]:
    rows = []
    for text in (GOLDEN / f"{name}.txt").read_text().splitlines():
        if not text.startswith("#"):
            rows.append([field.strip() for field in text.split("|")])
    return rows


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough_replays_exactly(name):
    rows = read(name)
    (start, spn, legal, digest), *steps = rows
    assert start == "start"
    state = rules.from_spn(spn)
    assert line("start", state) == " | ".join(rows[0])
    turns_forfeited = eliminated = 0
    for k, (step, spn, legal, digest) in enumerate(steps, start=1):
        before = state
        state = rules.play(state, step)
        assert rules.to_spn(state) == spn, f"step {k} ({step})"
        assert (" ".join(rules.legal_steps(state)) or "-") == legal, f"step {k} ({step})"
        assert checksum(state) == digest, f"step {k} ({step}): observation differs"
        turns_forfeited += state.turn - before.turn >= 2
        eliminated += len(before.alive_seats()) - len(state.alive_seats())
    assert state.is_over() or state.turn > MAX_TURNS
    players = GAMES[name][0]
    assert eliminated >= 1 and (turns_forfeited >= 1) == name.endswith("forfeit")
    if name.endswith("forfeit"):
        assert eliminated == players - 1


def test_the_recorded_games_are_what_the_generator_makes():
    for name, (players, seed, _) in GAMES.items():
        assert [" | ".join(row) for row in read(name)] == record(players, seed), name


if __name__ == "__main__":
    write()
    sys.exit(0)
