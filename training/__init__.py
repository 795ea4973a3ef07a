"""Training, evaluation and replay tools: self-play PPO for every registered game
(:mod:`training.train`), expert iteration and Ray RLlib for Splut!, and the reports.

Importing the package asks OpenMP's worker threads to sleep rather than spin while they wait
(``OMP_WAIT_POLICY=PASSIVE``, unless already set), before torch starts its thread pool: see
:mod:`training.threads`.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
