"""Watch agents play one game in the terminal: ``python -m splut_env.demo``.

Runs the PettingZoo AEC env with ``render_mode="ansi"``, prints the board after every turn
with the steps played, and the result; ``--image`` also saves the final board as a PNG.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from splut_env import rules
from splut_env.envs.aec import env as make_env
from splut_env.envs.render import render_rgb
from splut_env.players import agent_names, make_agent
from splut_env.rules.board import MAX_TURN
from splut_env.rules.engine import State
from tabletop.agents import check_table
from tabletop.cli import int_range, seconds


def play_game(players: list[str], seed: int, max_turns: int, delay: float, color: bool) -> State:
    """Play one game between the named agents, printing it; returns the final state."""
    env = make_env(num_players=len(players), max_turns=max_turns, render_mode="ansi")
    env.reset(seed=seed)
    raw = env.unwrapped
    agents = {
        a: make_agent(name, seed=seed + i)
        for i, (a, name) in enumerate(zip(raw.possible_agents, players, strict=True))
    }
    check_table(list(agents.values()), len(players))
    turn_steps: list[str] = []
    turn = raw.game_state.turn
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        agent_impl = agents[agent]
        action = agent_impl.act(raw.game_state, obs if agent_impl.needs_observation else None)
        turn_steps.append(raw.action_to_step(action))
        mover = agent
        env.step(action)
        if raw.game_state.turn != turn or raw.game_state.is_over():
            frame = env.render() if color else str(raw.game_state)
            print(
                f"\nturn {turn}: {mover} ({players[raw.possible_agents.index(mover)]}) played {' '.join(turn_steps)}"
            )
            print(frame)
            turn, turn_steps = raw.game_state.turn, []
            time.sleep(delay)
    return raw.game_state


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Watch a game of Splut! between agents.")
    parser.add_argument(
        "--players",
        nargs="+",
        default=["random", "random"],
        help=f"2-4 agents, one per seat: {agent_names()}",
    )
    parser.add_argument("--seed", type=int_range(0, 10**9), default=0)
    parser.add_argument("--max-turns", type=int_range(1, MAX_TURN), default=200)
    parser.add_argument(
        "--delay", type=seconds, default=0.0, help="seconds to wait after each turn"
    )
    parser.add_argument("--no-color", action="store_true", help="plain text board")
    parser.add_argument("--image", type=Path, help="save the final board as a PNG here")
    args = parser.parse_args(argv)
    if not 2 <= len(args.players) <= 4:
        parser.error(f"--players: expected 2 to 4 agents, got {len(args.players)}")
    try:
        state = play_game(args.players, args.seed, args.max_turns, args.delay, not args.no_color)
    except ValueError as err:
        parser.error(str(err))
    winner = rules.winner(state)
    print(
        f"\nresult after {state.turn} turns: " + (f"seat {winner} wins" if winner else "no winner")
    )
    if args.image:
        from PIL import Image

        args.image.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(render_rgb(state)).save(args.image)
        print(f"final board saved to {args.image}")


if __name__ == "__main__":
    main()
