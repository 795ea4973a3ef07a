"""Play any game with a view in the browser: ``python -m tabletop.play.web --game talat``.

A local FastAPI server (bound to 127.0.0.1 unless ``--host`` says otherwise) serving one
page: the game's board drawn by its view's script, any seat a human or an agent (only the
agents that can sit at the chosen table are offered), the agents' moves shown one at a
time, hints, undo, and the move log with a download link. The page draws the start
position at once, before the server has made the first game. Every request is checked
against the rules: unknown games are 404, a request made for an older position (its ``ply``
is not the game's) or out of turn is 409, an illegal or malformed move, an unknown player
or one that cannot sit at the table is 422; none changes anything. Each game has its own id
and lock, so several games run at once. Request bodies are limited to 64 KiB (413 beyond)
and error messages quote at most a short piece of the input. Offered player files are
loaded and checked once, when the app is made, and every game shares them.

JSON API (all under ``/api``): ``GET options``; ``POST games`` ``{"players": [...], "seed"}``;
``GET games/{id}``; ``POST games/{id}/move`` (or ``/step``) ``{"move": "...", "ply": 0}``
(``"step"`` is read as ``"move"``); ``POST games/{id}/agent-step`` ``{"ply": 1}``;
``POST games/{id}/undo`` ``{"ply": 3}``; ``POST games/{id}/hint`` ``{"ply": 3}``;
``GET games/{id}/log`` (the game log as a file).
"""

# No ``from __future__ import annotations`` here: the request models are made per game in
# create_app, and FastAPI reads the endpoints' annotations as objects.

import argparse
import html
import json
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from string import Template
from typing import Annotated, Any

try:
    from fastapi import FastAPI, HTTPException
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
    from fastapi.staticfiles import StaticFiles
    from pydantic import AliasChoices, BaseModel, Field, create_model
except ImportError as err:  # pragma: no cover - depends on the install
    raise ImportError(
        f"the browser front end needs FastAPI and uvicorn ({err}): pip install 'splut-env[web]'"
    ) from err

from tabletop.agents import Agent
from tabletop.cli import int_range
from tabletop.games import DEFAULT_GAME, Game
from tabletop.play.session import HUMAN, Session
from tabletop.play.view import View, seat_refusal
from tabletop.play.views import get_view, view_names, view_of_command

STATIC = Path(__file__).parent / "static"
MAX_BODY_BYTES = 64 << 10
#: The longest move text a request may carry.
MAX_MOVE_CHARS = 40


def quote(value: object, limit: int = 120) -> str:
    """``repr(value)``, cut to about ``limit`` characters, for error messages."""
    shown = repr(value)
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(shown):,} characters)"


class MoveRequest(BaseModel):
    move: str = Field(max_length=MAX_MOVE_CHARS, validation_alias=AliasChoices("move", "step"))
    ply: int = Field(ge=0)


class PlyRequest(BaseModel):
    ply: int = Field(ge=0)


def new_game_model(game: Game) -> type[BaseModel]:
    """The body of ``POST /api/games`` for ``game``: its table sizes and turn limit."""
    return create_model(
        "NewGame",
        players=(
            list[Annotated[str, Field(max_length=500)]],
            Field(min_length=min(game.player_counts), max_length=max(game.player_counts)),
        ),
        seed=(int | None, Field(default=None, ge=0, le=2**63)),
        max_turns=(int, Field(default=game.max_turns, ge=1, le=game.max_turns_limit)),
    )


def session_json(gid: str | None, session: Session) -> dict[str, Any]:
    """Everything the page draws of a game, as JSON (``gid`` ``None``: a preview of a
    position, with no legal moves)."""
    view, game = session.view, session.game
    state = session.state
    css = view.colour_css
    players = [
        {
            "label": session.labels[k],
            "seat": seat,
            "colour": colour,
            "css": css.get(colour, colour),
            "human": session.agents[k] is None,
            **view.player_json(session, k),
        }
        for k, (seat, colour) in enumerate(zip(session.seat_names, session.colours, strict=True))
    ]
    over = session.is_over()
    human = gid is not None and session.human_to_move()
    data = {
        "id": gid,
        "ply": len(session.moves),
        "players": players,
        **view.position_json(session),
        "to_move": session.to_move(),
        "human_to_move": human,
        "turn_text": "" if over else view.turn_text(session),
        "legal": [view.move_json(state, m) for m in session.legal_moves()] if human else [],
        "moves": [
            {"text": text, "player": player, "turn": session.counter(i)}
            for i, (text, player) in enumerate(zip(session.moves, session.movers, strict=True))
        ],
        "over": over,
        "winner": session.winner(),
        "result": session.result_text(),
        "position": game.to_text(state),
    }
    for alias, key in view.json_aliases.items():
        data[alias] = data[key]
    return data


