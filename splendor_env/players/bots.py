"""Splendor's baseline bots ``random`` and ``greedy``, and the position evaluation the search
players share (:func:`heuristic`, :func:`win_chances`): a seat's points plus weighted counts
of its bonuses, tokens, gold and progress towards the nobles, hand-set (:data:`HAND`) or
fitted to game outcomes (:data:`FITTED`, :func:`evaluation`), which ``search:fitted`` and
the training's reward shaping use.

Every bot here reads only what the seat to move may see (SPLENDOR_RULES.md §9): the market,
the supply, the nobles, every player's tokens, bonuses and points, and its own hand; never a
deck nor another player's reserved cards.

**random** plays a uniformly random legal move.

**greedy** looks no further than its own turn:

- *Buy*: if it can buy a card (market or own hand), it buys the one of highest
  :func:`card_value`: points, plus :data:`ENGINE` for the bonus while no player is near the
  end (scaled down as the leader approaches 15 points), plus :data:`NOBLE_HELP` per table
  noble that still lacks that colour from it; ties go to the cheaper card (fewest tokens
  spent), then the lower id.
- *Target*: otherwise it picks a target card among the market and its hand: the best
  ``card_value / (1 + turns)``, where ``turns`` estimates the turns of taking tokens it lacks
  (what it lacks after bonuses, tokens and gold, three tokens a turn).
- *Take*: it plays the take (or take2) move that gets most of what the target lacks, a
  second helpful token worth :data:`SPARE_TOKEN` (towards the next best card), less
  :data:`OVER_LIMIT` per token that would have to go back above 10. If no take helps the
  target and it may reserve, it reserves the target if the target lies in the market, or the
  market card of highest value, for the gold. Failing all, the first legal move.
- *Return* (§4.1): the token kind it holds most of beyond what the target lacks, gold last.
- *Noble* (§4.2): the lowest id (every noble is worth 3 points).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from splendor_env.rules import State
from splendor_env.rules.components import (
    CARD_BONUS,
    CARD_COST_PAIRS,
    CARD_POINTS,
    GOLD,
    HAND_LIMIT,
    NOBLE_NEED_PAIRS,
    NOBLE_POINTS,
    NUM_COLOURS,
    SLOTS,
    TOKEN_LIMIT,
    WIN_POINTS,
)
from splendor_env.rules.moves import (
    BUY,
    BUY_HAND,
    RESERVE,
    RESERVE_DECK,
    RETURN,
    TAKE2,
    TAKE_COLOURS,
)
from splendor_env.rules.notation import MAIN, NOBLE_PHASE, RETURN_PHASE
from tabletop.agents import Agent

#: Value of a card's bonus early in the game (fades as the leader nears 15 points).
ENGINE = 0.8
#: Value of a bonus for each table noble that still lacks that colour.
NOBLE_HELP = 0.4
#: Value of a taken token that the target does not need but the next best card does.
SPARE_TOKEN = 0.3
#: Cost of each token a take would make the player return (above 10).
OVER_LIMIT = 0.6

# --- what a seat may see, as plain numbers ------------------------------------------------


def lack(card: int, tokens: list[int], bonus: list[int]) -> list[int]:
    """Per colour, the tokens a player still lacks for ``card`` after bonuses and tokens."""
    out = [0] * NUM_COLOURS
    for c, v in CARD_COST_PAIRS[card]:
        v -= bonus[c] + tokens[c]
        if v > 0:
            out[c] = v
    return out


def net_price(card: int, bonus: list[int]) -> int:
    """The tokens ``card`` costs after the bonuses (gold included)."""
    total = 0
    for c, v in CARD_COST_PAIRS[card]:
        v -= bonus[c]
        if v > 0:
            total += v
    return total


def card_value(state: State, seat: int, card: int) -> float:
    """What ``card`` is worth to ``seat`` (see the module doc)."""
    bonus = state.bonus[seat]
    colour = CARD_BONUS[card]
    value = float(CARD_POINTS[card])
    lead = max(state.points)
    value += ENGINE * max(0.0, 1.0 - lead / WIN_POINTS)
    for noble in state.nobles:
        for c, v in NOBLE_NEED_PAIRS[noble]:
            if c == colour and bonus[c] < v:
                value += NOBLE_HELP
    return value


def visible_cards(state: State, seat: int) -> list[tuple[int, int]]:
    """``(card, buy move id)`` for every market card and every card of ``seat``'s hand."""
    out = []
    for level, row in enumerate(state.market):
        for s, card in enumerate(row):
            if card:
                out.append((card, BUY + level * SLOTS + s))
    for h, card in enumerate(state.hands[seat]):
        out.append((card, BUY_HAND + h))
    return out


