"""Exact tactics of the rules, no evaluation heuristic: the positions a turn can end in,
whether a player can kill a wizard within a turn, whether a two-player position is a forced
win, and :class:`ShieldedAgent`, which narrows any agent's action mask with them. Pure
Python plus numpy (for the mask); no torch."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from splut_env.encoding import NUM_ACTIONS, action_to_step_id, step_id_to_action
from splut_env.encoding import observation as encode
from splut_env.rules.board import (
    CELL_KIND,
    NEIGHBOUR,
    ROCK,
    STOPS_THROW,
    TROLL_BASE,
    WIZARD,
    decode_id,
)
from splut_env.rules.engine import State
from tabletop.agents import Agent

_IS_THROW = tuple(TROLL_BASE <= i < TROLL_BASE + 24 and decode_id(i)[2] >= 2 for i in range(196))

Outcome = tuple[tuple[int, ...], State]


def iter_turn_outcomes(state: State) -> Iterator[Outcome]:
    """Every distinct position at the end of the current turn, each with one step sequence
    (engine step ids) that reaches it, in a deterministic order, found lazily: a caller
    looking for one such position stops the search when it has it."""
    turn = state.turn
    seen: set[tuple] = set()  # mid-turn and end-of-turn keys differ in turn or mover
    stack: list[Outcome] = [((), state)]
    while stack:
        seq, st = stack.pop()
        for i in st.legal_ids():
            child = st.copy()
            child.apply(i)
            key = child.key()
            if key in seen:
                continue
            seen.add(key)
            if child.turn != turn or child.to_move < 0:
                yield (*seq, i), child
            else:
                stack.append(((*seq, i), child))


def turn_outcomes(state: State) -> list[Outcome]:
    """:func:`iter_turn_outcomes` as a list."""
    return list(iter_turn_outcomes(state))


def kill_throws(state: State, seat: int) -> int:
    """How many throws ``seat``'s troll could make now that land on another wizard."""
    cells = state.cells
    x = state.pos[seat * 3 + 1]
    if x < 0:
        return 0
    kills = 0
    for d in range(4):
        t = NEIGHBOUR[d][x]
        if t < 0 or cells[t] != ROCK:
            continue
        for td in range(4):
            f = NEIGHBOUR[td][t]
            if f < 0 or (f != x and STOPS_THROW[cells[f]]):
                continue
            c = cells[state._flight(t, td, x)]
            if c >= 2 and CELL_KIND[c] == WIZARD and (c - 2) // 3 != seat:
                kills += 1
    return kills


def threatens(state: State, victim: int) -> bool:
    """Whether the player to move can kill ``victim``'s wizard within its current turn."""
    if state.to_move < 0 or state.to_move == victim:
        return False
    turn = state.turn
    target = 2 + victim * 3
    seen: set[tuple] = set()
    stack = [state]
    while stack:
        st = stack.pop()
        legal = st.legal_ids()
        for i in legal:
            if _IS_THROW[i] and st.cells[st.landing(i)] == target:
                return True
        if st.steps_left <= 1:
            continue
        for i in legal:
            if _IS_THROW[i]:
                continue
            child = st.copy()
            child.apply(i)
            if child.turn != turn:
                continue
            key = child.key()
            if key not in seen:
                seen.add(key)
                stack.append(child)
    return False


def exposed(state: State, seat: int) -> bool:
    """Whether an opponent could kill ``seat``'s wizard with a full turn from ``state``: the
    player to move within its turn, and (3–4 players) each other opponent as if it moved
    next, with three steps and no rock locked."""
    if threatens(state, seat):
        return True
    for other in state.alive_seats():
        if other in (seat, state.to_move):
            continue
        if threatens(_probe(state, other), seat):
            return True
    return False


