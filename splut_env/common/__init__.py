"""The game-agnostic modules that were here live in :mod:`tabletop` now; ``agents``, ``cli``
and ``files`` stay importable from here."""
