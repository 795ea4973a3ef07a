"""Player files of :mod:`tabletop.network` policies, for any game that uses them: write one
(:func:`save_player`), read it back checked (:func:`load_player`), and play it. The container
is :mod:`tabletop.playerfile` (JSON + safetensors, no pickle, the game named); on top of it
this checks the game's observation and action layout, the table size and the network's
shape, so a crafted or foreign file is refused with a message naming it. Needs the
``[train]`` extra.

A file's ``network`` object describes one of two kinds (:data:`NETWORK_KINDS`): a
``planes`` network (:class:`~tabletop.network.PlanesNet`: ``channels``, ``blocks``,
``features_dim``, ``value_hidden``, an optional ``policy_head`` and an optional ``stem``,
the first convolution's kernel, 3 when missing; a file without a
``kind`` key is one) or an ``mlp`` (:class:`~tabletop.network.MLPNet`: ``{"kind": "mlp",
"hidden": [...], "value_hidden": [...]}``). A game's :class:`Layout` says which kinds its
files may hold.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load, save

from tabletop.network import (
    POLICY_HEADS,
    STEMS,
    PolicyAgent,
    build_policy,
    mlp_policy_kwargs,
    planes_policy_kwargs,
    policy_weights,
)
from tabletop.playerfile import (
    PLAYER_FORMAT,
    WEIGHTS_NAME,
    PlayerFileError,
    meta_name,
    parse_meta,
    read_members,
    write_player_file,
)

FORMAT_VERSION = 2
#: Bounds on the network read from a file, so that a crafted one cannot ask for an absurd
#: amount of memory.
LIMITS = {
    "channels": 256,
    "blocks": 32,
    "features_dim": 2048,
    "value_hidden": 2048,
    "hidden": 2048,
}
#: The network kinds a file may describe (see the module doc).
NETWORK_KINDS = ("planes", "mlp")
#: The most hidden layers of an ``mlp`` network, and of any value head.
MAX_HIDDEN_LAYERS = 8
MAX_VALUE_LAYERS = 4


@dataclass(frozen=True)
class Layout:
    """What a game's network files must match: its name, layout version, observation shape,
    action count and table sizes; and, for the ``steps`` policy head, where each action is
    played (:class:`tabletop.network.StepScores`' ``action_pixels``; ``None``: the game
    offers only the ``linear`` head); and the network kinds its files may hold."""

    game: str
    version: int
    obs_shape: tuple[int, ...]
    num_actions: int
    player_counts: tuple[int, ...]
    action_pixels: tuple[int, ...] | None = None
    kinds: tuple[str, ...] = ("planes",)


@dataclass(frozen=True)
class Shape:
    """A policy's network: a ``planes`` :class:`~tabletop.network.PlanesNet`'s sizes and
    policy head, or (``kind="mlp"``) an :class:`~tabletop.network.MLPNet`'s ``hidden``
    layers (``channels``, ``blocks``, ``features_dim`` and ``policy_head`` unused); either
    with a value head of ``value_hidden`` layers."""

    channels: int = 32
    blocks: int = 3
    features_dim: int = 256
    value_hidden: tuple[int, ...] = (64,)
    policy_head: str = "linear"
    kind: str = "planes"
    hidden: tuple[int, ...] = ()
    stem: int = 3

    def policy_kwargs(self, action_pixels: tuple[int, ...] | None = None) -> dict[str, Any]:
        """The policy's keyword arguments; the ``steps`` head needs the game's
        ``action_pixels``."""
        if self.kind == "mlp":
            if not self.hidden:
                raise ValueError("an 'mlp' network needs at least one hidden layer")
            return mlp_policy_kwargs(tuple(self.hidden), tuple(self.value_hidden))
        if self.kind != "planes":
            raise ValueError(
                f"network kind must be one of {list(NETWORK_KINDS)}, got {self.kind!r}"
            )
        if self.policy_head == "steps" and action_pixels is None:
            raise ValueError("the 'steps' policy head needs the game's action_pixels table")
        return planes_policy_kwargs(
            self.channels,
            self.blocks,
            self.features_dim,
            tuple(self.value_hidden),
            action_pixels if self.policy_head == "steps" else None,
            self.stem,
        )

    def to_json(self) -> dict[str, Any]:
        if self.kind == "mlp":
            return {
                "kind": "mlp",
                "hidden": list(self.hidden),
                "value_hidden": list(self.value_hidden),
            }
        out: dict[str, Any] = {
            "channels": self.channels,
            "blocks": self.blocks,
            "features_dim": self.features_dim,
            "value_hidden": list(self.value_hidden),
        }
        if self.policy_head != "linear":
            out["policy_head"] = self.policy_head
        if self.stem != 3:
            out["stem"] = self.stem
        return out


def _whole(value: Any) -> bool:
    return type(value) is int


def _sizes(data: dict[str, Any], name: str, most: int, where: str) -> tuple[int, ...]:
    """``data[name]``: a list of at most ``most`` layer sizes, each from 1 to its limit."""
    sizes = data[name]
    if not isinstance(sizes, list) or len(sizes) > most:
        raise PlayerFileError(f"{where}: network.{name} must be a list of at most {most} sizes")
    for value in sizes:
        if not _whole(value) or not 1 <= value <= LIMITS[name]:
            raise PlayerFileError(
                f"{where}: network.{name} must be a whole number from 1 to {LIMITS[name]}, "
                f"got {str(value)[:40]!r}"
            )
    return tuple(sizes)


def _mlp_from_json(data: dict[str, Any], where: str) -> Shape:
    if set(data) != {"kind", "hidden", "value_hidden"}:
        raise PlayerFileError(
            f"{where}: an 'mlp' network must be an object with kind, hidden and value_hidden, "
            f"got {str(data)[:80]!r}"
        )
    hidden = _sizes(data, "hidden", MAX_HIDDEN_LAYERS, where)
    if not hidden:
        raise PlayerFileError(f"{where}: network.hidden must list at least one layer size")
    value_hidden = _sizes(data, "value_hidden", MAX_VALUE_LAYERS, where)
    return Shape(value_hidden=value_hidden, kind="mlp", hidden=hidden)


def shape_from_json(data: Any, where: str) -> Shape:
    """The network shape in a file's metadata, checked; raises :class:`PlayerFileError`."""
    if isinstance(data, dict) and "kind" in data:
        kind = data["kind"]
        if kind not in NETWORK_KINDS:
            raise PlayerFileError(
                f"{where}: network.kind must be one of {list(NETWORK_KINDS)}, got "
                f"{str(kind)[:40]!r}"
            )
        if kind == "mlp":
            return _mlp_from_json(data, where)
        data = {k: v for k, v in data.items() if k != "kind"}
    keys = {"channels", "blocks", "features_dim", "value_hidden"}
    if not isinstance(data, dict) or set(data) - {"policy_head", "inputs", "stem"} != keys:
        raise PlayerFileError(
            f"{where}: 'network' must be an object with channels, blocks, features_dim and "
            f"value_hidden, got {str(data)[:80]!r}"
        )
    hidden = data["value_hidden"]
    if not isinstance(hidden, list) or len(hidden) > 4:
        raise PlayerFileError(f"{where}: network.value_hidden must be a list of at most 4 sizes")
    for name, value in [
        *((k, data[k]) for k in ("channels", "blocks", "features_dim")),
        *(("value_hidden", v) for v in hidden),
    ]:
        low = 0 if name == "blocks" else 1
        if not _whole(value) or not low <= value <= LIMITS[name]:
            raise PlayerFileError(
                f"{where}: network.{name} must be a whole number from {low} to "
                f"{LIMITS[name]}, got {str(value)[:40]!r}"
            )
    head = data.get("policy_head", "linear")
    if head not in POLICY_HEADS:
        raise PlayerFileError(
            f"{where}: network.policy_head must be one of {list(POLICY_HEADS)}, got "
            f"{str(head)[:40]!r}"
        )
    stem = data.get("stem", 3)
    if not _whole(stem) or stem not in STEMS:
        raise PlayerFileError(
            f"{where}: network.stem must be one of {list(STEMS)}, got {str(stem)[:40]!r}"
        )
    return Shape(
        data["channels"], data["blocks"], data["features_dim"], tuple(hidden), head, stem=stem
    )


