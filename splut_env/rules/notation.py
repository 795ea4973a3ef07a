"""Text notations of the rules page (§7): step notation and SPN positions.

Every parse has a paired format: :func:`parse_step`/:func:`step_text` and
:func:`parse_spn_into`/:func:`format_spn`. Errors quote the input and say what was expected.
"""

from __future__ import annotations

import re

from splut_env.rules.board import (
    DIRS,
    DWARF_BASE,
    EMPTY,
    KINDS,
    MAX_TURN,
    NAME_SQUARE,
    NUM_SQUARES,
    ROCK,
    SEATS,
    SEATS_IN_PLAY,
    SQUARE_NAMES,
    TROLL,
    WIZARD,
    Position,
    decode_id,
)


class InvalidNotationError(ValueError):
    """Text that is not valid step notation or SPN."""


class IllegalStepError(ValueError):
    """A well-formed step that the rules do not allow in the given position."""


def quote(text: object, limit: int = 120) -> str:
    """``repr(text)``, cut to about ``limit`` characters for error messages."""
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(shown):,} characters)"


# --- steps --------------------------------------------------------------------------------

_STEP_RE = re.compile(r"([WTD])([nesw])(?:(p)|x([nesw])|@([a-i][1-9]))?")
STEP_FORMAT = "<piece W|T|D><dir n|e|s|w>[p | x<dir> | @<square>], e.g. Dn, Twp, Tnxe, We@c5"


def step_text(step_id: int) -> str:
    """The step notation of a step id (board frame)."""
    return _STEP_TEXT[step_id]


def _step_text(step_id: int) -> str:
    kind, d, extra = decode_id(step_id)
    text = KINDS[kind] + DIRS[d]
    if kind == WIZARD and extra >= 0:
        text += "@" + SQUARE_NAMES[extra]
    elif kind == TROLL and extra == 1:
        text += "p"
    elif kind == TROLL and extra >= 2:
        text += "x" + DIRS[extra - 2]
    return text


_STEP_TEXT = tuple(_step_text(i) for i in range(DWARF_BASE + 4))
_TEXT_STEP = {t: i for i, t in enumerate(_STEP_TEXT)}


def parse_step(text: str) -> int:
    """The step id of a step in notation; raises :class:`InvalidNotationError`."""
    if not isinstance(text, str):
        raise InvalidNotationError(f"step must be a string like 'Dn', got {quote(text)}")
    step = _TEXT_STEP.get(text.strip())
    if step is not None:
        return step
    m = _STEP_RE.fullmatch(text.strip())
    if m is None:
        raise InvalidNotationError(f"invalid step {quote(text)}: expected {STEP_FORMAT}")
    piece, _, pull, _, square = m.groups()
    if square is not None:
        if piece != "W":
            raise InvalidNotationError(f"invalid step {text!r}: only a wizard (W) levitates")
        raise InvalidNotationError(f"invalid step {text!r}: {square} is not on the board")
    what = "pull (p)" if pull else "throw (x)"
    raise InvalidNotationError(f"invalid step {text!r}: only a troll (T) can {what}")


# --- SPN ----------------------------------------------------------------------------------


def _squares(squares) -> str:
    names = sorted(SQUARE_NAMES[sq] for sq in squares)
    return ",".join(names) if names else "-"


def _mask_squares(mask: int) -> list[int]:
    return [sq for sq in range(NUM_SQUARES) if (mask >> sq) & 1]


def format_spn(state: Position) -> str:
    """Canonical SPN of a state."""
    fields = []
    for s in state.seats:
        sqs = state.pos[s * 3 : s * 3 + 3]
        fields.append(SEATS[s] + ":" + ",".join(SQUARE_NAMES[q] if q >= 0 else "-" for q in sqs))
    fields.append("R:" + _squares(state.rocks))
    fields.append(SEATS[state.to_move] if state.to_move >= 0 else "-")
    fields.append(str(state.turn))
    fields.append(str(state.steps_left))
    lev = state.lev
    fields.append("-" if lev == -1 else "x" if lev == -2 else SQUARE_NAMES[lev])
    fields.append(_squares(_mask_squares(state.locked)))
    fields.append(_squares(_mask_squares(state.moved)))
    return " ".join(fields)


SPN_FORMAT = (
    "'<seat>:<wizard>,<troll>,<dwarf> ... R:<rocks> <to-move> <turn> <steps-left> <lev> "
    "<locked> <moved>', e.g. 'S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -'"
)


