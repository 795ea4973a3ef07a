"""Rule cases, section by section of TALAT_RULES.md; every ruling has at least one case.

Positions are inline text; ``make(n, "wb:wM4@c2 ...")`` builds a position from the towers on
the boards (see there). Boards a test does not look at get a pair that keeps them unfrozen
(``LIVE``), so that the game goes on.
"""

from __future__ import annotations

import pytest

from talat_env import rules
from talat_env.rules.board import (
    BEATS,
    BOARD_COLOURS,
    BOARD_NAMES,
    COLOURS,
    NAME_CODE,
    NAME_SQUARE,
    NUM_TOWERS,
    TOWER_NAMES,
    TYPE_NAMES,
    VALUE_ORDER,
)
from talat_env.rules.engine import State, winning_seats
from talat_env.rules.frozen import CAN_MEET, decide, is_frozen
from talat_env.rules.notation import format_position

#: A related pair that can still meet, per board, to keep boards a test ignores unfrozen.
#: Types used: white S6 (wb) and M6 (gw), black M6 (wb) and S6 (bg), grey M6 (bg), S6 (gw).
LIVE = {
    "wb": "wb:wS6@e1 wb:bM6@e5",
    "bg": "bg:bS6@e1 bg:gM6@e5",
    "gw": "gw:gS6@e1 gw:wM6@e5",
}


def make(
    n: int,
    towers: str = "",
    *,
    live: str = "",
    to_move: str = "w",
    phase: str = "play",
    piles: dict[str, str] | None = None,
) -> str:
    """A position for ``n`` players with ``towers`` ('wb:wL6@c1 gw:gS3@a1 ...') on the
    boards, plus the ``LIVE`` pairs of the boards named in ``live`` ('bg gw'). In play, each
    tower not on a board nor in ``piles`` ({'w': 'bL6,gS3'}) goes to a pile: white's to
    black's, black's to grey's (2 players: white's), grey's to white's; with 2 players one
    grey tower stays out. The ``*`` marks are computed."""
    cells = [0] * 75
    items = towers.split() + [t for b in live.split() for t in LIVE[b].split()]
    for item in items:
        board, rest = item.split(":")
        name, sq = rest.split("@")
        cells[BOARD_NAMES.index(board) * 25 + NAME_SQUARE[sq]] = NAME_CODE[name]
    given = {k: "" if v == "-" else v for k, v in (piles or {}).items()}
    pile_codes = [[NAME_CODE[t] for t in given.get(COLOURS[s], "").split(",") if t] for s in range(n)]  # fmt: skip
    if phase != "place":
        used = set(cells) | {c for p in pile_codes for c in p}
        for colour in range(3):
            missing = [colour * 9 + t + 1 for t in range(9) if colour * 9 + t + 1 not in used]
            if n == 2 and colour == 2:
                missing = missing[1:]
            to = (colour + 1) % n if n == 3 else (1 - colour if colour < 2 else 0)
            pile_codes[to] += missing
    st = State.__new__(State)
    st.num_players, st.cells, st.piles = n, cells, pile_codes
    st.frozen = [phase != "place" and is_frozen(b, cells) for b in range(3)]
    st.phase = ("place", "play", "over").index(phase)
    st.to_move = -1 if phase == "over" else COLOURS.index(to_move)
    text = format_position(st)
    rules.from_text(text)  # the helper only builds valid positions
    return text


def legal(text: str, prefix: str = "") -> list[str]:
    """The legal moves of a position text that start with ``prefix`` ('wb:' or 'wb:c2')."""
    return [m for m in rules.legal_moves(rules.from_text(text)) if m.startswith(prefix)]


def after(text: str, *moves: str) -> str:
    state = rules.from_text(text)
    for move in moves:
        state = rules.play(state, move)
    return rules.to_text(state)


def cell(text: str, board: str, square: str) -> str:
    """The tower on a square of a position text, or '.'."""
    state = rules.from_text(text)
    code = state.cells[BOARD_NAMES.index(board) * 25 + NAME_SQUARE[square]]
    return TOWER_NAMES[code] or "."


