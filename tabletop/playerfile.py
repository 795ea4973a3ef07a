"""The player-file container, the same for every game: a zip of exactly two members,
``<game>_env.json`` (the metadata, which names the game) and ``policy.safetensors`` (the
weights). Reading checks the container before anything is decompressed and never calls an
unpickler, so a file from anywhere cannot run code; a file of another game is refused by
name. Each game checks its own metadata (layouts, network shape) on top of this.
"""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

WEIGHTS_NAME = "policy.safetensors"
PLAYER_FORMAT = "splut-env-player"
MAX_META_BYTES = 1 << 20
MAX_WEIGHTS_BYTES = 256 << 20
_META_RE = re.compile(r"([a-z][a-z0-9_]*)_env\.json")
#: The display names of the games whose files a reader may be handed (for messages only).
TITLES = {"splut": "Splut!", "talat": "Talat", "splendor": "Splendor"}


class PlayerFileError(ValueError):
    """A player file that cannot be loaded: missing, damaged, of another format, game or
    layout, or trained for something else. The message names the file and the problem."""


def meta_name(game: str) -> str:
    """The metadata member of ``game``'s player files: ``splut_env.json``."""
    return f"{game}_env.json"


def _quote(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def write_player_file(path: str | Path, game: str, meta: dict[str, Any], weights: bytes) -> Path:
    """Write a player file of ``game``: ``meta`` (JSON-able; ``game`` is added) and the
    safetensors bytes ``weights``. The file appears whole or not at all."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(meta_name(game), json.dumps({**meta, "game": game}, indent=2))
        zf.writestr(WEIGHTS_NAME, weights)
    tmp.replace(path)
    return path


def read_members(path: str | Path, game: str, legacy: tuple[str, ...] = ()) -> dict[str, bytes]:
    """The metadata (key ``"meta"``) and weights (``"weights"``) of ``game``'s player file
    ``path``, checked as a container; raises :class:`PlayerFileError`. ``legacy``: member
    names that mark an old format, whose message the caller gives."""
    path = Path(path)
    where = repr(str(path))
    if path.is_dir():
        raise PlayerFileError(f"player file {where} is a folder; expected a .zip file")
    if not path.is_file():
        raise PlayerFileError(f"player file {where} does not exist")
    own = meta_name(game)
    limits = {own: MAX_META_BYTES, WEIGHTS_NAME: MAX_WEIGHTS_BYTES}
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            names = [i.filename for i in infos]
            if any(name in legacy for name in names):
                raise PlayerFileError(f"player file {where}: legacy")
            other = [m[1] for n in names if (m := _META_RE.fullmatch(n)) and m[1] != game]
            if other and WEIGHTS_NAME in names and len(names) == 2:
                title = TITLES.get(other[0], other[0])
                raise PlayerFileError(
                    f"player file {where} plays {title} (game {other[0]!r}); it cannot play "
                    f"{TITLES.get(game, game)} (game {game!r})"
                )
            if sorted(names) != sorted(limits):
                raise PlayerFileError(
                    f"player file {where} holds {_quote(names)}; a {TITLES.get(game, game)} "
                    f"player file holds exactly {sorted(limits)}"
                )
            members = {}
            for info in infos:
                if info.flag_bits & 0x1:
                    raise PlayerFileError(
                        f"player file {where}: member {info.filename} is encrypted"
                    )
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise PlayerFileError(
                        f"player file {where}: member {info.filename} uses compression method "
                        f"{info.compress_type}; expected stored (0) or deflated (8)"
                    )
                if info.file_size > limits[info.filename]:
                    raise PlayerFileError(
                        f"player file {where}: member {info.filename} is {info.file_size:,} "
                        f"bytes, more than the {limits[info.filename]:,} allowed"
                    )
                members[info.filename] = zf.read(info)
    except PlayerFileError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError, zlib.error) as err:
        raise PlayerFileError(f"player file {where} is not a readable zip file: {err}") from err
    return {"meta": members[own], "weights": members[WEIGHTS_NAME]}


def parse_meta(raw: bytes, game: str, where: str) -> dict[str, Any]:
    """The JSON object of a metadata member, whose ``game`` (absent: ``"splut"``, the files
    written before games were named) must be ``game``; raises :class:`PlayerFileError`."""
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise PlayerFileError(f"{where}: {meta_name(game)} is not valid JSON: {err}") from err
    if not isinstance(meta, dict):
        raise PlayerFileError(
            f"{where}: {meta_name(game)} must hold a JSON object, got {_quote(meta)}"
        )
    named = meta.get("game", "splut")
    if named != game:
        raise PlayerFileError(
            f"{where}: its metadata names game {_quote(named)}; expected {game!r} "
            f"({TITLES.get(game, game)})"
        )
    return meta
