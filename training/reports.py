"""What a training run leaves for people to read: ``eval.csv``, the learning curve
(``learning_curve.png``), the model card (``MODEL_CARD.md``) and the library versions
(``versions.json``)."""

from __future__ import annotations

import argparse
import csv
import platform
import re
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from tabletop.games import get_game
from training.config import ExItConfig, TrainConfig
from training.config import to_dict as config_dict
from training.kits import training_kit
from training.stats import Z95, ladder_rating, wilson

#: The distributions whose versions a run records, by the key it records them under.
DISTRIBUTIONS = {
    "splut_env": "splut-env",
    "torch": "torch",
    "stable_baselines3": "stable-baselines3",
    "sb3_contrib": "sb3-contrib",
    "gymnasium": "gymnasium",
    "pettingzoo": "pettingzoo",
    "numpy": "numpy",
}


def versions() -> dict[str, str]:
    """The Python and library versions of this run (``versions.json``)."""
    found = {key: metadata.version(name) for key, name in DISTRIBUTIONS.items()}
    return {"python": platform.python_version(), **found}


def write_eval_csv(path: Path, evals: list[dict]) -> None:
    if not evals:
        return
    keys = list(dict.fromkeys(k for row in evals for k in row))
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, keys)
        writer.writeheader()
        writer.writerows(evals)


def plot_ladder_ratings(
    ax: Any, xs: Sequence[float], ratings: Sequence[float], ladder: dict[str, float], xlabel: str
) -> None:
    """A learning curve's rating panel: the learner's ratings, the ladder's bots drawn across."""
    ax.plot(xs, ratings, "o-", color="tab:purple")
    for bot, elo in ladder.items():
        ax.axhline(elo, color="grey", alpha=0.4)
        ax.annotate(bot, (xs[0] if xs else 0, elo), fontsize=8, color="grey")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Elo on the fixed ladder")


def plot_learning_curve(path: Path, evals: list[dict], config: TrainConfig) -> None:
    """Win rates against each of ``eval.bots``; with ``eval.ladder``, beside them the rating
    on the ladder's scale, the bots' ratings drawn across."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rated = [(row["steps"], row["rating"]) for row in evals if "rating" in row]
    if not rated:
        fig, ax = plt.subplots(figsize=(7, 4))
    else:
        fig, (ax, right) = plt.subplots(1, 2, figsize=(12, 4))
        xs, ys = zip(*rated, strict=True)
        plot_ladder_ratings(right, xs, ys, config.eval.ladder, "learner steps")
        right.set_title("rating against the ladder's bots")
    for bot in config.eval.bots:
        points = [(row["steps"], row[f"vs_{bot}"]) for row in evals if f"vs_{bot}" in row]
        if points:
            xs, ys = zip(*points, strict=True)
            ax.plot(xs, ys, marker="o", label=f"vs {bot}")
    ax.axhline(1 / config.num_players, color="grey", linestyle=":", label="chance")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("learner steps")
    ax.set_ylabel(f"win rate ({config.eval.games} games per point)")
    ax.set_title(f"{config.name}: win rate during training")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


#: The parts of a run's time split (``time_split`` in the run state), as the card names them;
#: a run has ``perception`` only with perception phases.
TIME_PARTS = {
    "env": "games (rules, opponents, shaping)",
    "inference": "learner's policy inference and rollout bookkeeping",
    "learn": "PPO updates",
    "evaluate": "periodic evaluations and checkpoints",
    "perception": "perception phases (tier labels and fits)",
}


def time_split_line(split: dict[str, float]) -> str:
    """Where the self-play time went, as shares of the parts of ``split``."""
    total = sum(split.values()) or 1.0
    return ", ".join(f"{TIME_PARTS[k]} {100 * v / total:.0f}%" for k, v in split.items())


def results_table(results: dict[str, tuple[int, int, int]]) -> list[str]:
    """Markdown lines: each opponent's games, wins, draws, losses, win rate and 95 % Wilson
    interval, from ``{opponent: (wins, draws, games)}``."""
    lines = [
        "| opponent | games | wins | draws | losses | win rate | 95 % CI |",
        "|---|---|---|---|---|---|---|",
    ]
    for bot, (wins, draws, games) in results.items():
        lo, hi = wilson(wins, games)
        losses = games - wins - draws
        lines.append(
            f"| {bot} | {games} | {wins} | {draws} | {losses} | {100 * wins / games:.1f}% | "
            f"{100 * lo:.1f}–{100 * hi:.1f}% |"
        )
    return lines


def value_start(config: TrainConfig | ExItConfig) -> str:
    """What an ``init_from`` run did with the file's value head (``init_value``)."""
    if config.init_value == "keep":
        return "its value head kept"
    if config.init_value == "fresh":
        return "its value head started fresh"
    return "its value head kept unless dead (init_value: auto)"