def frozen_marks(text: str) -> list[bool]:
    return rules.from_text(text).frozen


# --- §1 components ---------------------------------------------------------------------------


def test_27_towers_of_nine_types_per_colour():
    assert NUM_TOWERS == 27
    assert TYPE_NAMES == ("S3", "S4", "S6", "M3", "M4", "M6", "L3", "L4", "L6")
    assert len({TOWER_NAMES[c] for c in range(1, 28)}) == 27
    assert TOWER_NAMES[1] == "wS3" and TOWER_NAMES[27] == "gL6"


# --- §2 seats, boards, directions -------------------------------------------------------------


def test_seats_and_board_colours():
    assert rules.seats(2) == ["w", "b"] and rules.seats(3) == ["w", "b", "g"]
    assert BOARD_NAMES == ("wb", "bg", "gw")
    # On board XY colour X starts on rank 1, Y on rank 5.
    assert BOARD_COLOURS == ((0, 1), (1, 2), (2, 0))


@pytest.mark.parametrize("count", [4, 1, "3", True, 2.0, None])
def test_wrong_player_counts_are_rejected(count):
    with pytest.raises(ValueError, match="num_players must be 2 or 3") as err:
        rules.initial_state(count)
    assert repr(count) in str(err.value)
    for f in (rules.initial_text, rules.seats):
        with pytest.raises(ValueError, match="2 or 3"):
            f(count)


def test_forward_is_up_for_the_rank_1_colour_and_down_for_the_rank_5_colour():
    # White starts on wb rank 1 and gw rank 5: up on wb, down on gw.
    text = make(3, "wb:wM4@c2 gw:wM3@c4", live="wb bg gw")
    assert legal(text, "wb:c2") == ["wb:c2-b3", "wb:c2-c3", "wb:c2-d3"]
    assert legal(text, "gw:c4") == ["gw:c4-b3", "gw:c4-c3", "gw:c4-d3"]


# --- §3 set-up ---------------------------------------------------------------------------------


def test_start_position_text():
    assert rules.initial_text(3) == (
        "3p wb:...../...../...../...../..... bg:...../...../...../...../..... "
        "gw:...../...../...../...../..... place w w=- b=- g=-"
    )
    assert rules.initial_text(2).endswith("place w w=- b=-")


def test_first_placement_any_type_on_any_square_of_either_start_line():
    moves = rules.legal_moves(rules.initial_state(3))
    assert len(moves) == 90
    assert {m[:3] for m in moves} == {"wb:", "gw:"}
    assert all(m.endswith("1") for m in moves if m.startswith("wb"))
    assert all(m.endswith("5") for m in moves if m.startswith("gw"))
    assert {"wb:L6@c1", "gw:S3@e5"} <= set(moves)


def test_a_placed_type_is_gone_for_its_colour_only():
    s = rules.play(rules.initial_state(3), "wb:L6@c1")
    black = rules.legal_moves(s)
    assert "wb:L6@c5" in black and len(black) == 90
    s = rules.play(rules.play(s, "bg:L6@c1"), "gw:L6@c1")
    white = rules.legal_moves(s)
    assert len(white) == 8 * 9 and not any("L6" in m for m in white)
    assert "wb:S3@c1" not in white  # c1 is taken


def _place_all(num_players: int, pick=0) -> tuple[State, list[str]]:
    """Play the whole set-up taking legal move number ``pick`` each time; the movers."""
    s = rules.initial_state(num_players)
    movers = []
    while s.phase == 0:
        movers.append(rules.to_move(s))
        moves = rules.legal_moves(s)
        s = rules.play(s, moves[pick % len(moves)])
    return s, movers


def test_three_player_set_up_order_and_white_moves_first():
    # Ruling: after the 27th placement (grey's) the rotation continues with white.
    s, movers = _place_all(3, pick=7)
    assert movers == ["w", "b", "g"] * 9
    assert rules.to_text(s).split()[4:6] == ["play", "w"]
    assert s.frozen == [False, False, False]


