"""The README's and the documentation pages' promises: their Python examples run, every
``splut_env…`` / ``talat_env…`` / ``tabletop…`` name and every file they mention exists, and
every ``python -m`` command they show names a runnable module."""

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
#: The site's own pages (the rules pages, the changelog's list of old module names and the
#: generated API pages are checked in their own ways).
PAGES = {
    path.relative_to(ROOT).as_posix(): path.read_text()
    for path in sorted((ROOT / "docs").rglob("*.md"))
    if not path.name.endswith("_RULES.md") and path.name != "changelog.md"
}
TEXTS = {"README.md": README, **PAGES}


def python_examples(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


EXAMPLES = [(name, code) for name, text in TEXTS.items() for code in python_examples(text)]
FILE_NAMES = (".json", ".zip", ".py", ".yaml", ".md")  # e.g. `splut_env.json`, a checkpoint member
NAMES = sorted(
    name
    for text in TEXTS.values()
    for name in set(re.findall(r"`((?:splut_env|talat_env|tabletop)(?:\.[A-Za-z_]\w*)+)", text))
    if not name.endswith(FILE_NAMES)
)
COMMANDS = sorted({m for text in TEXTS.values() for m in re.findall(r"python -m ([\w.]+)", text)})
PATH_RE = (
    r"`((?:splut_env|talat_env|tabletop|training|tests|configs|scripts|docs|checkpoints)/[\w./]*)`"
)
PATHS = sorted({path for text in TEXTS.values() for path in re.findall(PATH_RE, text)})
#: Folders and reports under results/ (its network files and most game logs are not kept).
RESULTS = sorted(
    {
        path
        for text in TEXTS.values()
        for path in re.findall(r"`(results/[\w./-]*)`", text)
        if path.endswith(("/", ".md", ".yaml", ".png", ".csv", ".json"))
    }
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


@pytest.mark.parametrize(
    "code",
    [code for _, code in EXAMPLES],
    ids=[f"{name}-{i}" for i, (name, _) in enumerate(EXAMPLES)],
)
def test_python_examples_run(code, monkeypatch):
    monkeypatch.chdir(ROOT)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "example", "exec"), {"__name__": "example"})


def test_the_readme_has_a_quick_start_for_each_api():
    assert len(python_examples(README)) >= 5
    assert README.count("\n") <= 250
    for heading in ["rules", "AEC", "Gymnasium", "many games", "training", "evaluation", "play"]:
        assert re.search(rf"^## Quick start: .*{heading}", README, flags=re.M | re.I), heading
    assert "bash scripts/main.sh" in README and "bash scripts/test.sh" in README


def test_every_name_the_docs_mention_exists():
    assert len(NAMES) >= 20 and len(EXAMPLES) >= 10
    missing = []
    for name in NAMES:
        try:
            resolve(name)
        except (ImportError, AttributeError):
            missing.append(name)
    assert missing == []


def test_every_path_the_docs_mention_exists():
    from training.config import MOVED_CONFIGS  # old config paths, named as such

    assert len(PATHS) >= 30 and len(RESULTS) >= 20
    gone = [p for p in PATHS + RESULTS if not (ROOT / p).exists() and p not in MOVED_CONFIGS]
    assert gone == []


def test_the_resolver_refuses_a_missing_name():
    with pytest.raises((ImportError, AttributeError)):
        resolve("splut_env.engine.State")


def test_every_command_names_a_runnable_module():
    assert {"splut_env.play", "splut_env.web", "training.train", "training.evaluate"} <= set(
        COMMANDS
    )
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
