"""Play any game with a view in the terminal: ``python -m tabletop.play --game talat``.

Any seat can be ``human`` or an agent (a name such as ``greedy`` or ``search:hard``, or a
player file the game reads). After every move the position is drawn; on a human's turn the
legal moves are shown and one is chosen by its notation (letter case as the game allows)
or its number in the sorted list. Commands: ``moves``, ``undo``, ``hint``, ``save [file]``,
``load <file>``, ``board``, ``help``, ``quit``. A mistyped or illegal entry gets a message
and the prompt again, and changes nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from tabletop.agents import Agent, check_table
from tabletop.cli import int_range, seconds
from tabletop.games import DEFAULT_GAME
from tabletop.play.session import HUMAN, Session, load_session
from tabletop.play.view import View
from tabletop.play.views import get_view, view_names, view_of_command

HELP = """\
  {entry:<12}play a {move} in notation, e.g. {examples}
  <number>    play the {move} with that number in the sorted list ('{move}s' shows it)
  {move}s{pad}list every legal {move}, numbered
  undo        take back your last {move} (and the agents' {move}s after it)
  hint        what {hint} would play here
  save [f]    save the game as a log (default: {save})
  load <f>    load a game log and go on from its last position
  board       draw the board again
  help        this list
  quit        stop (the game is not saved unless you save it)"""


class TerminalSession:
    """The prompt loop over one :class:`Session`; reads ``stdin`` and writes ``stdout``."""

    def __init__(
        self,
        session: Session,
        stdin: TextIO,
        stdout: TextIO,
        color: bool = True,
        delay: float = 0.0,
        hint_agent: Agent | None = None,
        save_path: Path | None = None,
    ) -> None:
        self.session = session
        self.stdin, self.stdout = stdin, stdout
        self.color, self.delay = color, delay
        self.hint_agent = hint_agent
        self.save_path = save_path or Path(f"{session.game.name}_game.txt")

    @property
    def view(self) -> View:
        return self.session.view

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def board(self) -> None:
        self.say(self.view.diagram(self.session.state, color=self.color))

    def run(self) -> int:
        """Play to the end (or ``quit``/end of input); 0 when the game finished."""
        session = self.session
        players = " vs ".join(session.seat_name(k) for k in range(session.num_players))
        self.say(f"{session.game.title} {players}")
        self.board()
        while not self.session.is_over():
            session = self.session
            if session.human_to_move():
                if not self.human_turn():
                    self.say("Game stopped. " + self.session.result_text())
                    return 1
                continue
            who = session.seat_name(session.to_move())
            move = session.agent_move()
            self.say(f"\n{who} plays {move}")
            self.board()
            if self.delay:
                time.sleep(self.delay)
        self.say("\n" + self.session.summary())
        return 0

    def list_moves(self, moves: list[str]) -> None:
        width = max(len(m) for m in moves)
        state = self.session.state
        for n, move in enumerate(moves, start=1):
            self.say(f"  {n:>3}. {move:<{width}}  {self.view.describe(state, move)}")

    def human_turn(self) -> bool:
        """Prompt until one move is played (or taken back, or a game loaded); ``False`` on
        quit or end of input."""
        session = self.session
        word = self.view.move_word
        moves = session.legal_moves()
        who = session.seat_name(session.to_move())
        self.say(f"\n{who}: {self.view.turn_text(session)}. Legal {word}s:")
        menu = self.view.move_menu(session.state, moves)
        if menu is None:
            self.list_moves(moves)
        else:
            for line in menu:
                self.say(f"  {line}")
        commands: dict[str, Callable[[str], bool | None]] = {
            f"{word}s": lambda _: self.list_moves(moves),
            "undo": self.cmd_undo,
            "hint": self.cmd_hint,
            "save": self.cmd_save,
            "load": self.cmd_load,
            "board": lambda _: self.board(),
            "help": self.cmd_help,
        }
        while True:
            self.stdout.write(f"{word}> ")
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
            command, _, arg = entry.partition(" ")
            command = command.lower()
            if command in ("quit", "exit", "q"):
                return False
            if command in commands:
                if commands[command](arg.strip()):
                    return True
                continue
            if entry.isascii() and entry.isdigit():
                n = int(entry) if len(entry) <= 4 else 0
                if not 1 <= n <= len(moves):
                    self.say(f"No {word} number {entry:.10}: choose 1 to {len(moves)}.")
                    continue
                entry = moves[n - 1]
            try:
                played = session.play(entry)
            except ValueError as err:
                self.say(f"{err}\nType a {word} from the list, its number, or 'help'.")
                continue
            self.say(f"\n{who} plays {played}")
            self.board()
            return True

    def cmd_help(self, _: str) -> None:
        word = self.view.move_word
        hint = self.hint_agent.name if self.hint_agent else "the first agent at the table"
        self.say(
            HELP.format(
                entry=f"<{word}>",
                move=word,
                pad=" " * max(1, 11 - len(word)),
                examples=self.view.move_examples,
                hint=hint,
                save=self.save_path,
            )
        )

    def cmd_undo(self, _: str) -> bool:
        undone = self.session.undo()
        if not undone:
            self.say("Nothing to undo.")
            return False
        self.say(f"Took back: {' '.join(reversed(undone))}")
        self.board()
        return True  # the turn's prompt starts again with the new list

    def cmd_hint(self, _: str) -> None:
        try:
            move = self.session.hint(self.hint_agent)
        except ValueError as err:
            self.say(f"No hint: {err}")
            return
        self.say(f"Hint: {move}  ({self.session.describe(move)})")

    def cmd_save(self, arg: str) -> None:
        path = Path(arg) if arg else self.save_path
        try:
            self.session.save(path)
        except (OSError, ValueError) as err:
            self.say(f"Could not save to {path}: {err}")
            return
        self.say(f"Saved {len(self.session.moves)} {self.view.move_word}s to {path}")

    def cmd_load(self, arg: str) -> bool:
        if not arg:
            self.say("Usage: load <file>")
            return False
        try:
            session = self.session.reload(arg)
        except ValueError as err:
            self.say(f"Could not load: {err}")
            return False
        self.session = session
        self.say(f"Loaded {len(session.moves)} {self.view.move_word}s from {arg}")
        self.board()
        return True


def main(
    argv: list[str] | None = None,
    view: View | str | None = None,
    prog: str = "python -m tabletop.play",
) -> int:
    """The terminal command line: of ``view``'s game, or, without ``view``, of the game
    ``--game`` names."""
    chosen, problem = (get_view(view), "") if view is not None else view_of_command(argv)
    title = chosen.game.title if chosen else "a game"
    parser = argparse.ArgumentParser(
        prog=prog, description=f"Play {title} in the terminal, against agents or people."
    )
    if view is None:
        parser.add_argument(
            "--game", default=DEFAULT_GAME, help=f"the game: {', '.join(view_names())}"
        )
    if chosen is None:
        parser.error(f"--game: {problem}")
    game = chosen.game
    files = f", {chosen.player_files}" if chosen.player_files else ""
    parser.add_argument(
        "--players",
        nargs="+",
        default=[HUMAN, chosen.default_opponent],
        metavar="PLAYER",
        help=f"{game.counts_text()} players in seat order: human{files} or one of "
        f"{game.players.names()}",
    )
    parser.add_argument("--load", type=Path, help="continue the last game of a game log")
    parser.add_argument("--seed", type=int_range(0), default=0, help="seed for the agents")
    parser.add_argument(
        "--max-turns", type=int_range(1, game.max_turns_limit), default=game.max_turns
    )
    parser.add_argument("--hint", help="agent asked by 'hint' (default: first agent at the table)")
    default_save = Path(f"{game.name}_game.txt")
    parser.add_argument("--save", type=Path, default=default_save, help="save file")
    parser.add_argument("--delay", type=seconds, default=None, help="seconds after agent moves")
    parser.add_argument("--no-color", action="store_true", help="plain text board")
    args = parser.parse_args(argv)
    session = None
    try:
        if args.load:
            session = load_session(
                chosen, args.load, args.players, max_turns=args.max_turns, seed=args.seed
            )
        else:
            session = Session(chosen, args.players, max_turns=args.max_turns, seed=args.seed)
        hint = None
        if args.hint:
            chosen.check_seat(args.hint, session.num_players)
            hint = game.make_agent(args.hint, seed=args.seed)
            check_table([hint], session.num_players)
    except (ValueError, OSError, ImportError) as err:
        parser.error(f"--hint {args.hint}: {err}" if session and args.hint else str(err))
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    delay = args.delay if args.delay is not None else (0.5 if interactive else 0.0)
    color = not args.no_color and sys.stdout.isatty()
    ui = TerminalSession(session, sys.stdin, sys.stdout, color, delay, hint, args.save)
    try:
        return ui.run()
    except KeyboardInterrupt:
        print("\nInterrupted. " + ui.session.result_text())
        return 130


if __name__ == "__main__":
    sys.exit(main())