@pytest.mark.parametrize("players", [2, 3])
def test_each_player_keeps_exactly_one_gap_on_its_ten_start_squares(players):
    # Ruling: one gap over both start lines together, of the player's choice.
    from talat_env.rules.board import START_CELLS

    for pick in (0, 5, 13):
        s, _ = _place_all(players, pick)
        for colour in range(players):
            assert sum(1 for c in START_CELLS[colour] if not s.cells[c]) == 1


def test_set_up_has_no_captures_and_no_frozen_marks():
    s = rules.initial_state(3)
    for move in ("wb:M4@c1", "bg:S3@c1", "gw:M4@c1", "wb:M3@d1"):
        s = rules.play(s, move)
    assert not any(m.startswith(("wb:c1-", "wb:c1x")) for m in rules.legal_moves(s))
    assert s.frozen == [False, False, False] and rules.scores(s) == [0, 0, 0]


def test_no_step_during_set_up():
    s = rules.play(rules.initial_state(3), "wb:M4@c1")
    with pytest.raises(rules.IllegalMoveError, match="every move is a placement"):
        rules.play(rules.play(rules.play(s, "bg:S3@c1"), "gw:S3@c1"), "wb:c1-c2")


# --- §4 moves ----------------------------------------------------------------------------------


def test_steps_go_one_square_forward_straight_or_diagonally_onto_empty_squares():
    text = make(3, "wb:wM4@a2 wb:wM3@c2 wb:bS3@d3 wb:wL3@b3", live="bg gw")
    # a2: no file left of a; onto b3 is blocked by its own tower. c2: d3 holds a black
    # tower M3 beats S3, so c2xd3 is a capture. Ruling: no sideways step without a capture.
    assert legal(text, "wb") == [
        "wb:a2-a3",
        "wb:b3-a4",
        "wb:b3-b4",
        "wb:b3-c4",
        "wb:c2-c3",
        "wb:c2xd3",
    ]


def test_a_tower_on_its_goal_line_has_no_step_but_captures_sideways():
    text = make(3, "wb:wM4@c5 wb:bS4@d5 wb:bL3@b5", live="bg gw")
    assert legal(text, "wb") == ["wb:c5xd5"]
    black = make(3, "wb:wM4@c5 wb:bS4@d5 wb:bL6@b1 wb:wS3@a1", live="bg gw", to_move="b")
    # Black L6 on its goal line (rank 1 of wb) captures beside it only by type: not S3.
    assert legal(black, "wb") == ["wb:d5-c4", "wb:d5-d4", "wb:d5-e4"]


def test_forced_pass_is_the_only_move_and_only_then():
    # Ruling: white's only tower on an open board (gw c2, moving down) is boxed in by grey
    # towers it does not beat; wb holds no white tower; bg stays open.
    text = make(3, "gw:wS3@c2 gw:gM4@b1 gw:gM3@c1 gw:gS4@d1", live="bg")
    state = rules.from_text(text)
    assert state.frozen == [True, False, False]
    assert rules.legal_moves(state) == ["pass"]
    assert state.legal_ids() == [rules.PASS]
    nxt = after(text, "pass")
    assert nxt.split()[1:5] == text.split()[1:5] and rules.to_move(rules.from_text(nxt)) == "b"
    with pytest.raises(rules.IllegalMoveError, match="may pass only"):
        rules.play(rules.from_text(nxt), "pass")


def test_towers_on_a_frozen_board_do_not_move():
    # wb: white S4 and black L3 are two height steps apart: no capture ever, frozen.
    text = make(3, "wb:wS4@c2 wb:bL3@c4", live="bg gw")
    assert frozen_marks(text) == [True, False, False]
    assert legal(text, "wb") == []
    with pytest.raises(rules.IllegalMoveError, match="frozen"):
        rules.play(rules.from_text(text), "wb:c2-c3")


def test_each_player_moves_only_its_own_towers_with_three_players():
    text = make(3, "wb:wM4@c2 wb:bS3@c4", live="bg gw")
    assert legal(text, "wb") == ["wb:c2-b3", "wb:c2-c3", "wb:c2-d3"]
    with pytest.raises(rules.IllegalMoveError, match="does not move the bS3"):
        rules.play(rules.from_text(text), "wb:c4-c3")


