"""The README's promises: its Python examples run, every ``splut_env…`` name and every file
it mentions exists, and every ``python -m`` command it shows names a runnable module."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
# The paragraph listing the 0.2 module paths names modules that no longer exist.
CURRENT = re.sub(r"\nMoved in 0\.3.*?\n\n", "\n\n", README, flags=re.S)
EXAMPLES = re.findall(r"```python\n(.*?)```", README, flags=re.S)
FILE_NAMES = (".json", ".zip", ".py", ".yaml", ".md")  # e.g. `splut_env.json`, a checkpoint member
NAMES = sorted(
    name
    for name in set(re.findall(r"`((?:splut_env|talat_env|tabletop)(?:\.[A-Za-z_]\w*)+)", CURRENT))
    if not name.endswith(FILE_NAMES)
)
COMMANDS = sorted(set(re.findall(r"python -m ([\w.]+)", README)))
PATHS = sorted(
    set(
        re.findall(
            r"`((?:splut_env|talat_env|tabletop|training|tests|configs|scripts|docs)/[\w./]*)`",
            CURRENT,
        )
    )
)


def resolve(dotted: str) -> object:
    """The module or attribute a dotted name refers to (``ImportError`` or
    ``AttributeError`` if it does not exist)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(dotted)


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_python_examples_run(code, monkeypatch):
    monkeypatch.chdir(ROOT)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})


def test_every_name_the_readme_mentions_exists():
    assert len(NAMES) >= 8 and len(EXAMPLES) >= 4
    missing = []
    for name in NAMES:
        try:
            resolve(name)
        except (ImportError, AttributeError):
            missing.append(name)
    assert missing == []


def test_every_path_the_readme_mentions_exists():
    assert len(PATHS) >= 30
    assert [p for p in PATHS if not (ROOT / p).exists()] == []


def test_the_resolver_refuses_a_missing_name():
    with pytest.raises((ImportError, AttributeError)):
        resolve("splut_env.engine.State")


def test_every_command_names_a_runnable_module():
    assert {"splut_env.play", "splut_env.web", "training.train"} <= set(COMMANDS)
    for module in COMMANDS:
        spec = importlib.util.find_spec(module)
        assert spec is not None, module
        runnable = spec.submodule_search_locations is None or importlib.util.find_spec(
            module + ".__main__"
        )
        assert runnable, module


@pytest.mark.parametrize("module", ["splut_env.play", "splut_env.web", "splut_env.demo"])
def test_kept_command_names_answer_help(module):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    result = subprocess.run(
        [sys.executable, "-m", module, "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=False,
    )
    assert result.returncode == 0 and "usage:" in result.stdout, result.stderr[-2000:]
