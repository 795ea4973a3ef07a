"""The ladder of Talat's built-in bots: each adjacent pair of levels plays 2-player games,
seats alternated, and the stronger level's score (a win 1, a shared win ½) is printed with
its Wilson 95 % interval, followed by each level's thinking time per move.

    python -m talat_env.players.ladder --games 40
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from talat_env import rules
from talat_env.encoding import move_of
from talat_env.players import make_agent
from talat_env.rules.engine import State
from tabletop.agents import Agent, agent_seed
from tabletop.stats import wilson

#: The built-in levels, weakest first.
LADDER = ("random", "greedy", "search:easy", "search:medium", "search:hard", "search:expert")


@dataclass
class Game:
    """A finished game: its moves (engine ids), winners (seats) and each seat's thinking
    time and decisions, in set-up and in play."""

    moves: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    setup_seconds: list[float] = field(default_factory=list)
    setup_decisions: list[int] = field(default_factory=list)
    play_seconds: list[float] = field(default_factory=list)
    play_decisions: list[int] = field(default_factory=list)
    final: State | None = None


def play_game(agents: Sequence[Agent], seed: int | None = None) -> Game:
    """Play a game from the start, ``agents[k]`` in seat ``k``, each reset with a seed
    derived from ``seed``; raises ``ValueError`` naming an agent that plays illegally."""
    n = len(agents)
    state = rules.initial_state(n)
    for k, agent in enumerate(agents):
        if agent.needs_observation:
            raise ValueError(f"{agent!r} needs observations; this ladder plays bots only")
        agent.reset(seed=agent_seed(seed, k))
    game = Game(
        setup_seconds=[0.0] * n,
        setup_decisions=[0] * n,
        play_seconds=[0.0] * n,
        play_decisions=[0] * n,
    )
    while not state.is_over():
        seat = state.to_move
        start = time.perf_counter()
        action = agents[seat].act(state, None)
        spent = time.perf_counter() - start
        if state.phase == 0:
            game.setup_seconds[seat] += spent
            game.setup_decisions[seat] += 1
        else:
            game.play_seconds[seat] += spent
            game.play_decisions[seat] += 1
        try:
            move = move_of(n, seat, action)
        except (ValueError, IndexError) as error:
            raise ValueError(f"{agents[seat]!r} (seat {seat}) chose action {action!r}: {error}")
        if move not in state.legal_ids():
            raise ValueError(
                f"{agents[seat]!r} (seat {seat}) chose action {action!r}, the illegal move "
                f"{move} in {rules.to_text(state)!r}"
            )
        game.moves.append(move)
        state.apply(move)
    game.winners = list(state.winners())
    game.final = state
    return game


@dataclass
class Pairing:
    """The games of ``strong`` against ``weak``: ``strong``'s points and the time per move."""

    weak: str
    strong: str
    games: int = 0
    points: float = 0.0
    seconds: dict[str, list[float]] = field(default_factory=dict)


def play_pairing(weak: str, strong: str, games: int, seed: int = 0) -> Pairing:
    """``games`` 2-player games of ``strong`` against ``weak``, ``strong`` in seat 0 in the
    even-numbered games; game ``i`` is seeded ``seed + i``."""
    result = Pairing(weak, strong, seconds={weak: [0.0, 0, 0.0, 0], strong: [0.0, 0, 0.0, 0]})
    for i in range(games):
        names = (strong, weak) if i % 2 == 0 else (weak, strong)
        agents = [make_agent(name, seed=seed + i) for name in names]
        game = play_game(agents, seed=seed + i)
        seat = names.index(strong)
        if seat in game.winners:
            result.points += 1.0 / len(game.winners)
        result.games += 1
        for k, name in enumerate(names):
            t = result.seconds[name]
            t[0] += game.setup_seconds[k]
            t[1] += game.setup_decisions[k]
            t[2] += game.play_seconds[k]
            t[3] += game.play_decisions[k]
    return result


def main(argv: Sequence[str] | None = None) -> None:
    """Play and print the ladder (see the module doc)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per pair (default 40)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument(
        "--levels", nargs="+", default=list(LADDER), help="the levels, weakest first"
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    times: dict[str, list[float]] = {}
    print(f"{'stronger':<16}{'weaker':<16}{'games':>6}{'score':>8}{'95 % interval':>18}")
    for weak, strong in zip(args.levels, args.levels[1:]):
        pairing = play_pairing(weak, strong, args.games, args.seed)
        lo, hi = wilson(pairing.points, pairing.games)
        rate = pairing.points / pairing.games
        print(
            f"{strong:<16}{weak:<16}{pairing.games:>6}{rate:>8.1%}"
            f"{f'{lo:.1%} - {hi:.1%}':>18}",
            flush=True,
        )
        for name, t in pairing.seconds.items():
            total = times.setdefault(name, [0.0, 0, 0.0, 0])
            for j in range(4):
                total[j] += t[j]
    print(f"\n{'level':<16}{'ms/move set-up':>16}{'ms/move play':>14}")
    for name in args.levels:
        setup_s, setup_n, play_s, play_n = times.get(name, [0.0, 0, 0.0, 0])
        print(
            f"{name:<16}{1000 * setup_s / max(setup_n, 1):>16.1f}"
            f"{1000 * play_s / max(play_n, 1):>14.1f}"
        )


if __name__ == "__main__":
    main()