# --- §5 captures -------------------------------------------------------------------------------


def test_capture_straight_ahead_diagonally_ahead_and_beside():
    text = make(3, "wb:wM4@c2 wb:bS3@c3 wb:bS6@b2 wb:bM3@d3 wb:bS4@d2 wb:bM6@c1", live="gw")
    # Ruling: straight and sideways captures on every rank; never backwards (c1).
    assert legal(text, "wb:c2x") == [
        "wb:c2xb2",
        "wb:c2xc3",
        "wb:c2xd2",
        "wb:c2xd3",
    ]


def test_contact_is_symmetric_and_the_beating_side_may_capture():
    # Black M4 on c3 stands straight ahead of white S4 on c2: black captures downwards.
    text = make(3, "wb:wS4@c2 wb:bM4@c3", live="bg gw", to_move="b")
    assert "wb:c3xc2" in legal(text, "wb")
    assert "wb:c2xc3" not in legal(make(3, "wb:wS4@c2 wb:bM4@c3", live="bg gw"), "wb")


def test_capture_moves_onto_the_square_into_the_movers_pile():
    text = make(3, "wb:wM4@c2 wb:bS3@c3 wb:bL3@e3", live="bg gw", piles={"w": "-"})
    out = after(text, "wb:c2xc3")
    assert cell(out, "wb", "c3") == "wM4" and cell(out, "wb", "c2") == "."
    assert out.split()[6] == text.split()[6].replace("w=", "w=bS3,")


def test_capturing_is_optional():
    text = make(3, "wb:wM4@c2 wb:bS3@c3", live="bg gw")
    assert {"wb:c2-b3", "wb:c2-d3", "wb:c2xc3"} <= set(legal(text, "wb"))


def test_the_beats_table_of_the_rules_page():
    table = {
        "S3": "L6", "S4": "S3", "S6": "S3 S4",
        "M3": "S3 S4 S6", "M4": "S3 S4 S6 M3", "M6": "S3 S4 S6 M3 M4",
        "L3": "M3 M4 M6", "L4": "M3 M4 M6 L3", "L6": "M3 M4 M6 L3 L4",
    }  # fmt: skip
    for a, beaten in table.items():
        got = {TYPE_NAMES[b] for b in range(9) if BEATS[TYPE_NAMES.index(a)][b]}
        assert got == set(beaten.split()), a


@pytest.mark.parametrize(
    ("white", "black", "white_captures", "black_captures"),
    [
        ("S3", "L6", True, False),  # David & Goliath, one way only
        ("L6", "S4", False, False),  # two height steps: too many
        ("M4", "M4", False, False),  # equal type
        ("L4", "L3", True, False),  # equal height: more corners
        ("S6", "M3", False, True),  # taller beats shorter, whatever the shapes
    ],
)
def test_which_type_beats_which_in_play(white, black, white_captures, black_captures):
    towers = f"wb:w{white}@c2 wb:b{black}@c3"
    w = make(3, towers, live="bg gw")
    b = make(3, towers, live="bg gw", to_move="b")
    assert ("wb:c2xc3" in legal(w)) == white_captures
    assert ("wb:c3xc2" in legal(b)) == black_captures


# --- §6 frozen boards, end of the game -----------------------------------------------------------


def test_a_board_without_a_possible_capture_is_frozen():
    # S4 against L3 and L4 (two height steps) never capture: frozen.
    assert frozen_marks(make(3, "wb:wS4@c2 wb:bL3@c4 wb:bL4@a5", live="bg gw"))[0]
    # S4 against M3 can meet: open.
    assert not frozen_marks(make(3, "wb:wS4@c2 wb:bM3@a5", live="bg gw"))[0]


def test_a_pair_that_has_passed_each_other_is_harmless():
    # The black M4 stands below the white S4: they can never meet.
    assert frozen_marks(make(3, "wb:wS4@c3 wb:bM4@c2", live="bg gw"))[0]
    # Same rank, two files apart: neither can reach the other.
    assert frozen_marks(make(3, "wb:wS4@b3 wb:bM4@d3", live="bg gw"))[0]


