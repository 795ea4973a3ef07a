"""Tuning ``search:expert``'s evaluation weights by matches (``training.tune``)."""

from __future__ import annotations

import json

import pytest

from splut_env.batched.bots import EXPERT_WEIGHTS
from training import tune


def test_match_counts_every_game_and_is_reproducible():
    weak = tuple(0.0 if i == 4 else w for i, w in enumerate(EXPERT_WEIGHTS))
    first = tune.match(EXPERT_WEIGHTS, weak, games=6, nodes=30, seed=3)
    assert sum(first) == 6 and all(n >= 0 for n in first)
    assert tune.match(EXPERT_WEIGHTS, weak, games=6, nodes=30, seed=3) == first
    with pytest.raises(ValueError, match="games must be an even number"):
        tune.match(EXPERT_WEIGHTS, weak, games=5, nodes=30, seed=3)


def test_spsa_moves_only_the_tuned_weights_and_writes_its_history(tmp_path):
    result = tune.spsa(2, games=4, nodes=20, workers=1, seed=0, progress=False, out=tmp_path)
    saved = json.loads((tmp_path / "tune.json").read_text())
    assert saved == json.loads(json.dumps(result))
    assert [h["iteration"] for h in saved["history"]] == [1, 2]
    assert all(h["games"] == 4 and -1 <= h["score"] <= 1 for h in saved["history"])
    final = saved["weights"]
    assert final == saved["history"][-1]["weights"] and len(final) == len(EXPERT_WEIGHTS)
    assert saved["start"] == list(tune.BOT_WEIGHTS)
    for i, (w, start) in enumerate(zip(final, tune.BOT_WEIGHTS, strict=True)):
        assert w > 0
        if i not in tune.TUNED:
            assert w == start  # the dwarf fixes the scale; the opponent term is constant


def test_cli_rejects_bad_settings(capsys):
    for argv, message in (
        (["--games", "2", "--workers", "2"], "--games must be at least 2 per worker"),
        (["--nodes", "0"], "--nodes must be at least 1"),
    ):
        with pytest.raises(SystemExit):
            tune.main(argv)
        assert message in capsys.readouterr().err


def test_check_only_plays_the_tuned_weights_against_the_start(tmp_path, capsys):
    with pytest.raises(SystemExit):
        tune.main(["--check-only", "--out", str(tmp_path)])
    assert "tune first" in capsys.readouterr().err
    tuned = tuple(0.0 if i == 4 else w for i, w in enumerate(EXPERT_WEIGHTS))
    run = {"start": list(EXPERT_WEIGHTS), "weights": list(tuned), "history": []}
    (tmp_path / "tune.json").write_text(json.dumps(run))
    tune.main(
        [
            "--check-only",
            "--check",
            "4",
            "--check-nodes",
            "20",
            "--workers",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    check = json.loads((tmp_path / "tune.json").read_text())["check"]
    assert check["games"] == 4 and check["wins"] + check["losses"] + check["draws"] == 4
    low, high = check["interval"]
    assert 0 <= low <= check["score"] <= high <= 1
    assert "tuned against start" in capsys.readouterr().out
