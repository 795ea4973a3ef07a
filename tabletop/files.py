"""Reading the text files users hand us (game logs, configs) with a bound on their size, so
that a huge file or a device such as ``/dev/zero`` gets an error instead of eating memory."""

from __future__ import annotations

from pathlib import Path

#: Default bound on a text file's size: far above any game log or config.
MAX_TEXT_BYTES = 16 << 20


def read_text(path: str | Path, what: str, limit: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of ``path``; raises ``ValueError`` naming ``what`` and the file if it
    cannot be read, is not UTF-8 text or is larger than ``limit`` bytes."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except (OSError, ValueError) as err:  # ValueError: e.g. a NUL byte in the name
        raise ValueError(f"cannot read {what} {str(path)!r}: {err}") from err
    if len(data) > limit:
        raise ValueError(f"{what} {str(path)!r} is larger than {limit:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{what} {str(path)!r} is not UTF-8 text: {err}") from err
    if "\0" in text:
        raise ValueError(f"{what} {str(path)!r} is not a text file (it holds NUL bytes)")
    return text
