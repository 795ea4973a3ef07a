"""Regressions for bad input: each gets the documented error (a ``ValueError`` subclass
quoting what was wrong, or a command line's one-line usage error), never a stray exception,
a traceback, a hang or a silent accept."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

import splut_env
from splut_env import rules
from splut_env.envs.gym import SplutGymEnv
from splut_env.envs.match import play_game
from splut_env.play.session import Game
from splut_env.play.terminal import TerminalGame
from splut_env.play.terminal import main as play_main
from splut_env.play.web import create_app
from splut_env.play.web import main as web_main
from splut_env.players.checkpoint import CheckpointError
from training import evaluate, replay

ROOT = Path(__file__).resolve().parent.parent
CKPT_2P = str(ROOT / "checkpoints" / "splut_2p.zip")
START = rules.initial_spn(2)


def usage_error(main, argv: list[str], capsys) -> str:
    """The one-line usage error of a command line (exit status 2, no traceback)."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error: " in err
    return err


@pytest.fixture
def damaged(tmp_path) -> Path:
    path = tmp_path / "damaged.zip"
    path.write_bytes(Path(CKPT_2P).read_bytes()[:20_000])
    return path


# --- SPN, steps, perft -------------------------------------------------------------------


@pytest.mark.parametrize(
    "turn", ["²", "1" * 5000, "\u0663", "\uff13", "1" * 401, "0", "1000001", "-1", "+5", "1_0"]
)
def test_spn_turn_is_ascii_digits_within_bounds(turn):
    with pytest.raises(rules.InvalidNotationError, match="turn must be a whole number from 1 to"):
        rules.from_spn(f"S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S {turn} 1 - - -")


def test_spn_largest_turn_loads_and_observes():
    state = rules.from_spn("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1000000 3 - - -")
    env = splut_env.env(max_turns=1_000_000)
    env.reset(options={"spn": rules.to_spn(state)})
    assert env.observe("player_0")["observation"][20].max() == 1.0


def test_long_input_is_quoted_short():
    with pytest.raises(rules.InvalidNotationError) as err:
        rules.from_spn("x" * 1_000_000)
    assert len(str(err.value)) < 500
    with pytest.raises(rules.InvalidNotationError) as err:
        rules.play(rules.initial_state(2), "Q" * 100_000)
    assert len(str(err.value)) < 500


@pytest.mark.parametrize("depth", [-1, 1.5, "2", True])
def test_perft_depth_is_checked(depth):
    with pytest.raises(ValueError, match="perft depth must be a whole number from 0"):
        rules.perft(rules.initial_state(2), depth)


# --- environments ------------------------------------------------------------------------


def test_aec_reset_options_step_after_the_end_and_action_conversion():
    env = splut_env.env()
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(options="spn")
    raw = splut_env.raw_env()
    raw.reset(options={"spn": "S:e4,e3,- N:e6,e5,- R:a5,e1,e9,i5 S 10 3 - - -"})
    for _agent in raw.agent_iter():  # first legal action every step: truncated at turn 201
        obs, _, terminated, truncated, _ = raw.last()
        raw.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert not raw.agents
    with pytest.raises(ValueError, match="step\\(\\) after the game is over"):
        raw.step(0)
    raw.game_state = rules.from_spn("S:e4,e3,- N:-,-,- R:a5,e1,e9,i5 - 10 0 - - -")
    with pytest.raises(ValueError, match="the game is over"):
        raw.action_to_step(0)
    raw.reset()
    for action in (196, -1, 1.5, "3", None, True):
        with pytest.raises(ValueError, match="action must be a whole number from 0 to 195"):
            raw.action_to_step(action)
    assert raw.action_to_step(np.int64(24)) == raw.action_to_step(24)


def test_gym_reset_options_are_checked():
    env = SplutGymEnv()
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(options="spn")
    for seat in (1.0, True, 2, "0"):
        with pytest.raises(ValueError, match="learner_player must be None or a player index"):
            env.reset(options={"learner_player": seat})
    with pytest.raises(ValueError, match="action must be a whole number"):
        env.action_to_step(2.5)


# --- checkpoints at a table of another size ----------------------------------------------


