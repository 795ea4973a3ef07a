"""Talat's actions and observations in the acting seat's frame (:mod:`talat_env.encoding`):
the frame is a symmetry of the game, the planes match a direct reading of the rules."""

from __future__ import annotations

import random

import numpy as np
import pytest

from talat_env import rules
from talat_env.encoding import (
    ACTION_OF,
    FRAMES,
    MOVE_OF,
    NUM_ACTIONS,
    OBS_SHAPE,
    PLANE_BOARD,
    PLANE_CAN_CAPTURE,
    PLANE_CAPTURABLE,
    PLANE_DEFICIT,
    PLANE_FROZEN,
    PLANE_GOAL,
    PLANE_LEAD,
    PLANE_MOVABLE,
    PLANE_SCORE,
    PLANE_SETUP,
    PLANE_TO_MOVE,
    PLANE_TWO_PLAYERS,
    PLANE_UNPLACED,
    PLANE_WINNING,
    PLANE_ZIHIN_SETUP,
    action_mask,
    action_of,
    checked_move_id,
    frame_index,
    global_state,
    leaders,
    legal_actions,
    move_of,
    observation,
)
from talat_env.rules.board import (
    BEATS,
    BOARD_COLOURS,
    CODE_COLOUR,
    CODE_TYPE,
    CONTROL,
    GREY,
    NAME_CODE,
)


def rel_colour(n: int, seat: int, colour: int) -> int:
    if n == 3:
        return (colour - seat) % 3
    return colour if seat == 0 or colour == GREY else 1 - colour


def rel_cell(n: int, seat: int, cell: int) -> int:
    """The frame as the rules of the frame state it, written out once more."""
    board, sq = divmod(cell, 25)
    if n == 3:
        return (board - seat) % 3 * 25 + sq
    if seat == 0:
        return cell
    rank, file = divmod(sq, 5)
    return {0: 0, 2: 1, 1: 2}[board] * 25 + (4 - rank) * 5 + file


def pixel(n: int, seat: int, cell: int) -> tuple[int, int]:
    board, sq = divmod(rel_cell(n, seat, cell), 25)
    rank, file = divmod(sq, 5)
    return 4 - rank, board * 6 + file


def in_contact(up_sq: int, down_sq: int) -> bool:
    (ru, fu), (rd, fd) = divmod(up_sq, 5), divmod(down_sq, 5)
    return (rd == ru + 1 and abs(fd - fu) <= 1) or (rd == ru and abs(fd - fu) == 1)


def reference_planes(state, seat: int) -> np.ndarray:
    """The observation written from the module doc and the rules, square by square."""
    n = state.num_players
    planes = np.zeros(OBS_SHAPE, dtype=np.float32)
    cells = state.cells
    playing = state.phase == 1
    for cell in range(75):
        board, sq = divmod(cell, 25)
        row, col = pixel(n, seat, cell)
        planes[PLANE_BOARD, row, col] = 1
        if state.frozen[board]:
            planes[PLANE_FROZEN, row, col] = 1
        code = cells[cell]
        if not code:
            continue
        colour, kind = CODE_COLOUR[code], CODE_TYPE[code]
        planes[rel_colour(n, seat, colour) * 9 + kind, row, col] = 1
        up = BOARD_COLOURS[board][0] == colour
        if sq // 5 == (4 if up else 0):
            planes[PLANE_GOAL, row, col] = 1
        live = playing and not state.frozen[board]
        if live and (board, colour) in CONTROL[n][seat]:
            planes[PLANE_MOVABLE, row, col] = 1
        if live and up:
            for other in range(board * 25, board * 25 + 25):
                code2 = cells[other]
                if not code2 or CODE_COLOUR[code2] != BOARD_COLOURS[board][1]:
                    continue
                if not in_contact(sq, other % 25):
                    continue
                r2, c2 = pixel(n, seat, other)
                if BEATS[kind][CODE_TYPE[code2]]:
                    planes[PLANE_CAN_CAPTURE, row, col] = planes[PLANE_CAPTURABLE, r2, c2] = 1
                if BEATS[CODE_TYPE[code2]][kind]:
                    planes[PLANE_CAN_CAPTURE, r2, c2] = planes[PLANE_CAPTURABLE, row, col] = 1
    if state.to_move >= 0:
        planes[PLANE_TO_MOVE + rel_colour(n, seat, state.to_move)] = 1
    if state.phase == 0:
        planes[PLANE_SETUP] = 1
        zihin = n == 2 and state.placing_colour() == GREY
        planes[PLANE_ZIHIN_SETUP] = zihin
        for colour in range(3):
            if n == 2 and colour == GREY and not zihin:
                continue
            for kind in range(9):
                if colour * 9 + kind + 1 not in cells:
                    planes[PLANE_UNPLACED + rel_colour(n, seat, colour) * 9 + kind] = 1
    planes[PLANE_TWO_PLAYERS] = n == 2
    scores = state.scores()
    for s in range(n):
        planes[PLANE_SCORE + rel_colour(n, seat, s)] = min(scores[s] / 100, 1)
    margin = scores[seat] - max(v for s, v in enumerate(scores) if s != seat)
    planes[PLANE_LEAD] = min(max(margin, 0) / 50, 1)
    planes[PLANE_DEFICIT] = min(max(-margin, 0) / 50, 1)
    ended = state.copy()
    ended.phase = 2  # the engine's own tie-break, as if the game ended now
    for s in ended.winners():
        planes[PLANE_WINNING + rel_colour(n, seat, s)] = 1
    return planes


