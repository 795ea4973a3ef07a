"""Move text and position text (§9): round trips, and every error case, each quoting the
input and saying what was expected."""

from __future__ import annotations

import pytest
from test_talat_perft import A, B, C, D

from talat_env import rules
from talat_env.rules import IllegalMoveError, InvalidNotationError
from talat_env.rules.board import NUM_MOVES, PASS
from talat_env.rules.notation import parse_move, quote

#: C after white's gw d3-c2: two frozen boards, the game is over.
OVER = (
    "3p wb*:wL6.wS6.wL3/...../...wM3./.bS4.../.bS6.bL6. bg:.bL4.../...../.gM6.gL6gS4/....bL3/"
    ".gS3gL3.. gw*:.gL4.gM3./.wM6.../....gM4/wS4wM4wL4../..... over - w=bM3,bS3,gS6 b=- "
    "g=bM4,bM6,wS3"
)
#: A 3-player set-up after w, b, g, w have placed: black to place.
SETUP3 = (
    "3p wb:...../...../...../...../..wL6.wS4 bg:...../...../...../...../bS3.... "
    "gw:...../...../...../...../.gM4... place b w=- b=- g=-"
)
#: A 2-player set-up after 8 Zihin placements and 2 own ones: white to place.
SETUP2 = (
    "2p wb:...bM3./...../...../...../.wL6... bg:gL3.gM4gS3gL6/...../...../...../..... "
    "gw:...../...../...../...../gL4gM6gS6.gM3 place w w=- b=-"
)
POSITIONS = [rules.initial_text(3), rules.initial_text(2), A, B, C, D, OVER, SETUP3, SETUP2]


# --- moves ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", POSITIONS)
def test_every_legal_move_has_one_canonical_text_that_reads_back(text):
    state = rules.from_text(text)
    ids = state.legal_ids()
    texts = [rules.move_text(state, i) for i in ids]
    assert len(set(texts)) == len(ids)
    assert rules.legal_moves(state) == sorted(texts)
    assert all(rules.move_id(state, t) == i for t, i in zip(texts, ids, strict=True))


def test_legal_moves_are_sorted_by_code_point():
    moves = rules.legal_moves(rules.from_text(A))
    assert moves == sorted(moves) and moves[0].startswith("gw:")


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("WB:L6@C1", "wb:L6@c1"),
        (" wb:l6@c1\n", "wb:L6@c1"),
        ("\tgw:D4-c3 ", "gw:d4-c3"),
        ("PASS", "pass"),
    ],
)
def test_case_and_surrounding_whitespace_are_ignored(typed, canonical):
    assert parse_move(typed) == parse_move(canonical)


def test_placement_step_capture_and_pass_ids():
    s = rules.initial_state(3)
    assert rules.move_id(s, "wb:L6@c1") == 0 * 225 + 2 * 9 + 8
    assert rules.move_id(s, "gw:S3@a5") == 2 * 225 + 20 * 9 + 0
    a = rules.from_text(A)
    # wb d5 (white M4 on wb, up): straight forward is dir 1... it is on rank 5, so take b4.
    assert rules.move_id(a, "wb:b4-b5") == 675 + (0 * 25 + 16) * 5 + 1
    assert rules.move_text(a, PASS) == "pass"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expected <board>"),
        ("wb", "expected <board>"),
        ("wb:", "expected <board>"),
        ("wb:c1", "expected <board>"),
        ("wb:c1--c2", "expected <board>"),
        ("wb:c1 - c2", "expected <board>"),
        ("wb:c1-c2-c3", "expected <board>"),
        ("wbL6@c1", "expected <board>"),
        ("passs", "expected <board>"),
        ("wb:c1–c2", "expected <board>"),  # an en dash
        ("wb:ｃ1-c2", "expected <board>"),  # a full-width letter
        ("xy:c1-c2", "'xy' is not a board"),
        ("ww:L6@c1", "'ww' is not a board"),
        ("wb:L5@c1", "'L5' is not a tower type"),
        ("wb:X6@c1", "'X6' is not a tower type"),
        ("wb:L6@c6", "'c6' is not a square"),
        ("wb:f1-f2", "'f1' is not a square"),
        ("wb:c1xc0", "'c0' is not a square"),
    ],
)
def test_malformed_moves_are_rejected_with_the_input_quoted(text, message):
    with pytest.raises(InvalidNotationError, match=message) as err:
        parse_move(text)
    assert repr(text) in str(err.value)
    with pytest.raises(InvalidNotationError):
        rules.play(rules.from_text(A), text)


@pytest.mark.parametrize("value", [None, 5, b"wb:c1-c2", ["pass"]])
def test_a_move_must_be_a_string(value):
    with pytest.raises(InvalidNotationError, match="must be a string"):
        rules.play(rules.from_text(A), value)


