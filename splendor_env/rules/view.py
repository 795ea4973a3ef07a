"""What one seat may see of a position (SPLENDOR_RULES.md §9), and the determiniser: full
positions sampled at random among those that the seat cannot tell apart from the real one.

Hidden from the seat are the order and identity of the cards in each deck and the identity
of every card in another player's hand (its level and whether it came from a deck are
seen). Everything else is public.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from splendor_env.rules.components import CARD_LEVEL, LEVEL_CARDS, NUM_LEVELS
from splendor_env.rules.engine import State
from splendor_env.rules.notation import check_position, format_position

#: How many samples :func:`determinise` draws before it gives up on a view (see there).
MAX_TRIES = 1000


@dataclass(frozen=True)
class View:
    """The view of seat ``seat`` (§9). Fields as in :class:`~.engine.State`, as tuples, with
    these differences: ``bought`` and ``owned`` are ascending; ``deck_sizes`` replaces the
    decks; ``hands`` holds 0 for a card the seat may not see, and ``hand_levels`` (0..2)
    and ``blind`` tell every hand card's back. ``text`` is the view text of §9."""

    seat: int
    num_players: int
    turn: int
    to_move: int
    phase: int
    final: bool
    supply: tuple[int, ...]
    nobles: tuple[int, ...]
    market: tuple[tuple[int, ...], ...]
    deck_sizes: tuple[int, ...]
    tokens: tuple[tuple[int, ...], ...]
    bought: tuple[tuple[int, ...], ...]
    owned: tuple[tuple[int, ...], ...]
    hands: tuple[tuple[int, ...], ...]
    hand_levels: tuple[tuple[int, ...], ...]
    blind: tuple[tuple[bool, ...], ...]
    text: str

    def unseen(self) -> list[list[int]]:
        """Per level, the ids of the cards the seat cannot see (in decks or in other
        players' hands), ascending."""
        seen = {c for row in self.market for c in row}
        seen.update(c for cards in self.bought for c in cards)
        seen.update(self.hands[self.seat])
        return [[c for c in cards if c not in seen] for cards in LEVEL_CARDS]


def make_view(state: State, seat: int) -> View:
    """The view of ``seat`` (0-based, below the player count) of ``state``."""
    n = state.num_players
    if type(seat) is not int or not 0 <= seat < n:
        raise ValueError(f"a seat of a {n}-player game is 0 to {n - 1}, got {seat!r:.80}")
    return View(
        seat=seat,
        num_players=n,
        turn=state.turn,
        to_move=state.to_move,
        phase=state.phase,
        final=state.final,
        supply=tuple(state.supply),
        nobles=tuple(state.nobles),
        market=tuple(map(tuple, state.market)),
        deck_sizes=tuple(map(len, state.decks)),
        tokens=tuple(map(tuple, state.tokens)),
        bought=tuple(tuple(sorted(b)) for b in state.bought),
        owned=tuple(tuple(sorted(o)) for o in state.owned),
        hands=tuple(tuple(h) if p == seat else (0,) * len(h) for p, h in enumerate(state.hands)),
        hand_levels=tuple(tuple(CARD_LEVEL[c] for c in h) for h in state.hands),
        blind=tuple(map(tuple, state.blind)),
        text=format_position(state, seat),
    )


def determinise(view: View, rng: random.Random) -> State:
    """A full position consistent with ``view``: the cards the seat cannot see, shuffled per
    level, fill the other players' hidden hand slots of their level and then the decks.

    Every such filling is equally likely, except that fillings which break a reading check
    of §8.2 (only whether the position is a deadlock can depend on hidden cards) are drawn
    again; raises ``ValueError`` if :data:`MAX_TRIES` draws all fail."""
    pools = view.unseen()
    wanted = [0] * NUM_LEVELS
    for p in range(view.num_players):
        if p != view.seat:
            for level in view.hand_levels[p]:
                wanted[level] += 1
    for level in range(NUM_LEVELS):
        if len(pools[level]) != wanted[level] + view.deck_sizes[level]:
            raise ValueError(
                f"view {view.text!r}: level {level + 1} has {len(pools[level])} unseen cards "
                f"for {wanted[level]} hidden hand cards and a deck of {view.deck_sizes[level]}"
            )
    why = ""
    for _ in range(MAX_TRIES):
        st = _fill(view, [rng.sample(pool, len(pool)) for pool in pools])
        why = check_position(st)
        if not why:
            return st
    raise ValueError(f"no position consistent with view {view.text!r} was found: {why}")


def _fill(view: View, pools: list[list[int]]) -> State:
    """A state from ``view`` with hidden cards popped from the shuffled ``pools``."""
    st = State.__new__(State)
    st.num_players = view.num_players
    st.turn = view.turn
    st.to_move = view.to_move
    st.phase = view.phase
    st.final = view.final
    st.supply = list(view.supply)
    st.nobles = list(view.nobles)
    st.market = [list(row) for row in view.market]
    st.tokens = [list(t) for t in view.tokens]
    st.bought = [list(b) for b in view.bought]
    st.owned = [list(o) for o in view.owned]
    st.blind = [list(b) for b in view.blind]
    st.hands = [
        [c or pools[level].pop() for c, level in zip(h, levels, strict=True)]
        for h, levels in zip(view.hands, view.hand_levels, strict=True)
    ]
    st.decks = pools
    st._legal = None
    return st
