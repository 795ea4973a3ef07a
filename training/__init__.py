"""Training, evaluation and replay tools: self-play PPO for every registered game
(:mod:`training.train`), expert iteration and Ray RLlib for Splut!, and the reports."""
