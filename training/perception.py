"""The network's tactical perception, trained and measured apart from play: positions from
games of bots and networks (with random steps mixed in), each labelled with the shield's
tiers (:func:`splut_env.batched.shield.tier_labels`: the steps whose turn can kill, those
that end safe from a kill, those that leave the wizard exposed); a network fitted to the
best tier of each position; and the held-out score that says how well a network sees.

    python -m training.perception label --players greedy search:easy checkpoints/splut_2p.zip \\
        --games 400 --out runs/labels.npz
    python -m training.perception fit --data runs/labels.npz --blocks 6 --policy-head steps \\
        --out runs/perceptive.zip
    python -m training.perception score --data runs/labels.npz checkpoints/splut_2p.zip

The score counts *critical* positions only (some legal step is in a lower tier than the
best: where a blunder is possible), in positions of games held out of the fit (the last
``--held-out`` share of the games): how often the network's likeliest legal step is in the
best tier, overall and where the best tier is a kill or a safe turn. A fitted network is a
player file, a warm start for ``training.expert_iteration`` (``targets: shield``).

With ``label --expert search:expert=N`` a deeper teacher labels each position as well: the
steps that begin a way to the position the expert's chosen turn ends in
(:meth:`~splut_env.batched.bots.BatchedBot.turn_steps`). ``fit --expert-weight W`` then puts
W of a position's target on those steps within the best tier, and ``score`` also counts how
often the likeliest step is one of them. With the network among ``--players`` the expert
labels the positions the network's own play reaches (DAgger).
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import re
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from splut_env.batched.bots import BatchedBot
from splut_env.batched.shield import CompiledTactics, new_memo, tier_labels
from splut_env.encoding import (
    MIRROR_ACTION,
    NUM_ACTIONS,
    OBS_SHAPE,
    PLANE_ROCKS,
    PLANE_TURN,
    action_mask,
    action_to_step_id,
    mirror_mean,
    mirror_planes,
    observation_planes,
    step_id_to_action,
)
from splut_env.envs.gamelog import parse_headed_games
from splut_env.players import make_agent
from splut_env.players.checkpoint import Checkpoint, load_checkpoint, save_player
from splut_env.players.network import INPUTS, POLICY_HEADS, NetworkShape, build_policy, shape_of
from splut_env.rules import State, from_spn, step_id
from splut_env.rules.board import SEATS
from tabletop.files import read_text
from training.evaluate import random_opening
from training.expert_iteration import forward, game_samples, update
from training.pretrain import DEAD_VALUE_SPREAD, value_spread
from training.stats import wilson

KILL, SAFE = 3, 1
OTHER_PLAYERS = slice(6, PLANE_ROCKS)  # the planes of a third and a fourth player
FIELDS = ("planes", "turns", "masks", "tiers", "values", "games", "players", "expert")
#: Fields a file of labelled positions may lack: ``expert``, the steps beginning the turn a
#: search bot chooses (``label --expert``), all False where a position has none; and
#: ``players``, the number of players of each position's game, which files written before
#: it was kept get from the planes (:func:`players_of`).
OPTIONAL = ("players", "expert")


# --- labelled positions -----------------------------------------------------------------------


def label_game(
    job: tuple[list[str], int, int, float, int, int, str | None],
) -> dict[str, np.ndarray]:
    """One game, each seat played by a player drawn from ``players`` (a step replaced by a
    random legal one with chance ``explore``), every position labelled with the shield's
    tiers for its mover and, given a compiled bot's spec as ``expert``, with the steps that
    begin the turn that bot would choose there (:meth:`BatchedBot.turn_steps`)."""
    players, num_players, seed, explore, max_turns, game, expert = job
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    start = random_opening(num_players, 2, seed)
    state = from_spn(start) if start else State.initial(num_players)
    agents = {
        seat: make_agent(players[rng.integers(len(players))], seed=int(rng.integers(2**31)))
        for seat in state.alive_seats()
    }
    tactics = CompiledTactics()
    labeller = expert_bot(expert, int(rng.integers(2**31))) if expert else None
    rows: list[tuple] = []
    chosen: list[np.ndarray] = []
    while not state.is_over() and state.turn <= max_turns:
        seat = state.to_move
        tiers = np.empty(NUM_ACTIONS, np.int8)
        tactics.labels(state, tiers)
        if labeller:
            chosen.append(labeller.turn_steps(state))
        planes = observation_planes(state, seat, max_turns)
        rows.append((planes, action_mask(state, seat), tiers, seat))
        if rng.random() < explore:
            state.apply(int(rng.choice(state.legal_ids())))
        else:
            state.apply(action_to_step_id(seat, agents[seat].act(state)))
    data = game_samples(rows, state, target=("tiers", np.int8))
    data["games"] = np.full(len(rows), game, np.int32)
    data["players"] = np.full(len(rows), num_players, np.int8)
    if labeller:
        data["expert"] = np.array(chosen, bool).reshape(-1, NUM_ACTIONS)
    return data


def expert_bot(spec: str, seed: int | None = None) -> BatchedBot:
    """The compiled bot ``spec`` names (``search:expert``, ``search:expert=N``, ``greedy``,
    ``search:easy|medium|hard``) as a labeller; a spec that is none of them is named."""
    name, _, budget = spec.partition("=")
    try:
        return BatchedBot(name, seed=seed, nodes=int(budget) if budget else None)
    except ValueError as err:
        raise ValueError(f"expert {spec!r}: {err}") from None


def label(
    players: list[str],
    num_players: int,
    games: int,
    seed: int = 0,
    explore: float = 0.2,
    max_turns: int = 200,
    workers: int = 1,
    expert: str | None = None,
) -> dict[str, np.ndarray]:
    """``games`` labelled games (:func:`label_game`) over ``workers`` processes."""
    jobs = [(players, num_players, seed * 1_000_003 + g, explore, max_turns, g, expert)
            for g in range(games)]  # fmt: skip
    pool = None
    if workers > 1:
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        played = pool.map(label_game, jobs) if pool else map(label_game, jobs)
        parts = list(tqdm(played, total=games, desc="labelled games"))
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def save_labels(data: dict[str, np.ndarray], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **data)


def load_labels(path: str | Path) -> dict[str, np.ndarray]:
    """Labelled positions written by :func:`save_labels` (no pickle), with ``expert`` where
    the file has it; a file that is not one is named."""
    try:
        with np.load(path, allow_pickle=False) as f:
            data = {k: f[k] for k in FIELDS if k in f.files or k not in OPTIONAL}
    except (OSError, ValueError, KeyError) as err:
        raise ValueError(
            f"{str(path)!r} is not a file of labelled positions (an .npz with "
            f"{', '.join(k for k in FIELDS if k not in OPTIONAL)}): {err}"
        ) from None
    if "players" not in data:
        data["players"] = np.full(len(data["values"]), players_of(data["planes"]), np.int8)
    return data


def players_of(planes: np.ndarray) -> int:
    """The number of players of a file's games, from its planes: 2, and one more for each
    of the third and fourth players' planes that some position fills."""
    third = OTHER_PLAYERS.start
    return 2 + int(planes[:, third : third + 3].any()) + int(planes[:, third + 3 : third + 6].any())


