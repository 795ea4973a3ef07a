"""Rule cases, section by section of SPLUT_RULES.md; every ruling has at least one case.

Positions are inline SPN; ``spn(S, N, rocks, ...)`` builds a 2-player one (see conftest).
"""

from __future__ import annotations

import pytest
from conftest import after, legal, spn

from splut_env import rules
from splut_env.rules.board import NEIGHBOUR, NUM_SQUARES, SQUARE_NAMES, SQUARE_XY
from splut_env.rules.engine import State

BASE = dict(s="e4,f2,-", n="g7,d8,-")

# --- §1 board and coordinates ------------------------------------------------------------


def test_board_has_41_squares_in_a_diamond():
    assert NUM_SQUARES == 41
    per_rank = [sum(1 for f, r in SQUARE_XY if r == rank) for rank in range(9)]
    assert per_rank == [1, 3, 5, 7, 9, 7, 5, 3, 1]
    assert {"e1", "a5", "e9", "i5", "b4", "h6"} <= set(SQUARE_NAMES)
    assert "a1" not in SQUARE_NAMES and "d1" not in SQUARE_NAMES


def test_adjacency_is_orthogonal_and_symmetric():
    for sq in range(NUM_SQUARES):
        for d in range(4):
            t = NEIGHBOUR[d][sq]
            if t >= 0:
                (f1, r1), (f2, r2) = SQUARE_XY[sq], SQUARE_XY[t]
                assert abs(f1 - f2) + abs(r1 - r2) == 1
                assert NEIGHBOUR[d ^ 2][t] == sq


def test_only_the_four_tips_have_a_single_neighbour():
    singles = {
        SQUARE_NAMES[sq]
        for sq in range(NUM_SQUARES)
        if sum(NEIGHBOUR[d][sq] >= 0 for d in range(4)) == 1
    }
    assert singles == {"e1", "a5", "e9", "i5"}


# --- §2 pieces, seats and set-up ---------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "expected"),
    [
        (2, "S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -"),
        (3, "S:d2,f2,e2 W:b6,b4,b5 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - -"),
        (4, "S:d2,f2,e2 W:b6,b4,b5 N:f8,d8,e8 E:h4,h6,h5 R:a5,e1,e9,i5 S 1 1 - - -"),
    ],
)
def test_initial_positions(players, expected):
    assert rules.initial_spn(players) == expected


@pytest.mark.parametrize("players", [0, 1, 5, "2"])
def test_initial_position_rejects_other_player_counts(players):
    with pytest.raises(ValueError, match="2, 3 or 4"):
        rules.initial_spn(players)


def test_turn_order_is_clockwise_over_the_seats_in_play():
    s = rules.initial_state(4)
    order = []
    for step in ["Dn", "De", "De", "Ds", "Ds", "Ds", "Dw", "Dw", "Dw", "Dn"]:
        order.append(rules.to_spn(s).split()[5])
        s = rules.play(s, step)
    assert order == ["S", "W", "W", "N", "N", "N", "E", "E", "E", "S"]


# --- §3 turns and steps ------------------------------------------------------------------


def test_steps_per_turn_are_1_then_2_then_3():
    s = after(rules.initial_spn(2), "Dn")
    assert s.endswith("N 2 2 - - -")
    s = after(s, "Ds", "Ds")
    assert s.endswith("S 3 3 - - -")


def test_third_player_gets_three_steps_on_its_first_turn():
    s = after(rules.initial_spn(3), "Dn", "De", "De")
    assert s.split()[4:7] == ["N", "3", "3"]


def test_throw_ends_the_turn_at_once():
    start = spn("c4,e4,-", "g7,d8,-", "a5,e5,e9,i5", steps=3)
    assert after(start, "Tnxw").split()[3:6] == ["N", "11", "3"]


def test_pieces_never_step_onto_occupied_squares():
    # S wizard e4 between its troll e5 and N's dwarf e3; troll e5 next to the N wizard f5.
    start = spn("e4,e5,-", "f5,d8,e3", "a5,e1,e9,i5")
    steps = legal(start)
    assert "Wn" not in steps and "Ws" not in steps
    assert "Ts" not in steps and "Te" not in steps