def test_a_checkpoint_refuses_a_table_of_another_size(tmp_path, capsys):
    agent = splut_env.load_agent(CKPT_2P)
    three = [agent, splut_env.make_agent("random"), splut_env.make_agent("random")]
    with pytest.raises(ValueError, match="trained for 2 players and cannot play at a table of 3"):
        play_game(three, seed=0)
    with pytest.raises(ValueError, match="trained for 2 players"):
        Game([CKPT_2P, "random", "human"])
    with pytest.raises(ValueError, match="trained for 2 players"):
        SplutGymEnv(num_players=3, opponents=[CKPT_2P, "random"])
    err = usage_error(
        evaluate.main,
        ["--agents", CKPT_2P, "random", "greedy", "--players", "3", "--out", str(tmp_path / "e")],
        capsys,
    )
    assert "trained for 2 players" in err
    err = usage_error(play_main, ["--players", "human", CKPT_2P, "random"], capsys)
    assert "trained for 2 players" in err
    err = usage_error(
        play_main, ["--players", "human", "random", "random", "--hint", CKPT_2P], capsys
    )
    assert "--hint" in err and "trained for 2 players" in err
    client = TestClient(create_app(checkpoints=[CKPT_2P]))
    res = client.post("/api/games", json={"players": ["human", CKPT_2P, "random"]})
    assert res.status_code == 422 and "trained for 2 players" in res.json()["detail"]


# --- training.evaluate -------------------------------------------------------------------


def test_evaluate_refuses_bad_files_and_values_before_playing(tmp_path, capsys, damaged):
    out = str(tmp_path / "out")
    err = usage_error(
        evaluate.main, ["--agents", str(tmp_path / "none.zip"), "random", "--out", out], capsys
    )
    assert "does not exist" in err
    err = usage_error(evaluate.main, ["--agents", str(damaged), "random", "--out", out], capsys)
    assert "not a readable zip file" in err
    taken = tmp_path / "taken"
    taken.write_text("my notes")
    err = usage_error(evaluate.main, ["--agents", "random", "random", "--out", str(taken)], capsys)
    assert "cannot make the output folder" in err and taken.read_text() == "my notes"
    (tmp_path / "out2" / "summary.md").mkdir(parents=True)
    err = usage_error(
        evaluate.main, ["--agents", "random", "greedy", "--out", str(tmp_path / "out2")], capsys
    )
    assert "summary.md exists there and is not a file" in err
    for option, value in [("--max-turns", "0"), ("--openings", "3000"), ("--games", "0"),
                          ("--workers", "0"), ("--seed", "-1"), ("--players", "5")]:  # fmt: skip
        err = usage_error(evaluate.main, ["--agents", "random", "greedy", option, value], capsys)
        assert f"argument {option}: expected a whole number" in err


def test_openings_that_no_random_game_reaches_are_refused_not_looped():
    with pytest.raises(ValueError, match="no game of random steps lasted that long"):
        evaluate.random_opening(2, 3000, seed=1)


# --- training.replay ---------------------------------------------------------------------


def test_replay_refuses_bad_options_and_files(tmp_path, capsys):
    log = tmp_path / "games.txt"
    log.write_text(f"{START} | Dn Ds\n")
    for delay in ("-1", "nan", "inf", "soon"):
        assert "argument --delay: expected seconds" in usage_error(
            replay.main, [str(log), "--delay", delay], capsys
        )
    assert "ending in .gif" in usage_error(replay.main, [str(log), "--gif", "x.xyz"], capsys)
    assert "ending in .gif" in usage_error(replay.main, [str(log), "--gif", str(tmp_path)], capsys)
    blocked = tmp_path / "file"
    blocked.write_text("")
    err = usage_error(replay.main, [str(log), "--gif", str(blocked / "x.gif")], capsys)
    assert "cannot write it" in err
    assert "larger than" in usage_error(replay.main, ["/dev/zero"], capsys)
    assert "cannot read game log" in usage_error(replay.main, [str(tmp_path)], capsys)
    replay.main([str(log), "--gif", str(tmp_path / "ok.gif")])
    assert (tmp_path / "ok.gif").stat().st_size > 0


# --- the terminal player -----------------------------------------------------------------


def session(entries: list[str], game: Game | None = None, hint=None) -> str:
    game = game or Game(["human", "random"], seed=0)
    out = io.StringIO()
    TerminalGame(
        game, io.StringIO("\n".join(entries) + "\n"), out, color=False, hint_agent=hint
    ).run()
    return out.getvalue()


def test_terminal_survives_strange_entries(tmp_path):
    text = session(
        [
            "²",
            "1" * 5000,
            "٣",
            f"save {tmp_path}/a\0b",
            "load /dev/zero",
            f"load {tmp_path}",
            "quit",
        ]
    )
    assert "invalid step '²'" in text
    assert "No step number 1111111111: choose 1 to 3." in text
    assert "Could not save to" in text and "null" in text
    assert "Could not load: game log '/dev/zero' is larger than" in text
    assert "Could not load: cannot read game log" in text
    assert "Game stopped." in text