def split(data: dict[str, np.ndarray], held_out: float) -> tuple[dict, dict]:
    """The positions of the first games, and of the last ``held_out`` share of the games
    (at least one game each)."""
    games = np.unique(data["games"])
    if len(games) < 2:
        raise ValueError(f"held-out positions need at least 2 games, got {len(games)}")
    keep = min(max(1, round(len(games) * (1 - held_out))), len(games) - 1)
    train = data["games"] < games[keep]
    return ({k: v[train] for k, v in data.items()}, {k: v[~train] for k, v in data.items()})


# --- fit and score -----------------------------------------------------------------------------


def reflect(batch: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, np.ndarray]:
    """``batch`` with the positions ``rows`` (a boolean mask) replaced by their reflections
    in the north-south axis (2-player positions only: the same game, seen in a mirror)."""
    out = dict(batch)
    out["planes"] = batch["planes"].copy()
    out["planes"][rows] = mirror_planes(batch["planes"][rows])
    for key in ("masks", "tiers", "expert"):
        if key not in batch:
            continue
        out[key] = batch[key].copy()
        out[key][rows] = batch[key][rows][:, MIRROR_ACTION]
    return out


def critical_rows(tiers: np.ndarray) -> np.ndarray:
    """Which positions are critical: some legal step is in a lower tier than the best
    (``tiers`` as :func:`~splut_env.batched.shield.tier_labels` writes them, -2 not legal)."""
    tiers = tiers.astype(np.int64)
    return np.where(tiers > -2, tiers, 99).min(1) < tiers.max(1)


