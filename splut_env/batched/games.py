"""Many Splut! games stepped at once: :class:`BatchedGames`, the batched engine."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from splut_env.batched import kernels as K
from splut_env.encoding import NUM_ACTIONS, OBS_SHAPE
from splut_env.rules.board import SEATS, player_count, turn_cap
from splut_env.rules.engine import State
from splut_env.rules.notation import IllegalStepError, format_spn, quote


def _rows(indices: Sequence[int] | np.ndarray | None, size: int) -> np.ndarray:
    if indices is None:
        return np.arange(size, dtype=np.int64)
    rows = np.asarray(indices, dtype=np.int64).reshape(-1)
    if rows.size and (rows.min() < 0 or rows.max() >= size):
        raise IndexError(f"game indices must be in 0..{size - 1}, got {rows.tolist()!r:.120}")
    return rows


class BatchedGames:
    """``size`` Splut! games as one ``int64[size, WIDTH]`` array (:attr:`games`), stepped by
    compiled kernels; the same game as :class:`splut_env.rules.State`, exactly.

    Actions are in the frame of the player to move (the environments' ``Discrete(196)``
    layout, :mod:`splut_env.encoding`). Every method takes optional ``indices`` (the games
    to work on, default all) and returns arrays in that order.

    Args:
        size: number of games.
        num_players: 2, 3 or 4 (every game starts with this many; :meth:`reset` and
            :meth:`set_spn` can change single games).
        max_turns: the turn cap: a step that ends turn ``max_turns`` truncates the game.
    """

    def __init__(self, size: int, num_players: int = 2, max_turns: int = 200) -> None:
        if not isinstance(size, (int, np.integer)) or isinstance(size, bool) or size < 1:
            raise ValueError(f"size must be a whole number of games >= 1, got {size!r:.80}")
        self.size = int(size)
        self.num_players = player_count(num_players)
        self.max_turns = turn_cap(max_turns)
        self.games = np.zeros((self.size, K.WIDTH), dtype=np.int64)
        #: ``bool[size, 196]``: the legal actions of each game's player to move, in its frame,
        #: kept up to date by every change (all false once a game is over).
        self.masks = np.zeros((self.size, NUM_ACTIONS), dtype=np.bool_)
        #: The same as lists: ``legal[i, :counts[i]]`` are game ``i``'s legal actions.
        self.legal = np.zeros((self.size, K.MAX_LEGAL), dtype=np.int64)
        self.counts = np.zeros(self.size, dtype=np.int64)
        self.reset()

    # --- positions -----------------------------------------------------------------------

    def reset(self, indices: Sequence[int] | None = None, num_players: int | None = None) -> None:
        """Put the start position (for ``num_players``, default the batch's) in the games."""
        rows = _rows(indices, self.size)
        n = self.num_players if num_players is None else player_count(num_players)
        K.reset_games(
            self.games,
            self.masks,
            self.legal,
            self.counts,
            rows,
            np.full(rows.size, n, dtype=np.int64),
        )

    def set_state(self, index: int, state: State) -> None:
        """Copy a scalar engine position into game ``index``."""
        index = int(_rows([index], self.size)[0])
        g = self.games[index]
        g[:] = 0
        g[K.CELLS : K.CELLS + 41] = state.cells
        g[K.POS : K.POS + 12] = state.pos
        g[K.ROCKS : K.ROCKS + 4] = state.rocks
        g[K.SEATS : K.SEATS + 4] = -1
        g[K.SEATS : K.SEATS + len(state.seats)] = state.seats
        g[K.NUM_SEATS] = len(state.seats)
        g[K.TO_MOVE], g[K.TURN], g[K.STEPS_LEFT] = state.to_move, state.turn, state.steps_left
        g[K.LEV], g[K.LOCKED], g[K.MOVED] = state.lev, state.locked, state.moved
        K.refresh(self.games, self.masks, self.legal, self.counts, np.array([index]))

    def state(self, index: int) -> State:
        """Game ``index`` as a scalar engine position (a new :class:`State`)."""
        g = self.games[_rows([index], self.size)[0]].tolist()
        st = State.__new__(State)
        st.cells = g[K.CELLS : K.CELLS + 41]
        st.pos = g[K.POS : K.POS + 12]
        st.rocks = g[K.ROCKS : K.ROCKS + 4]
        st.seats = tuple(g[K.SEATS : K.SEATS + g[K.NUM_SEATS]])
        st.to_move, st.turn, st.steps_left = g[K.TO_MOVE], g[K.TURN], g[K.STEPS_LEFT]
        st.lev, st.locked, st.moved = g[K.LEV], g[K.LOCKED], g[K.MOVED]
        st._legal = None
        return st

    def set_spn(self, index: int, spn: str) -> None:
        """Put the position of SPN text in game ``index`` (raises ``InvalidNotationError``)."""
        self.set_state(index, State(spn))

    def spn(self, index: int) -> str:
        """The SPN of game ``index``."""
        return format_spn(self.state(index))

    # --- queries -------------------------------------------------------------------------

    def to_move(self, indices: Sequence[int] | None = None) -> np.ndarray:
        """The seat to move (0..3 for S, W, N, E) in each game, -1 where it is over."""
        return self.games[_rows(indices, self.size), K.TO_MOVE].copy()

    def turn(self, indices: Sequence[int] | None = None) -> np.ndarray:
        return self.games[_rows(indices, self.size), K.TURN].copy()

    def alive(self, indices: Sequence[int] | None = None) -> np.ndarray:
        """``bool[n, 4]``: whether each seat's wizard is on the board."""
        rows = _rows(indices, self.size)
        return self.games[rows][:, K.POS : K.POS + 12 : 3] >= 0

    def winner(self, indices: Sequence[int] | None = None) -> np.ndarray:
        """The winning seat of each game, -1 if not over or over without a winner."""
        rows = _rows(indices, self.size)
        alive = self.alive(rows)
        over = self.games[rows, K.TO_MOVE] < 0
        single = alive.sum(axis=1) == 1
        return np.where(over & single, alive.argmax(axis=1), -1)

    def action_masks(
        self, indices: Sequence[int] | None = None, seats: Sequence[int] | None = None
    ) -> np.ndarray:
        """``bool[n, 196]``: the legal actions of ``seats`` (default: the player to move),
        each in its own frame; all false for a seat not to move."""
        rows = _rows(indices, self.size)
        if seats is None:
            return self.masks[rows]
        out = np.empty((rows.size, NUM_ACTIONS), dtype=np.bool_)
        K.seat_masks(self.games, rows, self._seats(rows, seats), out)
        return out

    def observations(
        self,
        indices: Sequence[int] | None = None,
        seats: Sequence[int] | None = None,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """``float32[n, 22, 9, 9]``: the observation planes of ``seats`` (default: the player
        to move; seat S for a finished game), bit for bit those of :mod:`splut_env.encoding`.
        ``out``: an array of that shape and type to fill instead of a new one (faster)."""
        rows = _rows(indices, self.size)
        seats_arr = self._seats(rows, seats)
        shape = (rows.size, *OBS_SHAPE)
        if out is None:
            out = np.empty(shape, dtype=np.float32)
        elif out.shape != shape or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of shape {shape}")
        K.planes(self.games, rows, seats_arr, self.max_turns, out.reshape(rows.size, -1))
        return out

    def evaluate(self, seats: Sequence[int], indices: Sequence[int] | None = None) -> np.ndarray:
        """The bots' static evaluation (:func:`splut_env.players.bots.evaluate`) of each game
        for ``seats``."""
        rows = _rows(indices, self.size)
        out = np.empty(rows.size, dtype=np.float64)
        K.evaluate(self.games, rows, self._seats(rows, seats), out)
        return out

    def _seats(self, rows: np.ndarray, seats: Sequence[int] | None) -> np.ndarray:
        if seats is None:
            return np.maximum(self.games[rows, K.TO_MOVE], 0)
        arr = np.asarray(seats, dtype=np.int64).reshape(-1)
        if arr.size != rows.size:
            raise ValueError(f"expected {rows.size} seats, got {arr.size}")
        in_play = self.games[rows, K.SEATS : K.SEATS + 4]
        if not (in_play == arr[:, None]).any(axis=1).all():
            raise ValueError(f"seats {arr.tolist()!r:.120} are not all in play in their games")
        return arr

    # --- stepping ------------------------------------------------------------------------

    def step(
        self,
        actions: Sequence[int] | np.ndarray,
        indices: Sequence[int] | None = None,
        autoreset: bool = False,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play one action per game (in the frame of its player to move).

        Returns ``(rewards, terminated, truncated)``: ``float32[n, 4]`` per seat (+1 the
        winner, -1 a seat whose wizard this step killed), and two ``bool[n]``. With
        ``autoreset``, the games that ended (or reached the turn cap) start again at once
        with as many players, after their rewards are counted. Raises
        :class:`IllegalStepError` naming the first game with an illegal action, before any
        game is changed.
        """
        rows = _rows(indices, self.size)
        acts = np.asarray(actions)
        if acts.shape != (rows.size,) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {rows.size} whole numbers (one per game), got {quote(actions)}"
            )
        if indices is not None and np.unique(rows).size != rows.size:
            raise ValueError(f"each game may be stepped once per call, got {rows.tolist()!r:.120}")
        acts = acts.astype(np.int64)
        rewards = np.empty((rows.size, 4), dtype=np.float32)
        terminated = np.empty(rows.size, dtype=np.bool_)
        truncated = np.empty(rows.size, dtype=np.bool_)
        bad = K.step(
            *(self.games, self.masks, self.legal, self.counts, rows, acts, self.max_turns),
            *(rewards, terminated, truncated),
        )
        if bad >= 0:
            seat = int(self.games[rows[bad], K.TO_MOVE])
            raise IllegalStepError(
                f"illegal action {quote(actions[bad])} in game {rows[bad]} "
                f"({'over' if seat < 0 else 'seat ' + SEATS[seat] + ' to move'}) in position "
                f"{self.spn(int(rows[bad]))!r}: expected an action with a 1 in its action mask"
            )
        if autoreset:
            ended = rows[terminated | truncated]
            if ended.size:
                players = self.games[ended, K.NUM_SEATS]
                K.reset_games(self.games, self.masks, self.legal, self.counts, ended, players)
        return rewards, terminated, truncated

    def random_actions(
        self, rng: np.random.Generator, indices: Sequence[int] | None = None
    ) -> np.ndarray:
        """A uniformly random legal action of the player to move in each game (-1 if over)."""
        rows = _rows(indices, self.size)
        out = np.empty(rows.size, dtype=np.int64)
        K.random_actions(self.legal, self.counts, rows, rng.random(rows.size), out)
        return out

    def perft(self, index: int, depth: int) -> int:
        """Step sequences of ``depth`` steps from game ``index`` (``PERFT.md``'s counts)."""
        return int(K.perft(self.games[_rows([index], self.size)[0]].copy(), depth))
