"""Player checkpoints: the safe file format of a trained player (save, check, load).

A player checkpoint is a zip of two members and nothing else: ``splut_env.json`` (format
version, observation/action layout, network shape, player count, turn cap, training facts)
and ``policy.safetensors`` (the weights). :func:`load_agent` checks both and never calls an
unpickler, so loading a file from anywhere cannot run code. Training checkpoints (the
whole algorithm state, pickled by stable-baselines3) are another thing: see
:mod:`training.train`. Needs the ``[train]`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from safetensors.torch import save

from splut_env.encoding import LAYOUT_VERSION, NUM_ACTIONS, OBS_SHAPE
from splut_env.players.guided import GuidedSearchAgent, parse_guided
from splut_env.players.mcts import MCTSAgent, parse_mcts
from splut_env.players.network import (
    INPUTS,
    POLICY_HEADS,
    NetworkShape,
    PolicyAgent,
    build_policy,
    policy_weights,
)
from splut_env.players.tactics import SHIELD_SUFFIX, ShieldedAgent
from splut_env.rules.board import player_count, turn_cap, whole_number
from splut_env.rules.notation import quote
from tabletop.agents import Agent, load_entry_point
from tabletop.netplayer import load_weights
from tabletop.playerfile import (
    PLAYER_FORMAT,
    WEIGHTS_NAME,
    PlayerFileError,
    meta_name,
    parse_meta,
    read_members,
    write_player_file,
)


class CheckpointError(PlayerFileError):
    """A checkpoint file that cannot be loaded: missing, damaged, of another format or
    layout, or trained for something else. The message names the file and the problem."""


#: Members of a player checkpoint (a zip, :mod:`tabletop.playerfile`): the metadata, and the
#: weights as safetensors.
META_NAME = meta_name("splut")
FORMAT_VERSION = 2
LEGACY_FORMAT = "splut-env-policy"
MIRROR_SUFFIX = ":mirror"
CONVERT_HINT = (
    "it is an old-format checkpoint (splut-env 0.1: a stable-baselines3 zip, read with "
    "pickle, which can run code planted in the file), so it is not loaded. If you trust where "
    "it came from, convert it once: python -m training.convert OLD.zip NEW.zip"
)
#: Bounds on the network read from a checkpoint, so that a crafted file cannot ask for
#: an absurd amount of memory.
#: The shield's searches in compiled kernels (a layer above this one: named, not imported).
COMPILED_TACTICS = "splut_env.batched.shield:CompiledTactics"
NETWORK_LIMITS = {"channels": 256, "blocks": 32, "features_dim": 2048, "value_hidden": 2048}


def network_shape(data: Any, where: str) -> NetworkShape:
    """The shape in a checkpoint's metadata, checked; raises :class:`CheckpointError`.
    ``policy_head`` and ``inputs`` may be missing (files written before they existed:
    ``linear``, ``planes``)."""
    names = {f.name for f in fields(NetworkShape)} - {"stem"}  # Splut!'s stem is always 3×3
    optional = {"policy_head", "inputs"}
    if not isinstance(data, dict) or not names - optional <= set(data) <= names:
        raise CheckpointError(
            f"{where}: 'network' must be an object with channels, blocks, features_dim, "
            f"value_hidden and optionally policy_head and inputs, got {quote(data)}"
        )
    hidden = data["value_hidden"]
    if not isinstance(hidden, list) or len(hidden) > 4:
        raise CheckpointError(f"{where}: network.value_hidden must be a list of at most 4 sizes")
    for name, value in [
        *((k, data[k]) for k in ("channels", "blocks", "features_dim")),
        *(("value_hidden", v) for v in hidden),
    ]:
        low = 0 if name == "blocks" else 1
        if whole_number(value) is None or not low <= value <= NETWORK_LIMITS[name]:
            raise CheckpointError(
                f"{where}: network.{name} must be a whole number from {low} to "
                f"{NETWORK_LIMITS[name]}, got {quote(value)}"
            )
    head = data.get("policy_head", "linear")
    if head not in POLICY_HEADS:
        raise CheckpointError(
            f"{where}: network.policy_head must be one of {', '.join(POLICY_HEADS)}, "
            f"got {quote(head)}"
        )
    inputs = data.get("inputs", "planes")
    if inputs not in INPUTS:
        raise CheckpointError(
            f"{where}: network.inputs must be one of {', '.join(INPUTS)}, got {quote(inputs)}"
        )
    return NetworkShape(
        data["channels"], data["blocks"], data["features_dim"], tuple(hidden), head, inputs
    )


def save_player(
    policy: Any,
    path: str | Path,
    shape: NetworkShape,
    num_players: int,
    max_turns: int,
    **facts: Any,
) -> Path:
    """Write ``policy`` as a player checkpoint: a zip of ``splut_env.json`` (format, layout,
    network shape, player count, turn cap and the JSON-able training ``facts``) and
    ``policy.safetensors``. Nothing in it is pickled. The file appears whole or not at all."""
    meta = {
        "format": PLAYER_FORMAT,
        "format_version": FORMAT_VERSION,
        "layout_version": LAYOUT_VERSION,
        "obs_shape": list(OBS_SHAPE),
        "num_actions": NUM_ACTIONS,
        "num_players": num_players,
        "max_turns": max_turns,
        "network": shape.to_json(),
        **facts,
    }
    return write_player_file(path, "splut", meta, save(policy_weights(policy)))


def _read_members(path: Path) -> dict[str, bytes]:
    """The members of a player checkpoint, checked before anything is decompressed."""
    try:
        members = read_members(path, "splut", legacy=("data", "policy.pth"))
    except PlayerFileError as err:
        if str(err).endswith(": legacy"):
            raise CheckpointError(f"checkpoint {str(path)!r}: {CONVERT_HINT}") from None
        raise CheckpointError(str(err)) from None
    return {META_NAME: members["meta"], WEIGHTS_NAME: members["weights"]}


def _check_meta(meta: Any, where: str) -> dict[str, Any]:
    if not isinstance(meta, dict):
        raise CheckpointError(f"{where}: {META_NAME} must hold a JSON object, got {quote(meta)}")
    if meta.get("format") == LEGACY_FORMAT:
        raise CheckpointError(f"{where}: {CONVERT_HINT}")
    if meta.get("format") != PLAYER_FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{where}: unknown checkpoint format {quote(meta.get('format'))} version "
            f"{quote(meta.get('format_version'))}; expected {PLAYER_FORMAT!r} version "
            f"{FORMAT_VERSION}"
        )
    if (
        meta.get("layout_version") != LAYOUT_VERSION
        or meta.get("num_actions") != NUM_ACTIONS
        or meta.get("obs_shape") != list(OBS_SHAPE)
    ):
        raise CheckpointError(
            f"{where} was trained on observation/action layout "
            f"{quote(meta.get('layout_version'))} ({quote(meta.get('num_actions'))} actions); "
            f"this splut-env uses layout {LAYOUT_VERSION} ({NUM_ACTIONS} actions, planes "
            f"{list(OBS_SHAPE)})"
        )
    for check, key in ((player_count, "num_players"), (turn_cap, "max_turns")):
        try:
            check(meta.get(key))
        except ValueError as err:
            raise CheckpointError(f"{where}: {err}") from None
    network_shape(meta.get("network"), where)
    shaping = meta.get("reward_shaping", 0.0)
    if not isinstance(shaping, int | float) or isinstance(shaping, bool) or not 0 <= shaping <= 10:
        raise CheckpointError(
            f"{where}: reward_shaping must be a number from 0 to 10 (the shaping weight the "
            f"network was trained with), got {quote(shaping)}"
        )
    return meta


def read_meta(path: str | Path) -> dict[str, Any]:
    """The checked metadata of a player checkpoint; raises :class:`CheckpointError`."""
    path = Path(path)
    return _parse_meta(_read_members(path)[META_NAME], repr(str(path)))


def _parse_meta(raw: bytes, where: str) -> dict[str, Any]:
    try:
        meta = parse_meta(raw, "splut", where)
    except PlayerFileError as err:
        raise CheckpointError(str(err)) from None
    return _check_meta(meta, where)


@dataclass
class Checkpoint:
    """A loaded player checkpoint: its checked metadata and its policy network (read-only;
    share it between agents and games)."""

    path: Path
    meta: dict[str, Any]
    policy: Any

    @property
    def num_players(self) -> int:
        return self.meta["num_players"]

    def agent(
        self, deterministic: bool = True, shield: bool = False, mirror: bool = False
    ) -> PolicyAgent | ShieldedAgent:
        """A new player over this checkpoint's network (``shield``: a :class:`ShieldedAgent`;
        ``mirror``: see :class:`PolicyAgent`)."""
        try:
            agent = PolicyAgent(
                self.policy,
                name=self.path.name + (MIRROR_SUFFIX if mirror else ""),
                deterministic=deterministic,
                meta=self.meta,
                max_turns=self.meta["max_turns"],
                mirror=mirror,
            )
        except ValueError as err:
            raise CheckpointError(f"{str(self.path)!r}: {err}") from None
        return (
            ShieldedAgent(agent, tactics=load_entry_point(COMPILED_TACTICS)()) if shield else agent
        )


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Read a player checkpoint (JSON and safetensors only: nothing is unpickled, no code in
    the file can run); raises :class:`CheckpointError` naming the file and the problem."""
    path = Path(path)
    where = repr(str(path))
    members = _read_members(path)
    meta = _parse_meta(members[META_NAME], where)
    policy = build_policy(network_shape(meta["network"], where), ortho_init=False)
    try:
        load_weights(policy, members[WEIGHTS_NAME], where, META_NAME)
    except PlayerFileError as err:
        raise CheckpointError(str(err)) from err.__cause__
    return Checkpoint(path, meta, policy)


