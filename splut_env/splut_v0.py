"""Versioned alias in the style of ``pettingzoo.classic``: ``from splut_env import splut_v0``."""

from splut_env.envs.aec import env, raw_env

__all__ = ["env", "raw_env"]
