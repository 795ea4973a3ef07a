"""Convert a trusted old-format checkpoint to a player checkpoint:
``python -m training.convert OLD.zip NEW.zip``.

Old checkpoints (splut-env 0.1: a stable-baselines3 ``MaskablePPO`` zip with a
``splut_env.json`` member) are read with pickle, which runs any code planted in the file:
convert only files you trust (your own runs, or the ones this repository shipped). The new
file (:func:`splut_env.players.checkpoint.save_player`) holds JSON and safetensors only, loads without
unpickling anything, and plays exactly as the old one did (this command checks that the
weights read back equal).
"""

from __future__ import annotations

import argparse
import json
import zipfile
from pathlib import Path

import torch

from splut_env.players.checkpoint import LEGACY_FORMAT, META_NAME, load_checkpoint, save_player
from splut_env.players.network import build_policy, shape_of

#: Entries of an old stable-baselines3 zip not to unpickle (they name classes by module paths
#: of earlier versions); stable-baselines3 uses these values instead.
OLD_OBJECTS = {"policy_kwargs": {}, "lr_schedule": None, "learning_rate": 0.0, "clip_range": None}


def convert(source: str | Path, target: str | Path) -> Path:
    """Convert the trusted old-format checkpoint ``source``; returns ``target``."""
    from stable_baselines3.common.save_util import load_from_zip_file

    source, target = Path(source), Path(target)
    try:
        with zipfile.ZipFile(source) as zf:
            meta = json.loads(zf.read(META_NAME))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as err:
        raise ValueError(
            f"{str(source)!r} is not an old-format splut-env checkpoint: {err}"
        ) from err
    if not isinstance(meta, dict) or meta.get("format") != LEGACY_FORMAT:
        raise ValueError(f"{str(source)!r}: {META_NAME} does not say format {LEGACY_FORMAT!r}")
    # Unpickles: trusted files only. The pickled policy_kwargs name the network's class by
    # its 0.1/0.2 module path, which is gone; the shape is read from the weights instead.
    _, params, _ = load_from_zip_file(source, device="cpu", custom_objects=OLD_OBJECTS)
    shape = shape_of(params["policy"])
    policy = build_policy(shape)
    policy.load_state_dict(params["policy"])
    facts = {k: v for k, v in meta.items() if k in ("steps", "run", "seed")}
    save_player(policy, target, shape, meta["num_players"], meta["max_turns"], **facts)
    loaded = load_checkpoint(target).policy.state_dict()
    for name, tensor in policy.state_dict().items():
        if not torch.equal(loaded[name], tensor):
            raise RuntimeError(f"{target}: {name} does not read back equal")
    return target


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "source", type=Path, help="old-format checkpoint (trusted: it is unpickled)"
    )
    parser.add_argument("target", type=Path, help="player checkpoint to write")
    args = parser.parse_args(argv)
    if args.target.exists():
        parser.error(f"{args.target} exists; choose a new file name")
    try:
        convert(args.source, args.target)
    except ValueError as err:
        parser.error(str(err))
    print(f"{args.target}: player checkpoint, same weights as {args.source}")


if __name__ == "__main__":
    main()
