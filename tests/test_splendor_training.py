"""Splendor's side of self-play training (:mod:`training.splendor_kit`): its configs, the
privacy of what the players see in training, the imitation warm start, and the trainer run
end to end into a Splendor player file."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import splendor_env
import splut_env
import talat_env
from splendor_env import rules
from splendor_env.encoding import action_mask, observation
from splut_env.players.checkpoint import CheckpointError
from tabletop.games import get_game
from tabletop.network import MLPNet
from tabletop.playerfile import PlayerFileError
from training import imitation
from training.config import ConfigError, load_config
from training.kits import training_kit

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs" / "splendor"
SMOKE = CONFIGS / "smoke.yaml"


# --- configs -----------------------------------------------------------------------------------


def test_every_splendor_config_loads_and_keeps_the_top_search_out_of_training():
    paths = sorted(CONFIGS.glob("*.yaml"))
    assert [p.name for p in paths] == [
        "selfplay_2p.yaml", "selfplay_3p.yaml", "selfplay_4p.yaml", "smoke.yaml",
    ]  # fmt: skip
    for path in paths:
        config = load_config(path)
        assert config.game == "splendor"
        searches = {"search:hard", "search:fitted"}
        assert not searches & set(config.pool.bots) and config.pretrain.teacher not in searches
        assert config.reward.shaping > 0  # the descriptor's potential: the prestige margin
    players = [load_config(CONFIGS / f"selfplay_{n}p.yaml").num_players for n in (2, 3, 4)]
    assert players == [2, 3, 4]
    assert load_config(CONFIGS / "selfplay_2p.yaml").pretrain.games > 0


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("num_players=5", "num_players must be 2, 3 or 4 for Splendor, got 5"),
        ("num_players=1", "num_players must be 2, 3 or 4 for Splendor, got 1"),
        ("network.policy_head=steps", "network.policy_head must be 'linear' for Splendor"),
        ("network.inputs=lines", "network.inputs must be 'planes' for Splendor"),
        ("network.stem=1", "network.stem must be 3 for Splendor"),
        ("network.blocks=9", r"network.blocks \(hidden layers of Splendor's network\) must be"),
        ("network.features_dim=4096", r"network.features_dim \(units per hidden layer\) must be"),
        ("pool.bots=[greedy,nobody]", "pool.bots: unknown bot 'nobody'"),
        ("max_turns=401", "max_turns must be at most 400"),
    ],
)
def test_a_bad_splendor_config_is_refused_by_name(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(SMOKE, [override])


def test_the_config_network_is_an_mlp_of_blocks_layers_of_features_dim_units():
    config = load_config(SMOKE, ["network.blocks=3", "network.features_dim=24"])
    policy = training_kit("splendor").build_policy(config.network)
    assert isinstance(policy.features_extractor, MLPNet)
    sizes = [m.out_features for m in policy.features_extractor.layers if hasattr(m, "out_features")]
    assert sizes == [24, 24, 24]


# --- what players see in training ----------------------------------------------------------------


def test_players_in_training_see_only_what_their_seat_may_see():
    for players in (2, 4):
        config = load_config(SMOKE, [f"num_players={players}"])
        env = training_kit("splendor").selfplay_env(config)
        obs, _ = env.reset(seed=3)
        rng = np.random.default_rng(players)
        checked = 0
        for step in range(60):
            for row, state in enumerate(env.states):
                seat = int(env.player[row])
                assert state.to_move == seat  # the learner acts on its own seat's view
                # Any full position with the same view (other deals of the decks and of the
                # others' reserved cards) gives the learner the same input.
                other = rules.determinise(rules.view(state, seat), step * 31 + row)
                np.testing.assert_array_equal(obs[row], observation(other, seat))
                np.testing.assert_array_equal(env.action_masks()[row], action_mask(other, seat))
                checked += rules.to_text(other) != rules.to_text(state)
            masks = env.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, *_ = env.step(actions)
        assert checked > 100


# --- the warm start -----------------------------------------------------------------------------


def _imitation_config(games: int) -> SimpleNamespace:
    pretrain = SimpleNamespace(
        games=games, teacher="greedy", explore=0.1, epochs=25, batch_size=64,
        learning_rate=0.003, dagger_rounds=1, dagger_games=2, soft=False,
    )  # fmt: skip
    ppo = SimpleNamespace(gamma=0.99, vf_coef=0.5, max_grad_norm=0.5)
    return SimpleNamespace(num_players=2, max_turns=400, seed=5, pretrain=pretrain, ppo=ppo)


def test_the_warm_start_learns_greedys_moves():
    config = _imitation_config(3)
    policy = training_kit("splendor").build_policy(load_config(SMOKE).network)
    metrics = imitation.warm_start(get_game("splendor"), policy, config, progress=False)
    assert len(metrics["samples"]) == 2 and min(metrics["samples"]) > 20
    # From about 1 in 10 legal moves at the start.
    assert metrics["accuracy"] > 0.6, metrics


# --- the trainer end to end ----------------------------------------------------------------------


def test_training_writes_a_splendor_player_file_that_the_other_games_refuse(tmp_path):
    runs = tmp_path / "runs"
    done = subprocess.run(
        [sys.executable, "-m", "training.train", "--config", str(SMOKE), "--runs", str(runs),
         "pretrain.games=4", "pretrain.epochs=2", "pretrain.dagger_rounds=1",
         "pretrain.dagger_games=2"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = runs.iterdir()
    player = run_dir / "player.zip"
    agent = splendor_env.load_agent(str(player))
    assert agent.num_players == 2
    game = get_game("splendor")
    rng = random.Random(0)
    for seed in range(2):
        seats = [agent, game.make_agent("random", seed=seed)]
        rng.shuffle(seats)
        record = game.play_game(seats, seed=seed)
        assert rules.is_over(game.from_text(record.final_spn))
    with pytest.raises(PlayerFileError, match=r"plays Splendor \(game 'splendor'\)"):
        talat_env.make_agent(str(player))
    with pytest.raises(CheckpointError, match=r"plays Splendor \(game 'splendor'\)"):
        splut_env.make_agent(str(player))
    card = (run_dir / "MODEL_CARD.md").read_text()
    assert "splendor_env.load_agent" in card
    assert "imitation of greedy over 4 games, then 1 DAgger rounds" in card
    assert "imitation epoch 2/2" in done.stdout
