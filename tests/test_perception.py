"""The step head (each step scored on its piece's square) and ``training.perception``:
labelled games, the held-out split, the fit, the score and the blunders in a game log."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from splut_env.batched.shield import CompiledTactics
from splut_env.encoding import (
    FRAME_CELL,
    MIRROR_ACTION,
    NUM_ACTIONS,
    action_mask,
    action_to_step_id,
    mirror_planes,
    observation_planes,
    step_id_to_action,
)
from splut_env.envs.gamelog import log_line
from splut_env.players import make_agent
from splut_env.players.checkpoint import CheckpointError, load_checkpoint, save_player
from splut_env.players.network import (
    NetworkShape,
    PolicyAgent,
    PolicyStack,
    StepLogits,
    build_policy,
    policy_weights,
    shape_of,
)
from splut_env.rules import State, from_spn, to_spn
from splut_env.rules.board import DECODED, DWARF, TROLL, WIZARD
from splut_env.rules.notation import step_text
from training import perception

STEPS = NetworkShape(channels=8, blocks=1, features_dim=16, policy_head="steps")


@pytest.fixture(scope="module")
def step_policy():
    torch.manual_seed(5)
    policy = build_policy(STEPS)
    with torch.no_grad():  # scores far from the small initial ones
        policy.features_extractor.steps.conv.weight.normal_()
    return policy


@pytest.fixture(scope="module")
def labelled():
    return perception.label(["greedy", "search:easy"], 2, games=4, seed=7, explore=0.3)


def test_a_step_is_scored_on_its_pieces_square_and_the_levitated_rocks(step_policy):
    state = from_spn(perception.random_opening(2, 9, seed=3))
    seat = state.to_move
    planes = torch.as_tensor(observation_planes(state, seat, 200))[None]
    net = step_policy.features_extractor
    with torch.no_grad():
        scores = net.steps.conv(net.tower(net.stem(planes)))[0].flatten(1)
        logits = PolicyAgent(step_policy).logits(planes.numpy())[0]
    bias = step_policy.action_net.bias.detach()
    where = {kind: int(planes[0, kind].flatten().argmax()) for kind in (WIZARD, TROLL, DWARF)}
    for action, (kind, d, extra) in enumerate(DECODED):
        if kind == WIZARD:
            expected = scores[d if extra < 0 else 4 + d, where[WIZARD]]
            if extra >= 0:
                expected = expected + scores[36 + d, FRAME_CELL[0][extra]]
        elif kind == TROLL:
            expected = scores[8 + d * 6 + extra, where[TROLL]]
        else:
            expected = scores[32 + d, where[DWARF]]
        assert logits[action] == pytest.approx(float(expected + bias[action]), abs=1e-5)


def test_a_step_head_network_saves_loads_and_is_not_stacked(tmp_path, step_policy):
    assert shape_of(policy_weights(step_policy)) == STEPS
    path = save_player(step_policy, tmp_path / "steps.zip", STEPS, num_players=2, max_turns=200)
    loaded = load_checkpoint(path)
    assert loaded.meta["network"]["policy_head"] == "steps"
    planes = np.stack([observation_planes(_start(), 0, 200)] * 3)
    np.testing.assert_allclose(
        PolicyAgent(loaded.policy).logits(planes), PolicyAgent(step_policy).logits(planes)
    )
    assert PolicyStack.of([step_policy, loaded.policy]) is None
    masks = np.stack([action_mask(_start(), 0)] * 3)
    agents = [PolicyAgent(step_policy), PolicyAgent(loaded.policy)]
    together = PolicyAgent.act_batches(agents, [planes, planes], [masks, masks])
    np.testing.assert_array_equal(together[0], together[1])
    assert all(masks[0, a] for a in together[0])


def test_a_mirror_player_plays_a_reflected_position_as_the_position_reflected(
    tmp_path, step_policy
):
    path = save_player(step_policy, tmp_path / "net.zip", STEPS, num_players=2, max_turns=200)
    mirrored, plain = make_agent(f"{path}:mirror"), make_agent(str(path))
    assert mirrored.mirror and mirrored.name == "net.zip:mirror" and not plain.mirror
    rng, moves, differ = np.random.default_rng(3), 0, 0
    state = _start()
    while not state.is_over() and moves < 60:
        seat, reflected = state.to_move, state.mirrored()
        planes = observation_planes(state, seat, 200)[None]
        mean = (plain.logits(planes) + plain.logits(mirror_planes(planes))[:, MIRROR_ACTION]) / 2
        np.testing.assert_allclose(mirrored.logits(planes), mean, rtol=1e-5, atol=1e-5)
        action = mirrored.act(state)
        assert mirrored.act(reflected) == MIRROR_ACTION[action]
        assert action_mask(state, seat)[action]
        differ += action != plain.act(state)
        state.apply(
            action_to_step_id(seat, int(rng.choice(np.flatnonzero(action_mask(state, seat)))))
        )
        moves += 1
    assert differ > 0  # the mean is not the plain network's choice everywhere
    planes, masks = observation_planes(_start(), 0, 200)[None], action_mask(_start(), 0)[None]
    together = PolicyAgent.act_batches([mirrored, plain], [planes, planes], [masks, masks])
    assert together[0][0] == mirrored.act_batch(planes, masks)[0]
    assert together[1][0] == plain.act_batch(planes, masks)[0]
    three = save_player(step_policy, tmp_path / "three.zip", STEPS, num_players=3, max_turns=200)
    with pytest.raises(CheckpointError, match="only in 2-player games"):
        make_agent(f"{three}:mirror")


def test_a_fresh_step_head_starts_near_uniform():
    torch.manual_seed(0)
    logits = PolicyAgent(build_policy(STEPS)).logits(observation_planes(_start(), 0, 200)[None])
    assert np.abs(logits).max() < 0.5


def _start() -> State:
    return State.initial(2)


def test_labelled_games_carry_the_shields_tiers_and_replay_from_their_seed_on_any_workers(labelled):
    again = perception.label(["greedy", "search:easy"], 2, games=4, seed=7, explore=0.3, workers=2)
    assert set(labelled) == set(again) == set(perception.FIELDS) - {"expert"}
    for key in labelled:
        np.testing.assert_array_equal(labelled[key], again[key])
    assert set(np.unique(labelled["games"])) == {0, 1, 2, 3}
    legal = labelled["tiers"] > -2
    np.testing.assert_array_equal(legal, labelled["masks"])
    assert set(np.unique(labelled["values"])) <= {-1.0, 0.0, 1.0}
    # the labels of a game's first position are the compiled shield's, in the mover's frame
    first = perception.label_game((["greedy"], 2, 11, 0.0, 200, 0, None))
    state = from_spn(perception.random_opening(2, 2, 11))
    tiers = np.empty(NUM_ACTIONS, np.int8)
    CompiledTactics().labels(state, tiers)
    np.testing.assert_array_equal(first["tiers"][0], tiers)


def test_the_held_out_games_are_the_last_and_never_fitted(labelled):
    train, held = perception.split(labelled, 0.25)
    assert set(np.unique(held["games"])) == {3}
    assert set(np.unique(train["games"])) == {0, 1, 2}
    assert len(train["values"]) + len(held["values"]) == len(labelled["values"])
    with pytest.raises(ValueError, match="at least 2 games"):
        perception.split({k: v[labelled["games"] == 0] for k, v in labelled.items()}, 0.5)


def test_the_score_counts_critical_positions_where_the_likeliest_step_is_best(
    labelled, step_policy
):
    data = {k: v.copy() for k, v in labelled.items()}
    logits = PolicyAgent(step_policy).logits(data["planes"].astype(np.float32))
    logits[~data["masks"]] = -np.inf
    chosen = logits.argmax(1)
    # make the chosen step the only best one in even rows, a worse one in odd rows
    rows = np.arange(len(chosen))
    tiers = np.where(data["masks"], 1, -2).astype(np.int8)
    tiers[rows, chosen] = np.where(rows % 2 == 0, 3, 0)
    many = data["masks"].sum(1) > 1
    data["tiers"] = tiers
    result = perception.score(step_policy, data)
    assert result["critical"]["positions"] == int(many.sum())
    assert result["critical"]["hit"] == pytest.approx(((rows % 2 == 0) & many).sum() / many.sum())
    assert result["kill"]["hit"] == 1.0 and result["safe"]["hit"] == 0.0


@pytest.mark.parametrize("taught", [False, True])
def test_the_fit_moves_the_policy_towards_the_best_tiers(labelled, step_policy, taught):
    torch.manual_seed(1)
    policy = build_policy(STEPS)
    before = perception.score(policy, labelled)["critical"]["hit"]
    teacher = step_policy if taught else None
    losses = perception.fit(policy, labelled, epochs=6, batch_size=64, lr=3e-3, teacher=teacher)
    assert losses[-1] < losses[0]
    assert perception.score(policy, labelled)["critical"]["hit"] > before


def test_a_reflected_sample_is_the_reflected_positions_and_the_fit_can_draw_them(
    labelled, step_policy
):
    first = perception.label_game((["greedy"], 2, 11, 0.0, 200, 0, None))
    reflected = perception.reflect(first, np.arange(len(first["values"])) == 0)
    state = from_spn(perception.random_opening(2, 2, 11)).mirrored()
    tiers = np.empty(NUM_ACTIONS, np.int8)
    CompiledTactics().labels(state, tiers)
    np.testing.assert_array_equal(reflected["tiers"][0], tiers)
    np.testing.assert_array_equal(reflected["masks"][0], action_mask(state, state.to_move))
    planes = observation_planes(state, state.to_move, 200)
    np.testing.assert_array_equal(reflected["planes"][0, :20], planes[:20])
    for key in ("planes", "masks", "tiers"):  # the other rows untouched
        np.testing.assert_array_equal(reflected[key][1:], first[key][1:])
    # the mirror mean is the mean of the logits of a position and of its reflection, mapped back
    both = perception.reflect(labelled, np.ones(len(labelled["values"]), bool))
    direct, _ = perception.forward(step_policy, labelled)
    flipped, _ = perception.forward(step_policy, both)
    mean = perception.logits_of(step_policy, labelled, mirror=True)
    torch.testing.assert_close(mean, (direct + flipped[:, MIRROR_ACTION]) / 2)
    torch.manual_seed(1)
    policy = build_policy(STEPS)
    before = perception.score(policy, labelled, mirror=True)["critical"]["hit"]
    losses = perception.fit(policy, labelled, epochs=6, batch_size=64, lr=3e-3, mirror=True)
    assert losses[-1] < losses[0]
    assert perception.score(policy, labelled, mirror=True)["critical"]["hit"] > before


def test_mirror_refuses_labels_of_more_than_2_players(tmp_path, capsys):
    path = tmp_path / "three.npz"
    perception.save_labels(perception.label(["greedy"], 3, games=2, seed=1), path)
    with pytest.raises(SystemExit):
        perception.main(["score", "--data", str(path), "--mirror", "x.zip"])
    assert "positions of 3 players" in capsys.readouterr().err


def test_labels_keep_their_table_size_and_a_fit_from_nothing_plays_it(tmp_path, capsys):
    """Labels keep their games' number of players (files without it get it from the planes);
    a fit from nothing records it in the player file, and labels of several table sizes, or
    a network of another size, are refused by name."""
    files = {}
    for n in (2, 3, 4):
        data = perception.label(["greedy"], n, games=2, seed=n)
        assert (data["players"] == n).all()
        files[n] = tmp_path / f"{n}p.npz"
        perception.save_labels(data, files[n])
        old = tmp_path / f"old_{n}p.npz"
        perception.save_labels({k: v for k, v in data.items() if k != "players"}, old)
        assert (perception.load_labels(old)["players"] == n).all()
    small = ["--channels", "8", "--blocks", "1", "--epochs", "1", "--held-out", "0.5"]
    net = tmp_path / "net3.zip"
    perception.main(["fit", "--data", str(files[3]), *small, "--out", str(net)])
    assert load_checkpoint(net).meta["num_players"] == 3
    with pytest.raises(SystemExit):
        perception.main(["fit", "--data", str(files[3]), "--data", str(files[2]), *small,
                         "--out", str(tmp_path / "mixed.zip")])  # fmt: skip
    assert "different numbers of players" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        perception.main(["fit", "--data", str(files[2]), "--init", str(net), *small,
                         "--out", str(tmp_path / "other.zip")])  # fmt: skip
    assert f"--init {net}: a 3-player network, but the labels are of 2-player games" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        perception.main(["score", "--data", str(files[4]), str(net)])
    assert "a 3-player network, but the labels are of 4-player games" in capsys.readouterr().err


def test_a_file_that_is_not_labelled_positions_is_named(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, planes=np.zeros(3))
    with pytest.raises(ValueError, match="not a file of labelled positions"):
        perception.load_labels(bad)
    with pytest.raises(SystemExit):
        perception.main(["label", "--players", "nobody", "--games", "1", "--out", "x.npz"])


def test_a_new_head_starts_over_the_old_tower():
    torch.manual_seed(2)
    linear = build_policy(NetworkShape(channels=8, blocks=1, features_dim=16))
    steps = build_policy(STEPS)
    copied = perception.carry_over(linear, steps)
    old, new = linear.state_dict(), steps.state_dict()
    assert copied == sum(1 for k in new if k in old and new[k].shape == old[k].shape)
    for name in ("features_extractor.stem.0.weight", "features_extractor.tower.0.conv2.bias"):
        assert torch.equal(new[name], old[name])
    assert "features_extractor.steps.conv.weight" not in old


def _logged_game(blunder: bool, seed: int) -> tuple[str, int, int]:
    """A game line whose seat S steps below the best tier (``blunder``) or in it wherever
    that matters, other steps random; with its counts of critical positions and blunders."""
    rng = np.random.default_rng(seed)
    state = from_spn(perception.random_opening(2, 2, seed))
    start, steps, critical, missed = to_spn(state), [], 0, 0
    tactics, tiers = CompiledTactics(), np.empty(NUM_ACTIONS, np.int8)
    while not state.is_over() and len(steps) < 40:
        ids = state.legal_ids()
        sid = ids[rng.integers(len(ids))]
        if state.to_move == 0:
            tactics.labels(state, tiers)
            legal = tiers[tiers > -2]
            if legal.min() < legal.max():
                critical += 1
                missed += blunder
                ranked = sorted(ids, key=lambda i: tiers[step_id_to_action(0, i)])
                sid = ranked[0] if blunder else ranked[-1]
        steps.append(step_text(sid))
        state.apply(sid)
    return log_line(start, steps), critical, missed


def test_blunders_count_the_players_steps_below_the_best_tier_in_a_game_log(tmp_path):
    (bad, bad_critical, bad_missed), (good, good_critical, _) = (
        _logged_game(True, 4),
        _logged_game(False, 5),
    )
    log = tmp_path / "games.txt"
    log.write_text(
        "# splut-env game log\n"
        f"# game 0: S=me N=other; other wins after 9 turns\n{bad}\n"
        f"# game 1: S=me N=other; me wins after 9 turns\n{good}\n"
        f"# game 2: S=other N=third; no winner after 9 turns\n{good}\n"
        f"# game 3: S=a player N=other; a player wins after 9 turns\n{good}\n"
    )
    assert bad_missed > 0 and good_critical > 0
    assert perception.blunders(log, "me") == {
        "games": 2,
        "wins": 1,
        "critical": bad_critical + good_critical,
        "blunders": bad_missed,
        "clean": 1,
        "clean_wins": 1,
    }


def test_ppo_trains_and_saves_a_step_head_network(tmp_path):
    from training.config import parse_config
    from training.train import make_vec_env, new_model

    config = parse_config(
        {
            "n_envs": 2,
            "ppo": {"n_steps": 16, "batch_size": 16, "n_epochs": 1},
            "network": {"channels": 8, "blocks": 1, "features_dim": 16, "policy_head": "steps"},
        }
    )
    model = new_model(config, make_vec_env(config, {"env": 0.0}), tmp_path)
    assert isinstance(model.policy.action_net, StepLogits)
    before = model.policy.features_extractor.steps.conv.weight.detach().clone()
    model.learn(32)
    assert not torch.equal(before, model.policy.features_extractor.steps.conv.weight)
    path = save_player(model.policy, tmp_path / "p.zip", config.network, 2, 200)
    assert load_checkpoint(path).meta["network"]["policy_head"] == "steps"


def test_a_game_log_without_game_headers_or_the_player_is_named(tmp_path):
    good, _, _ = _logged_game(False, 5)
    log = tmp_path / "games.txt"
    log.write_text(f"# splut-env game log\n{good}\n")
    with pytest.raises(ValueError, match="expected a '# game' line before each game"):
        perception.blunders(log, "me")
    log.write_text(f"# game 0: S=a N=b; a wins after 9 turns\n{good}\n")
    with pytest.raises(SystemExit):
        perception.main(["blunders", str(log), "--player", "me"])


def _ends(state: State) -> set:
    """The positions the current turn can end in (the scalar engine, step by step)."""
    if state.is_over() or state.turn != _ends.turn:
        return {state.key()}
    out = set()
    for sid in state.legal_ids():
        child = state.copy()
        child.apply(sid)
        out |= _ends(child)
    return out


@pytest.mark.parametrize("name", ["greedy", "search:expert=300"])
def test_the_expert_label_is_every_step_that_can_still_end_the_turn_where_the_bot_would(name):
    rng = np.random.default_rng(3)
    for game in range(3):
        state = from_spn(perception.random_opening(2, 2, game))
        for _ in range(int(rng.integers(0, 12))):
            state.apply(int(rng.choice(state.legal_ids())))
        planner = perception.expert_bot(name, seed=game)
        labeller = perception.expert_bot(name, seed=game)  # the same draws: the same choice
        plan = planner.plan_turn(state)
        chosen = labeller.turn_steps(state)
        end = state.copy()
        for sid in plan:
            end.apply(sid)
        _ends.turn = state.turn
        for sid in state.legal_ids():
            child = state.copy()
            child.apply(sid)
            reaches = end.key() in _ends(child)
            assert chosen[step_id_to_action(state.to_move, sid)] == reaches, (game, sid)
        assert chosen[step_id_to_action(state.to_move, plan[0])]
        assert not (chosen & ~action_mask(state, state.to_move)).any()


def test_expert_labels_are_kept_reflected_and_fitted_towards(tmp_path, capsys):
    data = perception.label(["greedy"], 2, games=3, seed=2, explore=0.3, expert="greedy")
    again = perception.label(["greedy"], 2, games=3, seed=2, explore=0.3, expert="greedy",
                             workers=2)  # fmt: skip
    np.testing.assert_array_equal(data["expert"], again["expert"])
    assert data["expert"].any(1).all()  # every position has the greedy turn's first steps
    assert not (data["expert"] & ~data["masks"]).any()
    path = tmp_path / "expert.npz"
    perception.save_labels(data, path)
    loaded = perception.load_labels(path)
    np.testing.assert_array_equal(loaded["expert"], data["expert"])
    # the target spreads over the expert's steps within the best tier
    allowed = perception.allowed_steps(data).numpy()
    tiers = data["tiers"]
    best = tiers == tiers.max(1, keepdims=True)
    inside = (data["expert"] & best).any(1)
    np.testing.assert_array_equal(allowed[inside], (data["expert"] & best)[inside])
    np.testing.assert_array_equal(allowed[~inside], data["expert"][~inside])
    # the expert's share of the target: none gives the best tier's, a half the mean of both
    plain = perception.targets_of({k: v for k, v in data.items() if k != "expert"})
    torch.testing.assert_close(perception.targets_of(data, expert_weight=0.0), plain)
    only = perception.targets_of(data)
    torch.testing.assert_close(
        only, torch.as_tensor(allowed / allowed.sum(1, keepdims=True)).float()
    )
    half = perception.targets_of(data, expert_weight=0.5)
    torch.testing.assert_close(half, (plain + only) / 2)
    reflected = perception.reflect(data, np.ones(len(data["values"]), bool))
    np.testing.assert_array_equal(reflected["expert"], data["expert"][:, MIRROR_ACTION])
    torch.manual_seed(1)
    policy = build_policy(STEPS)
    before = perception.score(policy, data)["expert"]["hit"]
    perception.fit(policy, data, epochs=6, batch_size=64, lr=3e-3)
    assert perception.score(policy, data)["expert"]["hit"] > before
    # a file without expert labels merges with one that has them: its rows get none
    plain = tmp_path / "plain.npz"
    perception.save_labels(perception.label(["greedy"], 2, games=2, seed=3), plain)
    out = tmp_path / "net.zip"
    perception.main(["fit", "--data", str(plain), "--data", str(path), "--channels", "8",
                     "--blocks", "1", "--epochs", "1", "--held-out", "0.3",
                     "--out", str(out)])  # fmt: skip
    assert "expert" in capsys.readouterr().out
    assert out.is_file()


def test_an_unknown_expert_is_named(capsys):
    with pytest.raises(ValueError, match="expert 'search:expert=many'"):
        perception.expert_bot("search:expert=many")
    with pytest.raises(SystemExit):
        perception.main(["label", "--expert", "search:nobody", "--games", "1", "--out", "x.npz"])
    assert "--expert" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        perception.main(["fit", "--data", "x.npz", "--expert-weight", "2", "--out", "x.zip"])
    assert "--expert-weight 2.0: expected a share from 0 to 1" in capsys.readouterr().err


# --- the perception phase of self-play PPO ----------------------------------------------------


@pytest.fixture(scope="module")
def rollout():
    """20 steps of 4 self-play games against greedy, recorded as PPO's rollout records
    them: the positions the learner acted in, its observations and its masks."""
    from splut_env.batched.games import BatchedGames
    from training.config import parse_config
    from training.train import make_vec_env

    config = parse_config({"n_envs": 4, "pool": {"bots": ["greedy"], "p_latest": 0, "p_past": 0,
                                                  "p_bots": 1}, "opening_steps": 6})  # fmt: skip
    vec = make_vec_env(config, {"env": 0.0})
    vec.env_method("record_positions", indices=0)
    rng = np.random.default_rng(3)
    observations, masks = [], []
    obs = vec.reset()
    for _ in range(20):
        mask = np.stack(vec.env_method("action_masks"))
        observations.append(obs)
        masks.append(mask)
        obs, _, _, _ = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    positions = vec.env_method("take_positions", indices=0)[0]
    states = BatchedGames(1, 2)
    rebuilt = []
    for row in positions.reshape(-1, positions.shape[-1]):
        states.games[0] = row
        rebuilt.append(states.state(0))
    return positions, np.stack(observations), np.stack(masks).astype(np.float32), rebuilt


def test_self_play_records_the_positions_the_learner_acted_in(rollout):
    positions, observations, masks, states = rollout
    assert positions.shape[:2] == (20, 4)
    flat_obs, flat_masks = observations.reshape(80, *observations.shape[2:]), masks.reshape(80, -1)
    for k, state in enumerate(states):
        seat = state.to_move
        assert np.array_equal(observation_planes(state, seat, 200), flat_obs[k])
        assert np.array_equal(action_mask(state, seat), flat_masks[k] > 0)


def test_rollout_samples_are_the_critical_positions_with_the_shields_tiers(rollout):
    positions, observations, masks, states = rollout
    samples = perception.rollout_samples(
        positions, observations, masks, 1.0, np.random.default_rng(0)
    )
    expected = []
    for k, state in enumerate(states):
        tiers = np.empty(NUM_ACTIONS, np.int8)
        CompiledTactics().labels(state, tiers)
        legal = tiers[tiers > -2]
        if legal.min() < legal.max():
            expected.append((k, tiers))
    assert 0 < len(expected) < len(states)
    assert np.array_equal(samples["tiers"], np.stack([t for _, t in expected]))
    flat = observations.reshape(len(states), *observations.shape[2:])
    assert np.array_equal(samples["planes"], flat[[k for k, _ in expected]])
    assert np.array_equal(samples["masks"], samples["tiers"] > -2)
    some = perception.rollout_samples(positions, observations, masks, 0.3, np.random.default_rng(0))
    assert len(some["tiers"]) < len(expected)


def test_the_perception_phase_moves_the_policy_towards_the_best_tier(labelled):
    critical = perception.critical_rows(labelled["tiers"])
    samples = {k: labelled[k][critical] for k in ("planes", "turns", "masks", "tiers", "values")}
    torch.manual_seed(2)
    policy = build_policy(STEPS)
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    phases = [perception.perception_phase(policy, optimizer, samples, 4, 33, rng) for _ in range(6)]
    assert {phase["positions"] for phase in phases} == {int(critical.sum())}
    assert phases[-1]["best_tier_share"] > phases[0]["best_tier_share"] + 0.1
    assert phases[-1]["loss"] < phases[0]["loss"]
    assert phases[-1]["entropy"] < phases[0]["entropy"]
    empty = {k: v[:0] for k, v in samples.items()}
    assert perception.perception_phase(policy, optimizer, empty, 1, 64, rng) == {"positions": 0}
