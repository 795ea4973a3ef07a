"""Splut!'s board network and the player over it: :class:`BoardNet` (a residual tower over the
observation planes), :class:`NetworkShape` (its sizes and the ``MaskablePPO`` keyword
arguments, the one place they are written), :func:`build_policy` and :class:`PolicyAgent`.
Needs the ``[train]`` extra (torch, stable-baselines3, sb3-contrib)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn
from torch.nn import functional as F

from splut_env.encoding import (
    FRAME_CELL,
    NUM_ACTIONS,
    OBS_SHAPE,
    PLANE_BOARD,
    PLANE_LEV,
    PLANE_LEV_AVAILABLE,
    PLANE_LOCKED,
    PLANE_MOVED,
    PLANE_ONE_STEP,
    PLANE_ROCKS,
    mirror_mean,
    mirror_planes,
)
from splut_env.encoding import observation as encode
from splut_env.rules.board import DECODED, DWARF, NEIGHBOUR, WIZARD
from splut_env.rules.engine import State
from tabletop import network
from tabletop.agents import Agent
from tabletop.network import ResidualBlock, policy_weights  # noqa: F401 (re-exported)

POLICY_HEADS = ("linear", "steps")
#: What :class:`BoardNet` reads: the observation planes alone, or with :class:`LinePlanes`.
INPUTS = ("planes", "lines")


def _step_tables() -> tuple[list[int], list[int]]:
    """For each action, its channel of :class:`StepHead`'s scores at the moving piece
    (wizard plain ``d``, wizard levitating ``4 + d``, troll ``8 + d * 6 + v``, dwarf
    ``32 + d``) and its column of the levitated rock's scores (``d * 41 + sq``; ``164``, a
    zero, when no rock is levitated)."""
    piece, rock = [], []
    for kind, d, extra in DECODED:
        if kind == WIZARD:
            piece.append(d if extra < 0 else 4 + d)
            rock.append(164 if extra < 0 else d * 41 + extra)
        else:
            piece.append(32 + d if kind == DWARF else 8 + d * 6 + extra)
            rock.append(164)
    return piece, rock


def _neighbours() -> list[list[int]]:
    """``[d][cell]``: the flat 9×9 cell of the board square next to ``cell``'s square in
    direction ``d`` (the board's ``NEIGHBOUR``, in any seat's frame), ``81`` (a zero cell
    past the last one) off the board."""
    cell = FRAME_CELL[0]
    out = [[81] * 82 for _ in range(4)]
    for d, row in enumerate(NEIGHBOUR):
        for sq, nb in enumerate(row):
            out[d][cell[sq]] = cell[nb] if nb >= 0 else 81
    return out


class LinePlanes(nn.Module):
    """Eight planes worked out from the observation by fixed rules (no weights), for the long
    lines of the game that a tower of 3×3 convolutions sees only near its top:

    0-1. lines of fire onto the mover's wizard and onto an opponent's: the squares from which
         a rock thrown by the other side's troll flies (over empty squares, dwarfs and the
         thrower's old square) onto that wizard;
    2-5. the squares the mover's troll reaches in one and in two steps over empty squares,
         then the same for the opponents' trolls;
    6.   the squares on a line of fire onto an opponent's wizard from which the mover's troll
         can throw a rock with the steps left in this turn;
    7.   those from which an opponent's troll could throw one onto the mover's wizard in a
         turn of three steps.

    For 6 and 7 a rock reaches its square where it stands, by levitation (a wizard's steps,
    in directions it can step from where it stands, over empty squares, the rocks it may
    levitate) or pulled by the troll (a step away from a rock behind it), and the troll
    walks next to it over empty squares and steps onto it. Pushes, other pieces getting out
    of the way and the moves' order are not followed: the planes are hints, and the tower
    learns the rest."""

    count = 8

    def __init__(self) -> None:
        super().__init__()
        near = torch.tensor(_neighbours())
        self.register_buffer("near", near, persistent=False)  # [d, cell]: cell's neighbour
        self.register_buffer("behind", near[[2, 3, 0, 1]], persistent=False)  # cell - d

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = F.pad(observations.flatten(2), (0, 1))  # [n, planes, 82]: cell 81 is a zero
        board, rocks = x[:, PLANE_BOARD : PLANE_BOARD + 1], x[:, PLANE_ROCKS : PLANE_ROCKS + 1]
        wizards = torch.cat([x[:, 0:1], x[:, [3, 6, 9]].amax(1, keepdim=True)], 1)
        trolls = torch.cat([x[:, 1:2], x[:, [4, 7, 10]].amax(1, keepdim=True)], 1)
        empty = board * (1 - x[:, : PLANE_ROCKS + 1].amax(1, keepdim=True))
        lines = self.lines(wizards, trolls, rocks, board)

        def spread(planes: torch.Tensor) -> torch.Tensor:
            return torch.maximum(planes, planes[:, :, self.near].amax(2))

        reach = [trolls]  # [n, 2, 82] each: the mover's side, the opponents'
        for _ in range(2):
            reach.append(torch.maximum(reach[-1], spread(reach[-1]) * empty))
        # The mover levitates unlocked rocks while levitation is available, or goes on with
        # the rock it levitates; the opponents, next turn, any rock not moved in this one.
        levitable = torch.cat(
            [
                rocks * (1 - x[:, PLANE_LOCKED, None]) * x[:, PLANE_LEV_AVAILABLE, None, :1]
                + x[:, PLANE_LEV, None],
                rocks * (1 - x[:, PLANE_MOVED, None]),
            ],
            1,
        )
        can_step = (wizards.unsqueeze(2) * empty[:, :, self.near]).amax(3, keepdim=True)
        levitated = [rocks.expand(-1, 2, -1)]
        for _ in range(2):
            moved = (levitable[:, :, self.behind] * can_step).amax(2) * empty
            levitable = torch.maximum(levitable, moved)
            levitated.append(torch.maximum(levitated[-1], levitable))
        pulled = (rocks[:, :, self.near] * empty[:, :, self.behind]).amax(2)

        throws = []  # squares a rock can be thrown from within k + 1 steps
        for k in range(3):
            new = [levitated[a] * spread(reach[k - a]) for a in range(k + 1)]
            if k:
                new.append(reach[k - 1] * pulled)
            throws.append(torch.stack(new + throws[-1:]).amax(0))
        left = x[:, PLANE_ONE_STEP : PLANE_ONE_STEP + 3, :1]  # plane k: k + 1 steps left
        kill = lines[:, 1:2] * sum(left[:, k : k + 1] * throws[k][:, 0:1] for k in range(3))
        threat = lines[:, 0:1] * throws[2][:, 1:2]
        walks = torch.stack(reach[1:], 2).flatten(1, 2)  # the mover's in 1, 2; then the foes'
        out = torch.cat([lines, walks, kill, threat], 1)
        return out[:, :, :81].reshape(len(x), self.count, 9, 9)

    def lines(
        self, wizards: torch.Tensor, trolls: torch.Tensor, rocks: torch.Tensor, board: torch.Tensor
    ) -> torch.Tensor:
        """``[n, 2, 82]``: the lines of fire onto the mover's wizard and onto an opponent's,
        walked out from the wizards in the four directions."""
        stops = torch.maximum(wizards.amax(1, keepdim=True), rocks) + trolls  # not the thrower
        flies = (board * (1 - stops.clamp(max=1))).unsqueeze(2)  # [n, 2, 1, 82]
        ray = wizards.unsqueeze(2).expand(-1, -1, 4, -1)
        behind = self.behind.expand(len(ray), 2, 4, 82)
        found = torch.zeros_like(ray)
        for _ in range(8):
            ray = ray.gather(3, behind) * board.unsqueeze(1)
            found = torch.maximum(found, ray)
            ray = ray * flies
        return found.amax(2)


class StepHead(nn.Module):
    """Scores each action from the tower's features where it happens: a 1×1 convolution
    gives 36 scores on every square, read on the square of the piece that moves (its
    direction and variant picking the score), plus, for a levitation, one of 4 scores (by
    direction) read on the levitated rock's square. The same weights judge a step wherever
    it is played, which a linear layer over the whole board has to learn square by square."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, 40, 1)
        piece, rock = _step_tables()
        self.register_buffer("piece", torch.tensor(piece), persistent=False)
        self.register_buffer("rock", torch.tensor(rock), persistent=False)
        self.register_buffer("cells", torch.tensor(FRAME_CELL[0]), persistent=False)

    def forward(self, x: torch.Tensor, observations: torch.Tensor) -> torch.Tensor:
        scores = self.conv(x).flatten(2)  # [n, 40, 81]
        own = observations[:, :3].flatten(2)  # the mover's wizard, troll, dwarf
        at_piece = torch.cat(
            [
                (scores[:, 0:8] * own[:, 0:1]).sum(2),
                (scores[:, 8:32] * own[:, 1:2]).sum(2),
                (scores[:, 32:36] * own[:, 2:3]).sum(2),
            ],
            dim=1,
        )
        rocks = scores[:, 36:40, self.cells].flatten(1)
        rocks = F.pad(rocks, (0, 1))
        return at_piece[:, self.piece] + rocks[:, self.rock]


