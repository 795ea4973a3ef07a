"""Move text and position text (SPLENDOR_RULES.md §8): the page's examples, round trips,
the move-id table, and every reading check, each error quoting the input and saying what
was expected."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from test_splendor_rules import EMPTY, make

from splendor_env import rules
from splendor_env.rules import InvalidNotationError
from splendor_env.rules.notation import parse_move

#: The page's 2-player start and the position after four moves (§8.2), and P0's view (§9).
START = (
    "splendor 2 turn:0 move:0 phase:main final:no supply:w4b4g4r4k4y5 nobles:1,2,3 "
    "L1:25,23,31,37/28,39,5,26,14,2,17,19,18,6,24,12,9,13,36,11,16,22,30,35,34,10,4,3,20,1,"
    "40,29,32,27,15,7,38,33,21,8 L2:60,64,58,46/51,44,70,45,57,48,65,49,47,42,66,56,53,43,54,"
    "55,62,52,67,41,50,59,68,63,61,69 L3:71,84,81,88/79,83,76,87,86,85,73,90,77,80,82,74,72,75,"
    "78,89 P0:w0b0g0r0k0y0/-/-/- P1:w0b0g0r0k0y0/-/-/-"
)
AFTER = (
    "splendor 2 turn:4 move:0 phase:main final:no supply:w3b3g3r2k4y3 nobles:1,2,3 "
    "L1:25,23,28,37/39,5,26,14,2,17,19,18,6,24,12,9,13,36,11,16,22,30,35,34,10,4,3,20,1,40,29,"
    "32,27,15,7,38,33,21,8 L2:60,64,58,46/51,44,70,45,57,48,65,49,47,42,66,56,53,43,54,55,62,"
    "52,67,41,50,59,68,63,61,69 L3:71,84,81,88/83,76,87,86,85,73,90,77,80,82,74,72,75,78,89 "
    "P0:w1b1g1r2k0y0/-/-/- P1:w0b0g0r0k0y2/-/79*,31/-"
)
AFTER_VIEW_P0 = (
    "splendor 2 turn:4 move:0 phase:main final:no supply:w3b3g3r2k4y3 nobles:1,2,3 "
    "L1:25,23,28,37/#35 L2:60,64,58,46/#26 L3:71,84,81,88/#15 P0:w1b1g1r2k0y0/-/-/- "
    "P1:w0b0g0r0k0y2/-/?3*,?1/-"
)
FOUR_MOVES = ["take wbg", "reserve deck 3", "take2 r", "reserve 1.2"]


def bad_position(text: object, why: str) -> None:
    """Reading ``text`` fails with a message that quotes it and contains ``why``."""
    with pytest.raises(InvalidNotationError) as err:
        rules.from_text(text)
    message = str(err.value)
    assert repr(text)[:60] in message
    assert why in message, message


# --- the page's examples ------------------------------------------------------------------------


def test_the_pages_examples_read_and_write_back():
    for text in (START, AFTER):
        assert rules.to_text(rules.from_text(text)) == text
    state = rules.from_text(START)
    for move in FOUR_MOVES:
        state = rules.play(state, move)
    assert rules.to_text(state) == AFTER
    assert rules.view_text(state, 0) == AFTER_VIEW_P0


def test_the_other_seats_view_of_the_example():
    view = rules.view_text(rules.from_text(AFTER), 1)
    assert view.endswith(" P0:w1b1g1r2k0y0/-/-/- P1:w0b0g0r0k0y2/-/79*,31/-")
    assert " L3:71,84,81,88/#15 " in view


def test_any_whitespace_on_input_and_single_spaces_on_output():
    spaced = "  " + AFTER.replace(" ", " \n\t ", 5).replace(" P1:", "   P1:") + "\n"
    assert rules.to_text(rules.from_text(spaced)) == AFTER


def test_an_empty_deck_and_slots_are_written_with_a_dash():
    l3 = ",".join(map(str, range(71, 89)))
    text = make(
        players=[f"w0b0g0r0k0y0/{l3}/-/-", EMPTY], turn=1, final="yes", rows={3: "89,-,90,-"}
    )
    assert " L3:89,-,90,-/- " in text
    assert rules.to_text(rules.from_text(text)) == text
    assert " L3:89,-,90,-/#0 " in rules.view_text(rules.from_text(text), 0)


# --- moves ------------------------------------------------------------------------------------


def test_77_move_texts_as_the_page_counts_them():
    assert rules.NUM_MOVES == len(rules.MOVE_TEXTS) == len(set(rules.MOVE_TEXTS)) == 77
    kinds = Counter(
        t.split()[0] + ("3" if t.startswith("take ") and len(t) == 8 else "")
        for t in rules.MOVE_TEXTS
    )
    assert kinds == {
        "take3": 10,
        "take": 15,
        "take2": 5,
        "reserve": 15,
        "buy": 15,
        "return": 6,
        "noble": 10,
        "pass": 1,
    }
    for i, text in enumerate(rules.MOVE_TEXTS):
        assert rules.MOVE_IDS[text] == i == parse_move(text)
        assert rules.move_text(i) == text


def test_the_move_id_layout_is_stable():
    # The environment's action space: these ids must never change.
    fixed = {
        0: "take wbg",
        9: "take grk",
        10: "take wb",
        19: "take rk",
        20: "take w",
        24: "take k",
        25: "take2 w",
        29: "take2 k",
        30: "reserve 1.0",
        41: "reserve 3.3",
        42: "reserve deck 1",
        44: "reserve deck 3",
        45: "buy 1.0",
        56: "buy 3.3",
        57: "buy r0",
        59: "buy r2",
        60: "return w",
        65: "return y",
        66: "noble 1",
        75: "noble 10",
        76: "pass",
    }
    assert {i: rules.MOVE_TEXTS[i] for i in fixed} == fixed
    assert rules.PASS == 76


@pytest.mark.parametrize("text", [START, AFTER])
def test_legal_moves_are_sorted_texts_of_the_ascending_ids(text):
    state = rules.from_text(text)
    ids = state.legal_move_ids()
    assert ids == sorted(set(ids))
    moves = rules.legal_moves(state)
    assert moves == sorted(rules.MOVE_TEXTS[i] for i in ids)
    assert [rules.move_id(state, m) for m in moves] == sorted(ids, key=rules.move_text)


@pytest.mark.parametrize(
    ("move", "hint"),
    [
        ("Take wbg", "did you mean 'take wbg'?"),
        ("take  wbg", "did you mean 'take wbg'?"),
        (" pass", "did you mean 'pass'?"),
        ("pass\n", "did you mean 'pass'?"),
        ("take bwg", "colours are written in the order w b g r k: 'take wbg'"),
        ("take wbgr", "take names 1 to 3 different colours"),
        ("take y", "never gold"),
        ("take ww", "take names 1 to 3 different colours"),
        ("take2 y", ""),
        ("take2", ""),
        ("reserve 1.4", ""),
        ("reserve 4.0", ""),
        ("reserve deck 0", ""),
        ("reserve 1", ""),
        ("buy r3", ""),
        ("buy 1-0", ""),
        ("return z", ""),
        ("noble 0", ""),
        ("noble 11", ""),
        ("noble 01", ""),
        ("", ""),
        ("76", ""),
    ],
)
def test_malformed_moves_quote_the_input(move, hint):
    state = rules.from_text(START)
    with pytest.raises(InvalidNotationError) as err:
        rules.play(state, move)
    message = str(err.value)
    assert repr(move) in message and "expected" in message and "take2 <c>" in message
    assert hint in message
    assert rules.to_text(state) == START


@pytest.mark.parametrize("move", [None, 5, 76, b"pass", ["pass"]])
def test_a_move_is_a_string(move):
    with pytest.raises(InvalidNotationError, match="a move must be a string"):
        rules.play(rules.from_text(START), move)


def test_move_text_of_bad_ids():
    for bad in (-1, 77, "3", 2.0, None):
        with pytest.raises(ValueError, match="a move id is a whole number from 0 to 76"):
            rules.move_text(bad)


def test_an_illegal_move_lists_the_legal_ones():
    with pytest.raises(rules.IllegalMoveError) as err:
        rules.play(rules.from_text(START), "buy 1.0")
    message = str(err.value)
    assert "'buy 1.0'" in message and START in message
    assert "expected one of: reserve 1.0, reserve 1.1," in message and "(30 in all)" in message


# --- positions: the grammar and the orders (check 1) --------------------------------------------


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "expected 'splendor <n> turn:<t>"),
        ("splendor", "expected 'splendor <n> turn:<t>"),
        ("Splendor 2", "expected 'splendor <n> turn:<t>"),
        (START.replace("splendor 2", "splendor 5"), "the player count '5' must be 2, 3 or 4"),
        (START.replace("splendor 2", "splendor 02"), "the player count '02' must be 2, 3 or 4"),
        (START.replace(" P1:w0b0g0r0k0y0/-/-/-", ""), "expected 13 fields for 2 players, got 12"),
        (START + " P2:w0b0g0r0k0y0/-/-/-", "expected 13 fields for 2 players, got 14"),
        (START.replace("turn:0", "turn:00"), "field 'turn:00': expected turn:<completed turns>"),
        (START.replace("turn:0", "turn:-1"), "field 'turn:-1'"),
        (START.replace("turn:0", "round:0"), "field 'round:0': expected turn:"),
        (START.replace("move:0", "move:x"), "field 'move:x': expected move:<seat> or move:-"),
        (START.replace("phase:main", "phase:play"), "expected phase:<main|return|noble|over>"),
        (START.replace("final:no", "final:No"), "expected final:<yes|no>"),
        (START.replace("w4b4g4r4k4y5", "w4b4g4r4k4"), "expected supply:w<N>b<N>g<N>r<N>k<N>y<N>"),
        (START.replace("w4b4g4r4k4y5", "b4w4g4r4k4y5"), "field 'supply:b4w4g4r4k4y5'"),
        (
            START.replace("nobles:1,2,3", "nobles:3,1,2"),
            "the table's nobles 3,1,2 must be in ascending",
        ),
        (START.replace("nobles:1,2,3", "nobles:1,,2"), "field 'nobles:1,,2'"),
        (
            START.replace("L1:25,23,31,37/", "L1:25,23,31/"),
            "expected L1:<slot>,<slot>,<slot>,<slot>/",
        ),
        (START.replace("L1:25,", "L1:0,"), "field 'L1:0,"),
        (START.replace("L2:", "L3:", 1), "expected L2:"),
        (START.replace("P0:w0b0g0r0k0y0/-/-/- P1:", "P1:w0b0g0r0k0y0/-/-/- P0:"), "expected P0:"),
        (AFTER.replace("79*,31", "79**,31"), "expected P1:<tokens>/<purchased ids>/<hand>"),
        (AFTER.replace("79*,31", "*79,31"), "field 'P1:"),
        (AFTER.replace("79*,31", "79*;31"), "field 'P1:"),
        (START.replace("P0:w0b0g0r0k0y0/-/-/-", "P0:w0b0g0r0k0y0/-/-"), "field 'P0:"),
        (START.replace("phase:main", "phase:over"), "a finished game shows move:-, not move:0"),
        (START.replace("move:0", "move:-"), "move:- belongs to phase:over, not phase:main"),
    ],
)
def test_the_grammar(text, why):
    bad_position(text, why)


def test_ascending_purchases_and_nobles():
    text = make(players=["w0b0g0r0k0y0/1,9/-/-"])
    bad_position(text.replace("/1,9/", "/9,1/"), "P0's purchased cards 9,1 must be in ascending")
    text = make(players=["w0b0g0r0k0y0/1,2,3,4,9,10,11,12,17,18,19,20/-/3,5"], nobles="2")
    bad_position(text.replace("/3,5", "/5,3"), "P0's nobles 5,3 must be in ascending")


@pytest.mark.parametrize("bad", [None, 5, b"splendor", ["splendor"]])
def test_a_position_is_a_string(bad):
    bad_position(bad, "a position must be a string")


# --- positions: checks 2-9 -----------------------------------------------------------------------


def test_check_2_tokens_per_colour_and_gold():
    bad_position(
        START.replace("supply:w4", "supply:w5"),
        "colour w: supply and players hold 5 tokens, the table has 4 (check 2)",
    )
    bad_position(
        START.replace("y5", "y4"),
        "gold: supply and players hold 4 tokens, the table has 5 (check 2)",
    )
    bad_position(START.replace("P1:w0", "P1:w1"), "colour w: supply and players hold 5")


def test_check_3_cards():
    bad_position(
        START.replace("/28,39,", "/25,39,"),
        "card 25 is both in the L1 market and in the L1 deck (check 3)",
    )
    bad_position(
        START.replace("/28,39,", "/91,39,"), "the L1 deck: card id 91 is not 1 to 90 (check 3)"
    )
    bad_position(START.replace("/28,39,", "/39,"), "cards 28 are missing (check 3)")
    bad_position(
        START.replace("L1:25,", "L1:60,").replace("L2:60,", "L2:25,"),
        "the L1 market holds card 60 of level 2 (check 3)",
    )
    bad_position(
        START.replace("L1:25,23,", "L1:25,-,").replace("/28,", "/23,28,"),
        "L1 has an empty market slot while its deck holds cards (check 3)",
    )
    text = make(players=["w0b0g0r0k0y3/-/1,2,3/-"])
    assert "L1:4,5,6,7/8,9," in text
    four = text.replace("/1,2,3/", "/1,2,3,8/").replace("/8,9,", "/9,")
    bad_position(four, "P0 holds 4 reserved cards, at most 3 (check 3)")


def test_check_4_nobles():
    bad_position(
        START.replace("nobles:1,2,3", "nobles:1,2,3,4"),
        "2 players have 3 different nobles on the table or owned, not 1,2,3,4 (check 4)",
    )
    bad_position(START.replace("nobles:1,2,3", "nobles:1,2"), "not 1,2 (check 4)")
    bad_position(
        START.replace("nobles:1,2,3", "nobles:1,2,11"),
        "noble ids are 1 to 10, got 1,2,11 (check 4)",
    )
    bad_position(
        START.replace("nobles:1,2,3", "nobles:1,2").replace(
            "P0:w0b0g0r0k0y0/-/-/-", "P0:w0b0g0r0k0y0/-/-/3"
        ),
        "P0 owns noble 3 without meeting its requirement (check 4)",
    )


def test_check_5_turn_and_mover():
    bad_position(
        make(turn=3).replace("turn:3", "turn:201"),
        "turn 201 is past the cap of 200 turns (check 5)",
    )
    bad_position(
        make(turn=3).replace("move:1", "move:0"), "at turn 3 seat 1 moves, not 0 (check 5)"
    )
    bad_position(
        make(turn=3).replace("turn:3 move:1", "turn:200 move:0"),
        "at turn 200 the game is over by the cap (check 5)",
    )
    bad_position(make(3, turn=4).replace("move:1", "move:3"), "at turn 4 seat 1 moves, not 3")


def test_check_6_token_limit():
    ten = "w2b2g2r2k2y0/-/-/-"
    bad_position(
        make(players=[ten]).replace("P0:w2", "P0:w3").replace("supply:w2", "supply:w1"),
        "P0 holds 11 tokens, more than 10 (check 6)",
    )
    bad_position(
        make(players=[ten]).replace("phase:main", "phase:return"),
        "in phase return the mover holds 11 to 13 tokens, P0 10 (check 6)",
    )
    text = make(players=[ten]).replace("P0:w2", "P0:w3").replace("supply:w2", "supply:w1")
    assert rules.from_text(text.replace("phase:main", "phase:return")).phase == 1


def test_check_7_the_noble_phase():
    # P0's bonuses w4 b4 g4 meet nobles 3 (b4 g4) and 5 (w4 b4), not 1 (r4 k4).
    text = make(players=["w0b0g0r0k0y0/1,2,3,4,9,10,11,12,17,18,19,20/-/-"], nobles="1,3,5")
    assert rules.legal_moves(rules.from_text(text.replace("phase:main", "phase:noble"))) == [
        "noble 3",
        "noble 5",
    ]
    one = text.replace("nobles:1,3,5", "nobles:1,2,5").replace("phase:main", "phase:noble")
    bad_position(
        one, "in phase noble the mover qualifies for at least 2 nobles on the table (check 7)"
    )


def test_check_8_points_and_final():
    rich = "w0b0g0r0k0y0/74,78,82/-/-"
    text = make(3, [EMPTY, rich], turn=2, final="yes")
    bad_position(
        text.replace("turn:2 move:2", "turn:3 move:0"),
        "P1 has 15 points but does not sit before the mover (check 8)",
    )
    bad_position(
        make(players=[rich], turn=1, final="yes").replace("final:yes", "final:no"),
        "final:yes exactly when a player other than the mover has 15 points (check 8)",
    )
    bad_position(make(turn=1).replace("final:no", "final:yes"), "final:yes exactly when")


def test_check_9_over():
    rich = "w0b0g0r0k0y0/74,78,82/-/-"
    ended = make(players=[rich], turn=2, phase="over", final="yes")
    assert rules.winner(rules.from_text(ended)) == 0
    bad_position(
        ended.replace("turn:2", "turn:3"),
        "a game over at its end has a turn that is a positive multiple of 2 (check 9)",
    )
    bad_position(
        ended.replace("final:yes", "final:no"),
        "a finished game shows final:yes exactly when someone has 15 points (check 8)",
    )
    bad_position(
        make(turn=2).replace("move:0 phase:main", "move:- phase:over"),
        "a game over with final:no is at turn 200 or in a deadlock (check 9)",
    )
    assert rules.is_truncated(rules.from_text(make(turn=200, phase="over")))


def test_check_9_a_deadlock_is_over():
    stuck = make(
        players=["w4b4g2r0k0y0/-/1,26,27/-", "w0b0g2r4k4y0/-/29,30,36/-"],
        rows={1: "13,14,20,21", 2: "42,50,53,59", 3: "71,73,75,79"},
        turn=1,
        phase="over",
    )
    state = rules.from_text(stuck)
    assert rules.is_over(state) and rules.winner(state) is None and not rules.is_truncated(state)
    bad_position(
        stuck.replace("move:- phase:over", "move:1 phase:main"),
        "the position is a deadlock, so the game is over (check 9)",
    )


def test_a_long_input_is_cut_in_the_message():
    text = START + " P2:" + "x" * 5000
    with pytest.raises(InvalidNotationError) as err:
        rules.from_text(text)
    assert len(str(err.value)) < 1000 and re.search(r"\(5,\d{3} characters\)", str(err.value))
