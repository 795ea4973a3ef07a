"""Training configuration: YAML files in ``configs/<game>/`` read into checked dataclasses.

Every field has a type and a range; an unknown, mistyped or out-of-range field raises
:class:`ConfigError` naming it (``ppo.batch_size``) and what was expected.
"""

from __future__ import annotations

import dataclasses
import math
import re
import typing
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from splut_env.players.network import INPUTS, POLICY_HEADS, NetworkShape
from tabletop.files import read_text
from tabletop.games import get_game
from tabletop.network import STEMS

MAX_CONFIG_BYTES = 1 << 20


class ConfigError(ValueError):
    """A configuration field that is missing, unknown, mistyped or out of range."""


NAME_RE = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")
#: The choices of ``TrainConfig.init_value``.
INIT_VALUES = ("auto", "keep", "fresh")
#: The env runners of ``training.rllib`` (``RLlibConfig.env_runner``).
ENV_RUNNERS = ("multi_agent", "batched")


@dataclass
class PPOConfig:
    n_steps: int = 512
    """Steps collected per environment before each update."""
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5


@dataclass
class OpponentDraws:
    """How each opponent seat of a self-play game is drawn: the newest version of the
    learner, an older one, or a bot (shared by ``pool`` and ``league``)."""

    p_latest: float = 0.5
    """Chance that an opponent seat is the latest snapshot."""
    p_past: float = 0.2
    """Chance that it is an older snapshot (uniformly chosen)."""
    p_bots: float = 0.3
    """Chance that it is one of the bots (chosen by ``bot_weights``, uniformly when empty)."""
    bots: list[str] = field(default_factory=lambda: ["random", "greedy"])
    bot_weights: list[float] = field(default_factory=list)
    """Relative chance of each of ``bots`` when a bot is drawn (empty: all equal)."""

    def check_draws(self, section: str, game: str = "splut") -> None:
        """The chances sum to 1; the bots are registered names with matching weights."""
        chances = [("p_latest", self.p_latest), ("p_past", self.p_past), ("p_bots", self.p_bots)]
        for name, value in chances:
            if not 0 <= value <= 1:
                raise ConfigError(f"{section}.{name} must be between 0 and 1, got {value}")
        total = self.p_latest + self.p_past + self.p_bots
        if abs(total - 1) > 1e-6:
            raise ConfigError(
                f"{section}.p_latest + {section}.p_past + {section}.p_bots must be 1, got {total:g}"
            )
        if self.p_bots > 0 and not self.bots:
            raise ConfigError(
                f"{section}.bots must name at least one bot when {section}.p_bots > 0"
            )
        check_names(f"{section}.bots", self.bots, game)
        check_weights(f"{section}.bot_weights", self.bot_weights, len(self.bots), f"{section}.bots")


@dataclass
class PoolConfig(OpponentDraws):
    snapshot_every: int = 20_000
    """Learner steps between frozen snapshots added to the opponent pool."""
    max_snapshots: int = 10
    """Oldest snapshots (but never the first) are dropped beyond this many."""
    player_weights: list[float] = field(default_factory=list)
    """Relative chance that the learner is each player, in turn order (player 0 moves first;
    empty: all equal). Weight the players that need practice. (Called ``seat_weights``
    before 0.3; configs with that name still load.)"""


@dataclass
class PretrainConfig:
    games: int = 0
    """Teacher self-play games to imitate before self-play (0: start from scratch)."""
    teacher: str = "greedy"
    explore: float = 0.1
    """Chance that a step of those games is replaced by a random legal one."""
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    dagger_rounds: int = 0
    """DAgger rounds after the imitation: the student plays, the teacher labels (0: none)."""
    dagger_games: int = 1000
    """Student games per DAgger round."""
    soft: bool = False
    """Fit the teacher's whole move distribution (its probabilities over the legal moves)
    rather than the one move it chose: distillation of a network teacher (a player file)
    into the learner's network, which may be smaller. Needs a teacher that is a network."""


@dataclass
class RewardConfig:
    shaping: float = 0.0
    """Weight of potential-based shaping added to the learner's reward during training:
    ``shaping * (gamma * phi(s') - phi(s))`` where ``phi`` is the bots' evaluation
    (:func:`splut_env.players.bots.evaluate`) of the learner's position, clipped to [-5, 5], and 0
    once the game is over. 0 trains on the game result (+1 / -1 / 0) alone."""