def test_no_legal_step_forfeits_the_turn():
    # Ruling: after N's troll closes e2, S (wizard a5 behind N's dwarf b5, troll e1) has no
    # step: its turn is lost, counts as a turn, and N's next turn has no locked rock.
    start = spn("a5,e1,-", "g5,e3,b5", "c7,e9,h5,i5", to_move="N", turn=8, steps=1, moved="c7")
    assert after(start, "Ts") == spn(
        "a5,e1,-", "g5,e2,b5", "c7,e9,h5,i5", to_move="N", turn=10, steps=3
    )


def test_all_players_forfeiting_ends_the_game_with_no_winner(monkeypatch):
    # Ruling guard, believed unreachable by play: if no seat has a legal step, the game ends.
    state = rules.from_spn(spn(**BASE, rocks="a5,c7,e9,g3", steps=1))
    monkeypatch.setattr(State, "_can_step", lambda self: False)
    state.apply(state.legal_ids()[0])
    assert rules.is_over(state) and rules.winner(state) is None
    assert rules.to_spn(state).endswith("- 12 0 - - -")


# --- §4.1 wizard and levitation ----------------------------------------------------------


def test_wizard_levitates_a_rock_anywhere_on_the_board():
    start = spn(**BASE, rocks="a5,c7,e9,i5")
    assert "We@c7" in legal(start)
    assert after(start, "We@c7").startswith("S:f4,f2,- N:g7,d8,- R:a5,d7,e9,i5 S 10 2 d7 - d7")


def test_levitated_rock_needs_an_empty_square_on_the_board():
    # c7 -> d7 is blocked by N's dwarf, e9 cannot go north, a5 cannot go west.
    start = spn("e4,f2,-", "g7,d8,d7", "a5,c7,e9,i5")
    steps = legal(start)
    assert "We@c7" not in steps and "Wn@e9" not in steps and "Ww@a5" not in steps
    assert "Ws@c7" in steps


def test_levitated_rock_cannot_land_on_a_wizard():
    start = spn("e4,f2,-", "d7,d8,-", "a5,c7,e9,i5")
    assert "We@c7" not in legal(start)


def test_wizard_steps_into_the_square_its_rock_leaves():
    # Ruling: rock directly ahead (e5) moves on to e6 while the wizard takes e5.
    start = spn(**BASE, rocks="a5,e5,e9,i5")
    assert "Wn" not in legal(start) and "Wn@e5" in legal(start)
    assert after(start, "Wn@e5").startswith("S:e5,f2,- N:g7,d8,- R:a5,e6,e9,i5")


def test_rock_steps_into_the_square_the_wizard_leaves():
    # Ruling: rock directly behind (e3) follows into e4.
    start = spn(**BASE, rocks="a5,e3,e9,i5")
    assert after(start, "Wn@e3").startswith("S:e5,f2,- N:g7,d8,- R:a5,e4,e9,i5")


def test_rock_ahead_blocked_means_no_step():
    start = spn("e4,f2,-", "g7,d8,e6", "a5,e5,e9,i5")
    assert not any(s.startswith("Wn") for s in legal(start))


def test_locked_rock_cannot_be_levitated_but_can_be_thrown():
    start = spn("e4,c6,-", "g7,d8,-", "a5,c7,e9,i5", locked="c7")
    steps = legal(start)
    assert not any("@c7" in s for s in steps)
    assert "Tnxs" in steps


def test_locked_rock_stays_locked_after_being_pulled():
    # Ruling: pulled from c7 to c6 this turn, it is still locked (listed at c6 in both lists).
    start = spn("e4,c6,-", "g7,d8,-", "a5,c7,e9,i5", locked="c7")
    s = after(start, "Tsp")
    assert s.endswith("S 10 2 - c6 c6")
    assert not any("@c6" in x for x in legal(s))


def test_locked_rock_stays_locked_after_being_pushed():
    start = spn("e4,f2,c5", "g7,d8,-", "a5,c6,e9,i5", locked="c6")
    s = after(start, "Dn")
    assert s.endswith("c7 c7")
    assert not any("@c7" in x for x in legal(s))


def test_rock_pulled_this_turn_by_own_troll_may_be_levitated():
    start = spn("e4,c6,-", "g7,d8,-", "a5,c7,e9,i5")
    s = after(start, "Tsp")
    assert "We@c6" in legal(s)


