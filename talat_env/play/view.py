"""Talat as the play shells show it: its :class:`~tabletop.play.view.View`.

In the terminal, the rules' text diagram (three boards side by side, scores, piles) with the
towers coloured, and the set-up's placements summed up rather than listed one by one. For
the page's ``static/board.js``, the boards, towers, scores, piles and what is left to place
as JSON. Moves in words: ``white L6 (large hexagon) wb c1 -> d2``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tabletop.play.view import View
from talat_env import rules
from talat_env.rules.board import (
    BOARD_COLOURS,
    BOARD_NAMES,
    CODE_COLOUR,
    CODE_TYPE,
    COLOUR_BOARDS,
    COLOUR_NAMES,
    COLOURS,
    GREY,
    OVER,
    PLACE,
    PLACEMENTS,
    SQUARE_NAMES,
    TOWER_NAMES,
    TYPE_NAMES,
    ZIHIN_TOWERS,
    start_squares,
)
from talat_env.rules.engine import State
from talat_env.rules.notation import IllegalMoveError, InvalidNotationError, parse_move

if TYPE_CHECKING:
    from tabletop.play.session import Session

HEIGHTS = {"S": "small", "M": "medium", "L": "large"}
SHAPES = {"3": "triangle", "4": "square", "6": "hexagon"}

_ANSI = {"w": "\x1b[1;30;107m", "b": "\x1b[1;97;40m", "g": "\x1b[1;30;47m"}
_ANSI_FROZEN, _ANSI_DIM, _ANSI_RESET = "\x1b[1;34m", "\x1b[2m", "\x1b[0m"
_TOWER = re.compile(r"\b([wbg])([SML][346])\b")


def type_words(tower_type: str) -> str:
    """``"L6"`` -> ``"large hexagon"``."""
    return f"{HEIGHTS[tower_type[0]]} {SHAPES[tower_type[1]]}"


def _tower(code: int) -> str:
    """``white L6``."""
    return f"{COLOUR_NAMES[CODE_COLOUR[code]]} {TYPE_NAMES[CODE_TYPE[code]]}"


def _placed(state: State) -> int:
    return sum(1 for c in state.cells if c) + sum(len(p) for p in state.piles)


def unplaced(state: State) -> dict[str, list[str]]:
    """Per colour letter, the tower types still to be placed in the set-up (none in play;
    with 2 players, grey's only while the Zihin is being set up)."""
    out: dict[str, list[str]] = {c: [] for c in COLOURS}
    if state.phase != PLACE:
        return out
    standing = {TOWER_NAMES[c] for c in state.cells if c}
    for k, colour in enumerate(COLOURS):
        if k == GREY and state.num_players == 2:
            greys = sum(1 for c in state.cells if c and CODE_COLOUR[c] == GREY)
            if greys >= ZIHIN_TOWERS:
                continue
        out[colour] = [t for t in TYPE_NAMES if colour + t not in standing]
    return out


class TalatView(View):
    """Talat in the terminal and the browser."""

    name = "talat"
    move_word = "move"
    turn_word = "move"
    move_examples = "wb:L6@c1 (place), wb:c1-d2 (step), gw:b4xc4 (capture), pass (any case)"
    illegal_error = IllegalMoveError
    colour_css = {"white": "#f7f5ee", "black": "#2b2b30", "grey": "#9a9ca3"}
    static_dir = Path(__file__).parent / "static"
    help_html = """<p><b>Set-up:</b> in turn, each player places one of their towers on an
        empty square of one of their two start lines (the edge marked with their colour):
        choose a tower in the tray, then a highlighted square. With 2 players the first 8
        placements are grey towers (the Zihin). <b>Play:</b> click one of your towers, then
        a green square (a step forward, straight or diagonal) or a red one (a capture:
        straight or diagonally ahead, or beside). <b>Who beats whom:</b> one height taller
        beats shorter (L beats M, M beats S); at equal height more corners beat fewer (6
        beats 4 and 3, 4 beats 3); the small triangle S3 beats the large hexagon L6. A board
        on which no capture can ever happen again freezes (blue); the game ends when two
        boards are frozen. <b>Score:</b> 5 per captured tower, 3 per own tower on its goal
        line (the opposite edge). The full rules are in the project's
        <code>TALAT_RULES.md</code>.</p>"""

    def seat_colours(self, num_players: int) -> list[str]:
        return [COLOUR_NAMES[COLOURS.index(c)] for c in rules.seats(num_players)]

    def normalise(self, text: str) -> str:
        """The canonical text of a well-formed move in any letter case (``WB:l6@C1`` ->
        ``wb:L6@c1``); anything else as typed, for the rules to refuse."""
        try:
            kind, board, a, b = parse_move(text)
        except InvalidNotationError:
            return text.strip()
        if kind == "pass":
            return "pass"
        name = BOARD_NAMES[board]
        if kind == "place":
            return f"{name}:{TYPE_NAMES[b]}@{SQUARE_NAMES[a]}"
        sep = "-" if kind == "step" else "x"
        return f"{name}:{SQUARE_NAMES[a]}{sep}{SQUARE_NAMES[b]}"

    def describe(self, state: State, move: str) -> str:
        kind, board, a, b = parse_move(move)
        if kind == "pass":
            return "pass: no step or capture is possible"
        name = BOARD_NAMES[board]
        if kind == "place":
            colour = state.placing_colour()
            zihin = " (Zihin)" if colour != state.to_move else ""
            words = (
                f"place {COLOUR_NAMES[colour]}{zihin} {TYPE_NAMES[b]} ({type_words(TYPE_NAMES[b])})"
                f" on {name} {SQUARE_NAMES[a]}"
            )
        else:
            mover = state.cells[board * 25 + a]
            words = f"{_tower(mover)} {name} {SQUARE_NAMES[a]} -> {SQUARE_NAMES[b]}"
            if kind == "capture":
                words += f", captures {_tower(state.cells[board * 25 + b])}"
        after = rules.play(state, move)
        froze = [BOARD_NAMES[k] for k in range(3) if after.frozen[k] and not state.frozen[k]]
        if after.phase == OVER:
            words += ", ends the game"
        elif froze and state.phase != PLACE:
            words += f", freezes {' and '.join(froze)}"
        return words

    def move_json(self, state: State, move: str) -> dict[str, Any]:
        kind, board, a, b = parse_move(move)
        out: dict[str, Any] = {"text": move, "kind": kind}
        if kind == "place":
            out |= {"board": BOARD_NAMES[board], "type": TYPE_NAMES[b], "square": SQUARE_NAMES[a]}
        elif kind != "pass":
            out |= {"board": BOARD_NAMES[board], "src": SQUARE_NAMES[a], "dst": SQUARE_NAMES[b]}
        return out

    def move_menu(self, state: State, moves: list[str]) -> list[str] | None:
        """During the set-up, the towers left and the free start squares instead of every
        placement."""
        if state.phase != PLACE or not moves:
            return None
        colour = state.placing_colour()
        letter = COLOURS[colour]
        free = "; ".join(
            f"{BOARD_NAMES[b]} "
            + " ".join(
                SQUARE_NAMES[sq] for sq in start_squares(colour, b) if not state.cells[b * 25 + sq]
            )
            for b in COLOUR_BOARDS[colour]
        )
        return [
            f"{COLOUR_NAMES[colour]} towers to place: {' '.join(unplaced(state)[letter])}",
            f"free start squares: {free}",
            f"type <board>:<type>@<square>, e.g. {moves[-1]} ('moves' lists all {len(moves)})",
        ]

    def diagram(self, state: State, color: bool = True) -> str:
        text = str(state)
        if not color:
            return text
        *body, position = text.split("\n")
        body = "\n".join(body)
        body = _TOWER.sub(lambda m: f"{_ANSI[m[1]]}{m[0]}{_ANSI_RESET}", body)
        body = body.replace("(frozen)", f"{_ANSI_FROZEN}(frozen){_ANSI_RESET}")
        body = body.replace(" . ", f" {_ANSI_DIM}.{_ANSI_RESET} ")
        return f"{body}\n{position}"

    def turn_text(self, session: Session) -> str:
        state = session.state
        if state.phase == PLACE:
            colour = state.placing_colour()
            what = "a grey (Zihin)" if colour != state.to_move else "an own"
            total = PLACEMENTS[state.num_players]
            return f"set-up, place {what} tower ({_placed(state)} of {total} placed)"
        only_pass = session.legal_moves() == ["pass"]
        return f"move {session.counter()}" + (": no step or capture, pass" if only_pass else "")

    def score_text(self, state: State) -> str:
        scores = state.scores()
        seats = rules.seats(state.num_players)
        return "scores " + ", ".join(f"{s} {v}" for s, v in zip(seats, scores, strict=True))

    def notes(self, session: Session) -> list[str]:
        """When the set-up ended and each board froze."""
        lines = []
        states = session.states
        for k in range(1, len(states)):
            before, after = states[k - 1], states[k]
            if before.phase == PLACE and after.phase != PLACE:
                lines.append(f"set-up over after move {k}")
            for b in range(3):
                if after.frozen[b] and not before.frozen[b]:
                    lines.append(
                        f"board {BOARD_NAMES[b]} frozen by move {k} ({session.moves[k - 1]})"
                    )
        return lines

    def player_json(self, session: Session, player: int) -> dict[str, Any]:
        state = session.state
        return {
            "score": state.scores()[player],
            "pile": sorted(TOWER_NAMES[c] for c in state.piles[player]),
        }

    def position_json(self, session: Session) -> dict[str, Any]:
        state = session.state
        towers = [
            {
                "id": TOWER_NAMES[code],
                "colour": COLOURS[CODE_COLOUR[code]],
                "type": TYPE_NAMES[CODE_TYPE[code]],
                "board": BOARD_NAMES[cell // 25],
                "square": SQUARE_NAMES[cell % 25],
            }
            for cell, code in enumerate(state.cells)
            if code
        ]
        boards = [
            {
                "name": BOARD_NAMES[b],
                "frozen": state.frozen[b],
                "up": COLOURS[BOARD_COLOURS[b][0]],
                "down": COLOURS[BOARD_COLOURS[b][1]],
            }
            for b in range(3)
        ]
        placing = state.placing_colour()
        return {
            "phase": ("place", "play", "over")[state.phase],
            "boards": boards,
            "towers": towers,
            "placing": COLOURS[placing] if placing >= 0 else None,
            "unplaced": unplaced(state),
            "zihin": state.num_players == 2,
        }


VIEW = TalatView()