def load_agent(
    path: str | Path,
    num_players: int | None = None,
    deterministic: bool = True,
    shield: bool = False,
    mirror: bool = False,
) -> PolicyAgent | ShieldedAgent:
    """A checkpoint as a player. ``num_players``, if given, must be the one it was trained
    for; ``shield`` wraps it in a :class:`ShieldedAgent`; ``mirror`` see :class:`PolicyAgent`."""
    checkpoint = load_checkpoint(path)
    if num_players is not None and checkpoint.num_players != num_players:
        raise CheckpointError(
            f"{str(path)!r} was trained for {checkpoint.num_players} players, not {num_players}"
        )
    return checkpoint.agent(deterministic=deterministic, shield=shield, mirror=mirror)


def agent_from_spec(spec: str, seed: int | None = None) -> Agent | None:
    """The player a checkpoint spec names (``path.zip``, ``path.zip:shield`` for
    :class:`ShieldedAgent`, ``path.zip:mirror`` for a 2-player network's mean over each
    position and its reflection, ``path.zip:mcts`` or ``path.zip:mcts=N`` for
    :class:`~splut_env.players.mcts.MCTSAgent`, ``path.zip:expert`` or ``path.zip:expert=N``
    for :class:`~splut_env.players.guided.GuidedSearchAgent`), reset with ``seed``; ``None``
    if ``spec`` names no file.
    This is how :func:`splut_env.players.make_agent` reads checkpoints."""
    mcts, guided = parse_mcts(spec), parse_guided(spec)  # at most one: the specs end apart
    searched = mcts or guided
    shield = searched is None and spec.endswith(SHIELD_SUFFIX)
    mirror = searched is None and spec.endswith(MIRROR_SUFFIX)
    suffix = SHIELD_SUFFIX if shield else MIRROR_SUFFIX if mirror else ""
    path = searched[0] if searched else spec.removesuffix(suffix)
    if not (path.endswith(".zip") or os.path.isfile(path)):
        return None
    agent = load_agent(path, shield=shield, mirror=mirror)
    if mcts:
        agent = MCTSAgent(agent, simulations=mcts[1])
    elif guided:
        agent = GuidedSearchAgent(agent, nodes=guided[1])
    agent.reset(seed)
    return agent
