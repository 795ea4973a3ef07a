"""Expert iteration for the core's games: the game-agnostic tree search (``tabletop.mcts``)
on Talat positions, a short Talat run that resumes and writes a Talat player, and the games
and targets it refuses by name."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_talat_bots import CAPTURE_LOSES_2P, LATE_3P

import talat_env
from tabletop.games import get_game
from tabletop.mcts import MCTS
from talat_env import rules
from talat_env.players.checkpoint import load_checkpoint
from training import expert_iteration as ex
from training.config import ConfigError, ExItConfig, load_config, parse_config

TALAT = get_game("talat")
# gw is frozen and white leads 60 to 50: its L6 taking the black M4 (wb:c2xc3) freezes wb,
# which ends the game, won 65 to 50; its four other moves play on.
CAPTURE_WINS_2P = (
    "2p wb:...../...../..bM4../..wL6../..... bg:gM4..../...../...../...../bM3.... "
    "gw*:...../...../...../...../..... play w "
    "w=bS3,bS4,bS6,bM6,bL3,bL4,bL6,gS3,gS4,gS6,gL3,gL4 b=wS3,wS4,wS6,wM3,wM6,wL3,wL4,gM6,wM4,gM3"
)
# CAPTURE_LOSES_2P: the same with white trailing 50 to 60 (that capture ends the game lost).
# LATE_3P: TALAT_PERFT.md position C; FORCED_PASS_3P is the position after gw:a2-a1, black
# to pass.
FORCED_PASS_3P = rules.to_text(rules.play(rules.from_text(LATE_3P), "gw:a2-a1"))
CAPTURE = "wb:c2xc3"


def uniform(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equal priors and a value of 0 everywhere."""
    return np.zeros(masks.shape), np.zeros(len(masks))


def action_of(state, move: str) -> int:
    """The mover's action index of the legal ``move``."""
    mask = TALAT.observe(state, state.to_move, TALAT.max_turns)["action_mask"]
    for action in np.flatnonzero(mask):
        if TALAT.apply_action(state.copy(), int(action), "test") == move:
            return int(action)
    raise AssertionError(f"{move!r} is not legal")


def legal_mask(state) -> np.ndarray:
    return TALAT.observe(state, state.to_move, TALAT.max_turns)["action_mask"].astype(bool)


# --- the search -----------------------------------------------------------------------------


def test_the_search_finds_a_winning_capture_with_a_uniform_evaluator():
    state = rules.from_text(CAPTURE_WINS_2P)
    before = rules.to_text(state)
    visits = MCTS(TALAT, uniform).search(state, 64)
    assert visits.sum() == 64 and not visits[~legal_mask(state)].any()
    assert int(np.argmax(visits)) == action_of(state, CAPTURE)
    assert rules.to_text(state) == before  # searched on a copy


def test_ended_leaves_back_up_the_games_rewards():
    """Every visit of the capture ends the game: its summed values are exactly its visits
    times the rewards (+1 white, -1 black when it wins; the reverse when it loses), and the
    search avoids the losing one."""
    for text, rewards in [(CAPTURE_WINS_2P, [1.0, -1.0]), (CAPTURE_LOSES_2P, [-1.0, 1.0])]:
        state = rules.from_text(text)
        search = MCTS(TALAT, uniform, batch=1)
        visits = search.search(state, 40)
        root = search.root
        k = int(np.flatnonzero(root.actions == action_of(state, CAPTURE))[0])
        child = root.children[k]
        assert child.mover is None and child.result.tolist() == rewards
        assert root.visits[k] >= 1
        np.testing.assert_allclose(root.value[k], root.visits[k] * np.array(rewards))
    assert visits[action_of(state, CAPTURE)] < visits.max()  # the losing capture


def test_a_forced_pass_and_three_players():
    forced = rules.from_text(FORCED_PASS_3P)
    assert rules.legal_moves(forced) == ["pass"]

    def refuse(observations, masks):
        raise AssertionError("a forced move needs no evaluation")

    visits = MCTS(TALAT, refuse).search(forced, 16)
    assert visits.sum() == 16 and visits[action_of(forced, "pass")] == 16
    # From the position before, the tree goes through black's forced passes; three values
    # per node, and a leaf's value v for its mover is -v/2 for each other player.
    calls = []

    def hopeful(observations, masks):
        calls.append(len(masks))
        return np.zeros(masks.shape), np.full(len(masks), 0.5)

    state = rules.from_text(LATE_3P)
    search = MCTS(TALAT, hopeful, batch=4)
    visits = search.search(state, 48)
    assert visits.sum() == 48 and not visits[~legal_mask(state)].any()
    root = search.root
    assert root.value.shape == (len(root.actions), 3)
    once = [k for k, child in root.children.items() if root.visits[k] == 1 and child.mover]
    assert once
    for k in once:
        expected = np.full(3, -0.25)
        expected[root.children[k].mover] = 0.5
        np.testing.assert_allclose(root.value[k], expected)
    k = int(np.flatnonzero(root.actions == action_of(state, "gw:a2-a1"))[0])
    assert root.children[k].mover == 1 and len(root.children[k].actions) == 1  # black passes
    assert sum(calls) <= 1 + 48


def test_root_noise_is_seeded_and_the_search_refuses_an_ended_game():
    state = TALAT.initial_state(2)
    search = MCTS(TALAT, uniform)

    def noisy(seed: int) -> np.ndarray:
        return search.search(state, 32, noise=(0.3, 0.5, np.random.default_rng(seed)))

    assert np.array_equal(noisy(1), noisy(1))
    assert not np.array_equal(noisy(1), noisy(2))
    assert not np.array_equal(noisy(1), search.search(state, 32))
    over = rules.play(rules.from_text(CAPTURE_WINS_2P), CAPTURE)
    with pytest.raises(ValueError, match="the game is over"):
        search.search(over, 8)
    with pytest.raises(ValueError, match="simulations must be a whole number"):
        search.search(state, 0)


