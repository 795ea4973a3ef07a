"""The demo viewer and the benchmark command lines run and print what they promise."""

from __future__ import annotations

import pytest

from splut_env import bench, demo


def test_demo_plays_a_game_and_saves_the_final_board(tmp_path, capsys):
    image = tmp_path / "final.png"
    demo.main(["--players", "greedy", "random", "--no-color", "--image", str(image)])
    out = capsys.readouterr().out
    assert "turn 1: player_0 (greedy) played" in out and "result after" in out
    assert image.stat().st_size > 0


def test_demo_rejects_bad_players(capsys):
    with pytest.raises(SystemExit):
        demo.main(["--players", "random"])
    assert "expected 2 to 4 agents" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        demo.main(["--players", "random", "nobody"])
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def test_benchmark_prints_every_line(capsys):
    bench.main(["--seconds", "0.2"])
    out = capsys.readouterr().out
    for label in ("engine", "string API", "AEC env()", "connect_four_v3", "ratio"):
        assert label in out
