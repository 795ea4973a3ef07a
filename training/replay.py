"""Replay a logged game: ``python -m training.replay runs/eval/games.txt --game 3 [--gif g.gif]``.

A log has one game per line, ``<start SPN> | <steps>`` (lines starting with ``#`` are
comments), as written by ``training.evaluate``. Every step is checked against the rules.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from splut_env.envs.gamelog import positions, read_games
from splut_env.envs.render import render_rgb
from splut_env.rules.diagram import render_ansi
from splut_env.rules.engine import State
from tabletop.cli import int_range, seconds


def save_gif(states: list[State], path: Path, ms_per_step: int = 400) -> None:
    from PIL import Image

    frames = [Image.fromarray(render_rgb(s)) for s in states]
    path.parent.mkdir(parents=True, exist_ok=True)
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=ms_per_step, loop=0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--game", type=int_range(0), default=0, help="index among the log's games")
    parser.add_argument(
        "--gif", type=Path, help="write an animated GIF (*.gif) instead of printing"
    )
    parser.add_argument("--delay", type=seconds, default=0.3, help="seconds between steps")
    args = parser.parse_args(argv)
    if args.gif and (args.gif.suffix.lower() != ".gif" or args.gif.is_dir()):
        parser.error(f"--gif {str(args.gif)!r}: expected a file name ending in .gif")
    try:
        games = read_games(args.log)
        if not 0 <= args.game < len(games):
            raise ValueError(f"--game must be 0..{len(games) - 1} for {args.log}, got {args.game}")
        start, steps = games[args.game]
        states = positions(start, steps, f"{args.log} game {args.game}")
    except (OSError, ValueError) as err:
        parser.error(str(err))
    if args.gif:
        try:
            save_gif(states, args.gif)
        except (OSError, ValueError) as err:
            parser.error(f"--gif {str(args.gif)!r}: cannot write it: {err}")
        print(f"{len(states)} frames written to {args.gif}")
        return
    for k, state in enumerate(states):
        print(f"\n{'start' if k == 0 else f'step {k}: {steps[k - 1]}'}")
        print(render_ansi(state))
        time.sleep(args.delay)


if __name__ == "__main__":
    main()
