"""Monte Carlo tree search for any game of the core (PUCT, as AlphaZero), over the game's
:class:`~tabletop.games.Game` descriptor: :class:`MCTS`.

The search sees the whole position, so it suits games without hidden information (a game
whose :attr:`~tabletop.games.Game.chance` is set would let it see what its player may not).
It needs no torch: an *evaluator* rates positions, ``evaluator(observations, masks)`` →
``(logits, values)`` for a batch of the movers' observations and legal-action masks (each
as :meth:`Game.observe` gives it), the logits over all actions and each value in ``[-1, 1]``
for the player to move. The leaves of up to ``batch`` simulations are evaluated in one call
(virtual visits, each counted as a loss for its mover until its backup, spread the
simulations of a batch over different paths).

A node's player is whoever is to move in its position (a player may move several times in
a row), and every node backs up one value per player (max-n): the mover maximises its own.
At a leaf the evaluator's value ``v`` is the mover's and each other player gets
``-v / (players - 1)``. A finished game backs up :meth:`Game.rewards`; a position past
``max_turns`` (the game's turn, or the moves since the root's ``moves`` for a game that keeps
no counter, as :func:`tabletop.match.play_game` counts them) backs up 0 for every player.
A position with a single legal action (a forced pass) is searched like any other; at the
root the search gives that action every visit without evaluating anything.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop.games import Game

#: ``evaluator(observations, masks)`` → ``(logits, values)``: see the module doc.
Evaluator = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
#: Dirichlet noise at the root: ``(alpha, fraction, rng)``.
Noise = tuple[float, float, np.random.Generator]


class Node:
    """A position in the tree: its player to move (``None`` once the game is over or cut),
    its legal actions with their priors (once expanded), and per action the visits and the
    summed value per player; ``result`` holds the per-player values of an ended position."""

    __slots__ = (
        "actions",
        "children",
        "mover",
        "moves",
        "prior",
        "result",
        "state",
        "value",
        "visits",
    )

    def __init__(self, state: Any, mover: int | None, moves: int, result: np.ndarray | None):
        self.state = state
        self.mover = mover
        self.moves = moves
        self.result = result
        self.actions: np.ndarray | None = None
        self.prior = np.zeros(0)
        self.visits = np.zeros(0)
        self.value = np.zeros((0, 0))
        self.children: dict[int, Node] = {}

    def choose(self, c_puct: float, first_play_penalty: float) -> int:
        """The index of the action PUCT picks for the mover; an unvisited action counts as
        the node's mean value less ``first_play_penalty``."""
        total = self.visits.sum()
        own = self.value[:, self.mover]
        first_play = own.sum() / max(total, 1.0) - first_play_penalty
        q = np.where(self.visits > 0, own / np.maximum(self.visits, 1.0), first_play)
        u = c_puct * self.prior * math.sqrt(total + 1.0) / (1.0 + self.visits)
        return int(np.argmax(q + u))


