"""Play Splut! in the terminal: ``python -m splut_env.play --players human search:easy``.

Any seat can be ``human`` or an agent (a bot name such as ``greedy`` or ``search:hard``, or a
checkpoint path). After every step the board is drawn; on a human's turn the legal steps are
listed and one is chosen by its notation (``Dn``, ``Tnxe``, ``We@c5``) or its number.
Commands: ``undo``, ``hint``, ``save [file]``, ``load <file>``, ``board``, ``help``,
``quit``. A mistyped or illegal entry gets a message and the prompt again.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from splut_env.play.session import HUMAN, Game
from splut_env.players import agent_names, make_agent
from splut_env.rules.board import MAX_TURN
from splut_env.rules.diagram import render_ansi
from tabletop.agents import Agent, check_table
from tabletop.cli import int_range, seconds

HELP = """\
  <step>      play a step in notation, e.g. Dn, Twp, Tnxe, We@c5 (letters in any case)
  <number>    play the step with that number in the list
  undo        take back your last step (and the agents' steps after it)
  hint        what {hint} would play here
  save [f]    save the game as a step log (default: {save})
  load <f>    load a step log and go on from its last position
  board       draw the board again
  help        this list
  quit        stop (the game is not saved unless you save it)"""


def normalise(text: str) -> str:
    """Accept any letter case: ``tnXE`` -> ``Tnxe``."""
    text = text.strip()
    return text[:1].upper() + text[1:].lower() if text else text


class TerminalGame:
    """The prompt loop over one :class:`Game`; reads ``stdin`` and writes ``stdout``."""

    def __init__(
        self,
        game: Game,
        stdin: TextIO,
        stdout: TextIO,
        color: bool = True,
        delay: float = 0.0,
        hint_agent: Agent | None = None,
        save_path: Path = Path("splut_game.txt"),
    ) -> None:
        self.game = game
        self.stdin, self.stdout = stdin, stdout
        self.color, self.delay = color, delay
        self.hint_agent, self.save_path = hint_agent, save_path

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def board(self) -> None:
        self.say(render_ansi(self.game.state, color=self.color))

    def run(self) -> int:
        """Play to the end (or ``quit``/end of input); 0 when the game finished."""
        self.say(
            f"Splut! {' vs '.join(self.game.seat_name(k) for k in range(self.game.num_players))}"
        )
        self.board()
        while not self.game.is_over():
            if self.game.human_to_move():
                if not self.human_turn():
                    self.say("Game stopped. " + self.game.result_text())
                    return 1
            else:
                who = self.game.seat_name(self.game.player_of(self.game.state.to_move))
                step = self.game.agent_step()
                self.say(f"\n{who} plays {step}")
                self.board()
                if self.delay:
                    time.sleep(self.delay)
        self.say("\n" + self.game.summary())
        return 0

    def human_turn(self) -> bool:
        """Prompt until one step is played; ``False`` on quit or end of input."""
        game = self.game
        steps = game.legal_steps()
        state = game.state
        who = game.seat_name(game.player_of(state.to_move))
        self.say(f"\n{who}: turn {state.turn}, {state.steps_left} step(s) left. Legal steps:")
        width = max(len(s.text) for s in steps)
        for n, s in enumerate(steps, start=1):
            self.say(f"  {n:>3}. {s.text:<{width}}  {s.describe()}")
        commands: dict[str, Callable[[str], bool | None]] = {
            "undo": self.cmd_undo,
            "hint": self.cmd_hint,
            "save": self.cmd_save,
            "load": self.cmd_load,
            "board": lambda _: self.board(),
            "help": self.cmd_help,
        }
        while True:
            self.stdout.write("step> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.say("\n(end of input)")
                return False
            if not self.stdin.isatty():
                self.say(line.rstrip("\n"))  # show piped input in the transcript
            entry = line.strip()
            if not entry:
                continue
            word, _, arg = entry.partition(" ")
            word = word.lower()
            if word in ("quit", "exit", "q"):
                return False
            if word in commands:
                if commands[word](arg.strip()):
                    return True
                continue
            if entry.isascii() and entry.isdigit():
                n = int(entry) if len(entry) <= 4 else 0
                if not 1 <= n <= len(steps):
                    self.say(f"No step number {entry:.10}: choose 1 to {len(steps)}.")
                    continue
                entry = steps[n - 1].text
            try:
                played = game.play(normalise(entry))
            except ValueError as err:
                self.say(f"{err}\nType a step from the list, its number, or 'help'.")
                continue
            self.say(f"\n{who} plays {played}")
            self.board()
            return True

    def cmd_help(self, _: str) -> None:
        hint = self.hint_agent.name if self.hint_agent else "the first agent at the table"
        self.say(HELP.format(hint=hint, save=self.save_path))

    def cmd_undo(self, _: str) -> bool:
        undone = self.game.undo()
        if not undone:
            self.say("Nothing to undo.")
            return False
        self.say(f"Took back: {' '.join(reversed(undone))}")
        self.board()
        return True  # the turn's prompt starts again with the new list

    def cmd_hint(self, _: str) -> None:
        try:
            step = self.game.hint(self.hint_agent)
        except ValueError as err:
            self.say(f"No hint: {err}")
            return
        info = next(s for s in self.game.legal_steps() if s.text == step)
        self.say(f"Hint: {step}  ({info.describe()})")

    def cmd_save(self, arg: str) -> None:
        path = Path(arg) if arg else self.save_path
        try:
            self.game.save(path)
        except (OSError, ValueError) as err:
            self.say(f"Could not save to {path}: {err}")
            return
        self.say(f"Saved {len(self.game.steps)} steps to {path}")

    def cmd_load(self, arg: str) -> bool:
        if not arg:
            self.say("Usage: load <file>")
            return False
        try:
            game = Game.load(arg, self.game.labels, max_turns=self.game.max_turns)
        except ValueError as err:
            self.say(f"Could not load: {err}")
            return False
        self.game = game
        self.say(f"Loaded {len(game.steps)} steps from {arg}")
        self.board()
        return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m splut_env.play", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--players",
        nargs="+",
        default=[HUMAN, "search:easy"],
        metavar="PLAYER",
        help=f"2-4 players in seat order: human, a checkpoint (.zip) or one of {agent_names()}",
    )
    parser.add_argument("--load", type=Path, help="continue the last game of a step log")
    parser.add_argument("--seed", type=int_range(0), default=0, help="seed for the agents")
    parser.add_argument("--max-turns", type=int_range(1, MAX_TURN), default=200)
    parser.add_argument("--hint", help="agent asked by 'hint' (default: first agent at the table)")
    parser.add_argument("--save", type=Path, default=Path("splut_game.txt"), help="save file")
    parser.add_argument("--delay", type=seconds, default=None, help="seconds after agent steps")
    parser.add_argument("--no-color", action="store_true", help="plain text board")
    args = parser.parse_args(argv)
    game = None
    try:
        if args.load:
            game = Game.load(args.load, args.players, max_turns=args.max_turns, seed=args.seed)
        else:
            game = Game(args.players, max_turns=args.max_turns, seed=args.seed)
        hint = make_agent(args.hint, seed=args.seed) if args.hint else None
        if hint is not None:
            check_table([hint], game.num_players)
    except (ValueError, OSError, ImportError) as err:
        parser.error(f"--hint {args.hint}: {err}" if game and args.hint else str(err))
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    delay = args.delay if args.delay is not None else (0.5 if interactive else 0.0)
    color = not args.no_color and sys.stdout.isatty()
    ui = TerminalGame(game, sys.stdin, sys.stdout, color, delay, hint, args.save)
    try:
        return ui.run()
    except KeyboardInterrupt:
        print("\nInterrupted. " + ui.game.result_text())
        return 130


if __name__ == "__main__":
    sys.exit(main())
