"""Warm start before self-play: imitate a teacher bot (behaviour cloning, then DAgger) and
fit the value head to the results of the games; or start from a trained player file
(:func:`start_weights`, ``init_from``, with its value head kept or fresh: :func:`load_start`).

The teacher (``pretrain.teacher``, e.g. ``greedy``) plays ``pretrain.games`` games against
itself; with probability ``pretrain.explore`` a step is replaced by a random legal one so
that the data also covers positions the teacher would not reach. Every position where a
player acted becomes one sample: the observation planes and mask of that player, the
teacher's action, and the game's result for that player discounted by the steps left
(``gamma ** steps_to_end``). The policy is trained with cross-entropy on the teacher's
actions (masked) and the value head with mean squared error, for ``pretrain.epochs``.

Then ``pretrain.dagger_rounds`` rounds of DAgger: the student (the network just trained,
sampling from its policy) plays ``pretrain.dagger_games`` games against itself, the teacher
labels every position the student reaches with the step it would play there, those samples
join the data, and the student is trained again on all of it. The student so learns what
the teacher would do in the positions its own mistakes lead to, which imitation of the
teacher's games alone never shows it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from splut_env.batched import BatchedBot, BatchedGames
from splut_env.batched.bots import LEVELS
from splut_env.encoding import PLANE_TURN
from splut_env.envs.vector import SplutVectorEnv
from splut_env.players import make_agent
from splut_env.players.checkpoint import load_checkpoint
from splut_env.players.network import NetworkShape, PolicyAgent, shape_of
from training import imitation
from training.config import ConfigError, ExItConfig, TrainConfig


def warm_start(policy: Any, config: TrainConfig, progress: bool = True) -> dict:
    """Imitation of the teacher's games, then the DAgger rounds (see the module doc); the
    last fit's metrics, with the number of samples of each stage."""
    p = config.pretrain
    data = generate(config, progress=progress)
    metrics = fit(policy, data, config, progress=progress)
    sizes = [len(data["actions"])]
    for round_ in range(1, p.dagger_rounds + 1):
        labelled = generate(config, progress, student=policy, games=p.dagger_games, round_=round_)
        data = {k: np.concatenate([data[k], labelled[k]]) for k in data}
        sizes.append(len(labelled["actions"]))
        metrics = fit(policy, data, config, progress=progress)
    return {**metrics, "samples": sizes}


def generate(
    config: TrainConfig,
    progress: bool = True,
    student: Any | None = None,
    games: int | None = None,
    round_: int = 0,
) -> dict[str, np.ndarray]:
    """Games played together on the batched engine (``greedy`` and the search bots in
    compiled kernels, other teachers game by game), each position labelled with the
    teacher's step: the teacher's self-play games, or with ``student`` (a policy) the
    student's, sampling its policy (DAgger round ``round_``). All samples concatenated,
    planes as uint8 with the turn fraction apart."""
    p = config.pretrain
    n, max_turns = config.num_players, config.max_turns
    total = p.games if games is None else games
    size = min(total, 256)
    batch = BatchedGames(size, n, max_turns)
    rng = np.random.default_rng(config.seed * 100_003 + round_)
    seed = config.seed + 7919 * round_
    compiled = BatchedBot(p.teacher, seed=seed) if p.teacher in LEVELS else None
    player = None
    if student is not None:
        student.set_training_mode(False)
        player = PolicyAgent(student, deterministic=False)
        player.reset(seed)
    own: dict[tuple[int, int], Any] = {}
    samples: list[list[tuple]] = [[] for _ in range(size)]
    parts: list[dict[str, np.ndarray]] = []
    started = size
    live = np.arange(size)
    what = f"{p.teacher} games" if player is None else f"DAgger round {round_}, student games"
    bar = tqdm(total=total, desc=what, unit="game", disable=not progress)
    while live.size:
        seats = batch.to_move(live)
        planes = batch.observations(live)
        masks = batch.action_masks(live)
        if compiled is not None:
            actions = compiled.act_games(batch, live)
        else:
            actions = np.array(
                [
                    own.setdefault(
                        (row, seat), make_agent(p.teacher, seed=int(rng.integers(2**31)))
                    ).act(batch.state(row))
                    for row, seat in zip(live.tolist(), seats.tolist(), strict=True)
                ]
            )
        played = actions.copy() if player is None else player.act_batch(planes, masks)
        turns = planes[:, PLANE_TURN, 0, 0].copy()
        planes = planes.astype(np.uint8)
        for k, row in enumerate(live.tolist()):
            samples[row].append((planes[k], turns[k], masks[k], actions[k], seats[k]))
        explore = np.flatnonzero(rng.random(live.size) < p.explore)
        if explore.size:
            played[explore] = batch.random_actions(rng, live[explore])
        _, terminated, truncated = batch.step(played, live)
        ended = live[terminated | truncated]
        winners = batch.winner(ended) if ended.size else []
        for row, winner in zip(ended.tolist(), list(winners), strict=True):
            parts.append(_episode(samples[row], int(winner), config.ppo.gamma))
            samples[row] = []
            bar.update()
            if started < total:
                batch.reset([row])
                started += 1
                for seat in range(4):
                    own.pop((row, seat), None)
        finished = batch.to_move() < 0
        live = np.flatnonzero(~finished & (batch.turn() <= max_turns))
    bar.close()
    return {k: np.concatenate([part[k] for part in parts]) for k in parts[0]}


