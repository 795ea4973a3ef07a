"""What the self-play trainer (:mod:`training.train`) needs of a game, one
:class:`TrainingKit` per game, chosen by the config's ``game`` key (no key: ``splut``).

The trainer itself is the same for every game: MaskablePPO over a self-play vector
environment, a snapshot pool, periodic evaluations, signed checkpoints and model cards. A kit
supplies the game's side: the self-play environments, the network, the player that plays a
policy, the player file, and an optional warm start. Kits are named here by entry point and
imported when a run asks for their game.
"""

from __future__ import annotations

import abc
from pathlib import Path
from typing import Any

from tabletop.agents import Agent, load_entry_point

#: Game name → entry point of its kit.
KITS: dict[str, str] = {
    "splut": "training.splut_kit:KIT",
    "talat": "training.talat_kit:KIT",
    "splendor": "training.splendor_kit:KIT",
}


class TrainingKit(abc.ABC):
    """A game's side of self-play training."""

    #: The game's registry name.
    game: str
    #: Version of the game's observation and action layout (recorded in checkpoints).
    layout_version: int
    #: The ``MaskableActorCriticPolicy`` subclass the learner uses.
    policy_class: type

    @abc.abstractmethod
    def selfplay_env(self, config: Any) -> Any:
        """``config.n_envs`` self-play games as a Gymnasium ``VectorEnv`` in
        ``AutoresetMode.SAME_STEP`` with ``action_masks()``, ``set_pool(snapshots)`` (the
        pool's ``(label, state_dict)`` pairs) and, for finished games, ``final_info`` entries
        ``outcome`` and ``opponents`` (see :class:`training.selfplay.SelfPlayVecEnv`)."""

    @abc.abstractmethod
    def policy_kwargs(self, shape: Any) -> dict[str, Any]:
        """The ``MaskablePPO`` ``policy_kwargs`` of a network of ``shape``."""

    @abc.abstractmethod
    def build_policy(self, shape: Any, ortho_init: bool = True) -> Any:
        """An untrained policy of ``shape`` in evaluation mode."""

    @abc.abstractmethod
    def policy_agent(self, policy: Any, name: str, deterministic: bool, max_turns: int) -> Agent:
        """A player over ``policy`` (for evaluations)."""

    @abc.abstractmethod
    def save_player(self, policy: Any, path: Path, config: Any, **facts: Any) -> Path:
        """Write ``policy`` as the game's player file with the run's ``facts``."""

    @abc.abstractmethod
    def load_checkpoint(self, path: str | Path) -> Any:
        """The game's player file at ``path``, checked (its ``policy`` and ``meta``)."""

    def check(self, config: Any) -> None:
        """Config checks of this game's own (``ConfigError``); none by default."""

    def describe_network(self, network: Any) -> str:
        """The config's ``network`` in words, for model cards (a residual CNN by default)."""
        head = ", steps policy head" if network.policy_head == "steps" else ""
        stem = ", 1×1 stem" if network.stem == 1 else ""
        return (
            f"residual CNN{stem}, {network.blocks} blocks × {network.channels} channels, "
            f"{network.features_dim} features{head}"
        )

    def warm_start(self, policy: Any, config: Any) -> dict | None:
        """Fit ``policy`` before self-play (``pretrain``); ``None``: no warm start."""
        return None

    def load_start(self, policy: Any, config: Any) -> str:
        """Load ``config.init_from`` into ``policy``; returns the value-head choice made."""
        raise ValueError(f"init_from is not supported for {self.game}")


_LOADED: dict[str, TrainingKit] = {}


def training_kit(game: str) -> TrainingKit:
    """The kit of ``game``; ``ValueError`` naming the games with one otherwise."""
    if game not in _LOADED:
        if game not in KITS:
            raise ValueError(f"no trainer for game {game!r}: expected one of {sorted(KITS)}")
        _LOADED[game] = load_entry_point(KITS[game])
    return _LOADED[game]
