"""The Talat rules engine: :class:`State`, a position with its legal moves and their effect.

:class:`State` offers an unchecked in-place interface (:meth:`State.legal_ids`,
:meth:`State.apply`) over the move ids of :mod:`talat_env.rules.board`, for speed;
:mod:`talat_env.rules.api` wraps it with text notation, immutability and checks.
"""

from __future__ import annotations

from talat_env.rules.board import (
    BOARD_COLOURS,
    CODE_BEATS,
    CODE_COLOUR,
    CODE_TYPE,
    CONTROL,
    GREY,
    MOVES_DOWN,
    MOVES_UP,
    NUM_CELLS,
    OVER,
    PASS,
    PLACE,
    PLACEMENTS,
    PLAY,
    START_CELLS,
    STEP_BASE,
    STEP_TARGET,
    UP_CODE,
    VALUE_ORDER,
    ZIHIN_TOWERS,
    goal_squares,
    player_count,
)
from talat_env.rules.diagram import render
from talat_env.rules.frozen import is_frozen
from talat_env.rules.notation import format_position, parse_position_into

__all__ = ["OVER", "PLACE", "PLAY", "State", "winning_seats"]


def _gen_table(board: int, up: bool) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per square of ``board``: ``(dir, target cell)`` for every direction on the board."""
    moves = MOVES_UP if up else MOVES_DOWN
    return tuple(
        tuple((d, board * 25 + t) for d, t in enumerate(moves[sq]) if t >= 0) for sq in range(25)
    )


#: ``_CONTROLLED[n][seat]``: per controlled board ``(board, lowest code, highest code, the
#: square table of _gen_table)`` for the colour the seat moves there.
_CONTROLLED = {
    n: tuple(
        tuple(
            (b, c * 9 + 1, c * 9 + 9, _gen_table(b, BOARD_COLOURS[b][0] == c))
            for b, c in CONTROL[n][seat]
        )
        for seat in range(n)
    )
    for n in (2, 3)
}
#: ``_GOALS[n][seat]``: per controlled board ``(colour, goal cells)``.
_GOALS = {
    n: tuple(
        tuple((c, tuple(b * 25 + sq for sq in goal_squares(c, b))) for b, c in CONTROL[n][seat])
        for seat in range(n)
    )
    for n in (2, 3)
}
#: ``_PLACE_BASE[cell]``: the placement id of type 0 on ``cell``.
_PLACE_BASE = tuple((cell // 25) * 225 + (cell % 25) * 9 for cell in range(NUM_CELLS))


def winning_seats(scores: list[int], piles: list[list[int]]) -> list[int]:
    """The winners by §7.2: the highest score; tied leaders, and only they, compared down
    :data:`~.board.VALUE_ORDER` by how many towers of each type their piles hold, until
    one holds more than each other leader. Several seats when no type decides."""
    best = max(scores)
    tied = [s for s, v in enumerate(scores) if v == best]
    if len(tied) == 1:
        return tied
    counts = [[0] * 9 for _ in tied]
    for k, s in enumerate(tied):
        for code in piles[s]:
            counts[k][CODE_TYPE[code]] += 1
    for t in VALUE_ORDER:
        held = [c[t] for c in counts]
        most = max(held)
        if held.count(most) == 1:
            return [tied[held.index(most)]]
    return tied


class State:
    """A Talat position, mutable through :meth:`apply` (use :meth:`copy` first).

    Attributes are plain lists and ints: ``num_players`` (2 or 3), ``cells`` (75 tower codes,
    cell ``board * 25 + sq``), ``frozen`` (3 bools, per board), ``piles`` (per seat the codes
    of the towers it captured), ``phase`` (:data:`PLACE`, :data:`PLAY` or :data:`OVER`) and
    ``to_move`` (the seat to move, -1 once over). Treat them as read-only.
    """

    __slots__ = ("_legal", "_placed", "cells", "frozen", "num_players", "phase", "piles", "to_move")

    def __init__(self, text: str) -> None:
        """Build a state from position text (see :func:`talat_env.rules.from_text`)."""
        parse_position_into(self, text)
        self._placed = (
            sum(1 for c in self.cells if c) if self.phase == PLACE else PLACEMENTS[self.num_players]
        )
        self._legal = None

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def initial(cls, num_players: int) -> State:
        """The start of a game for 2 or 3 players: empty boards, seat 0 to place."""
        n = player_count(num_players)
        st = cls.__new__(cls)
        st.num_players = n
        st.cells = [0] * NUM_CELLS
        st.frozen = [False, False, False]
        st.piles = [[] for _ in range(n)]
        st.phase = PLACE
        st.to_move = 0
        st._placed = 0
        st._legal = None
        return st

    def copy(self) -> State:
        st = State.__new__(State)
        st.num_players = self.num_players
        st.cells = self.cells[:]
        st.frozen = self.frozen[:]
        st.piles = [p[:] for p in self.piles]
        st.phase = self.phase
        st.to_move = self.to_move
        st._placed = self._placed
        st._legal = self._legal
        return st

    # --- queries ---------------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.phase == OVER

    def placing_colour(self) -> int:
        """The colour the next placement places (grey during the Zihin set-up), -1 in play."""
        if self.phase != PLACE:
            return -1
        if self.num_players == 2 and self._placed < ZIHIN_TOWERS:
            return GREY
        return self.to_move

    def scores(self) -> list[int]:
        """Per seat: 5 per captured tower plus 3 per controlled tower on its goal line (§7.1,
        §8.4)."""
        cells = self.cells
        out = [5 * len(p) for p in self.piles]
        for seat, goals in enumerate(_GOALS[self.num_players]):
            for colour, goal in goals:
                for cell in goal:
                    c = cells[cell]
                    if c and CODE_COLOUR[c] == colour:
                        out[seat] += 3
        return out

    def winners(self) -> list[int]:
        """The seats sharing the win (§7.2), ascending; empty while the game runs."""
        if self.phase != OVER:
            return []
        return winning_seats(self.scores(), self.piles)

    def key(self) -> tuple:
        """A hashable summary of everything that defines the position."""
        return (
            self.num_players,
            tuple(self.cells),
            self.phase,
            self.to_move,
            tuple(tuple(sorted(p)) for p in self.piles),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return f"State({format_position(self)!r})"

    def __str__(self) -> str:
        return render(self)

    # --- legal moves -----------------------------------------------------------------------

    def legal_ids(self) -> list[int]:
        """Every legal move id of the seat to move, ascending (``[PASS]`` when it has no step
        or capture, ``[]`` once over). Cached until the next :meth:`apply`: do not mutate."""
        legal = self._legal
        if legal is None:
            if self.phase == PLAY:
                legal = self._generate_play() or [PASS]
            elif self.phase == PLACE:
                legal = self._generate_place()
            else:
                legal = []
            self._legal = legal
        return legal

    def _generate_place(self) -> list[int]:
        cells = self.cells
        colour = self.placing_colour()
        start = START_CELLS[colour]
        held = 0
        for cell in start:
            c = cells[cell]
            if c:
                held |= 1 << CODE_TYPE[c]
        types = [t for t in range(9) if not held >> t & 1]
        out: list[int] = []
        for cell in start:
            if not cells[cell]:
                base = _PLACE_BASE[cell]
                out.extend([base + t for t in types])
        return out

    def _generate_play(self) -> list[int]:
        cells = self.cells
        frozen = self.frozen
        out: list[int] = []
        for b, lo, hi, table in _CONTROLLED[self.num_players][self.to_move]:
            if frozen[b]:
                continue
            base = b * 25
            for sq in range(25):
                c = cells[base + sq]
                if lo <= c <= hi:
                    beats = CODE_BEATS[c]
                    idb = STEP_BASE + (base + sq) * 5
                    for d, t in table[sq]:
                        tc = cells[t]
                        if tc:
                            if beats[tc]:
                                out.append(idb + d)
                        elif d < 3:
                            out.append(idb + d)
        return out

    # --- applying a move -------------------------------------------------------------------

    def apply(self, move_id: int) -> None:
        """Play a move id in place. Unchecked: the id must be in :meth:`legal_ids`."""
        self._legal = None
        n = self.num_players
        if self.phase == PLACE:
            board, rest = divmod(move_id, 225)
            sq, typ = divmod(rest, 9)
            self.cells[board * 25 + sq] = self.placing_colour() * 9 + typ + 1
            self._placed += 1
            if self._placed == PLACEMENTS[n]:
                self._end_setup()
            else:
                self.to_move = (self.to_move + 1) % n
            return
        if move_id != PASS:
            cells = self.cells
            k = move_id - STEP_BASE
            frm = k // 5
            b = frm // 25
            c = cells[frm]
            t = STEP_TARGET[k][0 if UP_CODE[b][c] else 1]
            captured = cells[t]
            if captured:
                self.piles[self.to_move].append(captured)
            cells[t] = c
            cells[frm] = 0
            if is_frozen(b, cells):
                frozen = self.frozen
                frozen[b] = True
                if frozen[0] + frozen[1] + frozen[2] >= 2:
                    self._finish()
                    return
        self.to_move = (self.to_move + 1) % n

    def _end_setup(self) -> None:
        """All towers stand: decide the three boards (§6.2); with 3 players white moves
        next, with 2 players black, who placed last (§3, §8.2)."""
        self.phase = PLAY
        frozen = self.frozen
        for b in range(3):
            frozen[b] = is_frozen(b, self.cells)
        if sum(frozen) >= 2:
            self._finish()
        elif self.num_players == 3:
            self.to_move = 0

    def _finish(self) -> None:
        self.phase = OVER
        self.to_move = -1
        self._legal = []
