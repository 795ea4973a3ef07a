"""Talat's expert search guided by a network (``…zip:expert``): legal and repeatable games,
the network deciding exactly among the moves the search values equally (or within a
margin), the spec and its errors, and the search players' moves left as they were."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
import torch

from tabletop.games import get_game
from talat_env import rules
from talat_env.encoding import action_mask, action_of, observation
from talat_env.players import make_agent
from talat_env.players.guided import DEFAULT_NODES, GuidedSearchAgent, parse_guided
from talat_env.players.ladder import play_game
from talat_env.players.search import IN_HAND, LEVELS, TIE, SearchAgent, child_key, zobrist

FILE_2P, FILE_3P = "checkpoints/talat_2p.zip", "checkpoints/talat_3p.zip"


class StubPolicy:
    """A network whose logits are the same for every position: 0, or ``favour[a]`` for
    action ``a``."""

    name = "stub"

    def __init__(self, num_players: int, favour: dict[int, float] | None = None) -> None:
        self.num_players = num_players
        self.row = np.zeros(1051, dtype=np.float32)
        for action, logit in (favour or {}).items():
            self.row[action] = logit

    def reset(self, seed=None) -> None:
        pass

    def logits(self, observations: np.ndarray) -> np.ndarray:
        return np.tile(self.row, (len(observations), 1))


def favouring(state, move: int, nodes: int = 10**6, depth: int = 2) -> GuidedSearchAgent:
    """A guided player whose stub network likes ``move`` best, searching ``depth`` plies
    to the end (no budget cut, so its values do not depend on the search order)."""
    seat = state.to_move
    stub = StubPolicy(state.num_players, {action_of(state.num_players, seat, move): 5.0})
    agent = GuidedSearchAgent(stub, nodes=nodes, seed=0)
    agent.search.depth = depth
    return agent


def positions(players: int, seed: int, plies: tuple[int, ...]) -> list:
    """Copies of a uniformly random game's positions after ``plies`` moves."""
    rng = random.Random(seed)
    state, out, k = rules.initial_state(players), [], 0
    while not state.is_over():
        if k in plies:
            out.append(state.copy())
        state.apply(rng.choice(state.legal_ids()))
        k += 1
    return out


def exact_values(agent: SearchAgent, state, depth: int) -> dict[int, float]:
    """Every root move's value ``depth`` plies deep, each searched with a full window by a
    fresh player of ``agent``'s level."""
    ref = SearchAgent(agent.level, budget=10**9)
    ref._seat, ref._limit = state.to_move, 1 << 60
    key, before = zobrist(state, state.to_move), state.scores()[state.to_move]
    values = {}
    for move in state.legal_ids():
        child = state.copy()
        child.apply(move)
        bonus = IN_HAND * (child.scores()[ref._seat] - before) if child.phase != 2 else 0.0
        child_hash = child_key(key, state, child, move)
        values[move] = bonus + ref._node(child, child_hash, depth - 1, -np.inf, np.inf, 1)
    return values


def test_the_spec_names_the_budget_and_bad_budgets_are_refused():
    agent = make_agent(f"{FILE_3P}:expert", seed=1)
    assert isinstance(agent, GuidedSearchAgent) and agent.nodes == DEFAULT_NODES == 40000
    assert (agent.name, agent.num_players) == ("talat_3p.zip:expert", 3)
    assert (agent.search.level, agent.search.budget) == ("expert", LEVELS["expert"].budget)
    small = get_game("talat").make_agent(f"{FILE_2P}:expert=500", seed=1)
    assert isinstance(small, GuidedSearchAgent)
    assert (small.nodes, small.search.budget, small.name) == (500, 500, "talat_2p.zip:expert=500")
    for tail in ["abc", "١٠", "0", "", "-3", "1.5"]:
        spec = f"{FILE_3P}:expert={tail}"
        with pytest.raises(ValueError, match=re.escape(repr(spec)) + ".*whole number of positions"):
            make_agent(spec)
    assert parse_guided("search:expert") is None and parse_guided("search:expert=500") is None
    assert parse_guided(FILE_3P) is None and parse_guided(f"{FILE_3P}:expert=7") == (FILE_3P, 7)
    assert isinstance(make_agent("search:expert=500"), SearchAgent)
    with pytest.raises(ValueError, match="margin must be at least 0"):
        GuidedSearchAgent(StubPolicy(2), margin=-1.0)


