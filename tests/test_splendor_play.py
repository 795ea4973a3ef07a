"""Splendor's play shells: the session with Splendor's view, the terminal (through its
functions and as a user runs it, with piped input), the web server (through FastAPI's test
client), and what the page and the terminal show: never more than the human's seat may see
(SPLENDOR_RULES.md §9)."""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from splendor_env import rules
from splendor_env.play.view import VIEW, observer
from splendor_env.play.web import create_app
from tabletop.gamelog import read_games
from tabletop.play.session import Session
from tabletop.play.terminal import TerminalSession
from tabletop.play.web import session_json

START = rules.initial_text(2, 5)
#: P0 (bonuses b3 g3 r2 k3, 10 tokens, card 20 reserved) to move; buying the red card 27
#: (net price w1) brings nobles 6 (g3 r3 k3) and 7 (b3 g3 r3) at once. P1 holds card 41
#: from a deck and card 5 from the market.
NOBLES_AND_RETURNS = (
    "splendor 2 turn:22 move:0 phase:main final:no supply:w1b2g2r3k3y2 nobles:1,6,7 "
    "L1:27,36,37,38/3,4,6,7,8,12,13,14,15,16,21,22,23,24,29,30,31,32,39,40 "
    "L2:42,43,44,45/46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70 "
    "L3:71,72,73,74/75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90 "
    "P0:w3b2g2r1k1y1/9,10,11,17,18,19,25,26,33,34,35/20/- P1:w0b0g0r0k0y2/1,2,28/41*,5/-"
)