def best_tier(batch: dict[str, np.ndarray]) -> torch.Tensor:
    """Each position's steps of its best tier."""
    tiers = torch.as_tensor(batch["tiers"].astype(np.int64))
    return tiers == tiers.max(1, keepdim=True).values


def allowed_steps(batch: dict[str, np.ndarray], best: torch.Tensor | None = None) -> torch.Tensor:
    """The steps the expert's share of a position's target spreads over: its best tier
    (``best``, else :func:`best_tier`), narrowed to the steps that begin the expert's turn
    where it has them (all of those where none is in the best tier: the expert, searching
    deeper, knows better)."""
    best = best_tier(batch) if best is None else best
    if "expert" not in batch:
        return best
    chosen = torch.as_tensor(batch["expert"])
    both = chosen & best
    return torch.where(both.any(1, keepdim=True), both,
                       torch.where(chosen.any(1, keepdim=True), chosen, best))  # fmt: skip


@torch.no_grad()
def targets_of(
    batch: dict[str, np.ndarray], teacher: Any | None = None, expert_weight: float = 1.0
) -> torch.Tensor:
    """The fit's policy targets: the ``teacher``'s softmax (uniform without one) narrowed to
    the best tier, mixed with weight ``expert_weight`` with the same narrowed to
    :func:`allowed_steps` (the expert's steps) where a position has expert labels."""
    best = best_tier(batch)
    scores = forward(teacher, batch)[0] if teacher is not None else torch.zeros(best.shape)
    out = torch.softmax(scores.masked_fill(~best, -torch.inf), 1)
    if "expert" in batch and expert_weight > 0:
        expert = torch.softmax(scores.masked_fill(~allowed_steps(batch, best), -torch.inf), 1)
        out = (1 - expert_weight) * out + expert_weight * expert
    return out


@torch.no_grad()
def logits_of(policy: Any, batch: dict[str, np.ndarray], mirror: bool = False) -> torch.Tensor:
    """The policy's logits for stored samples; with ``mirror`` the mean of the logits of
    each position and (mapped back) of its reflection."""
    logits, _ = forward(policy, batch)
    if mirror:
        flipped, _ = forward(policy, reflect(batch, np.ones(len(batch["values"]), bool)))
        logits = mirror_mean(logits, flipped)
    return logits