@pytest.mark.parametrize(
    ("position", "move", "why"),
    [
        (A, "wb:a1-a2", "wb a2 holds bS4: a capture is written with 'x'"),
        (A, "wb:b3xc4", "wb c4 is empty: a step is written with '-'"),
        (A, "wb:b3-a3", "sideways only to capture"),
        (A, "wb:b3-b5", "moves one square forward"),
        (A, "wb:b3-b2", "moves one square forward"),
        (A, "wb:d1xc1", "no tower stands on wb d1"),
        (A, "wb:e4-e3", "does not move the bL6"),
        (A, "bg:c4-c3", "w does not move the gL4 on bg c4"),
        (A, "wb:b3xb4", "own towers are never captured"),
        (A, "wb:d2xe2", "wM3 does not beat bM4"),
        (A, "wb:d2xe3", "no tower stands|is empty"),
        (A, "pass", "may pass only"),
        (A, "wb:L6@c1", "set-up is over"),
        (C, "wb:a5xb4", "frozen"),
        (OVER, "pass", "the game is over"),
        (rules.initial_text(3), "wb:L6@c5", "on an empty square of the start lines wb rank 1"),
        (rules.initial_text(3), "bg:L6@c1", "start lines"),
        (rules.initial_text(3), "wb:c1-c2", "every move is a placement"),
        (SETUP3, "wb:S3@c5", "black's S3 is not left to place"),
        (SETUP3, "gw:L6@a5", "on an empty square of the start lines wb rank 5 and bg rank 1"),
        (SETUP3, "bg:S3@a1", "holds bS3 already"),
        (SETUP2, "wb:L6@a1", "white's L6 is not left to place"),
    ],
)
def test_illegal_moves_name_the_move_the_position_and_why(position, move, why):
    state = rules.from_text(position)
    with pytest.raises(IllegalMoveError, match=why) as err:
        rules.play(state, move)
    message = str(err.value)
    assert repr(move) in message and rules.to_text(state) in message
    if state.legal_ids():
        assert "expected one of: " in message


def test_a_capture_the_type_does_not_allow_says_so():
    # In A the black M6 on wb d3 stands straight ahead of the white M3 on d2.
    with pytest.raises(IllegalMoveError, match=r"wM3 does not beat bM6 \(§5.2\)"):
        rules.play(rules.from_text(A), "wb:d2xd3")


def test_move_text_checks_the_id():
    state = rules.from_text(A)
    for bad in (-1, NUM_MOVES, True, 3.0, "1"):
        with pytest.raises(ValueError, match="move id is a whole number"):
            rules.move_text(state, bad)
    with pytest.raises(IllegalMoveError, match="no tower stands"):
        rules.move_text(state, 675 + 10 * 5 + 1)  # wb a3 is empty
    # The white M4 on wb d5 has no square straight ahead.
    with pytest.raises(IllegalMoveError, match="off the board"):
        rules.move_text(state, 675 + (0 * 25 + 23) * 5 + 1)
    # Ids that name a move but are not legal still get their text.
    assert rules.move_text(state, 675 + (0 * 25 + 23) * 5 + 3) == "wb:d5-c5"


# --- positions -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", POSITIONS)
def test_position_text_round_trips(text):
    state = rules.from_text(text)
    assert rules.to_text(state) == text
    assert repr(state) == f"State({text!r})"
    assert rules.from_text(rules.to_text(state)) == state


def test_input_may_use_any_whitespace_and_pile_order():
    messy = "\n " + A.replace(" ", "\t  ").replace("g=bS3,wS6", "g=wS6,bS3") + "  \n"
    assert rules.to_text(rules.from_text(messy)) == A


def test_diagram_shows_the_boards_scores_and_mover():
    text = str(rules.from_text(C))
    lines = text.splitlines()
    assert lines[0].split() == ["wb", "(frozen)", "bg", "gw"]
    assert lines[1].startswith("5 wL6  .  wS6  .  wL3")
    assert lines[5].startswith("1  .  bS6  .  bL6  .")
    w, b, g = rules.scores(rules.from_text(C))
    assert "w (white) to move" in text and f"scores: w {w}, b {b}, g {g}" in text
    assert lines[-1] == C
    assert "game over: " in str(rules.from_text(OVER))
    assert "to place a Zihin (grey) tower" in str(rules.initial_state(2))


