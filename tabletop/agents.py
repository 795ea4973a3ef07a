"""The :class:`Agent` interface and :class:`AgentRegistry`, for any turn-based game.

An agent is asked to act for the player to move in a position. It gets the game's state (for
bots that search) and, when its ``needs_observation`` is true, the observation dict
``{"observation": ..., "action_mask": ...}`` of that player (for learned policies). It returns
an action index in that player's action space. Nothing here knows the game: Splut!'s players
and their names are in :mod:`splut_env.players`.
"""

from __future__ import annotations

import abc
import importlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any


class Agent(abc.ABC):
    """A player. Subclasses implement :meth:`act` and may override :meth:`reset`."""

    #: Whether :meth:`act` needs the observation dict (otherwise ``None`` may be passed).
    needs_observation: bool = True
    name: str = "agent"
    #: The table size it was made for (a trained policy's), or ``None`` for any.
    num_players: int | None = None

    #: Whether :meth:`act_batch` plays many positions at once from their observations and
    #: masks alone (no state, no memory between calls): vector environments then ask it once
    #: for every game where it is to move.
    batched: bool = False

    def reset(self, seed: int | None = None) -> None:
        """Called before each game; reseed any randomness from ``seed``."""

    @abc.abstractmethod
    def act(self, state: Any, observation: Mapping[str, Any] | None = None) -> int:
        """Choose a legal action for the player to move in ``state``."""

    def act_batch(self, observations: Any, action_masks: Any) -> Any:
        """Actions for many positions at once, for ``batched`` agents: ``observations`` (a
        batch of them, ``None`` if ``needs_observation`` is false) and their boolean
        ``action_masks``, one row per position."""
        raise NotImplementedError(f"{self!r} does not act on batches")

    @classmethod
    def act_batches(
        cls, agents: Sequence[Agent], observations: Sequence[Any], action_masks: Sequence[Any]
    ) -> list[Any]:
        """:meth:`act_batch` for several batched agents of this class, agent ``k`` on
        ``observations[k]`` and ``action_masks[k]``: one call each, unless a subclass fuses
        them (one forward pass for several networks)."""
        return [
            agent.act_batch(obs, masks)
            for agent, obs, masks in zip(agents, observations, action_masks, strict=True)
        ]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


#: A factory called as ``factory(seed=...)``, or its ``"module:attribute"`` entry point.
Factory = Callable[..., Agent] | str
#: The largest budget ``name=N`` accepts.
MAX_BUDGET = 10_000_000


def checked_budget(spec: str, name: str, text: str, unit: str = "", limit: int = MAX_BUDGET) -> int:
    """``text``, the ``N`` of ``name=N`` in ``spec``, as a whole number from 1 to ``limit``;
    else ``ValueError`` naming the spec (``unit``, e.g. ``"of simulations"``, says what N
    counts)."""
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= limit:
        number = f"a whole number {unit}".rstrip()
        raise ValueError(
            f"{spec!r:.120}: expected {name}=N with N {number} from 1 to {limit}, got {text!r:.40}"
        )
    return int(text)


def budget_suffix(
    spec: str,
    suffix: str,
    default: int,
    unit: str = "",
    limit: int = MAX_BUDGET,
    head_ends: str = "",
) -> tuple[str, int] | None:
    """``(head, N)`` for ``spec`` = ``head + suffix`` (N = ``default``) or ``head + suffix
    + "=N"`` (:func:`checked_budget`); ``None`` if ``spec`` ends otherwise or ``head`` does
    not end with ``head_ends``."""
    head, sep, tail = spec.rpartition(suffix)
    if not sep or not head.endswith(head_ends) or (tail and not tail.startswith("=")):
        return None
    return head, checked_budget(spec, suffix, tail[1:], unit, limit) if tail else default


def load_entry_point(entry_point: str) -> Any:
    """The object an ``"package.module:attribute"`` string names (imported on first use)."""
    module, _, attribute = entry_point.partition(":")
    return getattr(importlib.import_module(module), attribute)