# --- bots -----------------------------------------------------------------------------------


class RandomAgent(Agent):
    """Plays a uniformly random legal move."""

    needs_observation = False
    batched = True
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._batch_rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
            self._batch_rng = np.random.default_rng(seed)

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        return self._rng.choice(state.legal_move_ids())

    def act_batch(self, observations: np.ndarray | None, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        counts = masks.sum(axis=1)
        picks = (self._batch_rng.random(len(masks)) * counts).astype(np.int64)
        return (np.cumsum(masks, axis=1) > picks[:, None]).argmax(axis=1)


def greedy_move(state: State) -> int:
    """The move id ``greedy`` plays in ``state`` (module doc); deterministic."""
    legal = state.legal_move_ids()
    if len(legal) == 1:
        return legal[0]
    seat = state.to_move
    phase = state.phase
    if phase == NOBLE_PHASE:
        return legal[0]
    tokens = state.tokens[seat]
    bonus = state.bonus[seat]
    if phase == RETURN_PHASE:
        target = _targets(state, seat, tokens, bonus)
        need = lack(target[0], tokens, bonus) if target else [0] * NUM_COLOURS
        best, best_move = -99, legal[0]
        for move in legal:
            x = move - RETURN
            surplus = -50 if x == GOLD else tokens[x] - need[x]
            if surplus > best:
                best, best_move = surplus, move
        return best_move
    if phase != MAIN:
        return legal[0]
    legal_set = set(legal)
    gold = tokens[GOLD]
    best_buy, best_key = -1, None
    for card, move in visible_cards(state, seat):
        if move in legal_set:
            key = (card_value(state, seat, card), -net_price(card, bonus), -card)
            if best_key is None or key > best_key:
                best_key, best_buy = key, move
    if best_buy >= 0:
        return best_buy
    targets = _targets(state, seat, tokens, bonus)
    need = lack(targets[0], tokens, bonus) if targets else [0] * NUM_COLOURS
    spare = lack(targets[1], tokens, bonus) if len(targets) > 1 else [0] * NUM_COLOURS
    held = sum(tokens)
    best_take, best_score = -1, 0.0
    for move in legal:
        if move >= RESERVE:
            break
        if move < TAKE2:
            taken = [(c, 1) for c in TAKE_COLOURS[move]]
            count = len(taken)
        else:
            taken = [(move - TAKE2, 2)]
            count = 2
        score = 0.0
        for c, k in taken:
            useful = min(k, need[c])
            score += useful + SPARE_TOKEN * min(k - useful, spare[c])
        over = held + count - TOKEN_LIMIT
        if over > 0:
            score -= OVER_LIMIT * over
        if score > best_score + 1e-9:
            best_score, best_take = score, move
    if best_take >= 0 and best_score >= 1.0 - 1e-9:
        return best_take
    if len(state.hands[seat]) < HAND_LIMIT:
        reserve = _reserve_move(state, seat, targets, legal_set)
        if reserve >= 0 and (gold < 3 or best_take < 0):
            return reserve
    if best_take >= 0:
        return best_take
    return legal[0]


def _targets(state: State, seat: int, tokens: list[int], bonus: list[int]) -> list[int]:
    """Visible cards ordered by ``card_value / (1 + turns)``, best first (module doc)."""
    gold = tokens[GOLD]
    scored = []
    for card, _ in visible_cards(state, seat):
        short = sum(lack(card, tokens, bonus)) - gold
        turns = math.ceil(max(short, 0) / 3)
        scored.append((-card_value(state, seat, card) / (1 + turns), card))
    scored.sort()
    return [card for _, card in scored]


def _reserve_move(state: State, seat: int, targets: list[int], legal: set[int]) -> int:
    """The move reserving the first target in the market, else the market card of highest
    value, -1 if neither can be reserved."""
    where = {}
    for level, row in enumerate(state.market):
        for s, card in enumerate(row):
            if card:
                where[card] = RESERVE + level * SLOTS + s
    for card in targets:
        move = where.get(card, -1)
        if move in legal:
            return move
    for level in (2, 1, 0):
        if RESERVE_DECK + level in legal:
            return RESERVE_DECK + level
    return -1


class GreedyAgent(Agent):
    """The documented one-turn heuristic (module doc); deterministic."""

    needs_observation = False
    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, state: State, observation: Mapping[str, np.ndarray] | None = None) -> int:
        return greedy_move(state)


# --- evaluation -----------------------------------------------------------------------------

