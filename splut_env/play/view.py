"""Splut! as the play shells show it: its :class:`~tabletop.play.view.View` (the diamond in
the terminal, pieces and rocks as JSON for the page's ``static/board.js``, steps in words,
checkpoints offered with and without their shield), and :class:`StepInfo`, what a step does.
"""

from __future__ import annotations

import importlib.util
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from splut_env.players.tactics import SHIELD_SUFFIX
from splut_env.rules import step_id
from splut_env.rules.board import (
    DIRS,
    KINDS,
    NEIGHBOUR,
    SEATS,
    SEATS_IN_PLAY,
    SQUARE_NAMES,
    TROLL,
    WIZARD,
    decode_id,
)
from splut_env.rules.diagram import SEAT_COLOURS, render_ansi
from splut_env.rules.engine import State
from splut_env.rules.notation import IllegalStepError, step_text
from tabletop.play.view import Offer, View

if TYPE_CHECKING:
    from splut_env.players.checkpoint import Checkpoint
    from tabletop.play.session import Session

PIECE_NAMES = ("wizard", "troll", "dwarf")
DIR_NAMES = {"n": "north", "e": "east", "s": "south", "w": "west"}


@dataclass(frozen=True)
class StepInfo:
    """What a step does, for front ends: the piece, where it goes, and its option."""

    text: str
    piece: str  # "W", "T" or "D"
    src: str  # square names
    dst: str
    option: str  # "move", "pull", "throw" or "levitate"
    throw: str | None = None  # throw direction n/e/s/w
    rock: str | None = None  # square of the levitated rock

    def describe(self) -> str:
        """The step in words, e.g. ``troll f2 -> f3, throws the rock north``."""
        words = f"{PIECE_NAMES[KINDS.index(self.piece)]} {self.src} -> {self.dst}"
        if self.option == "pull":
            return words + ", pulls the rock behind it"
        if self.option == "throw":
            return words + f", throws the rock {DIR_NAMES[self.throw or 'n']}"
        if self.option == "levitate":
            return words + f", levitates the rock on {self.rock}"
        return words


def step_info(state: State, step: int) -> StepInfo:
    """Describe legal step ``step`` (an engine id) of the player to move in ``state``."""
    kind, d, extra = decode_id(step)
    src = state.pos[state.to_move * 3 + kind]
    dst = NEIGHBOUR[d][src]
    option: dict[str, str] = {"option": "move"}
    if kind == WIZARD and extra >= 0:
        option = {"option": "levitate", "rock": SQUARE_NAMES[extra]}
    elif kind == TROLL and extra == 1:
        option = {"option": "pull"}
    elif kind == TROLL and extra >= 2:
        option = {"option": "throw", "throw": DIRS[extra - 2]}
    return StepInfo(step_text(step), KINDS[kind], SQUARE_NAMES[src], SQUARE_NAMES[dst], **option)


def load_offered(paths: list[str]) -> dict[str, Checkpoint]:
    """Load and check each checkpoint once; raises :class:`CheckpointError` naming a bad one."""
    from splut_env.players.checkpoint import load_checkpoint

    return {path: load_checkpoint(path) for path in paths}


def default_checkpoints() -> dict[str, Checkpoint]:
    """The loadable ``checkpoints/*.zip`` of the working folder (none without torch); a bad
    one is left out with a warning."""
    if not importlib.util.find_spec("torch"):
        return {}
    from splut_env.players.checkpoint import CheckpointError, load_checkpoint

    loaded = {}
    for path in sorted(str(p) for p in Path("checkpoints").glob("*.zip")):
        try:
            loaded[path] = load_checkpoint(path)
        except CheckpointError as err:
            warnings.warn(f"not offered: {err}", stacklevel=2)
    return loaded


def _offer(name: str, checkpoint: Checkpoint, shield: bool) -> Offer:
    def make() -> Any:
        agent = checkpoint.agent(shield=shield)
        agent.name = name
        return agent

    return Offer(make, checkpoint.num_players)


