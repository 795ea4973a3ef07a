"""Rate agents against each other, in any registered game:
``python -m tabletop.evaluate --game talat --agents greedy random`` (``python -m
training.evaluate`` is the same command; ``--game`` defaults to ``splut``).

Agents are the game's registered names (``random``, ``greedy``, ``search:easy|medium|hard``,
...) or player-file paths. With 2 players every pair of agents plays ``--games`` games (round-robin);
with 3 or 4 players every set of that many agents sits at a table for ``--games`` games. Seats
rotate from game to game so that each agent plays each seat equally often (when ``--games``
is a multiple of the player count). Game ``i`` uses the seed ``--seed * 1000003 + i``, so a run
is reproducible whatever the number of worker processes.

Deterministic agents replay the same game whenever they meet from the same seats. With
``--openings K`` every game starts after ``K`` uniformly random steps instead (a different
opening for each rotation of the seats, shared by the games of that rotation so each agent
plays it from every seat), which makes the games, and so the confidence intervals, honest.

Every finished game is appended to ``--out/progress.jsonl`` as it ends (JSON lines, read
back without pickle): a stopped run (Ctrl-C, a killed job) keeps its games, and the same
command with ``--resume`` plays only the games still missing. The file is removed once the
tables are written.

Writes to ``--out``: ``summary.md`` (the tables printed at the end), ``agents.csv``,
``seats.csv``, ``games.txt`` (one game per line: ``<start position> | <moves>``, see
:mod:`tabletop.gamelog`; replay a Splut! game with ``python -m training.replay``) and ``plot.png`` (2 players: the win-rate matrix; 3–4 players:
the free-for-all ratings).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import multiprocessing as mp
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from tqdm import tqdm

from tabletop.agents import Agent, check_table
from tabletop.cli import int_range
from tabletop.gamelog import GameHead, log_line
from tabletop.games import DEFAULT_GAME, Game, game_names, get_game
from tabletop.match import GameRecord
from tabletop.stats import Z95, elo_ratings, ffa_ratings, finishing_ranks, wilson

OPENING_TRIES = 1000
MAX_OPENING_STEPS = 100


@dataclass(frozen=True)
class GameSpec:
    index: int
    table: tuple[str, ...]  # agent labels by player index
    seed: int
    max_turns: int
    start_spn: str | None = None


def random_opening(
    num_players: int, steps: int, seed: int, game: Game | str | None = None
) -> str | None:
    """The position after ``steps`` random legal moves from the start (a game that ends on the
    way is replaced by another), as text; ``None`` for ``steps == 0``."""
    if steps <= 0:
        return None
    game = get_game(game)
    rng = random.Random(seed)
    for _ in range(OPENING_TRIES):
        text = game.random_opening(num_players, steps, rng)
        if text is not None:
            return text
    raise ValueError(
        f"--openings {steps}: no game of random steps lasted that long in {OPENING_TRIES} tries; "
        "choose fewer steps"
    )


def labels_for(specs: Sequence[str]) -> list[str]:
    """Unique labels: a spec given twice becomes ``spec#1``, ``spec#2``."""
    counts = {s: specs.count(s) for s in specs}
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(f"{s}#{seen[s]}" if counts[s] > 1 else s)
    return out


def schedule(
    labels: Sequence[str],
    players: int,
    games: int,
    seed: int,
    max_turns: int,
    focus: Sequence[str] | None = None,
    openings: int = 0,
    game: Game | str | None = None,
) -> list[GameSpec]:
    """Every table of ``players`` distinct agents plays ``games`` games, seats rotating;
    with ``focus``, only the tables with exactly one of those agents (against the others);
    with ``openings``, each rotation starts from its own random opening of that many steps."""
    game = get_game(game)
    if players not in game.player_counts:
        raise ValueError(f"--players must be {game.counts_text()} for {game.title}, got {players}")
    if len(labels) < players:
        raise ValueError(
            f"{players} players need at least {players} agents, got {len(labels)}: {list(labels)}"
        )
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    if openings < 0:
        raise ValueError(f"--openings must be 0 or more steps, got {openings}")
    specs = []
    tables = list(itertools.combinations(labels, players))
    if focus:
        tables = [t for t in tables if sum(a in focus for a in t) == 1]
        if not tables:
            raise ValueError(f"--opponents: no table pits {list(focus)} against other agents")
    for t, table in enumerate(tables):
        for g in range(games):
            r = g % players
            seated = table[r:] + table[:r]
            index = len(specs)
            rotation = seed * 1_000_003 + t * games + g // players
            start = random_opening(players, openings, rotation, game)
            specs.append(GameSpec(index, seated, seed * 1_000_003 + index, max_turns, start))
    return specs


