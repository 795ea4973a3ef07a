"""Splendor's players: the built-in bots (:mod:`~splendor_env.players.bots`,
:mod:`~splendor_env.players.search`) and trained networks read from player files
(:mod:`~splendor_env.players.checkpoint`, needs the ``[train]`` extra).

:data:`PLAYERS` names them. Its built-in entries are entry points, imported when an agent of
that name is first made, and nothing registers itself on import. Every built-in player
plans only on what its seat may see (SPLENDOR_RULES.md §9), and a network sees only its
seat's observation.

``best:2p``, ``best:3p`` and ``best:4p`` play the shipped network for that table size,
``checkpoints/splendor_{N}p.zip`` (relative to the working folder or, failing that, to the
repository the package was installed from), when that file exists; otherwise the strongest
bot, :data:`STRONGEST_BOT` (``search:hard``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tabletop.agents import Agent, AgentRegistry, Factory, shipped_spec

#: The player ``best:Np`` falls back to when no network is shipped for that table size.
STRONGEST_BOT = "search:hard"
#: The table sizes that have a ``best:Np``.
BEST_COUNTS = (2, 3, 4)


def shipped_file(num_players: int) -> str:
    """Where the shipped network of ``num_players`` players would be, relative to the
    working folder or the repository."""
    return f"checkpoints/splendor_{num_players}p.zip"


def best_spec(num_players: int) -> str:
    """The spec of ``best:<num_players>p``: the shipped file's resolved path if it exists
    (:func:`shipped_file`), else :data:`STRONGEST_BOT`."""
    repository = Path(__file__).resolve().parents[2]
    shipped = shipped_file(num_players)
    if not (Path(shipped).is_file() or (repository / shipped).is_file()):
        return STRONGEST_BOT
    return shipped_spec(shipped, f"best:{num_players}p", repository)


def _best(num_players: int, seed: int | None = None) -> Agent:
    return PLAYERS.make(best_spec(num_players), seed=seed)


#: Splendor's agents by name; ``make_agent`` also reads player files (``*.zip``, needs the
#: ``[train]`` extra: :mod:`splendor_env.players.checkpoint`).
PLAYERS = AgentRegistry(
    {
        "random": "splendor_env.players.bots:RandomAgent",
        "greedy": "splendor_env.players.bots:GreedyAgent",
        "search:easy": "splendor_env.players.search:easy",
        "search:medium": "splendor_env.players.search:medium",
        "search:hard": "splendor_env.players.search:hard",
        **{f"best:{n}p": partial(_best, n) for n in BEST_COUNTS},
    },
    files="splendor_env.players.checkpoint:agent_from_spec",
    files_help="a player file (*.zip)",
)


def make_agent(spec: str | Agent, seed: int | None = None) -> Agent:
    """An agent from a registered name (``"random"``, ``"greedy"``,
    ``"search:easy|medium|hard"``, ``"best:2p|3p|4p"`` or one given to
    :func:`register_agent`), ``"search:<level>=N"`` (N iterations per decision), a player
    file (``*.zip``), or ``spec`` itself."""
    return PLAYERS.make(spec, seed=seed)


def register_agent(name: str, factory: Factory) -> None:
    """Make ``make_agent(name)`` build ``factory(seed=...)`` (a callable or a
    ``"module:attribute"`` entry point)."""
    PLAYERS.register(name, factory)


def agent_names() -> list[str]:
    """The names :func:`make_agent` knows."""
    return PLAYERS.names()
