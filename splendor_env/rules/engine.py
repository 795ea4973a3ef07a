"""The Splendor rules engine: :class:`State`, a position with its legal moves and their effect.

:class:`State` offers an unchecked in-place interface (:meth:`State.legal_move_ids`,
:meth:`State.apply`) over the move ids of :mod:`splendor_env.rules.moves`, for speed;
:mod:`splendor_env.rules.api` wraps it with text notation, immutability and checks.
"""

from __future__ import annotations

import random

from splendor_env.rules.components import (
    CARD_BONUS,
    CARD_COST_PAIRS,
    CARD_POINTS,
    COLOUR_COUNT,
    GOLD,
    GOLD_COUNT,
    HAND_LIMIT,
    LEVEL_CARDS,
    MIN_NOBLE_BONUSES,
    NOBLE_POINTS,
    NUM_COLOURS,
    NUM_LEVELS,
    NUM_NOBLES,
    PLAYER_COUNTS,
    ROUND_CAP,
    SLOTS,
    TOKEN_LIMIT,
    WIN_POINTS,
    is_deadlock,
    qualifies,
    shortfall,
)
from splendor_env.rules.moves import (
    BUY,
    BUY_HAND,
    NOBLE,
    PASS,
    RESERVE,
    RESERVE_DECK,
    RETURN,
    TAKE2,
    TAKE_COLOURS,
    TAKE_IDS,
)
from splendor_env.rules.notation import (
    MAIN,
    NOBLE_PHASE,
    OVER,
    RETURN_PHASE,
    format_position,
    parse_position_into,
)

__all__ = ["MAIN", "NOBLE_PHASE", "OVER", "RETURN_PHASE", "State", "player_count"]

#: ``_RESERVE_MARKET[level]``: ``(slot, reserve id)`` per slot; likewise for buying.
_RESERVE_MARKET = tuple(
    tuple((s, RESERVE + level * SLOTS + s) for s in range(SLOTS)) for level in range(NUM_LEVELS)
)
_BUY_MARKET = tuple(
    tuple((s, BUY + level * SLOTS + s) for s in range(SLOTS)) for level in range(NUM_LEVELS)
)


def player_count(num_players: object) -> int:
    """``num_players`` if it is 2, 3 or 4; a ``ValueError`` saying so otherwise."""
    if type(num_players) is int and num_players in PLAYER_COUNTS:
        return num_players
    raise ValueError(f"Splendor is played by 2, 3 or 4 players, got {num_players!r:.80}")


