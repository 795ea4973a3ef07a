"""Splut!'s players: the built-in bots (:mod:`~splut_env.players.bots`), the exact tactics
and the shield (:mod:`~splut_env.players.tactics`), the board network
(:mod:`~splut_env.players.network`) and its checkpoints (:mod:`~splut_env.players.checkpoint`).

:data:`PLAYERS` names them. Its built-in entries are entry points, imported when an agent of
that name is first made (so torch is imported only for checkpoints), and nothing registers
itself on import.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tabletop.agents import Agent, AgentRegistry, Factory, shipped_spec

#: The strongest player shipped for each table size, as measured in docs/studies/best-players.md
#: (``make_agent("best:2p")`` plays it). A spec as ``make_agent`` reads
#: it; checkpoint paths are relative to the working folder or, failing that, to the
#: repository the package was installed from.
BEST = {
    2: "checkpoints/splut_2p_guide.zip:expert=10000",
    3: "search:expert",
    4: "checkpoints/splut_4p.zip:expert=10000",
}


def best_spec(num_players: int) -> str:
    """The spec of ``best:<num_players>p`` (:data:`BEST`), its checkpoint path resolved;
    raises ``ValueError`` if that file is in neither place."""
    repository = Path(__file__).resolve().parents[2]
    return shipped_spec(BEST[num_players], f"best:{num_players}p", repository)


def _best(num_players: int, seed: int | None = None) -> Agent:
    return PLAYERS.make(best_spec(num_players), seed=seed)


#: Splut!'s agents by name; ``make_agent`` also reads checkpoint paths (``*.zip``,
#: ``*.zip:shield``, ``*.zip:mirror``, ``*.zip:mcts[=N]``, ``*.zip:expert[=N]``).
PLAYERS = AgentRegistry(
    {
        "random": "splut_env.players.bots:RandomAgent",
        "greedy": "splut_env.players.bots:GreedyAgent",
        "search:easy": "splut_env.batched.bots:easy",
        "search:medium": "splut_env.batched.bots:medium",
        "search:hard": "splut_env.batched.bots:hard",
        "search:expert": "splut_env.batched.bots:expert",
        **{f"best:{n}p": partial(_best, n) for n in BEST},
    },
    files="splut_env.players.checkpoint:agent_from_spec",
    files_help=(
        "a checkpoint path (*.zip, *.zip:shield, *.zip:mirror, *.zip:mcts[=N] or *.zip:expert[=N])"
    ),
)


def make_agent(spec: str | Agent, seed: int | None = None) -> Agent:
    """An agent from a registered name (``"random"``, ``"greedy"``,
    ``"search:easy|medium|hard|expert"``, ``"best:2p|3p|4p"`` or one given to
    :func:`register_agent`), ``"search:expert=N"`` (a budget of N positions per turn), a
    checkpoint path (``*.zip``; ``*.zip:shield`` adds the rules' tactical check,
    ``*.zip:mirror`` the mean over a 2-player position and its reflection,
    ``*.zip:mcts[=N]`` a tree search over the network, ``*.zip:expert[=N]`` the expert's
    search with the network choosing among turns it values equally), or ``spec`` itself."""
    return PLAYERS.make(spec, seed=seed)


def register_agent(name: str, factory: Factory) -> None:
    """Make ``make_agent(name)`` build ``factory(seed=...)`` (a callable or a
    ``"module:attribute"`` entry point)."""
    PLAYERS.register(name, factory)


def agent_names() -> list[str]:
    """The names :func:`make_agent` knows."""
    return PLAYERS.names()
