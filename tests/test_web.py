"""The browser front end's server, through FastAPI's test client."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from splut_env import rules
from splut_env.envs.gamelog import parse_games, positions
from splut_env.play.web import create_app

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(checkpoints=[], max_games=3))


def new_game(client: TestClient, *players: str, seed: int = 0) -> dict:
    res = client.post("/api/games", json={"players": list(players), "seed": seed})
    assert res.status_code == 201, res.text
    return res.json()


def test_page_and_options(client):
    page = client.get("/")
    assert page.status_code == 200 and '<svg id="board"' in page.text
    assert client.get("/static/app.js").status_code == 200
    options = client.get("/api/options").json()
    assert options["players"][0] == "human" and "search:medium" in options["players"]
    assert [s["seat"] for s in options["seats"]["3"]] == ["S", "W", "N"]


def test_new_game_view(client):
    view = new_game(client, "human", "random")
    assert view["ply"] == 0 and view["human_to_move"] and view["to_move"] == 0
    assert {p["id"]: p["square"] for p in view["pieces"]}["TS"] == "f2"
    assert sorted(r["square"] for r in view["rocks"]) == ["a5", "e1", "e9", "i5"]
    assert [s["text"] for s in view["legal"]] == ["Dn", "Tn", "Wn"]
    assert view["legal"][0] == {
        "text": "Dn", "piece": "D", "src": "e2", "dst": "e3", "option": "move",
        "throw": None, "rock": None,
    }  # fmt: skip
    assert view["spn"] == rules.initial_spn(2)


@pytest.mark.parametrize(
    ("players", "detail"),
    [
        (["human", "nobody"], "unknown player(s) ['nobody']"),
        (["human", "/etc/passwd.zip"], "unknown player(s)"),  # only offered checkpoints
        (["human"], "at least 2"),
        (["human"] * 5, "at most 4"),
    ],
)
def test_bad_new_game_requests(client, players, detail):
    res = client.post("/api/games", json={"players": players})
    assert res.status_code == 422 and detail in res.text


def test_steps_are_validated_and_refusals_change_nothing(client):
    gid = new_game(client, "human", "random")["id"]
    url = f"/api/games/{gid}"
    res = client.post(url + "/step", json={"step": "Ds", "ply": 0})
    assert res.status_code == 422 and "illegal step 'Ds'" in res.json()["detail"]
    res = client.post(url + "/step", json={"step": "Q!", "ply": 0})
    assert res.status_code == 422 and "invalid step 'Q!'" in res.json()["detail"]
    res = client.post(url + "/step", json={"step": "Dn", "ply": 5})
    assert res.status_code == 409 and "stale request" in res.json()["detail"]
    assert client.post(url + "/step", json={"step": "Dn"}).status_code == 422  # no ply
    assert client.post(url + "/agent-step", json={"ply": 0}).status_code == 409
    assert client.get(url).json()["ply"] == 0
    view = client.post(url + "/step", json={"step": "Dn", "ply": 0}).json()
    assert view["ply"] == 1 and not view["human_to_move"] and view["legal"] == []
    # The agent's turn: a human step is refused, agent steps come one at a time.
    assert client.post(url + "/step", json={"step": "Dn", "ply": 1}).status_code == 409
    view = client.post(url + "/agent-step", json={"ply": 1}).json()
    assert view["ply"] == 2 and view["steps"][-1]["player"] == 1
    assert client.post(url + "/agent-step", json={"ply": 1}).status_code == 409  # replayed
    view = client.post(url + "/agent-step", json={"ply": 2}).json()
    assert view["ply"] == 3 and view["human_to_move"] and view["turn"] == 3
    assert client.get("/api/games/nope").status_code == 404
    assert client.post("/api/games/nope/step", json={"step": "Dn", "ply": 0}).status_code == 404


def test_undo_and_log_download(client):
    gid = new_game(client, "human", "greedy")["id"]
    url = f"/api/games/{gid}"
    client.post(url + "/step", json={"step": "Dn", "ply": 0})
    client.post(url + "/agent-step", json={"ply": 1})
    client.post(url + "/agent-step", json={"ply": 2})
    log = client.get(url + "/log")
    assert "attachment" in log.headers["content-disposition"]
    ((start, steps),) = parse_games(log.text)
    assert start == rules.initial_spn(2) and len(steps) == 3 and steps[0] == "Dn"
    assert client.post(url + "/undo", json={"ply": 1}).status_code == 409  # stale
    view = client.post(url + "/undo", json={"ply": 3}).json()
    assert view["ply"] == 0 and view["spn"] == rules.initial_spn(2)
    assert client.post(url + "/undo", json={"ply": 0}).status_code == 409  # nothing left


def test_games_do_not_mix_and_old_ones_are_dropped(client):
    a = new_game(client, "human", "random")["id"]
    b = new_game(client, "human", "random")["id"]
    client.post(f"/api/games/{a}/step", json={"step": "Wn", "ply": 0})
    assert client.get(f"/api/games/{b}").json()["ply"] == 0
    assert client.get(f"/api/games/{a}").json()["steps"][0]["text"] == "Wn"
    new_game(client, "random", "random")
    new_game(client, "random", "random")  # the store keeps 3: b, the least recently used, goes
    assert client.get(f"/api/games/{b}").status_code == 404
    assert client.get(f"/api/games/{a}").status_code == 200


def test_agents_play_a_whole_four_player_game(client):
    view = new_game(client, "greedy", "random", "random", "random", seed=3)
    while not view["over"]:
        view = client.post(f"/api/games/{view['id']}/agent-step", json={"ply": view["ply"]}).json()
    assert view["winner"] == 0 and "S (red, greedy) wins" in view["result"]
    assert sum(p["alive"] for p in view["players"]) == 1
    assert view["to_move"] is None and view["steps_left"] == 0


def test_concurrent_requests_keep_games_apart_and_apply_a_ply_once(client):
    from concurrent.futures import ThreadPoolExecutor

    ids = [new_game(client, "random", "greedy", seed=k)["id"] for k in range(3)]

    def play_out(gid: str) -> dict:
        view = client.get(f"/api/games/{gid}").json()
        while not view["over"]:
            res = client.post(f"/api/games/{gid}/agent-step", json={"ply": view["ply"]})
            assert res.status_code == 200, res.text
            view = res.json()
        return view

    with ThreadPoolExecutor(3) as pool:
        views = list(pool.map(play_out, ids))
    for gid, view in zip(ids, views, strict=True):
        ((start, steps),) = parse_games(client.get(f"/api/games/{gid}/log").text)
        assert positions(start, steps)[-1] == rules.from_spn(view["spn"])
    # The same request sent eight times at once is applied once; the others are stale.
    gid = new_game(client, "random", "random")["id"]
    with ThreadPoolExecutor(8) as pool:
        codes = list(
            pool.map(
                lambda _: client.post(f"/api/games/{gid}/agent-step", json={"ply": 0}).status_code,
                range(8),
            )
        )
    assert sorted(codes) == [200] + [409] * 7
    assert client.get(f"/api/games/{gid}").json()["ply"] == 1


def test_checkpoints_are_offered_with_and_without_their_shield():
    ckpt = str(ROOT / "checkpoints" / "splut_2p.zip")
    client = TestClient(create_app(checkpoints=[ckpt]))
    players = client.get("/api/options").json()["players"]
    assert players[-2:] == [ckpt, ckpt + ":shield"]
    view = new_game(client, ckpt + ":shield", "random", seed=1)
    while not view["over"]:
        view = client.post(f"/api/games/{view['id']}/agent-step", json={"ply": view["ply"]}).json()
    assert view["winner"] == 0 and "splut_2p.zip:shield" in view["result"]


def test_only_players_that_fit_the_table_are_offered_and_accepted():
    ckpt = str(ROOT / "checkpoints" / "splut_3p.zip")
    client = TestClient(create_app(checkpoints=[ckpt]))
    options = client.get("/api/options").json()
    assert options["player_counts"] == [2, 3, 4]
    two, three = options["table"]["2"], options["table"]["3"]
    assert "best:2p" in two and not {"best:3p", "best:4p", ckpt, ckpt + ":shield"} & set(two)
    assert {"best:3p", ckpt, ckpt + ":shield"} <= set(three) and "best:2p" not in three
    res = client.post("/api/games", json={"players": ["human", "best:3p"]})
    assert res.status_code == 422
    assert "player 'best:3p' is made for 3 players and cannot sit at a table of 2" in res.text
    res = client.post("/api/games", json={"players": ["human", ckpt + ":shield"]})
    assert res.status_code == 422 and "was trained for 3 players" in res.text
    assert new_game(client, "human", ckpt, "best:3p")["ply"] == 0


def test_the_start_positions_come_with_the_page_and_the_options(client):
    options = client.get("/api/options").json()
    for n in ("2", "3", "4"):
        start = options["start"][n]
        assert start["id"] is None and start["legal"] == [] and not start["human_to_move"]
        assert start["spn"] == rules.initial_spn(int(n)) and len(start["players"]) == int(n)
    page = client.get("/").text
    assert '<script id="options" type="application/json">' in page
    assert rules.initial_spn(4) in page


def test_hints_and_moves_by_either_name(client):
    gid = new_game(client, "human", "greedy")["id"]
    url = f"/api/games/{gid}"
    hint = client.post(url + "/hint", json={"ply": 0}).json()
    assert hint["text"] in {"Dn", "Tn", "Wn"} and hint["move"]["text"] == hint["text"]
    assert hint["words"].split()[0] in {"dwarf", "troll", "wizard"}
    assert client.post(url + "/hint", json={"ply": 1}).status_code == 409  # stale
    view = client.post(url + "/move", json={"move": "dn", "ply": 0}).json()  # any case
    assert view["moves"] == view["steps"] == [{"text": "Dn", "player": 0, "turn": 1}]
    assert client.post(url + "/hint", json={"ply": 1}).status_code == 409  # the agent's turn