def test_only_one_rock_per_turn_and_only_on_consecutive_steps():
    start = spn(**BASE, rocks="a5,c7,e9,g3")
    s = after(start, "We@c7")
    steps = legal(s)
    assert "We@d7" in steps and "Ws@d7" in steps
    assert not any("@g3" in x for x in steps)
    s2 = after(s, "We@d7")
    assert s2.endswith("S 10 1 e7 - e7")
    # A wizard step without levitation ends levitation for the turn...
    s3 = after(s, "Wn")
    assert s3.split()[6] == "x" and not any("@" in x for x in legal(s3))
    # ...and so does a step of another piece.
    s4 = after(s, "Tn")
    assert s4.split()[6] == "x" and not any("@" in x for x in legal(s4))


def test_levitation_may_start_on_any_step():
    start = spn(**BASE, rocks="a5,c7,e9,g3")
    s = after(start, "Tn", "Wn")
    assert s.split()[6] == "-" and "We@c7" in legal(s)


# --- §4.2 troll: pull and throw ----------------------------------------------------------


def test_pull_drags_the_rock_behind_into_the_vacated_square():
    start = spn("c4,e4,-", "g7,d8,-", "a5,e3,e9,i5")
    assert "Tnp" in legal(start) and "Tep" not in legal(start)
    assert after(start, "Tnp").startswith("S:c4,e5,- N:g7,d8,- R:a5,e4,e9,i5 S 10 2 - - e4")


def test_a_step_onto_a_rock_always_throws_and_never_pulls():
    # Ruling: rock e5 ahead and rock e3 behind; stepping onto e5 only offers throws.
    start = spn("c4,e4,-", "g7,d8,-", "a5,e3,e5,i5")
    steps = legal(start)
    assert "Tn" not in steps and "Tnp" not in steps
    assert {"Tnxn", "Tnxe", "Tnxs", "Tnxw"} <= set(steps)


def test_throw_direction_must_leave_the_trolls_square():
    # Ruling: from e5 the rock cannot go north (rock on e6) nor east (N's troll on f5); west
    # is free, and back south (the square the troll left) is always legal.
    start = spn("c4,e4,-", "g7,f5,-", "a5,e5,e6,i5")
    throws = sorted(s for s in legal(start) if s.startswith("Tnx"))
    assert throws == ["Tnxs", "Tnxw"]


def test_throw_off_the_board_direction_is_illegal():
    start = spn("c4,e8,-", "g7,c6,-", "a5,e1,e9,i5")
    assert [s for s in legal(start) if s.startswith("Tnx")] == ["Tnxs"]


def test_thrown_rock_stops_at_the_board_edge():
    start = spn("c4,e4,-", "g7,d8,-", "a5,e1,e5,i5")
    assert after(start, "Tnxe").startswith("S:c4,e5,- N:g7,d8,- R:a5,e1,h5,i5")


def test_thrown_rock_stops_before_a_troll_or_a_rock():
    start = spn("c4,e4,-", "g7,h5,-", "a5,e1,e5,i5")
    assert "R:a5,e1,g5,i5" in after(start, "Tnxe")
    start = spn("c4,e4,-", "g7,d8,-", "a5,e1,e5,h5")
    assert "R:a5,e1,g5,h5" in after(start, "Tnxe")


def test_splut_kills_the_wizard_and_removes_its_team():
    start = spn("c4,e4,-", "g5,d8,e8", "a5,e1,e5,i5")
    s = after(start, "Tnxe")
    assert s == "S:c4,e5,- N:-,-,- R:a5,e1,g5,i5 - 10 0 - g5 -"
    assert rules.winner(rules.from_spn(s)) == "S"


def test_thrown_rock_flies_over_dwarfs():
    start = spn("c4,e4,-", "h5,d8,f5", "a5,e1,e5,i5")
    s = after(start, "Tnxe")
    assert s.startswith("S:c4,e5,- N:-,-,- R:a5,e1,h5,i5")


def test_dwarf_on_the_landing_square_is_crushed():
    # Over f5's dwarf, stopped by the troll on h5: lands on g5 where N's dwarf stands.
    start = spn("c4,e4,f5", "g7,h5,g5", "a5,e1,e5,i5")
    s = after(start, "Tnxe")
    assert s.startswith("S:c4,e5,f5 N:g7,h5,- R:a5,e1,g5,i5 N")
    # Own dwarf at the edge: crushed too, its team plays on.
    start = spn("c4,e4,h5", "g7,d8,-", "a5,e1,e5,i5")
    assert after(start, "Tnxe").startswith("S:c4,e5,- N:g7,d8,- R:a5,e1,h5,i5 N")


