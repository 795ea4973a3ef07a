"""Warm start before self-play: imitate a teacher bot (behaviour cloning) and fit the value
head to the results of its games.

The teacher (``pretrain.teacher``, e.g. ``greedy``) plays ``pretrain.games`` games against
itself; with probability ``pretrain.explore`` a step is replaced by a random legal one so
that the data also covers positions the teacher would not reach. Every position where a
player acted becomes one sample: the observation planes and mask of that player, the
teacher's action, and the game's result for that player discounted by the steps left
(``gamma ** steps_to_end``). The policy is trained with cross-entropy on the teacher's
actions (masked) and the value head with mean squared error, for ``pretrain.epochs``.
"""

from __future__ import annotations

import multiprocessing as mp
import random
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from splut_env.encoding import (
    PLANE_TURN,
    action_mask,
    action_to_step_id,
    observation_planes,
)
from splut_env.players import make_agent
from splut_env.rules.engine import State
from training.config import TrainConfig


def teacher_game(args: tuple[str, int, int, float, int, float]) -> dict[str, np.ndarray]:
    """One teacher self-play game as arrays (planes as uint8 with the turn fraction apart)."""
    teacher, num_players, max_turns, explore, seed, gamma = args
    rng = random.Random(seed)
    agents = [make_agent(teacher, seed=seed * 10 + k) for k in range(num_players)]
    state = State.initial(num_players)
    player = {s: k for k, s in enumerate(state.seats)}
    planes, turns, masks, actions, movers = [], [], [], [], []
    while not state.is_over() and state.turn <= max_turns:
        seat = state.to_move
        obs = observation_planes(state, seat, max_turns)
        mask = action_mask(state, seat)
        action = agents[player[seat]].act(state, None)
        planes.append(obs.astype(np.uint8))
        turns.append(obs[PLANE_TURN, 0, 0])
        masks.append(mask.astype(bool))
        actions.append(action)
        movers.append(seat)
        step = action_to_step_id(seat, action)
        if rng.random() < explore:
            step = rng.choice(state.legal_ids())
        state.apply(step)
    winner = state.winner()
    n = len(actions)
    results = np.array(
        [0.0 if winner < 0 else (1.0 if m == winner else -1.0) for m in movers], np.float32
    )
    discount = gamma ** np.arange(n - 1, -1, -1, dtype=np.float32)
    return {
        "planes": np.stack(planes),
        "turns": np.array(turns, np.float32),
        "masks": np.stack(masks),
        "actions": np.array(actions, np.int64),
        "values": results * discount,
    }


def generate(config: TrainConfig, workers: int, progress: bool = True) -> dict[str, np.ndarray]:
    """Play the teacher's games on ``workers`` processes; all samples concatenated."""
    p = config.pretrain
    jobs = [
        (
            p.teacher,
            config.num_players,
            config.max_turns,
            p.explore,
            config.seed * 100_003 + g,
            config.ppo.gamma,
        )
        for g in range(p.games)
    ]
    parts = []
    bar = tqdm(total=len(jobs), desc=f"{p.teacher} games", unit="game", disable=not progress)
    if workers <= 1:
        for job in jobs:
            parts.append(teacher_game(job))
            bar.update()
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            for part in pool.imap(teacher_game, jobs, chunksize=4):
                parts.append(part)
                bar.update()
    bar.close()
    return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}


def fit(
    policy: Any, data: dict[str, np.ndarray], config: TrainConfig, progress: bool = True
) -> dict:
    """Behaviour cloning + value regression on ``data``; returns the last epoch's metrics."""
    p = config.pretrain
    n = len(data["actions"])
    optimizer = torch.optim.Adam(policy.parameters(), lr=p.learning_rate)
    generator = np.random.default_rng(config.seed)
    policy.set_training_mode(True)
    metrics: dict[str, float] = {}
    for epoch in range(p.epochs):
        order = generator.permutation(n)
        totals = {"policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        batches = range(0, n, p.batch_size)
        for start in tqdm(
            batches,
            desc=f"imitation epoch {epoch + 1}/{p.epochs}",
            unit="batch",
            disable=not progress,
            leave=False,
        ):
            idx = order[start : start + p.batch_size]
            obs = torch.as_tensor(data["planes"][idx], dtype=torch.float32)
            obs[:, PLANE_TURN] = torch.as_tensor(data["turns"][idx])[:, None, None]
            actions = torch.as_tensor(data["actions"][idx])
            masks = data["masks"][idx]
            values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
            policy_loss = -log_prob.mean()
            value_loss = torch.nn.functional.mse_loss(
                values.flatten(), torch.as_tensor(data["values"][idx])
            )
            loss = policy_loss + config.ppo.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), config.ppo.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                best = policy.get_distribution(obs, action_masks=masks).distribution.probs.argmax(1)
            k = len(idx)
            totals["policy_loss"] += policy_loss.item() * k
            totals["value_loss"] += value_loss.item() * k
            totals["accuracy"] += (best == actions).float().sum().item()
        metrics = {key: value / n for key, value in totals.items()}
        print(
            f"imitation epoch {epoch + 1}/{p.epochs}: policy loss {metrics['policy_loss']:.3f}, "
            f"value loss {metrics['value_loss']:.3f}, teacher agreement "
            f"{100 * metrics['accuracy']:.1f}% on {n} samples",
            flush=True,
        )
    policy.set_training_mode(False)
    return metrics
