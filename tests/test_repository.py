"""The repository stays small and tidy: no large file outside ``checkpoints/`` unless it is
listed here as needed, the working tree (without ``.git``) under 60 MB, and only the configs
a user runs in ``configs/`` (at most six per game, one folder per game)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MB = 1 << 20
#: Files over 1 MB allowed outside ``checkpoints/``, each with the reason it is needed.
NEEDED_LARGE_FILES: dict[str, str] = {}
LARGE = 1 * MB
TREE_LIMIT = 60 * MB
CONFIGS_PER_GAME = 6


def repository_files() -> list[Path]:
    """Every file git tracks or would add (untracked and not ignored), as paths from the root."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    return sorted(
        {Path(name.decode()) for name in listed if name and (ROOT / name.decode()).is_file()}
    )


def large_files(files: list[Path], needed: dict[str, str], root: Path = ROOT) -> list[str]:
    """The files over 1 MB outside ``checkpoints/`` that ``needed`` does not list."""
    return [
        path.as_posix()
        for path in files
        if path.parts[0] != "checkpoints"
        and path.as_posix() not in needed
        and (root / path).stat().st_size > LARGE
    ]


def test_no_large_file_outside_checkpoints_unless_listed():
    found = large_files(repository_files(), NEEDED_LARGE_FILES)
    assert found == [], (
        f"files over 1 MB outside checkpoints/: {found}; keep network files and long game logs "
        "out of the repository (results/README.md says how to reproduce them), or list the file "
        "in NEEDED_LARGE_FILES with the reason it is needed"
    )


def test_the_check_catches_a_new_large_file(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "results" / "network.zip").write_bytes(b"\0" * (LARGE + 1))
    (tmp_path / "checkpoints" / "player.zip").write_bytes(b"\0" * (LARGE + 1))
    (tmp_path / "results" / "summary.md").write_bytes(b"x" * 100)
    files = [
        Path("results/network.zip"),
        Path("checkpoints/player.zip"),
        Path("results/summary.md"),
    ]
    assert large_files(files, {}, tmp_path) == ["results/network.zip"]
    assert large_files(files, {"results/network.zip": "a page plays it"}, tmp_path) == []


def test_every_listed_large_file_exists_and_is_large():
    for path in NEEDED_LARGE_FILES:
        assert (ROOT / path).stat().st_size > LARGE, path


def test_the_working_tree_stays_under_60_mb():
    total = sum((ROOT / path).stat().st_size for path in repository_files())
    assert total < TREE_LIMIT, f"{total / MB:.1f} MB in the working tree (without .git)"


def test_configs_hold_only_the_configs_a_user_runs():
    configs = ROOT / "configs"
    assert sorted(p.name for p in configs.glob("*.yaml")) == [], "configs go in configs/<game>/"
    games = [folder for folder in configs.iterdir() if folder.is_dir()]
    assert {"splut", "talat"} <= {folder.name for folder in games}
    for folder in games:
        count = len(list(folder.glob("*.yaml")))
        assert 1 <= count <= CONFIGS_PER_GAME, f"{folder.name}: {count} configs"
    assert (configs / "splut" / "default.yaml").is_file()  # scripts/main.sh's main job