# --- training -------------------------------------------------------------------------------

TINY = {
    "name": "tiny_talat",
    "game": "talat",
    "iterations": 1,
    "games": 2,
    "workers": 1,
    "full_simulations": 6,
    "fast_simulations": 3,
    "p_full": 0.5,
    "sample_reuse": 2.0,
    "batch_size": 16,
    "max_turns": 40,
    "replay_size": 64,
    "network": {"channels": 8, "blocks": 1, "features_dim": 32, "policy_head": "steps"},
    "eval": {"every": 1, "games": 2, "openings": 2, "bots": ["random"]},
}


def test_samples_are_valued_by_the_games_rewards():
    state = rules.from_text(CAPTURE_WINS_2P)
    seen = TALAT.observe(state, 0, TALAT.max_turns)
    mask = seen["action_mask"].astype(bool)
    probs = mask / mask.sum()
    samples = [(seen["observation"], mask, probs, 0), (seen["observation"], mask, probs, 1)]
    TALAT.apply_action(state, action_of(state, CAPTURE), "test")
    fields = ex.core_samples(TALAT, samples, state)
    assert fields["values"].tolist() == [1.0, -1.0]
    assert fields["observations"].dtype == np.float16
    assert fields["observations"].shape == (2, *TALAT.observation_shape)
    cut = ex.core_samples(TALAT, samples, rules.from_text(CAPTURE_WINS_2P))
    assert cut["values"].tolist() == [0.0, 0.0]  # a game cut before its end


def test_a_tiny_talat_run_writes_a_talat_player_that_plays(tmp_path):
    config = parse_config(TINY, kind=ExItConfig)
    run = tmp_path / "run"
    player = ex.train(config, run)
    state = json.loads((run / "state.json").read_text())
    assert state["iteration"] == 1 and state["games"] == 2 and state["samples"] > 0
    assert 0 <= state["evals"][0]["win_rate/random"] <= 1
    buffer = ex.ReplayBuffer.load(run / "replay.npz", config.replay_size, ex.buffer_fields(config))
    data = {k: v[: buffer.size] for k, v in buffer.data.items()}
    assert buffer.size == min(state["samples"], 64)
    assert data["observations"].shape[1:] == TALAT.observation_shape
    assert np.allclose(data["targets"].sum(1), 1) and not data["targets"][~data["masks"]].any()
    assert set(np.unique(data["values"])) <= {-1.0, 0.0, 1.0}
    agent = talat_env.load_agent(player, num_players=2)
    record = TALAT.play_game([agent, TALAT.make_agent("random", seed=1)], seed=0, max_turns=30)
    assert record.steps
    with pytest.raises(ValueError, match="not this run's replay buffer"):
        ex.ReplayBuffer.load(run / "replay.npz", 8)  # Splut!'s fields


def test_the_talat_config_trains_from_the_shipped_network_and_resumes(tmp_path, capsys):
    small = [
        "iterations=1", "games=1", "workers=1", "full_simulations=4", "fast_simulations=2",
        "max_turns=30", "replay_size=64", "batch_size=16", "eval.games=2", "eval.bots=[random]",
    ]  # fmt: skip
    ex.main(["--config", "configs/talat/exit_2p.yaml", "--runs", str(tmp_path), *small])
    (run,) = tmp_path.iterdir()
    saved = (run / "config.yaml").read_text()
    assert "game: talat" in saved and "init_value: keep" in saved and "policy_head: steps" in saved
    meta = load_checkpoint(run / "player.zip").meta
    assert meta["trainer"] == "expert_iteration" and meta["network"]["blocks"] == 4
    before = (run / "player.zip").read_bytes()
    ex.main(["--resume", str(run), "iterations=2"])
    state = json.loads((run / "state.json").read_text())
    assert state["iteration"] == 2 and len(state["evals"]) == 2
    assert (run / "player.zip").read_bytes() != before
    card = (run / "MODEL_CARD.md").read_text()
    assert "expert iteration of Talat" in card and "| 2 |" in card and "steps policy head" in card
    assert (run / "learning_curve.png").stat().st_size > 0
    assert "player:" in capsys.readouterr().out


# --- configs --------------------------------------------------------------------------------


def test_the_shipped_talat_config_loads():
    config = load_config("configs/talat/exit_2p.yaml", kind=ExItConfig)
    assert config.game == "talat" and config.targets == "search" and config.workers == 2
    assert config.init_from == "checkpoints/talat_2p.zip"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"game": "splendor"},
            r"cannot train splendor: Splendor is a game of chance with hidden information",
        ),
        ({"game": "talat", "targets": "shield"}, r"targets: shield is Splut!'s .* not Talat's"),
        ({"game": "talat", "network": {"inputs": "lines"}}, r"network\.inputs must be 'planes'"),
        ({"game": "talat", "eval": {"bots": ["nobody"]}}, "unknown bot 'nobody'"),
    ],
)
def test_games_and_targets_it_cannot_train_are_named(change, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(change, kind=ExItConfig)


def test_the_command_line_refuses_splendor_without_a_traceback(tmp_path, capsys):
    path = tmp_path / "splendor.yaml"
    path.write_text("game: splendor\nnum_players: 2\n")
    with pytest.raises(SystemExit):
        ex.main(["--config", str(path), "--runs", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert "expert iteration cannot train splendor" in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()