def random_states(n: int, games: int, seed: int) -> list:
    """Every position of ``games`` random games (set-up, play and the end)."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        state = rules.initial_state(n)
        out.append(state.copy())
        while not state.is_over():
            state.apply(rng.choice(state.legal_ids()))
            out.append(state.copy())
    return out


def transformed(state, seat: int):
    """The position as ``seat`` sees it in its frame, as a real position of the game: seat
    ``seat`` becomes seat 0 (3 players: colours and boards turned; 2 players: white and
    black swapped, boards swapped and flipped)."""
    n = state.num_players
    probe = state.copy()
    probe.cells = [0] * 75
    for cell, code in enumerate(state.cells):
        if code:
            colour = rel_colour(n, seat, CODE_COLOUR[code])
            probe.cells[rel_cell(n, seat, cell)] = colour * 9 + CODE_TYPE[code] + 1
    probe.frozen = [False] * 3
    for cell in (0, 25, 50):
        probe.frozen[rel_cell(n, seat, cell) // 25] = state.frozen[cell // 25]
    probe.piles = [[] for _ in range(n)]
    for s in range(n):
        probe.piles[rel_colour(n, seat, s)] = [
            rel_colour(n, seat, CODE_COLOUR[c]) * 9 + CODE_TYPE[c] + 1 for c in state.piles[s]
        ]
    probe.to_move = rel_colour(n, seat, state.to_move) if state.to_move >= 0 else -1
    return rules.from_text(rules.to_text(probe))


# --- the action layout ------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "seat"), FRAMES)
def test_action_of_and_move_of_are_inverse_permutations(n, seat):
    actions = [action_of(n, seat, m) for m in range(NUM_ACTIONS)]
    assert sorted(actions) == list(range(NUM_ACTIONS))
    assert all(move_of(n, seat, a) == m for m, a in enumerate(actions))
    f = frame_index(n, seat)
    assert list(ACTION_OF[f]) == actions and sorted(MOVE_OF[f]) == list(range(NUM_ACTIONS))
    assert action_of(n, seat, 1050) == 1050  # pass


@pytest.mark.parametrize("n", [2, 3])
def test_seat_0_sees_the_boards_as_they_are(n):
    assert ACTION_OF[frame_index(n, 0)] == tuple(range(NUM_ACTIONS))


@pytest.mark.parametrize(("n", "seat"), FRAMES)
def test_relative_board_0_is_me_on_rank_1_and_board_2_me_on_rank_5(n, seat):
    for rel, side in ((0, 0), (2, 1)):
        board = next(b for b in range(3) if rel_cell(n, seat, b * 25) // 25 == rel)
        flipped = n == 2 and seat == 1
        assert BOARD_COLOURS[board][side ^ flipped] == seat


def test_black_frame_in_two_players_flips_the_boards_and_keeps_directions():
    f = frame_index(2, 1)
    # wb:c5 (rank index 4, black's start) is relative board 0, rank index 0 (c1).
    assert ACTION_OF[f][22 * 9 + 8] == 2 * 9 + 8
    # gw c1 is relative board 1, c5; bg c1 is relative board 2, c5.
    assert ACTION_OF[f][2 * 225 + 2 * 9] == 225 + 22 * 9
    assert ACTION_OF[f][1 * 225 + 2 * 9] == 450 + 22 * 9
    # A step keeps its direction: black's bg:c1 straight forward is relative bg c5's.
    assert ACTION_OF[f][675 + (25 + 2) * 5 + 1] == 675 + (50 + 22) * 5 + 1


@pytest.mark.parametrize("n", [2, 3])
def test_the_frame_is_a_symmetry_of_the_game(n):
    """In play, what a seat sees and may do equals what seat 0 sees and may do in the
    position turned into that seat's frame."""
    checked = 0
    for state in random_states(n, 3, seed=n)[::3]:
        if state.phase != 1:
            continue
        for seat in range(1, n):
            other = transformed(state, seat)
            assert other.frozen == [state.frozen[b] for b in _boards_in_frame(n, seat)]
            if state.to_move == seat:
                assert sorted(legal_actions(state, seat)) == other.legal_ids()
                checked += 1
            np.testing.assert_array_equal(action_mask(state, seat), action_mask(other, 0))
            for observer in range(n):
                np.testing.assert_array_equal(
                    observation(state, observer),
                    observation(other, rel_colour(n, seat, observer)),
                )
    assert checked >= 5


