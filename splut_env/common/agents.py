"""Moved to :mod:`tabletop.agents`; these names stay importable from here."""

from tabletop.agents import (
    MAX_BUDGET,
    Agent,
    AgentRegistry,
    Factory,
    agent_seed,
    budget_suffix,
    check_table,
    checked_budget,
    load_entry_point,
)

__all__ = [
    "MAX_BUDGET",
    "Agent",
    "AgentRegistry",
    "Factory",
    "agent_seed",
    "budget_suffix",
    "check_table",
    "checked_budget",
    "load_entry_point",
]
