"""Resume checkpoints of ``training.rllib`` in safe files only (no pickle on any load path).

RLlib's own ``algorithm.save()`` writes pickles, which can run code planted in them: this
path never writes or reads them. A checkpoint is a folder ``checkpoints/iter_<n>/`` of the
run folder holding what a resume needs:

- ``module.safetensors``: the trained module's policy weights;
- ``optimizer.safetensors`` and ``optimizer.json``: the learner's Adam state, its tensors
  and its scalars (``param_groups``, step counts that are not tensors);
- ``pool.json`` and ``pool.safetensors``: the league's snapshots
  (:class:`training.pool.SnapshotPool`'s files; on the multi-agent path the labels are the
  snapshot modules' ids);
- ``trainer.json``: the iteration, env-step and league counters, and the warm start's
  metrics;
- ``config.yaml``: the run's config;
- ``player.zip``: the policy as the game's player file (also copied to the run folder's
  ``player.zip`` at every checkpoint, atomically);
- ``manifest.json``: the SHA-256 of every file above, signed with this user's key
  (:mod:`training.manifest`); :func:`verified_checkpoint` refuses a checkpoint whose files
  changed, are missing or were signed elsewhere before anything is read.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file

from training import manifest
from training.kits import training_kit

#: The module's weights, the optimizer, the counters, the config.
STATE_FILES = (
    "module.safetensors",
    "optimizer.safetensors",
    "optimizer.json",
    "trainer.json",
    "config.yaml",
)
#: The league's snapshots (:attr:`training.pool.SnapshotPool.FILES`).
POOL_FILES = ("pool.json", "pool.safetensors")
PLAYER = "player.zip"
CHECKPOINT_FILES = (*STATE_FILES, *POOL_FILES, PLAYER)
#: The ``trainer`` entry of this path's manifests.
TRAINER = "rllib"
#: The counters ``trainer.json`` must hold (whole numbers, at least 0).
COUNTERS = ("iteration", "env_steps", "next_snapshot", "made")


def checkpoint_name(iteration: int) -> str:
    """The folder name of the checkpoint after ``iteration``."""
    return f"iter_{iteration:06d}"


def latest_checkpoint(path: Path) -> Path:
    """``path`` if it is a checkpoint folder, else the newest checkpoint of the run folder
    ``path``; ``FileNotFoundError`` naming the path otherwise."""
    path = Path(path)
    if (path / manifest.MANIFEST).is_file() or (path / "trainer.json").is_file():
        return path
    return manifest.newest_checkpoint(
        path,
        "iter_",
        "expected a run folder of training.rllib with checkpoints/iter_*/, or one of those folders",
    )


def verified_checkpoint(path: Path, trust: bool = False) -> Path:
    """The checkpoint to resume from (:func:`latest_checkpoint`), once its signed manifest
    matches every file (:func:`training.manifest.verify`; ``trust`` skips only the signature),
    lists every file of :data:`CHECKPOINT_FILES` and was written by this trainer for the
    game's current observation/action layout. Raises :class:`~training.manifest.ManifestError`
    (a changed, missing or foreign file, named) or ``ValueError``."""
    checkpoint = latest_checkpoint(path)
    signed = manifest.verify(
        checkpoint,
        trust=trust,
        risk="Resuming reads its weights and config into a run (no pickle)",
    )
    unlisted = sorted(set(CHECKPOINT_FILES) - set(signed["files"]))
    if unlisted:
        raise manifest.ManifestError(
            f"checkpoint {str(checkpoint)!r}: {manifest.MANIFEST} does not list {unlisted}"
        )
    if signed.get("trainer") != TRAINER:
        raise ValueError(
            f"checkpoint {str(checkpoint)!r} is not one of training.rllib (trainer "
            f"{signed.get('trainer')!r}); resume it with the trainer that wrote it"
        )
    game = str(signed.get("game"))
    where = f"checkpoint {str(checkpoint)!r}"
    manifest.check_layout(signed, training_kit(game).layout_version, where, game)
    return checkpoint


# --- the optimizer -----------------------------------------------------------------------


def save_optimizer(state: dict[str, Any], folder: Path) -> None:
    """Write a torch optimizer's ``state_dict()`` as ``optimizer.safetensors`` (its tensors,
    keys ``<param index>/<name>``) and ``optimizer.json`` (``param_groups`` and any state
    value that is not a tensor)."""
    tensors: dict[str, torch.Tensor] = {}
    scalars: dict[str, dict[str, Any]] = {}
    for index, values in state["state"].items():
        for name, value in values.items():
            if isinstance(value, torch.Tensor):
                tensors[f"{index}/{name}"] = value.detach().cpu().contiguous()
            else:
                scalars.setdefault(str(index), {})[name] = value
    save_file(tensors, folder / "optimizer.safetensors")
    groups = [
        {k: list(v) if isinstance(v, tuple) else v for k, v in group.items()}
        for group in state["param_groups"]
    ]
    text = json.dumps({"param_groups": groups, "scalars": scalars}, indent=2)
    (folder / "optimizer.json").write_text(text)


def load_optimizer(folder: Path, current: dict[str, Any]) -> dict[str, Any]:
    """The optimizer ``state_dict()`` :func:`save_optimizer` wrote in ``folder``, for an
    optimizer whose state dict now is ``current`` (its group settings' Python types kept);
    ``ValueError`` naming the file if it does not fit."""
    try:
        data = json.loads((folder / "optimizer.json").read_text())
        groups, scalars = data["param_groups"], data["scalars"]
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{folder / 'optimizer.json'}: not an optimizer state ({err})") from err
    if not isinstance(groups, list) or len(groups) != len(current["param_groups"]):
        raise ValueError(
            f"{folder / 'optimizer.json'}: {len(groups) if isinstance(groups, list) else '?'} "
            f"parameter groups, the learner's optimizer has {len(current['param_groups'])}"
        )
    typed = []
    for group, now in zip(groups, current["param_groups"], strict=True):
        if not isinstance(group, dict) or len(group.get("params", [])) != len(now["params"]):
            raise ValueError(
                f"{folder / 'optimizer.json'}: its parameters do not match the learner's "
                "network (was the network changed?)"
            )
        typed.append(
            {
                k: tuple(v) if isinstance(now.get(k), tuple) and isinstance(v, list) else v
                for k, v in group.items()
            }
        )
    state: dict[int, dict[str, Any]] = {}
    for key, value in load_file(folder / "optimizer.safetensors").items():
        index, name = key.split("/", 1)
        state.setdefault(int(index), {})[name] = value
    for index, values in scalars.items():
        state.setdefault(int(index), {}).update(values)
    return {"state": state, "param_groups": typed}


# --- the counters and the player --------------------------------------------------------


def read_trainer(folder: Path) -> dict[str, Any]:
    """``trainer.json`` of a checkpoint: its counters checked (``ValueError`` naming the file
    and the counter)."""
    path = folder / "trainer.json"
    try:
        data = json.loads(path.read_text())
    except ValueError as err:
        raise ValueError(f"{path}: not JSON ({err})") from err
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of counters")
    for name in COUNTERS:
        value = data.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{path}: {name} must be a whole number at least 0, got {value!r}")
    return data


def replace_file(source: Path, target: Path) -> Path:
    """Copy ``source`` over ``target`` atomically (a temporary file beside it, renamed): a
    reader sees the old file or the new one, never a part."""
    tmp = target.with_name(f".{target.name}.tmp")
    shutil.copyfile(source, tmp)
    os.replace(tmp, target)
    return target


def sign(folder: Path, game: str, iteration: int, env_steps: int) -> None:
    """Write the checkpoint's signed manifest over :data:`CHECKPOINT_FILES`."""
    manifest.write(
        folder,
        CHECKPOINT_FILES,
        trainer=TRAINER,
        game=game,
        layout_version=training_kit(game).layout_version,
        iteration=iteration,
        env_steps=env_steps,
    )
