"""The terminal front end, driven through stdin in a subprocess as a user would."""

from __future__ import annotations

import subprocess
import sys

from splut_env import rules
from splut_env.envs.gamelog import read_games


def run_play(*args: str, stdin: str = "", cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "splut_env.play", "--no-color", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def test_typos_and_illegal_steps_get_a_message_and_the_prompt_again(tmp_path):
    save = tmp_path / "game.txt"
    entries = ["Ds", "zz", "99", "help", "hint", "dn", "undo", "1", "save", "quit"]
    out = run_play(
        "--players", "human", "random", "--seed", "1", "--save", str(save),
        stdin="\n".join(entries) + "\n",
    )  # fmt: skip
    assert out.returncode == 1, out.stderr  # stopped before the end
    text = out.stdout
    assert "illegal step 'Ds'" in text and "expected one of: Dn, Tn, Wn" in text
    assert "invalid step 'Zz'" in text
    assert "No step number 99: choose 1 to 3." in text
    assert "undo        take back your last step" in text
    assert "Hint: " in text
    assert text.count("S (red, human) plays Dn") == 2  # typed 'dn', then '1' after the undo
    assert "Took back: Dn " in text
    assert "Traceback" not in text + out.stderr
    (start, steps), = read_games(save)  # fmt: skip
    assert start == rules.initial_spn(2) and steps[0] == "Dn" and len(steps) == 3
    assert "Saved 3 steps to" in text


def test_a_whole_game_ends_with_a_summary(tmp_path):
    out = run_play(
        "--players", "human", "random", "random", "--max-turns", "5",
        stdin="1\n" * 40,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    assert "Result: no winner after 5 turns" in out.stdout
    assert "S (red, human): 4 steps" in out.stdout  # turn 1: one step, turn 4: three
    assert "step> " in out.stdout


def test_load_continues_a_saved_game(tmp_path):
    start = rules.from_spn(rules.initial_spn(2))
    log = tmp_path / "saved.txt"
    log.write_text(f"# a saved game\n{rules.initial_spn(2)} | Dn Ds Te\n")
    after = rules.to_spn(rules.play(rules.play(rules.play(start, "Dn"), "Ds"), "Te"))
    out = run_play("--players", "human", "greedy", "--load", str(log), stdin="quit\n")
    assert after in out.stdout and "turn 3, 3 step(s) left" in out.stdout
    # The 'load' command at the prompt does the same, and a bad file is only a message.
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{rules.initial_spn(2)} | Dn Dn\n")
    out = run_play(
        "--players", "human", "greedy",
        stdin=f"load {bad}\nload {log}\nquit\n",
    )  # fmt: skip
    assert "Could not load:" in out.stdout and "step 2 of the loaded game" in out.stdout
    assert f"Loaded 3 steps from {log}" in out.stdout and after in out.stdout


def test_bad_command_lines_are_refused_clearly():
    out = run_play("--players", "human")
    assert out.returncode == 2 and "2, 3 or 4 players, got 1" in out.stderr
    out = run_play("--players", "human", "nobody")
    assert out.returncode == 2 and "unknown agent 'nobody'" in out.stderr
    out = run_play("--players", "human", "random", "--load", "/no/such/file.txt")
    assert out.returncode == 2 and "cannot read game log" in out.stderr