def fit(
    policy: Any,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int = 256,
    lr: float = 1e-3,
    value_weight: float = 0.25,
    seed: int = 0,
    teacher: Any | None = None,
    support_weight: float = 0.0,
    mirror: bool = False,
    expert_weight: float = 1.0,
) -> list[float]:
    """Adam on cross-entropy against each position's best tier (uniform over it, or with a
    ``teacher`` policy its softmax narrowed to the best tier: the teacher's choice under
    the shield), plus ``support_weight`` times minus the log of the policy's mass on the
    best tier and ``value_weight`` times the squared error of the value against the game's
    result; the mean policy loss (the cross-entropy) of each epoch. Where positions have
    expert labels, ``expert_weight`` of the target is narrowed to them (:func:`targets_of`).
    With ``mirror`` each position is reflected (:func:`reflect`) with chance one half, each
    time it is drawn."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    steps = epochs * ((len(data["values"]) + batch_size - 1) // batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, lr, total_steps=steps)
    policy.set_training_mode(True)
    losses = []
    with tqdm(total=steps, desc="fit") as bar:
        for _ in range(epochs):
            order = rng.permutation(len(data["values"]))
            total = 0.0
            for start in range(0, len(order), batch_size):
                batch = {k: v[order[start : start + batch_size]] for k, v in data.items()}
                if mirror:
                    batch = reflect(batch, rng.random(len(batch["values"])) < 0.5)
                batch["targets"] = targets_of(batch, teacher, expert_weight)
                policy_loss = update(policy, optimizer, batch, value_weight, support_weight)[
                    "policy_loss"
                ]
                schedule.step()
                total += policy_loss * len(batch["values"])
                bar.update()
                bar.set_postfix(loss=f"{policy_loss:.3f}")
            losses.append(total / len(order))
    policy.set_training_mode(False)
    return losses


@torch.no_grad()
def score(policy: Any, data: dict[str, np.ndarray], mirror: bool = False) -> dict[str, Any]:
    """On the critical positions of ``data`` (module doc): how many, and the share (with a
    Wilson interval) where the likeliest legal step is in the best tier; also where the best
    tier kills and where it is safe. With ``mirror``, the step of :func:`logits_of`'s mean."""
    policy.set_training_mode(False)
    tiers = data["tiers"].astype(np.int64)
    best = tiers.max(1)
    critical = critical_rows(tiers)
    chosen = np.empty(len(best), np.int64)
    for start in range(0, len(best), 1024):
        batch = {k: v[start : start + 1024] for k, v in data.items()}
        logits = logits_of(policy, batch, mirror)
        chosen[start : start + 1024] = (
            logits.masked_fill(~torch.as_tensor(batch["masks"]), -torch.inf).argmax(1).numpy()
        )
    hit = tiers[np.arange(len(best)), chosen] == best
    out: dict[str, Any] = {"positions": len(best)}
    for name, rows in [
        ("critical", critical),
        ("kill", critical & (best == KILL)),
        ("safe", critical & (best == SAFE)),
    ]:
        n, k = int(rows.sum()), int(hit[rows].sum())
        low, high = wilson(k, n) if n else (0.0, 0.0)
        out[name] = {"positions": n, "hit": k / n if n else 0.0, "low": low, "high": high}
    if "expert" in data and data["expert"].any():
        rows = data["expert"].any(1)
        n, k = int(rows.sum()), int(data["expert"][np.arange(len(best)), chosen][rows].sum())
        low, high = wilson(k, n)
        out["expert"] = {"positions": n, "hit": k / n, "low": low, "high": high}
    return out


#: The tower's tensors, whose sizes follow its width: they may grow on a carry-over.
TOWER = re.compile(r"(stem\.0|tower\.\d+\.conv[12]|head\.1|steps\.conv)\.(weight|bias)$")
#: The second convolution of a residual block: zero in a new block, which so passes its
#: (non-negative) input through unchanged.
NEW_BLOCK = re.compile(r"tower\.\d+\.conv2\.(weight|bias)$")


def _grown(name: str, old: torch.Tensor, fresh: torch.Tensor) -> torch.Tensor | None:
    """``old`` in the leading corner of ``fresh`` (a tensor of a tower at least as wide,
    or a stem reading more planes): the old units keep their weights and read the new
    inputs with zeros, the new units keep ``fresh``'s; None where ``old`` does not fit."""
    if name.endswith("head.1.weight"):  # reads the flattened [channels, 9, 9] features
        cells = OBS_SHAPE[1] * OBS_SHAPE[2]
        old, grown = old.view(len(old), -1, cells), fresh.clone().view(len(fresh), -1, cells)
    else:
        grown = fresh.clone()
    if old.dim() != grown.dim() or any(o > n for o, n in zip(old.shape, grown.shape, strict=True)):
        return None
    if old.dim() > 1:
        grown[: len(old)] = 0  # the old units read the new inputs with zeros
    grown[tuple(slice(size) for size in old.shape)] = old
    return grown.view(fresh.shape)


