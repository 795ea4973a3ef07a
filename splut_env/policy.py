"""Trained policies as players: the board network, player checkpoints, :class:`PolicyAgent`.

A player checkpoint is a zip of two members and nothing else: ``splut_env.json`` (format
version, observation/action layout, network shape, player count, turn cap, training facts)
and ``policy.safetensors`` (the weights). :func:`load_agent` checks both and never calls an
unpickler, so loading a file from anywhere cannot run code. Training checkpoints (the
whole algorithm state, pickled by stable-baselines3) are another thing: see
:mod:`training.train`. Needs the ``[train]`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from splut_env.agents import Agent
from splut_env.bots import exposed, forced_win
from splut_env.encoding import NUM_ACTIONS, OBS_SHAPE, step_id_to_action
from splut_env.encoding import observation as encode
from splut_env.engine import State, player_count, turn_cap, whole_number
from splut_env.notation import quote

#: Version of the observation planes and action layout (:mod:`splut_env.encoding`); a
#: checkpoint trained on another layout cannot be loaded.
LAYOUT_VERSION = 1


class ResidualBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


class BoardNet(BaseFeaturesExtractor):
    """A small residual tower over the ``[22, 9, 9]`` planes: a 3×3 convolution to
    ``channels``, ``blocks`` residual blocks of two 3×3 convolutions, then a linear layer to
    ``features_dim`` (ReLU). Shared by the policy and value heads and by every seat."""

    def __init__(
        self,
        observation_space: spaces.Box,
        features_dim: int = 256,
        channels: int = 32,
        blocks: int = 3,
    ) -> None:
        super().__init__(observation_space, features_dim)
        planes, height, width = observation_space.shape
        self.stem = nn.Sequential(nn.Conv2d(planes, channels, 3, padding=1), nn.ReLU())
        self.tower = nn.Sequential(*[ResidualBlock(channels) for _ in range(blocks)])
        self.head = nn.Sequential(
            nn.Flatten(), nn.Linear(channels * height * width, features_dim), nn.ReLU()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.head(self.tower(self.stem(observations)))


class PolicyAgent(Agent):
    """Plays with a masked actor-critic policy (``MaskableActorCriticPolicy``)."""

    needs_observation = True

    def __init__(
        self,
        policy: Any,
        name: str = "policy",
        deterministic: bool = True,
        meta: Mapping[str, Any] | None = None,
        max_turns: int = 200,
    ) -> None:
        self.policy = policy
        self.name = name
        self.deterministic = deterministic
        self.meta = dict(meta or {})
        self.num_players = self.meta.get("num_players")
        self.max_turns = max_turns
        self._rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        if observation is None:
            observation = encode(state, state.to_move, self.max_turns)
        return self.act_on(observation["observation"], observation["action_mask"])

    @torch.no_grad()
    def act_on(self, planes: np.ndarray, mask: np.ndarray) -> int:
        """The action for one observation and its mask."""
        obs = torch.as_tensor(planes, dtype=torch.float32).unsqueeze(0)
        dist = self.policy.get_distribution(obs, action_masks=mask.astype(bool)[None])
        probs = dist.distribution.probs[0].numpy()
        if self.deterministic:
            return int(np.argmax(probs))
        probs = probs / probs.sum()
        return int(self._rng.choice(NUM_ACTIONS, p=probs))


class ShieldedAgent(Agent):
    """A :class:`PolicyAgent` whose blunders the rules veto (an action *shield*).

    At each step the shield sorts the legal steps by the best way the turn can still end
    after them: (3) a turn that kills an opponent's wizard or wins; (2) with two players, a
    turn after which the opponent cannot kill our wizard and every turn it can play leaves
    us a kill (:func:`splut_env.bots.forced_win`); (1) a turn after which no opponent can
    kill our wizard with one turn (:func:`splut_env.bots.exposed`); (0) any other. The
    policy then chooses among the steps of the best tier only, so it never misses a kill in
    one turn or a forced kill in two, and never walks into a kill it could have avoided.
    The shield looks at the rules alone (exact searches, no evaluation heuristic), at most
    two turns ahead; everything else is the policy's choice.
    """

    needs_observation = True

    def __init__(self, inner: PolicyAgent) -> None:
        self.inner = inner
        self.name = f"{inner.name}:shield"
        self.meta = inner.meta
        self.num_players = inner.num_players
        self._tiers: dict[tuple, int] = {}
        self._turn = -1

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)
        self._tiers, self._turn = {}, -1

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        if observation is None:
            observation = encode(state, state.to_move, self.inner.max_turns)
        if state.turn != self._turn:
            self._tiers, self._turn = {}, state.turn
        seat, alive = state.to_move, len(state.alive_seats())
        tiers = {i: self._after(state, i, seat, alive) for i in state.legal_ids()}
        best = max(tiers.values())
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        for i, tier in tiers.items():
            mask[step_id_to_action(seat, i)] = tier == best
        return self.inner.act_on(observation["observation"], mask)

    def _after(self, state: State, step: int, seat: int, alive: int) -> int:
        """The best tier the turn can reach after ``step`` (-1: our wizard dies), memoised
        by position: a turn's step orders often meet in the same position."""
        child = state.copy()
        child.apply(step)
        key = child.key()
        tier = self._tiers.get(key)
        if tier is None:
            tier = self._tiers[key] = self._tier(child, state.turn, seat, alive)
        return tier

    def _tier(self, child: State, turn: int, seat: int, alive: int) -> int:
        if child.turn == turn and child.to_move >= 0:  # the turn goes on
            tier = -1
            for i in child.legal_ids():
                tier = max(tier, self._after(child, i, seat, alive))
                if tier == 3:
                    break
            return tier
        if child.pos[seat * 3] < 0:
            return -1
        if child.to_move < 0 or len(child.alive_seats()) < alive:
            return 3
        if exposed(child, seat):
            return 0
        return 2 if forced_win(child, seat) else 1


