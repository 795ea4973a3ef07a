"""Playing Splendor against agents or people: its view (:mod:`~splendor_env.play.view`) on
the game-agnostic play shells of :mod:`tabletop.play`: the terminal
(:mod:`~splendor_env.play.terminal`, which ``python -m splendor_env.play`` runs) and the
browser (:mod:`~splendor_env.play.web`, ``python -m splendor_env.play.web``)."""