class MCTS:
    """PUCT search over ``game``'s actions with ``evaluator`` as prior and value (module
    doc).

    Args:
        game: the game (its descriptor).
        evaluator: rates a batch of observations (module doc).
        max_turns: positions past it are cut as draws (default: the game's cap).
        c_puct: weight of the prior in the selection.
        batch: leaves evaluated together in one call.
        first_play_penalty: how much worse than the node's mean an unvisited action counts.
    """

    def __init__(
        self,
        game: Game,
        evaluator: Evaluator,
        max_turns: int | None = None,
        c_puct: float = 1.5,
        batch: int = 8,
        first_play_penalty: float = 0.2,
    ) -> None:
        if type(batch) is not int or batch < 1:
            raise ValueError(f"batch must be a whole number ≥ 1, got {batch!r:.40}")
        self.game = game
        self.evaluator = evaluator
        self.max_turns = game.max_turns if max_turns is None else max_turns
        self.c_puct = c_puct
        self.batch = batch
        self.first_play_penalty = first_play_penalty
        #: The last search's tree (for inspection): its root :class:`Node`.
        self.root: Node | None = None

    def search(
        self, state: Any, simulations: int, noise: Noise | None = None, moves: int = 0
    ) -> np.ndarray:
        """The root's visit counts over the game's actions (the mover's frame; zero on
        illegal actions, summing to ``simulations``). ``state`` is not changed; ``moves``:
        the moves played before it (the turn count of a game that keeps none); ``noise``
        mixes Dirichlet noise into the root's priors, for self-play."""
        if type(simulations) is not int or simulations < 1:
            raise ValueError(f"simulations must be a whole number ≥ 1, got {simulations!r:.40}")
        root = self.root = self._node(self._copy(state), moves)
        if root.mover is None:
            raise ValueError("search: the game is over (or past max_turns); nothing to search")
        visits = np.zeros(self.game.num_actions)
        mask = self.game.observe(root.state, root.mover, self.max_turns)["action_mask"]
        legal = np.flatnonzero(mask)
        if len(legal) == 1:  # forced: nothing to search
            visits[legal[0]] = simulations
            return visits
        self._expand([root])
        if noise is not None:
            alpha, fraction, rng = noise
            root.prior = (1 - fraction) * root.prior + fraction * rng.dirichlet(
                np.full(len(root.actions), alpha)
            )
        done = 0
        while done < simulations:
            paths = [self._select(root) for _ in range(min(self.batch, simulations - done))]
            fresh = {id(path[-1][0]): path[-1][0] for path in paths if path[-1][0].result is None}
            values = self._expand(list(fresh.values()))
            for path in paths:
                leaf = path[-1][0]
                self._backup(path, leaf.result if leaf.result is not None else values[id(leaf)])
            done += len(paths)
        visits[root.actions] = root.visits
        return visits

    # --- the tree ---------------------------------------------------------------------------

    def _copy(self, state: Any) -> Any:
        copy = getattr(state, "copy", None)
        return copy() if callable(copy) else self.game.from_text(self.game.to_text(state))

    def _node(self, state: Any, moves: int) -> Node:
        """A node for ``state`` reached after ``moves`` moves: ended when the game is over
        (its rewards) or past ``max_turns`` (0 for everyone)."""
        game = self.game
        mover = game.player_to_move(state)
        if mover is None:
            return Node(state, None, moves, np.asarray(game.rewards(state), dtype=float))
        turn = game.turn(state)
        if (moves if turn is None else turn) > self.max_turns:
            return Node(state, None, moves, np.zeros(game.num_players(state)))
        return Node(state, mover, moves, None)

    def _select(self, root: Node) -> list[tuple[Node, int]]:
        """A path from the root to a leaf (unexpanded or ended); each step on it gets a
        virtual visit that counts as a loss for its mover until the backup."""
        path: list[tuple[Node, int]] = []
        node = root
        while node.result is None and node.actions is not None:
            k = node.choose(self.c_puct, self.first_play_penalty)
            node.visits[k] += 1
            node.value[k, node.mover] -= 1.0
            path.append((node, k))
            child = node.children.get(k)
            if child is None:
                state = self._copy(node.state)
                self.game.play_action(state, int(node.actions[k]), who="the tree search")
                child = node.children[k] = self._node(state, node.moves + 1)
            node = child
        path.append((node, -1))
        return path

    @staticmethod
    def _backup(path: list[tuple[Node, int]], values: np.ndarray) -> None:
        for node, k in path[:-1]:
            node.value[k, node.mover] += 1.0  # the virtual loss taken back
            node.value[k] += values

    def _expand(self, nodes: list[Node]) -> dict[int, np.ndarray]:
        """Give ``nodes`` their legal actions and priors from one evaluator call; their
        per-player leaf values by id."""
        if not nodes:
            return {}
        game = self.game
        seen = [game.observe(node.state, node.mover, self.max_turns) for node in nodes]
        masks = np.stack([np.asarray(o["action_mask"], dtype=bool) for o in seen])
        logits, values = self.evaluator(np.stack([o["observation"] for o in seen]), masks)
        out = {}
        for node, mask, row, value in zip(nodes, masks, logits, values, strict=True):
            actions = np.flatnonzero(mask)
            if len(actions) == 0:
                raise ValueError(
                    f"player {node.mover} is to move in {game.to_text(node.state)!r} but has "
                    "no legal action"
                )
            z = np.asarray(row, dtype=float)[actions]
            z = np.exp(z - z.max())
            n = game.num_players(node.state)
            node.actions = actions
            node.prior = z / z.sum()
            node.visits = np.zeros(len(actions))
            node.value = np.zeros((len(actions), n))
            v = float(np.clip(value, -1.0, 1.0))
            leaf = np.full(n, -v / max(n - 1, 1))
            leaf[node.mover] = v
            out[id(node)] = leaf
        return out