_AGENTS: dict[str, Agent] = {}
_SPEC_OF: dict[str, str | Agent] = {}
_GAME: list[Game] = []


def _init_worker(
    spec_of: dict[str, str | Agent], threads: int | None = None, game: str = DEFAULT_GAME
) -> None:
    if threads is not None:
        # Worker processes share the cores: one thread each for torch and friends (read
        # when they are first imported, here, by the first agent made).
        os.environ["OMP_NUM_THREADS"] = str(threads)
    _AGENTS.clear()
    _SPEC_OF.clear()
    _SPEC_OF.update(spec_of)
    _GAME[:] = [get_game(game)]


def _agent(label: str) -> Agent:
    if label not in _AGENTS:
        _AGENTS[label] = _GAME[0].make_agent(_SPEC_OF[label])
    return _AGENTS[label]


def run_game(spec: GameSpec) -> tuple[GameSpec, GameRecord]:
    agents = [_agent(label) for label in spec.table]
    return spec, _GAME[0].play_game(
        agents, seed=spec.seed, max_turns=spec.max_turns, start=spec.start_spn
    )


def run_games(
    specs: Sequence[GameSpec],
    spec_of: dict[str, str | Agent],
    workers: int,
    progress: bool = True,
    done: Sequence[tuple[GameSpec, GameRecord]] = (),
    on_result: Callable[[GameSpec, GameRecord], None] | None = None,
    game: Game | str | None = None,
) -> list[tuple[GameSpec, GameRecord]]:
    """Play the games on ``workers`` processes with a progress bar; results in spec order.
    ``spec_of`` maps each label to an agent's name or path, or (one worker only) to an
    :class:`Agent` object. ``done``: games already played (a resumed run), not played
    again; ``on_result`` is called with each new game as it finishes."""
    name = get_game(game).name
    if workers > 1 and any(isinstance(s, Agent) for s in spec_of.values()):
        raise ValueError("agent objects can only be evaluated with one worker")
    results: list[tuple[GameSpec, GameRecord]] = []
    bar = tqdm(total=len(specs), desc="games", unit="game", disable=not progress)
    wins: dict[str, int] = {}

    def record(item: tuple[GameSpec, GameRecord], new: bool = True) -> None:
        spec, rec = item
        results.append(item)
        if new and on_result is not None:
            on_result(spec, rec)
        if rec.winner is not None:
            wins[spec.table[rec.winner]] = wins.get(spec.table[rec.winner], 0) + 1
        bar.set_postfix_str(" ".join(f"{k}:{v}" for k, v in sorted(wins.items())), refresh=False)
        bar.update()

    for item in done:
        record(item, new=False)
    played = {spec.index for spec, _ in done}
    todo = [spec for spec in specs if spec.index not in played]
    if workers <= 1:
        _init_worker(spec_of, game=name)
        for spec in todo:
            record(run_game(spec))
    else:
        with mp.get_context("spawn").Pool(workers, _init_worker, (spec_of, 1, name)) as pool:
            for item in pool.imap_unordered(run_game, todo):
                record(item)
    bar.close()
    results.sort(key=lambda item: item[0].index)
    return results


