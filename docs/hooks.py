"""MkDocs hooks: the model cards in ``checkpoints/`` and the plots in ``results/`` belong to
the site too, at the same paths as in the repository, so that pages link and show them
without copies under ``docs/``; the docstrings' Sphinx roles (``:mod:`x` ``) read as plain
code and their reST tables keep their columns; and a game's rules page (``docs/<GAME>_RULES.md``) joins the
Games section of the navigation as soon as it lands, even before ``mkdocs.yml`` lists it."""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SHARED = ("checkpoints/*.md", "checkpoints/*.png", "results/**/*.png")


def on_config(config):
    listed = set(re.findall(r"[\w/.-]+\.md", str(config["nav"])))
    games = next(s["Games"] for s in config["nav"] if isinstance(s, dict) and "Games" in s)
    for path in sorted(DOCS.glob("*_RULES.md")):
        if path.name not in listed:
            games.append({f"{path.stem.removesuffix('_RULES').title()} rules": path.name})
    return config


def on_files(files: Files, config) -> Files:
    for pattern in SHARED:
        for path in sorted(ROOT.glob(pattern)):
            files.append(
                File(
                    path.relative_to(ROOT).as_posix(),
                    src_dir=str(ROOT),
                    dest_dir=config["site_dir"],
                    use_directory_urls=config["use_directory_urls"],
                )
            )
    return files


ROLE = re.compile(r":(?:mod|class|func|meth|attr|data|exc|obj):(<code>)~?")
RST_TABLE = re.compile(r"<p>(=+ +=+\n.*?)</p>", flags=re.S)


def on_page_content(html: str, page, config, files) -> str:
    html = ROLE.sub(r"\1", html)
    return RST_TABLE.sub(lambda m: f"<pre>{m.group(1)}</pre>", html)
