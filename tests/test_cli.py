"""The demo viewer and the benchmark command lines run and print what they promise."""

from __future__ import annotations

import json

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


def test_benchmark_json_holds_every_figure(capsys):
    bench.main(["--seconds", "0.1", "--players", "3", "--json"])
    captured = capsys.readouterr()
    figures = json.loads(captured.out)
    assert figures["players"] == 3
    for key in ("engine_steps_per_s", "string_api_steps_per_s", "aec_steps_per_s"):
        assert figures[key] > 0
    assert figures["aec_over_connect_four"] == pytest.approx(
        figures["aec_steps_per_s"] / figures["connect_four_turns_per_s"]
    )
    assert "engine (legal_ids + apply)" in captured.err  # progress on stderr


def test_benchmark_prints_every_line(capsys):
    bench.main(["--seconds", "0.2"])
    out = capsys.readouterr().out
    for label in ("engine", "string API", "AEC env()", "connect_four_v3", "ratio"):
        assert label in out
