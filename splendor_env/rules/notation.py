"""Text notations of SPLENDOR_RULES.md §8 and §9: moves, positions and a player's view.

Every parse has a paired format: :func:`parse_move`/:data:`~.moves.MOVE_TEXTS` and
:func:`parse_position_into`/:func:`format_position` (which writes a view when given a seat).
Errors quote the input and say what was expected. :func:`check_position` holds the reading
checks 2-9 of §8.2 once, for positions read from text and for sampled ones.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Protocol

from splendor_env.rules.components import (
    CARD_BONUS,
    CARD_LEVEL,
    CARD_POINTS,
    COLOUR_COUNT,
    COLOURS,
    GOLD,
    GOLD_COUNT,
    HAND_LIMIT,
    NOBLE_POINTS,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_LEVELS,
    NUM_NOBLES,
    ROUND_CAP,
    TOKEN_LIMIT,
    TOKENS,
    WIN_POINTS,
    is_deadlock,
    qualifies,
)
from splendor_env.rules.moves import MOVE_IDS

MAIN, RETURN_PHASE, NOBLE_PHASE, OVER = 0, 1, 2, 3
PHASE_NAMES = ("main", "return", "noble", "over")


class InvalidNotationError(ValueError):
    """Text that is not a valid move or position in the notation of §8."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in the given position."""


def quote(text: object, limit: int = 160) -> str:
    """``repr(text)``, cut to about ``limit`` characters for error messages."""
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(shown):,} characters)"


class Position(Protocol):
    """What the notation reads and writes of a position: the attributes of
    :class:`splendor_env.rules.engine.State` (see there). Decks hold their top card last."""

    num_players: int
    turn: int
    to_move: int
    phase: int
    final: bool
    supply: list[int]
    tokens: list[list[int]]
    bonus: list[list[int]]
    points: list[int]
    bought: list[list[int]]
    hands: list[list[int]]
    blind: list[list[bool]]
    nobles: list[int]
    owned: list[list[int]]
    market: list[list[int]]
    decks: list[list[int]]


# --- moves ----------------------------------------------------------------------------------

MOVE_FORMAT = (
    "lower-case text with single spaces: take <colours>, take2 <c>, reserve <L>.<s>, "
    "reserve deck <L>, buy <L>.<s>, buy r<h>, return <x>, noble <id> or pass "
    "(colours in the order w b g r k, x also y, L 1-3, s 0-3, h 0-2, id 1-10)"
)


def parse_move(text: object) -> int:
    """The move id of a canonical move text (§8.1: exact, no other spacing or case);
    raises :class:`InvalidNotationError`."""
    if isinstance(text, str):
        i = MOVE_IDS.get(text)
        if i is not None:
            return i
        hint = _move_hint(text)
        raise InvalidNotationError(f"invalid move {quote(text)}: expected {MOVE_FORMAT}{hint}")
    raise InvalidNotationError(f"a move must be a string like 'take wbg', got {quote(text)}")


def _move_hint(text: str) -> str:
    canonical = " ".join(text.split()).lower()
    if canonical in MOVE_IDS:
        return f"; did you mean {canonical!r}?"
    if canonical.startswith("take ") and canonical[5:].isalpha():
        letters = canonical[5:]
        ordered = "".join(c for c in COLOURS if c in letters)
        if sorted(ordered) == sorted(letters) and f"take {ordered}" in MOVE_IDS:
            return f"; colours are written in the order w b g r k: {'take ' + ordered!r}"
        return "; take names 1 to 3 different colours of w b g r k (never gold y)"
    return ""


# --- positions: format ----------------------------------------------------------------------


def format_tokens(tokens: list[int]) -> str:
    return "".join(f"{TOKENS[x]}{tokens[x]}" for x in range(6))


def format_ids(ids: list[int]) -> str:
    return ",".join(map(str, ids)) if ids else "-"


