"""Networks for any game with a fixed ``Discrete`` action space, whose observation is a stack
of planes ``[C, H, W]`` (:class:`PlanesNet`) or a feature vector (:class:`MLPNet`), and the
player over such a policy. Needs the ``[train]`` extra (torch, stable-baselines3,
sb3-contrib).

:class:`PlanesNet` is a residual tower (a 3×3 convolution to ``channels``, or with
``stem=1`` a 1×1 one, which costs a ninth as much over many input planes; ``blocks`` blocks
of two 3×3 convolutions; a linear layer to ``features_dim``) shared by the policy and value
heads; :func:`build_policy` makes a :class:`PlanesPolicy` (a ``MaskableActorCriticPolicy``)
over it; :class:`PolicyAgent` plays one, from the observation a game gives it or a batch of
them.

Two policy heads: ``linear``, one linear layer from the features to every action, or
``steps``, where each action is scored on the square where it happens (:class:`StepScores`):
a game that can say, for each action, on which pixel of its planes it is played and which of
a few kinds of action it is (its ``action_pixels`` table) lets one 1×1 convolution judge an
action the same way wherever it is played, which a linear layer has to learn square by
square.

:class:`MLPNet` is a stack of fully connected layers over a feature vector (a game such as
Splendor, whose observation already says, per card slot, what the card costs the observer
and who can buy it). It is used rather than a set encoder over the cards because each slot
of such a vector has a fixed meaning (a market row, a hand slot, a relative player), which a
set encoder would have to relearn from extra tags, and because a few dense layers keep
inference and the PPO update cheap on a CPU. :func:`mlp_policy_kwargs` makes its policy
kwargs; its policies are :class:`PlanesPolicy` too (with the ``linear`` head, exactly the
parent class).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn
from torch.nn import functional as F

from tabletop.agents import Agent

#: The kernel sizes of :class:`PlanesNet`'s first convolution (its ``stem``).
STEMS = (3, 1)


class ResidualBlock(nn.Module):
    """Two 3×3 convolutions with a skip connection."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


