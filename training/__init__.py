"""Training, evaluation and replay tools for splut-env."""