def test_pair_condition_of_the_notes():
    # §6.4: g = 0 and d = 1, or g >= 1 and d <= g + 1, for U on (ra, fa) and D on (rb, fb).
    for u in range(25):
        for v in range(25):
            g, d = v // 5 - u // 5, abs(v % 5 - u % 5)
            assert CAN_MEET[u * 25 + v] == ((g == 0 and d == 1) or (g >= 1 and d <= g + 1))


def test_the_rulebooks_example_a_tower_in_between_that_can_step_aside():
    # The white S3 (a3) threatens the black L6 (a5) through the white S4 between them (a4),
    # which S3 cannot pass: S6 (b4) and the L6 itself block the other ways. The S4, S6 and
    # white L6 (b5) do not beat nor lose to the black L6. Towers in the way are assumed to
    # step aside if they can (§6.1):
    boxed = "wb:wS3@a3 wb:wS4@a4 wb:wS6@b4 wb:wL6@b5 wb:wM3@c5 wb:bL6@a5"
    # with b5 and c5 taken nothing on wb can ever move: frozen;
    assert frozen_marks(make(3, boxed, live="bg gw"))[0]
    # with b5 free the S4 steps aside to b5, the S3 follows to a4 and meets the L6: open;
    assert not frozen_marks(make(3, boxed.replace("wb:wL6@b5 ", ""), live="bg gw"))[0]
    # with c5 free the S6 steps there, the L6 comes down to b4 next to the S3: open.
    assert not frozen_marks(make(3, boxed.replace(" wb:wM3@c5", ""), live="bg gw"))[0]


def test_an_open_board_can_need_several_steps_of_other_towers():
    # Black L4 (a4) must step to b3 before the white S3 (a3) can reach a4, next to the
    # black L6 (a5); the black L3 (b4) blocks the other way. Decided by the search.
    board = [0] * 75
    for name, sq in (("wS3", "a3"), ("bL4", "a4"), ("bL3", "b4"), ("bL6", "a5")):
        board[NAME_SQUARE[sq]] = NAME_CODE[name]
    frozen, nodes = decide(0, board)
    assert not frozen and nodes > 0


#: wb frozen (S4 against L3); on gw the white L3 (d4, moving down) can still meet the grey
#: M3 (b3, moving up); bg open.
ONE_FROZEN = make(3, "wb:wS4@c2 wb:bL3@c4 gw:wL3@d4 gw:gM3@b3", live="bg")


def test_a_move_that_freezes_the_second_board_ends_the_game_at_once():
    assert frozen_marks(ONE_FROZEN) == [True, False, False]
    # The white L3 steps to e3, three files off the grey M3 on its rank...
    out = rules.from_text(after(ONE_FROZEN, "gw:d4-e3"))
    # ...where they can no longer meet: gw freezes, two boards are frozen, the game is over.
    assert out.frozen == [True, False, True]
    assert rules.is_over(out) and rules.to_move(out) is None and rules.seat_to_move(out) is None
    assert rules.legal_moves(out) == [] and out.legal_ids() == []
    assert rules.to_text(out).split()[4:6] == ["over", "-"]
    with pytest.raises(rules.IllegalMoveError, match="the game is over"):
        rules.play(out, "bg:e1-e2")


def test_a_capture_can_freeze_its_board():
    # Capturing the only black tower that white's M4 could meet leaves only unrelated towers.
    text = make(3, "wb:wM4@c2 wb:bS3@c3 wb:bM4@a5", live="bg gw")
    assert not frozen_marks(text)[0]
    assert frozen_marks(after(text, "wb:c2xc3"))[0]


def test_boards_are_decided_again_only_after_a_move_on_them():
    # Moves that keep their board open leave every '*' as it was.
    out = after(ONE_FROZEN, "gw:d4-c3", "bg:e1-e2", "bg:e5-e4")
    assert frozen_marks(out) == [True, False, False]


# --- §7 score and winner --------------------------------------------------------------------