def warm_start_line(config: TrainConfig, pretrain: dict | None) -> str:
    """How the learner's weights started: the teacher's imitation and DAgger rounds, the
    ``init_from`` file, or none."""
    if config.init_from:
        return f"the weights of `{config.init_from}`, {value_start(config)}"
    if not pretrain:
        return "none"
    p = config.pretrain
    line = (
        f"distillation of {p.teacher}'s move probabilities over {p.games} of its games"
        if p.soft
        else f"imitation of {p.teacher} over {p.games} games"
    )
    if p.dagger_rounds:
        line += (
            f", then {p.dagger_rounds} DAgger rounds of {p.dagger_games} student games "
            "labelled by the teacher"
        )
    return line + f" (teacher agreement {100 * pretrain['accuracy']:.1f}%)"


def model_card(
    config: TrainConfig,
    steps: int,
    wall: float,
    results: dict,
    path: Path,
    pretrain: dict | None,
    time_split: dict[str, float],
    time_split_from: int,
) -> str:
    since = f" (from step {time_split_from:,})" if time_split_from else ""
    start = "the start position"
    if config.opening_steps:
        start = f"{config.opening_steps}-step random openings"
    openings = ""
    if config.eval.openings:
        openings = f" each pair from its own {config.eval.openings}-step random opening,"
    lines = [
        f"# Model card: {config.name}",
        "",
        f"- game: {get_game(getattr(config, 'game', 'splut')).title}; checkpoint: `{path}` "
        f"(load with `{getattr(config, 'game', 'splut')}_env.load_agent(path)`)",
        f"- players: {config.num_players}; max turns: {config.max_turns}; seed: {config.seed}",
        f"- learner steps: {steps:,}; wall time: {wall / 60:.1f} min",
        f"- self-play time{since}: {time_split_line(time_split)}; "
        f"{(steps - time_split_from) / max(sum(time_split.values()), 1e-9):,.0f} learner "
        "steps/s",
        f"- network: {training_kit(getattr(config, 'game', 'splut')).describe_network(config.network)}"
        "; MaskablePPO",
        f"- warm start: {warm_start_line(config, pretrain)}",
        f"- self-play games from {start}",
        "",
        f"Evaluation: deterministic policy, {config.eval.final_games} games per bot, seats "
        f"alternated,{openings} chance {100 / config.num_players:.0f}%; 95 % Wilson intervals.",
        "",
        *results_table(results),
    ]
    if config.eval.ladder:
        rated = ", ".join(f"{bot} {elo:g}" for bot, elo in config.eval.ladder.items())
        lines += [
            "",
            f"Rating on the fixed ladder ({rated}): "
            f"{ladder_rating(config.eval.ladder, results):.0f}.",
        ]
    config_yaml = yaml.safe_dump(config_dict(config), sort_keys=False).rstrip()
    lines += ["", "Configuration:", "", "```yaml", config_yaml, "```", ""]
    return "\n".join(lines)


