"""The exact frozen-board decision of §6: can any sequence of steps on a board bring two
towers into contact where one beats the other?

A board is read from its 25 cells (:mod:`~talat_env.rules.board` layout); towers of the
board's rank-1 colour move *up*, the others *down*. Square sets are 25-bit masks, bit
``sq``. The decision goes from cheap to exact, and every stage is exact in what it concludes:

1. **Pairs.** Only a *pair*, an up tower and a down tower of which one beats the other, can
   make a capture. Ignoring all other towers, such a pair can still meet only if the down
   tower stands ``g >= 0`` ranks above with files ``d`` apart, ``g = 0, d = 1`` or
   ``g >= 1, d <= g + 1`` (§6.4, :data:`CAN_MEET`). No such pair: frozen.
2. **Direct meeting** (sufficient). With every other tower standing still, flood both towers
   of a pair forward over the empty squares; if a square one reaches touches a square the
   other reaches, they walk there (each step closes the gap by one rank, so they touch
   before they could cross or collide): not frozen.
3. **Stuck towers** (necessary). A set of towers whose forward squares all hold towers of
   the set (or lie off the board) can never move: none of them can make the first move. The
   largest such set is found by :func:`stuck_set`. Flooding the pairs with only these as
   obstacles bounds every square a tower can ever reach; no pair touching within these
   bounds: frozen.
4. **Search**, one pair at a time, depth first over the positions steps reach, memoised. In a
   search for a pair, its two towers stay on *useful* squares (from which they can still
   meet), so towers that block only their other moves count as stuck; the pair's direct
   meeting is the stop and stage 3 for the pair the pruning at every node. Only towers that
   stand where the pair may have to pass, or where such a tower may have to go, move at all
   (others never need to: moving only fills squares). Searches run with a growing budget of
   moves by towers other than the pair (0, 1, 2, 4, ... then unlimited), all pairs at each
   budget, so an easy meeting is found before a hard one is searched to the end. No node
   limit: the answer is exact.

:func:`is_frozen` caches its answers by board content; :func:`decide` also reports the
number of search nodes, for tests and measurement.
"""

from __future__ import annotations

from collections.abc import Sequence

from talat_env.rules.board import BEATS, BOARD_COLOURS, CODE_COLOUR, CODE_TYPE

FULL = (1 << 25) - 1
_FILE_A = sum(1 << (r * 5) for r in range(5))
NOT_A = FULL ^ _FILE_A
NOT_E = FULL ^ (_FILE_A << 4)

#: ``RELATED[a][b]``: type ``a`` beats ``b`` or ``b`` beats ``a``.
RELATED: tuple[tuple[bool, ...], ...] = tuple(
    tuple(BEATS[a][b] or BEATS[b][a] for b in range(9)) for a in range(9)
)


def _meet_possible(u: int, v: int) -> bool:
    g = v // 5 - u // 5
    d = abs(v % 5 - u % 5)
    return (g == 0 and d == 1) or (g >= 1 and d <= g + 1)


def _in_contact(u: int, v: int) -> bool:
    g = v // 5 - u // 5
    d = abs(v % 5 - u % 5)
    return (g == 0 and d == 1) or (g == 1 and d <= 1)


