"""Step notation and SPN: round trips and every error case of §7."""

from __future__ import annotations

import pytest
from conftest import spn

from splut_env import rules
from splut_env.rules import IllegalStepError, InvalidNotationError
from splut_env.rules.board import NUM_STEP_IDS
from splut_env.rules.notation import parse_step, step_text


def test_step_text_round_trips_for_every_step_id():
    texts = [step_text(i) for i in range(NUM_STEP_IDS)]
    assert len(set(texts)) == NUM_STEP_IDS
    assert all(parse_step(t) == i for i, t in enumerate(texts))
    assert {"Dn", "Tw", "Twp", "Tnxe", "We", "We@c5"} <= set(texts)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expected <piece"),
        ("Xn", "expected <piece"),
        ("Dq", "expected <piece"),
        ("dn", "expected <piece"),
        ("Tnx", "expected <piece"),
        ("We@j5", "expected <piece"),
        ("We@a1", "a1 is not on the board"),
        ("Tn@e5", "only a wizard"),
        ("Wnp", "only a troll"),
        ("Dnxe", "only a troll"),
    ],
)
def test_malformed_steps_are_rejected_with_the_input_quoted(text, message):
    with pytest.raises(InvalidNotationError, match=message) as err:
        parse_step(text)
    assert repr(text) in str(err.value)


def test_illegal_step_names_the_step_the_position_and_the_legal_ones():
    state = rules.from_spn(rules.initial_spn(2))
    with pytest.raises(IllegalStepError) as err:
        rules.play(state, "Ws")
    message = str(err.value)
    assert "'Ws'" in message and rules.initial_spn(2) in message
    assert "Dn, Tn, Wn" in message
    assert issubclass(IllegalStepError, ValueError) and issubclass(InvalidNotationError, ValueError)


def test_playing_after_the_game_is_over_is_illegal():
    over = rules.from_spn("S:c4,e5,- N:-,-,- R:a5,e1,g5,i5 - 10 0 - g5 -")
    assert rules.is_over(over) and rules.legal_steps(over) == []
    with pytest.raises(IllegalStepError, match="the game is over"):
        rules.play(over, "Wn")


@pytest.mark.parametrize(
    "text",
    [
        "S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -",
        "S:c4,e5,- N:-,-,- R:a5,e1,g5,i5 - 10 0 - g5 -",
        "S:-,-,- W:c6,f5,c7 N:f8,e9,h5 R:b4,c5,e6,i5 W 12 1 c5 e6 c5",
        "S:e2,f3,f2 W:b6,b4,b5 N:f7,f6,c7 E:g4,g7,g6 R:a5,e1,e9,h4 N 11 1 x - h4",
    ],
)
def test_spn_round_trips(text):
    assert rules.to_spn(rules.from_spn(text)) == text
    assert repr(rules.from_spn(text)) == f"State({text!r})"


def test_spn_output_is_canonical():
    messy = "  S:d2,f2,e2   N:f8,d8,e8 R:i5,e9,e1,a5 S 1 1 - - -  "
    assert rules.to_spn(rules.from_spn(messy)) == rules.initial_spn(2)
    moved = "S:e4,f2,- N:g7,d8,- R:c7,a5,e9,g3 S 10 2 - g3,c7 c7,g3"
    assert rules.to_spn(rules.from_spn(moved)).endswith("R:a5,c7,e9,g3 S 10 2 - c7,g3 c7,g3")


GOOD = spn("e4,f2,-", "g7,d8,-", "a5,c7,e9,g3")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expected '<seat>"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - -", "expected '<seat>"),
        ("S:d2,f2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -", "expected <wizard>,<troll>,<dwarf>"),
        ("S:d2,f2,z2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -", "'z2' is not a square"),
        ("S:d2,f2,a1 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -", "'a1' is not a square"),
        ("S:d2,f2,e2 W:b6,b4,b5 R:a5,e1,e9,i5 S 1 1 - - -", "expected S\\+N, S\\+W\\+N"),
        ("N:f8,d8,e8 S:d2,f2,e2 R:a5,e1,e9,i5 S 1 1 - - -", "expected S\\+N, S\\+W\\+N"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9 S 1 1 - - -", "exactly 4 rocks, got 3"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5,e5 S 1 1 - - -", "exactly 4 rocks, got 5"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,e9 S 1 1 - - -", "names a square twice"),
        ("S:d2,f2,e2 N:f8,d8,d2 R:a5,e1,e9,i5 S 1 1 - - -", "both on d2"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,e2 S 1 1 - - -", "both on e2"),
        ("S:-,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 N 1 1 - - -", "without its wizard"),
        ("S:d2,-,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -", "troll is never removed"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 W 1 1 - - -", "'W' is not in the game"),
        ("S:-,-,- W:b6,b4,b5 N:f8,d8,e8 R:a5,e1,e9,i5 S 4 3 - - -", "'S' is out"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 Q 1 1 - - -", "to-move must be"),
        ("S:d2,f2,e2 N:-,-,- R:a5,e1,e9,i5 S 5 3 - - -", "only one wizard is left"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 0 1 - - -", "turn must be"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S x 1 - - -", "turn must be"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 5 4 - - -", "steps-left must be"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 5 0 - - -", "only for a finished game"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 3 - - -", "turn 1 has 1 step"),
        ("S:d2,f2,e2 N:-,-,- R:a5,e1,e9,i5 - 5 1 - - -", "steps-left must be 0"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 5 3 e5 - -", "lev square e5"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 5 3 e1 - -", "lev square e1"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 5 3 e1 e1 e1", "lev square e1"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 5 3 q - -", "'q' is not a square"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 5 3 - e5 -", "e5 holds no rock"),
        ("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 5 3 - - e5", "e5 holds no rock"),
        ("S:d2,f2,e2 N:-,-,- R:a5,e1,e9,i5 - 5 0 - - e1", "'-' for <lev> and <moved>"),
        ("X:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -", "expected '<seat>"),
        ("S:d2,f2,e2 N:f8,d8,e8 Q:a5,e1,e9,i5 S 1 1 - - -", "expected the rocks field"),
        ("S:a5,e1,- N:g5,e2,b5 R:c7,e9,h5,i5 S 10 3 - - -", "has no legal step"),
    ],
)
def test_bad_spn_is_rejected_with_the_input_quoted(text, message):
    with pytest.raises(InvalidNotationError, match=message) as err:
        rules.from_spn(text)
    assert repr(text) in str(err.value)


def test_spn_must_be_a_string():
    with pytest.raises(InvalidNotationError, match="must be a string"):
        rules.from_spn(None)  # type: ignore[arg-type]


def test_str_of_a_state_draws_the_diamond_and_gives_the_spn():
    text = str(rules.from_spn(GOOD))
    lines = text.splitlines()
    assert lines[0].startswith("9") and "()" in lines[0]  # the rock on e9
    assert "WS" in text and "TN" in text
    assert lines[-1] == GOOD