def read_stages(paths: list[Path], config: TrainConfig) -> list[dict]:
    """The ``eval.csv`` files of runs trained one after another, each from the network the
    one before ended with, as one list of evaluations: each run's steps counted on from the
    last one's, its evaluation before training dropped, and with ``eval.ladder`` a
    ``rating`` from ``eval.games`` games per point where a row has none."""
    rows: list[dict] = []
    for index, path in enumerate(paths):
        offset = rows[-1]["steps"] if rows else 0
        with open(path, newline="") as f:
            for line, raw in enumerate(csv.DictReader(f), start=2):
                try:
                    row = {k: float(v) for k, v in raw.items() if v not in ("", None)}
                    row["steps"] = int(row["steps"])
                except (KeyError, TypeError, ValueError) as err:
                    raise ValueError(
                        f"{path}, line {line}: expected an eval.csv row (steps, then win "
                        f"rates as numbers), got {dict(raw)} ({err})"
                    ) from None
                if index and row["steps"] < config.eval.every:
                    continue
                row["steps"] += offset
                if config.eval.ladder and "rating" not in row:
                    games = config.eval.games
                    results = {
                        bot: (round(row[f"vs_{bot}"] * games), 0, games)
                        for bot in config.eval.bots
                        if f"vs_{bot}" in row
                    }
                    row["rating"] = round(ladder_rating(config.eval.ladder, results), 1)
                rows.append(row)
    return rows


#: How a checkpoint of a run is named in an evaluation: ``…/checkpoints/step_0000200000/…``.
STEP_LABEL = re.compile(r"step_(\d+)")


def read_rating_points(
    agents_csv: Path, at: dict[str, int] | None = None
) -> tuple[list[dict], list[dict]]:
    """An evaluation's ``agents.csv`` split into a run's checkpoints (each with its
    ``steps``, from ``step_N`` in its label or from ``at``), in step order, and the fixed
    players they were rated against."""
    at = dict(at or {})
    points, fixed = [], []
    with open(agents_csv, newline="") as f:
        for line, raw in enumerate(csv.DictReader(f), start=2):
            try:
                row: dict[str, Any] = {"agent": raw["agent"]}
                for key in ("games", "wins", "draws"):
                    row[key] = int(raw[key])
                for key in ("win_rate", "ci_low", "ci_high", "rating", "rating_sigma"):
                    row[key] = float(raw[key])
            except (KeyError, TypeError, ValueError) as err:
                raise ValueError(
                    f"{agents_csv}, line {line}: expected a row of training.evaluate's "
                    f"agents.csv, got {dict(raw)} ({err})"
                ) from None
            if row["agent"] in at:
                row["steps"] = at.pop(row["agent"])
            elif match := STEP_LABEL.search(row["agent"]):
                row["steps"] = int(match.group(1))
            (points if "steps" in row else fixed).append(row)
    if at:
        raise ValueError(f"--at names agents {sorted(at)} that {agents_csv} does not hold")
    if not points:
        raise ValueError(
            f"{agents_csv} holds no checkpoint of a run (no label with step_N, none named by --at)"
        )
    return sorted(points, key=lambda r: r["steps"]), fixed


def table_size(seats_csv: Path) -> int:
    """The number of players of an evaluation: the seats its ``seats.csv`` names."""
    with open(seats_csv, newline="") as f:
        seats = {row.get("seat") for row in csv.DictReader(f)}
    if not seats or not seats <= set("SWNE") or len(seats) < 2:
        raise ValueError(f"{seats_csv}: expected the seats S, W, N, E of 2 to 4 players")
    return len(seats)