def format_position(st: Position, seat: int | None = None) -> str:
    """The canonical text of a position (§8.2), or with ``seat`` the view of that seat
    (§9): decks as ``#<count>``, another player's hand cards as ``?<level>``."""
    n = st.num_players
    parts = [
        f"splendor {n} turn:{st.turn}",
        f"move:{'-' if st.phase == OVER else st.to_move}",
        f"phase:{PHASE_NAMES[st.phase]} final:{'yes' if st.final else 'no'}",
        f"supply:{format_tokens(st.supply)} nobles:{format_ids(sorted(st.nobles))}",
    ]
    for level in range(NUM_LEVELS):
        row = ",".join(str(c) if c else "-" for c in st.market[level])
        deck = st.decks[level]
        shown = format_ids(deck[::-1]) if seat is None else f"#{len(deck)}"
        parts.append(f"L{level + 1}:{row}/{shown}")
    for p in range(n):
        hidden = seat is not None and p != seat
        hand = [
            (f"?{CARD_LEVEL[c] + 1}" if hidden else str(c)) + ("*" if b else "")
            for c, b in zip(st.hands[p], st.blind[p], strict=True)
        ]
        parts.append(
            f"P{p}:{format_tokens(st.tokens[p])}/{format_ids(sorted(st.bought[p]))}"
            f"/{','.join(hand) or '-'}/{format_ids(sorted(st.owned[p]))}"
        )
    return " ".join(parts)


# --- positions: read ------------------------------------------------------------------------

_NUM = r"(?:0|[1-9][0-9]*)"
_ID = r"[1-9][0-9]*"
_IDS = rf"-|{_ID}(?:,{_ID})*"
_TOKENS = rf"w({_NUM})b({_NUM})g({_NUM})r({_NUM})k({_NUM})y({_NUM})"
_SLOT = rf"{_ID}|-"
_TOKENS_RE = re.compile(_TOKENS)
_IDS_RE = re.compile(_IDS)
_ROW_RE = re.compile(rf"({_SLOT}),({_SLOT}),({_SLOT}),({_SLOT})/({_IDS})")
_HAND = rf"-|{_ID}\*?(?:,{_ID}\*?)*"
_PLAYER_RE = re.compile(rf"{_TOKENS}/({_IDS})/({_HAND})/({_IDS})")
_TURN_RE = re.compile(_NUM)
_MOVE_RE = re.compile(rf"{_NUM}|-")
_PHASE_RE = re.compile("|".join(PHASE_NAMES))
_FINAL_RE = re.compile("yes|no")
_ROW_FORMAT = "<slot>,<slot>,<slot>,<slot>/<deck: ids top first, or ->, each slot an id or -"
_PLAYER_FORMAT = (
    "<tokens>/<purchased ids>/<hand>/<noble ids>, the hand - or ids with * when reserved "
    "from a deck, e.g. w1b0g0r0k0y1/-/79*,31/-"
)
POSITION_FORMAT = (
    "'splendor <n> turn:<t> move:<seat|-> phase:<main|return|noble|over> final:<yes|no> "
    "supply:<tokens> nobles:<ids> L1:<row> L2:<row> L3:<row> P0:<player> ... P<n-1>:<player>'"
)


def _ids(value: str) -> list[int]:
    return [] if value == "-" else [int(v) for v in value.split(",")]


class _Reader:
    """Reads one position text, raising errors that quote it."""

    def __init__(self, text: object) -> None:
        if not isinstance(text, str):
            raise InvalidNotationError(
                f"a position must be a string {POSITION_FORMAT}, got {quote(text)}"
            )
        self.text = text

    def fail(self, why: str) -> InvalidNotationError:
        return InvalidNotationError(f"invalid position {quote(self.text)}: {why}")

    def field(self, field: str, name: str, pattern: re.Pattern, expected: str) -> re.Match:
        """The match of ``<name>:<value>``; an error saying ``expected`` otherwise."""
        prefix = name + ":"
        m = pattern.fullmatch(field, len(prefix)) if field.startswith(prefix) else None
        if m is None:
            raise self.fail(f"field {quote(field)}: expected {name}:{expected}")
        return m

    def ascending(self, name: str, value: str) -> list[int]:
        """The ids of an ``ids`` field that must ascend."""
        ids = _ids(value)
        if any(a >= b for a, b in pairwise(ids)):
            raise self.fail(f"{name} {value} must be in ascending order without repeats")
        return ids