def parse_spn_into(state: Position, text: str) -> None:
    """Fill ``state`` from SPN text; raises :class:`InvalidNotationError` naming the problem."""
    if not isinstance(text, str):
        raise InvalidNotationError(f"SPN must be a string, got {quote(text)}")

    def fail(why: str) -> InvalidNotationError:
        return InvalidNotationError(f"invalid SPN {quote(text)}: {why}")

    def square(name: str, what: str) -> int:
        sq = NAME_SQUARE.get(name)
        if sq is None:
            raise fail(f"{what} {quote(name)} is not a square of the board (a5..i5, e1..e9)")
        return sq

    def square_list(field: str, what: str) -> list[int]:
        if field == "-":
            return []
        sqs = [square(name, what) for name in field.split(",")]
        if len(set(sqs)) != len(sqs):
            raise fail(f"{what} list {quote(field)} names a square twice")
        return sqs

    parts = text.split()
    seat_fields = [p for p in parts if len(p) > 1 and p[1] == ":" and p[0] in SEATS]
    if len(parts) != len(seat_fields) + 7:
        raise fail(f"expected {SPN_FORMAT}")
    nseat = len(seat_fields)
    if parts[:nseat] != seat_fields:
        raise fail("seat fields must come first, before 'R:'")
    seats = tuple(SEATS.index(p[0]) for p in seat_fields)
    if seats not in SEATS_IN_PLAY.values():
        got = "+".join(p[0] for p in seat_fields) or "none"
        raise fail(f"seats {got}: expected S+N, S+W+N or S+W+N+E, in that order")

    cells = [EMPTY] * NUM_SQUARES
    pos = [-1] * 12
    occupied: dict[int, str] = {}

    def place(sq: int, code: int, label: str) -> None:
        if sq in occupied:
            raise fail(f"{label} and {occupied[sq]} are both on {SQUARE_NAMES[sq]}")
        occupied[sq] = label
        cells[sq] = code

    for s, field in zip(seats, seat_fields, strict=False):
        names = field[2:].split(",")
        if len(names) != 3:
            raise fail(f"seat field {quote(field)}: expected <wizard>,<troll>,<dwarf>")
        for kind, name in enumerate(names):
            if name == "-":
                continue
            label = f"{SEATS[s]}'s {('wizard', 'troll', 'dwarf')[kind]}"
            sq = square(name, label)
            place(sq, 2 + s * 3 + kind, label)
            pos[s * 3 + kind] = sq
        if pos[s * 3] < 0 and (pos[s * 3 + 1] >= 0 or pos[s * 3 + 2] >= 0):
            raise fail(
                f"seat field {quote(field)}: a troll or dwarf cannot stay without its wizard"
            )
        if pos[s * 3] >= 0 and pos[s * 3 + 1] < 0:
            raise fail(
                f"seat field {quote(field)}: a troll is never removed while its wizard lives"
            )

    rock_field, to_move, turn, steps, lev, locked, moved = parts[nseat:]
    if not rock_field.startswith("R:"):
        raise fail(
            f"expected the rocks field 'R:<squares>' after the seats, got {quote(rock_field)}"
        )
    rocks = square_list(rock_field[2:], "rock")
    if len(rocks) != 4:
        raise fail(f"expected exactly 4 rocks, got {len(rocks)} in {quote(rock_field)}")
    for sq in rocks:
        place(sq, ROCK, "a rock")

    alive = [s for s in seats if pos[s * 3] >= 0]
    if to_move == "-":
        to_move_seat = -1
    elif len(to_move) == 1 and to_move in SEATS:
        to_move_seat = SEATS.index(to_move)
        if to_move_seat not in seats:
            raise fail(f"seat to move {to_move!r} is not in the game")
        if to_move_seat not in alive:
            raise fail(f"seat to move {to_move!r} is out (its wizard is gone)")
        if len(alive) < 2:
            raise fail(
                f"only one wizard is left, so the game is over: to-move must be '-', got {to_move!r}"
            )
    else:
        raise fail(f"to-move must be one of {SEATS} or '-', got {quote(to_move)}")

    if not (turn.isascii() and turn.isdigit() and len(turn) <= 7 and 1 <= int(turn) <= MAX_TURN):
        raise fail(
            f"turn must be a whole number from 1 to {MAX_TURN} (ASCII digits), got {quote(turn)}"
        )
    turn_no = int(turn)
    if steps not in ("0", "1", "2", "3"):
        raise fail(f"steps-left must be 1, 2 or 3 (0 once the game is over), got {quote(steps)}")
    steps_left = int(steps)
    if to_move_seat < 0:
        if steps_left != 0:
            raise fail(
                f"the game is over ('-' to move), so steps-left must be 0, got {quote(steps)}"
            )
    else:
        if steps_left == 0:
            raise fail("steps-left 0 is only for a finished game ('-' to move)")
        if steps_left > min(turn_no, 3):
            raise fail(
                f"turn {turn_no} has {min(turn_no, 3)} step(s), so steps-left {steps} is too many"
            )

    rock_set = set(rocks)
    locked_sqs = square_list(locked, "locked rock")
    moved_sqs = square_list(moved, "moved rock")
    for sq in locked_sqs + moved_sqs:
        if sq not in rock_set:
            raise fail(f"locked/moved square {SQUARE_NAMES[sq]} holds no rock")
    if lev == "-":
        lev_sq = -1
    elif lev == "x":
        lev_sq = -2
    else:
        lev_sq = square(lev, "levitated rock")
        if lev_sq not in rock_set or lev_sq in locked_sqs or lev_sq not in moved_sqs:
            raise fail(f"lev square {lev} must hold an unlocked rock moved this turn")
    if to_move_seat < 0 and (lev_sq != -1 or moved_sqs):
        raise fail("a finished game has '-' for <lev> and <moved>")

    state.cells = cells
    state.pos = pos
    state.rocks = rocks
    state.seats = seats
    state.to_move = to_move_seat
    state.turn = turn_no
    state.steps_left = steps_left
    state.lev = lev_sq
    state.locked = sum(1 << sq for sq in locked_sqs)
    state.moved = sum(1 << sq for sq in moved_sqs)
    state._legal = None
    if to_move_seat >= 0 and not state.legal_ids():
        raise fail(f"seat {to_move} has no legal step; the rules never stop in such a position")
