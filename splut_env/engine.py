"""The Splut! rules engine: a pure, fast core with no RL imports.

Squares are small integers ``0..40`` (rank by rank from the bottom, file by file from the
left), directions are ``0..3`` for ``n e s w`` (clockwise), seats are ``0..3`` for
``S W N E`` (the order of play), piece kinds are ``0..2`` for wizard, troll, dwarf.

A step is an integer *step id* in ``0..195`` laid out as:

=========  =====================================  =======================================
ids        piece                                  meaning
=========  =====================================  =======================================
0..167     wizard ``dir * 42 + k``                ``k = 0``: no levitation; ``k = 1 + sq``:
                                                  levitate the rock standing on ``sq``
168..191   troll ``168 + dir * 6 + v``            ``v = 0`` plain step, ``1`` pull,
                                                  ``2 + t`` step onto a rock, throw to ``t``
192..195   dwarf ``192 + dir``                    step (pushing a line if occupied)
=========  =====================================  =======================================

The same layout, seen from a seat's rotated frame, is the environment's action space.

:class:`State` offers an unchecked in-place interface (:meth:`State.legal_ids`,
:meth:`State.apply`) for speed; :mod:`splut_env.rules` wraps it with text notation,
immutability and checks.
"""

from __future__ import annotations

import operator

# --- board geometry -------------------------------------------------------------------

NUM_SQUARES = 41
#: The largest turn number a position may carry (SPN, environments' ``max_turns``): far
#: beyond any game (the environments stop at 200 turns by default), small enough to count.
MAX_TURN = 1_000_000
FILES = "abcdefghi"
DIRS = "nesw"
DIR_DELTA = ((0, 1), (1, 0), (0, -1), (-1, 0))  # (file, rank) per direction

#: (file, rank) of every square index, 0-based.
SQUARE_XY: tuple[tuple[int, int], ...] = tuple(
    (f, r) for r in range(9) for f in range(9) if abs(f - 4) + abs(r - 4) <= 4
)
XY_SQUARE: dict[tuple[int, int], int] = {xy: i for i, xy in enumerate(SQUARE_XY)}
SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[f]}{r + 1}" for f, r in SQUARE_XY)
NAME_SQUARE: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}


def _neighbour(sq: int, d: int) -> int:
    f, r = SQUARE_XY[sq]
    df, dr = DIR_DELTA[d]
    return XY_SQUARE.get((f + df, r + dr), -1)


#: ``NEIGHBOUR[d][sq]``: the square next to ``sq`` in direction ``d``, or -1 off the board.
NEIGHBOUR: tuple[tuple[int, ...], ...] = tuple(
    tuple(_neighbour(sq, d) for sq in range(NUM_SQUARES)) for d in range(4)
)


def _rotate_ccw(sq: int) -> int:
    f, r = SQUARE_XY[sq]
    return XY_SQUARE[(4 - (r - 4), 4 + (f - 4))]


def _rotation_tables() -> tuple[tuple[int, ...], ...]:
    tables = [tuple(range(NUM_SQUARES))]
    for _ in range(3):
        tables.append(tuple(_rotate_ccw(tables[-1][sq]) for sq in range(NUM_SQUARES)))
    return tuple(tables)


#: ``ROTATE[k][sq]``: ``sq`` rotated a quarter turn counter-clockwise ``k`` times. Seat
#: ``k``'s home tip lands at the bottom (``e1``): this is the seat's own frame.
ROTATE: tuple[tuple[int, ...], ...] = _rotation_tables()

# --- pieces and seats ------------------------------------------------------------------

SEATS = "SWNE"
WIZARD, TROLL, DWARF = 0, 1, 2
KINDS = "WTD"
SEATS_IN_PLAY: dict[int, tuple[int, ...]] = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}

# Cell codes: 0 empty, 1 rock, 2 + seat * 3 + kind for a piece.
EMPTY, ROCK = 0, 1
CELL_KIND: tuple[int, ...] = (-1, -1, *tuple(k for _ in range(4) for k in range(3)))
#: Cell codes a thrown rock cannot enter first (a rock or a troll): that direction is blocked.
STOPS_THROW = tuple(c == ROCK or CELL_KIND[c] == TROLL for c in range(14))

#: Start squares per seat: (rock, wizard, troll, dwarf), by the set-up table of the rules.
START: tuple[tuple[int, int, int, int], ...] = tuple(
    tuple(NAME_SQUARE[n] for n in names)
    for names in (
        ("e1", "d2", "f2", "e2"),
        ("a5", "b6", "b4", "b5"),
        ("e9", "f8", "d8", "e8"),
        ("i5", "h4", "h6", "h5"),
    )
)

