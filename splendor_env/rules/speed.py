"""Speed of the fast interface: random playouts over :meth:`State.legal_move_ids` and
:meth:`State.apply` from shuffled starts to the end of the game.

``python -m splendor_env.rules.speed [seconds]`` prints the moves per second on one core.
"""

from __future__ import annotations

import random
import sys
import time

from splendor_env.rules.engine import State, player_count


def random_playout(num_players: int, rng: random.Random) -> int:
    """Play one uniformly random game from a start shuffled with ``rng``; the number of
    moves it took."""
    state = State.initial(player_count(num_players), rng)
    moves = 0
    choice = rng.choice
    while state.to_move >= 0:
        state.apply(choice(state.legal_move_ids()))
        moves += 1
    return moves


def random_playout_rate(
    seconds: float = 2.0, seed: int = 0, players: tuple[int, ...] = (2, 3, 4)
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


def main(argv: list[str] | None = None) -> None:
    """Print the random-playout speed for 2, 3 and 4 players and for all three mixed."""
    args = sys.argv[1:] if argv is None else argv
    seconds = float(args[0]) if args else 3.0
    for players in ((2,), (3,), (4,), (2, 3, 4)):
        rate = random_playout_rate(seconds, players=players)
        label = "+".join(map(str, players))
        print(f"{label} players: {rate:,.0f} moves/s", flush=True)


if __name__ == "__main__":
    main()
