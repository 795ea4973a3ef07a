"""Speed of the fast interface: random playouts over :meth:`State.legal_ids` and
:meth:`State.apply`, from the start through set-up and play to the end of the game."""

from __future__ import annotations

import random
import time

from talat_env.rules.board import player_count
from talat_env.rules.engine import State


def random_playout(num_players: int, rng: random.Random) -> int:
    """Play one uniformly random game from the start; the number of moves it took."""
    state = State.initial(player_count(num_players))
    moves = 0
    choice = rng.choice
    while not state.is_over():
        state.apply(choice(state.legal_ids()))
        moves += 1
    return moves


def random_playout_rate(
    seconds: float = 2.0, seed: int = 0, players: tuple[int, ...] = (2, 3)
) -> float:
    """Moves per second of random playouts for about ``seconds``, alternating the player
    counts in ``players`` game by game (whole games, at least one)."""
    rng = random.Random(seed)
    moves = games = 0
    start = time.perf_counter()
    while True:
        moves += random_playout(players[games % len(players)], rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return moves / elapsed