class SplutView(View):
    """Splut! in the terminal and the browser."""

    name = "splut"
    move_word = "step"
    turn_word = "turn"
    move_examples = "Dn, Twp, Tnxe, We@c5 (letters in any case)"
    player_files = "a checkpoint (.zip)"
    illegal_error = IllegalStepError
    colour_css = {"red": "#d63031", "blue": "#0984e3", "green": "#00a05a", "yellow": "#f0be00"}
    static_dir = Path(__file__).parent / "static"
    json_aliases = {"steps": "moves", "spn": "position"}
    help_html = """<p>Click one of your pieces, then a highlighted square. When a step has
        options (pull a rock, the direction of a throw, which rock to levitate) buttons offer
        them. Wizard: triangle, troll: square, dwarf: circle; rocks are grey (dark with a
        cross: moved last turn, cannot be levitated; ringed: being levitated). A throw onto
        an enemy wizard (SPLUT!) puts that team out; the last wizard standing wins. The full
        rules are in the project's <code>docs/SPLUT_RULES.md</code>.</p>"""

    def seat_colours(self, num_players: int) -> list[str]:
        return [SEAT_COLOURS[s] for s in SEATS_IN_PLAY[num_players]]

    def normalise(self, text: str) -> str:
        """Any letter case: ``tnXE`` -> ``Tnxe``."""
        text = text.strip()
        return text[:1].upper() + text[1:].lower() if text else text

    def step_info(self, state: State, move: str) -> StepInfo:
        return step_info(state, step_id(state, move))

    def describe(self, state: State, move: str) -> str:
        return self.step_info(state, move).describe()

    def move_json(self, state: State, move: str) -> dict[str, Any]:
        return asdict(self.step_info(state, move))

    def diagram(self, state: State, color: bool = True) -> str:
        return render_ansi(state, color=color)

    def turn_text(self, session: Session) -> str:
        state = session.state
        return f"turn {state.turn}, {state.steps_left} step(s) left"

    def notes(self, session: Session) -> list[str]:
        """Who was eliminated by which step."""
        lines = []
        states = session.states
        alive = set(states[0].alive_seats())
        for k in range(1, len(states)):
            now = set(states[k].alive_seats())
            for seat in sorted(alive - now):
                who = session.seat_name(states[0].seats.index(seat))
                lines.append(
                    f"{who} eliminated by step {k} ({session.moves[k - 1]}, turn "
                    f"{states[k - 1].turn})"
                )
            alive = now
        return lines

    def player_json(self, session: Session, player: int) -> dict[str, Any]:
        seat = session.state.seats[player]
        return {"alive": seat in session.state.alive_seats()}

    def position_json(self, session: Session) -> dict[str, Any]:
        state = session.state
        pieces = [
            {
                "id": KINDS[kind] + SEATS[s],
                "kind": KINDS[kind],
                "seat": SEATS[s],
                "square": SQUARE_NAMES[state.pos[s * 3 + kind]],
            }
            for s in state.seats
            for kind in range(3)
            if state.pos[s * 3 + kind] >= 0
        ]
        rocks = [
            {
                "id": f"R{i}",
                "square": SQUARE_NAMES[sq],
                "locked": bool((state.locked >> sq) & 1),
                "levitating": sq == state.lev,
            }
            for i, sq in enumerate(state.rocks)
        ]
        over = session.is_over()
        return {
            "pieces": pieces,
            "rocks": rocks,
            "turn": state.turn,
            "steps_left": 0 if over else state.steps_left,
        }

    def offer(self, paths: list[str] | None) -> dict[str, Offer]:
        """Each checkpoint as itself and with its tactical shield (``<file>:shield``),
        loaded once (a bad one raises :class:`CheckpointError`); ``None``: the loadable
        ``checkpoints/*.zip`` of the working folder, when torch is installed."""
        loaded = default_checkpoints() if paths is None else load_offered(paths)
        return {
            path + suffix: _offer(path + suffix, ckpt, bool(suffix))
            for path, ckpt in loaded.items()
            for suffix in ("", SHIELD_SUFFIX)
        }


VIEW = SplutView()
