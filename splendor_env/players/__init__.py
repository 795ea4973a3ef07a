"""Splendor's players: the built-in bots (:mod:`~splendor_env.players.bots`,
:mod:`~splendor_env.players.search`).

:data:`PLAYERS` names them. Its built-in entries are entry points, imported when an agent of
that name is first made, and nothing registers itself on import. Every built-in player
plans only on what its seat may see (SPLENDOR_RULES.md §9).
"""

from __future__ import annotations

from tabletop.agents import Agent, AgentRegistry, Factory

#: Splendor's agents by name.
PLAYERS = AgentRegistry(
    {
        "random": "splendor_env.players.bots:RandomAgent",
        "greedy": "splendor_env.players.bots:GreedyAgent",
        "search:easy": "splendor_env.players.search:easy",
        "search:medium": "splendor_env.players.search:medium",
        "search:hard": "splendor_env.players.search:hard",
    }
)


def make_agent(spec: str | Agent, seed: int | None = None) -> Agent:
    """An agent from a registered name (``"random"``, ``"greedy"``,
    ``"search:easy|medium|hard"`` or one given to :func:`register_agent`),
    ``"search:<level>=N"`` (N iterations per decision), or ``spec`` itself."""
    return PLAYERS.make(spec, seed=seed)


def register_agent(name: str, factory: Factory) -> None:
    """Make ``make_agent(name)`` build ``factory(seed=...)`` (a callable or a
    ``"module:attribute"`` entry point)."""
    PLAYERS.register(name, factory)


def agent_names() -> list[str]:
    """The names :func:`make_agent` knows."""
    return PLAYERS.names()
