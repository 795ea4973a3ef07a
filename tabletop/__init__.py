"""The game-agnostic core every game plugs into: the agent interface and registry
(:mod:`~tabletop.agents`), the game descriptor and registry (:mod:`~tabletop.games`),
command-line value types (:mod:`~tabletop.cli`) and bounded file reading
(:mod:`~tabletop.files`). Nothing here imports a game."""
