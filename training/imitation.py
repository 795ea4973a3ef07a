"""Warm start for any game on the core: imitate a teacher bot (behaviour cloning, then DAgger)
and fit the value head to the games' results, through the game's
:class:`~tabletop.games.Game` descriptor and its players. (Splut! has a faster path of its
own over its batched engine: :mod:`training.pretrain`.)

The teacher (``pretrain.teacher``, e.g. ``search:medium``) plays ``pretrain.games`` games
against itself; with probability ``pretrain.explore`` a move is replaced by a random legal one
so that the data also covers positions the teacher would not reach. Every position where a
player acted becomes one sample: that player's observation and mask, the teacher's action,
and the game's reward for that player discounted by the moves left (``gamma **
moves_to_end``). The policy is fitted with cross-entropy on the teacher's actions (masked),
the value head with mean squared error, for ``pretrain.epochs``. With ``pretrain.soft`` the
teacher is a network (a player file) and the policy is fitted to its probabilities over the
legal moves instead (cross-entropy against the whole distribution: distillation, which tells
the student far more per position than the one move the teacher would choose).

Then ``pretrain.dagger_rounds`` rounds of DAgger: the student (the network just fitted,
sampling from its policy) plays ``pretrain.dagger_games`` games against itself, the teacher
labels every position the student reaches, those samples join the data and the student is
fitted again on all of it.

The games are shared among the machine's cores (one process each); every game's seed
depends only on ``seed`` and its index, so the data do not depend on the number of cores.
"""

from __future__ import annotations

import multiprocessing
import os
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from tabletop.games import Game, get_game
from tabletop.network import PolicyAgent
from training.threads import ThreadTuner

#: Minibatches timed together when :func:`fit` chooses its thread count.
TUNED_BATCHES = 16

#: What a forked worker needs: (game name, players, teacher, explore, gamma, max_turns,
#: seed, student policy or None).
_JOB: tuple | None = None


def _play(index: int) -> tuple[int, dict[str, np.ndarray]]:
    """Game ``index`` of the current job (see :data:`_JOB`), as samples."""
    name, players, teacher, explore, gamma, max_turns, seed, student = _JOB
    game = get_game(name)
    game_seed = seed * 1_000_003 + index
    rng = random.Random(game_seed)
    teachers = [game.players.make(teacher, seed=game_seed * 8 + k) for k in range(players)]
    actor = None
    if student is not None:
        actor = PolicyAgent(student, lambda state: {}, "student", deterministic=False)
        actor.reset(game_seed)
    state = game.initial_state(players, game_seed)
    obs, masks, labels, movers = [], [], [], []
    moves = 0
    while (k := game.player_to_move(state)) is not None and moves < max_turns:
        seen = game.observe(state, k, max_turns)
        label = teachers[k].act(state, seen)
        if rng.random() < explore:
            played = rng.choice(np.flatnonzero(seen["action_mask"]).tolist())
        elif actor is not None:
            played = actor.act(state, seen)
        else:
            played = label
        obs.append(seen["observation"].astype(np.float16))
        masks.append(np.asarray(seen["action_mask"], dtype=bool))
        labels.append(label)
        movers.append(k)
        game.play_action(state, int(played), who=f"imitation game {index}")
        moves += 1
    rewards = game.rewards(state)
    discount = gamma ** np.arange(len(labels) - 1, -1, -1, dtype=np.float32)
    return index, {
        "obs": np.stack(obs),
        "masks": np.stack(masks),
        "actions": np.array(labels, np.int64),
        "values": np.array([rewards[m] for m in movers], np.float32) * discount,
    }


