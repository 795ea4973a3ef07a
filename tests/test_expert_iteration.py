"""Expert iteration: the search's self-play samples, the replay buffer, a short run, resume."""

from __future__ import annotations

import json

import numpy as np
import pytest

from splut_env import load_agent, make_agent
from splut_env.encoding import PLANE_TURN, step_id_to_action
from splut_env.envs.match import play_game as play_match
from splut_env.players.checkpoint import read_meta
from splut_env.players.tactics import ShieldTactics
from splut_env.rules import State
from training import expert_iteration as ex
from training.config import ConfigError, ExItConfig, parse_config

SMALL = {
    "name": "tiny",
    "iterations": 2,
    "games": 2,
    "workers": 1,
    "full_simulations": 8,
    "fast_simulations": 4,
    "p_full": 0.5,
    "sample_reuse": 2.0,
    "batch_size": 16,
    "max_turns": 20,
    "replay_size": 40,
    "network": {"channels": 8, "blocks": 1, "features_dim": 32},
    "eval": {"every": 1, "games": 2, "bots": ["random"], "ladder": {"random": 0, "greedy": 500}},
}


def test_a_short_run_resumes_and_writes_a_safe_player(tmp_path):
    config = parse_config(SMALL, kind=ExItConfig)
    run = tmp_path / "run"
    player = ex.train(config, run)
    state = json.loads((run / "state.json").read_text())
    assert state["iteration"] == 2 and state["games"] == 4 and state["samples"] > 0
    assert len(state["evals"]) == 2 and 0 <= state["evals"][0]["win_rate/random"] <= 1
    buffer = ex.ReplayBuffer.load(run / "replay.npz", config.replay_size)
    assert buffer.size == min(state["samples"], 40) and buffer.added == state["samples"]
    # Visit distributions over legal steps only; value targets are results.
    data = {k: v[: buffer.size] for k, v in buffer.data.items()}
    assert np.allclose(data["targets"].sum(1), 1) and not (data["targets"][~data["masks"]]).any()
    assert set(np.unique(data["values"])) <= {-1.0, 0.0, 1.0}
    meta = read_meta(player)
    assert meta["trainer"] == "expert_iteration" and meta["reward_shaping"] == 0.0
    before = (run / "player.zip").read_bytes()
    config.iterations = 3
    ex.train(config, run, resume=True)
    state = json.loads((run / "state.json").read_text())
    assert state["iteration"] == 3 and len(state["evals"]) == 3
    assert "iterations: 3\n" in (run / "config.yaml").read_text()  # the next --resume's
    assert (run / "player.zip").read_bytes() != before
    assert "| 3 |" in (run / "MODEL_CARD.md").read_text()
    assert (run / "learning_curve.png").stat().st_size > 0
    # The player plays, alone or searching.
    for spec in (str(player), f"{player}:mcts=8"):
        record = play_match(
            [make_agent(spec, seed=0), make_agent("random", seed=1)], seed=0, max_turns=10
        )
        assert record.steps
    assert load_agent(player, num_players=2).name == "player.zip"
    # A run from that player, its value head started fresh, records the choice.
    start = {**SMALL, "iterations": 1, "init_from": str(player), "init_value": "fresh"}
    ex.train(parse_config(start, kind=ExItConfig), tmp_path / "again")
    assert "init_value: fresh" in (tmp_path / "again" / "config.yaml").read_text()
    assert "its value head started fresh" in (tmp_path / "again" / "MODEL_CARD.md").read_text()


def test_shield_targets_narrow_the_policy_to_the_shields_best_steps(tmp_path):
    """With ``targets: shield`` the network plays alone against the opponents; each of its
    steps is a sample whose target is its own policy over the steps of the shield's best
    tier (zero elsewhere, summing to one); games replay from their seed; a run trains."""
    small = {**SMALL, "targets": "shield", "max_turns": 60, "sample_steps": 2}
    config = parse_config({**small, "opponents": ["greedy"]}, kind=ExItConfig)
    source = "checkpoints/splut_2p.zip"
    game, steps = ex.play_game((source, config, 3))
    assert 0 < len(game["values"]) < steps  # greedy's steps are played, not learnt
    targets, masks = game["targets"], game["masks"]
    assert np.allclose(targets.sum(1), 1) and not targets[~masks].any()
    assert ((targets > 0) & (targets < 1)).any()  # the policy within the tier, not one step
    # Every sample is the network's seat, valued by the game's result: win, loss or a draw
    # at the turn cap.
    assert np.unique(game["values"]).size == 1 and game["values"][0] in {-1.0, 0.0, 1.0}
    again, _ = ex.play_game((source, config, 3))
    assert all(np.array_equal(game[k], again[k]) for k in game)
    # In self-play from the start the first sample is the start position: its target's
    # support is exactly the shield's best tier there.
    config = parse_config({**small, "opponents": ["self"], "opening_steps": 0}, kind=ExItConfig)
    game, steps = ex.play_game((source, config, 4))
    assert len(game["values"]) == steps
    state = State.initial(2)
    best = max(ShieldTactics().tiers(state).values())
    allowed = {
        step_id_to_action(0, sid) for sid, t in ShieldTactics().tiers(state).items() if t == best
    }
    assert set(np.flatnonzero(game["targets"][0])) == allowed
    run = tmp_path / "run"
    ex.train(config, run)
    assert json.loads((run / "state.json").read_text())["iteration"] == 2


