"""Versioned alias in the style of ``pettingzoo.classic``: ``from splendor_env import splendor_v0``."""

from splendor_env.envs.aec import env, raw_env

__all__ = ["env", "raw_env"]