# --- step ids ---------------------------------------------------------------------------

NUM_STEP_IDS = 196
TROLL_BASE, DWARF_BASE = 168, 192
PULL = 1  # a troll step id's variant: 0 plain, 1 pull, 2 + t throw to t


def wizard_id(d: int, rock: int = -1) -> int:
    return d * 42 + 1 + rock


def troll_id(d: int, variant: int) -> int:
    return TROLL_BASE + d * 6 + variant


def dwarf_id(d: int) -> int:
    return DWARF_BASE + d


def decode_id(i: int) -> tuple[int, int, int]:
    """``(kind, dir, extra)``: extra is the rock square (-1 none) for a wizard, the variant
    (0 plain, 1 pull, 2 + throw dir) for a troll, 0 for a dwarf."""
    if i < TROLL_BASE:
        return WIZARD, i // 42, i % 42 - 1
    if i < DWARF_BASE:
        return TROLL, (i - TROLL_BASE) // 6, (i - TROLL_BASE) % 6
    return DWARF, i - DWARF_BASE, 0


_DECODED = tuple(decode_id(i) for i in range(NUM_STEP_IDS))


def _rotate_id(i: int, k: int) -> int:
    kind, d, extra = _DECODED[i]
    d2 = (d - k) % 4
    if kind == WIZARD:
        return wizard_id(d2, -1 if extra < 0 else ROTATE[k][extra])
    if kind == TROLL:
        return troll_id(d2, extra if extra < 2 else 2 + (extra - 2 - k) % 4)
    return dwarf_id(d2)


#: ``ROTATE_ID[k][i]``: step id ``i`` (board frame) expressed in seat ``k``'s frame.
ROTATE_ID: tuple[tuple[int, ...], ...] = tuple(
    tuple(_rotate_id(i, k) for i in range(NUM_STEP_IDS)) for k in range(4)
)
#: ``UNROTATE_ID[k][a]``: the inverse of ``ROTATE_ID[k]``.
UNROTATE_ID: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(range(NUM_STEP_IDS), key=lambda i, k=k: ROTATE_ID[k][i])) for k in range(4)
)


