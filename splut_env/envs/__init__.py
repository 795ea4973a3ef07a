"""Environments over the rules: the PettingZoo AEC environment (:mod:`~splut_env.envs.aec`),
the Gymnasium single-agent view (:mod:`~splut_env.envs.gym`), their render modes
(:mod:`~splut_env.envs.render`), whole games between agents (:mod:`~splut_env.envs.match`)
and the game-log format (:mod:`~splut_env.envs.gamelog`)."""
