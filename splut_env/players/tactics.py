"""Exact tactics of the rules, no evaluation heuristic: the positions a turn can end in,
whether a player can kill a wizard within a turn, whether a two-player position is a forced
win, and :class:`ShieldedAgent`, which narrows any agent's action mask with them. Pure
Python plus numpy (for the mask); no torch."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from splut_env.common.agents import Agent
from splut_env.encoding import NUM_ACTIONS, step_id_to_action
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
        probe = state.copy()
        probe.to_move, probe.steps_left, probe.lev = other, 3, -1
        probe.locked = probe.moved = 0
        probe._legal = None
        if threatens(probe, seat):
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


#: A checkpoint path followed by this names its player under the shield (``path.zip:shield``).
SHIELD_SUFFIX = ":shield"


class ShieldedAgent(Agent):
    """Any agent whose blunders the rules veto (an action *shield*).

    At each step the shield sorts the legal steps by the best way the turn can still end
    after them: (3) a turn that kills an opponent's wizard or wins; (2) with two players, a
    turn after which the opponent cannot kill our wizard and every turn it can play leaves
    us a kill (:func:`forced_win`); (1) a turn after which no opponent can kill our wizard
    with one turn (:func:`exposed`); (0) any other. The inner agent then gets the
    observation with its ``action_mask`` narrowed to the steps of the best tier, so an agent
    that chooses within its mask (a trained policy) never misses a kill in one turn or a
    forced kill in two, and never walks into a kill it could have avoided. An inner agent
    that ignores the mask and chooses outside it gets the lowest allowed action instead.
    The shield looks at the rules alone (exact searches, no evaluation heuristic), at most
    two turns ahead; everything else is the inner agent's choice. ``tiers`` computes each
    legal step's tier instead of :meth:`step_tiers` (checkpoints use the compiled
    :class:`splut_env.batched.shield.CompiledTiers`, the same tiers faster).
    """

    needs_observation = True

    def __init__(
        self,
        inner: Agent,
        max_turns: int | None = None,
        tiers: Callable[[State], dict[int, int]] | None = None,
    ) -> None:
        self.inner = inner
        self.tiers = tiers or self.step_tiers
        self.name = f"{inner.name}:shield"
        self.num_players = inner.num_players
        self.max_turns = max_turns or getattr(inner, "max_turns", 200)
        self._tiers: dict[tuple, int] = {}
        self._turn = -1

    @property
    def meta(self) -> dict[str, Any]:
        """The inner agent's metadata (a checkpoint's), if it has any."""
        return getattr(self.inner, "meta", {})

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)
        self._tiers, self._turn = {}, -1

    def step_tiers(self, state: State) -> dict[int, int]:
        """Each legal step id of ``state`` with the best tier its turn can reach."""
        if state.turn != self._turn:
            self._tiers, self._turn = {}, state.turn
        seat, alive = state.to_move, len(state.alive_seats())
        return {i: self._after(state, i, seat, alive) for i in state.legal_ids()}

    def allowed(self, state: State) -> np.ndarray:
        """The ``int8[196]`` mask of the best tier's steps, in the mover's frame."""
        tiers = self.tiers(state)
        best = max(tiers.values())
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        for i, tier in tiers.items():
            mask[step_id_to_action(state.to_move, i)] = tier == best
        return mask

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        mask = self.allowed(state)
        narrowed = None
        if self.inner.needs_observation:
            if observation is None:
                observation = encode(state, state.to_move, self.max_turns)
            narrowed = {**observation, "action_mask": mask}
        action = self.inner.act(state, narrowed)
        return action if mask[action] else int(np.flatnonzero(mask)[0])

    def _after(self, state: State, step: int, seat: int, alive: int) -> int:
        """The best tier the turn can reach after ``step`` (-1: our wizard dies), memoised
        by position: a turn's step orders often meet in the same position."""
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
