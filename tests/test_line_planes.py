"""``LinePlanes``: the planes a ``lines`` network reads beside the observation, checked
square by square against the rules walked out on the engine's own position."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from splut_env.encoding import FRAME_CELL, OBS_SHAPE, observation_planes
from splut_env.players.checkpoint import load_checkpoint, save_player
from splut_env.players.network import LinePlanes, NetworkShape, PolicyStack, build_policy, shape_of
from splut_env.rules import State
from splut_env.rules.board import CELL_KIND, EMPTY, NEIGHBOUR, NUM_SQUARES, ROCK, TROLL, WIZARD


def fire_lines(state: State, wizard: int) -> set[int]:
    """Squares from which a rock thrown in some direction lands on square ``wizard``."""
    out = set()
    for start in range(NUM_SQUARES):
        for d in range(4):
            sq = NEIGHBOUR[d][start]
            while sq >= 0:
                cell = state.cells[sq]
                if sq == wizard:
                    out.add(start)
                if cell == ROCK or (cell != EMPTY and CELL_KIND[cell] in (WIZARD, TROLL)):
                    break
                sq = NEIGHBOUR[d][sq]
    return out


def reach(state: State, troll: int, steps: int) -> set[int]:
    """The troll's square and the squares it walks to in at most ``steps`` empty squares."""
    seen = {troll}
    for _ in range(steps):
        seen |= {
            NEIGHBOUR[d][sq]
            for sq in seen
            for d in range(4)
            if NEIGHBOUR[d][sq] >= 0 and state.cells[NEIGHBOUR[d][sq]] == EMPTY
        }
    return seen


def next_to(squares: set[int]) -> set[int]:
    return squares | {NEIGHBOUR[d][sq] for sq in squares for d in range(4)} - {-1}


def expected(state: State) -> np.ndarray:
    me = state.to_move
    foes = [s for s in state.seats if s != me and state.pos[s * 3] >= 0]
    own_lines = fire_lines(state, state.pos[me * 3])
    foe_lines = set().union(*(fire_lines(state, state.pos[s * 3]) for s in foes))
    own_troll = [state.pos[me * 3 + 1]] if state.pos[me * 3 + 1] >= 0 else []
    foe_trolls = [state.pos[s * 3 + 1] for s in foes]

    def reached(trolls: list[int], steps: int) -> set[int]:
        return set().union(*(reach(state, t, steps) for t in trolls))

    rocks = set(state.rocks)
    planes = [
        own_lines,
        foe_lines,
        reached(own_troll, 1),
        reached(own_troll, 2),
        reached(foe_trolls, 1),
        reached(foe_trolls, 2),
        rocks & foe_lines & next_to(reached(own_troll, state.steps_left - 1)),
        rocks & own_lines & next_to(reached(foe_trolls, 2)),
    ]
    out = np.zeros((len(planes), 81), np.float32)
    for k, squares in enumerate(planes):
        out[k, [FRAME_CELL[me][sq] for sq in squares]] = 1.0
    return out.reshape(len(planes), 9, 9)


def positions(num_players: int, games: int, seed: int) -> list[State]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        state = State.initial(num_players)
        while not state.is_over() and state.turn < 60:
            out.append(state.copy())
            state.apply(int(rng.choice(state.legal_ids())))
    return out


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_line_planes_follow_the_rules_square_by_square(num_players):
    states = positions(num_players, games=6, seed=num_players)
    planes = np.stack([observation_planes(s, s.to_move, 200) for s in states])
    with torch.no_grad():
        got = LinePlanes()(torch.as_tensor(planes)).numpy()
    want = np.stack([expected(s) for s in states])
    assert got.shape == (len(states), LinePlanes.count, 9, 9)
    for k in range(LinePlanes.count):  # every plane is met in these games
        assert want[:, k].any()
    bad = np.argwhere(got != want)
    assert len(bad) == 0, f"position {bad[0][0]}, plane {bad[0][1]}: {len(bad)} cells differ"


def test_a_lines_network_saves_loads_and_plays_as_itself(tmp_path):
    shape = NetworkShape(channels=8, blocks=1, features_dim=16, inputs="lines")
    torch.manual_seed(3)
    policy = build_policy(shape)
    assert policy.features_extractor.stem[0].weight.shape[1] == OBS_SHAPE[0] + LinePlanes.count
    assert PolicyStack.of([policy, policy]) is None  # the stack reads the planes alone
    path = save_player(policy, tmp_path / "lines.zip", shape, 2, 200)
    loaded = load_checkpoint(path)
    assert shape_of(loaded.policy.state_dict()) == shape
    planes = np.stack([observation_planes(s, s.to_move, 200) for s in positions(2, 1, 0)])
    obs = torch.as_tensor(planes)
    with torch.no_grad():
        same = policy.extract_features(obs), loaded.policy.extract_features(obs)
    assert torch.equal(*same)


def test_a_lines_network_carried_over_from_a_planes_one_starts_out_playing_as_it():
    from training.perception import carry_over

    torch.manual_seed(4)
    plain = build_policy(NetworkShape(channels=8, blocks=1, features_dim=16, policy_head="steps"))
    lines = build_policy(
        NetworkShape(channels=8, blocks=1, features_dim=16, policy_head="steps", inputs="lines")
    )
    assert carry_over(plain, lines) == len(plain.state_dict())
    planes = np.stack([observation_planes(s, s.to_move, 200) for s in positions(2, 1, 1)])
    obs = torch.as_tensor(planes)
    with torch.no_grad():
        assert torch.allclose(plain.extract_features(obs), lines.extract_features(obs))
        assert lines.features_extractor.lines(obs).any()  # the new planes are read as zeros