def parse_position_into(st: Position, text: object) -> None:
    """Fill ``st``'s attributes from position text (§8.2) and run every reading check;
    raises :class:`InvalidNotationError` quoting the text."""
    r = _Reader(text)
    fields = r.text.split()
    if len(fields) < 2 or fields[0] != "splendor":
        raise r.fail(f"expected {POSITION_FORMAT}")
    if fields[1] not in ("2", "3", "4"):
        raise r.fail(f"the player count {quote(fields[1])} must be 2, 3 or 4")
    n = int(fields[1])
    if len(fields) != 11 + n:
        got = len(fields)
        raise r.fail(f"expected {11 + n} fields for {n} players, got {got}: {POSITION_FORMAT}")
    st.num_players = n
    st.turn = int(r.field(fields[2], "turn", _TURN_RE, "<completed turns>").group())
    move = r.field(fields[3], "move", _MOVE_RE, "<seat> or move:-").group()
    phase = r.field(fields[4], "phase", _PHASE_RE, "<main|return|noble|over>").group()
    st.phase = PHASE_NAMES.index(phase)
    st.final = r.field(fields[5], "final", _FINAL_RE, "<yes|no>").group() == "yes"
    supply = r.field(fields[6], "supply", _TOKENS_RE, "w<N>b<N>g<N>r<N>k<N>y<N>")
    st.supply = [int(v) for v in supply.groups()]
    nobles = r.field(fields[7], "nobles", _IDS_RE, "- or <id>,<id>,... ascending")
    st.nobles = r.ascending("the table's nobles", nobles.group())
    st.market = []
    st.decks = []
    for level in range(NUM_LEVELS):
        m = r.field(fields[8 + level], f"L{level + 1}", _ROW_RE, _ROW_FORMAT)
        st.market.append([0 if v == "-" else int(v) for v in m.groups()[:4]])
        st.decks.append(_ids(m.group(5))[::-1])
    st.tokens, st.bought, st.hands, st.blind, st.owned = [], [], [], [], []
    for p in range(n):
        m = r.field(fields[11 + p], f"P{p}", _PLAYER_RE, _PLAYER_FORMAT)
        st.tokens.append([int(v) for v in m.groups()[:6]])
        st.bought.append(r.ascending(f"P{p}'s purchased cards", m.group(7)))
        hand = m.group(8)
        entries = [] if hand == "-" else hand.split(",")
        st.hands.append([int(e.rstrip("*")) for e in entries])
        st.blind.append([e.endswith("*") for e in entries])
        st.owned.append(r.ascending(f"P{p}'s nobles", m.group(9)))
    if st.phase == OVER:
        st.to_move = -1
        if move != "-":
            raise r.fail(f"a finished game shows move:-, not move:{move}")
    else:
        if move == "-":
            raise r.fail(f"move:- belongs to phase:over, not phase:{phase}")
        st.to_move = int(move)
    why = check_position(st)
    if why:
        raise r.fail(why)


def check_position(st: Position) -> str:
    """Checks 2-9 of §8.2 on a position whose fields passed the grammar; fills in ``bonus``
    and ``points``. Returns why the position is invalid, or ``''``."""
    return (
        _check_tokens(st)
        or _check_cards(st)
        or _check_nobles(st)
        or _check_turn(st)
        or _check_points(st)
        or _check_end(st)
    )


def _check_tokens(st: Position) -> str:
    """Checks 2 and 6."""
    n = st.num_players
    for x in range(6):
        total = st.supply[x] + sum(t[x] for t in st.tokens)
        want = GOLD_COUNT if x == GOLD else COLOUR_COUNT[n]
        if total != want:
            name = "gold" if x == GOLD else f"colour {COLOURS[x]}"
            return f"{name}: supply and players hold {total} tokens, the table has {want} (check 2)"
    for p in range(n):
        held = sum(st.tokens[p])
        if p == st.to_move and st.phase == RETURN_PHASE:
            if not TOKEN_LIMIT < held <= TOKEN_LIMIT + 3:
                return f"in phase return the mover holds 11 to 13 tokens, P{p} {held} (check 6)"
        elif held > TOKEN_LIMIT:
            return f"P{p} holds {held} tokens, more than {TOKEN_LIMIT} (check 6)"
    return ""


