"""Talat's players: the built-in bots (:mod:`~talat_env.players.bots`,
:mod:`~talat_env.players.search`), the ladder between them
(:mod:`~talat_env.players.ladder`), player files (:mod:`~talat_env.players.checkpoint`) and
the expert's search guided by one (:mod:`~talat_env.players.guided`).

:data:`PLAYERS` names them. Its built-in entries are entry points, imported when an agent of
that name is first made, and nothing registers itself on import.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tabletop.agents import Agent, AgentRegistry, Factory, shipped_spec

#: The strongest player shipped for each table size: ``make_agent("best:2p")`` plays it. A
#: spec as ``make_agent`` reads it; checkpoint paths (``*.zip``) are relative to the working
#: folder or, failing that, to the repository the package was installed from.
BEST = {
    2: "search:expert",
    3: "search:fitted",
}


def best_spec(num_players: int) -> str:
    """The spec of ``best:<num_players>p`` (:data:`BEST`), its checkpoint path resolved;
    raises ``ValueError`` if that file is in neither place."""
    repository = Path(__file__).resolve().parents[2]
    return shipped_spec(BEST[num_players], f"best:{num_players}p", repository)


def _best(num_players: int, seed: int | None = None) -> Agent:
    return PLAYERS.make(best_spec(num_players), seed=seed)


#: Talat's agents by name; ``make_agent`` also reads player files (``*.zip``, needs the
#: ``[train]`` extra: :mod:`talat_env.players.checkpoint`), and ``path.zip:expert`` or
#: ``path.zip:expert=N``: the expert's search with N positions a move guided by that network
#: (:mod:`talat_env.players.guided`).
PLAYERS = AgentRegistry(
    {
        "random": "talat_env.players.bots:RandomAgent",
        "greedy": "talat_env.players.bots:GreedyAgent",
        "search:easy": "talat_env.players.search:easy",
        "search:medium": "talat_env.players.search:medium",
        "search:hard": "talat_env.players.search:hard",
        "search:expert": "talat_env.players.search:expert",
        "search:fitted": "talat_env.players.search:fitted",
        **{f"best:{n}p": partial(_best, n) for n in BEST},
    },
    files="talat_env.players.checkpoint:agent_from_spec",
    files_help="a player file (*.zip, *.zip:expert, *.zip:expert=N)",
)


def make_agent(spec: str | Agent, seed: int | None = None) -> Agent:
    """An agent from a registered name (``"random"``, ``"greedy"``,
    ``"search:easy|medium|hard|expert"``, ``"search:fitted"``, ``"best:2p|3p"`` or one given to
    :func:`register_agent`), ``"search:<level>=N"`` (a budget of N positions per move), a
    player file (``"path.zip"``; ``"path.zip:expert"`` or ``"path.zip:expert=N"``: the
    expert's search guided by it), or ``spec`` itself."""
    return PLAYERS.make(spec, seed=seed)


def register_agent(name: str, factory: Factory) -> None:
    """Make ``make_agent(name)`` build ``factory(seed=...)`` (a callable or a
    ``"module:attribute"`` entry point)."""
    PLAYERS.register(name, factory)


def agent_names() -> list[str]:
    """The names :func:`make_agent` knows."""
    return PLAYERS.names()