@dataclass
class EvalConfig:
    every: int = 25_000
    """Learner steps between evaluations against the bots."""
    games: int = 20
    """Games per bot at each periodic evaluation (seats alternated)."""
    final_games: int = 100
    """Games per bot in the final evaluation written to the model card."""
    bots: list[str] = field(default_factory=lambda: ["random", "greedy"])
    openings: int = 0
    """Random opening steps of each pair of evaluation games (``training.evaluate
    --openings``); 0: every game from the start position."""
    ladder: dict[str, float] = field(default_factory=dict)
    """Fixed Elo ratings of some of ``bots`` (the 2-player ladder of docs/studies/ladder-2p.md): each evaluation
    also rates the learner on that scale from its results against them."""


@dataclass
class PerceptionConfig:
    fraction: float = 0.0
    """Share of each PPO rollout's positions labelled with the shield's tiers (about 3 ms
    each) for a perception phase after the next update (0: no phase)."""
    epochs: int = 1
    """Passes over a rollout's critical labelled positions in its phase (minibatch steps of
    PPO's own Adam optimizer, at its learning rate)."""
    batch_size: int = 256


@dataclass
class RunConfig:
    """What every trainer's config starts with (checked by :func:`check_run`)."""

    name: str = "run"
    """Names the run folder: ``runs/<name>__seed<seed>__<time>``."""
    game: str = "splut"
    """The game: ``splut``, ``talat`` or ``splendor`` (a config without the key trains
    Splut!)."""
    num_players: int = 2
    max_turns: int = 200
    seed: int = 0


