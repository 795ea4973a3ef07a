"""Rate agents against each other: ``python -m training.evaluate --agents greedy random``.

The harness is game-agnostic and lives in :mod:`tabletop.evaluate` (``--game`` picks the
game; Splut! by default); this module keeps its command and names."""

from tabletop.evaluate import *  # noqa: F403
from tabletop.evaluate import evaluate_agent, main, random_opening

__all__ = ["evaluate_agent", "main", "random_opening"]

if __name__ == "__main__":
    main()
