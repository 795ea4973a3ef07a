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

import torch

from splut_env.players.checkpoint import (
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


def average(paths: Sequence[str | Path], out: str | Path) -> Path:
    """Write the weight average of the player checkpoints ``paths`` to ``out``."""
    if not paths:
        raise ValueError("average needs at least one player checkpoint")
    checkpoints = [load_checkpoint(path) for path in paths]
    first = checkpoints[0]
    shape = network_shape(first.meta["network"], repr(str(first.path)))
    for other in checkpoints[1:]:
        facts = {
            "network": (network_shape(other.meta["network"], repr(str(other.path))), shape),
            "num_players": (other.meta["num_players"], first.meta["num_players"]),
            "max_turns": (other.meta["max_turns"], first.meta["max_turns"]),
        }
        for key, (theirs, ours) in facts.items():
            if theirs != ours:
                raise CheckpointError(
                    f"{str(other.path)!r}: {key} is {theirs}, but {str(first.path)!r} has "
                    f"{ours}; only networks of one shape and table size can be averaged"
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
    facts = {k: v for k, v in first.meta.items() if k not in OWN_KEYS}
    facts["averaged_from"] = [str(c.path) for c in checkpoints]
    out = Path(out)
    return save_player(
        first.policy,
        out,
        shape,
        first.meta["num_players"],
        first.meta["max_turns"],
        **facts,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.average", description=__doc__)
    parser.add_argument("checkpoints", nargs="+", type=Path, help="player checkpoints")
    parser.add_argument(
        "--last", type=int, default=None, help="average only the last N of them, sorted by name"
    )
    parser.add_argument("--out", type=Path, required=True, help="player checkpoint to write")
    args = parser.parse_args(argv)
    paths = sorted(args.checkpoints) if args.last is not None else list(args.checkpoints)
    if args.last is not None:
        if args.last < 1:
            parser.error(f"--last must be at least 1, got {args.last}")
        paths = paths[-args.last :]
    try:
        written = average(paths, args.out)
    except (CheckpointError, OSError) as err:
        parser.exit(2, f"error: {err}\n")
    print(f"averaged {len(paths)} networks into {written}")
    for path in paths:
        print(f"  {path}")


if __name__ == "__main__":
    main()