def carry_over(source: Any, target: Any) -> int:
    """Copy into ``target`` every tensor of ``source`` with the same name and size (a new
    policy head starts fresh over the old tower); how many were copied. A wider or deeper
    tower, or a stem that reads more planes (``inputs="lines"``), keeps the old weights,
    with zeros where old units would read new ones and in each new block's second
    convolution, so the network starts out playing exactly as ``source``; tensors that
    shrink start fresh."""
    own, old = target.state_dict(), source.state_dict()
    kept = {}
    for name, tensor in old.items():
        if name not in own:
            continue
        if own[name].shape == tensor.shape:
            kept[name] = tensor
        elif TOWER.search(name) and (grown := _grown(name, tensor, own[name])) is not None:
            kept[name] = grown
    deeper = {
        n: torch.zeros_like(t) for n, t in own.items() if n not in old and NEW_BLOCK.search(n)
    }
    target.load_state_dict({**kept, **deeper}, strict=False)
    return len(kept)


def blunders(log: str | Path, player: str) -> dict[str, int]:
    """On the positions ``player`` met in the games of an evaluation's ``games.txt``: the
    critical ones (some legal step below the best tier) and those where its step fell below
    the best tier (a blunder); games played, won, and won or played without a blunder."""
    games = parse_headed_games(read_text(log, "game log"), str(log))
    tactics = CompiledTactics()
    tiers = np.empty(NUM_ACTIONS, np.int8)
    out = dict.fromkeys(("games", "wins", "critical", "blunders", "clean", "clean_wins"), 0)
    for head, start, steps in games:
        mine = [SEATS.index(seat) for seat, name in head.seated.items() if name == player]
        if len(mine) != 1:
            continue
        state, missed = from_spn(start), 0
        for step in steps:
            sid = step_id(state, step)
            if state.to_move == mine[0]:
                tactics.labels(state, tiers)
                legal = tiers[tiers > -2]
                if legal.min() < legal.max():
                    out["critical"] += 1
                    missed += tiers[step_id_to_action(mine[0], sid)] < legal.max()
            state.apply(sid)
        won = head.winner == player
        out["games"] += 1
        out["wins"] += won
        out["blunders"] += missed
        out["clean"] += not missed
        out["clean_wins"] += won and not missed
    return out


def format_score(name: str, result: dict[str, Any]) -> str:
    parts = [
        f"{key} {r['hit']:.1%} ({r['low']:.1%}-{r['high']:.1%}) of {r['positions']}"
        for key in ("critical", "kill", "safe", "expert")
        if key in result
        for r in [result[key]]
    ]
    return f"{name}: " + ", ".join(parts)


# --- the perception phase of self-play PPO (training.train, config section perception) -------