def test_a_player_may_kill_its_own_wizard():
    start = spn("g5,e4,-", "b6,d8,-", "a5,e1,e5,i5")
    s = after(start, "Tnxe")
    assert s == "S:-,-,- N:b6,d8,- R:a5,e1,g5,i5 - 10 0 - g5 -"
    assert rules.winner(rules.from_spn(s)) == "N"


def test_locked_rocks_can_be_thrown_and_pushed():
    start = spn("c4,e4,e2", "g7,d8,-", "a5,e1,e5,i5", locked="e5")
    assert "Tnxe" in legal(start)


# --- §4.3 dwarf: push --------------------------------------------------------------------


def test_dwarf_pushes_the_whole_line_one_square():
    # d5 dwarf pushes e5 rock, f5 N wizard, g5 S troll one square east.
    start = spn("c4,g5,d5", "f5,d8,-", "a5,e1,e5,e9")
    s = after(start, "De")
    assert s.startswith("S:c4,h5,e5 N:g5,d8,- R:a5,e1,e9,f5 S 10 2 - - f5")


def test_push_needs_an_empty_square_after_the_line():
    # e5 dwarf, then f5 wizard, g5 rock, h5 troll: legal while i5 is empty...
    assert "De" in legal(spn("c4,h5,e5", "f5,d8,-", "a5,e1,g5,e9"))
    # ...not when a rock on i5 makes the line reach the edge.
    assert "De" not in legal(spn("c4,h5,e5", "f5,d8,-", "a5,e1,g5,i5"))


def test_push_hurts_nobody():
    start = spn("c4,f2,e3", "e4,d8,-", "a5,e1,e5,e9")
    s = after(start, "Dn")
    assert s.startswith("S:c4,f2,e4 N:e5,d8,- R:a5,e1,e6,e9")


def test_levitated_rock_is_blocked_by_a_dwarf():
    start = spn("e4,f2,d7", "g7,d8,-", "a5,c7,e9,i5")
    assert "We@c7" not in legal(start)


# --- §5 eliminations and end of game -----------------------------------------------------


def test_elimination_in_a_three_player_game_skips_the_dead_seat():
    start = "S:c4,e4,- W:g5,b4,- N:f8,d8,- R:a5,e1,e5,i5 S 10 3 - - -"
    s = after(start, "Tnxe")
    assert s == "S:c4,e5,- W:-,-,- N:f8,d8,- R:a5,e1,g5,i5 N 11 3 - g5 -"


def test_game_is_not_over_while_two_wizards_live():
    start = "S:c4,e4,- W:g5,b4,- N:f8,d8,- R:a5,e1,e5,i5 S 10 3 - - -"
    s = rules.from_spn(after(start, "Tnxe"))
    assert not rules.is_over(s) and rules.winner(s) is None


# --- §6 rock locking bookkeeping ---------------------------------------------------------


def test_rocks_moved_in_a_turn_are_locked_next_turn_only():
    start = spn(**BASE, rocks="a5,c7,e9,g3", steps=1)
    s = after(start, "We@c7")
    assert s.endswith("N 11 3 - d7 -")
    assert "Ww@d7" not in legal(s) and "Ww@g3" in legal(s)
    assert after(s, "Ww", "We", "Ww").endswith("S 12 3 - - -")


def test_a_rock_back_on_its_start_square_was_still_moved():
    start = spn(**BASE, rocks="a5,c7,e9,g3", steps=2)
    assert after(start, "We@c7", "Ww@d7").endswith("N 11 3 - c7 -")


def test_play_never_mutates_its_argument():
    state = rules.from_spn(spn(**BASE, rocks="a5,c7,e9,g3"))
    before = rules.to_spn(state)
    rules.play(state, "We@c7")
    assert rules.to_spn(state) == before


def test_state_copy_equality_and_hash():
    a = rules.from_spn(spn(**BASE, rocks="a5,c7,e9,g3"))
    b = State(rules.to_spn(a))
    assert a == b and hash(a) == hash(b)
    assert rules.play(a, "Wn") != a
