"""Splut!'s players: the built-in bots (:mod:`~splut_env.players.bots`), the exact tactics
and the shield (:mod:`~splut_env.players.tactics`), the board network
(:mod:`~splut_env.players.network`) and its checkpoints (:mod:`~splut_env.players.checkpoint`).

:data:`PLAYERS` names them. Its built-in entries are entry points, imported when an agent of
that name is first made (so torch is imported only for checkpoints), and nothing registers
itself on import.
"""

from __future__ import annotations

from splut_env.common.agents import Agent, AgentRegistry, Factory

#: Splut!'s agents by name; ``make_agent`` also reads checkpoint paths (``*.zip``,
#: ``*.zip:shield``, ``*.zip:mcts[=N]``).
PLAYERS = AgentRegistry(
    {
        "random": "splut_env.players.bots:RandomAgent",
        "greedy": "splut_env.players.bots:GreedyAgent",
        "search:easy": "splut_env.players.bots:easy",
        "search:medium": "splut_env.players.bots:medium",
        "search:hard": "splut_env.players.bots:hard",
    },
    files="splut_env.players.checkpoint:agent_from_spec",
    files_help="a checkpoint path (*.zip, *.zip:shield, *.zip:mcts or *.zip:mcts=N)",
)


def make_agent(spec: str | Agent, seed: int | None = None) -> Agent:
    """An agent from a registered name (``"random"``, ``"greedy"``,
    ``"search:easy|medium|hard"`` or one given to :func:`register_agent`), a checkpoint path
    (``*.zip``; ``*.zip:shield`` adds the rules' tactical check, ``*.zip:mcts[=N]`` a tree
    search over the network), or ``spec`` itself."""
    return PLAYERS.make(spec, seed=seed)


def register_agent(name: str, factory: Factory) -> None:
    """Make ``make_agent(name)`` build ``factory(seed=...)`` (a callable or a
    ``"module:attribute"`` entry point)."""
    PLAYERS.register(name, factory)


def agent_names() -> list[str]:
    """The names :func:`make_agent` knows."""
    return PLAYERS.names()