def rollout_samples(
    positions: np.ndarray,
    observations: np.ndarray,
    masks: np.ndarray,
    fraction: float,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """The critical positions among a random ``fraction`` of a PPO rollout's, with their
    tier labels: ``positions`` are the batched engine's game rows the learner acted in
    (``[n_steps, n_envs, row]``, :meth:`training.selfplay.SelfPlayVecEnv.take_positions`),
    ``observations`` and ``masks`` the rollout buffer's for the same steps."""
    rows = positions.reshape(-1, positions.shape[-1])
    chosen = np.flatnonzero(rng.random(len(rows)) < fraction)
    tiers = np.empty((len(chosen), NUM_ACTIONS), dtype=np.int8)
    for k, index in enumerate(chosen.tolist()):
        tier_labels(np.ascontiguousarray(rows[index]), tiers[k], new_memo())
    critical = critical_rows(tiers)
    kept = chosen[critical]
    planes = observations.reshape(len(rows), *OBS_SHAPE)[kept]
    return {
        "planes": planes,
        "turns": planes[:, PLANE_TURN, 0, 0].copy(),
        "masks": masks.reshape(len(rows), NUM_ACTIONS)[kept] > 0,
        "tiers": tiers[critical],
        "values": np.zeros(len(planes), dtype=np.float32),
    }


def perception_phase(
    policy: Any,
    optimizer: torch.optim.Optimizer,
    samples: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Fit ``policy`` on ``samples`` (:func:`rollout_samples`) to the step the shield would
    let it take: its likeliest step, as it is now, within each position's best tier
    (cross-entropy). Returns the number of positions, the share whose likeliest step was
    already in the best tier, the policy's mean entropy on them (both before the phase) and
    the mean loss.

    The target is that one step rather than the policy narrowed to the tier: fitted to the
    narrowed policy, the policy spread its mass over more steps everywhere (its entropy in
    self-play rose from 0.4 to 0.7 in 40,000 steps, against 0.5 without the phase)."""
    count = len(samples["values"])
    if not count:
        return {"positions": 0}
    logits = logits_of(policy, samples).masked_fill(~torch.as_tensor(samples["masks"]), -torch.inf)
    best = best_tier(samples)
    choice = logits.masked_fill(~best, -torch.inf).argmax(1)
    entropy = torch.special.entr(torch.softmax(logits, 1)).sum(1)
    targets = torch.nn.functional.one_hot(choice, NUM_ACTIONS).float().numpy()
    samples = {**samples, "targets": targets}
    policy.set_training_mode(True)
    total, updates = 0.0, 0
    for _ in range(epochs):
        order = rng.permutation(count)
        for start in range(0, count, batch_size):
            batch = {k: v[order[start : start + batch_size]] for k, v in samples.items()}
            total += update(policy, optimizer, batch, 0.0)["policy_loss"]
            updates += 1
    policy.set_training_mode(False)
    return {
        "positions": count,
        "best_tier_share": best.gather(1, logits.argmax(1, keepdim=True)).float().mean().item(),
        "entropy": entropy.mean().item(),
        "loss": total / updates,
    }


# --- command line ---------------------------------------------------------------------------


def check_tower(
    args: argparse.Namespace, parser: argparse.ArgumentParser, init: Checkpoint | None
) -> None:
    """Refuse by name a tower size that is not positive, or smaller than ``init``'s (the
    loaded ``--init``)."""
    for flag, size in (("--channels", args.channels), ("--blocks", args.blocks)):
        if size is not None and size < 1:
            parser.error(f"{flag} {size}: expected a positive number")
    if init:
        old = shape_of(init.policy.state_dict())
        for flag, size, before in (("--channels", args.channels, old.channels),
                                   ("--blocks", args.blocks, old.blocks)):  # fmt: skip
            if size is not None and size < before:
                parser.error(f"{flag} {size}: --init {args.init} has {before}; a network "
                             "carried over can grow, not shrink")  # fmt: skip


def starting_network(args: argparse.Namespace, init: Checkpoint | None, players: int = 2) -> tuple:
    """The network ``fit`` starts from (fresh, for ``players``, or ``init``'s, the loaded
    ``--init``, carried over into the shape asked for; :func:`check_tower` first), its
    shape, and its number of players and turn limit."""
    if not init:
        shape = NetworkShape(args.channels or 32, args.blocks or 3,
                             policy_head=args.policy_head, inputs=args.inputs or "planes")  # fmt: skip
        return build_policy(shape), shape, players, 200
    old = shape_of(init.policy.state_dict())
    shape = replace(old, policy_head=args.policy_head, inputs=args.inputs or old.inputs,
                    channels=args.channels or old.channels, blocks=args.blocks or old.blocks)  # fmt: skip
    policy = build_policy(shape)
    print(f"from {args.init}: {carry_over(init.policy, policy)} of its tensors kept")
    return policy, shape, init.meta["num_players"], init.meta["max_turns"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.perception", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("label", help="play and label games")
    make.add_argument("--players", nargs="+", default=["greedy", "search:easy", "search:medium"])
    make.add_argument("--num-players", type=int, default=2, choices=(2, 3, 4))
    make.add_argument("--games", type=int, default=200)
    make.add_argument("--explore", type=float, default=0.2)
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--workers", type=int, default=1)
    make.add_argument(
        "--expert",
        help="also label each position with the steps that begin the turn this compiled bot "
        "chooses (search:expert, search:expert=N, search:hard, ...)",
    )
    make.add_argument("--out", type=Path, required=True)
    train = commands.add_parser("fit", help="fit a network to the best tiers")
    train.add_argument("--data", type=Path, action="append", required=True, help="repeatable")
    train.add_argument(
        "--init",
        help="a player file to start from: its shape with --policy-head (a new head "
        "starts fresh over its tower)",
    )
    train.add_argument(
        "--channels", type=int, help="tower width (default: --init's, else 32); grows --init's"
    )
    train.add_argument(
        "--blocks", type=int, help="residual blocks (default: --init's, else 3); grows --init's"
    )
    train.add_argument("--policy-head", choices=POLICY_HEADS, default="steps")
    train.add_argument(
        "--inputs",
        choices=INPUTS,
        help="planes, or lines (with LinePlanes; from --init: its stem keeps its weights, "
        "zeros on the new planes); default: --init's, else planes",
    )
    train.add_argument(
        "--teacher", help="a player file whose policy, narrowed to the best tier, is the target"
    )
    train.add_argument(
        "--support-weight", type=float, default=0.0, help="weight of -log(mass on the best tier)"
    )
    train.add_argument(
        "--mirror",
        action="store_true",
        help="reflect each drawn position with chance 1/2 (2-player labels only)",
    )
    train.add_argument(
        "--expert-weight",
        type=float,
        default=1.0,
        help="share of the target narrowed to the expert's steps, where the labels have them "
        "(label --expert); the rest spreads over the best tier (0 to 1)",
    )
    train.add_argument("--epochs", type=int, default=4)
    train.add_argument("--lr", type=float, default=1e-3)
    train.add_argument(
        "--held-out",
        type=float,
        default=0.1,
        help="share of the games kept out of the fit and scored: the last ones, in --data order",
    )
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--out", type=Path, required=True)
    blunder = commands.add_parser(
        "blunders", help="blunders of a player in an evaluation's games.txt"
    )
    blunder.add_argument("log", type=Path)
    blunder.add_argument("--player", required=True, help="the agent's name in the log")
    judge = commands.add_parser("score", help="score player files on held-out positions")
    judge.add_argument("--data", type=Path, action="append", required=True, help="repeatable")
    judge.add_argument(
        "--held-out", type=float, default=0.1, help="share of the games scored: the last ones"
    )
    judge.add_argument(
        "--mirror",
        action="store_true",
        help="also score the mean of each position's and its reflection's logits",
    )
    judge.add_argument("checkpoints", nargs="+")
    args = parser.parse_args(argv)
    torch.set_num_threads(1 if args.command == "label" else 2)
    if args.command == "label":
        for player in args.players:
            try:
                make_agent(player)
            except (ValueError, KeyError) as err:
                parser.error(f"--players: {err}")
        if args.expert:
            try:
                expert_bot(args.expert)
            except ValueError as err:
                parser.error(f"--expert: {err}")
        started = time.time()
        data = label(args.players, args.num_players, args.games, args.seed, args.explore,
                     workers=args.workers, expert=args.expert)  # fmt: skip
        save_labels(data, args.out)
        print(f"{len(data['values'])} positions from {args.games} games in "
              f"{time.time() - started:.0f} s: {args.out}")  # fmt: skip
        return
    if args.command == "blunders":
        b = blunders(args.log, args.player)
        if not b["games"]:
            parser.error(f"{args.player!r} played no game in {str(args.log)!r}")
        print(
            f"{args.player}: {b['games']} games, {b['wins']} won; {b['critical']} critical "
            f"positions ({b['critical'] / b['games']:.1f} a game), {b['blunders']} blunders "
            f"({b['blunders'] / max(b['critical'], 1):.1%}); {b['clean']} games without a "
            f"blunder, {b['clean_wins']} of them won"
        )
        return
    # every network named (--init, --teacher, or the files to score), loaded once
    named = [(flag, getattr(args, flag[2:], None)) for flag in ("--init", "--teacher")]
    named += [("checkpoint", path) for path in getattr(args, "checkpoints", [])]
    network = functools.cache(load_checkpoint)
    init = network(args.init) if getattr(args, "init", None) else None
    if args.command == "fit":
        if not 0 <= args.expert_weight <= 1:
            parser.error(f"--expert-weight {args.expert_weight}: expected a share from 0 to 1")
        check_tower(args, parser, init)
    try:
        data = [load_labels(path) for path in args.data]
    except ValueError as err:
        parser.error(f"--data: {err}")
    counts = {path: sorted(set(np.unique(d["players"]).tolist()))
              for path, d in zip(args.data, data, strict=True)}  # fmt: skip
    players = sorted({n for c in counts.values() for n in c})
    if len(players) > 1:
        parser.error(f"--data: the files hold games of different numbers of players ({counts}); "
                     "a network plays one table size: expected files of one")  # fmt: skip
    players = players[0]
    if args.mirror and players != 2:
        parser.error(f"--mirror: the labels hold positions of {players} players, which a "
                     "reflection does not preserve (turn order); expected 2-player labels")  # fmt: skip
    for flag, path in named:
        if path and (n := network(path).meta["num_players"]) != players:
            parser.error(f"{flag} {path}: a {n}-player network, but the labels are of "
                         f"{players}-player games")  # fmt: skip
    if args.command == "fit":
        policy, shape, num_players, max_turns = starting_network(args, init, players)
    games = np.cumsum([0] + [int(d["games"].max()) + 1 for d in data[:-1]])
    if any("expert" in d for d in data):
        for d in data:
            d.setdefault("expert", np.zeros_like(d["masks"]))
    merged = {k: np.concatenate([d[k] for d in data]) for k in data[0]}
    merged["games"] = np.concatenate([d["games"] + g for d, g in zip(data, games, strict=True)])
    train_data, held = split(merged, args.held_out)
    if args.command == "score":
        for path in args.checkpoints:
            policy = network(path).policy
            print(format_score(path, score(policy, held)))
            if args.mirror:
                print(format_score(f"{path} (mirror mean)", score(policy, held, mirror=True)))
        return
    started = time.time()
    teacher = network(args.teacher).policy if args.teacher else None
    losses = fit(policy, train_data, args.epochs, lr=args.lr, seed=args.seed, teacher=teacher,
                 support_weight=args.support_weight, mirror=args.mirror,
                 expert_weight=args.expert_weight)  # fmt: skip
    result = score(policy, held)
    hours = (time.time() - started) / 3600
    print(format_score("held out", result))
    if value_spread(policy, num_players) < DEAD_VALUE_SPREAD:
        print("warning: its value head gives the same value in every position (its units died "
              "in the fit); PPO from this file starts the value head fresh (init_value: auto)")  # fmt: skip
    save_player(policy, args.out, shape, num_players, max_turns, trainer="training.perception",
                perception={"data": [str(p) for p in args.data], "positions":
                            len(train_data["values"]), "teacher": args.teacher,
                            "support_weight": args.support_weight, "mirror": args.mirror,
                            "expert_weight": args.expert_weight, "epochs": args.epochs,
                            "losses": losses, "held_out": result, "hours": hours})  # fmt: skip
    print(f"fitted in {hours:.2f} h: {args.out}")


if __name__ == "__main__":
    main()