def test_the_priors_are_the_policys_log_softmax_over_the_legal_moves():
    agent = make_agent(f"{FILE_3P}:expert=50")
    for state in positions(3, 2, (0, 10, 40)):
        seat, moves = state.to_move, state.legal_ids()
        log_p = agent.log_priors(state, moves)
        logits = torch.as_tensor(agent.agent.logits(observation(state, seat)[None])[0]).double()
        logits[torch.as_tensor(action_mask(state, seat)) == 0] = -torch.inf
        expected = torch.log_softmax(logits, 0)
        actions = [action_of(3, seat, m) for m in moves]
        assert log_p == pytest.approx(expected[actions].numpy(), abs=1e-6)
        assert np.exp(log_p).sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("players", "level", "depth", "margin"),
    [(2, "medium", 2, 0.0), (3, "medium", 2, 0.0), (3, "expert", 3, 0.0), (2, "medium", 2, 0.6)],
)
def test_the_likeliest_of_the_best_valued_moves_is_played(players, level, depth, margin):
    """Searched to the end of ``depth`` plies (3 players with ``expert``: its beam), the
    moves within ``margin`` of the best get their exact values and the highest prior among
    them is played, whatever the priors; the others get bounds below them."""
    rng = np.random.default_rng(players)
    tied = 0
    for state in positions(players, 4, (28, 30, 42)):
        agent = SearchAgent(level, seed=0, budget=10**9)
        agent.depth = depth
        priors = rng.normal(size=len(state.legal_ids()))
        seen = {}

        def guide(position, moves, priors=priors, seen=seen):
            seen.update(zip(moves, priors, strict=True))
            return priors

        move = agent.choose_guided(state, guide, margin)
        assert agent.reached == depth
        exact = exact_values(agent, state, depth)
        floor = max(exact.values()) - margin - TIE
        near = {m for m, value in exact.items() if value > floor}
        assert {m for m, value in agent.values.items() if value > floor} == near
        assert all(agent.values[m] == exact[m] for m in near)
        assert all(agent.values[m] >= exact[m] - 1e-9 for m in exact)
        assert move == max(near, key=seen.get)
        tied += len(near) > 1
    assert tied >= 1  # the positions exercise the tie-break


@pytest.mark.parametrize("players", [2, 3])
def test_the_network_decides_among_equal_moves_in_set_up_and_in_play(players):
    """For each move of a tie (found with flat priors), a network that likes that move best
    gets it played; one that likes a move the search values lower does not."""
    states = [rules.initial_state(players), *positions(players, 4, (1, 10, 28, 30))]
    tied = 0
    for state in states:
        flat = GuidedSearchAgent(StubPolicy(players), nodes=10**6, seed=0)
        flat.search.depth = 2
        flat.choose(state)
        values = flat.search.values
        best = max(values.values())
        ties = [m for m, value in values.items() if value > best - TIE]
        for move in ties:
            assert favouring(state, move).choose(state) == move
        worse = [m for m, value in values.items() if value < best - 1.0]
        if worse:
            assert favouring(state, worse[0]).choose(state) in ties
        tied += len(ties) > 1
    assert tied >= 4


def test_the_move_does_not_depend_on_the_seed_where_the_bots_does():
    guided = [make_agent(f"{FILE_2P}:expert=600", seed=s) for s in (1, 2)]
    bots = [make_agent("search:expert=600", seed=s) for s in (1, 2)]
    differ = 0
    for state in [rules.initial_state(2), *positions(2, 8, (4, 9, 30, 45))]:
        first, second = (agent.choose(state) for agent in guided)
        assert first == second
        differ += bots[0].choose(state) != bots[1].choose(state)
    assert differ >= 1  # the bots' ties were there to break


@pytest.mark.parametrize(
    "lineup",
    [[f"{FILE_2P}:expert=150", "greedy"], ["random", f"{FILE_3P}:expert=150", "greedy"]],
)
def test_whole_games_are_legal_and_repeatable(lineup):
    # play_game raises ValueError if any agent picks an illegal move; set-up included.
    games = [play_game([make_agent(name) for name in lineup], seed=4) for _ in range(2)]
    assert games[0].final.is_over() and games[0].winners
    assert games[0].moves == games[1].moves


# Moves of the search players before the guided search was added (each a fresh player,
# seed 7, budgets easy: its own, medium 400, hard 800, expert 1500), at plies 0, 5, 20,
# 30, 40, 50, 60 of two uniformly random games (2 players seed 0, 3 players seed 1).
SEARCH_MOVES = [
    ("bg:L6@b5", "bg:L6@b5", "bg:L6@b5", "bg:L6@b5"),
    ("gw:L6@d1", "gw:L6@d1", "gw:L6@d1", "gw:L6@d1"),
    ("gw:L3@d5", "gw:L3@d5", "gw:M6@d5", "gw:M6@d5"),
    ("wb:c4-b3", "wb:c4-b3", "wb:c4-b3", "wb:c4-b3"),
    ("wb:c4-d3", "bg:c3xd4", "bg:c3-b4", "bg:c3xd4"),
    ("wb:e4-d3", "wb:e4-d3", "wb:e4-d3", "bg:c3xd4"),
    ("wb:b4-b3", "wb:b4-b3", "wb:b4-b3", "gw:e2xe3"),
    ("gw:S6@b5", "gw:S6@b5", "wb:M6@d1", "gw:M6@d5"),
    ("gw:S6@b1", "gw:S6@b1", "gw:S6@b1", "bg:M6@d5"),
    ("bg:M6@c5", "bg:M6@c5", "bg:M6@c5", "bg:M6@c5"),
    ("wb:b1-b2", "wb:d1-e2", "wb:d1-e2", "wb:d1-e2"),
    ("wb:a3xa2", "wb:a3xa2", "wb:a3xa2", "bg:c1-c2"),
    ("bg:d3xe2", "gw:a2-a3", "gw:a2-a3", "gw:a2-a3"),
    ("wb:b2-c3", "gw:b3-c2", "gw:b3-c2", "wb:b2-c3"),
]


def test_the_search_players_moves_are_unchanged():
    plies = (0, 5, 20, 30, 40, 50, 60)
    states = positions(2, 0, plies) + positions(3, 1, plies)
    lineup = [("easy", None), ("medium", 400), ("hard", 800), ("expert", 1500)]
    played = [
        tuple(
            rules.move_text(state, SearchAgent(level, seed=7, budget=budget).choose(state))
            for level, budget in lineup
        )
        for state in states
    ]
    assert played == SEARCH_MOVES
