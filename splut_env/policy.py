"""Trained policies as players: the board network, checkpoints, and :class:`PolicyAgent`.

A checkpoint is a stable-baselines3 ``MaskablePPO`` zip with one more member,
``splut_env.json``, that says what the policy was trained for (observation/action layout
version, player count, steps). :func:`load_agent` checks it before loading. Needs the
``[train]`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping
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
from splut_env.engine import State

#: Version of the observation planes and action layout (:mod:`splut_env.encoding`); a
#: checkpoint trained on another layout cannot be loaded.
LAYOUT_VERSION = 1
META_NAME = "splut_env.json"
CHECKPOINT_FORMAT = "splut-env-policy"


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


def write_meta(path: str | Path, meta: Mapping[str, Any]) -> None:
    """Add the ``splut_env.json`` member to an sb3 zip saved at ``path``."""
    body = {"format": CHECKPOINT_FORMAT, "layout_version": LAYOUT_VERSION,
            "obs_shape": list(OBS_SHAPE), "num_actions": NUM_ACTIONS, **meta}  # fmt: skip
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr(META_NAME, json.dumps(body, indent=2))


def read_meta(path: str | Path) -> dict[str, Any]:
    """The checked metadata of a checkpoint; raises ``ValueError`` naming what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint {str(path)!r} does not exist")
    try:
        with zipfile.ZipFile(path) as zf:
            meta = json.loads(zf.read(META_NAME))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, OSError) as err:
        raise ValueError(
            f"{str(path)!r} is not a splut-env checkpoint (a MaskablePPO zip with "
            f"{META_NAME}): {err}"
        ) from err
    if meta.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{str(path)!r}: unknown checkpoint format {meta.get('format')!r}")
    if meta.get("layout_version") != LAYOUT_VERSION or meta.get("num_actions") != NUM_ACTIONS:
        raise ValueError(
            f"{str(path)!r} was trained on observation/action layout "
            f"{meta.get('layout_version')} ({meta.get('num_actions')} actions); this splut-env "
            f"uses layout {LAYOUT_VERSION} ({NUM_ACTIONS} actions)"
        )
    return meta


def load_policy(path: str | Path) -> Any:
    """The policy network of a checkpoint (with or without its optimizer state)."""
    from stable_baselines3.common.save_util import load_from_zip_file

    try:
        data, params, _ = load_from_zip_file(path, device="cpu")
        policy = data["policy_class"](
            data["observation_space"], data["action_space"], lambda _: 0.0,
            **data.get("policy_kwargs", {}),
        )  # fmt: skip
        policy.load_state_dict(params["policy"])
    except Exception as err:  # a damaged zip fails in many ways
        raise ValueError(f"{str(path)!r}: the policy cannot be loaded: {err!r}") from err
    policy.set_training_mode(False)
    return policy


def load_agent(
    path: str | Path,
    num_players: int | None = None,
    deterministic: bool = True,
    shield: bool = False,
) -> PolicyAgent | ShieldedAgent:
    """A checkpoint as a player. ``num_players``, if given, must be the one it was trained
    for; ``shield`` wraps it in a :class:`ShieldedAgent`."""
    meta = read_meta(path)
    if num_players is not None and meta.get("num_players") != num_players:
        raise ValueError(
            f"{str(path)!r} was trained for {meta.get('num_players')} players, not {num_players}"
        )
    agent = PolicyAgent(
        load_policy(path), name=Path(path).name, deterministic=deterministic, meta=meta,
        max_turns=int(meta.get("max_turns", 200)),
    )  # fmt: skip
    return ShieldedAgent(agent) if shield else agent


def export_player(source: str | Path, target: str | Path) -> None:
    """Copy a checkpoint without its optimizer state: a smaller file that plays (with
    :func:`load_agent`) but cannot resume training."""
    read_meta(source)
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            if item.filename != "policy.optimizer.pth":
                dst.writestr(item, src.read(item.filename))
