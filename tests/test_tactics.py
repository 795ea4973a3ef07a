"""Exact tactics (:mod:`splut_env.players.tactics`): end-of-turn positions, threats,
exposure, forced wins checked against brute force, and the shield over any agent."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import numpy as np
from conftest import greedy_turns

from splut_env import make_agent, rules
from splut_env.batched import BatchedGames
from splut_env.batched.shield import CompiledTactics, _forced_loss, new_memo, tier_labels
from splut_env.encoding import action_to_step_id, step_id_to_action
from splut_env.players.tactics import (
    ShieldedAgent,
    ShieldTactics,
    exposed,
    forced_loss,
    forced_win,
    threatens,
    turn_outcomes,
)
from splut_env.rules.engine import State
from splut_env.rules.notation import step_text
from tabletop.agents import Agent


def test_turn_outcomes_are_every_distinct_end_of_turn_position():
    state = rules.from_spn("S:d3,e4,f2 N:c4,d8,e7 R:b5,e1,e9,g4 S 7 3 - g4 -")
    outcomes = turn_outcomes(state)
    keys = [st.key() for _, st in outcomes]
    assert len(set(keys)) == len(keys)
    for seq, st in outcomes:
        replay = state
        for i in seq:
            replay = rules.play(replay, step_text(i))
        assert replay == st and (st.turn == 8 or st.is_over())

    def ends(s, acc):
        for i in s.legal_ids():
            child = s.copy()
            child.apply(i)
            if child.turn != s.turn or child.is_over():
                acc.add(child.key())
            else:
                ends(child, acc)
        return acc

    assert set(keys) == ends(state, set())


def test_exposure_counts_every_opponent_in_multiplayer_games():
    # W moves next and cannot reach S's wizard on e3; N, moving after W, could (Tsxs).
    state = rules.from_spn("S:e3,f2,- W:b6,b4,b5 N:h5,e6,- R:a5,e1,e5,i5 W 11 3 - - -")
    assert not threatens(state, 0) and exposed(state, 0)
    far = rules.from_spn("S:c3,f2,- W:b6,b4,b5 N:f8,g6,- R:a5,e1,e9,i5 W 11 3 - - -")
    assert not exposed(far, 0)


def test_forced_win_agrees_with_trying_every_reply():
    """At the end of every turn of seeded greedy games, ``forced_win`` says whether every
    turn of the next player leaves the last mover a kill, as enumerating them all does."""
    found = {True: 0, False: 0}
    for start, end in greedy_turns():
        victim = end.to_move
        every_reply = all(
            st.pos[victim * 3] < 0 or threatens(st, victim) for _, st in turn_outcomes(end)
        )
        assert forced_win(end, start.to_move) == every_reply, rules.to_spn(end)
        found[every_reply] += 1
    assert found[True] >= 2 and found[False] >= 50, found
    assert not forced_win(rules.initial_state(3), 1)  # two players only


def random_positions(seed: int, games: int) -> Iterator[tuple[int, State]]:
    """``(game, position)`` after 4 to 39 seeded random steps from the 2-player start, for
    each of ``games`` games that is not over by then."""
    rng = np.random.default_rng(seed)
    for game in range(games):
        state = State.initial(2)
        for _ in range(int(rng.integers(4, 40))):
            if state.is_over():
                break
            state.apply(int(rng.choice(state.legal_ids())))
        if not state.is_over():
            yield game, state


def play_turn(agent, state, seed: int = 0) -> None:
    """Let ``agent`` play the rest of the current turn on ``state`` (in place)."""
    agent.reset(seed=seed)
    turn = state.turn
    while state.turn == turn and not state.is_over():
        state.apply(action_to_step_id(state.to_move, agent.act(state)))


def test_shield_takes_kills_and_avoids_walking_into_one():
    """Over seeded random positions, a whole turn of the shielded agent kills when a turn
    can kill, and otherwise ends safe whenever some turn does."""
    agent = make_agent("checkpoints/splut_2p.zip:shield")
    assert isinstance(agent, ShieldedAgent) and agent.name == "splut_2p.zip:shield"
    checked = {"kill": 0, "safe": 0}
    for game, state in random_positions(seed=3, games=40):
        seat = state.to_move
        outcomes = [st for _, st in turn_outcomes(state)]
        can_kill = any(st.alive_seats() == [seat] for st in outcomes)
        can_be_safe = any(not exposed(st, seat) for st in outcomes)
        play_turn(agent, state, seed=game)
        if can_kill:
            checked["kill"] += 1
            assert state.is_over() and state.winner() == seat
        elif can_be_safe:
            checked["safe"] += 1
            assert not exposed(state, seat)
    assert checked["kill"] >= 3 and checked["safe"] >= 10, checked


def test_shield_plays_a_forced_win_in_two_turns():
    """Where a turn can leave the opponent only replies after which we kill (found in
    seeded greedy games: greedy's own turn did), the shielded agent's turn does too, and
    its next turn kills whatever greedy replies."""
    shielded, forced = make_agent("checkpoints/splut_2p.zip:shield"), 0
    for start, end in greedy_turns():
        seat = start.to_move
        if not forced_win(end, seat):
            continue
        forced += 1
        state = start.copy()
        play_turn(shielded, state)
        assert not state.is_over() and forced_win(state, seat), rules.to_spn(start)
        play_turn(make_agent("greedy", seed=0), state)
        play_turn(shielded, state)
        assert state.winner() == seat, rules.to_spn(start)
    assert forced >= 2


class FirstLegal(Agent):
    """Plays the lowest legal action of its mask: obeys whatever mask it is given."""

    def act(self, state, observation=None):
        return int(np.flatnonzero(observation["action_mask"])[0])


class Stubborn(Agent):
    """Ignores its mask: always the lowest legal step of the rules."""

    needs_observation = False

    def act(self, state, observation=None):
        return step_id_to_action(state.to_move, state.legal_ids()[0])


def test_shield_narrows_the_mask_of_any_agent():
    """In seeded random positions, the shield over an agent that obeys its mask and over
    one that ignores it (taking turns) plays only steps of the best tier: it kills when a
    turn can."""
    kills = 0
    for game, start in random_positions(seed=14, games=16):
        seat = start.to_move
        can_kill = any(st.alive_seats() == [seat] for _, st in turn_outcomes(start))
        shield = ShieldedAgent(FirstLegal() if game % 2 else Stubborn())
        allowed = set(np.flatnonzero(shield.allowed(start)))
        assert allowed and allowed <= {step_id_to_action(seat, i) for i in start.legal_ids()}
        state = start.copy()
        play_turn(shield, state, seed=game)
        if can_kill:
            assert state.is_over() and state.winner() == seat, rules.to_spn(start)
        kills += can_kill
    assert kills >= 3


def test_tactics_and_bots_import_no_torch():
    code = (
        "import sys; import splut_env.players.tactics, splut_env.players.bots, splut_env; "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_compiled_tiers_are_the_shields_tiers():
    """The compiled tiers (what checkpoints under the shield use) equal the Python shield's
    for every legal step, over seeded random 2-, 3- and 4-player positions (mid-turn ones
    too), across every tier; a checkpoint's shield uses them."""
    compiled, seen = CompiledTactics(), set()
    rng = np.random.default_rng(21)
    for players in (2, 3, 4):
        for _ in range(24 if players == 2 else 6):
            state = random_state(rng, players, 70)
            if state is None:
                continue
            expected = ShieldTactics().tiers(state)
            assert compiled.tiers(state) == expected, rules.to_spn(state)
            seen |= set(expected.values())
    assert {0, 1, 2, 3} <= seen
    assert isinstance(make_agent("checkpoints/splut_2p.zip:shield").tactics, CompiledTactics)


def test_tier_labels_are_the_shields_tiers_in_the_movers_frame():
    """The training labels (``tier_labels``) are the shield's tiers of every legal step, a
    forced win counted as safe (tier 1), at the action of that step in the mover's frame,
    and -2 on every other action; one memo serves every step of a turn."""
    rng = np.random.default_rng(5)
    out, seen = np.empty(196, np.int8), set()
    for players in (2, 3, 4):
        games = BatchedGames(1, players)
        for _ in range(16 if players == 2 else 5):
            state = random_state(rng, players, 70)
            if state is None:
                continue
            memo = new_memo()
            while True:
                games.set_state(0, state)
                tier_labels(games.games[0], out, memo)
                expected = np.full(196, -2)
                for sid, tier in ShieldTactics().tiers(state).items():
                    expected[step_id_to_action(state.to_move, sid)] = 1 if tier == 2 else tier
                assert (out == expected).all(), rules.to_spn(state)
                seen |= set(out[out > -2].tolist())
                turn = state.turn
                state.apply(int(rng.choice(state.legal_ids())))
                if state.is_over() or state.turn != turn:
                    break
    assert {0, 1, 3} <= seen


def random_state(rng: np.random.Generator, players: int, most: int) -> State | None:
    """The position after up to ``most`` seeded random steps, ``None`` if the game ended."""
    state = State.initial(players)
    for _ in range(int(rng.integers(0, most))):
        if state.is_over():
            break
        state.apply(int(rng.choice(state.legal_ids())))
    return None if state.is_over() else state


def brute_forced_loss(state: State, seat: int) -> bool:
    """:func:`forced_loss` from its definition, every turn of both players tried."""
    opponent = state.to_move
    for _, end in turn_outcomes(state):
        if end.pos[seat * 3] < 0:
            return True
        if end.is_over():
            continue
        if end.to_move == opponent:
            if threatens(end, seat):
                return True
            continue
        probe = end.copy()
        probe.to_move, probe.steps_left, probe.lev, probe.locked, probe.moved = (
            opponent,
            3,
            -1,
            0,
            0,
        )
        probe._legal = None
        if threatens(probe, seat) and all(
            reply.pos[seat * 3] < 0 or threatens(reply, seat) for _, reply in turn_outcomes(end)
        ):
            return True
    return False


def test_forced_loss_agrees_with_its_definition_and_the_compiled_search():
    """At the end of the turns of a seeded game between two greedy players (threats arise),
    ``forced_loss`` agrees with trying every turn of both players, and the compiled search
    agrees with it; some positions are forced losses, some are not."""
    state, found = State.initial(2), [0, 0]
    players = [make_agent("greedy", seed=1), make_agent("greedy", seed=101)]
    while not state.is_over() and (found[True] < 2 or found[False] < 5):
        turn, seat = state.turn, state.to_move
        while state.turn == turn and not state.is_over():
            state.apply(action_to_step_id(seat, players[seat // 2].act(state)))
        if state.is_over() or exposed(state, seat):
            continue
        expected = brute_forced_loss(state, seat)
        assert forced_loss(state, seat) == expected, rules.to_spn(state)
        assert bool(_forced_loss(row(state), seat, np.array([10**9]))) == expected, rules.to_spn(
            state
        )
        found[expected] += 1
    assert found[True] >= 2 and found[False] >= 5, found


def row(state: State) -> np.ndarray:
    games = BatchedGames(1, len(state.seats))
    games.set_state(0, state)
    return games.games[0].copy()


def test_compiled_escapes_agree_with_the_shields():
    """Whether a step's turn can still end safe from a forced loss: the compiled search and
    the Python one agree on the last step of a turn of a seeded game between two greedy
    players (one with threats about), some steps escaping and some not."""
    state, seen = State.initial(2), []
    players = [make_agent("greedy", seed=1), make_agent("greedy", seed=101)]
    while not state.is_over() and state.turn <= 10:
        if state.steps_left == 1 and state.turn == 10:
            python, compiled = ShieldTactics(), CompiledTactics(budget=10**9)
            for i in state.legal_ids()[:10]:
                escapes = python.escapes(state, i)
                assert compiled.escapes(state, i) == escapes, (rules.to_spn(state), i)
                seen.append(escapes)
        state.apply(action_to_step_id(state.to_move, players[state.to_move // 2].act(state)))
    assert True in seen and False in seen, seen


def test_the_shield_steers_clear_of_forced_losses():
    """At the last step of the turns of a seeded game between two greedy players, a shield
    over an agent that takes the first step of its mask plays a step after which the turn
    ends safe from a forced loss whenever one of the safe steps does; in some of them the
    agent's own first choice did not."""
    steered = 0
    state = State.initial(2)
    players = [make_agent("greedy", seed=1), make_agent("greedy", seed=101)]
    while not state.is_over() and state.turn <= 16:
        seat = state.to_move
        if state.steps_left == 1:
            shield = ShieldedAgent(FirstLegal(), tactics=CompiledTactics(budget=10**9))
            mask, best = shield._allowed(state)
            if best == 1:
                safe = [int(a) for a in np.flatnonzero(mask)]
                oracle = CompiledTactics(budget=10**9)
                escaping = {a for a in safe if oracle.escapes(state, action_to_step_id(seat, a))}
                action = shield.act(state)
                assert action in escaping or not escaping, rules.to_spn(state)
                steered += bool(escaping) and safe[0] not in escaping
        state.apply(action_to_step_id(seat, players[seat // 2].act(state)))
    assert steered >= 1


def test_shield_targets_drop_the_steps_the_shield_steers_away_from():
    """The training targets' narrowing (``expert_iteration._escaping``) over a policy that
    prefers lower actions keeps, as its likeliest step, the step the shield over such an
    agent plays, at the last steps of a seeded greedy game; and it did narrow some."""
    from training.expert_iteration import _escaping

    narrowed_some = 0
    state = State.initial(2)
    players = [make_agent("greedy", seed=1), make_agent("greedy", seed=101)]
    games, tiers, logits = BatchedGames(1, 2), np.empty(196, np.int8), -np.arange(196.0)
    while not state.is_over() and state.turn <= 16:
        seat = state.to_move
        if state.steps_left == 1:
            games.set_state(0, state)
            tier_labels(games.games[0], tiers, new_memo())
            shield = ShieldedAgent(FirstLegal(), tactics=CompiledTactics(budget=10**9))
            if tiers.max() == 1 and shield._allowed(state)[1] == 1:  # no forced win either
                allowed = tiers == 1
                narrowed = _escaping(state, CompiledTactics(budget=10**9), logits, allowed)
                assert int(np.flatnonzero(narrowed)[0]) == shield.act(state), rules.to_spn(state)
                assert not (narrowed & ~allowed).any()
                narrowed_some += narrowed.sum() < allowed.sum()
        state.apply(action_to_step_id(seat, players[seat // 2].act(state)))
    assert narrowed_some >= 1