@pytest.mark.parametrize("players", [3, 4])
def test_shield_targets_at_larger_tables(players, tmp_path):
    """With 3 or 4 players the network's seats are labelled and the bots' are played; from
    the start the first sample's support is the shield's best tier there; a run trains and
    draws its curve without a ladder rating."""
    source = f"checkpoints/splut_{players}p.zip"
    small = {**SMALL, "targets": "shield", "num_players": players, "max_turns": 40}
    config = parse_config({**small, "opponents": ["greedy"]}, kind=ExItConfig)
    game, steps = ex.play_game((source, config, 5))
    assert 0 < len(game["values"]) < steps
    assert np.allclose(game["targets"].sum(1), 1) and not game["targets"][~game["masks"]].any()
    assert set(np.unique(game["values"])) <= {-1.0, 0.0, 1.0}
    config = parse_config(
        {**small, "opponents": ["self"], "opening_steps": 0, "sample_steps": 0}, kind=ExItConfig
    )
    game, steps = ex.play_game((source, config, 6))
    assert len(game["values"]) == steps  # every seat is the network's
    state = State.initial(players)
    tiers = ShieldTactics().tiers(state)
    allowed = {step_id_to_action(0, sid) for sid, t in tiers.items() if t == max(tiers.values())}
    assert set(np.flatnonzero(game["targets"][0])) == allowed
    tiny = {**small, "iterations": 1, "games": 1, "opponents": ["greedy"], "max_turns": 8}
    ex.train(parse_config({**tiny, "eval": {"every": 1, "games": 1, "bots": ["random"]}},
                          kind=ExItConfig), tmp_path / "run")  # fmt: skip
    state = json.loads((tmp_path / "run" / "state.json").read_text())
    assert state["iteration"] == 1 and 0 <= state["evals"][0]["win_rate/random"] <= 1
    assert (tmp_path / "run" / "learning_curve.png").stat().st_size > 0
    card = (tmp_path / "run" / "MODEL_CARD.md").read_text()
    assert "forced losses checked with 6000 kill checks a turn when two players are left" in card


def test_update_reports_and_lowers_the_mass_outside_the_targets_support():
    """``support_loss`` is minus the log of the policy's mass on the target's steps, and
    updates weighted on it move mass onto them."""
    import torch

    from splut_env.players.network import build_policy

    torch.manual_seed(0)
    config = parse_config(SMALL, kind=ExItConfig)
    policy = build_policy(config.network)
    rng = np.random.default_rng(0)
    batch = {k: np.zeros((8, *shape), dtype) for k, (shape, dtype) in ex.FIELDS.items()}
    batch["planes"] = rng.integers(0, 2, batch["planes"].shape).astype(np.uint8)
    batch["masks"][:, :20] = True
    batch["targets"][:, :2] = 0.5
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.0)
    first = ex.update(policy, optimizer, batch, value_weight=1.0, support_weight=1.0)
    obs = torch.as_tensor(batch["planes"], dtype=torch.float32)
    obs[:, PLANE_TURN] = 0.0  # the turn fraction, apart in the buffer
    logits = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(obs)))
    probs = torch.softmax(logits.detach()[:, :20], dim=1)
    expected = -torch.log(probs[:, :2].sum(1)).mean().item()
    assert first["support_loss"] == pytest.approx(expected, rel=1e-4)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for _ in range(30):
        last = ex.update(policy, optimizer, batch, value_weight=0.0, support_weight=5.0)
    assert last["support_loss"] < first["support_loss"] / 2


def test_replay_buffer_keeps_the_latest_samples(tmp_path):
    buffer = ex.ReplayBuffer(3)
    batch = {k: np.zeros((5, *shape), dtype) for k, (shape, dtype) in ex.FIELDS.items()}
    batch["values"][:] = np.arange(5)
    buffer.add(batch)
    assert buffer.size == 3 and sorted(buffer.data["values"]) == [2.0, 3.0, 4.0]
    buffer.save(tmp_path / "r.npz")
    again = ex.ReplayBuffer.load(tmp_path / "r.npz", 3)
    assert again.next == buffer.next and sorted(again.data["values"]) == [2.0, 3.0, 4.0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"p_full": 1.5}, "p_full must be between 0 and 1"),
        ({"full_simulations": 0}, "full_simulations must be at least 1"),
        ({"eval": {"bots": ["nobody"]}}, "unknown bot 'nobody'"),
        ({"eval": {"ladder": {"greedy": "high"}}}, "must map names to finite numbers"),
        ({"targets": "oracle"}, "targets must be 'search' or 'shield'"),
        ({"opponents": ["self", "nobody"]}, "opponents: unknown bot 'nobody'"),
        ({"opponents": []}, "opponents must name at least one"),
        ({"init_value": "dead"}, "init_value must be one of auto, keep, fresh, got 'dead'"),
    ],
)
def test_bad_config_is_named(change, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(change, kind=ExItConfig)


def test_the_shipped_configs_load():
    from training.config import load_config

    shield = load_config("results/shield_2p_trial/config.yaml", kind=ExItConfig)
    assert shield.targets == "shield" and "search:expert" not in shield.opponents
    assert load_config("configs/splut/exit_2p.yaml", kind=ExItConfig).targets == "search"
    for players in (3, 4):
        larger = load_config(f"results/shield_{players}p/config.yaml", kind=ExItConfig)
        assert larger.num_players == players and larger.targets == "shield"
        assert larger.init_from == f"checkpoints/splut_{players}p.zip"
        assert not {"search:easy", "search:expert"} & set(larger.opponents)  # the yardsticks


def test_command_line_needs_one_of_config_or_resume(tmp_path, capsys):
    with pytest.raises(SystemExit):
        ex.main([])
    assert "give --config or --resume" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ex.main(["--resume", str(tmp_path)])
    assert "no config.yaml there" in capsys.readouterr().err
    (tmp_path / "config.yaml").write_text("name: x\n")
    with pytest.raises(SystemExit):
        ex.main(["--resume", str(tmp_path)])
    assert "no player.zip there" in capsys.readouterr().err
