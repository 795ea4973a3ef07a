"""Play Splut! in the browser: ``python -m splut_env.web [--port 8000] [--agent ckpt.zip]``.

A local FastAPI server (bound to 127.0.0.1 unless ``--host`` says otherwise) serving one
page: the board in SVG, any seat a human or an agent, the agents' steps animated one at a
time, the step log with a download link. Every request is checked against the rules API:
unknown games are 404, a request made for an older position (its ``ply`` is not the
game's) or out of turn is 409, an illegal or malformed step is 422; none changes anything.
Each game has its own id and lock, so several games run at once. Request bodies are
limited to 64 KiB (413 beyond) and error messages quote at most a short piece of the
input. Offered checkpoints are loaded and checked once, when the app is made, and every
game shares their networks.

JSON API (all under ``/api``): ``GET options``; ``POST games`` ``{"players": [...], "seed"}``;
``GET games/{id}``; ``POST games/{id}/step`` ``{"step": "Dn", "ply": 0}``;
``POST games/{id}/agent-step`` ``{"ply": 1}``; ``POST games/{id}/undo`` ``{"ply": 3}``;
``GET games/{id}/log`` (the step log as a file).
"""

from __future__ import annotations

import argparse
import importlib.util
import threading
import uuid
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

try:
    from fastapi import FastAPI, HTTPException
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
    from fastapi.staticfiles import StaticFiles
    from pydantic import BaseModel, Field
except ImportError as err:  # pragma: no cover - depends on the install
    raise ImportError(
        f"the browser front end needs FastAPI and uvicorn ({err}): pip install 'splut-env[web]'"
    ) from err

from splut_env.play.session import HUMAN, Game
from splut_env.players import agent_names
from splut_env.players.tactics import SHIELD_SUFFIX
from splut_env.rules.board import KINDS, SEATS, SEATS_IN_PLAY, SQUARE_NAMES
from splut_env.rules.diagram import SEAT_COLOURS
from splut_env.rules.notation import format_spn, quote
from tabletop.agents import Agent
from tabletop.cli import int_range

if TYPE_CHECKING:
    from splut_env.players.checkpoint import Checkpoint

STATIC = Path(__file__).parent / "static"


MAX_BODY_BYTES = 64 << 10


class NewGame(BaseModel):
    players: list[Annotated[str, Field(max_length=500)]] = Field(min_length=2, max_length=4)
    seed: int | None = Field(default=None, ge=0, le=2**63)
    max_turns: int = Field(default=200, ge=1, le=1000)


class StepRequest(BaseModel):
    step: str = Field(max_length=16)
    ply: int = Field(ge=0)


class PlyRequest(BaseModel):
    ply: int = Field(ge=0)


def game_view(gid: str, game: Game) -> dict[str, Any]:
    """Everything the page draws, as JSON."""
    state = game.state
    alive = set(state.alive_seats())
    players = [
        {
            "label": game.labels[k],
            "seat": SEATS[s],
            "colour": SEAT_COLOURS[s],
            "human": game.agents[k] is None,
            "alive": s in alive,
        }
        for k, s in enumerate(game.seats)
    ]
    pieces = [
        {
            "id": KINDS[kind] + SEATS[s],
            "kind": KINDS[kind],
            "seat": SEATS[s],
            "square": SQUARE_NAMES[state.pos[s * 3 + kind]],
        }
        for s in game.seats
        for kind in range(3)
        if state.pos[s * 3 + kind] >= 0
    ]
    rocks = [
        {
            "id": f"R{i}",
            "square": SQUARE_NAMES[sq],
            "locked": bool((state.locked >> sq) & 1),
            "levitating": sq == state.lev,
        }
        for i, sq in enumerate(state.rocks)
    ]
    over = game.is_over()
    return {
        "id": gid,
        "ply": len(game.steps),
        "players": players,
        "pieces": pieces,
        "rocks": rocks,
        "to_move": game.to_move(),
        "human_to_move": game.human_to_move(),
        "turn": state.turn,
        "steps_left": 0 if over else state.steps_left,
        "legal": [asdict(s) for s in game.legal_steps()] if game.human_to_move() else [],
        "steps": [
            {"text": t, "player": p, "turn": game.states[i].turn}
            for i, (t, p) in enumerate(zip(game.steps, game.movers, strict=True))
        ],
        "over": over,
        "winner": game.winner(),
        "result": game.result_text(),
        "spn": format_spn(state),
    }


