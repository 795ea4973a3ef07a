"""The observation planes, the action layout in each seat's frame, and the global state
(:mod:`splut_env.encoding`)."""

from __future__ import annotations

import numpy as np
import pytest

import splut_env
from splut_env import rules
from splut_env.encoding import (
    NUM_ACTIONS,
    OBS_SHAPE,
    STATE_SHAPE,
    action_mask,
    action_to_step_id,
    checked_step_id,
    global_planes,
    observation_planes,
    step_id_to_action,
)
from splut_env.rules.board import NUM_STEP_IDS, SEATS_IN_PLAY


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