@dataclass
class TrainConfig(RunConfig):
    name: str = "splut"
    total_steps: int = 200_000
    """Learner steps (actions taken by the learning agent) to train for."""
    n_envs: int = 64
    """Games played at once (:class:`training.selfplay.SelfPlayVecEnv`, in this process);
    each PPO rollout holds ``ppo.n_steps × n_envs`` learner steps."""
    checkpoint_every: int = 25_000
    torch_threads: int = 1
    thread_policy: str = "auto"
    """``auto``: each phase (rollout, update) runs on 1 or ``torch_threads`` threads, the
    faster as timed (:class:`training.threads.ThreadTuner`), so that a run beside another
    busy process slows in proportion; ``fixed``: ``torch_threads`` for every phase."""
    opening_steps: int = 0
    """Each self-play game starts after this many uniformly random legal steps, so that
    near-deterministic opponents (the bots, the snapshots) do not replay the same games."""
    init_from: str = ""
    """A player file to start the learner from (of the ``network`` shape and table size,
    e.g. a ``training.perception`` network) instead of random weights and the warm start
    (``pretrain.games`` must then be 0); empty: none."""
    init_value: str = "auto"
    """The value head of an ``init_from`` start: ``keep`` the file's, start it ``fresh``
    (random weights; the policy and the tower stay the file's), or ``auto``: fresh when the
    file's value head gives the same value in every position (its units dead, so that PPO
    would learn with no critic at all), else kept. A run records its choice."""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    network: NetworkShape = field(default_factory=NetworkShape)
    """The board network (:class:`splut_env.players.network.NetworkShape`)."""
    pool: PoolConfig = field(default_factory=PoolConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    perception: PerceptionConfig = field(default_factory=PerceptionConfig)
    """A phase after every PPO update that fits the policy to the shield's choice on the
    critical positions its rollout reached (:func:`training.perception.perception_phase`)."""

    def check(self) -> None:
        """Range checks across fields; raises :class:`ConfigError`."""
        check_run(self)
        check_ppo(self.ppo)
        check_network(self.network, self.game)
        check_positive(
            [
                ("total_steps", self.total_steps),
                ("perception.epochs", self.perception.epochs),
                ("perception.batch_size", self.perception.batch_size),
                ("n_envs", self.n_envs),
                ("checkpoint_every", self.checkpoint_every),
                ("pool.snapshot_every", self.pool.snapshot_every),
                ("pool.max_snapshots", self.pool.max_snapshots),
                ("eval.every", self.eval.every),
                ("eval.games", self.eval.games),
                ("eval.final_games", self.eval.final_games),
            ]
        )
        self.pool.check_draws("pool", self.game)
        check_pretrain(self.pretrain, self.game, self.init_from)
        if self.eval.openings < 0:
            raise ConfigError(f"eval.openings must be at least 0, got {self.eval.openings}")
        if self.opening_steps < 0:
            raise ConfigError(f"opening_steps must be at least 0, got {self.opening_steps}")
        check_init_value(self.init_value)
        if self.thread_policy not in ("auto", "fixed"):
            raise ConfigError(
                f"thread_policy must be 'auto' or 'fixed', got {self.thread_policy!r}"
            )
        if self.reward.shaping < 0:
            raise ConfigError(f"reward.shaping must be at least 0, got {self.reward.shaping}")
        if not 0 <= self.perception.fraction <= 1:
            raise ConfigError(
                f"perception.fraction must be between 0 and 1, got {self.perception.fraction}"
            )
        check_weights(
            "pool.player_weights", self.pool.player_weights, self.num_players, "num_players"
        )
        check_names("eval.bots", self.eval.bots, self.game)
        check_ladder(self.eval.ladder, self.eval.bots, self.num_players, self.game)
        if (self.ppo.n_steps * self.n_envs) % self.ppo.batch_size:
            raise ConfigError(
                f"ppo.batch_size ({self.ppo.batch_size}) must divide ppo.n_steps × n_envs "
                f"({self.ppo.n_steps * self.n_envs})"
            )
        from training.kits import training_kit

        training_kit(self.game).check(self)


@dataclass
class LeagueConfig(OpponentDraws):
    """The opponents of ``training.rllib`` (its module doc): ``p_latest`` is ``main`` itself
    (before the first snapshot, ``p_past`` is added to it); bots are played inside the
    environment."""

    win_rate: float = 0.6
    """Add a snapshot of ``main`` when the learner won at least this share of the last
    iteration's games (and at least ``min_games`` of them were played)."""
    min_games: int = 20
    max_snapshots: int = 5
    """The oldest snapshot is dropped beyond this many (with ``env_runner: batched``, the
    oldest but the first, as ``pool.max_snapshots``)."""
    snapshot_every: int = 20_000
    """With ``env_runner: batched``: env steps between snapshots of the learner, as
    ``pool.snapshot_every`` (``win_rate`` and ``min_games`` are for the multi-agent env
    runner)."""
    player_weights: list[float] = field(default_factory=list)
    """With ``env_runner: batched``: as ``pool.player_weights`` (empty: all players equal)."""


@dataclass
class RLlibConfig(RunConfig):
    """The config of ``training.rllib`` (``configs/splut/rllib_2p.yaml``)."""

    name: str = "rllib"
    iterations: int = 20
    """Training iterations (one sample of ``ppo.n_steps`` per env runner, one update)."""
    num_env_runners: int = 2
    torch_threads: int = 1
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """As for ``training.train``; ``n_steps`` is the env steps each env runner samples per
    iteration, ``batch_size`` the minibatch."""
    network: NetworkShape = field(default_factory=NetworkShape)
    league: LeagueConfig = field(default_factory=LeagueConfig)
    shaping: float = 0.0
    """Potential-based reward shaping, as ``reward.shaping`` in ``training.train``."""
    init_from: str = ""
    """A player file to start ``main`` from (same network shape and table size), e.g. the
    PPO main job's ``player.zip``; empty: random weights (or the warm start's)."""
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    """The warm start before RLlib trains, as in ``training.train`` (imitation of
    ``pretrain.teacher``, run in the driver; ``pretrain.games`` 0: none)."""
    checkpoint_every: int = 10
    """Iterations between resume checkpoints (``checkpoints/iter_<n>/`` in the run folder,
    and ``player.zip`` rewritten); one is also written after the last iteration."""
    eval_games: int = 100
    """Games against each of ``eval_bots`` after training (0: none)."""
    eval_bots: list[str] = field(default_factory=lambda: ["random", "greedy"])
    env_runner: str = "multi_agent"
    """``multi_agent``: each env runner steps one game at a time, opponents mapped to
    modules (``training.rllib``'s module doc); ``batched``: each steps
    ``num_envs_per_env_runner`` games at once, opponents played inside the vector env
    (``training.rllib_vector``)."""
    num_envs_per_env_runner: int = 64
    """With ``env_runner: batched``: the games each env runner steps at once (``ppo.n_steps``
    must be a multiple of it)."""
    opening_steps: int = 0
    """With ``env_runner: batched``: each game starts after this many random steps, as in
    ``training.train``."""

    def check(self) -> None:
        """Range checks across fields; raises :class:`ConfigError`."""
        if self.shaping < 0:
            raise ConfigError(f"shaping must be at least 0, got {self.shaping}")
        if self.env_runner not in ENV_RUNNERS:
            raise ConfigError(
                f"env_runner must be one of {', '.join(ENV_RUNNERS)}, got {self.env_runner!r}"
            )
        check_positive(
            [
                ("num_envs_per_env_runner", self.num_envs_per_env_runner),
                ("league.snapshot_every", self.league.snapshot_every),
            ]
        )
        if self.opening_steps < 0:
            raise ConfigError(f"opening_steps must be at least 0, got {self.opening_steps}")
        if self.env_runner == "batched" and self.ppo.n_steps % self.num_envs_per_env_runner:
            raise ConfigError(
                f"ppo.n_steps ({self.ppo.n_steps}) must be a multiple of "
                f"num_envs_per_env_runner ({self.num_envs_per_env_runner}) with env_runner: "
                "batched (each game steps ppo.n_steps / num_envs_per_env_runner times per "
                "iteration)"
            )
        check_weights(
            "league.player_weights", self.league.player_weights, self.num_players, "num_players"
        )
        check_run(self)
        check_ppo(self.ppo)
        check_network(self.network, self.game)
        if self.game != "splut" and self.network.inputs != "planes":
            raise ConfigError(
                f"network.inputs must be 'planes' for {self.game}, got {self.network.inputs!r}"
            )
        check_positive(
            [
                ("iterations", self.iterations),
                ("checkpoint_every", self.checkpoint_every),
                ("num_env_runners", self.num_env_runners),
                ("league.max_snapshots", self.league.max_snapshots),
                ("league.min_games", self.league.min_games),
            ]
        )
        if not 0 <= self.league.win_rate <= 1:
            raise ConfigError(
                f"league.win_rate must be between 0 and 1, got {self.league.win_rate}"
            )
        self.league.check_draws("league", self.game)
        check_pretrain(self.pretrain, self.game, self.init_from)
        check_names("eval_bots", self.eval_bots, self.game)
        if self.eval_games < 0:
            raise ConfigError(f"eval_games must be at least 0, got {self.eval_games}")


@dataclass
class ExItEvalConfig:
    every: int = 5
    """Iterations between evaluations of the network alone (and after the last)."""
    games: int = 40
    """Games against each bot, seats alternated, from random openings of ``openings`` steps."""
    openings: int = 2
    bots: list[str] = field(default_factory=lambda: ["greedy", "search:medium", "search:hard"])
    ladder: dict[str, float] = field(default_factory=dict)
    """The bots' fixed Elo ratings (the ladder of docs/studies/ladder-2p.md): the network gets a rating on the
    same scale from its results against them (bots missing here are left out of it)."""


@dataclass
class ExItConfig(RunConfig):
    """The config of ``training.expert_iteration`` (``configs/splut/exit_2p.yaml``,
    ``configs/talat/exit_2p.yaml``; the fields are explained in that module's doc). Any game
    of the core without chance trains (``game``); ``targets: shield`` is Splut!'s."""

    name: str = "exit"
    targets: str = "search"
    """What the network learns: ``search`` (the tree search's visit counts, self-play through
    the search) or ``shield`` (its own policy narrowed to the shield's best steps, in games it
    plays alone against ``opponents``; Splut! only)."""
    opponents: list[str] = field(default_factory=lambda: ["self"])
    """With ``targets: shield``: the opponents drawn (uniformly) for each game; ``self`` is
    the network itself."""
    escape_searches: int = 6000
    """With ``targets: shield`` and two players: the one-turn kill checks per turn that the
    forced-loss check of the likeliest safe steps may spend (as the shield's; 0: none)."""
    iterations: int = 20
    games: int = 32
    """Self-play games per iteration."""
    workers: int = 2
    """Processes playing the games (one torch thread each)."""
    torch_threads: int = 2
    """Threads of the training process's updates."""
    full_simulations: int = 200
    fast_simulations: int = 32
    p_full: float = 0.25
    c_puct: float = 1.5
    dirichlet_alpha: float = 0.3
    dirichlet_fraction: float = 0.25
    sample_steps: int = 12
    opening_steps: int = 2
    replay_size: int = 100_000
    sample_reuse: float = 4.0
    """How many times each new sample is trained on, on average: each iteration makes
    ``new samples × sample_reuse / batch_size`` Adam steps (at least one)."""
    batch_size: int = 256
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    support_weight: float = 0.0
    """Weight of minus the log of the policy's mass on the steps the target allows (with
    ``targets: shield``, the steps the shield keeps), beside the cross-entropy."""
    network: NetworkShape = field(default_factory=NetworkShape)
    init_from: str = ""
    """A player file to start from (same shape and table size), e.g. a distilled network."""
    init_value: str = "auto"
    """Its value head: ``keep``, ``fresh`` or ``auto``, as in ``training.train``'s config."""
    eval: ExItEvalConfig = field(default_factory=ExItEvalConfig)

    def check(self) -> None:
        check_run(self)
        check_network(self.network, self.game)
        if self.game != "splut":
            self.check_other_game()
        check_positive(
            [
                ("iterations", self.iterations),
                ("games", self.games),
                ("workers", self.workers),
                ("full_simulations", self.full_simulations),
                ("fast_simulations", self.fast_simulations),
                ("replay_size", self.replay_size),
                ("batch_size", self.batch_size),
                ("eval.every", self.eval.every),
            ]
        )
        for name, value in [
            ("p_full", self.p_full),
            ("dirichlet_fraction", self.dirichlet_fraction),
        ]:
            if not 0 <= value <= 1:
                raise ConfigError(f"{name} must be between 0 and 1, got {value}")
        for name, value in [
            ("c_puct", self.c_puct),
            ("dirichlet_alpha", self.dirichlet_alpha),
            ("learning_rate", self.learning_rate),
            ("sample_reuse", self.sample_reuse),
        ]:
            if value <= 0:
                raise ConfigError(f"{name} must be positive, got {value}")
        for name, value in [
            ("weight_decay", self.weight_decay),
            ("value_weight", self.value_weight),
            ("support_weight", self.support_weight),
            ("sample_steps", self.sample_steps),
            ("escape_searches", self.escape_searches),
            ("opening_steps", self.opening_steps),
            ("eval.games", self.eval.games),
            ("eval.openings", self.eval.openings),
        ]:
            if value < 0:
                raise ConfigError(f"{name} must be at least 0, got {value}")
        check_names("eval.bots", self.eval.bots, self.game)
        check_names("eval.ladder", list(self.eval.ladder), self.game)
        if self.targets not in ("search", "shield"):
            raise ConfigError(f"targets must be 'search' or 'shield', got {self.targets!r}")
        if not self.opponents:
            raise ConfigError("opponents must name at least one opponent ('self' or a bot)")
        check_names("opponents", [o for o in self.opponents if o != "self"], self.game)
        check_init_value(self.init_value)

    def check_other_game(self) -> None:
        """A game other than Splut! is searched by :mod:`tabletop.mcts` over its descriptor:
        it must be a game without chance or hidden information, with a trainer's kit, a
        planes network and the search's targets."""
        game = get_game(self.game)
        if game.chance:
            raise ConfigError(
                f"game: expert iteration cannot train {self.game}: {game.title} is a game of "
                "chance with hidden information (its deal and hidden cards), and the tree "
                "search plans on the full position, so it would see what its player may not; "
                f"train {self.game} with training.train (PPO) or training.rllib"
            )
        from training.kits import training_kit

        try:
            training_kit(self.game)
        except ValueError as err:
            raise ConfigError(f"game: {err}") from None
        if self.targets == "shield":
            raise ConfigError(
                f"targets: shield is Splut!'s (its shield's exact tactics), not {game.title}'s; "
                "use targets: search"
            )
        if self.network.inputs != "planes":
            raise ConfigError(
                f"network.inputs must be 'planes' for {self.game}, got {self.network.inputs!r}"
            )


# --- checks shared by the trainers' configs (training.train, training.rllib) ----------------


def check_init_value(init_value: str) -> None:
    """``init_value`` must be one of :data:`INIT_VALUES`."""
    if init_value not in INIT_VALUES:
        raise ConfigError(f"init_value must be one of {', '.join(INIT_VALUES)}, got {init_value!r}")


def check_positive(fields: list[tuple[str, int]]) -> None:
    """Each ``(name, value)`` must be at least 1."""
    for name, value in fields:
        if value < 1:
            raise ConfigError(f"{name} must be at least 1, got {value}")


def check_run(config: Any) -> None:
    """``name``, ``seed``, ``num_players``, ``max_turns`` and ``torch_threads``."""
    check_positive([("torch_threads", config.torch_threads), ("max_turns", config.max_turns)])
    try:
        game = get_game(config.game)
    except ValueError as err:
        raise ConfigError(f"game: {err}") from None
    if config.num_players not in game.player_counts:
        raise ConfigError(
            f"num_players must be {game.counts_text()} for {game.title}, got {config.num_players}"
        )
    if not NAME_RE.fullmatch(config.name):
        raise ConfigError(
            f"name must be 1-100 letters, digits, '.', '_' or '-', not starting with '.' "
            f"(it names the run folder), got {config.name!r}"
        )
    if not 0 <= config.seed < 2**32:
        raise ConfigError(f"seed must be from 0 to 2**32 - 1, got {config.seed}")
    if config.max_turns > game.max_turns_limit:
        raise ConfigError(
            f"max_turns must be at most {game.max_turns_limit}, got {config.max_turns}"
        )


def check_pretrain(pretrain: PretrainConfig, game: str, init_from: str = "") -> None:
    """The ``pretrain`` section (of ``training.train`` and ``training.rllib``): its ranges,
    its teacher, and no warm start of an ``init_from`` start."""
    check_positive(
        [("pretrain.epochs", pretrain.epochs), ("pretrain.batch_size", pretrain.batch_size)]
    )
    if pretrain.games < 0:
        raise ConfigError(f"pretrain.games must be at least 0, got {pretrain.games}")
    if init_from and pretrain.games:
        raise ConfigError(
            f"init_from ({init_from!r}) starts from a trained network: set "
            f"pretrain.games=0 (got {pretrain.games}) rather than warm-start it again"
        )
    if pretrain.dagger_rounds < 0:
        raise ConfigError(
            f"pretrain.dagger_rounds must be at least 0, got {pretrain.dagger_rounds}"
        )
    if pretrain.dagger_rounds and (pretrain.games < 1 or pretrain.dagger_games < 1):
        raise ConfigError(
            "pretrain.dagger_rounds needs pretrain.games and pretrain.dagger_games of at "
            f"least 1, got {pretrain.games} and {pretrain.dagger_games}"
        )
    if not 0 <= pretrain.explore <= 1:
        raise ConfigError(f"pretrain.explore must be between 0 and 1, got {pretrain.explore}")
    if pretrain.learning_rate <= 0:
        raise ConfigError(f"pretrain.learning_rate must be positive, got {pretrain.learning_rate}")
    if not pretrain.soft:
        check_names("pretrain.teacher", [pretrain.teacher], game)
    elif game == "splut":
        raise ConfigError(
            "pretrain.soft (distillation of a network teacher) is for the games on the "
            "core (talat, splendor); Splut!'s warm start imitates a bot's moves"
        )
    elif not pretrain.teacher.endswith(".zip"):
        raise ConfigError(
            "pretrain.soft fits a network teacher's move probabilities: "
            f"pretrain.teacher must be a player file (*.zip), got {pretrain.teacher!r}"
        )


def check_ppo(ppo: PPOConfig) -> None:
    """The PPO section's ranges."""
    check_positive(
        [
            ("ppo.n_steps", ppo.n_steps),
            ("ppo.batch_size", ppo.batch_size),
            ("ppo.n_epochs", ppo.n_epochs),
        ]
    )
    for name, value in [
        ("ppo.learning_rate", ppo.learning_rate),
        ("ppo.clip_range", ppo.clip_range),
        ("ppo.max_grad_norm", ppo.max_grad_norm),
    ]:
        if value <= 0:
            raise ConfigError(f"{name} must be positive, got {value}")
    for name, value in [("ppo.ent_coef", ppo.ent_coef), ("ppo.vf_coef", ppo.vf_coef)]:
        if value < 0:
            raise ConfigError(f"{name} must be at least 0, got {value}")
    for name, value in [("ppo.gamma", ppo.gamma), ("ppo.gae_lambda", ppo.gae_lambda)]:
        if not 0 <= value <= 1:
            raise ConfigError(f"{name} must be between 0 and 1, got {value}")


def check_network(network: NetworkShape, game: str = "splut") -> None:
    """The network section's sizes and choices for ``game``."""
    check_positive(
        [
            ("network.channels", network.channels),
            ("network.blocks", network.blocks),
            ("network.features_dim", network.features_dim),
        ]
        + [("network.value_hidden", size) for size in network.value_hidden]
    )
    if len(network.value_hidden) > 4:
        raise ConfigError(
            f"network.value_hidden must list at most 4 layer sizes, got "
            f"{list(network.value_hidden)}"
        )
    if network.policy_head not in POLICY_HEADS:
        raise ConfigError(
            f"network.policy_head must be one of {', '.join(POLICY_HEADS)}, "
            f"got {network.policy_head!r}"
        )
    if network.inputs not in INPUTS:
        raise ConfigError(
            f"network.inputs must be one of {', '.join(INPUTS)}, got {network.inputs!r}"
        )
    if network.stem not in STEMS:
        raise ConfigError(
            f"network.stem (the first convolution's kernel) must be one of "
            f"{', '.join(map(str, STEMS))}, got {network.stem!r}"
        )
    if game == "splut" and network.stem != 3:
        raise ConfigError(
            f"network.stem must be 3 for Splut! (its board network's first convolution is "
            f"3×3), got {network.stem!r}"
        )


def check_weights(name: str, weights: list[float], size: int, what: str) -> None:
    """Relative chances: empty, or ``size`` of them, non-negative with a positive sum."""
    if not weights:
        return
    if len(weights) != size:
        raise ConfigError(
            f"{name} must have one weight per entry of {what} ({size}), got {weights}"
        )
    if min(weights) < 0 or sum(weights) <= 0:
        raise ConfigError(f"{name} must be non-negative with a positive sum, got {weights}")


def check_ladder(
    ladder: dict[str, float], bots: list[str], num_players: int, game: str = "splut"
) -> None:
    """``eval.ladder``: 2-player ratings of bots that ``eval.bots`` plays."""
    if not ladder:
        return
    if num_players != 2:
        raise ConfigError(f"eval.ladder holds 2-player ratings, but num_players is {num_players}")
    check_names("eval.ladder", list(ladder), game)
    if not set(ladder) & set(bots):
        raise ConfigError(
            f"eval.ladder rates the learner from its games against eval.bots, but none of "
            f"{sorted(ladder)} is in eval.bots ({bots})"
        )


def check_names(name: str, bots: list[str], game: str = "splut") -> None:
    """Agent names registered for ``game``."""
    names = get_game(game).players.names()
    for bot in bots:
        if bot not in names:
            raise ConfigError(f"{name}: unknown bot {bot!r}, expected one of {names}")


def _build(cls: type, data: Any, prefix: str) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{prefix or 'config'} must be a mapping, got {data!r}")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    for key in data:
        if key not in names:
            where = f"{prefix}.{key}" if prefix else key
            raise ConfigError(f"unknown field {where!r}; expected one of {sorted(names)}")
    values = {}
    for key, value in data.items():
        where = f"{prefix}.{key}" if prefix else key
        hint = hints[key]
        if dataclasses.is_dataclass(hint):
            values[key] = _build(hint, value, where)
        elif hint is float and isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise ConfigError(f"{where} must be a finite number, got {value!r}")
            values[key] = float(value)
        elif hint == list[float]:
            numbers = isinstance(value, list) and all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                for v in value
            )
            if not numbers:
                raise ConfigError(f"{where} must be a list of finite numbers, got {value!r}")
            values[key] = [float(v) for v in value]
        elif hint == dict[str, float]:
            if not isinstance(value, dict) or not all(
                isinstance(k, str)
                and isinstance(v, int | float)
                and not isinstance(v, bool)
                and math.isfinite(v)
                for k, v in value.items()
            ):
                raise ConfigError(f"{where} must map names to finite numbers, got {value!r:.80}")
            values[key] = {k: float(v) for k, v in value.items()}
        elif hint == tuple[int, ...]:
            if not isinstance(value, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value
            ):
                raise ConfigError(f"{where} must be a list of whole numbers, got {value!r:.80}")
            values[key] = tuple(value)
        elif typing.get_origin(hint) is list:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where} must be a list of names, got {value!r}")
            values[key] = value
        elif not isinstance(value, hint) or isinstance(value, bool) != (hint is bool):
            raise ConfigError(f"{where} must be {hint.__name__}, got {value!r}")
        else:
            values[key] = value
    return cls(**values)


