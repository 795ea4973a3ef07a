"""Text notations of the rules page (§9): moves and positions.

Every parse has a paired format: :func:`parse_move`/:func:`move_text` and
:func:`parse_position_into`/:func:`format_position`. Errors quote the input and say what was
expected. Reading a position recomputes the frozen boards (§6) to check its ``*`` marks.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Protocol

from talat_env.rules.board import (
    BOARD_COLOURS,
    BOARD_NAMES,
    CODE_COLOUR,
    COLOUR_BOARDS,
    COLOUR_NAMES,
    COLOURS,
    EMPTY,
    NAME_CODE,
    NAME_SQUARE,
    OVER,
    PASS,
    PHASE_NAMES,
    PLACE,
    PLACEMENTS,
    PLAY,
    SQUARE_NAMES,
    STEP_BASE,
    STEP_TARGET,
    TOWER_NAMES,
    TYPE_NAMES,
    UP_CODE,
    ZIHIN_TOWERS,
    start_squares,
)
from talat_env.rules.frozen import is_frozen


class InvalidNotationError(ValueError):
    """Text that is not a valid move or position in the notation of §9."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in the given position."""


def quote(text: object, limit: int = 120) -> str:
    """``repr(text)``, cut to about ``limit`` characters for error messages."""
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(shown):,} characters)"


class Position(Protocol):
    """What the notation and the diagram read of a position (the attributes of
    :class:`talat_env.rules.engine.State`; see there)."""

    num_players: int
    cells: list[int]
    frozen: list[bool]
    piles: list[list[int]]
    phase: int
    to_move: int


# --- moves ----------------------------------------------------------------------------------

MOVE_FORMAT = (
    "<board>:<type>@<square>, <board>:<from>-<to>, <board>:<from>x<to> or pass, "
    "e.g. wb:L6@c1, wb:c1-d2, gw:b4xc4"
)
_MOVE_RE = re.compile(
    r"(?:(wb|bg|gw):(?:([sml][346])@([a-e][1-5])|([a-e][1-5])([-x])([a-e][1-5]))|(pass))",
    re.ASCII | re.IGNORECASE,
)
_LOOSE_RE = re.compile(r"(\w+):(?:(\w+)@(\w+)|(\w+)[-x](\w+))", re.ASCII | re.IGNORECASE)


class ParsedMove(NamedTuple):
    """A move read from text, not yet checked against a position. ``kind`` is ``'place'``
    (``a`` the square, ``b`` the type), ``'step'`` or ``'capture'`` (``a`` the from-square,
    ``b`` the to-square) or ``'pass'``; squares are board squares 0..24."""

    kind: str
    board: int
    a: int
    b: int


def _move_hint(s: str) -> str:
    m = _LOOSE_RE.fullmatch(s)
    if m is None:
        return ""
    board, typ, sq, frm, to = m.groups()
    if board.lower() not in BOARD_NAMES:
        return f"; {board!r} is not a board (wb, bg or gw)"
    if typ is not None and typ.upper() not in TYPE_NAMES:
        return f"; {typ!r} is not a tower type ({' '.join(TYPE_NAMES)})"
    for name in (sq, frm, to):
        if name is not None and name.lower() not in NAME_SQUARE:
            return f"; {name!r} is not a square (a1..e5)"
    return ""


def parse_move(text: object) -> ParsedMove:
    """Read a move in the notation of §9.2 (whitespace around and letter case are ignored);
    raises :class:`InvalidNotationError`."""
    if not isinstance(text, str):
        raise InvalidNotationError(f"a move must be a string like 'wb:c1-d2', got {quote(text)}")
    s = text.strip()
    m = _MOVE_RE.fullmatch(s)
    if m is None:
        raise InvalidNotationError(
            f"invalid move {quote(text)}: expected {MOVE_FORMAT}{_move_hint(s)}"
        )
    board, typ, sq, frm, sep, to, pas = m.groups()
    if pas is not None:
        return ParsedMove("pass", -1, -1, -1)
    b = BOARD_NAMES.index(board.lower())
    if typ is not None:
        return ParsedMove("place", b, NAME_SQUARE[sq.lower()], TYPE_NAMES.index(typ.upper()))
    kind = "step" if sep == "-" else "capture"
    return ParsedMove(kind, b, NAME_SQUARE[frm.lower()], NAME_SQUARE[to.lower()])


def move_text(cells: list[int], move_id: int) -> str:
    """The canonical text of a move id, reading the tower on the from-square in ``cells``
    to tell its direction and the target to tell ``-`` from ``x``. The id must fit the
    position (a tower on the from-square, a target on the board)."""
    if move_id == PASS:
        return "pass"
    if move_id < STEP_BASE:
        board, rest = divmod(move_id, 225)
        sq, typ = divmod(rest, 9)
        return f"{BOARD_NAMES[board]}:{TYPE_NAMES[typ]}@{SQUARE_NAMES[sq]}"
    k = move_id - STEP_BASE
    cell = k // 5
    board = cell // 25
    code = cells[cell]
    target = STEP_TARGET[k][0 if UP_CODE[board][code] else 1]
    sep = "x" if cells[target] else "-"
    return f"{BOARD_NAMES[board]}:{SQUARE_NAMES[cell % 25]}{sep}{SQUARE_NAMES[target % 25]}"


