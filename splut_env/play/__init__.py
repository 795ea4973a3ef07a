"""Playing and watching games: the game session behind the front ends
(:mod:`~splut_env.play.session`), the terminal (:mod:`~splut_env.play.terminal`, which
``python -m splut_env.play`` runs), the browser front end (:mod:`~splut_env.play.web`) and the
bot demo (:mod:`~splut_env.play.demo`)."""