def plot_rating_curve(
    path: Path, points: list[dict], fixed: list[dict], players: int, title: str
) -> None:
    """Left: each checkpoint's rating with its 95 % interval, the fixed players' ratings
    drawn across; right: its win rate with its Wilson interval, chance drawn across."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [p["steps"] for p in points]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2))
    left.errorbar(
        xs,
        [p["rating"] for p in points],
        yerr=[Z95 * p["rating_sigma"] for p in points],
        fmt="o-",
        capsize=4,
        color="tab:purple",
        label="the run's checkpoints",
    )
    styles = ["--", ":", "-.", (0, (5, 1, 1, 1))]
    for i, row in enumerate(sorted(fixed, key=lambda r: -r["rating"])):
        left.axhline(
            row["rating"], color=f"C{i + 1}", alpha=0.7, linestyle=styles[i % 4], label=row["agent"]
        )
    if fixed:
        left.legend(fontsize=8)
    left.set_xlabel("learner steps")
    left.set_ylabel("Elo" if players == 2 else "Plackett–Luce μ")
    left.set_title("rating in the same field (bars: 95 %)")
    low = [p["win_rate"] - p["ci_low"] for p in points]
    high = [p["ci_high"] - p["win_rate"] for p in points]
    right.errorbar(xs, [p["win_rate"] for p in points], yerr=[low, high], fmt="o-", capsize=4)
    right.axhline(1 / players, color="grey", linestyle=":", label="chance")
    right.set_ylim(-0.02, 1.02)
    right.set_xlabel("learner steps")
    right.set_ylabel(f"win rate ({points[0]['games']} games per point)")
    right.set_title("wins (bars: Wilson 95 %)")
    right.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    """``python -m training.reports curve``: one learning curve over runs trained in stages;
    ``python -m training.reports ratings``: a learning curve in rating from one evaluation of
    a run's checkpoints against the same fixed players."""
    from training.config import load_config

    parser = argparse.ArgumentParser(prog="python -m training.reports", description=main.__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    curve = sub.add_parser("curve", help="one learning curve from the eval.csv of stages")
    curve.add_argument("csv", nargs="+", type=Path, help="each stage's eval.csv, in order")
    curve.add_argument("--config", type=Path, required=True, help="eval.bots, games, ladder")
    curve.add_argument("--name", help="the title (default: the config's name)")
    curve.add_argument("--out", type=Path, required=True, help="the .png to write")
    ratings = sub.add_parser(
        "ratings",
        help="a learning curve in rating: the agents.csv of training.evaluate --agents "
        "<a run's checkpoints> --opponents <fixed players>",
    )
    ratings.add_argument("eval_dir", type=Path, help="the evaluation's --out folder")
    ratings.add_argument(
        "--at",
        action="append",
        default=[],
        metavar="AGENT=STEPS",
        help="place an agent whose label has no step_N (e.g. the run's start at 0)",
    )
    ratings.add_argument("--name", default="", help="the title")
    ratings.add_argument("--out", type=Path, required=True, help="the .png to write")
    args = parser.parse_args(argv)
    if args.command == "ratings":
        ratings_command(parser, args)
        return
    for path in args.csv:
        if not path.is_file():
            parser.error(f"no eval.csv at {path}")
    try:
        config = load_config(args.config)
        rows = read_stages(args.csv, config)
    except ValueError as err:  # ConfigError is one
        parser.error(str(err))
    if not rows:
        parser.error("the eval.csv files hold no evaluations")
    if args.name:
        config.name = args.name
    plot_learning_curve(args.out, rows, config)
    print(f"{len(rows)} evaluations, {rows[-1]['steps']:,} learner steps: {args.out}")


def ratings_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``ratings``: read the evaluation, write the plot, print the points."""
    agents_csv = args.eval_dir / "agents.csv"
    if not agents_csv.is_file():
        parser.error(f"no agents.csv in {args.eval_dir} (the --out of training.evaluate)")
    at = {}
    for item in args.at:
        agent, sep, steps = item.rpartition("=")
        if not sep or not agent or not steps.isdigit():
            parser.error(f"--at {item!r}: expected AGENT=STEPS, e.g. runs/x/start.zip=0")
        at[agent] = int(steps)
    try:
        points, fixed = read_rating_points(agents_csv, at)
        players = table_size(args.eval_dir / "seats.csv")
    except (ValueError, OSError) as err:
        parser.error(str(err))
    plot_rating_curve(args.out, points, fixed, players, args.name or str(args.eval_dir))
    for p in points:
        print(
            f"{p['steps']:>10,}  rating {p['rating']:7.1f} ± {p['rating_sigma']:.1f}  "
            f"wins {100 * p['win_rate']:.1f} % of {p['games']}"
        )
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