def forced_win(state: State, seat: int) -> bool:
    """Whether ``seat`` wins by force with its next turn (two players, ``seat`` not to
    move): every turn the player to move can play leaves ``seat`` a kill. Exact; the search
    stops at the first turn that escapes, so most positions cost about one
    :func:`threatens`."""
    victim = state.to_move
    if victim < 0 or victim == seat or len(state.alive_seats()) != 2:
        return False
    return not any(
        end.pos[victim * 3] >= 0 and not threatens(end, victim)
        for _, end in iter_turn_outcomes(state)
    )


def _probe(state: State, seat: int) -> State:
    """``state`` with ``seat`` to move a whole fresh turn, as if the player to move passed."""
    probe = state.copy()
    probe.to_move, probe.steps_left, probe.lev = seat, 3, -1
    probe.locked = probe.moved = 0
    probe._legal = None
    return probe


def forced_loss(state: State, seat: int) -> bool:
    """Whether the opponent to move (two players) has a turn that kills ``seat``'s wizard or
    makes a threat ``seat`` cannot parry: after it, the opponent could kill that wizard if
    ``seat`` did not move, and every turn ``seat`` can play leaves it a kill
    (:func:`forced_win`). Threats that stand are what it finds: a loss that ``seat``'s own
    obligation to move brings about is not."""
    opponent = state.to_move
    if opponent < 0 or opponent == seat or len(state.alive_seats()) != 2:
        return False
    for _, end in iter_turn_outcomes(state):
        if end.pos[seat * 3] < 0:
            return True
        if end.to_move < 0:
            continue
        if end.to_move == opponent:  # seat had no legal step: its turn was forfeited
            if threatens(end, seat):
                return True
        elif threatens(_probe(end, opponent), seat) and forced_win(end, opponent):
            return True
    return False


#: A checkpoint path followed by this names its player under the shield (``path.zip:shield``).
SHIELD_SUFFIX = ":shield"


class ShieldTactics:
    """The shield's exact searches, memoised within a turn (pure Python: the reference;
    checkpoints use the compiled :class:`splut_env.batched.shield.CompiledTactics`).

    :meth:`tiers` gives each legal step the best tier the turn can reach after it: (3) a
    turn that kills an opponent's wizard or wins; (2) with two players, a turn after which
    the opponent cannot kill our wizard and every turn it can play leaves us a kill
    (:func:`forced_win`); (1) a turn after which no opponent can kill our wizard with one
    turn (:func:`exposed`); (0) any other; (-1) our wizard dies. :meth:`escapes` says
    whether, after a step, the turn can end in tier 1 without a :func:`forced_loss`.
    """

    def __init__(self) -> None:
        self._turn: tuple[int, int, int] = (-1, -1, 0)
        self._clear()

    def _clear(self) -> None:
        """Forget the turn's memos."""
        self._tiers: dict[tuple, int] = {}
        self._escapes: dict[tuple, bool] = {}

    def _new_turn(self, state: State) -> None:
        # A tier depends on the position after a step, the seat to move and how many
        # wizards were alive when the turn began: memos last while those and the turn do.
        turn = (state.turn, state.to_move, len(state.alive_seats()))
        if turn != self._turn:
            self._turn = turn
            self._clear()

    def tiers(self, state: State) -> dict[int, int]:
        """Each legal step id of ``state`` with the best tier its turn can reach."""
        self._new_turn(state)
        seat, alive = state.to_move, len(state.alive_seats())
        return {i: self._after(state, i, seat, alive) for i in state.legal_ids()}

    def escapes(self, state: State, step: int) -> bool:
        """Whether the turn can end, after ``step``, where no opponent can kill our wizard
        with one turn and the opponent has no :func:`forced_loss` for us (two players)."""
        self._new_turn(state)
        seat = state.to_move
        child = state.copy()
        child.apply(step)
        if child.turn == state.turn and child.to_move >= 0:
            ends = (end for _, end in iter_turn_outcomes(child))
        else:
            ends = iter((child,))
        for end in ends:
            key = end.key()
            safe = self._escapes.get(key)
            if safe is None:
                safe = not (end.pos[seat * 3] < 0 or exposed(end, seat) or forced_loss(end, seat))
                self._escapes[key] = safe
            if safe:
                return True
        return False

    def _after(self, state: State, step: int, seat: int, alive: int) -> int:
        """The best tier the turn can reach after ``step``, memoised by position: a turn's
        step orders often meet in the same position."""
        child = state.copy()
        child.apply(step)
        key = child.key()
        tier = self._tiers.get(key)
        if tier is None:
            tier = self._tiers[key] = self._tier(child, state.turn, seat, alive)
        return tier

    def _tier(self, child: State, turn: int, seat: int, alive: int) -> int:
        if child.turn == turn and child.to_move >= 0:  # the turn goes on
            tier = -1
            for i in child.legal_ids():
                tier = max(tier, self._after(child, i, seat, alive))
                if tier == 3:
                    break
            return tier
        if child.pos[seat * 3] < 0:
            return -1
        if child.to_move < 0 or len(child.alive_seats()) < alive:
            return 3
        if exposed(child, seat):
            return 0
        return 2 if forced_win(child, seat) else 1


