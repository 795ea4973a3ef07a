"""Average the weights of player checkpoints into one network:
``python -m training.average A.zip B.zip ... --out AVERAGE.zip``.

Each parameter of the result is the mean of that parameter over the inputs (a uniform
"model soup", or stochastic weight averaging when the inputs are the checkpoints of one
run's tail: every training checkpoint holds its policy as ``player.zip``). The inputs must
share a network shape and player count; they are read as player files (JSON and
safetensors, nothing unpickled), and so is the result.

    python -m training.average runs/<run>/checkpoints/step_*/player.zip --last 10 --out avg.zip
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from splut_env.players.checkpoint import (
    Checkpoint,
    CheckpointError,
    load_checkpoint,
    network_shape,
    save_player,
)

#: Metadata keys that :func:`save_player` writes itself.
OWN_KEYS = (
    "format",
    "format_version",
    "layout_version",
    "obs_shape",
    "num_actions",
    "num_players",
    "max_turns",
    "network",
)


def kind_of(checkpoint: Checkpoint) -> dict[str, Any]:
    """What must agree between networks to average them: shape, player count, turn cap."""
    meta = checkpoint.meta
    return {
        "network": network_shape(meta["network"], repr(str(checkpoint.path))),
        "num_players": meta["num_players"],
        "max_turns": meta["max_turns"],
    }


def training_facts(checkpoint: Checkpoint) -> dict[str, Any]:
    """The checkpoint's metadata beyond what :func:`save_player` writes itself (what it was
    trained with), to carry over into a file derived from it."""
    return {k: v for k, v in checkpoint.meta.items() if k not in OWN_KEYS}


def average(paths: Sequence[str | Path], out: str | Path) -> Path:
    """Write the weight average of the player checkpoints ``paths`` to ``out``."""
    if not paths:
        raise ValueError("average needs at least one player checkpoint")
    checkpoints = [load_checkpoint(path) for path in paths]
    first = checkpoints[0]
    ours = kind_of(first)
    for other in checkpoints[1:]:
        theirs = kind_of(other)
        for key in ours:
            if theirs[key] != ours[key]:
                raise CheckpointError(
                    f"{str(other.path)!r}: {key} is {theirs[key]}, but {str(first.path)!r} has "
                    f"{ours[key]}; only networks of one shape and table size can be averaged"
                )
    states = [c.policy.state_dict() for c in checkpoints]
    # All means first: a state dict names a shared module's tensors more than once.
    means = {
        name: torch.stack([state[name] for state in states]).mean(dim=0)
        for name, tensor in states[0].items()
        if tensor.dtype.is_floating_point
    }
    with torch.no_grad():
        for name, tensor in first.policy.state_dict().items():
            if name in means:
                tensor.copy_(means[name])
    facts = training_facts(first)
    facts["averaged_from"] = [str(c.path) for c in checkpoints]
    return save_player(
        first.policy, out, ours["network"], ours["num_players"], ours["max_turns"], **facts
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.average", description=__doc__)
    parser.add_argument("checkpoints", nargs="+", type=Path, help="player checkpoints")
    parser.add_argument(
        "--last", type=int, default=None, help="average only the last N of them, sorted by name"
    )
    parser.add_argument("--out", type=Path, required=True, help="player checkpoint to write")
    args = parser.parse_args(argv)
    paths = list(args.checkpoints)
    if args.last is not None:
        if args.last < 1:
            parser.error(f"--last must be at least 1, got {args.last}")
        paths = sorted(paths)[-args.last :]
    try:
        written = average(paths, args.out)
    except (CheckpointError, OSError) as err:
        parser.exit(2, f"error: {err}\n")
    print(f"averaged {len(paths)} networks into {written}")
    for path in paths:
        print(f"  {path}")


if __name__ == "__main__":
    main()
