"""Versioned alias in the style of ``pettingzoo.classic``: ``from talat_env import talat_v0``."""

from talat_env.envs.aec import env, raw_env

__all__ = ["env", "raw_env"]