def test_scores_of_the_rules_page_example():
    text = (
        "3p wb:...wS3bS3/.bS4.../wS4.wL6../.bM4.bL4./..... "
        "bg*:..bL3../...bM3./gL3bS6.bM6./gM3..gM4./..... "
        "gw:...../wM3.gS6wL3wL4/gM6wM6.../gL6gL4.wS6gS3/..... play w w=bL6 b=gS4,wM4 g=-"
    )
    assert rules.scores(rules.from_text(text)) == [8, 13, 0]


def test_goal_line_towers_count_on_frozen_boards_too():
    # Ruling: goal-line towers count on all three boards, frozen or not.
    on_goal = make(3, "wb:wS4@c5 wb:bL3@a5", live="bg gw", piles={"b": "-"})
    below = make(3, "wb:wS4@c4 wb:bL3@a5", live="bg gw", piles={"b": "-"})
    assert frozen_marks(on_goal)[0] and frozen_marks(below)[0]
    diff = [a - b for a, b in zip(rules.scores(rules.from_text(on_goal)), rules.scores(rules.from_text(below)), strict=True)]  # fmt: skip
    assert diff == [3, 0, 0]


def test_a_pile_scores_five_per_tower_of_any_colour():
    text = after(make(3, "wb:wM4@c2 wb:bS3@c3 wb:bL6@a5", live="bg gw"), "wb:c2xc3")
    before = rules.scores(rules.from_text(make(3, "wb:wM4@c2 wb:bS3@c3 wb:bL6@a5", live="bg gw")))
    assert rules.scores(rules.from_text(text))[0] == before[0] + 5


def code(name: str) -> int:
    return NAME_CODE[name]


def test_value_order():
    assert [TYPE_NAMES[t] for t in VALUE_ORDER] == [
        "L6",
        "L4",
        "L3",
        "M6",
        "M4",
        "M3",
        "S6",
        "S4",
        "S3",
    ]


@pytest.mark.parametrize(
    ("scores", "piles", "expected"),
    [
        ([10, 5, 5], [[], [], []], [0]),  # the highest score wins
        ([10, 10, 5], [["bM3", "gM3"], ["wL3", "gS3"], ["wL6"]], [1]),  # L3 beats M3 M3
        # Ruling: players behind on points take no part (grey's L6 does not count).
        ([10, 10, 0], [["bM3"], ["wM3"], ["wL6", "bL6"]], [0, 1]),
        # Repeated types: the first type one holds more often than the other wins.
        ([10, 10, 0], [["bM4", "gM4"], ["wM4", "gL3"], []], [1]),
        ([10, 10, 0], [["bM4", "gM4", "bS3"], ["wM4", "gS4"], []], [0]),
        # Three-way tie: L6 held by w and b alike decides nothing; g's L4 then wins.
        ([5, 5, 5], [["bL6"], ["gL6"], ["wL4"]], [2]),
        ([5, 5, 5], [["bS3"], ["gS3"], ["bS3"]], [0, 1, 2]),
        ([0, 0], [[], []], [0, 1]),
    ],
)
def test_tie_break_by_the_most_valuable_tower_not_matched(scores, piles, expected):
    codes = [[code(n) for n in p] for p in piles]
    assert winning_seats(scores, codes) == expected


def test_winner_and_winners_of_finished_games():
    import random

    rng = random.Random(3)
    seen_shared = seen_single = False
    for players in (2, 3, 2, 3, 2, 3):
        s = rules.initial_state(players)
        assert rules.winner(s) is None and rules.winners(s) == []
        while not rules.is_over(s):
            s.apply(rng.choice(s.legal_ids()))
        scores = rules.scores(s)
        win = rules.winners(s)
        assert win and all(scores[COLOURS.index(c)] == max(scores) for c in win)
        assert rules.winner(s) == (win[0] if len(win) == 1 else None)
        seen_single |= len(win) == 1
        seen_shared |= len(win) > 1
    assert seen_single


# --- §8 the two-player game (the Zihin) ------------------------------------------------------


def test_zihin_set_up_comes_first_and_alternates_from_white():
    s = rules.initial_state(2)
    placers = []
    for _ in range(8):
        assert s.placing_colour() == 2
        placers.append(rules.to_move(s))
        s = rules.play(s, rules.legal_moves(s)[0])
    assert placers == ["w", "b"] * 4
    # The next placement is white's own tower, on white's start lines.
    assert s.placing_colour() == 0 and rules.to_move(s) == "w"
    assert {m[:3] for m in rules.legal_moves(s)} == {"wb:", "gw:"}


