"""Evaluation statistics against known values, scheduling, and a small end-to-end run."""

from __future__ import annotations

import csv
import math

import pytest

from splut_env import rules
from splut_env.envs.gamelog import GameHead, parse_headed_games
from tabletop import evaluate
from training import replay
from training.stats import elo_ratings, ffa_ratings, finishing_ranks, ladder_rating, wilson


def test_wilson_interval_known_values():
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = wilson(0, 20)
    assert lo == 0 and hi == pytest.approx(0.1611, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_elo_known_values():
    games = [("a", "b", 1.0)] * 3 + [("a", "b", 0.0)]
    r = elo_ratings(["a", "b"], games, prior_games=0, anchor="b")
    assert r["a"][0] == pytest.approx(400 * math.log10(3), abs=1e-6) and r["b"][0] == 0
    # The difference's standard error is 1 / sqrt(n p (1 - p)) in natural units (n = 4,
    # p = 3/4); each rating sits half that difference from the mean of the two.
    gap = 400 / math.log(10) / math.sqrt(4 * 0.75 * 0.25)
    assert r["a"][1] == pytest.approx(gap / 2) and r["b"][1] == pytest.approx(gap / 2)
    # Draws count half; equal results give equal ratings around the mean.
    r = elo_ratings(["a", "b"], [("a", "b", 0.5)] * 4 + [("b", "a", 1.0), ("a", "b", 1.0)])
    assert r["a"][0] == pytest.approx(r["b"][0]) == pytest.approx(0)
    # An unbeaten agent keeps a finite rating thanks to the prior; the order is respected.
    r = elo_ratings(["x", "y", "z"], [("x", "y", 1.0)] * 5 + [("y", "z", 1.0)] * 5, anchor="z")
    assert math.isfinite(r["x"][0]) and r["x"][0] > r["y"][0] > r["z"][0] == 0
    # x met only y: its rating is less certain than y's; more games narrow the interval.
    assert r["x"][1] > r["y"][1] > 0
    more = elo_ratings(["x", "y", "z"], [("x", "y", 1.0)] * 50 + [("y", "z", 1.0)] * 50)
    assert (
        more["y"][1]
        < elo_ratings(["x", "y", "z"], [("x", "y", 1.0)] * 5 + [("y", "z", 1.0)] * 5)["y"][1]
    )


def test_finishing_ranks_and_ffa_ratings():
    assert finishing_ranks(4, [2, 0, 3]) == [3, 1, 4, 2]
    assert finishing_ranks(3, [1]) == [1, 3, 1]  # truncated: survivors share first place
    games = [(("a", "b", "c"), finishing_ranks(3, [2, 1]))] * 10
    ratings = ffa_ratings(["a", "b", "c"], games)
    assert ratings["a"][0] > ratings["b"][0] > ratings["c"][0]


def test_schedule_rotates_seats_and_checks_its_input():
    specs = evaluate.schedule(["a", "b", "c"], players=2, games=4, seed=1, max_turns=50)
    assert len(specs) == 12 and len({s.seed for s in specs}) == 12
    ab = [s.table for s in specs if set(s.table) == {"a", "b"}]
    assert ab.count(("a", "b")) == ab.count(("b", "a")) == 2
    four = evaluate.schedule(["a", "b", "c", "d"], players=4, games=4, seed=0, max_turns=50)
    for agent in "abcd":
        assert sorted(s.table.index(agent) for s in four) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="4 players need at least 4 agents"):
        evaluate.schedule(["a", "b"], players=4, games=2, seed=0, max_turns=50)
    with pytest.raises(ValueError, match="--players must be 2, 3 or 4"):
        evaluate.schedule(["a", "b"], players=5, games=2, seed=0, max_turns=50)
    assert evaluate.labels_for(["greedy", "random", "greedy"]) == ["greedy#1", "random", "greedy#2"]
    focused = evaluate.schedule(["a", "b", "c", "d"], 2, 2, 0, 50, focus=["a"])
    assert sorted({tuple(sorted(s.table)) for s in focused}) == [("a", "b"), ("a", "c"), ("a", "d")]
    three = evaluate.schedule(["a", "b", "c", "d"], 3, 3, 0, 50, focus=["a"])
    assert all("a" in s.table for s in three) and len(three) == 9