def save_player(
    policy: Any, path: str | Path, layout: Layout, shape: Shape, num_players: int, **facts: Any
) -> Path:
    """Write ``policy`` as ``layout.game``'s player file with the JSON-able ``facts``."""
    meta = {
        "format": PLAYER_FORMAT,
        "format_version": FORMAT_VERSION,
        "layout_version": layout.version,
        "obs_shape": list(layout.obs_shape),
        "num_actions": layout.num_actions,
        "num_players": num_players,
        "network": shape.to_json(),
        **facts,
    }
    return write_player_file(path, layout.game, meta, save(policy_weights(policy)))


@dataclass
class NetworkPlayer:
    """A loaded player file: its checked metadata and its policy (share it read-only)."""

    path: Path
    meta: dict[str, Any]
    policy: Any

    @property
    def num_players(self) -> int:
        return self.meta["num_players"]

    def agent(
        self, observe: Callable[[Any], Mapping[str, np.ndarray]], deterministic: bool = True
    ) -> PolicyAgent:
        """A new player over this file's policy."""
        return PolicyAgent(
            self.policy,
            observe,
            name=self.path.name,
            deterministic=deterministic,
            num_players=self.num_players,
        )


def check_meta(meta: dict[str, Any], layout: Layout, where: str) -> dict[str, Any]:
    """The format, layout and table size of a file's metadata; raises
    :class:`PlayerFileError`."""
    if meta.get("format") != PLAYER_FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise PlayerFileError(
            f"{where}: unknown player-file format {str(meta.get('format'))[:40]!r} version "
            f"{str(meta.get('format_version'))[:20]!r}; expected {PLAYER_FORMAT!r} version "
            f"{FORMAT_VERSION}"
        )
    inputs = "planes" if "planes" in layout.kinds else "features"
    if (
        meta.get("layout_version") != layout.version
        or meta.get("num_actions") != layout.num_actions
        or meta.get("obs_shape") != list(layout.obs_shape)
    ):
        raise PlayerFileError(
            f"{where} was trained on observation/action layout "
            f"{str(meta.get('layout_version'))[:20]!r}; this version of {layout.game} uses "
            f"layout {layout.version} ({layout.num_actions} actions, {inputs} "
            f"{list(layout.obs_shape)})"
        )
    players = meta.get("num_players")
    if type(players) is not int or players not in layout.player_counts:
        raise PlayerFileError(
            f"{where}: num_players must be one of {list(layout.player_counts)}, got "
            f"{str(players)[:20]!r}"
        )
    return meta