class ShieldedAgent(Agent):
    """Any agent whose blunders the rules veto (an action *shield*).

    At each step the shield sorts the legal steps into tiers by the best way the turn can
    still end after them (:class:`ShieldTactics`: a kill, a forced kill in two turns, a
    turn after which no opponent can kill our wizard, any other), and the inner agent gets
    the observation with its ``action_mask`` narrowed to the best tier. So an agent that
    chooses within its mask (a trained policy) never misses a kill in one turn or a forced
    kill in two, and never walks into a kill it could have avoided. When the best it can do
    is a safe turn (two players), the shield also asks the inner agent again, without the
    step it chose, while that step's turn can only end in a :func:`forced_loss` (a threat
    it could not parry) and another might not. An inner agent that ignores the mask and
    chooses outside it gets the lowest allowed action instead. The shield looks at the
    rules alone (exact searches, no evaluation heuristic), at most three turns ahead;
    everything else is the inner agent's choice. ``tactics``: the searches (default the
    Python :class:`ShieldTactics`).
    """

    needs_observation = True

    def __init__(
        self,
        inner: Agent,
        max_turns: int | None = None,
        tactics: ShieldTactics | None = None,
    ) -> None:
        self.inner = inner
        self.tactics = tactics or ShieldTactics()
        self.name = f"{inner.name}:shield"
        self.num_players = inner.num_players
        self.max_turns = max_turns or getattr(inner, "max_turns", 200)

    @property
    def meta(self) -> dict[str, Any]:
        """The inner agent's metadata (a checkpoint's), if it has any."""
        return getattr(self.inner, "meta", {})

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def allowed(self, state: State) -> np.ndarray:
        """The ``int8[196]`` mask of the best tier's steps, in the mover's frame."""
        return self._allowed(state)[0]

    def _allowed(self, state: State) -> tuple[np.ndarray, int]:
        tiers = self.tactics.tiers(state)
        best = max(tiers.values())
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        for i, tier in tiers.items():
            mask[step_id_to_action(state.to_move, i)] = tier == best
        return mask, best

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        mask, best = self._allowed(state)
        if self.inner.needs_observation and observation is None:
            observation = encode(state, state.to_move, self.max_turns)
        if best != 1 or len(state.alive_seats()) != 2:
            return self._ask(state, observation, mask)
        candidates = mask.copy()
        while candidates.any():
            action = self._ask(state, observation, candidates)
            if self.tactics.escapes(state, action_to_step_id(state.to_move, action)):
                return action
            candidates[action] = 0
        return self._ask(state, observation, mask)  # every safe turn loses by force

    def _ask(self, state: State, observation: Mapping[str, np.ndarray] | None, mask) -> int:
        """The inner agent's action within ``mask`` (the lowest allowed one if it ignores it)."""
        narrowed = {**observation, "action_mask": mask} if observation is not None else None
        action = self.inner.act(state, narrowed)
        return action if mask[action] else int(np.flatnonzero(mask)[0])