class State:
    """A Splendor position, mutable through :meth:`apply` (use :meth:`copy` first).

    Attributes are plain ints and lists; treat them as read-only:

    - ``num_players`` (2-4), ``turn`` (completed turns), ``to_move`` (the seat to move, -1
      once over), ``phase`` (:data:`MAIN`, :data:`RETURN_PHASE`, :data:`NOBLE_PHASE`,
      :data:`OVER`), ``final`` (the end is triggered, §4.3);
    - ``supply``: 6 token counts ``w b g r k y``;
    - per seat: ``tokens`` (6 counts), ``bonus`` (5 counts), ``points``, ``bought`` (card ids
      in purchase order), ``hands`` (reserved card ids in hand order) with ``blind`` (per hand
      slot, whether it came from a deck), ``owned`` (noble ids);
    - ``nobles``: the noble ids on the table, ascending;
    - ``market``: per level 4 card ids (0 for an empty slot); ``decks``: per level the card
      ids, the top card last.
    """

    __slots__ = (
        "_legal",
        "blind",
        "bonus",
        "bought",
        "decks",
        "final",
        "hands",
        "market",
        "nobles",
        "num_players",
        "owned",
        "phase",
        "points",
        "supply",
        "to_move",
        "tokens",
        "turn",
    )

    def __init__(self, text: str) -> None:
        """Build a state from position text (see :func:`splendor_env.rules.from_text`)."""
        parse_position_into(self, text)
        self._legal = None

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def initial(cls, num_players: int, rng: random.Random) -> State:
        """A shuffled start (§2): each level's deck shuffled and 4 cards dealt, then
        ``num_players + 1`` nobles drawn, all with ``rng``."""
        n = player_count(num_players)
        st = cls.__new__(cls)
        st.num_players = n
        st.turn = 0
        st.to_move = 0
        st.phase = MAIN
        st.final = False
        st.supply = [COLOUR_COUNT[n]] * NUM_COLOURS + [GOLD_COUNT]
        st.tokens = [[0] * 6 for _ in range(n)]
        st.bonus = [[0] * NUM_COLOURS for _ in range(n)]
        st.points = [0] * n
        st.bought = [[] for _ in range(n)]
        st.hands = [[] for _ in range(n)]
        st.blind = [[] for _ in range(n)]
        st.owned = [[] for _ in range(n)]
        st.market = []
        st.decks = []
        for level in range(NUM_LEVELS):
            deck = list(LEVEL_CARDS[level])
            rng.shuffle(deck)
            st.market.append(deck[:SLOTS])
            st.decks.append(deck[SLOTS:][::-1])
        st.nobles = sorted(rng.sample(range(1, NUM_NOBLES + 1), n + 1))
        st._legal = None
        return st

    def copy(self) -> State:
        st = State.__new__(State)
        st.num_players = self.num_players
        st.turn = self.turn
        st.to_move = self.to_move
        st.phase = self.phase
        st.final = self.final
        st.supply = self.supply[:]
        st.tokens = [t[:] for t in self.tokens]
        st.bonus = [b[:] for b in self.bonus]
        st.points = self.points[:]
        st.bought = [b[:] for b in self.bought]
        st.hands = [h[:] for h in self.hands]
        st.blind = [b[:] for b in self.blind]
        st.owned = [o[:] for o in self.owned]
        st.nobles = self.nobles[:]
        st.market = [row[:] for row in self.market]
        st.decks = [d[:] for d in self.decks]
        st._legal = self._legal
        return st

    # --- queries ---------------------------------------------------------------------------

    def is_over(self) -> bool:
        return self.phase == OVER

    def winners(self) -> list[int]:
        """The seats sharing the win (§5), ascending: the most points, then the fewest
        purchased cards. Empty while the game runs and after a cap or deadlock (§6)."""
        if self.phase != OVER or not self.final:
            return []
        points = self.points
        best = max(points)
        tied = [s for s in range(self.num_players) if points[s] == best]
        fewest = min(len(self.bought[s]) for s in tied)
        return [s for s in tied if len(self.bought[s]) == fewest]

    def key(self) -> tuple:
        """A hashable summary of everything that defines the position."""
        return (
            self.num_players,
            self.turn,
            self.to_move,
            self.phase,
            self.final,
            tuple(self.supply),
            tuple(map(tuple, self.tokens)),
            tuple(tuple(sorted(b)) for b in self.bought),
            tuple(map(tuple, self.hands)),
            tuple(map(tuple, self.blind)),
            tuple(self.nobles),
            tuple(tuple(sorted(o)) for o in self.owned),
            tuple(map(tuple, self.market)),
            tuple(map(tuple, self.decks)),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return f"State({format_position(self)!r})"

    # --- legal moves -----------------------------------------------------------------------

    def legal_move_ids(self) -> list[int]:
        """Every legal move id of the seat to move, ascending (``[PASS]`` when it has no main
        action, ``[]`` once over). Cached until the next :meth:`apply`: do not mutate."""
        legal = self._legal
        if legal is None:
            phase = self.phase
            if phase == MAIN:
                legal = self._main_ids()
            elif phase == RETURN_PHASE:
                tokens = self.tokens[self.to_move]
                legal = [RETURN + x for x in range(6) if tokens[x]]
            elif phase == NOBLE_PHASE:
                legal = [NOBLE - 1 + x for x in self._qualifying(self.to_move)]
            else:
                legal = []
            self._legal = legal
        return legal

    def _main_ids(self) -> list[int]:
        w, b, g, r, k, _ = self.supply
        out = list(TAKE_IDS[w][b][g][r][k])
        seat = self.to_move
        hand = self.hands[seat]
        market = self.market
        if len(hand) < HAND_LIMIT:
            for level in range(NUM_LEVELS):
                row = market[level]
                for s, i in _RESERVE_MARKET[level]:
                    if row[s]:
                        out.append(i)
            decks = self.decks
            for level in range(NUM_LEVELS):
                if decks[level]:
                    out.append(RESERVE_DECK + level)
        tokens = self.tokens[seat]
        bonus = self.bonus[seat]
        gold = tokens[GOLD]
        for level in range(NUM_LEVELS):
            row = market[level]
            for s, i in _BUY_MARKET[level]:
                card = row[s]
                if card and shortfall(card, tokens, bonus) <= gold:
                    out.append(i)
        for h, card in enumerate(hand):
            if shortfall(card, tokens, bonus) <= gold:
                out.append(BUY_HAND + h)
        return out or [PASS]

    def _qualifying(self, seat: int) -> list[int]:
        """The table nobles whose requirement ``seat``'s bonuses meet (§4.2)."""
        bonus = self.bonus[seat]
        return [x for x in self.nobles if qualifies(x, bonus)]

    # --- applying a move -------------------------------------------------------------------

    def apply(self, move_id: int) -> None:
        """Play a move id in place. Unchecked: the id must be in :meth:`legal_move_ids`."""
        self._legal = None
        seat = self.to_move
        tokens = self.tokens[seat]
        supply = self.supply
        if move_id < TAKE2:
            for c in TAKE_COLOURS[move_id]:
                supply[c] -= 1
                tokens[c] += 1
        elif move_id < RESERVE:
            c = move_id - TAKE2
            supply[c] -= 2
            tokens[c] += 2
        elif move_id < BUY:
            if move_id < RESERVE_DECK:
                card = self._take_from_market(move_id - RESERVE)
                self.blind[seat].append(False)
            else:
                card = self.decks[move_id - RESERVE_DECK].pop()
                self.blind[seat].append(True)
            self.hands[seat].append(card)
            if supply[GOLD]:
                supply[GOLD] -= 1
                tokens[GOLD] += 1
        elif move_id < RETURN:
            if move_id < BUY_HAND:
                card = self._take_from_market(move_id - BUY)
            else:
                h = move_id - BUY_HAND
                card = self.hands[seat].pop(h)
                self.blind[seat].pop(h)
            bonus = self.bonus[seat]
            for c, v in CARD_COST_PAIRS[card]:
                v -= bonus[c]
                if v > 0:
                    have = tokens[c]
                    if have >= v:
                        tokens[c] = have - v
                        supply[c] += v
                    else:
                        tokens[c] = 0
                        supply[c] += have
                        tokens[GOLD] -= v - have
                        supply[GOLD] += v - have
            bonus[CARD_BONUS[card]] += 1
            self.points[seat] += CARD_POINTS[card]
            self.bought[seat].append(card)
        elif move_id < NOBLE:
            x = move_id - RETURN
            tokens[x] -= 1
            supply[x] += 1
            if sum(tokens) > TOKEN_LIMIT:
                return
            self._visit(seat)
            return
        elif move_id < PASS:
            self._take_noble(seat, move_id - NOBLE + 1)
            self._end_turn(seat)
            return
        if sum(tokens) > TOKEN_LIMIT:
            self.phase = RETURN_PHASE
            return
        self._visit(seat)

    def _take_from_market(self, index: int) -> int:
        """The card of market slot ``index`` (``level * 4 + slot``), which is refilled from
        its deck or left empty (§3.5)."""
        level, s = divmod(index, SLOTS)
        row = self.market[level]
        card = row[s]
        deck = self.decks[level]
        row[s] = deck.pop() if deck else 0
        return card

    def _visit(self, seat: int) -> None:
        """§4.2, then the rest of the turn's end: one qualifying noble visits, several
        leave the choice to the player."""
        if len(self.bought[seat]) >= MIN_NOBLE_BONUSES:
            nobles = self._qualifying(seat)
            if len(nobles) > 1:
                self.phase = NOBLE_PHASE
                return
            if nobles:
                self._take_noble(seat, nobles[0])
        self._end_turn(seat)

    def _take_noble(self, seat: int, noble: int) -> None:
        self.nobles.remove(noble)
        self.owned[seat].append(noble)
        self.points[seat] += NOBLE_POINTS

    def _end_turn(self, seat: int) -> None:
        """§4.3 and the checks of §5-§6 before the next turn."""
        if self.points[seat] >= WIN_POINTS:
            self.final = True
        self.turn += 1
        n = self.num_players
        turn = self.turn
        if (
            (self.final and turn % n == 0)
            or turn >= ROUND_CAP * n
            or (not self.final and self._deadlocked())
        ):
            self.phase = OVER
            self.to_move = -1
            self._legal = []
            return
        self.phase = MAIN
        self.to_move = turn % n

    def _deadlocked(self) -> bool:
        supply = self.supply
        if supply[0] or supply[1] or supply[2] or supply[3] or supply[4]:
            return False
        return is_deadlock(
            supply, self.tokens, self.bonus, self.hands, self.nobles, self.market, self.decks
        )