def run_play(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "splendor_env.play", "--no-color", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def transcript(entries: list[str], session: Session | None = None) -> str:
    session = session or Session(VIEW, ["human", "random"], start=START, seed=0)
    out = io.StringIO()
    TerminalSession(session, io.StringIO("\n".join(entries) + "\n"), out, color=False).run()
    return out.getvalue()


def played(num_players: int, seed: int, moves: int) -> rules.State:
    """The position after ``moves`` random moves from a seeded start (or the game's end)."""
    rng = random.Random(seed)
    state = rules.initial_state(num_players, seed)
    for _ in range(moves):
        if rules.is_over(state):
            break
        state = rules.play(state, rng.choice(rules.legal_moves(state)))
    return state


# --- the session ----------------------------------------------------------------------------


def test_moves_are_read_in_any_case_and_bad_ones_are_refused_without_change():
    session = Session(VIEW, ["human", "random"], start=START, seed=1)
    with pytest.raises(rules.InvalidNotationError, match="'take w-b'"):
        session.play("take w-b")
    with pytest.raises(rules.IllegalMoveError, match=r"illegal move 'buy 3\.0'.*lacks") as err:
        session.play("buy 3.0")
    assert "/#36 L2:" in str(err.value) and START not in str(err.value)
    with pytest.raises(rules.IllegalMoveError, match="illegal move 'return w'"):
        session.play("return w")
    assert session.moves == [] and rules.to_text(session.state) == START
    assert session.play("  Take   WBG ") == "take wbg"
    with pytest.raises(rules.IllegalMoveError, match=r"it is P1 \(purple, random\)'s turn"):
        session.play("take wbg")
    session.agent_move()
    assert session.moves[0] == "take wbg" and len(session.moves) == 2


def test_a_whole_game_between_agents_ends_with_a_result_and_notes():
    session = Session(VIEW, ["greedy", "random", "random"], seed=3)
    while not session.is_over():
        session.agent_move()
    state = session.state
    result = session.result_text()
    shown = ", ".join(
        f"P{k} {p} ({len(state.bought[k])} cards)" for k, p in enumerate(state.points)
    )
    assert result.endswith(f"turns (points {shown})")
    assert (" wins after " in result) == (rules.winner(state) is not None)
    summary = session.summary()
    assert ("triggered the end" in summary) == state.final
    assert summary.count("visited P") == sum(len(o) for o in state.owned)


def test_a_noble_choice_and_token_returns_in_the_session():
    session = Session(VIEW, ["human", "greedy"], start=NOBLES_AND_RETURNS, seed=0)
    words = VIEW.describe(session.state, "buy 1.0")
    assert words == (
        "buy card 27 (level 1, red bonus, 0 points, costs w1b1g1k1) from market 1.0 for w1, "
        "then choose one of the nobles that qualify"
    )
    assert VIEW.describe(session.state, "buy r0").endswith("from your hand (r0) for w1")
    assert VIEW.describe(session.state, "reserve deck 2") == (
        "reserve the top card of deck 2 face down and 1 gold, then return 1 (over 10)"
    )
    session.play("buy 1.0")
    assert session.legal_moves() == ["noble 6", "noble 7"]
    assert VIEW.turn_text(session) == "turn 22 (round 12): choose a noble"
    assert VIEW.move_json(session.state, "noble 7") == {
        "text": "noble 7", "kind": "noble", "noble": 7,
        "words": "choose noble 7 (needs bonuses b3g3r3): 3 points",
    }  # fmt: skip
    session.play("noble 7")
    session.agent_move()
    taken = next(m for m in session.legal_moves() if m.startswith("take ") and len(m) == 8)
    assert VIEW.describe(session.state, taken).endswith(", then return 2 (over 10)")
    session.play(taken)
    assert VIEW.turn_text(session) == "turn 24 (round 13): return 2 token(s), one at a time"
    assert VIEW.move_json(session.state, "return y")["token"] == "y"
    session.play("return y")
    session.play("RETURN B")
    assert session.to_move() == 1 and sum(session.state.tokens[0]) == 10
    assert session.undo() == ["return b"] and session.state.phase == 1
    assert "noble 7 visited P0 in turn 22" in VIEW.notes(session)


def test_undo_and_hint():
    session = Session(VIEW, ["human", "search:easy"], start=START, seed=0)
    hint = session.hint()
    assert hint in session.legal_moves()
    session.play(hint)
    reply = session.agent_move()
    assert session.undo() == [reply, hint] and session.undo() == []
    assert session.moves == [] and rules.to_text(session.state) == START


def test_a_saved_game_is_a_log_with_the_full_start(tmp_path):
    session = Session(VIEW, ["human", "search:easy"], start=START, seed=0)
    session.play("take wbg")
    session.agent_move()
    text = session.save(tmp_path / "splendor.txt").read_text()
    assert "# players: P0=human P1=search:easy; in progress, turn 2" in text
    assert f"\n{START} | take wbg; " in text


def test_a_saved_game_reads_back(tmp_path):
    session = Session(VIEW, ["human", "random"], start=START, seed=0)
    session.play("take wbg")
    session.agent_move()
    path = session.save(tmp_path / "splendor.txt")
    assert read_games(path) == [(START, session.moves)]
    assert session.reload(path).moves == session.moves
    assert "; " in path.read_text()  # Splendor's moves hold spaces: ';' separates them


def test_tables_are_checked():
    with pytest.raises(ValueError, match="a game of Splendor has 2, 3 or 4 players, got 5"):
        Session(VIEW, ["human"] * 5)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        Session(VIEW, ["human", "nobody"])
    with pytest.raises(ValueError, match="3 players given for a 2-player position"):
        Session(VIEW, ["human", "random", "random"], start=START)


# --- what a person sees ---------------------------------------------------------------------


@pytest.mark.parametrize(("num_players", "seed", "moves"), [(2, 1, 14), (3, 2, 30), (4, 3, 45)])
def test_the_page_holds_only_what_the_human_seat_may_see(num_players, seed, moves):
    """For every seat a human takes, the page's JSON is the same in every full position
    that differs only in what that seat may not see (decks, other players' hands)."""
    state = played(num_players, seed, moves)
    assert any(len(h) for h in state.hands), "the test wants reserved cards"
    for human in range(num_players):
        players = ["random"] * num_players
        players[human] = "human"
        seen = rules.view(state, human)
        pages = set()
        for world in (state, rules.determinise(seen, 1), rules.determinise(seen, 2)):
            session = Session(VIEW, players, start=rules.to_text(world))
            assert observer(session) == human
            data = session_json("g", session)
            assert data["position"] == data["view_text"] == seen.text
            for k, p in enumerate(data["players"]):
                assert all(("id" in card) == (k == human) for card in p["hand"])
            pages.add(json.dumps(data, sort_keys=True))
        assert len(pages) == 1


def test_the_observer_is_the_human_to_move_or_next():
    state = played(4, 7, 21)  # seat 1 to move
    assert state.to_move == 1
    for humans, seat in [((0, 2), 2), ((1, 3), 1), ((0,), 0), ((3,), 3), ((), None)]:
        players = ["human" if k in humans else "random" for k in range(4)]
        session = Session(VIEW, players, start=rules.to_text(state))
        assert observer(session) == seat
    spectator = session_json("g", session)
    assert "#" in spectator["position"] and "?" not in spectator["position"]
    assert all("id" in card for p in spectator["players"] for card in p["hand"])


def test_the_terminal_board_shows_the_hands_backs_and_the_prompt_the_own_hand():
    session = Session(VIEW, ["human", "greedy"], start=NOBLES_AND_RETURNS, seed=0)
    board = VIEW.diagram(session.state, color=False)
    assert "P1  0 pts  tokens w0b0g0r0k0y2 (2)" in board and "hand ?2*,?1" in board
    assert "P0  0 pts" in board and "hand ?1" in board and "41" not in board
    assert "L1 [20]  27 r0 (w1b1g1k1) | 36 k0 (w1b1g1r1)" in board
    assert "nobles   #1 r4k4   #6 g3r3k3   #7 b3g3r3" in board
    assert "\x1b[" in VIEW.diagram(session.state, color=True)
    menu = VIEW.move_menu(session.state, session.legal_moves())
    assert menu[0] == "your reserved cards: r0 20 g0 (w1b1r1k1)"
    assert menu[1].startswith("  1. buy 1.0 ") and len(menu) == 1 + len(session.legal_moves())


# --- the terminal ---------------------------------------------------------------------------


def test_terminal_typos_illegal_moves_undo_and_hint(tmp_path):
    save = tmp_path / "game.txt"
    text = transcript(
        [
            "zz",
            "buy 3.0",
            "99",
            "help",
            "hint",
            "take WBG",
            "undo",
            "1",
            "moves",
            f"save {save}",
            "quit",
        ]
    )
    assert "invalid move 'zz'" in text
    assert "illegal move 'buy 3.0'" in text and "lacks" in text
    seen = rules.view_text(rules.from_text(START), 0)  # the refusal quotes P0's view only
    assert f"in position '{seen}': card " in text and START not in text
    assert "No move number 99: choose 1 to 30." in text
    assert "undo        take back your last move" in text and "take wbg, take2 r" in text
    assert re.search(r"Hint: \S.*  \(", text)
    assert "P0 (orange, human) plays take wbg" in text
    assert "Took back: take wbg " in text
    assert "P0 (orange, human) plays reserve 1.0" in text  # '1': the first in sorted order
    assert "your reserved cards: r0 " in text
    assert "Game stopped." in text and "Traceback" not in text
    assert f"{START} | reserve 1.0; " in save.read_text()


def test_terminal_return_and_noble_decisions():
    session = Session(VIEW, ["human", "greedy"], start=NOBLES_AND_RETURNS, seed=0)
    text = transcript(
        ["buy 1.0", "noble 1", "noble 6", "take wbg", "return k", "2", "quit"], session
    )
    assert "several nobles qualify: choose the one who visits" in text
    assert "illegal move 'noble 1'" in text and "P0 (orange, human) plays noble 6" in text
    assert "you hold 12 tokens (w3b3g3r1k1y1): return 2 more, one at a time" in text
    assert "you hold 11 tokens (w3b3g3r1y1): return 1 more, one at a time" in text
    assert session.moves[3:6] == ["take wbg", "return k", "return g"]
    assert "Game stopped." in text


def test_terminal_as_a_command():
    out = run_play("--players", "human", "random", "random", "--seed", "2", stdin="1\n" * 6)
    assert out.returncode == 1, out.stdout[-2000:] + out.stderr
    text = out.stdout
    assert text.startswith("Splendor P0 (orange, human) vs P1 (purple, random) vs P2 (teal,")
    assert "move> " in text and "(end of input)" in text and "Traceback" not in out.stderr
    out = run_play("--players", "human")
    assert out.returncode == 2 and "2, 3 or 4 players, got 1" in out.stderr
    out = run_play("--players", "human", "nobody")
    assert out.returncode == 2 and "unknown agent 'nobody'" in out.stderr


# --- the web server -------------------------------------------------------------------------


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(max_games=3))