class StepLogits(nn.Module):
    """The policy head over :class:`BoardNet` features that start with :class:`StepHead`'s
    action scores: those scores plus one learnt bias per action."""

    def __init__(self) -> None:
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(NUM_ACTIONS))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return latent[:, :NUM_ACTIONS] + self.bias


class BoardNet(BaseFeaturesExtractor):
    """A small residual tower over the ``[22, 9, 9]`` planes: a 3×3 convolution to
    ``channels``, ``blocks`` residual blocks of two 3×3 convolutions, then a linear layer to
    ``features_dim`` (ReLU). Shared by the policy and value heads and by every seat. With
    ``policy_head="steps"`` the features start with :class:`StepHead`'s 196 action scores,
    which :class:`BoardPolicy` uses as its logits. With ``inputs="lines"`` the tower reads
    :class:`LinePlanes`' eight planes beside the observation's."""

    def __init__(
        self,
        observation_space: spaces.Box,
        features_dim: int = 256,
        channels: int = 32,
        blocks: int = 3,
        policy_head: str = "linear",
        inputs: str = "planes",
    ) -> None:
        steps = policy_head == "steps"
        super().__init__(observation_space, features_dim + (NUM_ACTIONS if steps else 0))
        planes, height, width = observation_space.shape
        self.lines = LinePlanes() if inputs == "lines" else None
        planes += LinePlanes.count if self.lines is not None else 0
        self.stem = nn.Sequential(nn.Conv2d(planes, channels, 3, padding=1), nn.ReLU())
        self.tower = nn.Sequential(*[ResidualBlock(channels) for _ in range(blocks)])
        self.head = nn.Sequential(
            nn.Flatten(), nn.Linear(channels * height * width, features_dim), nn.ReLU()
        )
        self.steps = StepHead(channels) if steps else None

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = observations
        if self.lines is not None:
            x = torch.cat([x, self.lines(x)], dim=1)
        x = self.tower(self.stem(x))
        if self.steps is None:
            return self.head(x)
        return torch.cat([self.steps(x, observations), self.head(x)], dim=1)


class BoardPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose policy head is :class:`StepLogits` when its
    :class:`BoardNet` has a step head (the scores start small, so the first policy is
    near uniform); otherwise exactly the parent."""

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        steps = getattr(self.features_extractor, "steps", None)
        if steps is None:
            return
        self.action_net = StepLogits()
        if self.ortho_init:
            self.init_weights(steps.conv, gain=0.01)
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


class PolicyAgent(Agent):
    """Plays with a masked actor-critic policy (``MaskableActorCriticPolicy``); with
    ``mirror`` (2-player networks only) from the mean of the logits of each position and of
    its reflection in the north-south axis, which plays the same (two passes a step)."""

    needs_observation = True
    batched = True

    def __init__(
        self,
        policy: Any,
        name: str = "policy",
        deterministic: bool = True,
        meta: Mapping[str, Any] | None = None,
        max_turns: int = 200,
        mirror: bool = False,
    ) -> None:
        self.policy = policy
        self.name = name
        self.deterministic = deterministic
        self.meta = dict(meta or {})
        self.num_players = self.meta.get("num_players")
        self.max_turns = max_turns
        if mirror and self.num_players != 2:
            raise ValueError(
                f"{name!r}: a reflected position plays the same only in 2-player games; this "
                f"network is for {self.num_players} players, so it cannot play with a mirror"
            )
        self.mirror = mirror
        self._rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        if observation is None:
            observation = encode(state, state.to_move, self.max_turns)
        if self.mirror:
            planes, mask = observation["observation"][None], observation["action_mask"][None]
            return int(self.act_batch(planes, mask)[0])
        return self.act_on(observation["observation"], observation["action_mask"])

    @torch.no_grad()
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Actions for a batch of planes and masks, from one forward pass of the policy
        head: the likeliest legal action, or (not ``deterministic``) one drawn from the
        masked softmax by the Gumbel-max trick."""
        return self._choose(self.logits(observations), action_masks)

    @torch.no_grad()
    def logits(self, observations: np.ndarray) -> np.ndarray:
        """The policy head's logits (``float32[n, 196]``, unmasked) for a batch of planes
        (with ``mirror``, their mean over each position and its reflection)."""
        policy = self.policy
        if self.mirror:
            observations = np.concatenate([observations, mirror_planes(observations)])
        obs = torch.as_tensor(observations, dtype=torch.float32)
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
        logits = policy.action_net(latent).numpy()
        if self.mirror:
            n = len(logits) // 2
            logits = mirror_mean(logits[:n], logits[n:])
        return logits

    @classmethod
    @torch.no_grad()
    def act_batches(
        cls,
        agents: Sequence[PolicyAgent],
        observations: Sequence[np.ndarray],
        action_masks: Sequence[np.ndarray],
    ) -> list[np.ndarray]:
        """:meth:`act_batch` for several policies at once: when they share one shape, a
        single pass of all their networks together (grouped convolutions), each agent then
        choosing from its own logits as :meth:`act_batch` does."""
        fuse = len(agents) > 1 and not any(agent.mirror for agent in agents)
        stack = PolicyStack.of([agent.policy for agent in agents]) if fuse else None
        if stack is None:
            return super().act_batches(agents, observations, action_masks)
        logits = stack.logits(observations)
        return [
            agent._choose(out, masks)
            for agent, out, masks in zip(agents, logits, action_masks, strict=True)
        ]

    def _choose(self, logits: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        logits[~masks] = -np.inf
        if not self.deterministic:
            uniform = np.clip(self._rng.random(logits.shape), 1e-12, 1 - 1e-12)
            logits -= np.log(-np.log(uniform))
        return logits.argmax(axis=1)

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


class PolicyStack(network.PolicyStack):
    """The policy heads of several :class:`BoardNet` policies of one shape run as one network:
    their convolutions side by side as groups, their linear layers as batched matrix
    products. A copy of the weights, made once for a set of policies and remade when any of
    them changes in place (trained further, weights loaded); :meth:`of` (the core's) keeps
    the last few."""

    @torch.no_grad()
    def __init__(self, policies: Sequence[Any]) -> None:
        nets = [policy.features_extractor for policy in policies]

        def side_by_side(conv: Callable[[BoardNet], nn.Conv2d]) -> tuple[torch.Tensor, ...]:
            weight = torch.cat([conv(net).weight for net in nets])
            return (
                weight.contiguous(memory_format=torch.channels_last),
                torch.cat([conv(net).bias for net in nets]),
            )

        def batched(linears: list[nn.Linear]) -> tuple[torch.Tensor, ...]:
            return (
                torch.stack([layer.bias for layer in linears])[:, None],
                torch.stack([layer.weight for layer in linears]).transpose(1, 2),
            )

        self.size = len(nets)
        self.stem = side_by_side(lambda net: net.stem[0])
        self.blocks = [
            (
                side_by_side(lambda net, i=i: net.tower[i].conv1),
                side_by_side(lambda net, i=i: net.tower[i].conv2),
            )
            for i in range(len(nets[0].tower))
        ]
        self.head = batched([net.head[1] for net in nets])
        self.action = batched([policy.action_net for policy in policies])

    @classmethod
    def _key(cls, policy: Any) -> Any:
        """Every weight's shape, for :class:`BoardNet` policies with a linear policy head
        (not :class:`StepHead`) over the observation planes alone; else ``None``."""
        if not (
            isinstance(policy.features_extractor, BoardNet)
            and policy.features_extractor.steps is None
            and policy.features_extractor.lines is None
            and len(policy.mlp_extractor.policy_net) == 0
        ):
            return None
        return tuple(tensor.shape for tensor in policy.parameters())

    @torch.no_grad()
    def logits(self, observations: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each policy's action logits for its own batch of planes (one per policy)."""
        m, rows = self.size, max(len(obs) for obs in observations)
        x = np.zeros((rows, m, *OBS_SHAPE), dtype=np.float32)
        for k, obs in enumerate(observations):
            x[: len(obs), k] = obs
        t = torch.from_numpy(x).reshape(rows, m * OBS_SHAPE[0], *OBS_SHAPE[1:])
        # Grouped convolutions are several times faster on channels-last tensors.
        t = t.contiguous(memory_format=torch.channels_last)
        t = F.relu(F.conv2d(t, *self.stem, padding=1, groups=m))
        for conv1, conv2 in self.blocks:
            inner = F.relu(F.conv2d(t, *conv1, padding=1, groups=m))
            t = F.relu(t + F.conv2d(inner, *conv2, padding=1, groups=m))
        t = t.reshape(rows, m, -1).transpose(0, 1)
        bias, weight = self.head
        features = F.relu(torch.baddbmm(bias, t, weight))
        bias, weight = self.action
        out = torch.baddbmm(bias, features, weight).numpy()
        return [out[k, : len(obs)] for k, obs in enumerate(observations)]


@dataclass(frozen=True)
class NetworkShape:
    """The board network's size: :class:`BoardNet` (``channels``, ``blocks``,
    ``features_dim``), a linear policy head and a value head with ``value_hidden`` layers."""

    channels: int = 32
    """Width of the residual tower."""
    blocks: int = 3
    """Residual blocks (two 3x3 convolutions each)."""
    features_dim: int = 256
    """Size of the shared feature vector fed to the policy and value heads."""
    value_hidden: tuple[int, ...] = (64,)
    """Hidden layers of the value head."""
    policy_head: str = "linear"
    """``linear`` (one layer over the shared features) or ``steps`` (:class:`StepHead`:
    each step scored on its piece's square by the same convolution)."""
    inputs: str = "planes"
    """``planes`` (the observation) or ``lines`` (with :class:`LinePlanes`)."""
    stem: int = 3
    """Kernel of the first convolution: 3, or 1 for the core games' networks
    (:class:`tabletop.network.PlanesNet`); :class:`BoardNet`'s is 3."""

    def policy_kwargs(self) -> dict[str, Any]:
        """The ``MaskablePPO`` ``policy_kwargs`` for this shape."""
        return {
            "features_extractor_class": BoardNet,
            "features_extractor_kwargs": {
                "features_dim": self.features_dim,
                "channels": self.channels,
                "blocks": self.blocks,
                "policy_head": self.policy_head,
                "inputs": self.inputs,
            },
            "net_arch": {"pi": [], "vf": list(self.value_hidden)},
        }

    def to_json(self) -> dict[str, Any]:
        out = {**asdict(self), "value_hidden": list(self.value_hidden)}
        del out["stem"]  # always 3 here
        return out


def shape_of(weights: Mapping[str, torch.Tensor]) -> NetworkShape:
    """The shape of the network whose policy ``state_dict`` is ``weights`` (read from the
    tensors' sizes, so an old file's pickled keyword arguments are not needed)."""
    blocks = {
        name.split(".")[2] for name in weights if name.startswith("features_extractor.tower.")
    }
    value = sorted(
        (int(name.split(".")[2]), tensor.shape[0])
        for name, tensor in weights.items()
        if name.startswith("mlp_extractor.value_net.") and name.endswith(".weight")
    )
    stem = weights["features_extractor.stem.0.weight"]
    return NetworkShape(
        channels=stem.shape[0],
        blocks=len(blocks),
        features_dim=weights["features_extractor.head.1.weight"].shape[0],
        value_hidden=tuple(size for _, size in value),
        policy_head="steps" if "features_extractor.steps.conv.weight" in weights else "linear",
        inputs="lines" if stem.shape[1] == OBS_SHAPE[0] + LinePlanes.count else "planes",
    )


def build_policy(shape: NetworkShape, ortho_init: bool = True) -> Any:
    """An untrained ``MaskableActorCriticPolicy`` of ``shape``, in evaluation mode
    (``ortho_init=False`` skips stable-baselines3's slow orthogonal initialisation, for
    weights that are loaded next)."""
    policy = BoardPolicy(
        spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32),
        spaces.Discrete(NUM_ACTIONS),
        lambda _: 0.0,
        ortho_init=ortho_init,
        **shape.policy_kwargs(),
    )
    policy.set_training_mode(False)
    return policy