#: ``CAN_MEET[u * 25 + v]``: an up tower on ``u`` and a down tower on ``v`` can still come
#: into contact when nothing else stands on the board (§6.4).
CAN_MEET: tuple[bool, ...] = tuple(_meet_possible(u, v) for u in range(25) for v in range(25))
#: ``CONTACT[u * 25 + v]``: an up tower on ``u`` and a down tower on ``v`` are in contact.
CONTACT: tuple[bool, ...] = tuple(_in_contact(u, v) for u in range(25) for v in range(25))
#: ``MEET_UP[u]``: the squares ``v`` with ``CAN_MEET[u * 25 + v]``; ``MEET_DOWN[v]``: the
#: squares ``u`` with it.
MEET_UP: tuple[int, ...] = tuple(
    sum(1 << v for v in range(25) if CAN_MEET[u * 25 + v]) for u in range(25)
)
MEET_DOWN: tuple[int, ...] = tuple(
    sum(1 << u for u in range(25) if CAN_MEET[u * 25 + v]) for v in range(25)
)
#: ``FORWARD_UP[sq]`` / ``FORWARD_DOWN[sq]``: the squares one step ahead, as a mask.
FORWARD_UP: tuple[int, ...] = tuple(
    sum(1 << (sq + 5 + df) for df in (-1, 0, 1) if sq < 20 and 0 <= sq % 5 + df < 5)
    for sq in range(25)
)
FORWARD_DOWN: tuple[int, ...] = tuple(
    sum(1 << (sq - 5 + df) for df in (-1, 0, 1) if sq >= 5 and 0 <= sq % 5 + df < 5)
    for sq in range(25)
)
#: ``STEPS_UP[sq]`` / ``STEPS_DOWN[sq]``: the squares one step ahead, as a tuple.
STEPS_UP: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t in range(25) if FORWARD_UP[sq] >> t & 1) for sq in range(25)
)
STEPS_DOWN: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t in range(25) if FORWARD_DOWN[sq] >> t & 1) for sq in range(25)
)
#: Budgets of moves by towers other than the pair, tried in turn (the last is unlimited).
BUDGETS = (0, 1, 2, 4, 8, 16, 1 << 30)
_UNLIMITED = BUDGETS[-1]


def flood_up(sq: int, free: int) -> int:
    """Squares an up tower on ``sq`` can reach over the ``free`` squares (``sq`` included)."""
    cur = reach = 1 << sq
    while cur:
        cur = ((cur | ((cur << 1) & NOT_A) | ((cur >> 1) & NOT_E)) << 5) & free
        reach |= cur
    return reach


def flood_down(sq: int, free: int) -> int:
    """Squares a down tower on ``sq`` can reach over the ``free`` squares (``sq`` included)."""
    cur = reach = 1 << sq
    while cur:
        cur = ((cur | ((cur << 1) & NOT_A) | ((cur >> 1) & NOT_E)) >> 5) & free
        reach |= cur
    return reach


def touching(up: int) -> int:
    """The squares where a down tower touches an up tower standing on one of ``up``."""
    side = ((up << 1) & NOT_A) | ((up >> 1) & NOT_E)
    return side | (((up | side) << 5) & FULL)


def stuck_set(pos: list[int], forward: list[int], occ: int) -> tuple[int, int]:
    """The largest set of towers that can never move: each has its ``forward`` squares
    (tower ``a`` on ``pos[a]``) all held by towers of the set. Returns ``(towers, squares)``
    as masks (bit ``a``, bit ``sq``); ``occ`` holds every tower's square."""
    towers = squares = 0
    for a, f in enumerate(forward):
        if f & ~occ == 0:
            towers |= 1 << a
            squares |= 1 << pos[a]
    changed = True
    while changed:
        changed = False
        others = occ & ~squares
        t = towers
        while t:
            low = t & -t
            t ^= low
            a = low.bit_length() - 1
            if forward[a] & others:
                towers ^= low
                squares ^= 1 << pos[a]
                changed = True
    return towers, squares


def _useful(reach: int, meet: tuple[int, ...], other: int) -> int:
    """The squares of ``reach`` from which the partner, somewhere in ``other``, can still be
    met."""
    out = 0
    r = reach
    while r:
        low = r & -r
        r ^= low
        if meet[low.bit_length() - 1] & other:
            out |= low
    return out