class AgentRegistry:
    """Names → agents, as ``gymnasium``'s registry does for environments: each name maps to a
    factory or to the ``"module:attribute"`` entry point of one, imported only when an agent
    of that name is made. ``files`` is the entry point of a function
    ``load(spec, seed) -> Agent | None`` that makes agents from file specs (checkpoints); it
    returns ``None`` for a spec that is not one of its files; ``files_help`` says what such a
    spec looks like, for error messages. ``name=N`` makes ``name``'s agent with a search
    budget of ``N`` when its factory takes a ``budget`` argument."""

    def __init__(
        self,
        builtins: Mapping[str, Factory],
        files: str | None = None,
        files_help: str = "a file",
    ) -> None:
        self._factories: dict[str, Factory] = dict(builtins)
        self._files = files
        self._files_help = files_help

    def register(self, name: str, factory: Factory) -> None:
        """Make ``make(name)`` build ``factory(seed=...)``."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"an agent name must be a non-empty string, got {name!r:.80}")
        self._factories[name] = factory

    def _factory(self, name: str) -> Callable[..., Agent]:
        factory = self._factories[name]
        if isinstance(factory, str):
            factory = self._factories[name] = load_entry_point(factory)
        return factory

    def _with_budget(self, spec: str, name: str, budget: str, seed: int | None) -> Agent:
        """``name``'s agent searching ``budget`` (``spec`` is ``name=budget``)."""
        factory = self._factory(name)
        if "budget" not in inspect.signature(factory).parameters:
            raise ValueError(f"{spec!r:.120}: agent {name!r} takes no search budget (=N)")
        return factory(seed=seed, budget=checked_budget(spec, name, budget))

    def names(self) -> list[str]:
        """The registered names."""
        return sorted(self._factories)

    def make(self, spec: str | Agent, seed: int | None = None) -> Agent:
        """An agent from a registered name, a file spec, or ``spec`` itself if it is one."""
        if isinstance(spec, Agent):
            return spec
        if isinstance(spec, str):
            if spec in self._factories:
                return self._factory(spec)(seed=seed)
            name, sep, budget = spec.partition("=")
            if sep and name in self._factories:
                return self._with_budget(spec, name, budget, seed)
            if self._files is not None:
                agent = load_entry_point(self._files)(spec, seed)
                if agent is not None:
                    return agent
        files = f", {self._files_help}" if self._files is not None else ""
        raise ValueError(
            f"unknown agent {spec!r:.120}: expected an Agent{files} or one of {self.names()}"
        )


def shipped_spec(spec: str, label: str, repository: Path) -> str:
    """``spec`` with the path of a file it names (``*.zip``, followed by any suffix) resolved
    against the working folder or, failing that, ``repository`` (where the package was
    installed from); ``ValueError`` naming ``label`` if the file is in neither place."""
    if ".zip" not in spec:
        return spec  # a registered name
    path, _, suffix = spec.partition(".zip")
    here = Path(path + ".zip")
    shipped = repository / here
    for candidate in (here, shipped):
        if candidate.is_file():
            return str(candidate) + suffix
    raise ValueError(
        f"{label} is {spec!r}, a file shipped in the repository's checkpoints/: "
        f"found neither {str(here.resolve())!r} nor {str(shipped)!r}"
    )


def agent_seed(seed: int | None, player: int) -> int | None:
    """The seed of ``player``'s agent in a game seeded with ``seed`` (``None``: unseeded)."""
    return None if seed is None else seed * 7919 + player


def check_table(agents: Sequence[Agent], num_players: int) -> None:
    """Raise ``ValueError`` if an agent was made for another number of players."""
    for agent in agents:
        made = getattr(agent, "num_players", None)
        if made is not None and made != num_players:
            raise ValueError(
                f"{agent!r} was trained for {made} players and cannot play at a table of "
                f"{num_players}"
            )