class StepScores(nn.Module):
    """Every action's score read where it is played: a 1×1 convolution gives ``kinds``
    scores on every pixel, and action ``a`` takes the one at flat index
    ``action_pixels[a] = kind * H * W + pixel`` (``-1``: an action played nowhere, such as
    a pass, scores 0 here and only its bias counts)."""

    def __init__(self, channels: int, action_pixels: tuple[int, ...], pixels: int) -> None:
        super().__init__()
        table = torch.tensor(action_pixels, dtype=torch.long)
        kinds = int(table.max()) // pixels + 1
        self.conv = nn.Conv2d(channels, kinds, 1)
        nowhere = kinds * pixels  # index of an appended zero
        self.register_buffer("index", torch.where(table < 0, nowhere, table), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = self.conv(x).flatten(1)
        return nn.functional.pad(scores, (0, 1))[:, self.index]


class PlanesNet(BaseFeaturesExtractor):
    """The residual tower over ``[C, H, W]`` planes (see the module doc). With
    ``action_pixels`` (the ``steps`` head) the features start with :class:`StepScores`'
    one score per action, which :class:`PlanesPolicy` uses as its logits."""

    def __init__(
        self,
        observation_space: spaces.Box,
        features_dim: int = 256,
        channels: int = 32,
        blocks: int = 3,
        action_pixels: tuple[int, ...] | None = None,
        stem: int = 3,
    ) -> None:
        extra = 0 if action_pixels is None else len(action_pixels)
        super().__init__(observation_space, features_dim + extra)
        planes, height, width = observation_space.shape
        if stem not in STEMS:
            raise ValueError(f"stem must be one of {list(STEMS)} (its kernel size), got {stem!r}")
        self.stem = nn.Sequential(nn.Conv2d(planes, channels, stem, padding=stem // 2), nn.ReLU())
        self.tower = nn.Sequential(*[ResidualBlock(channels) for _ in range(blocks)])
        self.head = nn.Sequential(
            nn.Flatten(), nn.Linear(channels * height * width, features_dim), nn.ReLU()
        )
        self.steps = (
            None
            if action_pixels is None
            else StepScores(channels, tuple(action_pixels), height * width)
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        # Channels-last convolutions are up to a third faster on a CPU for these small
        # planes (the weights need not be converted; the results are the same).
        planes = observations.contiguous(memory_format=torch.channels_last)
        x = self.tower(self.stem(planes))
        if self.steps is None:
            return self.head(x)
        return torch.cat([self.steps(x), self.head(x)], dim=1)


class MLPNet(BaseFeaturesExtractor):
    """Fully connected layers of ``hidden`` units (each a linear layer and a ReLU) over the
    flattened observation; the features are the last layer's (see the module doc)."""

    def __init__(self, observation_space: spaces.Box, hidden: tuple[int, ...] = (256, 256)) -> None:
        if not hidden:
            raise ValueError("an MLPNet needs at least one hidden layer")
        super().__init__(observation_space, hidden[-1])
        layers: list[nn.Module] = [nn.Flatten()]
        width = int(np.prod(observation_space.shape))
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        self.layers = nn.Sequential(*layers)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.layers(observations)


class StepLogits(nn.Module):
    """The ``steps`` policy head: :class:`StepScores`' scores (the first ``num_actions``
    features) plus one learnt bias per action."""

    def __init__(self, num_actions: int) -> None:
        super().__init__()
        self.num_actions = num_actions
        self.bias = nn.Parameter(torch.zeros(num_actions))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return latent[:, : self.num_actions] + self.bias


class GumbelCategorical(MaskableCategoricalDistribution):
    """The masked categorical distribution, sampled by the Gumbel-max trick: the argmax of
    the logits plus Gumbel noise ``-log(-log(u))``, the same distribution as torch's
    ``multinomial``, which takes several times longer over a thousand actions. A masked
    action never wins: its logit is -1e8 and the noise is below 17."""

    def sample(self) -> torch.Tensor:
        logits = self.distribution.logits
        noise = torch.rand_like(logits).log_().neg_().log_().neg_()
        return torch.argmax(logits + noise, dim=1)


class PlanesPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose policy head is :class:`StepLogits` when its
    :class:`PlanesNet` has step scores (they start small, so the first policy is near
    uniform); otherwise the parent's, with the same parameter names. Its actions are drawn
    by :class:`GumbelCategorical`."""

    def _build(self, lr_schedule: Any) -> None:
        self.action_dist = GumbelCategorical(int(self.action_space.n))
        super()._build(lr_schedule)
        steps = getattr(self.features_extractor, "steps", None)
        if steps is None:
            return
        self.action_net = StepLogits(self.action_space.n)
        if self.ortho_init:
            self.init_weights(steps.conv, gain=0.01)
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


#: The policy heads of :class:`PlanesNet`.
POLICY_HEADS = ("linear", "steps")


def planes_policy_kwargs(
    channels: int,
    blocks: int,
    features_dim: int,
    value_hidden: tuple[int, ...],
    action_pixels: tuple[int, ...] | None = None,
    stem: int = 3,
) -> dict[str, Any]:
    """``MaskablePPO``'s ``policy_kwargs`` for a :class:`PlanesPolicy`: the ``linear`` policy
    head over the shared features, or with ``action_pixels`` the ``steps`` head, and a value
    head with ``value_hidden`` layers."""
    extractor: dict[str, Any] = {
        "features_dim": features_dim,
        "channels": channels,
        "blocks": blocks,
    }
    if action_pixels is not None:
        extractor["action_pixels"] = tuple(action_pixels)
    if stem != 3:
        extractor["stem"] = stem
    return {
        "features_extractor_class": PlanesNet,
        "features_extractor_kwargs": extractor,
        "net_arch": {"pi": [], "vf": list(value_hidden)},
    }


def mlp_policy_kwargs(hidden: tuple[int, ...], value_hidden: tuple[int, ...]) -> dict[str, Any]:
    """``MaskablePPO``'s ``policy_kwargs`` for a :class:`PlanesPolicy` over an :class:`MLPNet`
    of ``hidden`` layers: the ``linear`` policy head over its features and a value head with
    ``value_hidden`` layers."""
    return {
        "features_extractor_class": MLPNet,
        "features_extractor_kwargs": {"hidden": tuple(hidden)},
        "net_arch": {"pi": [], "vf": list(value_hidden)},
    }


def build_policy(
    obs_shape: tuple[int, ...],
    num_actions: int,
    policy_kwargs: dict[str, Any],
    ortho_init: bool = True,
) -> PlanesPolicy:
    """An untrained :class:`PlanesPolicy` in evaluation mode (``ortho_init=False`` skips
    stable-baselines3's slow orthogonal initialisation, for weights loaded next)."""
    policy = PlanesPolicy(
        spaces.Box(0.0, 1.0, obs_shape, dtype=np.float32),
        spaces.Discrete(num_actions),
        lambda _: 0.0,
        ortho_init=ortho_init,
        **policy_kwargs,
    )
    policy.set_training_mode(False)
    return policy


def policy_weights(policy: Any) -> dict[str, torch.Tensor]:
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


class PolicyAgent(Agent):
    """Plays with a masked actor-critic policy: the likeliest legal action, or (not
    ``deterministic``) one drawn from the masked softmax. ``observe(state)`` gives the
    observation dict of the player to move when :meth:`act` is called without one."""

    needs_observation = True
    batched = True

    def __init__(
        self,
        policy: Any,
        observe: Callable[[Any], Mapping[str, np.ndarray]],
        name: str = "policy",
        deterministic: bool = True,
        num_players: int | None = None,
    ) -> None:
        self.policy = policy
        self.observe = observe
        self.name = name
        self.deterministic = deterministic
        self.num_players = num_players
        self._rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, state: Any, observation: Mapping[str, np.ndarray] | None = None) -> int:
        if observation is None:
            observation = self.observe(state)
        planes, mask = observation["observation"][None], observation["action_mask"][None]
        return int(self.act_batch(planes, mask)[0])

    @torch.no_grad()
    def logits(self, observations: np.ndarray) -> np.ndarray:
        """The policy head's unmasked logits for a batch of observations."""
        policy = self.policy
        obs = torch.as_tensor(observations, dtype=torch.float32)
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(obs))
        return policy.action_net(latent).numpy()

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self._choose(self.logits(observations), action_masks)

    @classmethod
    def act_batches(
        cls,
        agents: Sequence[Agent],
        observations: Sequence[Any],
        action_masks: Sequence[Any],
    ) -> list[Any]:
        """:meth:`act_batch` for several policies at once: when they share one shape, one
        pass of all their networks together (:class:`PolicyStack`), each agent then choosing
        from its own logits. A stack pads every policy's batch to the largest, so a policy
        with many more positions than the others (the latest one in a self-play pool) runs
        on its own when that is less work (:func:`split_largest`)."""
        if len(agents) < 2 or any(type(agent) is not cls for agent in agents):
            return super().act_batches(agents, observations, action_masks)
        alone, together = split_largest([len(masks) for masks in action_masks])
        answers: list[Any] = [None] * len(agents)
        stack = (
            PolicyStack.of([agents[k].policy for k in together])  # type: ignore[attr-defined]
            if len(together) > 1
            else None
        )
        if stack is None:
            alone, together = list(range(len(agents))), []
        else:
            logits = stack.logits([observations[k] for k in together])
            for k, out in zip(together, logits, strict=True):
                answers[k] = agents[k]._choose(out, action_masks[k])  # type: ignore[attr-defined]
        for k in alone:
            answers[k] = agents[k].act_batch(observations[k], action_masks[k])
        return answers

    def _choose(self, logits: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        logits[~masks] = -np.inf
        if not self.deterministic:
            uniform = np.clip(self._rng.random(logits.shape), 1e-12, 1 - 1e-12)
            logits -= np.log(-np.log(uniform))
        return logits.argmax(axis=1)


#: The fixed cost of one more forward pass, in rows of a batch (see :func:`split_largest`).
SPLIT_ROWS = 16


def split_largest(sizes: Sequence[int]) -> tuple[list[int], list[int]]:
    """Which of several batches (their ``sizes``) to run alone and which to stack (indices,
    in order): the largest go alone while that costs fewer padded rows, counting
    :data:`SPLIT_ROWS` for each extra pass."""
    rest = sorted(range(len(sizes)), key=lambda k: -sizes[k])
    alone: list[int] = []
    while len(rest) > 1 and (
        sizes[rest[0]] + (len(rest) - 1) * sizes[rest[1]] + SPLIT_ROWS < len(rest) * sizes[rest[0]]
    ):
        alone.append(rest.pop(0))
    return sorted(alone), sorted(rest)


def _versions(tensors: Sequence[torch.Tensor]) -> tuple[int, ...]:
    return tuple(tensor._version for tensor in tensors)


class PolicyStack:
    """The actor of several :class:`PlanesPolicy` policies of one shape run as one network:
    their convolutions side by side as groups, their linear layers as batched matrix
    products, so that a pool of snapshots costs one forward pass instead of one each. A copy
    of the weights, made once for a set of policies and remade when any of them changes in
    place (trained further, weights loaded); :meth:`of` keeps the last few."""

    _made: OrderedDict[tuple[int, ...], tuple[list, list, tuple, PolicyStack]] = OrderedDict()

    @torch.no_grad()
    def __init__(self, policies: Sequence[Any]) -> None:
        extractors = [policy.features_extractor for policy in policies]
        self.size = len(policies)
        first = extractors[0]
        self.obs_shape = tuple(policies[0].observation_space.shape)
        self.planes = isinstance(first, PlanesNet)
        if self.planes:
            self.stem = self._side_by_side([net.stem[0] for net in extractors])
            self.stem_padding = first.stem[0].padding
            self.blocks = [
                (
                    self._side_by_side([net.tower[i].conv1 for net in extractors]),
                    self._side_by_side([net.tower[i].conv2 for net in extractors]),
                )
                for i in range(len(first.tower))
            ]
            self.steps = first.steps is not None
            if self.steps:
                self.scores = self._side_by_side([net.steps.conv for net in extractors])
                self.index = first.steps.index
                self.action_bias = torch.stack([policy.action_net.bias for policy in policies])
            else:
                self.head = self._batched([net.head[1] for net in extractors])
        else:
            linears = [[m for m in net.layers if isinstance(m, nn.Linear)] for net in extractors]
            self.layers = [self._batched(list(group)) for group in zip(*linears, strict=True)]
            self.steps = False
        if not self.steps:
            self.action = self._batched([policy.action_net for policy in policies])

    @staticmethod
    def _side_by_side(convs: list[nn.Conv2d]) -> tuple[torch.Tensor, torch.Tensor]:
        weight = torch.cat([conv.weight for conv in convs])
        return weight.contiguous(memory_format=torch.channels_last), torch.cat(
            [conv.bias for conv in convs]
        )

    @staticmethod
    def _batched(linears: list[nn.Linear]) -> tuple[torch.Tensor, torch.Tensor]:
        return (
            torch.stack([layer.bias for layer in linears])[:, None],
            torch.stack([layer.weight for layer in linears]).transpose(1, 2).contiguous(),
        )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._made = OrderedDict()  # each kind of stack keeps its own

    @classmethod
    def _key(cls, policy: Any) -> Any:
        """What policies must share to be stacked (their kind and every weight's shape), or
        ``None`` for a policy this class cannot stack."""
        if not (
            isinstance(policy, PlanesPolicy)
            and isinstance(policy.features_extractor, PlanesNet | MLPNet)
            and len(policy.mlp_extractor.policy_net) == 0
            and policy.share_features_extractor
        ):
            return None
        return (
            type(policy.features_extractor),
            tuple(policy.observation_space.shape),
            tuple(tuple(tensor.shape) for tensor in policy.parameters()),
        )

    @classmethod
    def of(cls, policies: Sequence[Any]) -> PolicyStack | None:
        """The stack of ``policies``, or ``None`` unless they all have one :meth:`_key`:
        for this class, :class:`PlanesPolicy` policies of one shape whose actor is the
        features and the action head alone."""
        ids = tuple(id(policy) for policy in policies)
        made = cls._made.get(ids)
        if made is not None:
            refs, tensors, versions, stack = made
            if (
                all(ref() is policy for ref, policy in zip(refs, policies, strict=True))
                and _versions(tensors) == versions
            ):
                cls._made.move_to_end(ids)
                return stack
        keys = {cls._key(policy) for policy in policies}
        if len(keys) != 1 or None in keys:
            return None
        tensors = [tensor for policy in policies for tensor in policy.parameters()]
        refs = [weakref.ref(policy) for policy in policies]
        cls._made[ids] = (refs, tensors, _versions(tensors), cls(policies))
        while len(cls._made) > 4:
            cls._made.popitem(last=False)
        return cls._made[ids][3]

    @torch.no_grad()
    def logits(self, observations: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each policy's action logits for its own batch of observations (one per policy)."""
        m, rows = self.size, max(len(obs) for obs in observations)
        x = np.zeros((rows, m, *self.obs_shape), dtype=np.float32)
        for k, obs in enumerate(observations):
            x[: len(obs), k] = obs
        if self.planes:
            channels, height, width = self.obs_shape
            t = torch.from_numpy(x).reshape(rows, m * channels, height, width)
            # Grouped convolutions are several times faster on channels-last tensors.
            t = t.contiguous(memory_format=torch.channels_last)
            t = F.relu(F.conv2d(t, *self.stem, padding=self.stem_padding, groups=m))
            for conv1, conv2 in self.blocks:
                inner = F.relu(F.conv2d(t, *conv1, padding=1, groups=m))
                t = F.relu(t + F.conv2d(inner, *conv2, padding=1, groups=m))
            if self.steps:
                scores = F.conv2d(t, *self.scores, groups=m).reshape(rows, m, -1)
                scores = F.pad(scores, (0, 1))[:, :, self.index].transpose(0, 1)
                out = (scores + self.action_bias[:, None]).numpy()
            else:
                t = t.reshape(rows, m, -1).transpose(0, 1)
                bias, weight = self.head
                features = F.relu(torch.baddbmm(bias, t, weight))
                bias, weight = self.action
                out = torch.baddbmm(bias, features, weight).numpy()
        else:
            t = torch.from_numpy(x).reshape(rows, m, -1).transpose(0, 1)
            for bias, weight in self.layers:
                t = F.relu(torch.baddbmm(bias, t, weight))
            bias, weight = self.action
            out = torch.baddbmm(bias, t, weight).numpy()
        return [out[k, : len(obs)].copy() for k, obs in enumerate(observations)]