# --- player checkpoints ---------------------------------------------------------------


class CheckpointError(ValueError):
    """A checkpoint file that cannot be loaded: missing, damaged, of another format or
    layout, or trained for something else. The message names the file and the problem."""


#: Members of a player checkpoint (a zip): the metadata, and the weights as safetensors.
META_NAME = "splut_env.json"
WEIGHTS_NAME = "policy.safetensors"
PLAYER_FORMAT = "splut-env-player"
FORMAT_VERSION = 2
LEGACY_FORMAT = "splut-env-policy"
MAX_META_BYTES = 1 << 20
MAX_WEIGHTS_BYTES = 256 << 20
CONVERT_HINT = (
    "it is an old-format checkpoint (splut-env 0.1: a stable-baselines3 zip, read with "
    "pickle, which can run code planted in the file), so it is not loaded. If you trust where "
    "it came from, convert it once: python -m training.convert OLD.zip NEW.zip"
)
#: Bounds on the network read from a checkpoint, so that a crafted file cannot ask for
#: an absurd amount of memory.
NETWORK_LIMITS = {"channels": 256, "blocks": 32, "features_dim": 2048, "value_hidden": 2048}


@dataclass(frozen=True)
class NetworkShape:
    """The board network's size: :class:`BoardNet` (``channels``, ``blocks``,
    ``features_dim``), a linear policy head and a value head with ``value_hidden`` layers."""

    channels: int = 32
    blocks: int = 3
    features_dim: int = 256
    value_hidden: tuple[int, ...] = (64,)

    def policy_kwargs(self) -> dict[str, Any]:
        """The ``MaskablePPO`` ``policy_kwargs`` for this shape."""
        return {
            "features_extractor_class": BoardNet,
            "features_extractor_kwargs": {
                "features_dim": self.features_dim,
                "channels": self.channels,
                "blocks": self.blocks,
            },
            "net_arch": {"pi": [], "vf": list(self.value_hidden)},
        }

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "value_hidden": list(self.value_hidden)}

    @classmethod
    def from_json(cls, data: Any, where: str) -> NetworkShape:
        """The shape in a checkpoint's metadata, checked; raises :class:`CheckpointError`."""
        if not isinstance(data, dict) or set(data) != {f.name for f in fields(cls)}:
            raise CheckpointError(
                f"{where}: 'network' must be an object with channels, blocks, features_dim "
                f"and value_hidden, got {quote(data)}"
            )
        hidden = data["value_hidden"]
        if not isinstance(hidden, list) or len(hidden) > 4:
            raise CheckpointError(
                f"{where}: network.value_hidden must be a list of at most 4 sizes"
            )
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
        return cls(data["channels"], data["blocks"], data["features_dim"], tuple(hidden))