class Journal:
    """``progress.jsonl``: the run's parameters on the first line, then one finished game
    per line, appended as games end, so that a stopped run can be resumed."""

    NAME = "progress.jsonl"

    def __init__(self, out: Path, params: dict) -> None:
        self.path = out / self.NAME
        self.params = params

    def load(self, specs: Sequence[GameSpec]) -> list[tuple[GameSpec, GameRecord]]:
        """The games a stopped run with the same parameters finished; raises ``ValueError``
        naming the file when it belongs to another run or a line is not a game. A last
        line cut short (the run killed while writing it) is dropped."""
        where = f"{str(self.path)!r}"
        if not self.path.is_file():
            raise ValueError(f"--resume: no {where} (nothing to resume: run without --resume)")
        text = self.path.read_text()
        lines = text.split("\n")[:-1]  # a last line without its newline was cut short
        try:
            params = json.loads(lines[0]) if lines else {}
        except ValueError as err:
            raise ValueError(f"{where}, line 1: not a run's parameters ({err})") from err
        if not isinstance(params, dict):
            raise ValueError(f"{where}, line 1: not a run's parameters ({lines[0][:80]!r})")
        if params != self.params:
            changed = sorted(
                k for k in {*params, *self.params} if params.get(k) != self.params.get(k)
            )
            raise ValueError(
                f"--resume: {where} is from a run with other parameters ({', '.join(changed)}); "
                "run the same command to resume it, or choose another --out"
            )
        by_index = {spec.index: spec for spec in specs}
        done: dict[int, tuple[GameSpec, GameRecord]] = {}
        for number, line in enumerate(lines[1:], start=2):
            try:
                data = json.loads(line)
                record = GameRecord(
                    **{f.name: data[f.name] for f in fields(GameRecord) if f.name in data}
                )
                spec = by_index[data["index"]]
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(f"{where}, line {number}: not a finished game ({err!r})") from err
            done[spec.index] = (spec, record)
        return [done[i] for i in sorted(done)]

    def start(self, done: Sequence[tuple[GameSpec, GameRecord]]) -> None:
        """Rewrite the file with the parameters and ``done`` (dropping a cut line)."""
        with open(self.path, "w") as f:
            f.write(json.dumps(self.params) + "\n")
            for spec, record in done:
                f.write(self._line(spec, record))

    def add(self, spec: GameSpec, record: GameRecord) -> None:
        with open(self.path, "a") as f:
            f.write(self._line(spec, record))

    @staticmethod
    def _line(spec: GameSpec, record: GameRecord) -> str:
        return json.dumps({"index": spec.index, **asdict(record)}) + "\n"


def evaluate_agent(
    agent: Agent,
    opponents: Sequence[str],
    num_players: int,
    games: int,
    seed: int,
    max_turns: int,
    progress: bool = False,
    openings: int = 0,
    game: Game | str | None = None,
) -> dict[str, tuple[int, int, int]]:
    """``agent`` against each of ``opponents`` (names or paths): for each, ``games`` games
    at a table of ``agent`` and ``num_players - 1`` copies of that opponent, seats rotating,
    scheduled and seeded as the command line does (``openings``: random opening steps).
    Returns ``{opponent: (wins, draws,
    games)}`` of ``agent``. Training's periodic evaluations are this."""
    results = {}
    for opponent in opponents:
        labels = labels_for(["agent", *[opponent] * (num_players - 1)])
        spec_of: dict[str, str | Agent] = dict.fromkeys(labels[1:], opponent)
        spec_of["agent"] = agent
        specs = schedule(labels, num_players, games, seed, max_turns, openings=openings, game=game)
        records = run_games(specs, spec_of, workers=1, progress=progress, game=game)
        wins = sum(r.winner is not None and s.table[r.winner] == "agent" for s, r in records)
        draws = sum(r.winner is None for _, r in records)
        results[opponent] = (wins, draws, len(records))
    return results


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    draws: int = 0
    turns: int = 0
    think: float = 0.0
    decisions: int = 0
    first_out: int = 0
    """Games in which this agent's wizard was the first one hit."""

    @property
    def losses(self) -> int:
        return self.games - self.wins - self.draws


