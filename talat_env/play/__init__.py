"""Playing Talat against agents or people: its view (:mod:`~talat_env.play.view`) on the
game-agnostic play shells of :mod:`tabletop.play`: the terminal
(:mod:`~talat_env.play.terminal`, which ``python -m talat_env.play`` runs) and the browser
(:mod:`~talat_env.play.web`, ``python -m talat_env.play.web``)."""