def test_web_games_moves_and_the_log_once_over(client):
    page = client.get("/")
    assert page.status_code == 200 and "<title>Splendor</title>" in page.text
    assert client.get("/game/board.js").status_code == 200
    options = client.get("/api/options").json()
    assert options["player_counts"] == [2, 3, 4] and options["turn_word"] == "turn"
    assert [s["colour"] for s in options["seats"]["4"]] == ["orange", "purple", "teal", "pink"]
    start = options["start"]["3"]
    assert start["phase"] == "main" and len(start["market"]) == 3 and len(start["nobles"]) == 4
    assert "/#" in start["position"]
    res = client.post("/api/games", json={"players": ["human"] * 5})
    assert res.status_code == 422 and "at most 4" in res.text
    res = client.post("/api/games", json={"players": ["human", "nobody"]})
    assert res.status_code == 422 and "unknown player(s) ['nobody']" in res.text

    view = client.post("/api/games", json={"players": ["human", "random"], "seed": 1}).json()
    url = f"/api/games/{view['id']}"
    res = client.post(url + "/move", json={"move": "return w", "ply": 0})
    assert res.status_code == 422 and "illegal move 'return w'" in res.json()["detail"]
    res = client.post(url + "/move", json={"move": "buy 3.0", "ply": 0})
    detail = res.json()["detail"]  # the position quoted as the human's seat sees it
    assert res.status_code == 422 and f"in position {view['position']!r}: card " in detail
    assert "/#36 L2:" in view["position"]
    view = client.post(url + "/move", json={"move": "take wbg", "ply": 0}).json()
    assert view["ply"] == 1 and view["players"][0]["tokens"]["w"] == 1
    res = client.get(url + "/log")
    assert res.status_code == 409 and "once the game is over" in res.json()["detail"]

    bots = client.post("/api/games", json={"players": ["greedy", "random"], "seed": 2}).json()
    while not bots["over"]:
        bots = client.post(f"/api/games/{bots['id']}/agent-step", json={"ply": bots["ply"]}).json()  # fmt: skip
    assert bots["phase"] == "over" and bots["observer"] is None and bots["turn_text"] == ""
    log = client.get(f"/api/games/{bots['id']}/log")
    assert log.status_code == 200 and "# players: P0=greedy P1=random;" in log.text


def test_the_cores_server_keeps_the_log_of_a_running_splendor_game():
    from tabletop.play.web import create_app as core_app

    client = TestClient(core_app(VIEW))
    view = client.post("/api/games", json={"players": ["human", "random"], "seed": 3}).json()
    res = client.get(f"/api/games/{view['id']}/log")
    assert res.status_code == 409 and "holds the decks' order" in res.json()["detail"]
