"""The components of Splendor (SPLENDOR_RULES.md §1) as tables computed once at import, and
the few rule predicates that more than one module needs. Pure Python, no imports from the
rest of the package.

Colours are ``0..4`` for ``w b g r k``; token kinds are ``0..5``, the colours then gold
(:data:`GOLD`). Levels are ``0..2`` inside the code (``1..3`` in text). Cards are ids
``1..90`` and nobles ids ``1..10`` as in the data files; id ``0`` marks an empty market slot,
so every per-card table has an unused entry 0.
"""

from __future__ import annotations

import csv
import io
from importlib.resources import files

COLOURS = "wbgrk"
TOKENS = "wbgrky"
NUM_COLOURS = 5
GOLD = 5
NUM_LEVELS = 3
SLOTS = 4
HAND_LIMIT = 3
TOKEN_LIMIT = 10
GOLD_COUNT = 5
NOBLE_POINTS = 3
WIN_POINTS = 15
#: Rounds after which a game that has not ended is over with no winner (§6).
ROUND_CAP = 100
NUM_CARDS = 90
NUM_NOBLES = 10

#: Per table size: tokens of each colour (§1). Nobles on the table: players + 1.
COLOUR_COUNT = {2: 4, 3: 5, 4: 7}
PLAYER_COUNTS = (2, 3, 4)


def _rows(name: str, header: list[str]) -> list[list[int]]:
    text = files("splendor_env.rules").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    reader = csv.reader(io.StringIO(text))
    if next(reader) != header:
        raise ValueError(f"data file {name}: expected the header {','.join(header)}")
    return [[int(v) if v.isdigit() else COLOURS.index(v) for v in row] for row in reader if row]


def _load_cards() -> list[list[int]]:
    rows = _rows("cards.csv", ["id", "level", "bonus", "points", *COLOURS])
    if [r[0] for r in rows] != list(range(1, NUM_CARDS + 1)):
        raise ValueError(f"data file cards.csv: expected the ids 1 to {NUM_CARDS} in order")
    return rows


def _load_nobles() -> list[list[int]]:
    rows = _rows("nobles.csv", ["id", "points", *COLOURS])
    if [r[0] for r in rows] != list(range(1, NUM_NOBLES + 1)):
        raise ValueError(f"data file nobles.csv: expected the ids 1 to {NUM_NOBLES} in order")
    return rows


_CARDS = _load_cards()
_NOBLES = _load_nobles()

#: ``CARD_LEVEL[id]`` (0..2), ``CARD_BONUS[id]`` (a colour), ``CARD_POINTS[id]``.
CARD_LEVEL: tuple[int, ...] = (-1, *(r[1] - 1 for r in _CARDS))
CARD_BONUS: tuple[int, ...] = (-1, *(r[2] for r in _CARDS))
CARD_POINTS: tuple[int, ...] = (0, *(r[3] for r in _CARDS))
#: ``CARD_COST[id]``: the cost in ``w b g r k``.
CARD_COST: tuple[tuple[int, ...], ...] = ((0,) * 5, *(tuple(r[4:9]) for r in _CARDS))
#: ``CARD_COST_PAIRS[id]``: ``(colour, amount)`` for each colour the card costs.
CARD_COST_PAIRS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((c, v) for c, v in enumerate(cost) if v) for cost in CARD_COST
)
#: ``LEVEL_CARDS[level]``: the card ids of a level, ascending.
LEVEL_CARDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(1, NUM_CARDS + 1) if CARD_LEVEL[i] == level)
    for level in range(NUM_LEVELS)
)
#: ``NOBLE_NEEDS[id]``: the bonuses a noble requires, in ``w b g r k``.
NOBLE_NEEDS: tuple[tuple[int, ...], ...] = ((0,) * 5, *(tuple(r[2:7]) for r in _NOBLES))
#: ``NOBLE_NEED_PAIRS[id]``: ``(colour, bonuses)`` for each colour a noble requires.
NOBLE_NEED_PAIRS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((c, v) for c, v in enumerate(need) if v) for need in NOBLE_NEEDS
)
#: No noble asks for fewer bonuses than this in all.
MIN_NOBLE_BONUSES = min(sum(need) for need in NOBLE_NEEDS[1:])

if any(r[1] != NOBLE_POINTS for r in _NOBLES):
    raise ValueError(f"data file nobles.csv: every noble is worth {NOBLE_POINTS} points")


def shortfall(card: int, tokens: list[int], bonus: list[int]) -> int:
    """The gold a player needs to buy ``card``: the sum over colours of what its net price
    exceeds the player's tokens (§3.4)."""
    short = 0
    for c, v in CARD_COST_PAIRS[card]:
        v -= tokens[c] + bonus[c]
        if v > 0:
            short += v
    return short


def qualifies(noble: int, bonus: list[int]) -> bool:
    """Whether ``bonus`` meets a noble's requirement (§4.2)."""
    return all(bonus[c] >= v for c, v in NOBLE_NEED_PAIRS[noble])


def has_main_action(
    supply: list[int],
    tokens: list[int],
    bonus: list[int],
    hand: list[int],
    market: list[list[int]],
    decks: list[list[int]],
) -> bool:
    """Whether a player has a main action (§3.1-§3.4), so that ``pass`` is not theirs."""
    if any(supply[:NUM_COLOURS]):
        return True
    gold = tokens[GOLD]
    if any(shortfall(card, tokens, bonus) <= gold for card in hand):
        return True
    cards = [card for row in market for card in row if card]
    if len(hand) < HAND_LIMIT and (cards or any(decks)):
        return True
    return any(shortfall(card, tokens, bonus) <= gold for card in cards)


def is_deadlock(
    supply: list[int],
    tokens: list[list[int]],
    bonus: list[list[int]],
    hands: list[list[int]],
    nobles: list[int],
    market: list[list[int]],
    decks: list[list[int]],
) -> bool:
    """§6: no player has a main action nor qualifies for a noble on the table."""
    if any(supply[:NUM_COLOURS]):
        return False
    for seat, hand in enumerate(hands):
        if has_main_action(supply, tokens[seat], bonus[seat], hand, market, decks):
            return False
        if any(qualifies(noble, bonus[seat]) for noble in nobles):
            return False
    return True