def whole_number(value: object) -> int | None:
    """``value`` as an ``int`` if it is an integer (Python or numpy, not a bool), else
    ``None``: floats, strings and containers are not silently converted."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def player_count(value: object) -> int:
    """``value`` as a player count (2, 3 or 4); raises ``ValueError``."""
    count = whole_number(value)
    if count not in SEATS_IN_PLAY:
        raise ValueError(f"num_players must be 2, 3 or 4, got {value!r:.80}")
    return count


def turn_cap(value: object) -> int:
    """``value`` as a ``max_turns`` setting (a whole number from 1 to :data:`MAX_TURN`);
    raises ``ValueError``."""
    cap = whole_number(value)
    if cap is None or not 1 <= cap <= MAX_TURN:
        raise ValueError(
            f"max_turns must be a whole number from 1 to {MAX_TURN}, got {value!r:.80}"
        )
    return cap


class State:
    """A Splut! position, mutable through :meth:`apply` (use :meth:`copy` first).

    Attributes are the whole position: ``cells`` (41 cell codes), ``pos`` (square of piece
    ``seat * 3 + kind``, -1 if gone), ``rocks`` (4 squares), ``seats`` (seats in play),
    ``to_move`` (seat, -1 when over), ``turn``, ``steps_left``, ``lev`` (-1 levitation
    available, -2 over for this turn, else the square of the rock being levitated),
    ``locked`` and ``moved`` (bit masks of rock squares, bit ``sq``).
    """

    __slots__ = (
        "_legal",
        "cells",
        "lev",
        "locked",
        "moved",
        "pos",
        "rocks",
        "seats",
        "steps_left",
        "to_move",
        "turn",
    )

    def __init__(self, spn: str) -> None:
        """Build a state from SPN text (see :func:`splut_env.rules.from_spn`)."""
        from splut_env.notation import parse_spn_into

        parse_spn_into(self, spn)

    # --- construction ------------------------------------------------------------------

    @classmethod
    def initial(cls, num_players: int) -> State:
        """The start position for 2, 3 or 4 players."""
        num_players = player_count(num_players)
        st = cls.__new__(cls)
        st.cells = [EMPTY] * NUM_SQUARES
        st.pos = [-1] * 12
        st.rocks = [START[s][0] for s in range(4)]
        for r in st.rocks:
            st.cells[r] = ROCK
        st.seats = SEATS_IN_PLAY[num_players]
        for s in st.seats:
            for kind in range(3):
                sq = START[s][1 + kind]
                st.pos[s * 3 + kind] = sq
                st.cells[sq] = 2 + s * 3 + kind
        st.to_move, st.turn, st.steps_left = 0, 1, 1
        st.lev, st.locked, st.moved = -1, 0, 0
        st._legal = None
        return st

    def copy(self) -> State:
        st = State.__new__(State)
        st.cells = self.cells[:]
        st.pos = self.pos[:]
        st.rocks = self.rocks[:]
        st.seats = self.seats
        st.to_move = self.to_move
        st.turn = self.turn
        st.steps_left = self.steps_left
        st.lev = self.lev
        st.locked = self.locked
        st.moved = self.moved
        st._legal = self._legal
        return st

    # --- queries -------------------------------------------------------------------------

    def alive(self, seat: int) -> bool:
        return self.pos[seat * 3] >= 0

    def alive_seats(self) -> list[int]:
        return [s for s in self.seats if self.pos[s * 3] >= 0]

    def is_over(self) -> bool:
        return self.to_move < 0

    def winner(self) -> int:
        """The winning seat, or -1 (game not over, or over with no winner)."""
        if self.to_move >= 0:
            return -1
        alive = self.alive_seats()
        return alive[0] if len(alive) == 1 else -1

    def key(self) -> tuple:
        """A hashable summary of everything that defines the position."""
        return (
            tuple(self.cells),
            self.seats,
            self.to_move,
            self.turn,
            self.steps_left,
            self.lev,
            self.locked,
            self.moved,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        from splut_env.notation import format_spn

        return f"State({format_spn(self)!r})"

    def __str__(self) -> str:
        from splut_env.render import render_ansi

        return render_ansi(self, color=False)

    # --- legal steps ---------------------------------------------------------------------

    def legal_ids(self) -> list[int]:
        """Every legal step id of the player to move, ascending. Do not mutate the list."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate() if self.to_move >= 0 else []
        return legal

    def _can_step(self) -> bool:
        """Whether the player to move has a legal step; fills the legal-step cache unless a
        piece next to an empty square settles it at once."""
        cells = self.cells
        pos = self.pos
        base = self.to_move * 3
        for p in (pos[base], pos[base + 1], pos[base + 2]):
            if p >= 0:
                for nb in NEIGHBOUR:
                    t = nb[p]
                    if t >= 0 and cells[t] == EMPTY:
                        self._legal = None
                        return True
        self._legal = self._generate()
        return bool(self._legal)

    def _generate(self) -> list[int]:
        cells = self.cells
        base = self.to_move * 3
        pos = self.pos
        out: list[int] = []
        # Wizard (always alive for the seat to move).
        w = pos[base]
        lev = self.lev
        if lev == -1:
            locked = self.locked
            candidates = [r for r in self.rocks if not (locked >> r) & 1]
        elif lev >= 0:
            candidates = [lev]
        else:
            candidates = []
        for d in range(4):
            nb = NEIGHBOUR[d]
            t = nb[w]
            if t < 0:
                continue
            t_empty = cells[t] == EMPTY
            if t_empty:
                out.append(d * 42)
            for r in candidates:
                rt = nb[r]
                if rt >= 0 and (t_empty or t == r) and (cells[rt] == EMPTY or rt == w):
                    out.append(d * 42 + 1 + r)
        # Troll.
        x = pos[base + 1]
        if x >= 0:
            for d in range(4):
                t = NEIGHBOUR[d][x]
                if t < 0:
                    continue
                c = cells[t]
                tid = TROLL_BASE + d * 6
                if c == EMPTY:
                    out.append(tid)
                    b = NEIGHBOUR[d ^ 2][x]
                    if b >= 0 and cells[b] == ROCK:
                        out.append(tid + PULL)
                elif c == ROCK:
                    for td in range(4):
                        f = NEIGHBOUR[td][t]
                        if f >= 0 and (f == x or not STOPS_THROW[cells[f]]):
                            out.append(tid + 2 + td)
        # Dwarf.
        x = pos[base + 2]
        if x >= 0:
            for d in range(4):
                nb = NEIGHBOUR[d]
                t = nb[x]
                while t >= 0 and cells[t] != EMPTY:
                    t = nb[t]
                if t >= 0:
                    out.append(DWARF_BASE + d)
        out.sort()
        return out

    # --- applying a step -----------------------------------------------------------------

    def _move_rock(self, a: int, b: int) -> None:
        """Bookkeeping for a rock going from square ``a`` to ``b`` (cells set by caller)."""
        rocks = self.rocks
        rocks[rocks.index(a)] = b
        bit_a = 1 << a
        if self.locked & bit_a:
            self.locked = (self.locked & ~bit_a) | (1 << b)
        self.moved = (self.moved & ~bit_a) | (1 << b)

    def apply(self, step_id: int) -> None:
        """Play a step id in place. Unchecked: the id must be in :meth:`legal_ids`."""
        cells = self.cells
        pos = self.pos
        seat = self.to_move
        base = seat * 3
        kind, d, extra = _DECODED[step_id]
        nb = NEIGHBOUR[d]
        self._legal = None
        if kind == WIZARD:
            w = pos[base]
            t = nb[w]
            if extra >= 0:
                rt = nb[extra]
                cells[w] = EMPTY
                cells[extra] = EMPTY
                cells[rt] = ROCK
                self._move_rock(extra, rt)
                self.lev = rt
            elif self.lev >= 0:
                cells[w] = EMPTY
                self.lev = -2
            else:
                cells[w] = EMPTY
            cells[t] = 2 + base
            pos[base] = t
        else:
            if self.lev >= 0:
                self.lev = -2
            x = pos[base + kind]
            t = nb[x]
            if kind == TROLL:
                if extra >= 2:
                    self._throw(x, t, extra - 2)
                    return
                cells[x] = EMPTY
                cells[t] = 3 + base
                pos[base + 1] = t
                if extra == PULL:
                    b = NEIGHBOUR[d ^ 2][x]
                    cells[b] = EMPTY
                    cells[x] = ROCK
                    self._move_rock(b, x)
            else:
                end = t
                while cells[end] != EMPTY:
                    end = nb[end]
                back = NEIGHBOUR[d ^ 2]
                while end != t:
                    prev = back[end]
                    c = cells[prev]
                    cells[end] = c
                    if c == ROCK:
                        self._move_rock(prev, end)
                    else:
                        pos[c - 2] = end
                    end = prev
                cells[x] = EMPTY
                cells[t] = 4 + base
                pos[base + 2] = t
        self.steps_left -= 1
        if self.steps_left > 0 and self._can_step():
            return
        self._next_turn()

    def landing(self, step_id: int) -> int:
        """Where the rock of a throw step would land (the step is not played)."""
        _, d, extra = _DECODED[step_id]
        x = self.pos[self.to_move * 3 + 1]
        return self._flight(NEIGHBOUR[d][x], extra - 2, x)

    def _flight(self, t: int, td: int, vacated: int) -> int:
        """Landing square of a rock thrown from ``t`` towards ``td``; ``vacated`` counts as
        empty (the square the throwing troll left)."""
        cells = self.cells
        nb = NEIGHBOUR[td]
        land = t
        s = nb[t]
        while s >= 0:
            c = cells[s]
            if c == EMPTY or s == vacated or CELL_KIND[c] == DWARF:
                land = s
                s = nb[s]
            elif c == ROCK or CELL_KIND[c] == TROLL:
                break
            else:  # a wizard: SPLUT!
                return s
        return land

    def _throw(self, x: int, t: int, td: int) -> None:
        cells = self.cells
        pos = self.pos
        base = self.to_move * 3
        cells[x] = EMPTY
        cells[t] = 3 + base
        pos[base + 1] = t
        land = self._flight(t, td, x)
        c = cells[land]
        if c >= 2:
            victim = c - 2
            if CELL_KIND[c] == WIZARD:
                for p in range(victim, victim + 3):
                    if pos[p] >= 0:
                        cells[pos[p]] = EMPTY
                        pos[p] = -1
            else:
                pos[victim] = -1
        cells[land] = ROCK
        self._move_rock(t, land)
        if len(self.alive_seats()) == 1:
            self._finish()
        else:
            self._next_turn()

    def _finish(self) -> None:
        self.to_move = -1
        self.steps_left = 0
        self.lev = -1
        self.locked = self.moved
        self.moved = 0
        self._legal = []

    def _next_turn(self) -> None:
        """End the current turn; skip seats that are out or have no legal step."""
        seats = self.seats
        n = len(seats)
        idx = seats.index(self.to_move)
        forfeits = 0
        while True:
            self.locked = self.moved
            self.moved = 0
            self.lev = -1
            idx = (idx + 1) % n
            while self.pos[seats[idx] * 3] < 0:
                idx = (idx + 1) % n
            self.to_move = seats[idx]
            self.turn += 1
            self.steps_left = 3 if self.turn >= 3 else self.turn
            if self._can_step():
                return
            forfeits += 1
            if forfeits >= len(self.alive_seats()):
                self._finish()
                return
