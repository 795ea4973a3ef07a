"""Environments over the Talat rules: the PettingZoo AEC environment
(:mod:`~talat_env.envs.aec`), the Gymnasium single-agent view (:mod:`~talat_env.envs.gym`) and
their render modes (:mod:`~talat_env.envs.render`); ``python -m tabletop.bench --game talat``
measures them."""