#: Fields renamed since an earlier version: (section, old name) → new name.
RENAMED = {("pool", "seat_weights"): "player_weights"}


def _renamed(data: Any) -> Any:
    """``data`` with old field names replaced by their new ones (configs of earlier runs)."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    for (section, old), new in RENAMED.items():
        part = data.get(section)
        if isinstance(part, dict) and old in part:
            if new in part:
                raise ConfigError(f"{section}.{old} is the old name of {section}.{new}: give one")
            data[section] = {new if k == old else k: v for k, v in part.items()}
    return data


def parse_config(data: dict[str, Any], kind: type = TrainConfig) -> Any:
    """A checked config of class ``kind`` (:class:`TrainConfig` by default; it has a
    ``check()``) from a mapping (as read from YAML)."""
    config = _build(kind, _renamed(data or {}), "")
    config.check()
    return config


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``key.sub=value`` overrides (values read as YAML) to a raw config mapping."""
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"override {item!r}: expected key=value, e.g. ppo.n_epochs=4")
        key, raw = item.split("=", 1)
        node = data
        parts = key.split(".")
        if not all(parts):
            raise ConfigError(f"override {item!r}: expected key=value, e.g. ppo.n_epochs=4")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"override {item!r}: {part!r} is not a section")
        try:
            node[parts[-1]] = yaml.safe_load(raw)
        except yaml.YAMLError as err:
            raise ConfigError(f"override {item!r}: the value is not valid YAML: {err}") from err
    return data


