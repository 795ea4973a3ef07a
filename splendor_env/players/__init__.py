"""Splendor's players: the built-in bots (:mod:`~splendor_env.players.bots`,
:mod:`~splendor_env.players.search`) and trained networks read from player files
(:mod:`~splendor_env.players.checkpoint`, needs the ``[train]`` extra).

:data:`PLAYERS` names them. Its built-in entries are entry points, imported when an agent of
that name is first made, and nothing registers itself on import. Every built-in player
plans only on what its seat may see (SPLENDOR_RULES.md §9), and a network sees only its
seat's observation.

``best:2p``, ``best:3p`` and ``best:4p`` play the strongest player shipped for that table
size (:data:`BEST`): today ``search:fitted`` at every size (no Splendor network is shipped
yet), measured against :data:`YARDSTICK`.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tabletop.agents import Agent, AgentRegistry, Factory, shipped_spec

#: The search player that every training pool and every fit leaves out, against which the
#: strongest players are measured.
YARDSTICK = "search:hard"
#: The strongest player shipped for each table size: ``make_agent("best:2p")`` plays it. A
#: spec as ``make_agent`` reads it; checkpoint paths (``*.zip``) are relative to the working
#: folder or, failing that, to the repository the package was installed from.
BEST = {2: "search:fitted", 3: "search:fitted", 4: "search:fitted"}
#: The table sizes that have a ``best:Np``.
BEST_COUNTS = tuple(BEST)


def best_spec(num_players: int) -> str:
    """The spec of ``best:<num_players>p`` (:data:`BEST`), its checkpoint path resolved;
    raises ``ValueError`` if that file is in neither place."""
    repository = Path(__file__).resolve().parents[2]
    return shipped_spec(BEST[num_players], f"best:{num_players}p", repository)


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
        "search:fitted": "splendor_env.players.search:fitted",
        **{f"best:{n}p": partial(_best, n) for n in BEST_COUNTS},
    },
    files="splendor_env.players.checkpoint:agent_from_spec",
    files_help="a player file (*.zip)",
)


def make_agent(spec: str | Agent, seed: int | None = None) -> Agent:
    """An agent from a registered name (``"random"``, ``"greedy"``,
    ``"search:easy|medium|hard|fitted"``, ``"best:2p|3p|4p"`` or one given to
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
