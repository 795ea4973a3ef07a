"""Playing any game against agents or people, the same way for every game: the session
(:mod:`~tabletop.play.session`: seats, history and undo, checked human moves, agents asked,
hints, logs), the terminal (:mod:`~tabletop.play.terminal`, which ``python -m tabletop.play
--game NAME`` runs) and the browser (:mod:`~tabletop.play.web`). Each takes a game's
:class:`~tabletop.play.view.View` (how the game looks), found by name in
:mod:`~tabletop.play.views`; nothing here imports a game."""