def test_zihin_towers_go_on_either_grey_start_line_any_split():
    # Ruling: 5 + 3 or 4 + 4 are both fine.
    s = rules.initial_state(2)
    for sq in ("a1", "b1", "c1", "d1", "e1"):
        s = rules.play(
            s, next(m for m in rules.legal_moves(s) if m.endswith(sq) and m.startswith("gw"))
        )
    moves = rules.legal_moves(s)
    assert all(m.startswith("bg:") and m.endswith("5") for m in moves)
    assert len(moves) == 4 * 5  # 4 grey types left, 5 squares of bg rank 5


def test_two_player_set_up_ends_with_black_who_moves_first():
    s, movers = _place_all(2, pick=11)
    assert movers == ["w", "b"] * 13
    assert rules.to_move(s) == "b" and rules.to_text(s).split()[4] == "play"
    grey = [c for c in s.cells if c > 18]
    assert len(grey) == 8  # the ninth grey tower leaves the game unused
    assert len(rules.scores(s)) == 2


def test_players_steer_the_zihin_on_the_zihin_opponent_board_only():
    # Grey M3 on bg c4 (moving down) is white's; grey M3 on gw c2 (moving up) is black's.
    towers = "bg:gM3@c4 gw:gM4@c2 wb:wS4@a1 wb:bL3@a5"
    white = make(2, towers, live="bg gw")
    assert [m for m in legal(white) if m.startswith(("bg:c4", "gw:c2"))] == [
        "bg:c4-b3",
        "bg:c4-c3",
        "bg:c4-d3",
    ]
    black = make(2, towers, live="bg gw", to_move="b")
    assert [m for m in legal(black) if m.startswith(("bg:c4", "gw:c2"))] == [
        "gw:c2-b3",
        "gw:c2-c3",
        "gw:c2-d3",
    ]
    with pytest.raises(rules.IllegalMoveError, match="does not move"):
        rules.play(rules.from_text(white), "gw:c2-c3")


def test_captures_by_a_zihin_tower_go_to_the_movers_pile():
    text = make(2, "bg:gM4@c3 bg:bS4@c2", live="wb gw", piles={"w": "-", "b": "-"})
    out = after(text, "bg:c3xc2")
    assert out.split()[-2].startswith("w=") and "bS4" in out.split()[-2]


def test_two_player_scores_count_controlled_towers_on_their_goal_line():
    def score(towers: str) -> list[int]:
        return rules.scores(rules.from_text(make(2, towers, live="wb bg gw", piles={"w": "-"})))

    # Grey on bg rank 1 (black's start line) scores for white, who steers it there.
    assert [a - b for a, b in zip(score("bg:gM4@a1 bg:bL3@c3"), score("bg:gM4@a2 bg:bL3@c3"), strict=True)] == [3, 0]  # fmt: skip
    # Grey on gw rank 5 (white's start line) scores for black.
    assert [a - b for a, b in zip(score("gw:gM4@a5 gw:wL3@c3"), score("gw:gM4@a4 gw:wL3@c3"), strict=True)] == [0, 3]  # fmt: skip
    # Ruling: an own tower on a Zihin start line (white on gw rank 1) scores 3.
    assert [a - b for a, b in zip(score("gw:wM4@a1 gw:gL3@c3"), score("gw:wM4@a2 gw:gL3@c3"), strict=True)] == [3, 0]  # fmt: skip
    # Nobody scores for grey on its own Zihin board's goal line... there is none:
    # white's grey-steered towers are on bg, black's on gw, and those were counted above.


def test_grey_never_moves_with_two_players():
    text = make(2, "", live="wb bg gw")
    with pytest.raises(rules.InvalidNotationError, match="Zihin"):
        rules.from_text(text.replace(" play w ", " play g "))


def test_the_api_docstring_example_runs():
    import doctest

    from talat_env.rules import api

    assert doctest.testmod(api).failed == 0
