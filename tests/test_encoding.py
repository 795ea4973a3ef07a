"""The observation planes, the action layout in each seat's frame, and the global state
(:mod:`splut_env.encoding`)."""

from __future__ import annotations

import numpy as np
import pytest

import splut_env
from splut_env import rules
from splut_env.batched.shield import CompiledTactics
from splut_env.encoding import (
    MIRROR_ACTION,
    NUM_ACTIONS,
    OBS_SHAPE,
    STATE_SHAPE,
    action_mask,
    action_to_step_id,
    checked_step_id,
    global_planes,
    mirror_planes,
    observation_planes,
    step_id_to_action,
)
from splut_env.rules.board import (
    MIRROR_ID,
    NAME_SQUARE,
    NUM_STEP_IDS,
    SEATS_IN_PLAY,
    dwarf_id,
    troll_id,
    wizard_id,
)


@pytest.mark.parametrize("seat", range(4))
def test_actions_and_step_ids_are_one_to_one_in_every_frame(seat):
    actions = [step_id_to_action(seat, i) for i in range(NUM_STEP_IDS)]
    assert sorted(actions) == list(range(NUM_ACTIONS))
    assert all(action_to_step_id(seat, a) == i for i, a in enumerate(actions))


def test_seat_s_frame_is_the_board_and_the_others_are_rotated():
    state = rules.initial_state(4)
    n_step = rules.step_id(state, "Dn")  # S's dwarf north: also "north" in S's frame
    assert step_id_to_action(0, n_step) == n_step
    # Each seat moving its dwarf towards the centre plays the same action in its own frame.
    towards_centre = {0: "Dn", 1: "De", 2: "Ds", 3: "Dw"}
    actions = {rules.step_id(state, "Dn")}
    for seat in (1, 2, 3):
        probe = rules.from_spn(rules.to_spn(state).replace(" S 1 1 ", f" {'SWNE'[seat]} 1 1 "))
        actions.add(step_id_to_action(seat, rules.step_id(probe, towards_centre[seat])))
    assert len(actions) == 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_mask_is_the_legal_steps_of_the_player_to_move_only(players):
    state = rules.initial_state(players)
    rng = np.random.default_rng(players)
    for _ in range(30):
        mover = state.to_move
        for seat in SEATS_IN_PLAY[players]:
            mask = action_mask(state, seat)
            assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
            legal = {step_id_to_action(seat, i) for i in state.legal_ids()}
            assert set(np.flatnonzero(mask)) == (legal if seat == mover else set())
        state.apply(int(rng.choice(state.legal_ids())))


def test_observation_planes_at_the_start():
    state = rules.initial_state(2)
    planes = observation_planes(state, 0, max_turns=200)
    assert planes.shape == OBS_SHAPE and planes.dtype == np.float32
    assert planes[21].sum() == 41  # the board
    assert planes[12].sum() == 4  # rocks
    assert all(planes[k].sum() == 1 for k in range(6))  # both players' three pieces
    assert planes[6:12].sum() == 0  # no third or fourth player
    assert planes[16].min() == 1  # levitation available
    assert planes[17].min() == 1 and planes[18:20].sum() == 0  # one step left
    assert planes[20].max() == pytest.approx(1 / 200)
    assert planes[0, 7, 3] == 1  # S's wizard on d2: row 8 - 1, column d
    assert np.array_equal(observation_planes(state, 2, 200)[:3], planes[:3])  # symmetric start


@pytest.mark.parametrize("players", [2, 3, 4])
def test_global_state_is_the_board_frame_and_who_is_to_move(players):
    env = splut_env.env(num_players=players)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(max_iter=60):
        obs, _, terminated, truncated, _ = env.last()
        state = env.state()
        raw = env.unwrapped
        assert state.shape == STATE_SHAPE and raw.state_space.contains(state)
        assert np.array_equal(state[:22], observation_planes(raw.game_state, 0, raw.max_turns))
        if not (terminated or truncated):  # a dead agent's last step is not a move
            mover = raw.possible_agents.index(agent)
            marks = [state[22 + k].max() for k in range(4)]
            assert marks == [float(k == mover) for k in range(4)]
        action = None if terminated or truncated else rng.choice(np.flatnonzero(obs["action_mask"]))
        env.step(action)


def test_global_state_of_a_finished_game_marks_nobody():
    over = rules.from_spn("S:c4,e5,- N:-,-,- R:a5,e1,g5,i5 - 10 0 - g5 -")
    assert global_planes(over, 200)[22:].sum() == 0


def test_an_illegal_action_is_named_with_the_position():
    state = rules.initial_state(2)
    illegal = int(np.flatnonzero(action_mask(state, 0) == 0)[0])
    with pytest.raises(
        rules.IllegalStepError, match=rf"illegal action {illegal} for tester \(seat S\)"
    ):
        checked_step_id(state, 0, illegal, who="tester")


def test_the_reflection_swaps_east_and_west_and_is_its_own_inverse():
    assert sorted(MIRROR_ID) == list(range(NUM_STEP_IDS))
    assert all(MIRROR_ID[MIRROR_ID[i]] == i for i in range(NUM_STEP_IDS))
    state = rules.from_spn(rules.initial_spn(2)).mirrored()
    assert state.pos[:3] == [NAME_SQUARE["f2"], NAME_SQUARE["d2"], NAME_SQUARE["e2"]]
    assert rules.to_spn(state.mirrored()) == rules.initial_spn(2)
    east, west = 1, 3
    assert MIRROR_ID[dwarf_id(east)] == dwarf_id(west)
    assert MIRROR_ID[troll_id(0, 2 + east)] == troll_id(0, 2 + west)
    assert MIRROR_ID[wizard_id(east, NAME_SQUARE["c5"])] == wizard_id(west, NAME_SQUARE["g5"])


def test_a_reflected_2_player_game_plays_as_the_game_reflected():
    """Over random games: the reflected position's legal steps, their effect, observation,
    mask and shield tiers are the position's own, reflected."""
    rng = np.random.default_rng(4)
    tactics = CompiledTactics()
    tiers, mirrored_tiers = np.empty(NUM_ACTIONS, np.int8), np.empty(NUM_ACTIONS, np.int8)
    positions = 0
    for _ in range(8):
        state = rules.initial_state(2)
        reflected = state.mirrored()
        while not state.is_over() and state.turn < 80:
            seat = state.to_move
            assert reflected == state.mirrored() and reflected.mirrored() == state
            assert sorted(reflected.legal_ids()) == sorted(MIRROR_ID[i] for i in state.legal_ids())
            for observer in (0, 2):
                np.testing.assert_array_equal(
                    observation_planes(reflected, observer, 200),
                    mirror_planes(observation_planes(state, observer, 200)),
                )
            np.testing.assert_array_equal(
                action_mask(reflected, seat), action_mask(state, seat)[MIRROR_ACTION]
            )
            tactics.labels(state, tiers)
            tactics.labels(reflected, mirrored_tiers)
            np.testing.assert_array_equal(mirrored_tiers, tiers[MIRROR_ACTION])
            step = int(rng.choice(state.legal_ids()))
            state.apply(step)
            reflected.apply(MIRROR_ID[step])
            positions += 1
        assert reflected.winner() == state.winner()
    assert positions > 300