class _PairSearch:
    """Stage 4 for one pair ``(u, d)``: can they meet? See the module docstring."""

    __slots__ = (
        "allowed",
        "d",
        "flood",
        "forward",
        "n",
        "nodes",
        "others",
        "pos",
        "seen",
        "shift",
        "steps",
        "u",
        "useful_d",
        "useful_u",
    )

    def __init__(self, board: _Towers, u: int, d: int) -> None:
        self.pos = board.pos[:]
        self.u, self.d, self.n = u, d, len(self.pos)
        self.useful_u = _useful(board.reach[u], MEET_UP, board.reach[d])
        self.useful_d = _useful(board.reach[d], MEET_DOWN, board.reach[u])
        self.allowed = [FULL] * self.n
        self.allowed[u], self.allowed[d] = self.useful_u, self.useful_d
        self.others = [a for a in board.movable if a not in (u, d)]
        self.shift = board.shift
        self.steps = board.steps
        self.forward = board.forward
        self.flood = board.flood
        self.seen: dict[int, int] = {}
        self.nodes = 0

    def run(self, occ: int, key: int, budget: int) -> int:
        """1 if the pair can meet; 0 if it cannot (searched to the end); -1 if the budget
        cut the search short."""
        return self._visit(occ, key, budget)

    def _visit(self, occ: int, key: int, budget: int) -> int:
        self.nodes += 1
        pos, u, d = self.pos, self.u, self.d
        pu, pd = pos[u], pos[d]
        k = pu * 25 + pd
        if not CAN_MEET[k]:
            return 0
        if CONTACT[k]:
            return 1
        free = FULL ^ occ
        if touching(flood_up(pu, free)) & flood_down(pd, free):
            return 1
        allowed, forward = self.allowed, self.forward
        stuck, walls = stuck_set(pos, [forward[a][p] & allowed[a] for a, p in enumerate(pos)], occ)
        room = FULL ^ walls
        reach_u = 1 << pu if stuck >> u & 1 else flood_up(pu, room & self.useful_u)
        reach_d = 1 << pd if stuck >> d & 1 else flood_down(pd, room & self.useful_d)
        if not touching(reach_u) & reach_d:
            return 0
        # Towers standing where the pair may pass, or where such a tower may have to go.
        path = need = reach_u | reach_d
        movers = []
        rest = [a for a in self.others if not stuck >> a & 1]
        grew = True
        while grew:
            grew = False
            keep = []
            for a in rest:
                p = pos[a]
                if need >> p & 1:
                    movers.append(a)
                    need |= self.flood[a][p]
                    grew = True
                else:
                    keep.append(a)
            rest = keep
        # The pair's steps towards each other first, then towers leaving the path.
        fu, fd = pu % 5, pd % 5
        moves = []
        for t in self.steps[u][pu]:
            if not occ >> t & 1 and self.useful_u >> t & 1:
                moves.append((abs(t % 5 - fd), u, pu, t))
        for t in self.steps[d][pd]:
            if not occ >> t & 1 and self.useful_d >> t & 1:
                moves.append((abs(t % 5 - fu), d, pd, t))
        complete = True
        for a in movers:
            p = pos[a]
            on_path = path >> p & 1
            for t in self.steps[a][p]:
                if not occ >> t & 1:
                    if not budget:
                        complete = False
                        break
                    moves.append((3 + 2 * (path >> t & 1) - on_path, a, p, t))
        moves.sort()
        seen, shift = self.seen, self.shift
        for _, a, p, t in moves:
            child_budget = budget if a in (u, d) else budget - 1
            child = key + ((t - p) << shift[a])
            done = seen.get(child, -1)
            if done >= child_budget:
                if done < _UNLIMITED:
                    complete = False
                continue
            pos[a] = t
            r = self._visit(occ ^ (1 << p) ^ (1 << t), child, child_budget)
            pos[a] = p
            if r == 1:
                return 1
            if r < 0:
                complete = False
        seen[key] = _UNLIMITED if complete else budget
        return 0 if complete else -1