def load_weights(policy: Any, raw: bytes, where: str, meta: str) -> None:
    """Copy the safetensors bytes ``raw`` into ``policy``, whose tensors they must match
    name for name, shape for shape; raises :class:`PlayerFileError` naming ``where`` and the
    metadata member ``meta`` otherwise."""
    try:
        tensors = load(raw)
    except Exception as err:  # safetensors raises its own error types on damaged bytes
        raise PlayerFileError(f"{where}: {WEIGHTS_NAME} is damaged: {err}") from err
    expected = policy_weights(policy)
    wrong = sorted(
        k
        for k in expected.keys() | tensors.keys()
        if k not in tensors
        or k not in expected
        or tensors[k].shape != expected[k].shape
        or tensors[k].dtype != expected[k].dtype
    )
    if wrong:
        raise PlayerFileError(
            f"{where}: {WEIGHTS_NAME} does not match the network in {meta} "
            f"({len(wrong)} tensors missing, extra or of another shape, e.g. {wrong[0]!r})"
        )
    with torch.no_grad():
        for name, param in policy.state_dict().items():
            if name in tensors:
                param.copy_(tensors[name])


def load_player(path: str | Path, layout: Layout) -> NetworkPlayer:
    """Read ``layout.game``'s player file (JSON and safetensors only: nothing is unpickled);
    raises :class:`PlayerFileError` naming the file and the problem."""
    path = Path(path)
    where = repr(str(path))
    members = read_members(path, layout.game)
    meta = check_meta(parse_meta(members["meta"], layout.game, where), layout, where)
    shape = shape_from_json(meta.get("network"), where)
    if shape.kind not in layout.kinds:
        raise PlayerFileError(
            f"{where} holds a network of kind {shape.kind!r}; {layout.game} networks are of kind "
            f"{' or '.join(repr(k) for k in layout.kinds)}"
        )
    if shape.policy_head == "steps" and layout.action_pixels is None:
        raise PlayerFileError(f"{where}: {layout.game} networks have no 'steps' policy head")
    kwargs = shape.policy_kwargs(layout.action_pixels)
    policy = build_policy(layout.obs_shape, layout.num_actions, kwargs, False)
    load_weights(policy, members["weights"], where, meta_name(layout.game))
    return NetworkPlayer(path, meta, policy)


def load_agent(
    path: str | Path,
    layout: Layout,
    observe: Callable[[Any], Mapping[str, np.ndarray]],
    num_players: int | None = None,
    deterministic: bool = True,
) -> PolicyAgent:
    """``layout.game``'s player file as a player seeing ``observe(state)``; ``num_players``,
    if given, must be its table size (:class:`PlayerFileError` otherwise)."""
    player = load_player(path, layout)
    if num_players is not None and player.num_players != num_players:
        raise PlayerFileError(
            f"{str(path)!r} was trained for {player.num_players} players, not {num_players}"
        )
    return player.agent(observe, deterministic=deterministic)


def agent_from_spec(
    spec: str,
    layout: Layout,
    observe: Callable[[Any], Mapping[str, np.ndarray]],
    seed: int | None = None,
) -> PolicyAgent | None:
    """The player of the file a spec names (``path.zip``), reset with ``seed``; ``None`` if
    ``spec`` names no file. This is how the games' ``make_agent`` read files."""
    if not (spec.endswith(".zip") or os.path.isfile(spec)):
        return None
    agent = load_agent(spec, layout, observe)
    agent.reset(seed)
    return agent
