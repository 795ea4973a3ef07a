"""Rule cases, section by section of SPLENDOR_RULES.md; every ruling has at least one case.

Positions are inline text built by ``make``: the players are written in the position
notation and everything else (the supply, the markets, the decks, the table's nobles) is
filled in so that the position is valid.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

import pytest

from splendor_env import rules
from splendor_env.rules.components import COLOUR_COUNT, LEVEL_CARDS, NUM_NOBLES
from splendor_env.rules.engine import State

EMPTY = "w0b0g0r0k0y0/-/-/-"


def make(
    n: int = 2,
    players: Sequence[str] = (),
    *,
    turn: int = 0,
    phase: str = "main",
    final: str = "no",
    nobles: str | None = None,
    rows: dict[int, str] | None = None,
    decks: dict[int, str] | None = None,
) -> str:
    """A valid position for ``n`` players: ``players`` in the notation (``P<k>:`` left off;
    missing ones hold nothing), the market of level L ``rows[L]`` (``"12,5,-,-"``) and the
    top cards of its deck ``decks[L]`` (``"30,1"``). The other cards of a level fill its
    market, when not given, and then its deck in ascending order; the table gets ``nobles`` ("3,5,1"), or
    else the lowest ids nobody owns. The supply holds the tokens nobody holds."""
    specs = list(players) + [EMPTY] * (n - len(players))
    used: set[int] = set()
    owned: set[int] = set()
    held = [0] * 6
    for spec in specs:
        tokens, bought, hand, mine = spec.split("/")
        for x, v in enumerate(map(int, re.findall(r"\d+", tokens))):
            held[x] += v
        used.update(int(c.rstrip("*")) for c in f"{bought},{hand}".split(",") if c != "-")
        owned.update(int(x) for x in mine.split(",") if x != "-")
    rows, decks = rows or {}, decks or {}
    for text in [*rows.values(), *decks.values()]:
        used.update(int(c) for c in text.split(",") if c != "-")
    fields = []
    for level in (1, 2, 3):
        rest = [str(c) for c in LEVEL_CARDS[level - 1] if c not in used]
        if level in rows:
            row = rows[level]
        else:
            row, rest = ",".join((rest[:4] + ["-"] * 4)[:4]), rest[4:]
        top = decks.get(level, "-")
        deck = ",".join(([] if top == "-" else top.split(",")) + rest) or "-"
        fields.append(f"L{level}:{row}/{deck}")
    if nobles is None:
        free = [x for x in range(1, NUM_NOBLES + 1) if x not in owned]
        nobles = ",".join(map(str, free[: n + 1 - len(owned)])) or "-"
    supply = [COLOUR_COUNT[n] - held[x] for x in range(5)] + [5 - held[5]]
    move = "-" if phase == "over" else turn % n
    text = (
        f"splendor {n} turn:{turn} move:{move} phase:{phase} final:{final} "
        f"supply:{''.join(f'{c}{v}' for c, v in zip('wbgrky', supply, strict=True))} "
        f"nobles:{nobles} {' '.join(fields)} "
        + " ".join(f"P{p}:{spec}" for p, spec in enumerate(specs))
    )
    rules.from_text(text)  # the helper builds valid positions only
    return text


def legal(text: str) -> list[str]:
    return rules.legal_moves(rules.from_text(text))


def after(text: str, *moves: str) -> State:
    state = rules.from_text(text)
    for move in moves:
        state = rules.play(state, move)
    return state


def field(state: State, name: str) -> str:
    """One field of the position text, by its name (``supply``, ``P0``, ``L1``...)."""
    for part in rules.to_text(state).split():
        if part.startswith(name + ":"):
            return part[len(name) + 1 :]
    raise KeyError(name)


def illegal(state_or_text: State | str, move: str, why: str) -> None:
    """``move`` is refused with a message that quotes it and contains ``why``."""
    state = rules.from_text(state_or_text) if isinstance(state_or_text, str) else state_or_text
    before = rules.to_text(state)
    with pytest.raises(rules.IllegalMoveError, match=re.escape(repr(move))) as err:
        rules.play(state, move)
    assert why in str(err.value)
    assert rules.to_text(state) == before


# --- §1-§2 components, set-up, seats --------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_start_per_table_size(n):
    state = rules.initial_state(n, seed=n)
    assert state.supply == [COLOUR_COUNT[n]] * 5 + [5]
    assert len(state.nobles) == n + 1 == len(set(state.nobles))
    assert state.nobles == sorted(state.nobles)
    for level in range(3):
        assert len(state.market[level]) == 4
        assert len(state.market[level]) + len(state.decks[level]) == len(LEVEL_CARDS[level])
        assert sorted(state.market[level] + state.decks[level]) == list(LEVEL_CARDS[level])
    assert rules.to_move(state) == 0 and state.turn == 0 and state.phase == 0
    assert rules.scores(state) == [0] * n
    assert all(field(state, f"P{p}") == EMPTY for p in range(n))


def test_the_start_is_seeded():
    assert rules.initial_text(3, 5) == rules.initial_text(3, 5)
    assert rules.initial_text(3, 5) != rules.initial_text(3, 6)
    assert rules.initial_text(2, random.Random(9)) == rules.initial_text(2, 9)
    starts = {rules.initial_text(2, seed) for seed in range(20)}
    assert len(starts) == 20


@pytest.mark.parametrize("bad", [1, 5, "2", 2.0, True, None])
def test_player_counts_are_2_to_4(bad):
    with pytest.raises(ValueError, match="2, 3 or 4 players"):
        rules.initial_state(bad, seed=0)


@pytest.mark.parametrize("bad", ["7", 1.5, None, True])
def test_a_seed_is_an_int_or_a_random(bad):
    with pytest.raises(ValueError, match="seed"):
        rules.initial_state(2, bad)


def test_turns_go_round_the_seats_from_seat_0():
    state = rules.initial_state(3, seed=1)
    seen = []
    for move in ["take wbg", "take wbr", "take wbk", "take wgr"]:
        seen.append(rules.to_move(state))
        state = rules.play(state, move)
    assert seen == [0, 1, 2, 0] and state.turn == 4


# --- §3.1 take different colours -------------------------------------------------------------


def test_take_three_of_five_colours():
    text = make()
    takes = [m for m in legal(text) if m.startswith("take ")]
    assert len(takes) == 10 and "take wbg" in takes and "take grk" in takes
    state = after(text, "take wgk")
    assert field(state, "P0") == "w1b0g1r0k1y0/-/-/-"
    assert field(state, "supply") == "w3b4g3r4k3y5"


def test_with_three_or_more_colours_fewer_are_never_taken():
    text = make(players=["w4b4g0r0k0y0/-/-/-"])  # w and b are out; g r k remain
    takes = [m for m in legal(text) if m.startswith("take ")]
    assert takes == ["take grk"]
    # Ruling: fewer colours than min(3, m) is never allowed.
    illegal(make(), "take wb", "exactly 3 different colours")
    illegal(text, "take gr", "exactly 3 different colours")
    illegal(text, "take wgr", "no w token")


def test_ruling_with_two_colours_left_take_both():
    text = make(players=["w4b4g0r0k0y0/-/-/-", "w0b0g4r0k0y0/-/-/-"])  # r and k remain
    assert [m for m in legal(text) if m.startswith("take")] == ["take rk", "take2 k", "take2 r"]
    illegal(text, "take r", "take takes one of each of all of them")
    assert field(after(text, "take rk"), "supply") == "w0b0g0r3k3y5"


def test_ruling_with_one_colour_left_take_it():
    text = make(players=["w4b4g0r0k0y0/-/-/-", "w0b0g4r4k0y0/-/-/-"])  # k remains
    assert [m for m in legal(text) if m.startswith("take")] == ["take k", "take2 k"]


def test_with_no_colour_left_there_is_no_take():
    text = make(players=["w4b4g0r2k0y0/-/-/-", "w0b0g4r2k4y0/-/-/-"])
    moves = legal(text)
    assert not [m for m in moves if m.startswith("take")]
    assert "reserve deck 1" in moves
    illegal(text, "take wbg", "the supply holds no w and no b and no g token")


def test_gold_is_never_taken():
    assert not [m for m in rules.MOVE_TEXTS if m.startswith("take") and "y" in m]
    for move in ("take y", "take2 y", "take wby"):
        with pytest.raises(rules.InvalidNotationError, match=re.escape(repr(move))):
            rules.play(rules.from_text(make()), move)


# --- §3.2 take two of one colour --------------------------------------------------------------


def test_take_two_needs_four_in_the_supply():
    text = make(players=[EMPTY, "w1b0g0r0k0y0/-/-/-"])  # w supply 3
    moves = legal(text)
    assert "take2 w" not in moves and {"take2 b", "take2 g", "take2 r", "take2 k"} <= set(moves)
    illegal(text, "take2 w", "holds 3 w tokens, take2 needs at least 4")
    state = after(make(), "take2 r")
    assert field(state, "P0") == "w0b0g0r2k0y0/-/-/-" and field(state, "supply") == "w4b4g4r2k4y5"
    assert "take2 r" not in rules.legal_moves(state)  # 2 left


# --- §3.3 reserve -------------------------------------------------------------------------------


def test_reserve_a_market_card_refills_the_slot_and_gives_gold():
    text = make(rows={1: "5,6,7,8"}, decks={1: "30,1,2"})
    state = after(text, "reserve 1.2")
    assert field(state, "P0") == "w0b0g0r0k0y1/-/7/-"
    assert field(state, "L1").startswith("5,6,30,8/1,2,")
    assert field(state, "supply").endswith("y4")


def test_blind_reserve_from_a_deck():
    text = make(decks={3: "90,89"})
    state = after(text, "reserve deck 3")
    assert field(state, "P0") == "w0b0g0r0k0y1/-/90*/-"
    assert field(state, "L3") == "71,72,73,74/" + ",".join(map(str, [89, *range(75, 89)]))
    # The hand is ordered: new cards go to the end.
    state = rules.play(rules.play(state, "take wbg"), "reserve 2.1")
    assert field(state, "P0") == "w0b0g0r0k0y2/-/90*,42/-"


def test_ruling_reserve_without_gold_when_none_is_left():
    text = make(players=["w0b0g0r0k0y2/-/1,2/-", "w0b0g0r0k0y3/-/3,4,5/-"])
    assert "reserve 1.0" in legal(text)
    state = after(text, "reserve 1.0")
    assert field(state, "P0") == "w0b0g0r0k0y2/-/1,2,6/-" and field(state, "supply").endswith("y0")


def test_at_most_three_reserved_cards():
    text = make(players=["w0b0g0r0k0y3/-/1,2*,3/-"])
    assert not [m for m in legal(text) if m.startswith("reserve")]
    illegal(text, "reserve 2.0", "holds 3 reserved cards already")
    illegal(text, "reserve deck 1", "holds 3 reserved cards already")


def test_ruling_no_reserve_from_an_empty_deck_or_slot():
    l3 = ",".join(map(str, range(71, 89)))
    text = make(
        players=[f"w0b0g0r0k0y0/{l3}/-/-", EMPTY], turn=1, final="yes", rows={3: "89,-,90,-"}
    )
    moves = legal(text)
    assert "reserve deck 3" not in moves and "reserve 3.1" not in moves
    assert {"reserve 3.0", "reserve 3.2", "reserve deck 2"} <= set(moves)
    illegal(text, "reserve deck 3", "deck 3 is empty")
    illegal(text, "reserve 3.3", "market slot 3.3 is empty")
    # §3.5: with the deck empty the slot stays empty.
    state = after(text, "reserve 3.2")
    assert field(state, "L3") == "89,-,-,-/-"


def test_reserving_a_card_one_could_buy_is_legal():
    text = make(players=["w3b0g0r0k0y0/-/-/-"], rows={1: "31,5,6,7"})  # 31 costs w3
    assert {"buy 1.0", "reserve 1.0"} <= set(legal(text))


# --- §3.4 buy ------------------------------------------------------------------------------------


def test_buy_pays_the_net_price_after_bonuses():
    # Card 41 costs g3 r2 k2; P0's bonuses are g1 (17) and k1 (35).
    text = make(players=["w0b0g2r2k1y0/17,35/-/-"], rows={2: "41,42,43,44"})
    state = after(text, "buy 2.0")
    assert field(state, "P0") == "w0b0g0r0k0y0/17,35,41/-/-"
    assert field(state, "L2").startswith("45,42,43,44/46,")
    assert rules.scores(state) == [1, 0]


def test_ruling_canonical_payment_spends_gold_only_for_what_is_missing():
    # Card 31 costs w3: with w2 and 2 gold, P0 pays w2 and 1 gold and keeps 1 gold.
    text = make(players=["w2b0g0r0k0y2/-/1,2/-"], rows={1: "31,5,6,7"})
    state = after(text, "buy 1.0")
    assert field(state, "P0") == "w0b0g0r0k0y1/31/1,2/-"
    assert field(state, "supply") == "w4b4g4r4k4y4"
    # With w3 and gold, no gold is spent.
    state = after(make(players=["w3b0g0r0k0y1/-/1/-"], rows={1: "31,5,6,7"}), "buy 1.0")
    assert field(state, "P0") == "w0b0g0r0k0y1/31/1/-"


def test_a_card_one_cannot_afford_is_refused():
    text = make(players=["w1b0g0r0k0y1/-/1/-"], rows={1: "31,5,6,7"})
    assert "buy 1.0" not in legal(text)
    illegal(text, "buy 1.0", "card 31 costs w3; with its bonuses and tokens P0 lacks 2")


def test_a_free_card():
    # Card 31 costs w3; bonuses w3 (cards 1, 2, 3) cover it.
    text = make(players=["w0b0g0r0k0y0/1,2,3/-/-"], rows={1: "31,5,6,7"})
    state = after(text, "buy 1.0")
    assert field(state, "P0") == "w0b0g0r0k0y0/1,2,3,31/-/-"


def test_buy_from_the_hand_moves_later_cards_up():
    text = make(players=["w1b0g0r0k0y2/-/5*,31,6/-"])  # 31 costs w3: w1 and 2 gold
    assert [m for m in legal(text) if m.startswith("buy")] == ["buy r1"]
    state = after(text, "buy r1")
    assert field(state, "P0") == "w0b0g0r0k0y0/31/5*,6/-"
    illegal(after(text, "buy r1", "take wbg"), "buy r2", "P0's hand holds 2 cards, no slot r2")


def test_never_another_players_reserved_card():
    text = make(players=["w3b0g0r0k0y2/-/-/-", "w0b0g0r0k0y1/-/31/-"])
    assert not [m for m in legal(text) if m.startswith("buy r")]
    illegal(text, "buy r0", "P0's hand holds 0 cards, no slot r0")


def test_a_bought_market_card_is_replaced_from_the_deck():
    text = make(players=["w3b0g0r0k0y0/-/-/-"], rows={1: "5,31,6,7"}, decks={1: "8,9"})
    state = after(text, "buy 1.1")
    assert field(state, "L1").startswith("5,8,6,7/9,")


# --- §3.6 pass ------------------------------------------------------------------------------------

#: P0 holds w4 b4 g2 and bonuses w4 (1-4) b4 (10-13): nothing to take (P1 holds the rest of
#: the colours), a full hand, nothing affordable. P0 qualifies for noble 5 (w4 b4).
STUCK = make(
    players=["w4b4g2r0k0y0/1,2,3,4,10,11,12,13/86,89,85/-", "w0b0g2r4k4y0/-/-/-"],
    nobles="1,2,5",
    rows={1: "9,16,17,24", 2: "43,61,64,70", 3: "72,84,88,90"},
)


def test_ruling_pass_only_without_a_main_action():
    assert legal(STUCK) == ["pass"]
    illegal(make(), "pass", "passes only without any main action")


def test_a_pass_is_a_turn_and_a_noble_may_visit():
    state = after(STUCK, "pass")
    assert state.turn == 1 and rules.to_move(state) == 1
    assert field(state, "P0").endswith("/5") and field(state, "nobles") == "1,2"
    assert rules.scores(state) == [3, 0]


# --- §4.1 token limit ---------------------------------------------------------------------------


def test_ruling_return_moves_down_to_ten_tokens():
    text = make(players=["w2b2g2r2k1y0/-/-/-"])  # 9 tokens
    state = after(text, "take wbg")  # 12
    assert field(state, "P0").startswith("w3b3g3r2k1y0")
    assert rules.legal_moves(state) == [f"return {x}" for x in "bgkrw"]
    assert rules.to_move(state) == 0 and state.turn == 0
    illegal(state, "take wbr", "returns one at a time down to 10 first")
    illegal(state, "return y", "P0 holds no y token")
    state = rules.play(state, "return w")
    assert rules.to_move(state) == 0 and len(rules.legal_moves(state)) == 5
    state = rules.play(state, "return k")  # a token just taken or held: any
    assert rules.to_move(state) == 1 and state.turn == 1
    assert field(state, "P0").startswith("w2b3g3r2k0y0")


def test_three_returns_at_most_and_gold_may_go_back():
    text = make(players=["w2b2g2r2k2y0/-/-/-"])  # 10 tokens
    state = after(text, "take wbg", "return w", "return w")
    assert rules.to_move(state) == 0
    state = rules.play(state, "return w")
    assert rules.to_move(state) == 1 and field(state, "P0").startswith("w0b3g3r2k2y0")
    # A reserve at 10 tokens brings an 11th, the gold, which may go back.
    state = after(text, "reserve 1.0")
    assert rules.legal_moves(state)[-1] == "return y"
    state = rules.play(state, "return y")
    assert field(state, "P0") == "w2b2g2r2k2y0/-/1/-" and field(state, "supply").endswith("y5")


def test_return_is_never_legal_otherwise():
    illegal(make(players=["w2b2g2r2k2y0/-/-/-"]), "return w", "returned only above 10")


# --- §4.2 nobles --------------------------------------------------------------------------------

#: P0: bonuses w4 (1-4) b3 (9-11) g4 (17-20) and k2: buying card 12 (w1 k2) makes b4, which
#: meets nobles 3 (b4 g4) and 5 (w4 b4).
BONUSES = "w0b0g0r0k2y0/1,2,3,4,9,10,11,17,18,19,20/-/-"


def test_one_qualifying_noble_visits_at_once():
    state = after(make(players=[BONUSES], nobles="1,2,5", rows={1: "12,5,6,7"}), "buy 1.0")
    assert field(state, "P0").endswith("/5") and field(state, "nobles") == "1,2"
    assert rules.scores(state) == [3, 0] and rules.to_move(state) == 1


def test_ruling_several_nobles_the_player_picks_one():
    text = make(players=[BONUSES], nobles="1,3,5", rows={1: "12,5,6,7"})
    state = after(text, "buy 1.0")
    assert rules.legal_moves(state) == ["noble 3", "noble 5"]
    assert rules.to_move(state) == 0 and state.turn == 0
    illegal(state, "noble 1", "noble 1 is not on the table or P0 does not meet it")
    illegal(state, "take wbg", "picks one of the nobles that qualify first")
    state = rules.play(state, "noble 5")
    assert field(state, "P0").endswith("/5") and field(state, "nobles") == "1,3"
    assert rules.to_move(state) == 1 and rules.scores(state) == [3, 0]
    # Noble 3 stays and visits P0 at the end of its next turn, whatever it does.
    state = rules.play(rules.play(state, "take wbg"), "take wbr")
    assert field(state, "P0").endswith("/3,5") and field(state, "nobles") == "1"
    assert rules.scores(state) == [6, 0]


def test_nobles_come_after_the_returns():
    text = make(players=["w3b3g3r0k0y0/9,10,11,12,17,18,19,20/-/-"], nobles="1,2,3")
    state = after(text, "take wbg")
    assert rules.legal_moves(state)[0].startswith("return")
    state = rules.play(state, "return w")
    assert field(state, "P0").endswith("/-") and rules.to_move(state) == 0
    state = rules.play(state, "return w")
    assert field(state, "P0").endswith("/3") and rules.to_move(state) == 1


def test_tokens_and_reserved_cards_do_not_count_for_nobles():
    text = make(players=["w4b4g0r0k0y1/-/1,2/-"], nobles="4,5,6")
    state = after(text, "take grk", "return g", "return r")
    assert rules.to_move(state) == 1
    assert field(state, "P0").endswith("/-")


# --- §4.3 and §5 the end ------------------------------------------------------------------------

L3_5 = "74,78,82"  # three level-3 cards of 5 points each (w b g)


def test_the_last_seat_triggering_ends_the_game_at_once():
    # P1 (14 points) buys card 8 (g4, 1 point).
    text = make(players=[EMPTY, "w0b0g4r0k0y0/74,77,78/-/-"], turn=1, rows={1: "8,5,6,7"})
    state = after(text, "buy 1.0")
    assert rules.is_over(state) and state.final and state.turn == 2
    assert rules.winner(state) == 1 and rules.to_move(state) is None
    assert rules.legal_moves(state) == [] and not rules.is_truncated(state)
    illegal(state, "pass", "the game is over")


def test_the_first_seat_triggering_lets_the_others_play_once_more():
    text = make(3, ["w0b0g4r0k0y0/74,77,78/-/-"], turn=3, rows={1: "8,5,6,7"})
    state = after(text, "buy 1.0")
    assert state.final and not rules.is_over(state) and rules.to_move(state) == 1
    state = rules.play(state, "take wbg")
    assert not rules.is_over(state) and rules.to_move(state) == 2
    state = rules.play(state, "take wbg")
    assert rules.is_over(state) and state.turn == 6 and rules.winner(state) == 0


def test_points_gained_in_the_last_round_count():
    # P0 has 15 with 3 cards; P1 (11 points) buys card 72 (4 points, k7; bonus k1 from 90)
    # with k4 and 2 gold: 15 points with 4 cards, so P0 wins on fewer cards; with one more
    # card (5) P0 has 4 cards too and the win is shared.
    p1 = "w0b0g0r0k4y2/8,86,90/-/-"

    def last_buy(p0_cards: str) -> State:
        p0 = f"w0b0g0r0k0y0/{p0_cards}/-/-"
        text = make(players=[p0, p1], turn=41, final="yes", rows={3: "72,71,73,75"})
        return after(text, "buy 3.0")

    state = last_buy(L3_5)
    assert rules.is_over(state) and rules.scores(state) == [15, 15]
    assert rules.winner(state) == 0 and rules.winners(state) == [0]
    # Ruling: tied on points and on cards, the win is shared.
    state = last_buy(f"5,{L3_5}")
    assert rules.winner(state) is None and rules.winners(state) == [0, 1]
    assert rules.winner(last_buy(f"5,6,{L3_5}")) == 1


def test_the_most_points_win_whatever_the_cards():
    text = make(
        players=["w0b0g0r0k0y0/1,2,3,4,74,78,82/-/-", "w0b0g0r0k0y0/86,90/-/-"],
        turn=43,
        final="yes",
    )
    state = after(text, "take wbg")
    assert rules.scores(state) == [15, 10] and rules.winner(state) == 0


# --- §6 cap and deadlock --------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ruling_the_cap_ends_the_game_with_no_winner(n):
    text = make(n, turn=100 * n - 1)
    state = after(text, "take wbg")
    assert rules.is_over(state) and not state.final and state.turn == 100 * n
    assert rules.winner(state) is None and rules.winners(state) == []
    assert rules.is_truncated(state)
    assert " move:- phase:over final:no " in rules.to_text(state)


def test_the_cap_waits_for_the_returns_of_the_last_turn():
    text = make(players=[EMPTY, "w2b2g2r2k2y0/-/-/-"], turn=199)
    state = after(text, "take wbg")
    assert not rules.is_over(state)
    for _ in range(3):
        state = rules.play(state, "return w")
    assert rules.is_over(state) and rules.is_truncated(state)


def test_ruling_a_deadlock_ends_the_game_with_no_winner():
    # All colours are held, P1's hand is full, nothing is affordable. P0 reserves its
    # third card, returns the gold, and then nobody can do anything any more.
    text = make(
        players=["w4b4g2r0k0y0/-/26,27/-", "w0b0g2r4k4y0/-/29,30,36/-"],
        rows={1: "13,14,20,21", 2: "42,50,53,59", 3: "71,73,75,79"},
    )
    state = after(text, "reserve deck 1")
    assert not rules.is_over(state)
    state = rules.play(state, "return y")
    assert rules.is_over(state) and not state.final and state.turn == 1
    assert rules.winner(state) is None and not rules.is_truncated(state)
    # Had P0 returned a colour instead, P1 could take it.
    state = after(text, "reserve deck 1", "return w")
    assert rules.legal_moves(state) == ["take w"]
