"""A board network for any game whose observation is a stack of planes ``[C, H, W]`` with a
fixed ``Discrete`` action space, and the player over such a policy. Needs the ``[train]``
extra (torch, stable-baselines3, sb3-contrib).

:class:`PlanesNet` is a residual tower (a 3×3 convolution to ``channels``, ``blocks`` blocks
of two 3×3 convolutions, a linear layer to ``features_dim``) shared by the policy and value
heads; :func:`build_policy` makes a ``MaskableActorCriticPolicy`` over it;
:class:`PolicyAgent` plays one, from the observation a game gives it or a batch of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from tabletop.agents import Agent


class ResidualBlock(nn.Module):
    """Two 3×3 convolutions with a skip connection."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


class PlanesNet(BaseFeaturesExtractor):
    """The residual tower over ``[C, H, W]`` planes (see the module doc)."""

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


def planes_policy_kwargs(
    channels: int, blocks: int, features_dim: int, value_hidden: tuple[int, ...]
) -> dict[str, Any]:
    """``MaskablePPO``'s ``policy_kwargs`` for a :class:`PlanesNet` policy: a linear policy
    head over the shared features and a value head with ``value_hidden`` layers."""
    return {
        "features_extractor_class": PlanesNet,
        "features_extractor_kwargs": {
            "features_dim": features_dim,
            "channels": channels,
            "blocks": blocks,
        },
        "net_arch": {"pi": [], "vf": list(value_hidden)},
    }


def build_policy(
    obs_shape: tuple[int, ...],
    num_actions: int,
    policy_kwargs: dict[str, Any],
    ortho_init: bool = True,
) -> MaskableActorCriticPolicy:
    """An untrained masked actor-critic policy in evaluation mode (``ortho_init=False`` skips
    stable-baselines3's slow orthogonal initialisation, for weights loaded next)."""
    policy = MaskableActorCriticPolicy(
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
        logits = self.logits(observations)
        masks = np.asarray(action_masks, dtype=bool)
        logits[~masks] = -np.inf
        if not self.deterministic:
            uniform = np.clip(self._rng.random(logits.shape), 1e-12, 1 - 1e-12)
            logits -= np.log(-np.log(uniform))
        return logits.argmax(axis=1)