def summarize(
    labels: Sequence[str], players: int, results: Sequence[tuple[GameSpec, GameRecord]]
) -> dict:
    """Per-agent and per-seat tallies, pairwise scores and ratings."""
    per_agent = {a: Tally() for a in labels}
    per_seat = {(a, s): Tally() for a in labels for s in range(players)}
    pair_score: dict[tuple[str, str], list[float]] = {}
    elo_games, ffa_games = [], []
    for spec, rec in results:
        draw = rec.winner is None
        for k, label in enumerate(spec.table):
            for tally in (per_agent[label], per_seat[(label, k)]):
                tally.games += 1
                tally.wins += rec.winner == k
                tally.draws += draw
                tally.turns += rec.turns
            per_agent[label].think += rec.think_seconds[k]
            per_agent[label].decisions += rec.decisions[k]
        if rec.eliminated:
            per_agent[spec.table[rec.eliminated[0]]].first_out += 1
        if players == 2:
            a, b = spec.table
            score = 0.5 if draw else float(rec.winner == 0)
            elo_games.append((a, b, score))
            pair_score.setdefault((a, b), []).append(score)
            pair_score.setdefault((b, a), []).append(1 - score)
        else:
            ranks = rec.ranks or finishing_ranks(players, rec.eliminated)
            ffa_games.append((spec.table, ranks))
    if players == 2:
        anchor = "random" if "random" in labels else None
        ratings = elo_ratings(labels, elo_games, anchor=anchor)
    else:
        ratings = ffa_ratings(labels, ffa_games)
    return {"agents": per_agent, "seats": per_seat, "pairs": pair_score, "ratings": ratings}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def report(
    labels: Sequence[str], players: int, summary: dict, game: Game | str | None = None
) -> str:
    """The Markdown tables of a summary."""
    seats = get_game(game).seat_names
    per_agent, ratings = summary["agents"], summary["ratings"]
    if players == 2:
        anchor = "random = 0" if "random" in labels else "mean 0"
        rating_head = f"Elo ({anchor}) ± 95 % CI"
    else:
        rating_head = "rating μ ± σ (Plackett–Luce)"
    # With 3 or 4 players also the games in which the agent was the first one out.
    ffa = players > 2
    head = ["agent", "games", "W", "D", "L", "win rate", "95 % CI", "avg turns", rating_head,
            *(["first out"] if ffa else []), "ms/step"]  # fmt: skip
    lines = [
        f"Chance level: {_pct(1 / players)} wins ({players} players). "
        "Draws are games truncated at the turn cap. CI: Wilson 95 %.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    order = sorted(labels, key=lambda a: -ratings[a][0])
    for a in order:
        t = per_agent[a]
        lo, hi = wilson(t.wins, t.games)
        mu, sigma = ratings[a]
        rating = f"{mu:.1f} ± {sigma:.1f}" if ffa else f"{mu:+.0f} ± {Z95 * sigma:.0f}"
        cells = [a, t.games, t.wins, t.draws, t.losses, _pct(t.wins / max(t.games, 1)),
                 f"{_pct(lo)}–{_pct(hi)}", f"{t.turns / max(t.games, 1):.1f}", rating,
                 *([t.first_out] if ffa else []), f"{1000 * t.think / max(t.decisions, 1):.2f}"]  # fmt: skip
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    lines += ["", "Win rate by seat (wins / games):", ""]
    lines.append(
        "| agent | "
        + " | ".join(f"seat {s} (player_{k})" for k, s in enumerate(seats(players)))
        + " |"
    )
    lines.append("|---|" + "---|" * players)
    for a in order:
        cells = []
        for k in range(players):
            t = summary["seats"][(a, k)]
            cells.append(f"{_pct(t.wins / t.games)} ({t.wins}/{t.games})" if t.games else "–")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    if players == 2:
        lines += ["", "Pairwise score of the row agent (wins + ½ draws) with 95 % CI:", ""]
        lines.append("| | " + " | ".join(order) + " |")
        lines.append("|---|" + "---|" * len(order))
        for a in order:
            row = []
            for b in order:
                s = summary["pairs"].get((a, b))
                if not s:
                    row.append("–")
                    continue
                lo, hi = wilson(sum(s), len(s))
                row.append(f"{_pct(sum(s) / len(s))} ({_pct(lo)}–{_pct(hi)})")
            lines.append(f"| {a} | " + " | ".join(row) + " |")
    return "\n".join(lines)


OUTPUTS = ("summary.md", "agents.csv", "seats.csv", "games.txt", "plot.png", "ratings.png")
#: The command-line parameters a resumed run must share with the stopped one.
PARAMS = ("agents", "opponents", "players", "games", "seed", "max_turns", "openings")


def prepare_out(out: Path) -> None:
    """Make the output folder and check that every output file can be written there, before
    any game is played; raises ``ValueError`` naming the problem."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"--out {str(out)!r}: cannot make the output folder: {err}") from err
    for name in (*OUTPUTS, Journal.NAME):
        path = out / name
        if path.exists() and not path.is_file():
            raise ValueError(f"--out {str(out)!r}: {name} exists there and is not a file")
    if not os.access(out, os.W_OK):
        raise ValueError(f"--out {str(out)!r}: the folder is not writable")


def write_outputs(
    out: Path,
    labels: Sequence[str],
    players: int,
    summary: dict,
    results,
    text: str,
    game: Game | str | None = None,
) -> None:
    game = get_game(game)
    seats = game.seat_names
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.md").write_text(text + "\n")
    with open(out / "agents.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "agent",
                "games",
                "wins",
                "draws",
                "losses",
                "win_rate",
                "ci_low",
                "ci_high",
                "avg_turns",
                "rating",
                "rating_sigma",
                "first_out",
                "ms_per_step",
            ]
        )
        for a in labels:
            t = summary["agents"][a]
            lo, hi = wilson(t.wins, t.games)
            mu, sigma = summary["ratings"][a]
            w.writerow(
                [
                    a,
                    t.games,
                    t.wins,
                    t.draws,
                    t.losses,
                    t.wins / max(t.games, 1),
                    lo,
                    hi,
                    t.turns / max(t.games, 1),
                    mu,
                    sigma,
                    t.first_out,
                    1000 * t.think / max(t.decisions, 1),
                ]
            )
    with open(out / "seats.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["agent", "seat", "player", "games", "wins", "draws", "win_rate"])
        for (a, k), t in summary["seats"].items():
            if t.games:
                seat = seats(players)[k]
                w.writerow([a, seat, f"player_{k}", t.games, t.wins, t.draws, t.wins / t.games])
    with open(out / "games.txt", "w") as f:
        f.write(game.log_header + "\n")
        for spec, rec in results:
            seated = dict(zip(seats(players), spec.table, strict=True))
            winner = None if rec.winner is None else spec.table[rec.winner]
            f.write(GameHead(spec.index, seated, winner, rec.turns).line() + "\n")
            f.write(log_line(rec.start_spn, rec.steps) + "\n")
    plot(out / "plot.png", labels, players, summary)
    if players == 2:
        plot_ratings(out / "ratings.png", labels, summary)


def plot(path: Path, labels: Sequence[str], players: int, summary: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = sorted(labels, key=lambda a: -summary["ratings"][a][0])
    if players == 2:
        n = len(order)
        fig, ax = plt.subplots(figsize=(1.6 * n + 2.5, 1.3 * n + 1.5))
        grid = [[float("nan")] * n for _ in range(n)]
        for i, a in enumerate(order):
            for j, b in enumerate(order):
                s = summary["pairs"].get((a, b))
                if s:
                    grid[i][j] = sum(s) / len(s)
        im = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1)
        for i in range(n):
            for j in range(n):
                if grid[i][j] == grid[i][j]:
                    ax.text(j, i, f"{100 * grid[i][j]:.0f}%", ha="center", va="center")
        ax.set_xticks(range(n), order, rotation=30, ha="right")
        ax.set_yticks(range(n), order)
        ax.set_title("score of row agent vs column agent")
        fig.colorbar(im, ax=ax, fraction=0.046)
    else:
        fig, ax = plt.subplots(figsize=(7, 0.6 * len(order) + 1.5))
        mus = [summary["ratings"][a][0] for a in order]
        sigmas = [summary["ratings"][a][1] for a in order]
        ax.barh(order[::-1], mus[::-1], xerr=sigmas[::-1], color="tab:blue", alpha=0.8)
        ax.set_xlabel("Plackett–Luce rating μ (bars: ±σ)")
        ax.set_title(f"{players}-player free-for-all ratings")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_ratings(path: Path, labels: Sequence[str], summary: dict) -> None:
    """2 players: the Elo ratings with their 95 % intervals, each agent's cost per step
    beside its name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = sorted(labels, key=lambda a: summary["ratings"][a][0])
    elo = [summary["ratings"][a][0] for a in order]
    half = [Z95 * summary["ratings"][a][1] for a in order]
    names = []
    for a in order:
        t = summary["agents"][a]
        names.append(f"{a}\n{1000 * t.think / max(t.decisions, 1):.1f} ms/step")
    fig, ax = plt.subplots(figsize=(8, 0.7 * len(order) + 1.5))
    ax.errorbar(elo, range(len(order)), xerr=half, fmt="o", capsize=4, color="tab:blue")
    for y, e in enumerate(elo):
        ax.annotate(f"{e:+.0f}", (e, y), textcoords="offset points", xytext=(0, 7), ha="center")
    ax.set_yticks(range(len(order)), names)
    anchor = "random = 0" if "random" in labels else "mean = 0"
    games = sum(summary["agents"][a].games for a in labels) // 2
    ax.set_xlabel(f"Elo ({anchor}); bars: 95 % interval of each rating within the field")
    ax.set_title(f"2-player ladder: Bradley–Terry ratings from {games} games")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--game", default=DEFAULT_GAME, choices=game_names(), help="the game (default: splut)"
    )
    parser.add_argument("--agents", nargs="+", required=True, help="names or checkpoint paths")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=[],
        help="only rate --agents against these (no games among --agents or among opponents)",
    )
    parser.add_argument("--players", type=int_range(2, 4), default=2)
    parser.add_argument(
        "--games", type=int_range(1, 10**6), default=100, help="games per pairing / table"
    )
    parser.add_argument("--seed", type=int_range(0, 10**9), default=0)
    parser.add_argument(
        "--max-turns", type=int_range(1), default=None, help="turn cap (default: the game's)"
    )
    parser.add_argument(
        "--openings",
        type=int_range(0, MAX_OPENING_STEPS),
        default=0,
        metavar="K",
        help="start each seat rotation from K random steps (0: the initial position)",
    )
    parser.add_argument("--workers", type=int_range(1, 256), default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=Path("runs/eval"))
    parser.add_argument(
        "--resume",
        action="store_true",
        help=f"go on with a stopped run of the same command (its --out/{Journal.NAME})",
    )
    args = parser.parse_args(argv)
    game = get_game(args.game)
    if args.players not in game.player_counts:
        parser.error(f"--players must be {game.counts_text()} for {game.title}, got {args.players}")
    if args.max_turns is None:
        args.max_turns = game.max_turns
    elif args.max_turns > game.max_turns_limit:
        parser.error(
            f"argument --max-turns: expected a whole number from 1 to {game.max_turns_limit}, "
            f"got {args.max_turns}"
        )
    specs_given = args.agents + args.opponents
    labels = labels_for(specs_given)
    spec_of = dict(zip(labels, specs_given, strict=True))
    focus = labels[: len(args.agents)] if args.opponents else None
    try:
        for spec in sorted(set(specs_given)):  # fail fast on a bad name, file or table size
            try:
                check_table([game.make_agent(spec)], args.players)
            except ValueError as err:
                raise ValueError(f"agent {spec!r}: {err}") from err
        prepare_out(args.out)
        specs = schedule(
            labels, args.players, args.games, args.seed, args.max_turns, focus, args.openings, game
        )
        params = {k: getattr(args, k) for k in PARAMS}
        if game.name != DEFAULT_GAME:
            params["game"] = game.name
        journal = Journal(args.out, params)
        if args.resume:
            done = journal.load(specs)
        elif journal.path.exists():
            raise ValueError(
                f"--out {str(args.out)!r} holds the games of a stopped run ({Journal.NAME}): "
                "add --resume to go on with it, or choose another --out"
            )
        else:
            done = []
    except ValueError as err:
        parser.error(str(err))
    journal.start(done)
    print(
        f"{len(specs)} games of {args.players} players on {args.workers} worker(s)"
        + (f", {len(done)} of them played before" if args.resume else "")
    )
    try:
        results = run_games(
            specs, spec_of, args.workers, done=done, on_result=journal.add, game=game
        )
    except KeyboardInterrupt:
        kept = len(journal.load(specs))
        print(
            f"\nstopped: {kept} of {len(specs)} games kept in {journal.path}; add --resume to go on"
        )
        raise SystemExit(130) from None
    summary = summarize(labels, args.players, results)
    text = report(labels, args.players, summary, game)
    write_outputs(args.out, labels, args.players, summary, results, text, game)
    journal.path.unlink()
    print(text)
    print(f"\nwritten to {args.out}/: summary.md agents.csv seats.csv games.txt plot.png")


if __name__ == "__main__":
    main()
