"""The Game model behind the terminal and browser front ends: steps, undo, hints, logs."""

from __future__ import annotations

import pytest
from conftest import spn

from splut_env import rules
from splut_env.envs.gamelog import parse_games, read_games
from splut_env.play.session import Game, step_info
from splut_env.rules.notation import IllegalStepError, InvalidNotationError

# S's troll on e4 throws the rock on e5 north onto N's wizard on e8.
KILL = spn("d2,e4,e2", "e8,d8,f8", "a5,e1,e5,i5", steps=1)


def infos(state_spn: str) -> dict[str, object]:
    state = rules.from_spn(state_spn)
    return {i.text: i for i in (step_info(state, rules.step_id(state, t)) for t in rules.legal_steps(state))}  # fmt: skip


def test_step_info_names_piece_squares_and_option():
    steps = infos(KILL)
    throw = steps["Tnxn"]
    assert (throw.piece, throw.src, throw.dst, throw.option, throw.throw) == (
        "T", "e4", "e5", "throw", "n",
    )  # fmt: skip
    assert throw.describe() == "troll e4 -> e5, throws the rock north"
    assert steps["Dn"].option == "move" and steps["Dn"].dst == "e3"
    pull = infos(spn("d2,e4,e2", "e8,d8,f8", "a5,e1,e3,i5"))["Tnp"]
    assert (pull.option, pull.src, pull.dst) == ("pull", "e4", "e5")
    lev = infos(rules.initial_spn(2))["Wn"]
    assert lev.option == "move" and lev.rock is None
    start = rules.from_spn(rules.initial_spn(2))
    for step in ("Dn", "Ds", "Te"):
        start = rules.play(start, step)
    lev = infos(rules.to_spn(start))["We@a5"]
    assert (lev.option, lev.rock, lev.src, lev.dst) == ("levitate", "a5", "d2", "e2")


def test_human_steps_are_checked_and_change_nothing_when_refused():
    game = Game(["human", "random"], seed=1)
    before = rules.to_spn(game.state)
    with pytest.raises(IllegalStepError, match="expected one of: Dn, Tn, Wn"):
        game.play("Ds")
    with pytest.raises(InvalidNotationError, match="'Xq'"):
        game.play("Xq")
    with pytest.raises(IllegalStepError, match="human"):
        game.agent_step()
    assert rules.to_spn(game.state) == before and game.steps == []
    assert game.play("Dn") == "Dn"
    assert not game.human_to_move() and game.to_move() == 1
    with pytest.raises(IllegalStepError, match="N \\(green, random\\)'s turn"):
        game.play("Dn")
    game.agent_step()
    game.agent_step()
    assert game.human_to_move() and game.movers == [0, 1, 1] and game.state.turn == 3


def test_undo_takes_back_the_last_human_step_and_the_agents_after_it():
    game = Game(["human", "greedy"], seed=0)
    assert game.undo() == []
    game.play("Dn")
    game.agent_step()
    game.agent_step()
    first = game.legal_steps()[0].text
    game.play(first)
    assert game.undo() == [first]
    agent_steps = game.steps[1:]
    assert len(agent_steps) == 2 and game.human_to_move()
    assert game.undo() == [agent_steps[1], agent_steps[0], "Dn"]
    assert game.steps == [] and rules.to_spn(game.state) == rules.initial_spn(2)


def test_hint_is_what_the_table_agent_would_play():
    game = Game(["human", "greedy"], start_spn=KILL)
    assert game.hint() == "Tnxn"  # greedy takes the kill
    assert game.hint("random") in {s.text for s in game.legal_steps()}
    game.play("Tnxn")
    assert game.is_over() and game.winner() == 0
    assert "S (red, human) wins after 10 turns" in game.summary()
    assert "N (green, greedy) eliminated by step 1 (Tnxn, turn 10)" in game.summary()
    with pytest.raises(IllegalStepError, match="over"):
        game.hint()
    with pytest.raises(IllegalStepError, match="over"):
        game.play("Dn")


def test_log_round_trip_and_bad_logs(tmp_path):
    game = Game(["random", "random"], seed=4)
    for _ in range(12):
        game.agent_step()
    path = game.save(tmp_path / "sub" / "g.txt")
    assert read_games(path) == [(rules.initial_spn(2), game.steps)]
    loaded = Game.load(path, ["human", "greedy"])
    assert loaded.steps == game.steps and loaded.state == game.state
    assert loaded.movers == game.movers
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{rules.initial_spn(2)} | Dn Ds Qq\n")
    with pytest.raises(ValueError, match=r"bad\.txt: step 3 of the loaded game: invalid step 'Qq'"):
        Game.load(bad, ["human", "random"])
    bad.write_text("no separator here\n")
    with pytest.raises(ValueError, match=r"bad\.txt:1: expected '<start SPN> \| <steps>'"):
        Game.load(bad, ["human", "random"])
    bad.write_text("# only a comment\n")
    with pytest.raises(ValueError, match="holds no game"):
        Game.load(bad, ["human", "random"])
    with pytest.raises(ValueError, match="cannot read game log"):
        Game.load(tmp_path / "missing.txt", ["human", "random"])
    with pytest.raises(ValueError, match="1 players given for a 2-player position"):
        Game.load(path, ["human"])
    assert parse_games("# c\n\nS:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - - |\n")[0][1] == []


def test_bad_tables_are_refused_by_name():
    with pytest.raises(ValueError, match="2, 3 or 4 players, got 1"):
        Game(["human"])
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        Game(["human", "nobody"])
    with pytest.raises(ValueError, match="max_turns"):
        Game(["human", "random"], max_turns=0)


def test_turn_limit_ends_the_game_without_winner():
    game = Game(["random", "random", "random"], max_turns=3, seed=2)
    while not game.is_over():
        game.agent_step()
    assert game.winner() is None and game.to_move() is None and game.legal_steps() == []
    assert game.result_text() == "no winner after 3 turns"
    with pytest.raises(IllegalStepError, match="over"):
        game.agent_step()