def build_policy(shape: NetworkShape, ortho_init: bool = True) -> Any:
    """An untrained ``MaskableActorCriticPolicy`` of ``shape``, in evaluation mode
    (``ortho_init=False`` skips stable-baselines3's slow orthogonal initialisation, for
    weights that are loaded next)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    policy = MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32),
        spaces.Discrete(NUM_ACTIONS),
        lambda _: 0.0,
        ortho_init=ortho_init,
        **shape.policy_kwargs(),
    )
    policy.set_training_mode(False)
    return policy


def _weights(policy: Any) -> dict[str, torch.Tensor]:
    """The policy's parameters, each stored once: the policy and value feature extractors
    are the shared ``features_extractor`` under other names."""
    out: dict[str, torch.Tensor] = {}
    seen: set[int] = set()
    for name, tensor in policy.state_dict().items():
        if tensor.data_ptr() in seen:
            continue
        seen.add(tensor.data_ptr())
        out[name] = tensor.detach().cpu().contiguous()
    return out


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
    from safetensors.torch import save

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
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(META_NAME, json.dumps(meta, indent=2))
        zf.writestr(WEIGHTS_NAME, save(_weights(policy)))
    tmp.replace(path)
    return path


def _read_members(path: Path) -> dict[str, bytes]:
    """The members of a player checkpoint, checked before anything is decompressed."""
    where = repr(str(path))
    if path.is_dir():
        raise CheckpointError(f"checkpoint {where} is a folder; expected a .zip file")
    if not path.is_file():
        raise CheckpointError(f"checkpoint {where} does not exist")
    limits = {META_NAME: MAX_META_BYTES, WEIGHTS_NAME: MAX_WEIGHTS_BYTES}
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            names = [i.filename for i in infos]
            if "data" in names or "policy.pth" in names:
                raise CheckpointError(f"checkpoint {where}: {CONVERT_HINT}")
            if sorted(names) != sorted(limits):
                raise CheckpointError(
                    f"checkpoint {where} holds {quote(names)}; a splut-env player checkpoint "
                    f"holds exactly {sorted(limits)}"
                )
            members = {}
            for info in infos:
                if info.flag_bits & 0x1:
                    raise CheckpointError(
                        f"checkpoint {where}: member {info.filename} is encrypted"
                    )
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise CheckpointError(
                        f"checkpoint {where}: member {info.filename} uses compression method "
                        f"{info.compress_type}; expected stored (0) or deflated (8)"
                    )
                if info.file_size > limits[info.filename]:
                    raise CheckpointError(
                        f"checkpoint {where}: member {info.filename} is {info.file_size:,} "
                        f"bytes, more than the {limits[info.filename]:,} allowed"
                    )
                members[info.filename] = zf.read(info)
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError, zlib.error) as err:
        raise CheckpointError(f"checkpoint {where} is not a readable zip file: {err}") from err
    return members


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
    NetworkShape.from_json(meta.get("network"), where)
    return meta


def read_meta(path: str | Path) -> dict[str, Any]:
    """The checked metadata of a player checkpoint; raises :class:`CheckpointError`."""
    path = Path(path)
    return _parse_meta(_read_members(path)[META_NAME], repr(str(path)))


def _parse_meta(raw: bytes, where: str) -> dict[str, Any]:
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise CheckpointError(f"{where}: {META_NAME} is not valid JSON: {err}") from err
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
        self, deterministic: bool = True, shield: bool = False
    ) -> PolicyAgent | ShieldedAgent:
        """A new player over this checkpoint's network (``shield``: a :class:`ShieldedAgent`)."""
        agent = PolicyAgent(
            self.policy,
            name=self.path.name,
            deterministic=deterministic,
            meta=self.meta,
            max_turns=self.meta["max_turns"],
        )
        return ShieldedAgent(agent) if shield else agent


def load_checkpoint(path: str | Path) -> Checkpoint:
    """Read a player checkpoint (JSON and safetensors only: nothing is unpickled, no code in
    the file can run); raises :class:`CheckpointError` naming the file and the problem."""
    from safetensors.torch import load

    path = Path(path)
    where = repr(str(path))
    members = _read_members(path)
    meta = _parse_meta(members[META_NAME], where)
    policy = build_policy(NetworkShape.from_json(meta["network"], where), ortho_init=False)
    try:
        tensors = load(members[WEIGHTS_NAME])
    except Exception as err:  # safetensors raises its own error types on damaged bytes
        raise CheckpointError(f"{where}: {WEIGHTS_NAME} is damaged: {err}") from err
    expected = _weights(policy)
    wrong = sorted(
        k
        for k in expected.keys() | tensors.keys()
        if k not in tensors
        or k not in expected
        or tensors[k].shape != expected[k].shape
        or tensors[k].dtype != expected[k].dtype
    )
    if wrong:
        raise CheckpointError(
            f"{where}: {WEIGHTS_NAME} does not match the network in {META_NAME} "
            f"({len(wrong)} tensors missing, extra or of another shape, e.g. {wrong[0]!r})"
        )
    with torch.no_grad():
        for name, param in policy.state_dict().items():
            if name in tensors:
                param.copy_(tensors[name])
    return Checkpoint(path, meta, policy)


def load_agent(
    path: str | Path,
    num_players: int | None = None,
    deterministic: bool = True,
    shield: bool = False,
) -> PolicyAgent | ShieldedAgent:
    """A checkpoint as a player. ``num_players``, if given, must be the one it was trained
    for; ``shield`` wraps it in a :class:`ShieldedAgent`."""
    checkpoint = load_checkpoint(path)
    if num_players is not None and checkpoint.num_players != num_players:
        raise CheckpointError(
            f"{str(path)!r} was trained for {checkpoint.num_players} players, not {num_players}"
        )
    return checkpoint.agent(deterministic=deterministic, shield=shield)
