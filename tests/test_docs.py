"""The documentation site: it builds in strict mode (every link, anchor and reference
resolves), its API reference covers every public name of the games' packages, rules and
environments, and the environment cards agree with the code."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: Modules whose ``__all__`` the API reference must cover, name by name.
EXPORTING = ["splut_env", "splut_env.rules", "talat_env", "talat_env.rules"]
#: Modules whose public classes and functions the API reference must cover.
DEFINING = [
    "splut_env.encoding",
    "splut_env.envs.aec",
    "splut_env.envs.gym",
    "splut_env.envs.vector",
    "splut_env.envs.match",
    "talat_env.encoding",
    "talat_env.envs.aec",
    "talat_env.envs.gym",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs", reason="the [docs] extra (scripts/setup.sh installs it)")
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return out


@pytest.fixture(scope="module")
def api_ids(site) -> set[str]:
    ids: set[str] = set()
    for page in (site / "api").rglob("*.html"):
        ids |= set(re.findall(r'id="([\w.]+)"', page.read_text()))
    return ids


def documented(name: str, obj: object, ids: set[str]) -> bool:
    """Whether the API pages have an entry for ``name`` (or, for a re-export, for the object
    where it is defined; for a module, for its members)."""
    if name in ids:
        return True
    if inspect.ismodule(obj):
        return any(i.startswith(obj.__name__ + ".") for i in ids)
    home = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"
    return home in ids


@pytest.mark.parametrize("module", EXPORTING)
def test_the_api_reference_covers_every_exported_name(module, api_ids):
    mod = importlib.import_module(module)
    missing = [n for n in mod.__all__ if not documented(f"{module}.{n}", getattr(mod, n), api_ids)]
    assert missing == []


@pytest.mark.parametrize("module", DEFINING)
def test_the_api_reference_covers_every_public_class_and_function(module, api_ids):
    mod = importlib.import_module(module)
    public = [
        name
        for name, obj in vars(mod).items()
        if not name.startswith("_")
        and (inspect.isclass(obj) or inspect.isfunction(obj))
        and obj.__module__ == module
    ]
    assert public, module
    assert [n for n in public if f"{module}.{n}" not in api_ids] == []


def test_every_game_page_shows_its_environment_card(site):
    for game, card in [
        ("splut", "Splut! — PettingZoo AEC environment"),
        ("talat", "Talat — PettingZoo AEC environment"),
    ]:
        html = (site / "games" / game / "index.html").read_text()
        assert card in html and "Version history" in html, game


def test_the_splut_page_agrees_with_the_encoding():
    from splut_env.encoding import NUM_ACTIONS, NUM_PLANES, OBS_SHAPE
    from splut_env.envs.aec import STATE_SHAPE

    page = (DOCS / "games" / "splut.md").read_text()
    assert f"float32[{', '.join(map(str, OBS_SHAPE))}]" in page
    assert f"float32[{', '.join(map(str, STATE_SHAPE))}]" in page
    assert f"Discrete({NUM_ACTIONS})" in page
    rows = re.findall(
        r"^\| (\d+)(?:–(\d+))? \|", page.split("### Observation planes")[1], flags=re.M
    )
    planes = [p for a, b in rows for p in range(int(a), int(b or a) + 1)]
    assert planes[:NUM_PLANES] == list(range(NUM_PLANES))


def test_every_page_is_in_the_navigation():
    import yaml

    nav = (ROOT / "mkdocs.yml").read_text()
    config = yaml.safe_load(nav.replace("!!python", "#"))
    listed = set(re.findall(r"[\w/.-]+\.md", str(config["nav"])))
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    rules = {p.name for p in DOCS.glob("*_RULES.md")}  # docs/hooks.py adds any it does not list
    assert pages - listed - rules == set()