class GameStore:
    """The games being played, by id; the least recently used is dropped past ``limit``."""

    def __init__(self, limit: int = 200) -> None:
        self.limit = limit
        self._games: OrderedDict[str, tuple[Session, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, session: Session) -> str:
        gid = uuid.uuid4().hex
        with self._lock:
            self._games[gid] = (session, threading.Lock())
            while len(self._games) > self.limit:
                self._games.popitem(last=False)
        return gid

    @contextmanager
    def locked(self, gid: str, ply: int | None = None) -> Iterator[Session]:
        """Game ``gid`` held under its lock; 404 if unknown, 409 if ``ply`` is not its ply."""
        with self._lock:
            if gid not in self._games:
                raise HTTPException(404, f"no game {gid!r:.80} (finished games are kept a while)")
            self._games.move_to_end(gid)
            session, lock = self._games[gid]
        with lock:
            if ply is not None and ply != len(session.moves):
                raise HTTPException(
                    409,
                    f"stale request: made at ply {ply}, the game is at ply {len(session.moves)}",
                )
            yield session


class BodyLimit:
    """ASGI middleware: a request whose body is over ``limit`` bytes gets a 413, whether it
    says its length (``Content-Length``) or streams it."""

    def __init__(self, app: Any, limit: int = MAX_BODY_BYTES) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if not length.isdigit() or int(length) > self.limit:
            await PlainTextResponse(self._message(), status_code=413)(scope, receive, send)
            return
        seen = 0

        async def limited() -> dict:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise HTTPException(413, self._message())
            return message

        await self.app(scope, limited, send)

    def _message(self) -> str:
        return f"request body over {self.limit:,} bytes"


class Table:
    """Who may sit at a table of each size: the agents of ``view``'s game and the offered
    player files, by the name a seat chooses."""

    def __init__(self, view: View, offered: dict[str, Any]) -> None:
        self.view, self.offered = view, offered
        self.choices = [HUMAN, *view.game.players.names(), *offered]

    def sizes(self, name: str) -> tuple[int, ...] | None:
        """The table sizes ``name`` plays at, ``None`` for any."""
        if name in self.offered:
            made = self.offered[name].num_players
            return None if made is None else (made,)
        return None if name == HUMAN else self.view.table_sizes(name)

    def fits(self, name: str, n: int) -> bool:
        sizes = self.sizes(name)
        return sizes is None or n in sizes

    def at(self, n: int) -> list[str]:
        """The choices for a seat at a table of ``n``."""
        return [c for c in self.choices if self.fits(c, n)]

    def why_not(self, name: str, n: int) -> str:
        """Why ``name`` cannot sit at a table of ``n``, and who can."""
        refusal = seat_refusal(name, self.sizes(name) or (), n, trained=name in self.offered)
        return f"{refusal}: choose from {self.at(n)}"


def page_html(view: View, options: dict[str, Any]) -> str:
    """The page of ``view``'s game, with its options inlined so that the start position is
    drawn before any request."""
    game = view.game
    counts = "\n".join(
        f'          <option value="{n}"{" selected" if n == options["default_count"] else ""}>'
        f"{n}</option>"
        for n in game.player_counts
    )
    inline = json.dumps(options).replace("</", "<\\/")
    return Template((STATIC / "index.html").read_text()).substitute(
        title=html.escape(game.title),
        name=html.escape(game.name),
        counts=counts.lstrip(),
        help=view.help_html,
        options=inline,
    )


def create_app(
    view: View | str,
    checkpoints: list[str] | None = None,
    max_games: int = 200,
    hint: str | None = None,
) -> FastAPI:
    """The web app of ``view``'s game. ``checkpoints``: player files offered as players,
    loaded once here by the view (a bad one raises its ``ValueError``) and shared by every
    game (``None``: the view's defaults). ``hint``: the agent asked for hints (default: the
    first agent at the table, else the view's hint agent)."""
    view = get_view(view)
    game = view.game
    table = Table(view, view.offer(checkpoints))
    store = GameStore(max_games)
    new_game_request = new_game_model(game)
    counts = game.player_counts
    options = {
        "game": game.name,
        "title": game.title,
        "player_counts": list(counts),
        "default_count": counts[0],
        "players": table.choices,
        "table": {str(n): table.at(n) for n in counts},
        "seats": {
            str(n): [
                {"seat": seat, "colour": colour, "css": view.colour_css.get(colour, colour)}
                for seat, colour in zip(game.seat_names(n), view.seat_colours(n), strict=True)
            ]
            for n in counts
        },
        "default_opponent": view.default_opponent,
        "move_word": view.move_word,
        "turn_word": view.turn_word,
        "start": {str(n): session_json(None, Session(view, [HUMAN] * n)) for n in counts},
    }
    page = page_html(view, options)
    app = FastAPI(title=game.title, description=__doc__)
    app.add_middleware(BodyLimit)

    @app.exception_handler(RequestValidationError)
    def invalid_request(_request: Any, exc: RequestValidationError) -> JSONResponse:
        detail = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "input": quote(e.get("input"))}
            for e in exc.errors()[:10]
        ]
        return JSONResponse({"detail": detail}, status_code=422)

    def player(name: str) -> str | Agent:
        """A seat's player: offered files get a new agent over what was loaded once."""
        return table.offered[name].make() if name in table.offered else name

    @app.get("/", include_in_schema=False)
    def index() -> HTMLResponse:
        return HTMLResponse(page)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/api/options")
    def get_options() -> dict[str, Any]:
        return options

    @app.post("/api/games", status_code=201)
    def new_game(req: new_game_request) -> dict[str, Any]:
        n = len(req.players)
        bad = [p for p in req.players if p not in table.choices]
        if bad:
            raise HTTPException(
                422, f"unknown player(s) {quote(bad)}: expected some of {table.choices}"
            )
        try:
            game.check_players(n)
        except ValueError as err:
            raise HTTPException(422, str(err)) from err
        unfit = [p for p in req.players if not table.fits(p, n)]
        if unfit:
            raise HTTPException(422, table.why_not(unfit[0], n))
        try:
            players = [player(p) for p in req.players]
            session = Session(view, players, seed=req.seed, max_turns=req.max_turns)
        except (ValueError, OSError) as err:
            raise HTTPException(422, str(err)) from err
        return session_json(store.add(session), session)

    @app.get("/api/games/{gid}")
    def get_session(gid: str) -> dict[str, Any]:
        with store.locked(gid) as session:
            return session_json(gid, session)

    @app.post("/api/games/{gid}/move")
    @app.post("/api/games/{gid}/step")
    def human_move(gid: str, req: MoveRequest) -> dict[str, Any]:
        with store.locked(gid, req.ply) as session:
            if not session.human_to_move():
                raise HTTPException(409, "not a human's turn: " + session.result_text())
            try:
                session.play(req.move)
            except ValueError as err:
                raise HTTPException(422, str(err)) from err
            return session_json(gid, session)

    @app.post("/api/games/{gid}/agent-step")
    def agent_move(gid: str, req: PlyRequest) -> dict[str, Any]:
        with store.locked(gid, req.ply) as session:
            if session.is_over() or session.human_to_move():
                raise HTTPException(409, "not an agent's turn: " + session.result_text())
            session.agent_move()
            return session_json(gid, session)

    @app.post("/api/games/{gid}/undo")
    def undo(gid: str, req: PlyRequest) -> dict[str, Any]:
        with store.locked(gid, req.ply) as session:
            if not session.undo():
                raise HTTPException(409, "nothing to undo")
            return session_json(gid, session)

    @app.post("/api/games/{gid}/hint")
    def get_hint(gid: str, req: PlyRequest) -> dict[str, Any]:
        with store.locked(gid, req.ply) as session:
            if not session.human_to_move():
                raise HTTPException(409, "no hint: not a human's turn: " + session.result_text())
            try:
                move = session.hint(hint)
            except ValueError as err:
                raise HTTPException(422, f"no hint: {err}") from err
            state = session.state
            return {
                "ply": len(session.moves),
                "move": view.move_json(state, move),
                "text": move,
                "words": view.describe(state, move),
            }

    @app.get("/api/games/{gid}/log")
    def log(gid: str) -> PlainTextResponse:
        with store.locked(gid) as session:
            if view.log_hidden_while_running and not session.is_over():
                raise HTTPException(409, view.log_hidden_while_running)
            text, count = session.log_text(), len(session.moves)
        name = f"{game.name}_{gid[:8]}_{count}{view.move_word}s.txt"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        return PlainTextResponse(text, headers=headers)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    if view.static_dir is not None:
        app.mount("/game", StaticFiles(directory=view.static_dir), name="game")
    return app