def _swap(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


_BOARDS_A = A.split()[1:4]

BAD_POSITIONS = [
    # field count and player count
    ("", "player count"),
    ("4p " + A[3:], "player count, '2p' or '3p', got '4p'"),
    ("3P " + A[3:], "player count"),
    (A.rsplit(" ", 1)[0], "has 9 fields, got 8"),
    (B + " g=-", "has 8 fields, got 9"),
    # boards
    (
        _swap(A, _BOARDS_A[0] + " " + _BOARDS_A[1], _BOARDS_A[1] + " " + _BOARDS_A[0]),
        "order wb, bg, gw",
    ),
    (_swap(A, "wb:", "wb;"), "must be a board"),
    (_swap(A, "wb:", "xx:"), "must be a board"),
    (_swap(A, "wb:", "wb**:"), "must be a board"),
    (_swap(A, "...wM4./", "...wM4/"), "has 4 cells, expected 5"),
    (_swap(A, "...wM4./", "...wM4../"), "has 6 cells, expected 5"),
    (_swap(A, "...wM4./", ""), "4 ranks, expected 5"),
    (_swap(A, "wM4", "wX4"), "'wX4' is not a cell"),
    (_swap(A, "wM4", "wM5"), "is not a cell"),
    (_swap(A, "wM4", "WM4"), "is not a cell"),
    (_swap(A, "wM4", "w M4"), "fields|is not a cell"),
    (_swap(A, "wM4", "gM4"), "grey towers play only on bg and gw"),
    (_swap(A, "wM6....", "wS3...."), "tower wS3 appears twice"),
    (_swap(A, "b=gM4", "b=gM4,bS4"), "holds its own tower bS4"),
    (_swap(A, "b=gM4", "b=gM4,wS3"), "wS3 appears twice"),
    # phase, to-move, piles
    (_swap(A, " play w ", " playing w "), "phase must be place, play or over"),
    (_swap(A, " play w ", " play x "), "to-move must be one of w, b, g or '-'"),
    (_swap(A, " play w ", " play - "), "'-' exactly when the phase is over"),
    (_swap(OVER, " over - ", " over w "), "'-' exactly when the phase is over"),
    (_swap(B, " play b ", " play g "), "Zihin in a 2-player game and never moves"),
    (_swap(A, "w=- ", "w= "), "is not a tower"),
    (_swap(A, "w=- ", "x=- "), "pile 1 must be w="),
    (_swap(A, "w=- b=gM4", "b=gM4 w=-"), "pile 1 must be w="),
    (_swap(A, "b=gM4", "b=gM4,"), "is not a tower"),
    (_swap(A, "b=gM4", "b=gX4"), "'gX4' is not a tower"),
    # set-up
    (_swap(SETUP3, "wb:", "wb*:"), "no board is frozen during set-up"),
    (_swap(SETUP3, "b=-", "b=wS3"), "nothing is captured during set-up"),
    (
        _swap(SETUP3, "wb:...../", "wb:....bS4/"),
        "w, b, g have placed 2, 2, 1 towers, not 2, 2, 1|to move",
    ),
    (_swap(SETUP3, "wb:...../...../", "wb:...../....wS6/"), "wS6 on wb e4 is off its start line"),
    (_swap(SETUP3, ".gM4...", ".gM4gM3.."), "have placed 2, 2, 1 towers, not 2, 1, 2"),
    (_swap(SETUP3, " place b ", " place g "), "the next placement is b's"),
    (_swap(SETUP2, " place w ", " place b "), "the next placement is w's"),
    (
        _swap(SETUP2, "wb:...bM3./", "wb:...../"),
        "after 1 own placements w and b have placed 1 and 0|next placement",
    ),
    (_swap(SETUP2, "gL4gM6gS6.gM3", "gL4gM6gS6gS4gM3"), "only 8 grey towers are placed, 9 stand"),
    (_swap(SETUP2, "gL4gM6gS6.gM3", "gL4gM6gS6.."), "own towers are placed only after the 8 Zihin"),
    (_swap(rules.initial_text(3), "place w", "place b"), "the next placement is w's"),
    # play and over
    (_swap(A, "b=gM4", "b=-"), "missing gM4"),
    (_swap(B, "w=bM3,bS4,gM3", "w=bM3,bS4"), "exactly 8 grey towers"),
    (_swap(B, "w=bM3,bS4,gM3", "w=bM3,bS4,gM3,gS3"), "gS3 appears twice"),
    (_swap(A, "wb:", "wb*:"), r"board wb is not frozen \(§6\), so it must not have a '\*'"),
    (_swap(C, "wb*:", "wb:"), r"board wb is frozen \(§6\), so it needs a '\*'"),
    (_swap(OVER, "gw*:", "gw:"), "board gw is frozen"),
    (
        _swap(_swap(OVER, " over - ", " play w "), "", ""),
        "2 boards are frozen, so the game is over",
    ),
    (_swap(C, " play w ", " over - "), "over only with two frozen boards, 1 are"),
]


@pytest.mark.parametrize(("text", "message"), BAD_POSITIONS)
def test_bad_positions_are_rejected_quoting_the_text(text, message):
    with pytest.raises(InvalidNotationError, match=message) as err:
        rules.from_text(text)
    assert quote(text) in str(err.value)


@pytest.mark.parametrize("value", [None, 3, b"3p", ["3p"]])
def test_a_position_must_be_a_string(value):
    with pytest.raises(InvalidNotationError, match="must be a string"):
        rules.from_text(value)


def test_long_input_is_cut_in_messages():
    text = A + " x" * 500
    with pytest.raises(InvalidNotationError) as err:
        rules.from_text(text)
    message = str(err.value)
    assert len(message) < 600 and "(1,1" in message and "characters)" in message


def test_every_tower_placed_means_the_phase_is_play():
    s = rules.initial_state(3)
    while s.phase == 0:
        moves = rules.legal_moves(s)
        s = rules.play(s, moves[3 % len(moves)])
    full = rules.to_text(s)
    with pytest.raises(InvalidNotationError, match="all 27 towers are placed already"):
        rules.from_text(full.replace(" play w ", " place w "))
