"""Environments over the Splendor rules: the PettingZoo AEC environment
(:mod:`~splendor_env.envs.aec`), the Gymnasium single-agent view
(:mod:`~splendor_env.envs.gym`) and their render modes (:mod:`~splendor_env.envs.render`);
``python -m tabletop.bench --game splendor`` measures them."""