#: Configs that moved in 0.4: the configs a user runs went to ``configs/splut/``, each past
#: study's config to ``results/<study>/config.yaml``. An old path still loads, with a warning.
MOVED_CONFIGS = {
    f"configs/{name}.yaml": f"configs/splut/{name}.yaml"
    for name in ("default", "three_players", "four_players", "exit_2p", "rllib_2p", "smoke")
} | {
    "configs/distill_2p.yaml": "results/distill_2p_trial/config.yaml",
    "configs/finetune_2p.yaml": "results/finetune_2p/config.yaml",
    **{
        f"configs/finetune_2p_stage{n}.yaml": f"results/finetune_2p_stage{n}/config.yaml"
        for n in range(2, 8)
    },
    "configs/finetune_2p_stage10.yaml": "results/stage10_2p/config.yaml",
    "configs/perception_ppo_2p.yaml": "results/perception_ppo_2p_trial/config.yaml",
    "configs/shield_2p.yaml": "results/shield_2p_trial/config.yaml",
    "configs/shield_3p.yaml": "results/shield_3p/config.yaml",
    "configs/shield_4p.yaml": "results/shield_4p/config.yaml",
    "configs/strong_2p.yaml": "results/splut_2p/config.yaml",
    "configs/transfer_3p.yaml": "results/transfer_3p/config.yaml",
    "configs/transfer_4p.yaml": "results/transfer_4p/config.yaml",
}


