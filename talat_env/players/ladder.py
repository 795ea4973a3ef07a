"""The ladder of Talat's built-in bots: each adjacent pair of levels plays 2-player games,
seats alternated (or, with ``--players 3``, the stronger level against two of the weaker,
seats rotated), and the stronger level's score (a win 1, a win shared by k players 1/k) is
printed with its Wilson 95 % interval, followed by each level's thinking time per move
(processor time, so other work on the machine does not inflate it).

    python -m talat_env.players.ladder --games 40
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from tabletop.agents import Agent, agent_seed
from tabletop.stats import wilson
from talat_env import rules
from talat_env.encoding import action_mask, checked_move_id, observation
from talat_env.players import make_agent
from talat_env.rules.engine import State

#: The built-in levels, weakest first.
LADDER = ("random", "greedy", "search:easy", "search:medium", "search:hard", "search:expert")


@dataclass
class PlayedGame:
    """A finished game: its moves (engine ids), winners (seats) and each seat's thinking
    time (processor seconds) and decisions, in set-up and in play."""

    moves: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    setup_seconds: list[float] = field(default_factory=list)
    setup_decisions: list[int] = field(default_factory=list)
    play_seconds: list[float] = field(default_factory=list)
    play_decisions: list[int] = field(default_factory=list)
    final: State | None = None


def play_game(agents: Sequence[Agent], seed: int | None = None) -> PlayedGame:
    """Play a game from the start, ``agents[k]`` in seat ``k``, each reset with a seed
    derived from ``seed`` (agents that need observations get ``{"observation",
    "action_mask"}`` of their seat); raises ``ValueError`` (:class:`~talat_env.rules.IllegalMoveError`)
    naming an agent that plays illegally."""
    n = len(agents)
    state = rules.initial_state(n)
    for k, agent in enumerate(agents):
        agent.reset(seed=agent_seed(seed, k))
    game = PlayedGame(
        setup_seconds=[0.0] * n,
        setup_decisions=[0] * n,
        play_seconds=[0.0] * n,
        play_decisions=[0] * n,
    )
    while not state.is_over():
        seat = state.to_move
        agent = agents[seat]
        obs = None
        if agent.needs_observation:
            obs = {"observation": observation(state, seat), "action_mask": action_mask(state, seat)}
        start = time.process_time()
        action = agent.act(state, obs)
        spent = time.process_time() - start
        if state.phase == 0:
            game.setup_seconds[seat] += spent
            game.setup_decisions[seat] += 1
        else:
            game.play_seconds[seat] += spent
            game.play_decisions[seat] += 1
        move = checked_move_id(state, seat, action, who=repr(agent))
        game.moves.append(move)
        state.apply(move)
    game.winners = list(state.winners())
    game.final = state
    return game


@dataclass
class Thinking:
    """A player's thinking time (processor seconds) and decisions, in set-up and in play."""

    setup_seconds: float = 0.0
    setup_decisions: int = 0
    play_seconds: float = 0.0
    play_decisions: int = 0

    def add(self, game: PlayedGame, seat: int) -> None:
        """Count ``seat``'s thinking in ``game``."""
        self.setup_seconds += game.setup_seconds[seat]
        self.setup_decisions += game.setup_decisions[seat]
        self.play_seconds += game.play_seconds[seat]
        self.play_decisions += game.play_decisions[seat]

    def merge(self, other: Thinking) -> None:
        """Count ``other``'s thinking too."""
        self.setup_seconds += other.setup_seconds
        self.setup_decisions += other.setup_decisions
        self.play_seconds += other.play_seconds
        self.play_decisions += other.play_decisions

    def milliseconds(self) -> tuple[float, float]:
        """Milliseconds per decision in set-up and in play (0 without decisions)."""
        return (
            1000 * self.setup_seconds / max(self.setup_decisions, 1),
            1000 * self.play_seconds / max(self.play_decisions, 1),
        )


@dataclass
class Pairing:
    """The games of ``strong`` against ``weak``: ``strong``'s points (a win 1, a win shared
    by k players 1/k) and each name's thinking."""

    weak: str
    strong: str
    games: int = 0
    points: float = 0.0
    thinking: dict[str, Thinking] = field(default_factory=dict)


def play_pairing(weak: str, strong: str, games: int, seed: int = 0, players: int = 2) -> Pairing:
    """``games`` games of one ``strong`` against ``players - 1`` ``weak`` players, ``strong``
    in seat ``i % players`` in game ``i``, which is seeded ``seed + i``."""
    result = Pairing(weak, strong, thinking={weak: Thinking(), strong: Thinking()})
    for i in range(games):
        seat = i % players
        names = [strong if k == seat else weak for k in range(players)]
        game = play_game([make_agent(name, seed=seed + i) for name in names], seed=seed + i)
        if seat in game.winners:
            result.points += 1.0 / len(game.winners)
        result.games += 1
        for k, name in enumerate(names):
            result.thinking[name].add(game, k)
    return result


def main(argv: Sequence[str] | None = None) -> None:
    """Play and print the ladder (see the module doc)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per pair (default 40)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument(
        "--players",
        type=int,
        choices=(2, 3),
        default=2,
        help="2 (default), or 3: the stronger level against two of the weaker (par 1/3)",
    )
    parser.add_argument(
        "--levels", nargs="+", default=list(LADDER), help="the levels, weakest first"
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    thinking: dict[str, Thinking] = {name: Thinking() for name in args.levels}
    print(f"{'stronger':<16}{'weaker':<16}{'games':>6}{'score':>8}{'95 % interval':>18}")
    for weak, strong in zip(args.levels, args.levels[1:], strict=False):
        pairing = play_pairing(weak, strong, args.games, args.seed, args.players)
        lo, hi = wilson(pairing.points, pairing.games)
        rate = pairing.points / pairing.games
        print(
            f"{strong:<16}{weak:<16}{pairing.games:>6}{rate:>8.1%}{f'{lo:.1%} - {hi:.1%}':>18}",
            flush=True,
        )
        for name, spent in pairing.thinking.items():
            thinking[name].merge(spent)
    print(f"\n{'level':<16}{'ms/move set-up':>16}{'ms/move play':>14}")
    for name in args.levels:
        setup_ms, play_ms = thinking[name].milliseconds()
        print(f"{name:<16}{setup_ms:>16.1f}{play_ms:>14.1f}")


if __name__ == "__main__":
    main()
