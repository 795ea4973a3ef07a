"""Environments over the Talat rules: the PettingZoo AEC environment
(:mod:`~talat_env.envs.aec`), the Gymnasium single-agent view (:mod:`~talat_env.envs.gym`),
their render modes (:mod:`~talat_env.envs.render`) and the stepping speed benchmark
(:mod:`~talat_env.envs.speed`)."""
