"""Signed manifests of training checkpoints, checked before ``--resume`` unpickles anything.

A training checkpoint holds the whole algorithm state as stable-baselines3 writes it
(``model.zip``), and reading that runs pickle, which can run code planted in the file. So
every checkpoint folder gets ``manifest.json``: the SHA-256 of every file the run wrote
there, signed with HMAC-SHA256 under a key that only this user on this machine has
(``$SPLUT_ENV_KEY_FILE``, else ``~/.config/splut-env/run.key``, made on first use with
mode 600). :func:`verify` refuses a folder whose files changed, or whose manifest was not
signed here (a run folder downloaded from elsewhere), unless the caller trusts it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import shutil
from collections.abc import Sequence
from pathlib import Path

MANIFEST = "manifest.json"
FORMAT = "splut-env-training-checkpoint"


class ManifestError(ValueError):
    """A checkpoint folder whose manifest is missing, does not match its files, or was
    signed by another key."""


def key_file() -> Path:
    """Where this user's signing key lives."""
    configured = os.environ.get("SPLUT_ENV_KEY_FILE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "splut-env" / "run.key"


def _key() -> bytes:
    path = key_file()
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it meanwhile
            pass
        else:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32))
    return path.read_text().strip().encode()


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _signature(unsigned: dict) -> str:
    body = json.dumps(unsigned, sort_keys=True).encode()
    return hmac.new(_key(), body, hashlib.sha256).hexdigest()


def write(folder: Path, names: Sequence[str], **info: object) -> None:
    """Write ``folder/manifest.json`` for the files ``names`` (and JSON-able ``info``)."""
    manifest = {"format": FORMAT, "files": {name: _digest(folder / name) for name in names}, **info}
    manifest["hmac_sha256"] = _signature(manifest)
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2))


#: What reading a foreign checkpoint risks (``training.train``'s: the model is unpickled).
UNPICKLE_RISK = "Resuming unpickles its model, which can run code planted in it"


def verify(folder: Path, trust: bool = False, risk: str = UNPICKLE_RISK) -> dict:
    """The manifest of ``folder`` once every listed file matches its SHA-256 and the
    signature is this user's key (skipped with ``trust``); raises :class:`ManifestError`
    (``risk``: what resuming from a foreign folder would do, said in its message)."""
    where = str(folder)
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except FileNotFoundError:
        raise ManifestError(
            f"checkpoint {where!r} has no {MANIFEST}: it is not a checkpoint folder of "
            "splut-env 0.2 or later (0.1 runs, whose pool is pickled too, cannot be resumed)"
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise ManifestError(f"checkpoint {where!r}: unreadable {MANIFEST}: {err}") from err
    if not isinstance(manifest, dict):
        manifest = {}
    files = manifest.get("files")
    if manifest.get("format") != FORMAT or not isinstance(files, dict):
        raise ManifestError(f"checkpoint {where!r}: {MANIFEST} is not a checkpoint manifest")
    for name, digest in files.items():
        path = folder / name
        if Path(name).name != name or not path.is_file():
            raise ManifestError(f"checkpoint {where!r}: {name!r} listed in {MANIFEST} is missing")
        if not hmac.compare_digest(_digest(path), str(digest)):
            raise ManifestError(
                f"checkpoint {where!r}: {name} changed since the run wrote it (SHA-256 differs "
                f"from {MANIFEST}); it is not unpickled"
            )
    if not trust:
        unsigned = {k: v for k, v in manifest.items() if k != "hmac_sha256"}
        if not hmac.compare_digest(str(manifest.get("hmac_sha256", "")), _signature(unsigned)):
            raise ManifestError(
                f"checkpoint {where!r} was not written by a run of this user on this machine "
                f"(its {MANIFEST} is not signed with {key_file()}). {risk}: pass "
                "--trust-checkpoint only if you trust where it came from"
            )
    return manifest


def check_layout(signed: dict, layout: int, where: str, game: str) -> None:
    """Raise ``ValueError`` naming ``where`` if the signed manifest ``signed`` records an
    observation/action layout other than ``layout`` (this version's for ``game``)."""
    if signed.get("layout_version") != layout:
        raise ValueError(
            f"{where} was trained on observation/action layout "
            f"{signed.get('layout_version')!r}; this splut-env uses {layout} for {game}"
        )


def newest_checkpoint(path: Path, prefix: str, expected: str) -> Path:
    """The newest ``checkpoints/<prefix><number>`` folder of the run folder ``path`` (the
    highest number); ``FileNotFoundError`` naming ``path`` and what was ``expected``."""
    found = [
        p
        for p in (path / "checkpoints").glob(f"{prefix}*")
        if p.is_dir() and p.name[len(prefix) :].isdigit()
    ]
    if not found:
        raise FileNotFoundError(f"no checkpoint in {str(path)!r} ({expected})")
    return max(found, key=lambda p: int(p.name[len(prefix) :]))


def commit(tmp: Path, folder: Path) -> Path:
    """Move a checkpoint written in ``tmp`` to ``folder``: it appears whole or not at all."""
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)
    return folder