def generate(
    game: Game,
    config: Any,
    student: Any | None = None,
    games: int | None = None,
    round_: int = 0,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """The teacher's self-play games (or, with ``student``, the student's games labelled by
    the teacher: DAgger round ``round_``), all samples concatenated in game order."""
    global _JOB
    p = config.pretrain
    total = p.games if games is None else games
    if student is not None:
        student.set_training_mode(False)
    seed = config.seed + 7919 * round_
    _JOB = (
        game.name,
        config.num_players,
        p.teacher,
        p.explore,
        config.ppo.gamma,
        config.max_turns,
        seed,
        student,
    )
    what = f"{p.teacher} games" if student is None else f"DAgger round {round_}, student games"
    bar = tqdm(total=total, desc=what, unit="game", disable=not progress)
    parts: dict[int, dict[str, np.ndarray]] = {}
    workers = min(len(os.sched_getaffinity(0)), total)
    try:
        if workers > 1:
            context = multiprocessing.get_context("fork")
            with context.Pool(workers, initializer=torch.set_num_threads, initargs=(1,)) as pool:
                for index, part in pool.imap_unordered(_play, range(total), chunksize=4):
                    parts[index] = part
                    bar.update()
        else:
            for index in range(total):
                parts[index] = _play(index)[1]
                bar.update()
    finally:
        bar.close()
        _JOB = None
    return {k: np.concatenate([parts[i][k] for i in range(total)]) for k in parts[0]}


def _forward(
    policy: Any, obs: torch.Tensor, masks: np.ndarray
) -> tuple[torch.Tensor, torch.Tensor]:
    """Values and every action's log-probability (very negative where masked), in one
    pass."""
    features = policy.extract_features(obs)
    latent_pi, latent_vf = policy.mlp_extractor(features)
    distribution = policy._get_action_dist_from_latent(latent_pi)
    distribution.apply_masking(masks)
    return policy.value_net(latent_vf), distribution.distribution.logits


def float_obs(data: dict[str, np.ndarray], idx: np.ndarray) -> torch.Tensor:
    """The observations ``data["obs"][idx]`` as float32 (how :func:`fit` reads a batch)."""
    return torch.as_tensor(data["obs"][idx], dtype=torch.float32)


def teacher_network(game: Game, spec: str) -> PolicyAgent:
    """The network player ``spec`` names, whose probabilities ``pretrain.soft`` fits; a
    ``ValueError`` naming it if it is not a network."""
    teacher = game.players.make(spec)
    if not isinstance(teacher, PolicyAgent):
        raise ValueError(
            f"pretrain.soft needs a network teacher (a player file), but {spec!r} is a "
            f"{type(teacher).__name__}"
        )
    return teacher


def soft_targets(teacher: PolicyAgent, obs: torch.Tensor, masks: np.ndarray) -> torch.Tensor:
    """The teacher's probabilities over each position's legal moves (0 elsewhere)."""
    logits = torch.from_numpy(teacher.logits(obs.numpy()))
    logits = logits.masked_fill(~torch.as_tensor(masks, dtype=torch.bool), -torch.inf)
    return torch.softmax(logits, dim=1)


def fit(
    policy: Any,
    data: dict[str, np.ndarray],
    config: Any,
    progress: bool = True,
    observations: Callable[[dict[str, np.ndarray], np.ndarray], torch.Tensor] = float_obs,
    teacher: PolicyAgent | None = None,
) -> dict:
    """Behaviour cloning + value regression on ``data`` (``actions``, ``masks``, ``values``,
    and the observations that ``observations(data, idx)`` reads); with ``teacher``, the
    policy fits that network's probabilities instead of ``actions``. The last epoch's
    metrics (teacher agreement measured before each batch's update)."""
    p = config.pretrain
    n = len(data["actions"])
    optimizer = torch.optim.Adam(policy.parameters(), lr=p.learning_rate)
    generator = np.random.default_rng(config.seed)
    policy.set_training_mode(True)
    metrics: dict[str, float] = {}
    # Thread counts chosen by timing, as in self-play (training.threads), so that the fit
    # slows in proportion when another process takes a core.
    threads = torch.get_num_threads()
    tuner = ThreadTuner(threads, tune=getattr(config, "thread_policy", "auto") == "auto")
    for epoch in range(p.epochs):
        order = generator.permutation(n)
        totals = {"policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        for batch, start in enumerate(
            tqdm(
                range(0, n, p.batch_size),
                desc=f"imitation epoch {epoch + 1}/{p.epochs}",
                unit="batch",
                disable=not progress,
                leave=False,
            )
        ):
            if batch % TUNED_BATCHES == 0:
                tuner.stop(TUNED_BATCHES)  # the last group of batches, if any
                tuner.start("fit")
            idx = order[start : start + p.batch_size]
            obs = observations(data, idx)
            actions = torch.as_tensor(data["actions"][idx])
            masks = data["masks"][idx]
            values, log_probs = _forward(policy, obs, masks)
            best = log_probs.argmax(1)
            if teacher is None:
                policy_loss = -log_probs.gather(1, actions[:, None]).mean()
            else:
                targets = soft_targets(teacher, obs, masks)
                policy_loss = -(targets * log_probs).sum(1).mean()
            value_loss = torch.nn.functional.mse_loss(
                values.flatten(), torch.as_tensor(data["values"][idx])
            )
            loss = policy_loss + config.ppo.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), config.ppo.max_grad_norm)
            optimizer.step()
            k = len(idx)
            totals["policy_loss"] += policy_loss.item() * k
            totals["value_loss"] += value_loss.item() * k
            totals["accuracy"] += (best == actions).float().sum().item()
        tuner.stop(batch % TUNED_BATCHES + 1)
        metrics = {key: value / n for key, value in totals.items()}
        print(
            f"imitation epoch {epoch + 1}/{p.epochs}: policy loss {metrics['policy_loss']:.3f}, "
            f"value loss {metrics['value_loss']:.3f}, teacher agreement "
            f"{100 * metrics['accuracy']:.1f}% on {n} samples",
            flush=True,
        )
    policy.set_training_mode(False)
    torch.set_num_threads(threads)
    return metrics


def warm_start(game: Game, policy: Any, config: Any, progress: bool = True) -> dict:
    """Imitation of the teacher's games, then the DAgger rounds (see the module doc); the
    last fit's metrics with the number of samples of each stage."""
    p = config.pretrain
    teacher = teacher_network(game, p.teacher) if p.soft else None
    data = generate(game, config, progress=progress)
    metrics = fit(policy, data, config, progress=progress, teacher=teacher)
    sizes = [len(data["actions"])]
    for round_ in range(1, p.dagger_rounds + 1):
        labelled = generate(
            game, config, student=policy, games=p.dagger_games, round_=round_, progress=progress
        )
        data = {k: np.concatenate([data[k], labelled[k]]) for k in data}
        sizes.append(len(labelled["actions"]))
        metrics = fit(policy, data, config, progress=progress, teacher=teacher)
    return {**metrics, "samples": sizes}