def _boards_in_frame(n: int, seat: int) -> list[int]:
    """The absolute board shown as relative board 0, 1, 2."""
    return sorted(range(3), key=lambda b: rel_cell(n, seat, b * 25) // 25)


@pytest.mark.parametrize("n", [2, 3])
def test_the_mask_is_the_legal_moves_of_the_seat_to_move_only(n):
    for state in random_states(n, 1, seed=10 + n):
        for seat in range(n):
            mask = action_mask(state, seat)
            assert mask.dtype == np.bool_ and mask.shape == (NUM_ACTIONS,)
            if seat == state.to_move:
                moves = sorted(move_of(n, seat, int(a)) for a in np.flatnonzero(mask))
                assert moves == state.legal_ids()
                assert list(legal_actions(state, seat)) == list(np.flatnonzero(mask))
            else:
                assert not mask.any() and len(legal_actions(state, seat)) == 0


# --- the observation --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3])
def test_planes_match_the_rules_read_square_by_square(n):
    states = random_states(n, 2, seed=20 + n)
    assert {s.phase for s in states} == {0, 1, 2}
    for state in states[::2]:
        for seat in range(n):
            planes = observation(state, seat)
            assert planes.shape == OBS_SHAPE and planes.dtype == np.float32
            np.testing.assert_array_equal(
                planes, reference_planes(state, seat), err_msg=rules.to_text(state)
            )


KNOWN = (
    "3p wb:bS3..../...../...bM4bM6/wS4bL3.wS3./.wL3.wM3wM6 "
    "bg:gM6gL6.../.gM3.../.bL4gL4.bS4/..bS6bM3gS4/bL6.... "
    "gw*:...../....wS6/gS3.gL3.wM4/...../wL4..wL6. play g w=gM4,gS6 b=- g=-"
)


def test_planes_of_a_known_position():
    """Ruling on contact (§5.1): on wb black M4 d3 and M6 e3 can take white S3 d2 (M beats
    S); white S4 a2 beside black L3 b2 and the L3s on b1 and b2 beat nothing. On bg black
    L4 b3 can take grey M3 b4, grey L4 c3 black M3 d2, and black M3 d2 grey S4 e2 beside it;
    gw is frozen, so its towers count for nothing."""
    state = rules.from_text(KNOWN)
    white = observation(state, 0)  # boards as they are: wb, bg, gw in columns 0, 6, 12
    can = {(r, c) for r, c in zip(*np.nonzero(white[PLANE_CAN_CAPTURE]), strict=True)}
    victims = {(r, c) for r, c in zip(*np.nonzero(white[PLANE_CAPTURABLE]), strict=True)}
    # (row, column) = (5 - rank, board * 6 + file)
    assert can == {(2, 3), (2, 4), (2, 7), (2, 8), (3, 9)}
    assert victims == {(3, 3), (1, 7), (3, 9), (3, 10)}
    assert white[PLANE_MOVABLE].sum() == 5 and white[PLANE_MOVABLE, 4, [1, 3, 4]].min() == 1
    assert white[PLANE_FROZEN, :, 12:17].min() == 1 and white[PLANE_FROZEN].sum() == 25
    assert (
        white[PLANE_TO_MOVE + 2].min() == 1 and white[PLANE_TO_MOVE : PLANE_TO_MOVE + 2].max() == 0
    )
    assert white[PLANE_SCORE].max() == pytest.approx(0.16)
    assert white[PLANE_LEAD].max() == pytest.approx(0.32) and white[PLANE_DEFICIT].max() == 0
    assert [white[PLANE_WINNING + k].max() for k in range(3)] == [1, 0, 0]
    # White's L4 a1 and L6 d1 on gw stand on its goal line: 2 * 5 + 2 * 3 = 16 points.
    assert white[PLANE_GOAL].sum() == 2 and white[PLANE_GOAL, 4, [12, 15]].min() == 1
    assert white[PLANE_BOARD].sum() == 75 and white[PLANE_BOARD][:, [5, 11]].max() == 0
    # Grey sees gw as relative board 0, wb as 1, bg as 2; grey is "me", white "next".
    grey = observation(state, 2)
    assert grey[PLANE_TO_MOVE].min() == 1
    assert grey[PLANE_FROZEN, :, 0:5].min() == 1
    assert grey[0 * 9 + 7, 2, 12 + 2] == 1  # gL4 on bg c3: my L4, relative board 2
    assert grey[PLANE_CAN_CAPTURE, 2, 14] == 1
    assert grey[PLANE_MOVABLE].sum() == 5 and grey[PLANE_MOVABLE, :, 12:17].sum() == 5
    assert grey[PLANE_DEFICIT].max() == pytest.approx(0.32)
    np.testing.assert_array_equal(white, reference_planes(state, 0))


def test_set_up_planes_count_the_unplaced_towers():
    state = rules.initial_state(2)
    planes = observation(state, 0)
    assert planes[PLANE_SETUP].min() == 1 and planes[PLANE_ZIHIN_SETUP].min() == 1
    # Nothing placed: all 27 towers are unplaced; with 2 players grey is the Zihin's 9.
    assert [planes[PLANE_UNPLACED + k].max() for k in range(27)] == [1] * 27
    assert planes[PLANE_TWO_PLAYERS].min() == 1
    assert planes[PLANE_WINNING].min() == planes[PLANE_WINNING + 1].min() == 1  # a shared 0-0
    for _ in range(8):  # the Zihin set-up
        state.apply(state.legal_ids()[0])
    planes = observation(state, 1)
    assert planes[PLANE_ZIHIN_SETUP].max() == 0
    assert planes[PLANE_UNPLACED + 18 : PLANE_UNPLACED + 27].max() == 0  # the ninth grey is out


def test_leaders_of_a_finished_game_are_its_winners():
    for n in (2, 3):
        for seed in range(6):
            state = random_states(n, 1, seed=40 + seed)[-1]
            assert leaders(state.scores(), state.piles) == state.winners()


def test_tie_break_by_the_most_valuable_tower():
    """Ruling (§7.2): tied leaders are compared down the value order L6 L4 L3 M6 …; a type
    both hold as often cancels; with three tied, a type decides only when one player holds it
    more often than both others."""

    def pile(*names: str) -> list[int]:
        return [NAME_CODE[name] for name in names]

    assert leaders([10, 10, 0], [pile("bL6", "gS3"), pile("wL4", "gM6"), []]) == [0]
    assert leaders([10, 10, 0], [pile("bL6", "gS3"), pile("gL6", "wS4"), []]) == [1]
    assert leaders([10, 10, 5], [pile("bS3"), pile("gS3"), pile("wS3")]) == [0, 1]
    # L6 held once by two of three is nobody's lead; grey's S3 is, further down.
    assert leaders([5, 5, 5], [pile("bL6"), pile("gL6"), pile("wS3")]) == [2]
    assert leaders([5, 5, 5], [pile("bL6"), pile("gL6"), pile("wL6")]) == [0, 1, 2]
    assert leaders([5, 10, 5], [pile("bL6"), pile("gS3", "wS4"), pile("wL6")]) == [1]


def test_global_state_is_seat_0s_observation():
    state = random_states(3, 1, seed=5)[40]
    np.testing.assert_array_equal(global_state(state), observation(state, 0))


def test_observation_into_a_given_array():
    state = random_states(2, 1, seed=6)[35]
    out = np.full(OBS_SHAPE, 7.0, dtype=np.float32)
    assert observation(state, 1, out=out) is out
    np.testing.assert_array_equal(out, observation(state, 1))


# --- checked actions --------------------------------------------------------------------------


def test_an_illegal_action_is_named_with_the_position_and_the_legal_moves():
    state = rules.initial_state(3)
    illegal = int(np.flatnonzero(~action_mask(state, 0))[0])
    with pytest.raises(rules.IllegalMoveError) as err:
        checked_move_id(state, 0, illegal, who="tester")
    message = str(err.value)
    assert f"illegal action {illegal} for tester (seat 0, white)" in message
    assert rules.initial_text(3) in message and "legal: 0 (wb:S3@a1), 1 (wb:S4@a1)" in message
    assert message.endswith("… 78 more")
    for bad in (1051, -1, 3.0, "7", None, True):
        with pytest.raises(rules.IllegalMoveError, match=r"expected an action index 0\.\.1050"):
            checked_move_id(state, 0, bad, who="tester")
    with pytest.raises(rules.IllegalMoveError, match=r"none \(not to move\)"):
        checked_move_id(state, 1, int(legal_actions(state, 0)[0]), who="tester")
    legal = int(legal_actions(state, 0)[0])
    assert checked_move_id(state, 0, np.int64(legal), "tester") == move_of(3, 0, legal)


@pytest.mark.parametrize(("n", "seat"), [(2, 2), (4, 0), (3, -1)])
def test_a_seat_outside_the_game_is_refused(n, seat):
    with pytest.raises(ValueError, match="expected a seat"):
        frame_index(n, seat)
