"""The games' views by name: :data:`VIEWS` maps a game's name to the ``"module:attribute"``
entry point of its :class:`~tabletop.play.view.View`, imported the first time
:func:`get_view` is asked for it (the core imports no game)."""

from __future__ import annotations

import argparse

from tabletop.agents import load_entry_point
from tabletop.games import DEFAULT_GAME
from tabletop.play.view import View

#: The views of the games of this distribution: game name → entry point.
VIEWS: dict[str, str] = {
    "splendor": "splendor_env.play.view:VIEW",
    "splut": "splut_env.play.view:VIEW",
    "talat": "talat_env.play.view:VIEW",
}
_LOADED: dict[str, View] = {}


def register_view(name: str, entry_point: str | View) -> None:
    """Make :func:`get_view` return ``entry_point``'s view for game ``name``."""
    _LOADED.pop(name, None)
    if isinstance(entry_point, View):
        _LOADED[name] = entry_point
    else:
        VIEWS[name] = entry_point


def view_names() -> list[str]:
    """The games that have a view."""
    return sorted({*VIEWS, *_LOADED})


def get_view(name: str | View | None = None) -> View:
    """The view of game ``name`` (``None``: the default game); ``ValueError`` naming it and
    the games with a view otherwise."""
    if isinstance(name, View):
        return name
    name = DEFAULT_GAME if name is None else name
    if name not in _LOADED:
        if not isinstance(name, str) or name not in VIEWS:
            raise ValueError(f"no view of game {name!r:.60}: expected one of {view_names()}")
        view = load_entry_point(VIEWS[name])
        if not isinstance(view, View) or view.name != name:
            raise TypeError(f"{VIEWS[name]!r} is not the view of game {name!r}")
        _LOADED[name] = view
    return _LOADED[name]


def view_of_command(argv: list[str] | None) -> tuple[View | None, str]:
    """The view of the game a command line's ``--game`` names (default: the default
    game), or ``None`` and why not."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--game", default=DEFAULT_GAME)
    known, _ = pre.parse_known_args(argv)
    try:
        return get_view(known.game), ""
    except ValueError as err:
        return None, str(err)