def main(
    argv: list[str] | None = None,
    view: View | str | None = None,
    prog: str = "python -m tabletop.play.web",
) -> None:
    """The web server's command line: of ``view``'s game, or, without ``view``, of the game
    ``--game`` names."""
    import uvicorn

    chosen, problem = (get_view(view), "") if view is not None else view_of_command(argv)
    title = chosen.game.title if chosen else "a game"
    parser = argparse.ArgumentParser(
        prog=prog, description=f"Play {title} in the browser, against agents or people."
    )
    if view is None:
        parser.add_argument(
            "--game", default=DEFAULT_GAME, help=f"the game: {', '.join(view_names())}"
        )
    if chosen is None:
        parser.error(f"--game: {problem}")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default local)")
    parser.add_argument("--port", type=int_range(1, 65535), default=8000)
    parser.add_argument(
        "--agent",
        action="append",
        metavar="FILE",
        help="a player file offered as a player (repeatable; default: the game's own)",
    )
    parser.add_argument("--hint", help="agent asked for hints (default: first agent at the table)")
    args = parser.parse_args(argv)
    if args.hint:
        try:
            chosen.game.make_agent(args.hint)
        except (ValueError, OSError, ImportError) as err:
            parser.error(f"--hint {args.hint}: {err}")
    try:
        app = create_app(chosen, args.agent, hint=args.hint)
    except ValueError as err:
        parser.error(f"--agent: {err}")
    print(f"{chosen.game.title} at http://{args.host}:{args.port}/  (Ctrl-C stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
