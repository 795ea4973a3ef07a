"""What does not depend on the game: the agent interface and registry
(:mod:`~splut_env.common.agents`), command-line value types (:mod:`~splut_env.common.cli`)
and bounded file reading (:mod:`~splut_env.common.files`). Nothing here imports the rest of
the package."""
