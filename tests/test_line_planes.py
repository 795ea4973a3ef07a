"""``LinePlanes``: the planes a ``lines`` network reads beside the observation, checked
square by square against the rules walked out on the engine's own position."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from splut_env.batched.shield import CompiledTactics
from splut_env.encoding import FRAME_CELL, NUM_ACTIONS, OBS_SHAPE, observation_planes
from splut_env.players.checkpoint import load_checkpoint, save_player
from splut_env.players.network import LinePlanes, NetworkShape, PolicyStack, build_policy, shape_of
from splut_env.rules import State
from splut_env.rules.board import CELL_KIND, EMPTY, NEIGHBOUR, NUM_SQUARES, ROCK, TROLL, WIZARD
from training.perception import carry_over, main


def fire_lines(state: State, wizards: list[int], throwers: list[int]) -> set[int]:
    """Squares from which a rock thrown by a troll of the seats ``throwers`` lands on one of
    ``wizards``: the throwing troll has left its square."""
    throwing = {state.pos[s * 3 + 1] for s in throwers}
    out = set()
    for start in range(NUM_SQUARES):
        for d in range(4):
            sq = NEIGHBOUR[d][start]
            while sq >= 0:
                cell = state.cells[sq]
                if sq in wizards:
                    out.add(start)
                stops = cell != EMPTY and CELL_KIND[cell] in (WIZARD, TROLL)
                if cell == ROCK or (stops and sq not in throwing):
                    break
                sq = NEIGHBOUR[d][sq]
    return out


def empty(state: State, sq: int) -> bool:
    return sq >= 0 and state.cells[sq] == EMPTY


def reach(state: State, trolls: list[int], steps: int) -> set[int]:
    """The trolls' squares and the squares they walk to in at most ``steps`` empty squares."""
    seen = set(trolls)
    for _ in range(steps):
        seen |= {
            NEIGHBOUR[d][sq] for sq in seen for d in range(4) if empty(state, NEIGHBOUR[d][sq])
        }
    return seen


def next_to(squares: set[int]) -> set[int]:
    return squares | {NEIGHBOUR[d][sq] for sq in squares for d in range(4)} - {-1}


def throws(state: State, side: list[int], levitable: set[int], steps: int) -> set[int]:
    """Squares from which the troll of ``side`` can throw a rock within ``steps`` steps: the
    rock moved there first by levitation (``levitable`` rocks, in the directions a wizard of
    the side can step) or pulled there by the troll, or standing there."""
    trolls = [state.pos[s * 3 + 1] for s in side if state.pos[s * 3 + 1] >= 0]
    wizards = [state.pos[s * 3] for s in side]
    dirs = [d for d in range(4) if any(empty(state, NEIGHBOUR[d][w]) for w in wizards)]
    rocks = set(state.rocks)
    levitated, moving = [rocks], set(levitable)
    for _ in range(2):
        moving |= {
            sq
            for sq in range(NUM_SQUARES)
            if empty(state, sq) and any(NEIGHBOUR[(d + 2) % 4][sq] in moving for d in dirs)
        }
        levitated.append(rocks | moving)
    pulled = {
        sq
        for sq in range(NUM_SQUARES)
        if any(
            NEIGHBOUR[d][sq] in rocks and empty(state, NEIGHBOUR[(d + 2) % 4][sq]) for d in range(4)
        )
    }
    out = set()
    for a in range(steps):
        for b in range(steps - a):
            out |= levitated[a] & next_to(reach(state, trolls, b))
    for b in range(steps - 1):
        out |= reach(state, trolls, b) & pulled
    return out


