"""Playing and watching Splut!: its view on the game-agnostic play shells of
:mod:`tabletop.play` (:mod:`~splut_env.play.view`: the board, pieces, steps in words, the
offered checkpoints), the game session (:mod:`~splut_env.play.session`), the terminal
(:mod:`~splut_env.play.terminal`, which ``python -m splut_env.play`` runs), the browser front
end (:mod:`~splut_env.play.web`) and the bot demo (:mod:`~splut_env.play.demo`)."""
