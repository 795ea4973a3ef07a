"""The opponent pool of self-play: frozen snapshots of the learner's weights, saved without
pickle, and the bookkeeping around them. Nothing here knows the game: a snapshot is a
label and a state dict of any torch module."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file

Snapshot = tuple[str, dict[str, torch.Tensor]]  # (label "self@<steps>", policy state dict)


class SnapshotPool:
    """Frozen copies of the learner's policy, oldest first. The first snapshot is kept for
    good; beyond ``max_snapshots`` the oldest of the others is dropped."""

    def __init__(self, max_snapshots: int) -> None:
        self.max_snapshots = max_snapshots
        self.snapshots: list[Snapshot] = []

    def add(self, policy: torch.nn.Module, step: int) -> str:
        state = {k: v.detach().cpu().clone() for k, v in policy.state_dict().items()}
        return self.add_state(state, step)

    def add_state(self, state: dict[str, torch.Tensor], step: int) -> str:
        """Add the snapshot of weights ``state`` (kept as given) taken at ``step``; its
        label."""
        label = f"self@{step}"
        self.snapshots.append((label, state))
        while len(self.snapshots) > self.max_snapshots:
            del self.snapshots[1]
        return label

    def payload(self) -> list[Snapshot]:
        return list(self.snapshots)

    FILES = ("pool.json", "pool.safetensors")

    def save(self, folder: Path) -> None:
        """Write the snapshots to ``folder``: labels in ``pool.json``, weights in
        ``pool.safetensors`` (no pickle)."""
        tensors = {
            f"{i}/{k}": v for i, (_, state) in enumerate(self.snapshots) for k, v in state.items()
        }
        (folder / "pool.json").write_text(json.dumps({"labels": self.labels()}, indent=2))
        save_file(tensors, folder / "pool.safetensors")

    def load(self, folder: Path) -> None:
        """Read the snapshots :meth:`save` wrote."""
        labels = json.loads((folder / "pool.json").read_text())["labels"]
        tensors = load_file(folder / "pool.safetensors")
        states: list[dict[str, torch.Tensor]] = [{} for _ in labels]
        for key, value in tensors.items():
            index, name = key.split("/", 1)
            states[int(index)][name] = value
        self.snapshots = list(zip(labels, states, strict=True))

    def labels(self) -> list[str]:
        return [label for label, _ in self.snapshots]


def weighted_choice(rng: np.random.Generator, weights: Sequence[float]) -> int:
    """An index into ``weights``, drawn in proportion to them."""
    p = np.asarray(weights, dtype=float)
    return int(rng.choice(len(p), p=p / p.sum()))


def draw_opponent(
    rng: np.random.Generator, draws: Any, order: Sequence[str], num_bots: int
) -> tuple[str | None, int]:
    """One opponent seat's draw (``draws``: a config with ``p_latest``, ``p_past`` and
    ``bot_weights``): ``(label, -1)`` for the snapshot ``label`` of ``order`` (oldest first),
    or ``(None, k)`` for the ``k``-th bot."""
    r = rng.random()
    if order and (r < draws.p_latest or not num_bots):
        return order[-1], -1
    if order and r < draws.p_latest + draws.p_past:
        past = order[:-1] or order
        return past[int(rng.integers(len(past)))], -1
    return None, weighted_choice(rng, draws.bot_weights or [1.0] * num_bots)


def opponent_kind(label: str, latest: str | None) -> str:
    """Group an opponent label for statistics: ``self-latest``, ``self-past`` or a bot."""
    if not label.startswith("self@"):
        return label
    return "self-latest" if label == latest else "self-past"