class _Towers:
    """The towers of one board, up towers first: squares, types, and stage 3's bounds."""

    __slots__ = ("flood", "forward", "movable", "nu", "pos", "reach", "shift", "steps", "types")

    def __init__(self, board: int, cells: Sequence[int]) -> None:
        base = board * 25
        x = BOARD_COLOURS[board][0]
        up, ut, dn, dt = [], [], [], []
        for sq in range(25):
            c = cells[base + sq]
            if c:
                if CODE_COLOUR[c] == x:
                    up.append(sq)
                    ut.append(CODE_TYPE[c])
                else:
                    dn.append(sq)
                    dt.append(CODE_TYPE[c])
        self.nu = len(up)
        self.pos = up + dn
        self.types = ut + dt

    def bound(self, occ: int) -> None:
        """Stage 3: stuck towers, each tower's bounded flood (``reach``), and the tables of
        the search."""
        nu, pos = self.nu, self.pos
        self.forward = [FORWARD_UP if a < nu else FORWARD_DOWN for a in range(len(pos))]
        stuck, walls = stuck_set(pos, [self.forward[a][p] for a, p in enumerate(pos)], occ)
        room = FULL ^ walls
        flood_u = tuple(flood_up(sq, room) for sq in range(25))
        flood_d = tuple(flood_down(sq, room) for sq in range(25))
        self.flood = [flood_u if a < nu else flood_d for a in range(len(pos))]
        self.reach = [1 << p if stuck >> a & 1 else self.flood[a][p] for a, p in enumerate(pos)]
        self.movable = [a for a in range(len(pos)) if not stuck >> a & 1]
        self.shift = {a: 5 * k for k, a in enumerate(self.movable)}
        self.steps = [STEPS_UP if a < nu else STEPS_DOWN for a in range(len(pos))]


def decide(board: int, cells: Sequence[int]) -> tuple[bool, int]:
    """``(frozen, nodes)``: the exact decision of §6.1 for ``board`` in the 75 ``cells`` of a
    position, and the number of search nodes it took (0 when a stage before the search
    decided)."""
    t = _Towers(board, cells)
    pos, types, nu = t.pos, t.types, t.nu
    pairs = [
        (a, c)
        for a in range(nu)
        for c in range(nu, len(pos))
        if RELATED[types[a]][types[c]] and CAN_MEET[pos[a] * 25 + pos[c]]
    ]
    if not pairs:
        return True, 0
    occ = 0
    for p in pos:
        occ |= 1 << p
    free = FULL ^ occ
    for a, c in pairs:
        if touching(flood_up(pos[a], free)) & flood_down(pos[c], free):
            return False, 0
    t.bound(occ)
    pairs = [(a, c) for a, c in pairs if touching(t.reach[a]) & t.reach[c]]
    if not pairs:
        return True, 0
    key = sum(pos[a] << t.shift[a] for a in t.movable)
    searches = [_PairSearch(t, a, c) for a, c in pairs]
    live = searches[:]
    for budget in BUDGETS:
        for s in live[:]:
            r = s.run(occ, key, budget)
            if r == 1:
                return False, sum(x.nodes for x in searches)
            if r == 0:
                live.remove(s)
        if not live:
            break
    assert not live, "the unlimited budget searches every pair to the end"
    return True, sum(x.nodes for x in searches)


_CACHE: tuple[dict[bytes, bool], ...] = ({}, {}, {})
#: Entries per board before the cache starts afresh (a key is the board's 25 cells as bytes).
CACHE_LIMIT = 100_000


def is_frozen(board: int, cells: Sequence[int]) -> bool:
    """Whether ``board`` is frozen (§6.1) in the 75 ``cells`` of a position; cached."""
    base = board * 25
    k = bytes(cells[base : base + 25])
    cache = _CACHE[board]
    frozen = cache.get(k)
    if frozen is None:
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        frozen = cache[k] = decide(board, cells)[0]
    return frozen