def _episode(samples: list[tuple], winner: int, gamma: float) -> dict[str, np.ndarray]:
    """One game's samples as arrays, each valued by the game's result for its mover
    discounted by the steps left."""
    planes, turns, masks, actions, movers = zip(*samples, strict=True)
    results = np.array(
        [0.0 if winner < 0 else (1.0 if m == winner else -1.0) for m in movers], np.float32
    )
    discount = gamma ** np.arange(len(actions) - 1, -1, -1, dtype=np.float32)
    return {
        "planes": np.stack(planes),
        "turns": np.array(turns, np.float32),
        "masks": np.stack(masks),
        "actions": np.array(actions, np.int64),
        "values": results * discount,
    }


def _planes(data: dict[str, np.ndarray], idx: np.ndarray) -> torch.Tensor:
    """A batch of stored samples as observation planes, the turn fraction put back."""
    obs = torch.as_tensor(data["planes"][idx], dtype=torch.float32)
    obs[:, PLANE_TURN] = torch.as_tensor(data["turns"][idx])[:, None, None]
    return obs


def fit(
    policy: Any, data: dict[str, np.ndarray], config: TrainConfig, progress: bool = True
) -> dict:
    """Behaviour cloning + value regression on ``data`` (:func:`training.imitation.fit`);
    returns the last epoch's metrics."""
    return imitation.fit(policy, data, config, progress, observations=_planes)


def start_weights(path: str, network: NetworkShape, num_players: int) -> dict[str, torch.Tensor]:
    """The weights of the player file ``path`` (a config's ``init_from``), which must hold a
    ``num_players``-player network of shape ``network``; raises :class:`ConfigError` naming
    the file and both shapes otherwise (a damaged file: :class:`CheckpointError`)."""
    checkpoint = load_checkpoint(path)
    weights = checkpoint.policy.state_dict()
    shape = shape_of(weights)
    if shape != network or checkpoint.num_players != num_players:
        raise ConfigError(
            f"init_from {path!r} holds a {checkpoint.num_players}-player network "
            f"{shape.to_json()}; the config asks for {num_players} players and "
            f"{network.to_json()}"
        )
    return {k: v.detach().clone() for k, v in weights.items()}


#: The parameters of the value head (its hidden layers and its output), by name prefix.
VALUE_HEAD = ("mlp_extractor.value_net.", "value_net.")
#: Below this spread of values over :func:`value_spread`'s positions a value head is dead.
DEAD_VALUE_SPREAD = 1e-6


def value_spread(policy: Any, num_players: int, seed: int = 0) -> float:
    """The standard deviation of ``policy``'s value over 256 positions of ``num_players``
    games after 0, 4, 8 and 16 random steps: about 0 when its value head answers the same
    everywhere."""
    planes = [
        SplutVectorEnv(64, num_players, opening_steps=k).reset(seed=seed + k)[0]
        for k in (0, 4, 8, 16)
    ]
    with torch.no_grad():
        values = policy.predict_values(torch.as_tensor(np.concatenate(planes)))
    return float(values.std())


def load_start(policy: Any, config: TrainConfig | ExItConfig) -> str:
    """Load ``config.init_from`` into ``policy`` (checked by :func:`start_weights`), its value
    head as ``config.init_value`` says: ``keep`` the file's, or ``fresh``: the one ``policy``
    had (``auto``: fresh when :func:`value_spread` finds the file's dead). The choice made,
    ``keep`` or ``fresh``."""
    return start_value_head(
        policy,
        config.init_value,
        lambda: policy.load_state_dict(
            start_weights(config.init_from, config.network, config.num_players)
        ),
        lambda: value_spread(policy, config.num_players, config.seed),
    )


def start_value_head(
    policy: Any, init_value: str, load: Callable[[], Any], spread: Callable[[], float]
) -> str:
    """``load()`` a start's weights into ``policy``, then its value head as ``init_value``
    says: ``keep`` the start's, or ``fresh``: the one ``policy`` had before (``auto``: fresh
    when ``spread()``, the value's spread over varied positions, finds the start's dead).
    The choice made, ``keep`` or ``fresh``."""
    own = {k: v.clone() for k, v in policy.state_dict().items() if k.startswith(VALUE_HEAD)}
    load()
    choice = init_value
    if choice == "auto":
        choice = "fresh" if spread() < DEAD_VALUE_SPREAD else "keep"
    if choice == "fresh":
        policy.load_state_dict(own, strict=False)
    return choice
