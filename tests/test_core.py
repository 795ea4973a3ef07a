"""The game-agnostic core (:mod:`tabletop`): the game registry, matches, the vector
environment, the evaluation harness, player files refused across games, and the trainer
taking its game from the config."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop import evaluate, games
from tabletop.agents import checked_budget
from tabletop.games import Game, game_names, get_game, register_game
from tabletop.vector import GamesVectorEnv
from training.config import ConfigError, ExItConfig, TrainConfig, load_config

ROOT = Path(__file__).resolve().parents[1]


def test_both_games_are_registered_and_unknown_names_are_refused():
    assert {"splut", "talat"} <= set(game_names())
    assert get_game() is get_game("splut")
    assert get_game("talat").player_counts == (2, 3)
    with pytest.raises(ValueError, match=r"unknown game 'chess': expected one of \["):
        get_game("chess")
    with pytest.raises(ValueError, match="lower-case identifier"):
        register_game("Bad Name", "x:y")


def test_a_game_registered_by_entry_point_is_imported_when_asked_for(monkeypatch):
    monkeypatch.setattr(games, "KNOWN", dict(games.KNOWN))
    register_game("talat_again", "talat_env.game:GAME")
    assert "talat_again" in game_names()
    with pytest.raises(TypeError, match="is not the descriptor of game 'talat_again'"):
        get_game("talat_again")


@pytest.mark.parametrize("name", ["splut", "talat"])
def test_every_game_checks_its_table_sizes(name):
    game = get_game(name)
    with pytest.raises(ValueError, match=f"num_players must be .* for {game.title}, got 5"):
        game.check_players(5)
    with pytest.raises(ValueError, match="got True"):
        game.check_players(True)


@pytest.mark.parametrize("players", [2, 3])
def test_talat_matches_end_with_ranks_and_a_replayable_log(players):
    game = get_game("talat")
    agents = [game.make_agent("random", seed=k) for k in range(players)]
    record = game.play_game(agents, seed=5)
    assert game.player_to_move(game.from_text(record.final_spn)) is None
    assert sorted(record.ranks)[0] == 1 and len(record.ranks) == players
    assert record.turns == len(record.steps) == sum(record.decisions)
    state = game.from_text(record.start_spn)
    for move in record.steps:
        state = game.play(state, move)
    assert game.to_text(state) == record.final_spn
    if record.winner is not None:
        assert record.ranks[record.winner] == 1 and record.ranks.count(1) == 1
    again = game.play_game([game.make_agent("random", seed=k) for k in range(players)], seed=5)
    assert again.steps == record.steps


@pytest.mark.parametrize(("name", "players"), [("splut", 2), ("talat", 2), ("talat", 3)])
def test_vector_env_over_any_game_autoresets_and_reports_outcomes(name, players):
    env = GamesVectorEnv(name, num_envs=4, num_players=players, opponents="random")
    obs, infos = env.reset(seed=0)
    assert obs.shape == (4, *get_game(name).observation_shape)
    rng = np.random.default_rng(0)
    outcomes = []
    for _ in range(400):
        masks = env.action_masks()
        assert masks.any(axis=1).all()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        obs, rewards, terminated, truncated, infos = env.step(actions)
        if "final_info" in infos:
            ended = infos["_final_info"]
            outcomes += infos["final_info"]["outcome"][ended].tolist()
            assert np.array_equal(rewards[ended], infos["final_info"]["outcome"][ended])
        assert np.all(rewards[~(terminated | truncated)] == 0)
    assert outcomes and set(outcomes) <= {-1.0, 0.0, 1.0}
    with pytest.raises(ValueError, match=r"illegal|not a legal|expected"):
        env.step(np.full(4, -1))


def test_vector_env_checks_its_settings():
    with pytest.raises(ValueError, match="num_players must be 2 or 3 for Talat, got 4"):
        GamesVectorEnv("talat", num_players=4)
    with pytest.raises(ValueError, match="expected 1 or 2 opponents"):
        GamesVectorEnv("talat", num_players=3, opponents=["random"] * 3)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        GamesVectorEnv("talat", opponents="nobody")


def test_evaluation_command_plays_talat_and_writes_its_log(tmp_path, capsys):
    out = tmp_path / "eval"
    evaluate.main(
        ["--game", "talat", "--agents", "greedy", "random", "--games", "4", "--workers", "1",
         "--out", str(out)]
    )  # fmt: skip
    summary = (out / "summary.md").read_text()
    assert "| greedy | 4 |" in summary and "seat w (player_0)" in summary
    log = (out / "games.txt").read_text().splitlines()
    assert log[0].startswith("# talat game log")
    assert log[1].startswith("# game 0: w=greedy b=random;")
    start, moves = log[2].split(" | ")
    state = get_game("talat").from_text(start)
    for move in moves.split():
        state = get_game("talat").play(state, move)
    three = tmp_path / "three"
    evaluate.main(
        ["--game", "talat", "--players", "3", "--agents", "greedy", "random", "random",
         "--games", "3", "--workers", "1", "--out", str(three)]
    )  # fmt: skip
    assert "Plackett–Luce" in (three / "summary.md").read_text()


def test_evaluation_refuses_a_table_size_the_game_lacks(capsys):
    with pytest.raises(SystemExit):
        evaluate.main(["--game", "talat", "--players", "4", "--agents", "a", "b", "c", "d"])
    assert "--players must be 2 or 3 for Talat, got 4" in capsys.readouterr().err


def test_budgets_take_ascii_digits_only():
    assert checked_budget("search:hard=10", "search:hard", "10") == 10
    for text in ["١٠", "１０", "²", "+5", " 5"]:
        with pytest.raises(ValueError, match="expected search:hard=N"):
            checked_budget(f"search:hard={text}", "search:hard", text)


def test_configs_name_their_game(tmp_path):
    assert load_config(ROOT / "configs" / "splut" / "default.yaml").game == "splut"
    for path in sorted((ROOT / "configs" / "talat").glob("*.yaml")):
        kind = ExItConfig if path.name.startswith("exit_") else TrainConfig
        assert load_config(path, kind=kind).game == "talat", path
    with pytest.raises(ConfigError, match="game: unknown game 'chess'"):
        load_config(ROOT / "configs" / "talat" / "smoke.yaml", ["game=chess"])
    with pytest.raises(ConfigError, match="num_players must be 2 or 3 for Talat, got 4"):
        load_config(ROOT / "configs" / "talat" / "smoke.yaml", ["num_players=4"])
    with pytest.raises(ConfigError, match="unknown bot 'search:nope'"):
        load_config(ROOT / "configs" / "talat" / "smoke.yaml", ["eval.bots=[search:nope]"])
    with pytest.raises(ConfigError, match=r"perception\.fraction must be 0\.0 for Talat"):
        load_config(ROOT / "configs" / "talat" / "smoke.yaml", ["perception.fraction=0.5"])
    assert load_config(ROOT / "configs" / "talat" / "smoke.yaml", ["reward.shaping=0.5"])


def test_talat_training_writes_a_talat_player_file_that_splut_refuses(tmp_path):
    runs = tmp_path / "runs"
    done = subprocess.run(
        [sys.executable, "-m", "training.train", "--config", "configs/talat/smoke.yaml",
         "--runs", str(runs), "network.policy_head=steps", "pretrain.games=4",
         "pretrain.teacher=search:easy", "pretrain.epochs=2", "pretrain.dagger_rounds=1",
         "pretrain.dagger_games=2"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    (run_dir,) = runs.iterdir()
    player = run_dir / "player.zip"
    import splut_env
    import talat_env
    from splut_env.players.checkpoint import CheckpointError
    from tabletop.playerfile import PlayerFileError

    agent = talat_env.make_agent(str(player))
    game = get_game("talat")
    record = game.play_game([agent, game.make_agent("random")], seed=1)
    assert game.player_to_move(game.from_text(record.final_spn)) is None
    with pytest.raises(
        CheckpointError, match=r"plays Talat \(game 'talat'\); it cannot play Splut!"
    ):
        splut_env.make_agent(str(player))
    with pytest.raises(
        PlayerFileError, match=r"plays Splut! \(game 'splut'\); it cannot play Talat"
    ):
        talat_env.make_agent(str(ROOT / "checkpoints" / "splut_2p.zip"))
    card = (run_dir / "MODEL_CARD.md").read_text()
    assert "talat_env.load_agent" in card and "splut_env.load_agent" not in card
    assert "imitation of search:easy over 4 games, then 1 DAgger rounds" in card
    assert "imitation epoch 2/2" in done.stdout
    assert type(agent.policy.action_net).__name__ == "StepLogits"


def test_game_subclasses_must_implement_the_rules_hooks():
    class Half(Game):
        name = "half"

    with pytest.raises(TypeError, match="abstract"):
        Half()


def test_environment_bases_need_the_games_hooks():
    from tabletop.aec_env import GameAECEnv
    from tabletop.gym_env import GameGymEnv, player_index, score_margins

    for base in (GameGymEnv, GameAECEnv):

        class Half(base):
            game_name = "talat"

        with pytest.raises(TypeError, match="abstract"):
            Half()
    assert score_margins([3, 5, 1], 2.0) == [-1.0, 1.0, -2.0]
    assert player_index(np.int64(1), 2) == 1
    with pytest.raises(ValueError, match=r"player index 0\.\.1, got True"):
        player_index(True, 2)


def test_benchmark_prints_every_figure_as_json(capsys):
    from tabletop import bench

    bench.main(["--game", "talat", "--players", "3", "--seconds", "0.05", "--json"])
    figures = json.loads(capsys.readouterr().out)
    assert figures["game"] == "talat"
    for key in (
        "3p text API playouts",
        "3p engine playouts (legal_ids + apply)",
        "3p AEC env",
        "3p connect_four_v3 (same run)",
        "3p AEC env / connect_four_v3",
        "3p vector env (64 games)",
    ):
        assert figures[key] > 0, key
    with pytest.raises(SystemExit):
        bench.main(["--game", "talat", "--players", "4"])
    assert "--players must be 2 or 3 for Talat, got 4" in capsys.readouterr().err


def test_pooled_self_play_shapes_the_learners_rewards_by_the_score_margin():
    from types import SimpleNamespace

    from training.pooled import PooledSelfPlayEnv

    pool = SimpleNamespace(
        p_latest=0.0, p_past=0.0, p_bots=1.0, bots=["random"], bot_weights=[], player_weights=[]
    )
    game = get_game("talat")
    plain, shaped = (
        PooledSelfPlayEnv(game, 4, 2, 1000, pool, lambda w, label: None, shaping=shaping)
        for shaping in (0.0, 1.0)
    )
    for env in (plain, shaped):
        env.reset(seed=3)
    rng = np.random.default_rng(0)
    moved = 0.0
    for _ in range(120):
        masks = plain.action_masks()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        assert np.array_equal(masks, shaped.action_masks())  # the same games
        _, plain_rewards, done, cut, infos = plain.step(actions)
        _, shaped_rewards, *_ = shaped.step(actions)
        running = ~(done | cut)
        assert np.all(plain_rewards[running] == 0)
        moved += np.abs(shaped_rewards[running]).sum()
        if "final_info" in infos:
            assert set(infos["final_info"]["opponents"][infos["_final_info"]].ravel()) == {"random"}
    assert moved > 0  # captures and goal lines changed the margin, and so the rewards


def test_a_game_of_chance_deals_from_the_seeds_it_is_given():
    from tabletop.vector import GamesVectorEnv

    game = get_game("splendor")
    assert game.chance and not get_game("talat").chance and not get_game("splut").chance
    assert game.to_text(game.initial_state(3, 7)) == game.to_text(game.initial_state(3, 7))
    assert game.to_text(game.initial_state(3, 7)) != game.to_text(game.initial_state(3, 8))

    def deals(seed):
        env = GamesVectorEnv("splendor", num_envs=3, num_players=2)
        env.reset(seed=seed)
        return [game.to_text(state) for state in env.states]

    first = deals(5)
    assert first == deals(5) and first != deals(6) and len(set(first)) == 3
    agents = [game.make_agent("random"), game.make_agent("random")]
    assert game.play_game(agents, seed=4).start_spn == game.play_game(agents, seed=4).start_spn