def expected(state: State) -> np.ndarray:
    me = state.to_move
    foes = [s for s in state.seats if s != me and state.pos[s * 3] >= 0]
    own_lines = fire_lines(state, [state.pos[me * 3]], foes)
    foe_lines = fire_lines(state, [state.pos[s * 3] for s in foes], [me])
    own_troll = [state.pos[me * 3 + 1]] if state.pos[me * 3 + 1] >= 0 else []
    foe_trolls = [state.pos[s * 3 + 1] for s in foes]
    rocks = set(state.rocks)
    if state.lev >= 0:
        own_levitable = {state.lev}
    elif state.lev == -1:
        own_levitable = {sq for sq in rocks if not (state.locked >> sq) & 1}
    else:
        own_levitable = set()
    foe_levitable = {sq for sq in rocks if not (state.moved >> sq) & 1}
    planes = [
        own_lines,
        foe_lines,
        reach(state, own_troll, 1),
        reach(state, own_troll, 2),
        reach(state, foe_trolls, 1),
        reach(state, foe_trolls, 2),
        foe_lines & throws(state, [me], own_levitable, state.steps_left),
        own_lines & throws(state, foes, foe_levitable, 3),
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
    # Back to the planes alone: the wider stem cannot be kept, everything else is.
    assert carry_over(lines, plain) == len(plain.state_dict()) - 3  # the stem, by its 3 names


def test_with_one_step_left_the_kill_plane_is_set_exactly_when_a_throw_kills():
    tactics, tiers = CompiledTactics(), np.empty(NUM_ACTIONS, np.int8)
    last = [s for s in positions(2, games=40, seed=11) if s.steps_left == 1]
    planes = np.stack([observation_planes(s, s.to_move, 200) for s in last])
    with torch.no_grad():
        marked = LinePlanes()(torch.as_tensor(planes))[:, 6].flatten(1).amax(1).numpy() > 0
    kills = []
    for state in last:
        tactics.labels(state, tiers)
        kills.append(tiers.max() == 3)
    assert sum(kills) >= 10  # the games hold kills to find
    assert marked.tolist() == kills


@pytest.mark.parametrize("inputs", ["planes", "lines"])
def test_a_tower_grown_wider_and_deeper_starts_out_playing_as_its_source(inputs):
    torch.manual_seed(5)
    small = NetworkShape(channels=8, blocks=1, features_dim=16, policy_head="steps", inputs=inputs)
    source = build_policy(small)
    grown = build_policy(replace(small, channels=12, blocks=3))
    assert carry_over(source, grown) == len(source.state_dict())
    obs = torch.as_tensor(
        np.stack([observation_planes(s, s.to_move, 200) for s in positions(2, 1, 2)])
    )
    with torch.no_grad():
        before = source.evaluate_actions(obs, torch.zeros(len(obs)))
        after = grown.evaluate_actions(obs, torch.zeros(len(obs)))
        assert torch.allclose(source.extract_features(obs), grown.extract_features(obs), atol=1e-5)
    assert torch.allclose(before[0], after[0], atol=1e-5)  # the value
    assert torch.allclose(before[1], after[1], atol=1e-5)  # the log-probability of a step
    # The new units are live: one step of training moves the weights the old ones read.
    optimizer = torch.optim.SGD(grown.parameters(), lr=0.1)
    grown.set_training_mode(True)
    values, _, _ = grown.evaluate_actions(obs, torch.zeros(len(obs)))
    ((values - 1) ** 2).mean().backward()
    optimizer.step()
    head = grown.features_extractor.head[1].weight.view(16, 12, -1)
    assert head[:, 8:].abs().sum() > 0
    assert grown.features_extractor.tower[2].conv2.weight.abs().sum() > 0


def test_a_tower_that_would_shrink_is_refused_by_name(tmp_path, capsys):
    shape = NetworkShape(channels=8, blocks=1, features_dim=16, policy_head="steps")
    path = save_player(build_policy(shape), tmp_path / "small.zip", shape, 2, 200)
    with pytest.raises(SystemExit):
        main(["fit", "--data", "x.npz", "--init", str(path), "--channels", "4",
              "--out", str(tmp_path / "out.zip")])  # fmt: skip
    assert "--channels 4: --init" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fit", "--data", "x.npz", "--blocks", "0", "--out", str(tmp_path / "out.zip")])
    assert "--blocks 0: expected a positive number" in capsys.readouterr().err