def _check_cards(st: Position) -> str:
    """Check 3."""
    seen: dict[int, str] = {}
    places = [(f"the L{lv + 1} market", row, lv) for lv, row in enumerate(st.market)]
    places += [(f"the L{lv + 1} deck", deck, lv) for lv, deck in enumerate(st.decks)]
    places += [(f"P{p}'s hand", hand, -1) for p, hand in enumerate(st.hands)]
    places += [(f"P{p}'s purchased cards", cards, -1) for p, cards in enumerate(st.bought)]
    for where, ids, level in places:
        for c in ids:
            if not c:
                continue  # an empty market slot
            if c > NUM_CARDS:
                return f"{where}: card id {c} is not 1 to {NUM_CARDS} (check 3)"
            if c in seen:
                return f"card {c} is both in {seen[c]} and in {where} (check 3)"
            seen[c] = where
            if level >= 0 and CARD_LEVEL[c] != level:
                return f"{where} holds card {c} of level {CARD_LEVEL[c] + 1} (check 3)"
    if len(seen) != NUM_CARDS:
        missing = format_ids(sorted(set(range(1, NUM_CARDS + 1)) - seen.keys()))
        return f"cards {missing} are missing (check 3)"
    for level in range(NUM_LEVELS):
        if 0 in st.market[level] and st.decks[level]:
            return f"L{level + 1} has an empty market slot while its deck holds cards (check 3)"
    for p, hand in enumerate(st.hands):
        if len(hand) > HAND_LIMIT:
            return f"P{p} holds {len(hand)} reserved cards, at most {HAND_LIMIT} (check 3)"
    return ""


def _check_nobles(st: Position) -> str:
    """Check 4; fills in ``bonus`` and ``points``."""
    n = st.num_players
    nobles = list(st.nobles) + [x for owned in st.owned for x in owned]
    if any(x > NUM_NOBLES for x in nobles):
        return f"noble ids are 1 to {NUM_NOBLES}, got {format_ids(nobles)} (check 4)"
    if len(set(nobles)) != len(nobles) or len(nobles) != n + 1:
        listed = format_ids(nobles)
        return f"{n} players have {n + 1} different nobles on the table or owned, not {listed} (check 4)"
    st.bonus = [[0] * NUM_COLOURS for _ in range(n)]
    st.points = [0] * n
    for p in range(n):
        for c in st.bought[p]:
            st.bonus[p][CARD_BONUS[c]] += 1
            st.points[p] += CARD_POINTS[c]
        st.points[p] += NOBLE_POINTS * len(st.owned[p])
        for x in st.owned[p]:
            if not qualifies(x, st.bonus[p]):
                return f"P{p} owns noble {x} without meeting its requirement (check 4)"
    return ""


def _check_turn(st: Position) -> str:
    """Checks 5 and 7."""
    n = st.num_players
    cap = ROUND_CAP * n
    if st.turn > cap:
        return f"turn {st.turn} is past the cap of {cap} turns (check 5)"
    if st.phase != OVER:
        if st.turn == cap:
            return f"at turn {cap} the game is over by the cap (check 5)"
        if st.to_move != st.turn % n:
            return f"at turn {st.turn} seat {st.turn % n} moves, not {st.to_move} (check 5)"
    if st.phase == NOBLE_PHASE and sum(qualifies(x, st.bonus[st.to_move]) for x in st.nobles) < 2:
        return "in phase noble the mover qualifies for at least 2 nobles on the table (check 7)"
    return ""


def _check_points(st: Position) -> str:
    """Check 8."""
    rich = [p for p in range(st.num_players) if st.points[p] >= WIN_POINTS]
    if st.phase == OVER:
        if st.final != bool(rich):
            return f"a finished game shows final:yes exactly when someone has {WIN_POINTS} points (check 8)"
        return ""
    mover = st.to_move
    for p in rich:
        if not (p < mover or (p == mover and st.phase in (RETURN_PHASE, NOBLE_PHASE))):
            return f"P{p} has {st.points[p]} points but does not sit before the mover (check 8)"
    if st.final != any(p != mover for p in rich):
        return f"final:yes exactly when a player other than the mover has {WIN_POINTS} points (check 8)"
    return ""


def _check_end(st: Position) -> str:
    """Check 9."""
    n = st.num_players
    cap = ROUND_CAP * n
    if st.phase != OVER and (st.phase != MAIN or st.final):
        return ""
    deadlock = is_deadlock(st.supply, st.tokens, st.bonus, st.hands, st.nobles, st.market, st.decks)
    if st.phase != OVER:
        return "the position is a deadlock, so the game is over (check 9)" if deadlock else ""
    if st.final and (st.turn == 0 or st.turn % n):
        return f"a game over at its end has a turn that is a positive multiple of {n} (check 9)"
    if not st.final and st.turn != cap and not deadlock:
        return f"a game over with final:no is at turn {cap} or in a deadlock (check 9)"
    return ""