class GameStore:
    """The games being played, by id; the least recently used is dropped past ``limit``."""

    def __init__(self, limit: int = 200) -> None:
        self.limit = limit
        self._games: OrderedDict[str, tuple[Game, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, game: Game) -> str:
        gid = uuid.uuid4().hex
        with self._lock:
            self._games[gid] = (game, threading.Lock())
            while len(self._games) > self.limit:
                self._games.popitem(last=False)
        return gid

    @contextmanager
    def locked(self, gid: str, ply: int | None = None) -> Iterator[Game]:
        """Game ``gid`` held under its lock; 404 if unknown, 409 if ``ply`` is not its ply."""
        with self._lock:
            if gid not in self._games:
                raise HTTPException(404, f"no game {gid!r} (finished games are kept a while)")
            self._games.move_to_end(gid)
            game, lock = self._games[gid]
        with lock:
            if ply is not None and ply != len(game.steps):
                raise HTTPException(
                    409, f"stale request: made at ply {ply}, the game is at ply {len(game.steps)}"
                )
            yield game


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


def load_offered(paths: list[str]) -> dict[str, Checkpoint]:
    """Load and check each checkpoint once; raises :class:`CheckpointError` naming a bad one."""
    from splut_env.players.checkpoint import load_checkpoint

    return {path: load_checkpoint(path) for path in paths}


def default_checkpoints() -> dict[str, Checkpoint]:
    """The loadable ``checkpoints/*.zip`` of the working folder (none without torch); a bad
    one is left out with a warning."""
    if not importlib.util.find_spec("torch"):
        return {}
    from splut_env.players.checkpoint import CheckpointError, load_checkpoint

    loaded = {}
    for path in sorted(str(p) for p in Path("checkpoints").glob("*.zip")):
        try:
            loaded[path] = load_checkpoint(path)
        except CheckpointError as err:
            warnings.warn(f"not offered: {err}", stacklevel=2)
    return loaded


def create_app(checkpoints: list[str] | None = None, max_games: int = 200) -> FastAPI:
    """The web app. ``checkpoints``: checkpoint files offered as players, each also with
    its tactical shield (``<file>:shield``), loaded once here (a bad one raises
    :class:`~splut_env.players.checkpoint.CheckpointError`) and shared by every game (default: the
    loadable ``checkpoints/*.zip`` of the working folder, when torch is installed)."""
    loaded = default_checkpoints() if checkpoints is None else load_offered(checkpoints)
    offered = {
        path + suffix: (ckpt, bool(suffix))
        for path, ckpt in loaded.items()
        for suffix in ("", SHIELD_SUFFIX)
    }
    choices = [HUMAN, *agent_names(), *offered]
    store = GameStore(max_games)
    app = FastAPI(title="Splut!", description=__doc__)
    app.add_middleware(BodyLimit)

    @app.exception_handler(RequestValidationError)
    def invalid_request(_request: Any, exc: RequestValidationError) -> JSONResponse:
        detail = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "input": quote(e.get("input"))}
            for e in exc.errors()[:10]
        ]
        return JSONResponse({"detail": detail}, status_code=422)

    def player(name: str) -> str | Agent:
        """A seat's player: offered checkpoints get a new agent over the shared network."""
        if name not in offered:
            return name
        ckpt, shield = offered[name]
        agent = ckpt.agent(shield=shield)
        agent.name = name
        return agent

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        return {"players": choices, "seats": {str(n): _seats(n) for n in (2, 3, 4)}}

    @app.post("/api/games", status_code=201)
    def new_game(req: NewGame) -> dict[str, Any]:
        bad = [p for p in req.players if p not in choices]
        if bad:
            raise HTTPException(422, f"unknown player(s) {quote(bad)}: expected some of {choices}")
        try:
            players = [player(p) for p in req.players]
            game = Game(players, seed=req.seed, max_turns=req.max_turns)
        except (ValueError, OSError) as err:
            raise HTTPException(422, str(err)) from err
        return game_view(store.add(game), game)

    @app.get("/api/games/{gid}")
    def get_game(gid: str) -> dict[str, Any]:
        with store.locked(gid) as game:
            return game_view(gid, game)

    @app.post("/api/games/{gid}/step")
    def human_step(gid: str, req: StepRequest) -> dict[str, Any]:
        with store.locked(gid, req.ply) as game:
            if not game.human_to_move():
                raise HTTPException(409, "not a human's turn: " + game.result_text())
            try:
                game.play(req.step)
            except ValueError as err:
                raise HTTPException(422, str(err)) from err
            return game_view(gid, game)

    @app.post("/api/games/{gid}/agent-step")
    def agent_step(gid: str, req: PlyRequest) -> dict[str, Any]:
        with store.locked(gid, req.ply) as game:
            if game.is_over() or game.human_to_move():
                raise HTTPException(409, "not an agent's turn: " + game.result_text())
            game.agent_step()
            return game_view(gid, game)

    @app.post("/api/games/{gid}/undo")
    def undo(gid: str, req: PlyRequest) -> dict[str, Any]:
        with store.locked(gid, req.ply) as game:
            if not game.undo():
                raise HTTPException(409, "nothing to undo")
            return game_view(gid, game)

    @app.get("/api/games/{gid}/log")
    def log(gid: str) -> PlainTextResponse:
        with store.locked(gid) as game:
            text, steps = game.log_text(), len(game.steps)
        name = f"splut_{gid[:8]}_{steps}steps.txt"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        return PlainTextResponse(text, headers=headers)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _seats(n: int) -> list[dict[str, str]]:
    return [{"seat": SEATS[s], "colour": SEAT_COLOURS[s]} for s in SEATS_IN_PLAY[n]]


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(
        prog="python -m splut_env.web", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default local)")
    parser.add_argument("--port", type=int_range(1, 65535), default=8000)
    parser.add_argument(
        "--agent",
        action="append",
        metavar="CKPT",
        help="a checkpoint offered as a player (repeatable; default: checkpoints/*.zip)",
    )
    args = parser.parse_args(argv)
    try:
        app = create_app(args.agent)
    except ValueError as err:
        parser.error(f"--agent: {err}")
    print(f"Splut! at http://{args.host}:{args.port}/  (Ctrl-C stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
