"""MkDocs hooks: the model cards in ``checkpoints/`` and the plots in ``results/`` belong to
the site too, at the same paths as in the repository, so that pages link and show them
without copies under ``docs/``."""

from __future__ import annotations

from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
SHARED = ("checkpoints/*.md", "checkpoints/*.png", "results/**/*.png")


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