def moved_config(path: Path) -> Path:
    """``path``, or where the config it names moved to (with a warning) if it is gone."""
    if path.exists():
        return path
    text = path.as_posix()
    for old, new in MOVED_CONFIGS.items():
        if text == old or text.endswith("/" + old):
            target = Path(text[: len(text) - len(old)] + new)
            if target.is_file():
                warnings.warn(
                    f"config {text!r} moved to {target.as_posix()!r}", FutureWarning, stacklevel=3
                )
                return target
    return path


def load_config(
    path: str | Path, overrides: list[str] | None = None, kind: type = TrainConfig
) -> Any:
    """Read a YAML config file into a ``kind`` config, apply overrides, check everything."""
    path = moved_config(Path(path))
    try:
        data = yaml.safe_load(read_text(path, "config", MAX_CONFIG_BYTES))
    except ValueError as err:
        raise ConfigError(str(err)) from err
    except yaml.YAMLError as err:
        raise ConfigError(f"config {str(path)!r} is not valid YAML: {err}") from err
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ConfigError(f"config {str(path)!r} must hold a mapping of fields, got {data!r:.80}")
    return parse_config(apply_overrides(data, overrides or []), kind)


def to_dict(config: TrainConfig) -> dict[str, Any]:
    """The config as plain YAML-able data (tuples as lists)."""

    def plain(items: list[tuple[str, Any]]) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in items}

    return dataclasses.asdict(config, dict_factory=plain)
