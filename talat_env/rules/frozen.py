"""The exact frozen-board decision of §6: can any sequence of steps on a board bring two
towers into contact where one beats the other?

A board is read from its 25 cells (:mod:`~talat_env.rules.board` layout); towers of the
board's rank-1 colour move *up*, the others *down*. Square sets are 25-bit masks, bit ``sq``.
The decision goes from cheap to exact, and every stage is exact in what it concludes:

1. **Pairs.** Only a *pair*, an up tower and a down tower of which one beats the other, can
   make a capture. Ignoring all other towers, such a pair can still meet only if the down
   tower stands ``g >= 0`` ranks above with files ``d`` apart, ``g = 0, d = 1`` or
   ``g >= 1, d <= g + 1`` (§6.4). No such pair: frozen.
2. **Direct meeting** (sufficient). With every other tower standing still, flood each tower
   of a pair forward over the empty squares; if a square the up tower reaches touches one the
   down tower reaches, the two walk there (each step closes the gap by one rank, so they
   touch before they could cross or collide): not frozen.
3. **Walls** (necessary). A tower on its goal line, or whose forward squares all hold such
   walls, never moves again. Flooding the pairs with only the walls as obstacles bounds
   every square a tower can ever reach; if no pair can touch within these bounds: frozen.
4. **Search.** Towers whose bounded floods can neither share a square nor touch never affect
   each other, so the board splits into groups searched apart. A group is searched depth
   first over the positions its steps reach, memoised, with stage 1 as pruning and stage 2
   as the stop at every node. No node limit: the answer is exact.

:func:`is_frozen` caches its answers by board content; :func:`decide` reports the number of
search nodes as well, for tests and measurement.
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


class _Board:
    """The towers of one board: squares and types of the up and down towers."""

    __slots__ = ("dn", "dt", "up", "ut")

    def __init__(self, board: int, cells: Sequence[int]) -> None:
        base = board * 25
        x = BOARD_COLOURS[board][0]
        self.up: list[int] = []
        self.ut: list[int] = []
        self.dn: list[int] = []
        self.dt: list[int] = []
        for sq in range(25):
            c = cells[base + sq]
            if c:
                if CODE_COLOUR[c] == x:
                    self.up.append(sq)
                    self.ut.append(CODE_TYPE[c])
                else:
                    self.dn.append(sq)
                    self.dt.append(CODE_TYPE[c])


def _direct_meeting(pairs, up, dn, free) -> bool:
    """Stage 2: some pair meets while every other tower stands still."""
    fu: dict[int, int] = {}
    fd: dict[int, int] = {}
    for i, j in pairs:
        tu = fu.get(i)
        if tu is None:
            tu = fu[i] = touching(flood_up(up[i], free))
        rd = fd.get(j)
        if rd is None:
            rd = fd[j] = flood_down(dn[j], free)
        if tu & rd:
            return True
    return False


def _walls(up: list[int], dn: list[int]) -> tuple[list[bool], list[bool], int]:
    """Stage 3: which towers can never move again, and their squares as a mask."""
    stuck_u = [sq >= 20 for sq in up]
    stuck_d = [sq < 5 for sq in dn]
    wall = 0
    for i, s in enumerate(stuck_u):
        if s:
            wall |= 1 << up[i]
    for j, s in enumerate(stuck_d):
        if s:
            wall |= 1 << dn[j]
    changed = True
    while changed:
        changed = False
        for i, sq in enumerate(up):
            if not stuck_u[i] and FORWARD_UP[sq] & ~wall == 0:
                stuck_u[i] = changed = True
                wall |= 1 << sq
        for j, sq in enumerate(dn):
            if not stuck_d[j] and FORWARD_DOWN[sq] & ~wall == 0:
                stuck_d[j] = changed = True
                wall |= 1 << sq
    return stuck_u, stuck_d, wall


def decide(board: int, cells: Sequence[int]) -> tuple[bool, int]:
    """``(frozen, nodes)``: the exact decision of §6.1 for ``board`` in the 75 ``cells`` of a
    position, and the number of search nodes it took (0 when a stage before the search
    decided)."""
    b = _Board(board, cells)
    up, ut, dn, dt = b.up, b.ut, b.dn, b.dt
    pairs = [
        (i, j)
        for i in range(len(up))
        for j in range(len(dn))
        if RELATED[ut[i]][dt[j]] and CAN_MEET[up[i] * 25 + dn[j]]
    ]
    if not pairs:
        return True, 0
    occ = 0
    for sq in up:
        occ |= 1 << sq
    for sq in dn:
        occ |= 1 << sq
    if _direct_meeting(pairs, up, dn, FULL ^ occ):
        return False, 0
    stuck_u, stuck_d, wall = _walls(up, dn)
    room = FULL ^ wall
    reach_u = [1 << sq if stuck_u[i] else flood_up(sq, room) for i, sq in enumerate(up)]
    reach_d = [1 << sq if stuck_d[j] else flood_down(sq, room) for j, sq in enumerate(dn)]
    pairs = [(i, j) for i, j in pairs if touching(reach_u[i]) & reach_d[j]]
    if not pairs:
        return True, 0
    # Groups: union-find over towers 0..nu-1 (up) and nu.. (down).
    nu = len(up)
    reach = reach_u + reach_d
    parent = list(range(len(reach)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a in range(len(reach)):
        for c in range(a + 1, len(reach)):
            if reach[a] & reach[c] and find(a) != find(c):
                parent[find(a)] = find(c)
    for i, j in pairs:
        if find(i) != find(nu + j):
            parent[find(i)] = find(nu + j)
    nodes = 0
    done: set[int] = set()
    for i, _ in pairs:
        root = find(i)
        if root in done:
            continue
        done.add(root)
        members = [a for a in range(len(reach)) if find(a) == root]
        group_pairs = [(i2, j2) for i2, j2 in pairs if find(i2) == root]
        found, n = _search(members, nu, up, dn, stuck_u + stuck_d, group_pairs, occ)
        nodes += n
        if found:
            return False, nodes
    return True, nodes


def _search(members, nu, up, dn, stuck, pairs, occ) -> tuple[bool, int]:
    """Stage 4 for one group: depth-first over the positions its steps reach."""
    # Tower k of the group: (index into pos, moves up?). pos holds every tower's square.
    pos = up + dn
    movers = [a for a in members if not stuck[a]]
    shift = {a: 5 * n for n, a in enumerate(movers)}
    steps = [STEPS_UP if a < nu else STEPS_DOWN for a in range(len(pos))]
    pair_pos = [(i, nu + j) for i, j in pairs]
    seen: set[int] = set()
    nodes = 0

    def visit(occ: int, key: int) -> bool:
        nonlocal nodes
        nodes += 1
        live = []
        for a, c in pair_pos:
            pa, pc = pos[a], pos[c]
            if CAN_MEET[pa * 25 + pc]:
                if CONTACT[pa * 25 + pc]:
                    return True
                live.append((a, c))
        if not live:
            return False
        free = FULL ^ occ
        for a, c in live:
            if touching(flood_up(pos[a], free)) & flood_down(pos[c], free):
                return True
        for a in movers:
            sq = pos[a]
            for t in steps[a][sq]:
                if occ >> t & 1:
                    continue
                k = key + ((t - sq) << shift[a])
                if k in seen:
                    continue
                seen.add(k)
                pos[a] = t
                found = visit(occ ^ (1 << sq) ^ (1 << t), k)
                pos[a] = sq
                if found:
                    return True
        return False

    key = sum(pos[a] << shift[a] for a in movers)
    seen.add(key)
    return visit(occ, key), nodes


_CACHE: tuple[dict[tuple[int, ...], bool], ...] = ({}, {}, {})
_CACHE_LIMIT = 200_000


def is_frozen(board: int, cells: Sequence[int]) -> bool:
    """Whether ``board`` is frozen (§6.1) in the 75 ``cells`` of a position; cached."""
    base = board * 25
    k = tuple(cells[base : base + 25])
    cache = _CACHE[board]
    frozen = cache.get(k)
    if frozen is None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        frozen = cache[k] = decide(board, cells)[0]
    return frozen
