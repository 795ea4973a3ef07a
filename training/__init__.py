"""Training, evaluation and replay tools: self-play PPO for every registered game
(:mod:`training.train`), expert iteration and Ray RLlib for Splut!, and the reports.

Importing the package asks OpenMP's worker threads to spin only briefly, then sleep, while
they wait (``OMP_WAIT_POLICY`` and ``GOMP_SPINCOUNT``, unless already set), before torch
starts its thread pool: see :mod:`training.threads`.
"""

import os

from training.threads import WAIT_POLICY

for name, value in WAIT_POLICY.items():
    os.environ.setdefault(name, value)
