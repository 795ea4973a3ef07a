"""Talat's play shells: the session with Talat's view, the terminal (through its functions
and as a user runs it, with piped input) and the web server (through FastAPI's test
client)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from tabletop.gamelog import parse_games, positions, read_games
from tabletop.games import get_game
from tabletop.play.session import Session
from tabletop.play.terminal import TerminalSession
from tabletop.play.web import session_json
from talat_env import rules
from talat_env.play.view import VIEW
from talat_env.play.web import create_app

START_2P = rules.initial_text(2)
START_3P = rules.initial_text(3)


def run_play(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "talat_env.play", "--no-color", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def transcript(entries: list[str], session: Session | None = None) -> str:
    session = session or Session(VIEW, ["human", "random"], seed=0)
    out = io.StringIO()
    TerminalSession(session, io.StringIO("\n".join(entries) + "\n"), out, color=False).run()
    return out.getvalue()


def set_up(num_players: int, seed: int = 0) -> str:
    """The position text after a random set-up."""
    session = Session(VIEW, ["random"] * num_players, seed=seed)
    while session.state.phase == 0:
        session.agent_move()
    return rules.to_text(session.state)


# --- the session ----------------------------------------------------------------------------


def test_moves_are_read_in_any_case_and_logged_canonical():
    session = Session(VIEW, ["human", "random"], seed=1)
    assert session.play(" GW:l6@C1 ") == "gw:L6@c1"
    assert session.moves == ["gw:L6@c1"] and not session.human_to_move()
    with pytest.raises(rules.IllegalMoveError, match="it is b \\(black, random\\)'s turn"):
        session.play("gw:L4@d1")
    session.agent_move()
    with pytest.raises(rules.IllegalMoveError, match=r"illegal move 'wb:L6@c1'.*Zihin"):
        session.play("wb:L6@c1")
    with pytest.raises(rules.InvalidNotationError, match="invalid move 'wb:c1-z9'"):
        session.play("wb:c1-z9")
    assert session.moves[0] == "gw:L6@c1" and len(session.moves) == 2


def test_a_whole_game_between_agents_ends_with_a_result_and_notes():
    session = Session(VIEW, ["greedy", "random", "random"], seed=3)
    while not session.is_over():
        session.agent_move()
    state = session.state
    assert session.to_move() is None and session.legal_moves() == []
    result = session.result_text()
    scores = ", ".join(f"{s} {v}" for s, v in zip("wbg", state.scores(), strict=True))
    assert result.endswith(f"after {len(session.moves)} moves (scores {scores})")
    assert (" wins " in result) == (len(state.winners()) == 1)
    summary = session.summary()
    assert "set-up over after move 27" in summary and summary.count("frozen by move") >= 2
    assert positions(get_game("talat"), START_3P, session.moves)[-1] == state


def test_undo_hint_and_log_round_trip(tmp_path):
    session = Session(VIEW, ["human", "greedy"], seed=0)
    hint = session.hint()
    assert hint in session.legal_moves()
    assert VIEW.describe(session.state, hint).startswith("place grey (Zihin) ")
    session.play("bg:S3@a5")
    reply = session.agent_move()
    assert session.undo() == [reply, "bg:S3@a5"] and session.undo() == []
    assert session.moves == [] and rules.to_text(session.state) == START_2P
    session.play("bg:S3@a5")
    session.agent_move()
    path = session.save(tmp_path / "sub" / "talat.txt")
    assert read_games(path) == [(START_2P, session.moves)]
    text = path.read_text()
    assert text.startswith(get_game("talat").log_header) and "# players: w=human b=greedy;" in text
    again = session.reload(path)
    assert again.moves == session.moves and again.state == session.state
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{START_2P} | bg:S3@a5 bg:S3@b5\n")
    with pytest.raises(ValueError, match=r"bad\.txt: move 2 of the loaded game: illegal move"):
        session.reload(bad)


def test_tables_are_checked():
    with pytest.raises(ValueError, match="a game of Talat has 2 or 3 players, got 4"):
        Session(VIEW, ["human"] * 4)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        Session(VIEW, ["human", "nobody"])
    with pytest.raises(ValueError, match="3 players given for a 2-player position"):
        Session(VIEW, ["human", "random", "random"], start=START_2P)


# --- the view -------------------------------------------------------------------------------


def test_moves_in_words_and_as_json():
    state = rules.from_text(set_up(3, seed=5))
    for move in rules.legal_moves(state):
        words = VIEW.describe(state, move)
        data = VIEW.move_json(state, move)
        board, _, rest = move.partition(":")
        assert data["text"] == move and data["board"] == board
        assert data["src"] == rest[:2] and data["dst"] == rest[3:]
        assert words.split()[0] == "white" and f"{board} {rest[:2]} -> {rest[3:]}" in words
        assert ("captures" in words) == (data["kind"] == "capture") == ("x" in rest)
    start = rules.initial_state(3)
    assert VIEW.describe(start, "wb:L6@c1") == "place white L6 (large hexagon) on wb c1"
    assert VIEW.move_json(start, "wb:L6@c1") == {
        "text": "wb:L6@c1", "kind": "place", "board": "wb", "type": "L6", "square": "c1",
    }  # fmt: skip
    assert VIEW.normalise(" WB:c1X D2") == "WB:c1X D2"  # not a move: left for the rules
    assert VIEW.normalise("PASS") == "pass" and VIEW.normalise("Bg:A5xB4") == "bg:a5xb4"


def test_the_position_as_json_and_in_the_terminal():
    text = (
        "3p wb:...wS3bS3/.bS4.../wS4.wL6../.bM4.bL4./..... bg*:..bL3../...bM3./gL3bS6.bM6./"
        "gM3..gM4./..... gw:...../wM3.gS6wL3wL4/gM6wM6.../gL6gL4.wS6gS3/..... play w "
        "w=bL6 b=gS4,wM4 g=-"
    )
    session = Session(VIEW, ["human", "random", "random"], start=text)
    data = VIEW.position_json(session)
    assert [b["frozen"] for b in data["boards"]] == [False, True, False]
    assert data["boards"][0] == {"name": "wb", "frozen": False, "up": "w", "down": "b"}
    assert {"id": "wL6", "colour": "w", "type": "L6", "board": "wb", "square": "c3"} in data[
        "towers"
    ]
    assert data["phase"] == "play" and data["placing"] is None
    assert VIEW.player_json(session, 1) == {"score": 13, "pile": ["gS4", "wM4"]}
    plain = VIEW.diagram(session.state, color=False)
    assert "bg (frozen)" in plain and plain == str(session.state)
    coloured = VIEW.diagram(session.state, color=True)
    assert "\x1b[" in coloured and coloured.endswith(text.replace("  ", " "))
    zihin = VIEW.position_json(Session(VIEW, ["human", "random"]))
    assert zihin["placing"] == "g" and zihin["zihin"] and zihin["towers"] == []
    assert zihin["unplaced"]["g"] == ["S3", "S4", "S6", "M3", "M4", "M6", "L3", "L4", "L6"]


# --- the terminal ---------------------------------------------------------------------------


def test_terminal_typos_and_illegal_moves_get_a_message_and_change_nothing(tmp_path):
    save = tmp_path / "game.txt"
    text = transcript(
        [
            "zz",
            "wb:L6@c1",
            "99",
            "help",
            "hint",
            "GW:l6@C1",
            "undo",
            "1",
            "moves",
            f"save {save}",
            "quit",
        ]
    )
    assert "invalid move 'zz': expected <board>:<type>@<square>" in text
    assert "illegal move 'wb:L6@c1'" in text and "places a Zihin (grey) tower" in text
    assert "No move number 99: choose 1 to 90." in text
    assert "undo        take back your last move" in text
    assert "Hint: " in text and "place grey (Zihin) " in text
    assert "w (white, human) plays gw:L6@c1" in text
    assert "Took back: gw:L6@c1 " in text
    assert "w (white, human) plays bg:L3@a5" in text  # '1': the first in sorted order
    assert "grey towers to place: S3 S4 S6 M3 M4 M6 L3 L4 L6" in text
    assert "free start squares: bg a5 b5 c5 d5 e5; gw a1 b1 c1 d1 e1" in text
    assert "set-up, place a grey (Zihin) tower (0 of 26 placed)" in text
    assert "Game stopped." in text and "Traceback" not in text
    ((start, moves),) = read_games(save)
    assert start == START_2P and moves[0] == "bg:L3@a5" and len(moves) == 2


def test_terminal_plays_a_whole_three_player_game_as_a_command():
    out = run_play("--players", "human", "random", "random", "--seed", "2", stdin="1\n" * 400)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    text = out.stdout
    assert text.startswith("Talat w (white, human) vs b (black, random) vs g (grey, random)")
    assert "Result: " in text and "set-up over after move 27" in text
    assert "w (white, human): " in text and "move> " in text and "Traceback" not in out.stderr


def test_terminal_loads_a_saved_game(tmp_path):
    log = tmp_path / "saved.txt"
    log.write_text(f"# a saved game\n{START_2P} | bg:S3@a5 gw:L6@c1\n")
    after = rules.to_text(rules.play(rules.play(rules.from_text(START_2P), "bg:S3@a5"), "gw:L6@c1"))
    out = run_play("--players", "human", "greedy", "--load", str(log), stdin="quit\n")
    assert after in out.stdout and "(2 of 26 placed)" in out.stdout
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{START_2P} | bg:S3@a5 bg:S3@b5\n")
    text = transcript([f"load {bad}", f"load {log}", "quit"])
    assert "Could not load:" in text and "move 2 of the loaded game" in text
    assert f"Loaded 2 moves from {log}" in text and after in text


def test_terminal_command_lines_are_checked():
    out = run_play("--players", "human")
    assert out.returncode == 2 and "2 or 3 players, got 1" in out.stderr
    out = run_play("--players", "human", "random", "random", "random")
    assert out.returncode == 2 and "2 or 3 players, got 4" in out.stderr
    out = run_play("--players", "human", "nobody")
    assert out.returncode == 2 and "unknown agent 'nobody'" in out.stderr
    out = run_play("--players", "human", "best:3p")
    assert out.returncode == 2 and "player 'best:3p' is made for 3 players" in out.stderr
    out = run_play("--players", "human", "random", "--hint", "best:3p")
    assert out.returncode == 2 and "--hint best:3p: player 'best:3p' is made for 3" in out.stderr
    out = run_play("--max-turns", "5000")
    assert out.returncode == 2 and "from 1 to 1000" in out.stderr
    out = subprocess.run(
        [sys.executable, "-m", "tabletop.play", "--game", "talat", "--no-color"],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1 and out.stdout.startswith("Talat w (white, human) vs b (black,")
    out = subprocess.run(
        [sys.executable, "-m", "tabletop.play", "--game", "chess"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "no view of game 'chess'" in out.stderr


# --- the web server -------------------------------------------------------------------------


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(max_games=3))


def new_game(client: TestClient, *players: str, seed: int = 0) -> dict:
    res = client.post("/api/games", json={"players": list(players), "seed": seed})
    assert res.status_code == 201, res.text
    return res.json()


def test_page_options_and_start_positions(client):
    page = client.get("/")
    assert page.status_code == 200 and '<svg id="board"' in page.text
    assert "<title>Talat</title>" in page.text and START_3P in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/game/board.js").status_code == 200
    options = client.get("/api/options").json()
    assert options["player_counts"] == [2, 3] and options["move_word"] == "move"
    assert [s["seat"] for s in options["seats"]["3"]] == ["w", "b", "g"]
    assert [s["colour"] for s in options["seats"]["2"]] == ["white", "black"]
    assert "best:2p" in options["table"]["2"] and "best:3p" not in options["table"]["2"]
    assert "best:3p" in options["table"]["3"] and "best:2p" not in options["table"]["3"]
    start = options["start"]["2"]
    assert start["position"] == START_2P and start["towers"] == [] and start["legal"] == []
    assert start["placing"] == "g" and [p["score"] for p in start["players"]] == [0, 0]


def test_new_game_view(client):
    view = new_game(client, "human", "random")
    assert view["ply"] == 0 and view["human_to_move"] and view["to_move"] == 0
    assert view["position"] == START_2P and view["phase"] == "place"
    assert len(view["legal"]) == 90 and {m["kind"] for m in view["legal"]} == {"place"}
    assert view["legal"][0] == {
        "text": "bg:L3@a5", "kind": "place", "board": "bg", "type": "L3", "square": "a5",
    }  # fmt: skip
    assert view["turn_text"] == "set-up, place a grey (Zihin) tower (0 of 26 placed)"
    assert [p["css"] for p in view["players"]] == ["#f7f5ee", "#2b2b30"]


@pytest.mark.parametrize(
    ("players", "detail"),
    [
        (["human", "nobody"], "unknown player(s) ['nobody']"),
        (["human", "best:3p"], "player 'best:3p' is made for 3 players"),
        (["human", "random", "best:2p"], "cannot sit at a table of 3"),
        (["human"], "at least 2"),
        (["human"] * 4, "at most 3"),
    ],
)
def test_bad_new_game_requests(client, players, detail):
    res = client.post("/api/games", json={"players": players})
    assert res.status_code == 422 and detail in res.text


def test_moves_are_validated_and_refusals_change_nothing(client):
    gid = new_game(client, "human", "random")["id"]
    url = f"/api/games/{gid}"
    res = client.post(url + "/move", json={"move": "wb:L6@c1", "ply": 0})
    assert res.status_code == 422 and "illegal move 'wb:L6@c1'" in res.json()["detail"]
    res = client.post(url + "/move", json={"move": "Q!", "ply": 0})
    assert res.status_code == 422 and "invalid move 'Q!'" in res.json()["detail"]
    res = client.post(url + "/move", json={"move": "bg:L3@a5", "ply": 4})
    assert res.status_code == 409 and "stale request" in res.json()["detail"]
    assert client.post(url + "/agent-step", json={"ply": 0}).status_code == 409
    assert client.get(url).json()["ply"] == 0
    view = client.post(url + "/move", json={"move": "BG:l3@A5", "ply": 0}).json()
    assert view["ply"] == 1 and view["moves"] == [{"text": "bg:L3@a5", "player": 0, "turn": 1}]
    assert not view["human_to_move"] and view["legal"] == []
    assert {"id": "gL3", "colour": "g", "type": "L3", "board": "bg", "square": "a5"} in view[
        "towers"
    ]
    assert "L3" not in view["unplaced"]["g"]
    assert client.post(url + "/move", json={"move": "bg:L4@b5", "ply": 1}).status_code == 409
    view = client.post(url + "/agent-step", json={"ply": 1}).json()
    assert view["ply"] == 2 and view["human_to_move"] and view["moves"][-1]["player"] == 1
    assert client.post(url + "/agent-step", json={"ply": 1}).status_code == 409  # replayed


def test_undo_hint_and_log(client):
    gid = new_game(client, "human", "greedy")["id"]
    url = f"/api/games/{gid}"
    hint = client.post(url + "/hint", json={"ply": 0}).json()
    assert hint["move"]["kind"] == "place" and hint["words"].startswith("place grey (Zihin) ")
    assert client.post(url + "/hint", json={"ply": 3}).status_code == 409
    client.post(url + "/move", json={"move": hint["text"], "ply": 0})
    client.post(url + "/agent-step", json={"ply": 1})
    ((start, moves),) = parse_games(client.get(url + "/log").text)
    assert start == START_2P and moves[0] == hint["text"] and len(moves) == 2
    view = client.post(url + "/undo", json={"ply": 2}).json()
    assert view["ply"] == 0 and view["position"] == START_2P
    assert client.post(url + "/undo", json={"ply": 0}).status_code == 409


def test_a_human_reaches_play_and_agents_finish_a_three_player_game(client):
    view = new_game(client, "human", "greedy", "random", seed=4)
    while view["phase"] == "place":
        if view["human_to_move"]:
            move = view["legal"][-1]["text"]
            view = client.post(f"/api/games/{view['id']}/move", json={"move": move, "ply": view["ply"]}).json()  # fmt: skip
        else:
            view = client.post(f"/api/games/{view['id']}/agent-step", json={"ply": view["ply"]}).json()  # fmt: skip
    assert view["ply"] == 27 and view["phase"] == "play" and view["placing"] is None
    assert view["human_to_move"] and view["turn_text"].startswith("move 28")
    kinds = {m["kind"] for m in view["legal"]}
    assert kinds <= {"step", "capture", "pass"} and all(
        "src" in m for m in view["legal"] if m["kind"] != "pass"
    )
    agents = new_game(client, "greedy", "random", "random", seed=5)
    while not agents["over"]:
        agents = client.post(f"/api/games/{agents['id']}/agent-step", json={"ply": agents["ply"]}).json()  # fmt: skip
    assert agents["to_move"] is None and agents["phase"] == "over" and agents["turn_text"] == ""
    assert sum(b["frozen"] for b in agents["boards"]) >= 2
    assert ("wins after" in agents["result"]) == (agents["winner"] is not None)
    scores = [p["score"] for p in agents["players"]]
    assert f"(scores w {scores[0]}, b {scores[1]}, g {scores[2]})" in agents["result"]


def test_a_forced_pass_is_the_only_move_offered():
    position = (
        "2p wb*:..wL4../.bS4.wM6./.wS4.../bS6..../..bL4.. bg:bL6.bS3bM3./...../...../....gM6/"
        "...gS3bL3 gw:gS6..../gS4gM4.../....gL6/...../.gL4wM3wM4wL6 play w w=bM4,bM6 "
        "b=gM3,wL3,wS3,wS6"
    )
    session = Session(VIEW, ["human", "random"], start=position)
    data = session_json("g", session)
    assert data["legal"] == [{"text": "pass", "kind": "pass"}]
    assert data["turn_text"] == "move 1: no step or capture, pass"
    assert VIEW.describe(session.state, "pass") == "pass: no step or capture is possible"
    assert session.play("PASS") == "pass" and session.to_move() == 1
