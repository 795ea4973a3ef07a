"""Search-based self-play (expert iteration, as AlphaZero, Polygames and KataGo): the network
plays against itself through the tree search (:class:`splut_env.players.mcts.MCTSAgent`), and
is trained towards the search's visit distribution and the games' results.

    python -m training.expert_iteration --config configs/splut/exit_2p.yaml
    python -m training.expert_iteration --resume runs/<run folder>

Each iteration plays ``games`` games, spread over ``workers`` processes, each worker loading
the latest network from the run's player file. **Playout-cap randomisation** (KataGo): a step
gets a full search (``full_simulations``, Dirichlet noise at the root) with chance
``p_full`` and becomes a training sample (planes, legal mask, visit distribution); the other
steps get a cheap search (``fast_simulations``) and are only played, so games are cheap and
targets good. The first ``sample_steps`` steps of a game are drawn from the visit counts,
later ones are the most visited; games start after ``opening_steps`` random steps. When a
game ends, each of its samples gets the result for its mover (+1 win, -1 loss, 0 draw) as
the value target. Samples go into a **replay buffer** of the last ``replay_size``; each
iteration then makes Adam steps on minibatches drawn from it, as many as train each new
sample ``sample_reuse`` times on average: cross-entropy of the policy against the visit
distribution plus ``value_weight`` times the squared error of the value. The value head so learns the game result without shaping (player files say
``reward_shaping: 0``), which is what the search wants at its leaves.

With ``targets: shield`` the improvement operator is the shield instead of the search
(:class:`splut_env.players.tactics.ShieldedAgent`, exact and a few turns deep): the network
plays alone (no search) against opponents drawn from ``opponents`` (``self`` or bots), and
each of its steps becomes a sample whose target is its own policy narrowed as the shield
narrows it: to the steps whose turn can still kill, else end safe from a kill (the tiers of
:func:`splut_env.batched.shield.tier_labels`), and, with two players, without the likeliest
safe steps whose turns all end in a forced loss (``escape_searches`` kill checks per turn).
The labels fall on the positions the network's own play reaches (DAgger), so it learns to
avoid its own blunders; the opponents' steps are played, not learnt.

Every ``eval.every`` iterations the network alone (its most likely step, no search) plays
``eval.games`` games against each of ``eval.bots`` from random openings; the results, and a
rating against the bots' fixed ladder ratings (``eval.ladder``), go to ``eval.csv``,
TensorBoard (``tb/``) and the learning curve. Everything the run needs to go on is written
after every iteration: ``player.zip`` (the network, in the safe player format),
``optimizer.safetensors``, ``replay.npz`` (read back without pickle) and ``state.json``;
``--resume`` goes on from there. At the end: ``MODEL_CARD.md`` and ``learning_curve.png``.

**Other games** (``game: talat``; any game of the core whose ``Game.chance`` is false and
that has a training kit, :mod:`training.kits`): the same loop with the core's search,
:class:`tabletop.mcts.MCTS`, over the game's descriptor, and the network, its player files
and ``init_from`` through the game's kit. Samples hold the mover's observation (as
``float16``, of the game's ``observation_shape``), its legal mask and the visit
distribution; a position with one legal action (a forced pass) is played without a search
and is no sample. The value target is :meth:`Game.rewards` of the finished game for the
sample's mover (0 for a game cut at ``max_turns``). Self-play only (``targets: search``):
``targets: shield`` is Splut!'s. A game of chance is refused: its deal and hidden cards
would be in the position the search plans on.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from safetensors.torch import load_file, save_file
from tqdm import tqdm

from splut_env.batched.shield import CompiledTactics
from splut_env.encoding import (
    NUM_ACTIONS,
    OBS_SHAPE,
    PLANE_TURN,
    action_mask,
    action_to_step_id,
    observation_planes,
)
from splut_env.players import make_agent
from splut_env.players.checkpoint import load_checkpoint
from splut_env.players.mcts import MCTSAgent
from splut_env.players.network import NetworkShape
from splut_env.rules import State, from_spn
from tabletop.games import Game, get_game
from tabletop.mcts import MCTS, Evaluator
from training.config import ConfigError, ExItConfig, load_config
from training.evaluate import evaluate_agent, random_opening
from training.kits import training_kit
from training.pretrain import load_start, start_value_head
from training.reports import plot_ladder_ratings, value_start, versions
from training.stats import ladder_rating, wilson

# --- self-play (in worker processes) ---------------------------------------------------------


def play_game(job: tuple[str, ExItConfig, int]) -> tuple[dict[str, np.ndarray], int]:
    """One game of the network in the player file ``job[0]``, as ``targets`` says: its
    training samples and its number of steps (moves of a game other than Splut!)."""
    if job[1].game != "splut":
        return play_core_game(job)
    return play_search_game(job) if job[1].targets == "search" else play_shield_game(job)


def play_search_game(job: tuple[str, ExItConfig, int]) -> tuple[dict[str, np.ndarray], int]:
    """One self-play game of the network in the player file ``job[0]`` through the search
    (module doc): its training samples (planes as uint8 with the turn fraction apart) and
    its number of steps."""
    player, config, seed = job
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    agent = MCTSAgent(load_checkpoint(player).agent(), c_puct=config.c_puct)
    start = random_opening(config.num_players, config.opening_steps, seed)
    state = from_spn(start) if start else State.initial(config.num_players)
    samples: list[tuple] = []
    steps = 0
    while not state.is_over() and state.turn <= config.max_turns:
        full = rng.random() < config.p_full
        visits = agent.search(
            state,
            config.full_simulations if full else config.fast_simulations,
            noise=(config.dirichlet_alpha, config.dirichlet_fraction, rng) if full else None,
        )
        seat = state.to_move
        probs = visits / visits.sum()
        if full:
            planes = observation_planes(state, seat, config.max_turns)
            samples.append((planes, action_mask(state, seat), probs, seat))
        if steps < config.sample_steps:
            action = int(rng.choice(NUM_ACTIONS, p=probs))
        else:
            action = int(np.argmax(visits))
        state.apply(action_to_step_id(seat, action))
        steps += 1
    return game_samples(samples, state), steps


def play_shield_game(job: tuple[str, ExItConfig, int]) -> tuple[dict[str, np.ndarray], int]:
    """One game of the network alone against opponents drawn from ``opponents`` (module
    doc): at each of its steps the sample's target is its own policy narrowed as the shield
    narrows it: to the steps of the best tier (:func:`splut_env.batched.shield.tier_labels`),
    and with two players, when that is a safe turn, without its likeliest steps whose turns
    all end in a forced loss. It plays its own policy, drawn for the first ``sample_steps``
    steps and the likeliest after."""
    player, config, seed = job
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    agent = load_checkpoint(player).agent()
    start = random_opening(config.num_players, config.opening_steps, seed)
    state = from_spn(start) if start else State.initial(config.num_players)
    learner = int(rng.choice(state.alive_seats()))
    opponents = {
        s: config.opponents[rng.integers(len(config.opponents))]
        for s in state.alive_seats()
        if s != learner
    }
    bots = {
        s: make_agent(name, seed=int(rng.integers(2**31)))
        for s, name in opponents.items()
        if name != "self"
    }
    tactics = CompiledTactics(budget=config.escape_searches)
    tiers = np.empty(NUM_ACTIONS, np.int8)
    samples: list[tuple] = []
    steps = taken = 0
    while not state.is_over() and state.turn <= config.max_turns:
        seat = state.to_move
        if seat in bots:
            state.apply(action_to_step_id(seat, bots[seat].act(state)))
            steps += 1
            continue
        planes = observation_planes(state, seat, config.max_turns)
        mask = action_mask(state, seat)
        logits = agent.logits(planes[None])[0].astype(np.float64)
        tactics.labels(state, tiers)
        allowed = tiers == tiers.max()
        if tiers.max() == 1 and len(state.alive_seats()) == 2 and config.escape_searches:
            allowed = _escaping(state, tactics, logits, allowed)
        samples.append((planes, mask, _softmax(logits, allowed), seat))
        if taken < config.sample_steps:
            action = int(rng.choice(NUM_ACTIONS, p=_softmax(logits, mask.astype(bool))))
        else:
            action = int(np.argmax(np.where(mask, logits, -np.inf)))
        state.apply(action_to_step_id(seat, action))
        steps += 1
        taken += 1
    return game_samples(samples, state), steps


def _escaping(
    state: State, tactics: CompiledTactics, logits: np.ndarray, allowed: np.ndarray
) -> np.ndarray:
    """``allowed`` without the steps that, tried from the likeliest, only lead to turns the
    opponent answers with a forced loss (:meth:`CompiledTactics.escapes`), up to the first
    that escapes (as the shield asks again); all of ``allowed`` when none escapes."""
    narrowed = allowed.copy()
    for action in np.argsort(-np.where(allowed, logits, -np.inf))[: int(allowed.sum())]:
        if tactics.escapes(state, action_to_step_id(state.to_move, int(action))):
            return narrowed
        narrowed[action] = False
    return allowed


def _softmax(logits: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """The softmax of ``logits`` over the ``allowed`` entries (zero elsewhere)."""
    z = np.where(allowed, logits, -np.inf)
    z = np.exp(z - z.max())
    return (z / z.sum()).astype(np.float32)


def game_samples(
    samples: list[tuple], state: State, target: tuple[str, type] = ("targets", np.float32)
) -> dict[str, np.ndarray]:
    """A game's ``(planes, mask, target, seat)`` samples as the replay buffer's fields (the
    target under ``target``'s name and type), each valued by the game's result for its
    seat."""
    winner = state.winner() if state.is_over() else -1
    name, dtype = target
    return {
        "planes": np.array([p.astype(np.uint8) for p, *_ in samples], np.uint8).reshape(
            -1, *OBS_SHAPE
        ),
        "turns": np.array([p[PLANE_TURN, 0, 0] for p, *_ in samples], np.float32),
        "masks": np.array([m for _, m, _, _ in samples], bool).reshape(-1, NUM_ACTIONS),
        name: np.array([t for _, _, t, _ in samples], dtype).reshape(-1, NUM_ACTIONS),
        "values": np.array(
            [0.0 if winner < 0 else 1.0 if s == winner else -1.0 for *_, s in samples],
            np.float32,
        ),
    }


def network_evaluator(policy: Any) -> Evaluator:
    """The search's evaluator over an SB3 policy of a core game: its logits and values for
    a batch of observations (the masks are applied by the search)."""

    @torch.no_grad()
    def evaluate(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = torch.as_tensor(observations, dtype=torch.float32)
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
        return policy.action_net(latent_pi).numpy(), policy.value_net(latent_vf).numpy()[:, 0]

    return evaluate


def play_core_game(job: tuple[str, ExItConfig, int]) -> tuple[dict[str, np.ndarray], int]:
    """One self-play game of a core game (module doc) through :class:`tabletop.mcts.MCTS`,
    the network in the player file ``job[0]``: its training samples and its number of
    moves."""
    player, config, seed = job
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    game = get_game(config.game)
    policy = training_kit(config.game).load_checkpoint(player).policy
    search = MCTS(game, network_evaluator(policy), config.max_turns, c_puct=config.c_puct)
    start = random_opening(config.num_players, config.opening_steps, seed, game=game)
    state = game.from_text(start) if start else game.initial_state(config.num_players)
    counted = game.turn(state) is None  # no turn counter in the position: count the moves
    samples: list[tuple] = []
    moves = searched = 0
    while (seat := game.player_to_move(state)) is not None and (
        moves if counted else game.turn(state)
    ) <= config.max_turns:
        seen = game.observe(state, seat, config.max_turns)
        mask = np.asarray(seen["action_mask"], dtype=bool)
        legal = np.flatnonzero(mask)
        if len(legal) == 1:  # forced (a pass): played, neither searched nor learnt
            action = int(legal[0])
        else:
            full = rng.random() < config.p_full
            visits = search.search(
                state,
                config.full_simulations if full else config.fast_simulations,
                noise=(config.dirichlet_alpha, config.dirichlet_fraction, rng) if full else None,
                moves=moves,
            )
            probs = visits / visits.sum()
            if full:
                samples.append((seen["observation"], mask, probs, seat))
            if searched < config.sample_steps:
                action = int(rng.choice(len(probs), p=probs))
            else:
                action = int(np.argmax(visits))
            searched += 1
        game.play_action(state, action, who="expert iteration's self-play")
        moves += 1
    return core_samples(game, samples, state), moves


def core_samples(game: Game, samples: list[tuple], state: Any) -> dict[str, np.ndarray]:
    """A core game's ``(observation, mask, target, player)`` samples as the replay buffer's
    fields (:func:`buffer_fields`), each valued by the game's rewards for its player (0 for
    all in a game cut before its end)."""
    over = game.player_to_move(state) is None
    rewards = game.rewards(state) if over else [0.0] * game.num_players(state)
    actions = game.num_actions
    return {
        "observations": np.array([o for o, *_ in samples], np.float16).reshape(
            -1, *game.observation_shape
        ),
        "masks": np.array([m for _, m, _, _ in samples], bool).reshape(-1, actions),
        "targets": np.array([t for _, _, t, _ in samples], np.float32).reshape(-1, actions),
        "values": np.array([rewards[p] for *_, p in samples], np.float32),
    }


# --- the replay buffer ------------------------------------------------------------------------

FIELDS = {
    "planes": ((*OBS_SHAPE,), np.uint8),
    "turns": ((), np.float32),
    "masks": ((NUM_ACTIONS,), np.bool_),
    "targets": ((NUM_ACTIONS,), np.float32),
    "values": ((), np.float32),
}
#: A field's shape per sample and type.
Fields = dict[str, tuple[tuple[int, ...], Any]]


def buffer_fields(config: ExItConfig) -> Fields:
    """The replay buffer's fields: Splut!'s :data:`FIELDS`, or for another game its
    observation (``float16``), legal mask, target and value."""
    if config.game == "splut":
        return FIELDS
    game = get_game(config.game)
    return {
        "observations": (tuple(game.observation_shape), np.float16),
        "masks": ((game.num_actions,), np.bool_),
        "targets": ((game.num_actions,), np.float32),
        "values": ((), np.float32),
    }


class ReplayBuffer:
    """The last ``capacity`` samples (a ring) of ``fields`` (Splut!'s by default), saved to
    and read from ``.npz`` without pickle."""

    def __init__(self, capacity: int, fields: Fields | None = None) -> None:
        self.capacity = capacity
        self.fields = FIELDS if fields is None else fields
        self.data = {
            k: np.zeros((capacity, *shape), dtype) for k, (shape, dtype) in self.fields.items()
        }
        self.size = 0
        self.next = 0
        self.added = 0

    def add(self, batch: dict[str, np.ndarray]) -> None:
        n = len(batch["values"])
        keep = min(n, self.capacity)  # of more samples than room, the newest
        slots = (self.next + n - keep + np.arange(keep)) % self.capacity
        for k in self.fields:
            self.data[k][slots] = batch[k][n - keep :]
        self.next = (self.next + n) % self.capacity
        self.size = min(self.size + n, self.capacity)
        self.added += n

    def sample(self, rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
        idx = rng.integers(0, self.size, n)
        return {k: v[idx] for k, v in self.data.items()}

    def save(self, path: Path) -> None:
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, **{k: v[: self.size] for k, v in self.data.items()},
                 meta=np.array([self.next, self.added]))  # fmt: skip
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path, capacity: int, fields: Fields | None = None) -> ReplayBuffer:
        buffer = cls(capacity, fields)
        with np.load(path, allow_pickle=False) as data:
            missing = sorted(set(buffer.fields) - set(data.files))
            if missing:
                raise ValueError(f"{str(path)!r} is not this run's replay buffer (no {missing})")
            size = min(len(data["values"]), capacity)
            for k in buffer.fields:
                buffer.data[k][:size] = data[k][:size]
            buffer.size = size
            buffer.next, buffer.added = (int(x) for x in data["meta"])
            buffer.next %= capacity
        return buffer


# --- training -----------------------------------------------------------------------------------


def forward(policy: Any, batch: dict[str, np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy's logits (unmasked) and values for a batch of stored samples (Splut!'s
    ``planes`` as ``uint8``, the turn plane restored from ``turns``; another game's
    ``observations``)."""
    if "planes" in batch:
        obs = torch.as_tensor(batch["planes"], dtype=torch.float32)
        obs[:, PLANE_TURN] = torch.as_tensor(batch["turns"])[:, None, None]
    else:
        obs = torch.as_tensor(batch["observations"]).float()
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
    return policy.action_net(latent_pi), policy.value_net(latent_vf).flatten()


def update(
    policy: Any,
    optimizer: torch.optim.Optimizer,
    batch: dict,
    value_weight: float,
    support_weight: float = 0.0,
) -> dict:
    """One Adam step towards the targets (the search's visit distribution, or the policy
    narrowed by the shield) and the games' results, plus ``support_weight`` times minus the
    log of the policy's mass on the steps the target allows; the losses, and how often the
    most likely step (before the step) is one the target allows."""
    logits, values = forward(policy, batch)
    logits = logits.masked_fill(~torch.as_tensor(batch["masks"]), -1e9)
    targets = torch.as_tensor(batch["targets"])
    log_probs = torch.log_softmax(logits, dim=1)
    policy_loss = -(targets * log_probs).sum(1).mean()
    support_loss = -torch.logsumexp(log_probs.masked_fill(targets <= 0, -1e9), dim=1).mean()
    value_loss = torch.nn.functional.mse_loss(values, torch.as_tensor(batch["values"]))
    loss = policy_loss + support_weight * support_loss + value_weight * value_loss
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
    optimizer.step()
    hit = targets.gather(1, logits.argmax(1, keepdim=True)) > 0
    return {
        "policy_loss": policy_loss.item(),
        "value_loss": value_loss.item(),
        "support_loss": support_loss.item(),
        "target_hit": hit.float().mean().item(),
    }


@dataclass
class RunState:
    iteration: int = 0
    games: int = 0
    steps: int = 0
    samples: int = 0
    wall_seconds: float = 0.0
    selfplay_seconds: float = 0.0
    update_seconds: float = 0.0
    evals: list[dict[str, float]] = field(default_factory=list)


def evaluate_network(policy: Any, config: ExItConfig, iteration: int) -> dict[str, float]:
    """The network alone (most likely step) against ``eval.bots``; win rates and rating."""
    agent = training_kit(config.game).policy_agent(policy, "network", True, config.max_turns)
    results = evaluate_agent(
        agent, config.eval.bots, config.num_players, config.eval.games,
        seed=10_000 + iteration, max_turns=config.max_turns, openings=config.eval.openings,
        game=config.game,
    )  # fmt: skip
    row = {"iteration": iteration}
    for bot, (wins, draws, games) in results.items():
        row[f"win_rate/{bot}"] = wins / games
        row[f"draws/{bot}"] = draws / games
    row["rating"] = ladder_rating(config.eval.ladder, results)
    return row


def train(config: ExItConfig, run_dir: Path, resume: bool = False) -> Path:
    """Run (or go on with) expert iteration in ``run_dir``; the final player file."""
    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    player = run_dir / "player.zip"
    state = RunState()
    fields = buffer_fields(config)
    if resume:
        policy = training_kit(config.game).load_checkpoint(player).policy
        state = RunState(**json.loads((run_dir / "state.json").read_text()))
        buffer = ReplayBuffer.load(run_dir / "replay.npz", config.replay_size, fields)
    else:
        run_dir.mkdir(parents=True, exist_ok=False)
        policy = new_policy(config)
        buffer = ReplayBuffer(config.replay_size, fields)
        save_network(policy, player, config, state)
    # On resume with its overrides, so that the next --resume goes on the same way.
    (run_dir / "config.yaml").write_text(yaml.safe_dump(asdict(config), sort_keys=False))
    optimizer = torch.optim.AdamW(
        policy.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    if resume and (run_dir / "optimizer.safetensors").exists():
        load_optimizer(optimizer, run_dir / "optimizer.safetensors")
    writer = SummaryWriter(str(run_dir / "tb"))
    rng = np.random.default_rng(config.seed * 7 + state.iteration)
    pool = None
    if config.workers > 1:
        context = torch.multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(config.workers, mp_context=context)
    try:
        while state.iteration < config.iterations:
            started = time.time()
            seeds = [config.seed * 1_000_003 + state.games + k for k in range(config.games)]
            jobs = [(str(player), config, seed) for seed in seeds]
            games = pool.map(play_game, jobs) if pool else map(play_game, jobs)
            new = 0
            for game, steps in tqdm(games, total=len(jobs), leave=False,
                                    desc=f"iteration {state.iteration + 1}/{config.iterations}"):  # fmt: skip
                buffer.add(game)
                new += len(game["values"])
                state.steps += steps
            torch.set_num_threads(config.torch_threads)
            played = time.time()
            policy.set_training_mode(True)
            losses = [
                update(
                    policy,
                    optimizer,
                    buffer.sample(rng, config.batch_size),
                    config.value_weight,
                    config.support_weight,
                )
                for _ in range(max(1, round(new * config.sample_reuse / config.batch_size)))
            ]
            policy.set_training_mode(False)
            state.iteration += 1
            state.games += config.games
            state.samples += new
            state.selfplay_seconds += played - started
            state.update_seconds += time.time() - played
            state.wall_seconds += time.time() - started
            mean = {k: float(np.mean([x[k] for x in losses])) for k in losses[0]}
            for k, v in mean.items():
                writer.add_scalar(f"train/{k}", v, state.iteration)
            writer.add_scalar("train/replay_size", buffer.size, state.iteration)
            print(
                f"iteration {state.iteration}: {new} samples ({buffer.size} in the buffer), "
                f"policy loss {mean['policy_loss']:.3f}, value loss {mean['value_loss']:.3f}, "
                f"support loss {mean['support_loss']:.3f}, "
                f"most likely step in the target {100 * mean['target_hit']:.1f} %, "
                f"{time.time() - started:.0f} s",
                flush=True,
            )
            if state.iteration % config.eval.every == 0 or state.iteration == config.iterations:
                row = evaluate_network(policy, config, state.iteration)
                state.evals.append(row)
                for k, v in row.items():
                    if k != "iteration" and not math.isnan(v):
                        writer.add_scalar(f"eval/{k}", v, state.iteration)
                print("evaluation:", ", ".join(f"{k} {v:.3g}" for k, v in row.items()), flush=True)
            save_network(policy, player, config, state)
            save_optimizer(optimizer, run_dir / "optimizer.safetensors")
            buffer.save(run_dir / "replay.npz")
            (run_dir / "state.json").write_text(json.dumps(asdict(state), indent=1))
    finally:
        if pool is not None:
            pool.shutdown()
    writer.close()
    plot_curve(run_dir / "learning_curve.png", state, config)
    (run_dir / "MODEL_CARD.md").write_text(model_card(config, state))
    return player


def new_policy(config: ExItConfig) -> Any:
    """The game's network from its kit: ``init_from``'s weights when set (its value head as
    ``init_value`` says, which it then records: ``auto`` starts it fresh when it gives the
    same value everywhere), else random."""
    kit = training_kit(config.game)
    policy = kit.build_policy(config.network)
    if not config.init_from:
        return policy
    if config.game == "splut":
        config.init_value = load_start(policy, config)
    else:
        config.init_value = start_value_head(
            policy,
            config.init_value,
            lambda: kit.load_start(policy, config),
            lambda: core_value_spread(policy, config),
        )
    return policy


def core_value_spread(policy: Any, config: ExItConfig) -> float:
    """The standard deviation of ``policy``'s value over positions of the game after 0, 4,
    8 and 16 random moves (16 of each, seeded): about 0 when its value head is dead."""
    game = get_game(config.game)
    rng = random.Random(config.seed)
    observations = []
    for steps in (0, 4, 8, 16):
        for _ in range(16):
            text = game.random_opening(config.num_players, steps, rng)
            if text is not None:
                state = game.from_text(text)
                seat = game.player_to_move(state)
                observations.append(game.observe(state, seat, config.max_turns)["observation"])
    _, values = network_evaluator(policy)(np.stack(observations), np.zeros(0))
    return float(np.std(values))


def start_network(config: ExItConfig) -> NetworkShape:
    """The network of ``config.init_from``, a player file of ``config.game`` for its table
    size; ``ConfigError`` (or the file's ``PlayerFileError``) naming the problem."""
    meta = training_kit(config.game).load_checkpoint(config.init_from).meta
    if meta["num_players"] != config.num_players:
        raise ConfigError(
            f"init_from {config.init_from!r} is for {meta['num_players']} players, "
            f"not {config.num_players}"
        )
    network = meta["network"]
    if config.game == "splut":
        return NetworkShape(**{**network, "value_hidden": tuple(network["value_hidden"])})
    if network.get("kind", "planes") != "planes":
        raise ConfigError(
            f"init_from {config.init_from!r} holds an {network['kind']!r} network; expert "
            "iteration trains planes networks"
        )
    return NetworkShape(
        channels=network["channels"],
        blocks=network["blocks"],
        features_dim=network["features_dim"],
        value_hidden=tuple(network["value_hidden"]),
        policy_head=network.get("policy_head", "linear"),
        stem=network.get("stem", 3),
    )


def save_network(policy: Any, path: Path, config: ExItConfig, state: RunState) -> None:
    training_kit(config.game).save_player(
        policy, path, config, steps=state.steps, run=config.name, seed=config.seed,
        trainer="expert_iteration", iterations=state.iteration, reward_shaping=0.0,
    )  # fmt: skip


def save_optimizer(optimizer: torch.optim.Optimizer, path: Path) -> None:
    """Adam's moments and step counts as safetensors (nothing pickled)."""
    tensors = {}
    for i, st in optimizer.state_dict()["state"].items():
        for k, v in st.items():
            tensors[f"{i}.{k}"] = torch.as_tensor(v).clone().contiguous()
    tmp = path.with_name(path.name + ".tmp")
    save_file(tensors, str(tmp))
    tmp.replace(path)


def load_optimizer(optimizer: torch.optim.Optimizer, path: Path) -> None:
    tensors = load_file(str(path))
    saved = optimizer.state_dict()
    state: dict[int, dict[str, torch.Tensor]] = {}
    for key, tensor in tensors.items():
        i, _, name = key.partition(".")
        state.setdefault(int(i), {})[name] = tensor
    saved["state"] = state
    optimizer.load_state_dict(saved)


def plot_curve(path: Path, state: RunState, config: ExItConfig) -> None:
    """Win rates of the network alone against each bot, and beside them its ladder rating
    when the run has one (``eval.ladder``: 2 players)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    its = [row["iteration"] for row in state.evals]
    ratings = [row["rating"] for row in state.evals]
    if any(math.isfinite(r) for r in ratings):
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
        plot_ladder_ratings(right, its, ratings, config.eval.ladder, "iteration")
    else:
        fig, left = plt.subplots(figsize=(6.5, 4))
    for bot in config.eval.bots:
        left.plot(
            its, [row.get(f"win_rate/{bot}", math.nan) for row in state.evals], "o-", label=bot
        )
    left.axhline(1 / config.num_players, color="grey", linestyle=":", label="chance")
    left.set_ylim(0, 1)
    left.set_xlabel("iteration")
    left.set_ylabel("win rate of the network alone")
    left.legend()
    fig.suptitle(f"{config.name}: expert iteration, {config.eval.games} games per bot per point")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def model_card(config: ExItConfig, state: RunState) -> str:
    """The run's model card (Markdown)."""
    splut = config.game == "splut"
    if config.targets == "search":
        samples = "full-search samples"
        teacher = (
            f"- search: PUCT{'' if splut else ' (tabletop.mcts)'}, {config.full_simulations} "
            f"simulations with chance {config.p_full} (training samples), else "
            f"{config.fast_simulations}; c_puct {config.c_puct}"
        )
    else:
        samples = "samples (every step of the network)"
        checked = (
            f"forced losses checked with {config.escape_searches} kill checks a turn when two "
            "players are left"
            if config.escape_searches
            else "no forced-loss check"
        )
        teacher = (
            f"- targets: the network's policy narrowed by the shield (best tier; {checked}), "
            f"support weight {config.support_weight}; opponents: {', '.join(config.opponents)}"
        )
    game = "" if splut else f" of {get_game(config.game).title}"
    network = training_kit(config.game).describe_network(config.network)
    lines = [
        f"# {config.name}: expert iteration{game} ({config.targets} targets), "
        f"{config.num_players} players",
        "",
        f"- {state.iteration} iterations, {state.games:,} games, {state.steps:,} steps, "
        f"{state.samples:,} {samples}; wall time {state.wall_seconds / 3600:.2f} h "
        f"(games {state.selfplay_seconds / 3600:.2f} h, updates "
        f"{state.update_seconds / 3600:.2f} h), {max(config.workers, 1)} game processes",
        teacher,
        f"- network: {network}; started from "
        + (f"{config.init_from}, {value_start(config)}" if config.init_from else "random weights"),
        f"- versions: {', '.join(f'{k} {v}' for k, v in versions().items())}",
        "",
        f"The network alone (most likely step) against the bots, {config.eval.games} games "
        f"each from {config.eval.openings}-step random openings, seats alternated:",
        "",
        "| iteration | " + " | ".join(config.eval.bots) + " | Elo (ladder) |",
        "|---|" + "---|" * (len(config.eval.bots) + 1),
    ]
    for row in state.evals:
        cells = []
        for bot in config.eval.bots:
            rate = row.get(f"win_rate/{bot}", math.nan)
            lo, hi = wilson(rate * config.eval.games, config.eval.games)
            cells.append(f"{100 * rate:.1f} % ({100 * lo:.0f}–{100 * hi:.0f})")
        rating = "–" if math.isnan(row["rating"]) else f"{row['rating']:+.0f}"
        lines.append(f"| {row['iteration']} | " + " | ".join(cells) + f" | {rating} |")
    lines += ["", "![learning curve](learning_curve.png)", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="a YAML config (configs/splut/exit_2p.yaml)")
    parser.add_argument("--resume", type=Path, help="a run folder to go on with")
    parser.add_argument("--runs", type=Path, default=Path("runs"), help="where runs go")
    parser.add_argument("overrides", nargs="*", help="key=value changes to the config")
    args = parser.parse_args(argv)
    if (args.config is None) == (args.resume is None):
        parser.error("give --config or --resume (one of them)")
    try:
        if args.resume is not None:
            path = args.resume / "config.yaml"
            if not path.is_file():
                raise ConfigError(f"--resume {str(args.resume)!r}: no config.yaml there")
            config = load_config(path, args.overrides, kind=ExItConfig)
            run_dir = args.resume
            for name in ("player.zip", "state.json", "replay.npz"):
                if not (run_dir / name).is_file():
                    raise ConfigError(
                        f"--resume {str(run_dir)!r}: no {name} there (a run folder has it after "
                        "its first iteration)"
                    )
        else:
            config = load_config(args.config, args.overrides, kind=ExItConfig)
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            run_dir = args.runs / f"{config.name}__seed{config.seed}__{stamp}"
        if config.init_from and args.resume is None:
            config.network = start_network(config)
    except (ConfigError, ValueError) as err:
        parser.error(str(err))
    print(f"run folder: {run_dir}", flush=True)
    player = train(config, run_dir, resume=args.resume is not None)
    print((run_dir / "MODEL_CARD.md").read_text())
    print(f"player: {player}")


if __name__ == "__main__":
    sys.exit(main())