# --- positions ------------------------------------------------------------------------------

POSITION_FORMAT = (
    "'<players> <wb> <bg> <gw> <phase> <to-move> <pile w> <pile b> [<pile g>]', e.g. "
    "'2p wb:...../...../...../...../..... bg:...../...../...../...../..... "
    "gw:...../...../...../...../..... place w w=- b=-'"
)
_CELL_RE = re.compile(r"\.|[wbg][SML][346]")


def _pile_text(colour: int, pile: list[int]) -> str:
    names = sorted(TOWER_NAMES[c] for c in pile)
    return f"{COLOURS[colour]}=" + (",".join(names) if names else "-")


def format_position(state: Position) -> str:
    """The canonical text of a position (§9.3)."""
    cells = state.cells
    fields = [f"{state.num_players}p"]
    for b in range(3):
        ranks = []
        for r in range(4, -1, -1):
            base = b * 25 + r * 5
            ranks.append("".join(TOWER_NAMES[c] or "." for c in cells[base : base + 5]))
        mark = "*" if state.frozen[b] else ""
        fields.append(f"{BOARD_NAMES[b]}{mark}:" + "/".join(ranks))
    fields.append(PHASE_NAMES[state.phase])
    fields.append(COLOURS[state.to_move] if state.to_move >= 0 else "-")
    for seat in range(state.num_players):
        fields.append(_pile_text(seat, state.piles[seat]))
    return " ".join(fields)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def parse_position_into(state: Position, text: object) -> None:
    """Fill ``state`` from position text (§9.3), checking everything the rules page lists;
    raises :class:`InvalidNotationError` quoting the text and naming the problem."""
    if not isinstance(text, str):
        raise InvalidNotationError(f"a position must be a string, got {quote(text)}")

    def fail(why: str) -> InvalidNotationError:
        return InvalidNotationError(f"invalid position {quote(text)}: {why}")

    parts = text.split()
    if not parts or parts[0] not in ("2p", "3p"):
        got = quote(parts[0]) if parts else "nothing"
        raise fail(f"the first field is the player count, '2p' or '3p', got {got}")
    num_players = 2 if parts[0] == "2p" else 3
    if len(parts) != 6 + num_players:
        raise fail(
            f"a {num_players}-player position has {6 + num_players} fields, got {len(parts)}; "
            f"expected {POSITION_FORMAT}"
        )
    cells = [EMPTY] * 75
    marks = [False] * 3
    where: dict[int, str] = {}

    def put(code: int, place: str) -> None:
        if code in where:
            raise fail(f"tower {TOWER_NAMES[code]} appears twice ({where[code]} and {place})")
        where[code] = place

    for b in range(3):
        field = parts[1 + b]
        name, colon, body = field.partition(":")
        mark = name.endswith("*")
        if mark:
            name = name[:-1]
        if not colon or name not in BOARD_NAMES:
            raise fail(f"field {2 + b} must be a board '<name>[*]:<ranks>', got {quote(field, 40)}")
        if name != BOARD_NAMES[b]:
            raise fail(f"boards come in the order wb, bg, gw: field {2 + b} is board {name!r}")
        marks[b] = mark
        ranks = body.split("/")
        if len(ranks) != 5:
            raise fail(f"board {name} has {len(ranks)} ranks, expected 5 separated by '/'")
        for i, rank in enumerate(ranks):
            r = 4 - i
            tokens = _CELL_RE.findall(rank)
            if "".join(tokens) != rank:
                bad = _CELL_RE.sub(" ", rank).split()
                raise fail(
                    f"board {name} rank {r + 1} {quote(rank, 40)}: {quote(bad[0], 20)} is not "
                    "a cell ('.' or a tower like wL6: colour w/b/g, height S/M/L, corners 3/4/6)"
                )
            if len(tokens) != 5:
                raise fail(
                    f"board {name} rank {r + 1} {quote(rank, 40)} has {len(tokens)} cells, "
                    "expected 5"
                )
            for f, tok in enumerate(tokens):
                if tok == ".":
                    continue
                code = NAME_CODE[tok]
                sq = r * 5 + f
                if CODE_COLOUR[code] not in BOARD_COLOURS[b]:
                    raise fail(
                        f"{tok} on board {name} {SQUARE_NAMES[sq]}: "
                        f"{COLOUR_NAMES[CODE_COLOUR[code]]} towers play only on "
                        + " and ".join(BOARD_NAMES[x] for x in COLOUR_BOARDS[CODE_COLOUR[code]])
                    )
                put(code, f"{name} {SQUARE_NAMES[sq]}")
                cells[b * 25 + sq] = code

    phase_field, to_move_field = parts[4], parts[5]
    if phase_field not in PHASE_NAMES:
        raise fail(f"the phase must be place, play or over, got {quote(phase_field, 40)}")
    phase = PHASE_NAMES.index(phase_field)
    seat_letters = COLOURS[:num_players]
    if to_move_field == "-":
        to_move = -1
    elif len(to_move_field) == 1 and to_move_field in COLOURS:
        if to_move_field not in seat_letters:
            raise fail(
                "grey is the Zihin in a 2-player game and never moves: to-move must be w or b"
            )
        to_move = COLOURS.index(to_move_field)
    else:
        raise fail(
            f"to-move must be one of {', '.join(seat_letters)} or '-', got {quote(to_move_field, 40)}"
        )
    if (to_move < 0) != (phase == OVER):
        raise fail("to-move is '-' exactly when the phase is over")

    piles: list[list[int]] = []
    for seat in range(num_players):
        field = parts[6 + seat]
        prefix = COLOURS[seat] + "="
        if not field.startswith(prefix):
            raise fail(
                f"pile {seat + 1} must be {prefix}<towers> ({COLOUR_NAMES[seat]}'s captures, "
                f"'-' or towers separated by commas), got {quote(field, 40)}"
            )
        body = field[2:]
        pile: list[int] = []
        if body != "-":
            for tok in body.split(","):
                code = NAME_CODE.get(tok)
                if code is None:
                    raise fail(
                        f"pile {quote(field, 40)}: {quote(tok, 20)} is not a tower (like bL6)"
                    )
                if CODE_COLOUR[code] == seat:
                    raise fail(f"{COLOUR_NAMES[seat]}'s pile holds its own tower {tok}")
                put(code, f"{COLOURS[seat]}'s pile")
                pile.append(code)
        piles.append(pile)

    on_board = [0, 0, 0]
    for c in cells:
        if c:
            on_board[CODE_COLOUR[c]] += 1
    captured = sum(len(p) for p in piles)
    placed = sum(on_board)
    if phase == PLACE:
        if any(marks):
            raise fail("no board is frozen during set-up ('*' marks only in play)")
        if captured:
            raise fail("nothing is captured during set-up: every pile must be '-'")
        if placed >= PLACEMENTS[num_players]:
            raise fail(f"all {placed} towers are placed already, so the phase is play")
        for b in range(3):
            for sq in range(25):
                c = cells[b * 25 + sq]
                if c and sq not in start_squares(CODE_COLOUR[c], b):
                    raise fail(
                        f"{TOWER_NAMES[c]} on {BOARD_NAMES[b]} {SQUARE_NAMES[sq]} is off its "
                        "start line during set-up"
                    )
        w, bl, g = on_board
        if num_players == 3:
            expected = [_ceil_div(placed - k, 3) for k in range(3)]
            if on_board != expected:
                raise fail(
                    f"after {placed} placements w, b, g have placed {expected[0]}, "
                    f"{expected[1]}, {expected[2]} towers, not {w}, {bl}, {g}"
                )
            placer = placed % 3
        elif g < ZIHIN_TOWERS:
            if w or bl:
                raise fail(f"own towers are placed only after the 8 Zihin (grey) towers; {g} stand")
            placer = g % 2
        elif g > ZIHIN_TOWERS:
            raise fail(f"with 2 players only 8 grey towers are placed, {g} stand")
        else:
            j = w + bl
            if (w, bl) != (_ceil_div(j, 2), j // 2):
                raise fail(
                    f"after {j} own placements w and b have placed {_ceil_div(j, 2)} and "
                    f"{j // 2} towers, not {w} and {bl}"
                )
            placer = j % 2
        if to_move != placer:
            raise fail(
                f"the next placement is {COLOURS[placer]}'s, so {COLOURS[placer]} is to move"
            )
    else:
        present = [0, 0, 0]
        for code in where:
            present[CODE_COLOUR[code]] += 1
        needed = [9, 9, 9 if num_players == 3 else ZIHIN_TOWERS]
        for colour in range(3):
            if present[colour] != needed[colour]:
                missing = [
                    TOWER_NAMES[colour * 9 + t + 1]
                    for t in range(9)
                    if colour * 9 + t + 1 not in where
                ]
                if num_players == 2 and colour == 2:
                    raise fail(
                        f"with 2 players exactly 8 grey towers are on the boards or in piles, "
                        f"found {present[2]}"
                    )
                raise fail(
                    f"every tower is on a board or in a pile in {PHASE_NAMES[phase]}; missing "
                    + ", ".join(missing)
                )
        for b in range(3):
            frozen = is_frozen(b, cells)
            if frozen != marks[b]:
                why = "frozen" if frozen else "not frozen"
                mark = "needs" if frozen else "must not have"
                raise fail(f"board {BOARD_NAMES[b]} is {why} (§6), so it {mark} a '*'")
        count = sum(marks)
        if phase == OVER and count < 2:
            raise fail(f"the game is over only with two frozen boards, {count} are")
        if phase == PLAY and count >= 2:
            raise fail(f"{count} boards are frozen, so the game is over: the phase is over")
    state.num_players = num_players
    state.cells = cells
    state.frozen = marks
    state.piles = piles
    state.phase = phase
    state.to_move = to_move


__all__ = [
    "IllegalMoveError",
    "InvalidNotationError",
    "ParsedMove",
    "Position",
    "format_position",
    "move_text",
    "parse_move",
    "parse_position_into",
    "quote",
]