def test_terminal_command_line_checks_agents_and_values(capsys, damaged):
    err = usage_error(play_main, ["--players", "human", "random", "--hint", "missing.zip"], capsys)
    assert "--hint missing.zip" in err and "does not exist" in err
    assert "argument --delay" in usage_error(play_main, ["--delay", "-1"], capsys)
    assert "argument --seed" in usage_error(play_main, ["--seed", "-3"], capsys)
    assert "not a readable zip file" in usage_error(
        play_main, ["--players", "human", str(damaged)], capsys
    )
    assert "larger than" in usage_error(
        play_main, ["--players", "human", "random", "--load", "/dev/zero"], capsys
    )


# --- the web server ----------------------------------------------------------------------


def test_web_checks_offered_checkpoints_when_it_starts(damaged, capsys):
    with pytest.raises(CheckpointError, match="not a readable zip file"):
        create_app(checkpoints=[str(damaged)])
    assert "not a readable zip file" in usage_error(web_main, ["--agent", str(damaged)], capsys)
    assert "argument --port" in usage_error(web_main, ["--port", "99999"], capsys)


def test_web_limits_bodies_and_shortens_echoes():
    client = TestClient(create_app(checkpoints=[]))
    huge = "x" * (20 << 20)
    res = client.post("/api/games", json={"players": ["human", huge]})
    assert res.status_code == 413 and len(res.text) < 200
    name = "y" * 5000  # under the body limit, over a player name's
    res = client.post("/api/games", json={"players": ["human", name]})
    assert res.status_code == 422 and len(res.text) < 1000
    res = client.post("/api/games", json={"players": ["human", "z" * 400]})
    assert res.status_code == 422 and len(res.text) < 1000 and "unknown player" in res.text

    def chunks():
        for _ in range(100):
            yield b"a" * 4096

    res = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert res.status_code == 413


def test_web_games_share_one_loaded_network_per_checkpoint():
    client = TestClient(create_app(checkpoints=[CKPT_2P]))
    app_games = []
    for shield in ("", ":shield", ""):
        res = client.post("/api/games", json={"players": [CKPT_2P + shield, "random"], "seed": 1})
        assert res.status_code == 201
        app_games.append(res.json()["id"])
    store = next(
        cell.cell_contents
        for route in client.app.routes
        if getattr(route, "name", "") == "new_game"
        for cell in (route.endpoint.__closure__ or ())
        if type(cell.cell_contents).__name__ == "GameStore"
    )
    agents = [store._games[gid][0].agents[0] for gid in app_games]
    networks = {id(getattr(a, "inner", a).policy) for a in agents}
    assert len(networks) == 1 and len({id(a) for a in agents}) == 3


def test_checkpoint_metadata_without_a_zip_member_flag_check(tmp_path):
    # a zip whose directory lists a member under a name with a path is refused by name
    path = tmp_path / "odd.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("../splut_env.json", "{}")
    with pytest.raises(CheckpointError, match="holds exactly"):
        splut_env.load_agent(str(path))


class Cheater(splut_env.Agent):
    """Always plays action 170: the troll throws north, never legal at the start."""

    needs_observation = False
    name = "cheater"

    def act(self, state, observation=None):
        return 170


def test_an_illegal_agent_action_gets_one_message_everywhere():
    expected = r"illegal action 170 for .*cheater.* \(seat S\) in position .*: expected an action with a 1 in its action mask"
    with pytest.raises(splut_env.IllegalStepError, match=expected):
        play_game([Cheater(), splut_env.make_agent("random")], seed=0)
    with pytest.raises(splut_env.IllegalStepError, match=expected):
        Game([Cheater(), "human"]).agent_step()
    env = SplutGymEnv(opponents=Cheater(), learner_player=1)
    with pytest.raises(splut_env.IllegalStepError, match=expected):
        env.reset(seed=0)


def test_resume_refuses_a_folder_without_a_manifest(tmp_path):
    from training import manifest

    folder = tmp_path / "checkpoints" / "step_0000000256"
    folder.mkdir(parents=True)
    (folder / "trainer.json").write_text("{}")
    for trust in (False, True):
        with pytest.raises(manifest.ManifestError, match=r"has no manifest\.json"):
            manifest.verify(folder, trust=trust)
    (folder / "manifest.json").write_text('{"format": "other"}')
    with pytest.raises(manifest.ManifestError, match="is not a checkpoint manifest"):
        manifest.verify(folder)
    (folder / "manifest.json").write_text(
        '{"format": "splut-env-training-checkpoint", "files": {"../../x": "00"}}'
    )
    with pytest.raises(manifest.ManifestError, match="is missing"):
        manifest.verify(folder, trust=True)