#: Weights of :func:`heuristic`: per bonus, per coloured token, per gold, per noble filled.
BONUS_WEIGHT = 0.45
TOKEN_WEIGHT = 0.1
GOLD_WEIGHT = 0.18
NOBLE_PROGRESS = 1.5
#: Points of :func:`heuristic` margin that make one player e times likelier to win.
TEMPERATURE = 2.0


def heuristic(state: State, seat: int) -> float:
    """How well ``seat`` stands, in points: its points, plus its bonuses, tokens and its
    progress towards each table noble (``NOBLE_PROGRESS`` times the share of the noble's
    requirement met, squared)."""
    bonus = state.bonus[seat]
    tokens = state.tokens[seat]
    value = state.points[seat] + BONUS_WEIGHT * sum(bonus)
    value += TOKEN_WEIGHT * (sum(tokens) - tokens[GOLD]) + GOLD_WEIGHT * tokens[GOLD]
    for noble in state.nobles:
        met = need = 0
        for c, v in NOBLE_NEED_PAIRS[noble]:
            need += v
            met += min(v, bonus[c])
        value += NOBLE_PROGRESS * (met / need) ** 2 * (NOBLE_POINTS / 3)
    return value


class Weights(NamedTuple):
    """The weights of a position evaluation, in points, one per :data:`FEATURES` entry, and
    its temperature (points of margin that make one player e times likelier to win)."""

    bonus: float
    tokens: float
    gold: float
    nobles: float
    bonus_late: float
    reserved: float
    temperature: float


#: What :func:`feature_counts` counts for a seat: its bonuses, coloured tokens and gold, its
#: progress towards the table's nobles (as in :func:`heuristic`), its bonuses times the
#: leader's share of the 15 points (so that a bonus may be worth less as the end nears), and
#: its reserved cards.
FEATURES = ("bonus", "tokens", "gold", "nobles", "bonus_late", "reserved")
#: :func:`heuristic`'s weights (the two features it does not use weigh 0).
HAND = Weights(BONUS_WEIGHT, TOKEN_WEIGHT, GOLD_WEIGHT, NOBLE_PROGRESS, 0.0, 0.0, TEMPERATURE)
#: The weights fitted to the outcomes of 4,000 games a player count by
#: :mod:`training.splendor_weights` (``results/splendor_weights``), which ``search:fitted``
#: plays with.
FITTED = {
    2: Weights(2.639, 0.429, 0.627, 4.728, -2.651, 0.094, 3.526),
    3: Weights(2.846, 0.486, 0.66, 4.681, -2.767, -0.006, 3.353),
    4: Weights(3.027, 0.506, 0.677, 2.486, -3.088, -0.016, 2.906),
}


def feature_counts(state: State, seat: int) -> tuple[float, ...]:
    """The counts of :data:`FEATURES` for ``seat`` (see there)."""
    bonus = state.bonus[seat]
    tokens = state.tokens[seat]
    nobles = 0.0
    for noble in state.nobles:
        met = need = 0
        for c, v in NOBLE_NEED_PAIRS[noble]:
            need += v
            met += min(v, bonus[c])
        nobles += (met / need) ** 2 * (NOBLE_POINTS / 3)
    bonuses = sum(bonus)
    late = min(max(state.points), WIN_POINTS) / WIN_POINTS
    return (
        float(bonuses),
        float(sum(tokens) - tokens[GOLD]),
        float(tokens[GOLD]),
        nobles,
        bonuses * late,
        float(len(state.hands[seat])),
    )


def evaluation(state: State, seat: int, weights: Weights) -> float:
    """How well ``seat`` stands, in points: its points plus ``weights`` times
    :func:`feature_counts` (with :data:`HAND`, :func:`heuristic` up to rounding)."""
    counts = feature_counts(state, seat)
    return state.points[seat] + sum(w * c for w, c in zip(weights, counts, strict=False))


def win_chances(state: State, weights: Weights | None = None) -> list[float]:
    """Each seat's chance to win, as the search players estimate it: from the rules'
    winners once the game is over (a shared win split, none: equal shares), else a softmax
    of :func:`heuristic` over :data:`TEMPERATURE`, or with ``weights`` of
    :func:`evaluation` over their temperature."""
    n = state.num_players
    if state.to_move < 0:
        winners = state.winners()
        if not winners:
            return [1.0 / n] * n
        share = 1.0 / len(winners)
        return [share if s in winners else 0.0 for s in range(n)]
    if weights is None:
        values = [heuristic(state, s) / TEMPERATURE for s in range(n)]
    else:
        values = [evaluation(state, s, weights) / weights.temperature for s in range(n)]
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]
