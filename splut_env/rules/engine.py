"""The Splut! rules engine: :class:`State`, a position with its legal steps and their effect.

:class:`State` offers an unchecked in-place interface (:meth:`State.legal_ids`,
:meth:`State.apply`) over the step ids of :mod:`splut_env.rules.board`, for speed;
:mod:`splut_env.rules.api` wraps it with text notation, immutability and checks.
"""

from __future__ import annotations

from splut_env.rules.board import (
    CELL_KIND,
    DECODED,
    DWARF,
    DWARF_BASE,
    EMPTY,
    MIRROR,
    NEIGHBOUR,
    NUM_SQUARES,
    PULL,
    ROCK,
    SEATS_IN_PLAY,
    START,
    STOPS_THROW,
    TROLL,
    TROLL_BASE,
    WIZARD,
    player_count,
)
from splut_env.rules.diagram import render_ansi
from splut_env.rules.notation import format_spn, parse_spn_into


def _mirror_bits(mask: int) -> int:
    """A bit mask of squares (bit ``sq``) reflected as :data:`~.board.MIRROR` reflects them."""
    out = 0
    while mask:
        low = mask & -mask
        out |= 1 << MIRROR[low.bit_length() - 1]
        mask ^= low
    return out


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

    def mirrored(self) -> State:
        """This position reflected in the north-south axis (:data:`~.board.MIRROR`): in a
        2-player game it plays as this one does, step ``i`` as step ``MIRROR_ID[i]``."""
        st = State.__new__(State)
        st.cells = [self.cells[MIRROR[sq]] for sq in range(NUM_SQUARES)]
        st.pos = [-1 if sq < 0 else MIRROR[sq] for sq in self.pos]
        st.rocks = [MIRROR[sq] for sq in self.rocks]
        st.seats, st.to_move, st.turn = self.seats, self.to_move, self.turn
        st.steps_left = self.steps_left
        st.lev = self.lev if self.lev < 0 else MIRROR[self.lev]
        st.locked = _mirror_bits(self.locked)
        st.moved = _mirror_bits(self.moved)
        st._legal = None
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
        return f"State({format_spn(self)!r})"

    def __str__(self) -> str:
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
        kind, d, extra = DECODED[step_id]
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
        _, d, extra = DECODED[step_id]
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
