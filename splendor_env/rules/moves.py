"""The move-id layout: the 77 move texts of SPLENDOR_RULES.md §8.1 as fixed integers
``0..76``, the tables that map ids to texts and back, and the take moves allowed by each
supply. The ids are stable: an environment uses them as one discrete action space.

==========  =====================================  ========================================
ids         move                                   text
==========  =====================================  ========================================
0..9        take 3 colours (§3.1)                  ``take wbg`` ... ``take grk``
10..19      take 2 colours, when m = 2             ``take wb`` ... ``take rk``
20..24      take 1 colour, when m = 1              ``take w`` ... ``take k``
25..29      take 2 of one colour (§3.2)            ``take2 w`` ... ``take2 k``
30..41      reserve a market card (§3.3)           ``reserve <L>.<s>``, ``30 + 4(L-1) + s``
42..44      reserve the top of a deck              ``reserve deck <L>``
45..56      buy a market card (§3.4)               ``buy <L>.<s>``, ``45 + 4(L-1) + s``
57..59      buy a card of one's hand               ``buy r<h>``
60..65      return a token (§4.1)                  ``return <x>``, x in ``w b g r k y``
66..75      pick a noble (§4.2)                    ``noble <id>``, ``65 + id``
76          :data:`PASS` (§3.6)                    ``pass``
==========  =====================================  ========================================

Colour sets of the take moves run through ``itertools.combinations`` of the colours
``0..4``, so their ids ascend with the colours taken.
"""

from __future__ import annotations

from itertools import combinations, product

from splendor_env.rules.components import (
    COLOURS,
    HAND_LIMIT,
    NUM_COLOURS,
    NUM_LEVELS,
    NUM_NOBLES,
    SLOTS,
    TOKENS,
)

TAKE = 0
TAKE2 = 25
RESERVE = 30
RESERVE_DECK = 42
BUY = 45
BUY_HAND = 57
RETURN = 60
NOBLE = 66
PASS = 76
NUM_MOVES = 77

#: ``TAKE_COLOURS[id]`` for ids ``0..24``: the colours a take move takes one token of.
TAKE_COLOURS: tuple[tuple[int, ...], ...] = (
    *combinations(range(NUM_COLOURS), 3),
    *combinations(range(NUM_COLOURS), 2),
    *((c,) for c in range(NUM_COLOURS)),
)


def _texts() -> tuple[str, ...]:
    out = ["take " + "".join(COLOURS[c] for c in cs) for cs in TAKE_COLOURS]
    out += [f"take2 {c}" for c in COLOURS]
    slots = [f"{level + 1}.{s}" for level in range(NUM_LEVELS) for s in range(SLOTS)]
    out += [f"reserve {x}" for x in slots]
    out += [f"reserve deck {level + 1}" for level in range(NUM_LEVELS)]
    out += [f"buy {x}" for x in slots]
    out += [f"buy r{h}" for h in range(HAND_LIMIT)]
    out += [f"return {x}" for x in TOKENS]
    out += [f"noble {i}" for i in range(1, NUM_NOBLES + 1)]
    out.append("pass")
    return tuple(out)


#: ``MOVE_TEXTS[id]``: the canonical text of every move id.
MOVE_TEXTS: tuple[str, ...] = _texts()
#: ``MOVE_IDS[text]``: the id of every canonical move text.
MOVE_IDS: dict[str, int] = {text: i for i, text in enumerate(MOVE_TEXTS)}
if len(MOVE_TEXTS) != NUM_MOVES or len(MOVE_IDS) != NUM_MOVES:
    raise AssertionError("the move-id layout must hold 77 distinct texts")


def _take_ids(supply: tuple[int, ...]) -> tuple[int, ...]:
    """The take and take2 move ids a supply of colour counts allows (§3.1, §3.2)."""
    have = {c for c in range(NUM_COLOURS) if supply[c] > 0}
    m = min(len(have), 3)
    ids = [i for i, cs in enumerate(TAKE_COLOURS) if len(cs) == m and have.issuperset(cs)]
    ids += [TAKE2 + c for c in range(NUM_COLOURS) if supply[c] >= 4]
    return tuple(ids)


#: The most tokens of one colour a supply can hold (4 players, §1).
MAX_SUPPLY = 7
#: The take ids per supply with each count capped at 4 (more changes nothing).
_BY_CAPPED = {key: _take_ids(key) for key in product(range(5), repeat=NUM_COLOURS)}


def _take_table(prefix: tuple[int, ...]) -> list | tuple[int, ...]:
    if len(prefix) == NUM_COLOURS:
        return _BY_CAPPED[tuple(min(v, 4) for v in prefix)]
    return [_take_table((*prefix, v)) for v in range(MAX_SUPPLY + 1)]


#: ``TAKE_IDS[w][b][g][r][k]``: the legal take and take2 ids, ascending, for a supply holding
#: ``w b g r k`` colour tokens (each ``0..7``).
TAKE_IDS: list = _take_table(())