def test_end_to_end_two_players(tmp_path, capsys):
    out = tmp_path / "eval"
    evaluate.main(["--agents", "greedy", "random", "--games", "4", "--workers", "1",
                   "--max-turns", "60", "--out", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    assert "Chance level: 50.0%" in printed and "Elo (random = 0)" in printed
    for name in evaluate.OUTPUTS:
        assert (out / name).stat().st_size > 0
    with open(out / "agents.csv") as f:
        rows = {r["agent"]: r for r in csv.DictReader(f)}
    assert int(rows["greedy"]["games"]) == 4 and int(rows["greedy"]["wins"]) == 4
    assert float(rows["greedy"]["rating"]) > 0 and float(rows["greedy"]["rating_sigma"]) > 0
    games = replay.read_games(out / "games.txt")
    assert len(games) == 4
    states = replay.positions(*games[0])
    assert states[-1].is_over()
    headed = parse_headed_games((out / "games.txt").read_text())
    assert [(start, steps) for _, start, steps in headed] == games
    assert sorted(head.index for head, _, _ in headed) == [0, 1, 2, 3]
    for head, _, _ in headed:
        assert sorted(head.seated.values()) == ["greedy", "random"] and head.winner == "greedy"
        assert list(head.seated) == ["S", "N"] and head.turns > 0


def test_a_game_head_reads_back_as_written_and_a_game_without_one_is_named():
    head = GameHead(7, {"S": "a player", "W": "greedy", "N": "x.zip:mcts=64"}, None, 12)
    assert GameHead.parse(head.line()) == head
    won = GameHead(0, {"S": "a player", "N": "b"}, "a player", 3)
    assert won.line() == "# game 0: S=a player N=b; a player wins after 3 turns"
    assert GameHead.parse(won.line()) == won
    assert GameHead.parse("# splut-env game log") is None
    log = f"{won.line()}\nS:d2 | Ts\n\nS:d2 | Tn\n"
    with pytest.raises(ValueError, match=r"games\.txt:4: expected a '# game' line"):
        parse_headed_games(log, "games.txt")


def test_a_stopped_run_keeps_its_games_and_resumes(tmp_path, capsys, monkeypatch):
    """Games are journalled as they finish; Ctrl-C keeps them; the same command with
    --resume plays only the rest and writes what an unbroken run writes."""
    command = ["--agents", "greedy", "random", "search:easy", "--games", "2", "--workers", "1",
               "--max-turns", "40", "--openings", "2", "--seed", "3"]  # fmt: skip
    whole, out = tmp_path / "whole", tmp_path / "stopped"
    evaluate.main([*command, "--out", str(whole)])
    assert not (whole / "progress.jsonl").exists()
    play = evaluate.run_game
    calls = []

    def stop_after_four(spec):
        calls.append(spec.index)
        if len(calls) > 4:
            raise KeyboardInterrupt
        return play(spec)

    monkeypatch.setattr(evaluate, "run_game", stop_after_four)
    with pytest.raises(SystemExit) as stop:
        evaluate.main([*command, "--out", str(out)])
    assert stop.value.code == 130
    assert "stopped: 4 of 6 games kept" in capsys.readouterr().out
    assert len((out / "progress.jsonl").read_text().splitlines()) == 1 + 4
    with pytest.raises(SystemExit):  # not silently overwritten
        evaluate.main([*command, "--out", str(out)])
    assert "holds the games of a stopped run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        evaluate.main([*command[:5], "4", *command[6:], "--out", str(out), "--resume"])
    assert "other parameters (games)" in capsys.readouterr().err
    # A line cut short by the kill is dropped; the games are played again.
    with open(out / "progress.jsonl", "a") as f:
        f.write('{"index": 5, "start_')
    calls.clear()
    monkeypatch.setattr(evaluate, "run_game", play)
    evaluate.main([*command, "--out", str(out), "--resume"])
    assert "6 games of 2 players on 1 worker(s), 4 of them played before" in capsys.readouterr().out
    for name in ("games.txt", "seats.csv"):
        assert (out / name).read_text() == (whole / name).read_text()
    rows = [
        [r[:-1] for r in csv.reader((d / "agents.csv").read_text().splitlines())]
        for d in (out, whole)
    ]
    assert rows[0] == rows[1]  # all but the time per step
    assert not (out / "progress.jsonl").exists()
    (out / "progress.jsonl").write_text('{"x": 1}\n')
    with pytest.raises(SystemExit):
        evaluate.main([*command, "--out", str(out), "--resume"])
    assert "is from a run with other parameters" in capsys.readouterr().err


def test_journal_names_a_line_that_is_not_a_game(tmp_path):
    specs = evaluate.schedule(["greedy", "random"], players=2, games=2, seed=0, max_turns=20)
    journal = evaluate.Journal(tmp_path, {"games": 2})
    journal.start([])
    with open(journal.path, "a") as f:
        f.write('{"index": 0, "steps": []}\n')
    with pytest.raises(ValueError, match=r"progress\.jsonl', line 2: not a finished game"):
        journal.load(specs)
    journal.path.write_text("")
    with pytest.raises(ValueError, match="is from a run with other parameters"):
        journal.load(specs)
    journal.path.write_text("[1]\n")
    with pytest.raises(ValueError, match="line 1: not a run's parameters"):
        journal.load(specs)


def test_parallel_run_matches_a_serial_one():
    labels = ["greedy", "random", "search:easy"]
    specs = evaluate.schedule(labels, players=3, games=3, seed=5, max_turns=40)
    spec_of = {a: a for a in labels}
    serial = evaluate.run_games(specs, spec_of, workers=1, progress=False)
    parallel = evaluate.run_games(specs, spec_of, workers=2, progress=False)
    assert [r.steps for _, r in serial] == [r.steps for _, r in parallel]
    summary = evaluate.summarize(labels, 3, serial)
    assert sum(t.games for t in summary["agents"].values()) == 9
    assert "Plackett–Luce" in evaluate.report(labels, 3, summary)


def test_first_out_counts_the_first_wizard_hit_in_each_game(tmp_path):
    """With 3 or 4 players each game's first eliminated player is counted against the agent
    in that seat, in the table and in agents.csv; a draw with nobody out counts for none."""
    from splut_env.envs.match import GameRecord

    def record(winner, eliminated):
        return GameRecord("", [], winner, eliminated, 10, "", [0.0] * 3, [1] * 3)

    results = [
        (evaluate.GameSpec(0, ("a", "b", "c"), 0, 50), record(1, [2, 0])),
        (evaluate.GameSpec(1, ("b", "c", "a"), 1, 50), record(2, [1, 0])),
        (evaluate.GameSpec(2, ("c", "a", "b"), 2, 50), record(None, [])),
        (evaluate.GameSpec(3, ("a", "c", "b"), 3, 50), record(None, [2])),
    ]
    summary = evaluate.summarize(["a", "b", "c"], 3, results)
    assert {k: t.first_out for k, t in summary["agents"].items()} == {"a": 0, "b": 1, "c": 2}
    table = evaluate.report(["a", "b", "c"], 3, summary)
    assert "| first out |" in table
    assert "| first out |" not in evaluate.report(["a", "b"], 2, evaluate.summarize(
        ["a", "b"], 2, [(evaluate.GameSpec(0, ("a", "b"), 0, 50), record(0, [1]))]))  # fmt: skip
    evaluate.write_outputs(tmp_path, ["a", "b", "c"], 3, summary, results, table)
    with open(tmp_path / "agents.csv") as f:
        assert {r["agent"]: int(r["first_out"]) for r in csv.DictReader(f)} == {
            "a": 0, "b": 1, "c": 2,
        }  # fmt: skip


def test_bad_agent_and_corrupt_log_are_named(tmp_path, capsys):
    with pytest.raises(SystemExit):
        evaluate.main(["--agents", "greedy", "nobody", "--out", str(tmp_path)])
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    log = tmp_path / "games.txt"
    log.write_text("S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1 1 - - - | Dn Dn\n")
    with pytest.raises(ValueError, match="step 2: illegal step 'Dn'"):
        replay.positions(*replay.read_games(log)[0])
    log.write_text("no separator here\n")
    with pytest.raises(ValueError, match=r"games\.txt:1: expected"):
        replay.read_games(log)


def test_openings_are_shared_by_a_seat_rotation_and_differ_between_rotations():
    specs = evaluate.schedule(["a", "b"], players=2, games=6, seed=2, max_turns=50, openings=6)
    starts = [s.start_spn for s in specs]
    assert starts[0] == starts[1] and starts[2] == starts[3] and starts[4] == starts[5]
    assert len(set(starts)) == 3 and rules.initial_spn(2) not in starts
    assert [s.table for s in specs[:2]] == [("a", "b"), ("b", "a")]
    for start in set(starts):
        state = rules.from_spn(start)
        assert not rules.is_over(state) and state.turn == 4  # 1 + 2 + 3 steps played
    again = evaluate.schedule(["a", "b"], players=2, games=6, seed=2, max_turns=50, openings=6)
    assert [s.start_spn for s in again] == starts
    assert evaluate.schedule(["a", "b"], 2, 2, 0, 50)[0].start_spn is None
    with pytest.raises(ValueError, match="--openings must be 0 or more"):
        evaluate.schedule(["a", "b"], 2, 2, 0, 50, openings=-1)
    evaluate._init_worker({"a": "random", "b": "greedy"})
    _, record = evaluate.run_game(specs[0])
    assert record.start_spn == starts[0] and record.steps


def test_ladder_rating_sits_between_the_bots_it_splits_with():
    ladder = {"a": 0.0, "b": 400.0}
    even = ladder_rating(ladder, {"a": (30, 0, 40), "b": (10, 0, 40)})
    assert 0 < even < 400
    assert ladder_rating(ladder, {"a": (40, 0, 40), "b": (40, 0, 40)}) > 400
    assert math.isnan(ladder_rating(ladder, {"c": (1, 0, 2)}))
