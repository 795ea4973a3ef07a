"""The batched engine is the same game as the scalar one: masks, observation planes, the
next position, rewards and the winner agree state by state; PERFT.md's counts and the golden
playthroughs come out the same through it."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from test_golden import GAMES, read
from test_golden import MAX_TURNS as GOLDEN_MAX_TURNS
from test_perft import PERFT

from splut_env import make_agent
from splut_env.batched import BatchedBot, BatchedGames
from splut_env.encoding import action_mask, action_to_step_id, observation_planes
from splut_env.players.bots import evaluate
from splut_env.rules import from_spn
from splut_env.rules.board import NEIGHBOUR, NUM_SQUARES, SEATS, SEATS_IN_PLAY, SQUARE_NAMES
from splut_env.rules.engine import State
from splut_env.rules.notation import IllegalStepError, InvalidNotationError, format_spn, step_text

MAX_TURNS = 60
TIPS = [s for s in range(NUM_SQUARES) if sum(nb[s] >= 0 for nb in NEIGHBOUR) == 1]


def scattered_position(rng: np.random.Generator, players: int) -> str:
    """A random legal-looking position: pieces and rocks on random squares, some seats out,
    some dwarfs gone, a random player to move in a random part of its turn. One seat in three
    positions is boxed in: its wizard and troll on tips of the board whose only neighbours
    hold other pieces, its dwarf gone, so its turns are forfeited."""
    seats = SEATS_IN_PLAY[players]
    squares = [int(s) for s in rng.permutation(NUM_SQUARES)]
    out = set(rng.choice(seats, size=int(rng.integers(0, players - 1)), replace=False).tolist())
    to_move = int(rng.choice([s for s in seats if s not in out]))
    boxed = -1
    alive = [s for s in seats if s not in out and s != to_move]
    if alive and rng.random() < 1 / 3:
        boxed = int(rng.choice(alive))
    pos: dict[int, list[int]] = {}
    if boxed >= 0:
        tips = [int(t) for t in rng.choice(TIPS, size=2, replace=False)]
        fences = [next(nb[t] for nb in NEIGHBOUR if nb[t] >= 0) for t in tips]
        squares = [s for s in squares if s not in tips + fences]
        pos[boxed] = [tips[0], tips[1], -1]
        fence_pieces = fences
    else:
        fence_pieces = []
    for s in seats:
        if s in out:
            pos[s] = [-1, -1, -1]
        elif s != boxed:
            pos[s] = [squares.pop(), squares.pop(), squares.pop() if rng.random() < 0.8 else -1]
    if fence_pieces:
        # The fences are other seats' wizards or dwarfs (not rocks, which a troll can throw).
        movable = [(s, k) for s in seats if s not in out and s != boxed for k in (0, 2)]
        movable = [(s, k) for s, k in movable if pos[s][k] >= 0]
        for fence, (s, k) in zip(fence_pieces, movable, strict=False):
            pos[s][k] = fence
    rocks = [squares.pop() for _ in range(4)]
    fields = [
        f"{SEATS[s]}:" + ",".join(SQUARE_NAMES[q] if q >= 0 else "-" for q in pos[s]) for s in seats
    ]
    turn = int(rng.integers(3, 40))
    steps = int(rng.integers(1, 4))
    lev = rng.choice(["-", "x", SQUARE_NAMES[rocks[0]]])
    locked = SQUARE_NAMES[rocks[1]] if rng.random() < 0.3 else "-"
    moved = SQUARE_NAMES[rocks[2]] if rng.random() < 0.3 else "-"
    if lev not in ("-", "x"):
        moved = lev if moved == "-" else ",".join(sorted({moved, lev}))
    return (
        " ".join(fields)
        + f" R:{','.join(sorted(SQUARE_NAMES[r] for r in rocks))} {SEATS[to_move]} {turn} "
        + f"{steps} {lev} {locked} {moved}"
    )


def random_starts(rng: np.random.Generator, players: int, size: int) -> list[State]:
    """Half start positions, half scattered positions that parse and are not over."""
    states = [State.initial(players) for _ in range(size // 2)]
    while len(states) < size:
        try:
            state = State(scattered_position(rng, players))
        except InvalidNotationError:
            continue
        if not state.is_over():
            states.append(state)
    return states


def check_states(
    games: BatchedGames, rows: list[int], states: list[State], every_seat: bool
) -> None:
    """The batched engine's view of ``rows`` equals the scalar engine's ``states``: SPN,
    masks and planes of the player to move; with ``every_seat`` also those of the next seat
    and every seat's evaluation."""
    movers = [max(st.to_move, 0) for st in states]
    others = [
        st.seats[(st.seats.index(m) + 1) % len(st.seats)]
        for st, m in zip(states, movers, strict=True)
    ]
    for seats in (movers, others) if every_seat else (movers,):
        masks = games.action_masks(rows, seats)
        planes = games.observations(rows, seats)
        for k, state in enumerate(states):
            expected = action_mask(state, seats[k]).astype(bool)
            assert np.array_equal(masks[k], expected), (format_spn(state), seats[k])
            scalar = observation_planes(state, seats[k], MAX_TURNS)
            assert planes[k].tobytes() == scalar.tobytes(), format_spn(state)
    if every_seat:
        every = [(row, s) for row, st in zip(rows, states, strict=True) for s in st.seats]
        values = games.evaluate([s for _, s in every], [row for row, _ in every]).tolist()
        assert values == [evaluate(st, s) for st in states for s in st.seats]
    for row, state in zip(rows, states, strict=True):
        assert games.spn(row) == format_spn(state)


def test_the_batched_engine_plays_the_scalar_engines_game():
    """Over 100,000 states of 2-, 3- and 4-player games (random games from the start and
    from scattered positions with boxed-in seats and eliminations): the same masks and
    observation planes (bit for bit) of the player to move, next SPN, per-seat rewards,
    game ends and winner; at every fifth step also another seat's masks and planes and
    every seat's evaluation (the shaping potential)."""
    rng = np.random.default_rng(2026)
    checked = forfeits = eliminations = truncations = 0
    for players in (2, 3, 4):
        size = 200
        states = random_starts(rng, players, size)
        games = BatchedGames(size, players, MAX_TURNS)
        for i, state in enumerate(states):
            games.set_state(i, state)
        steps = 0
        while checked < players * 34_000 and steps < 400:
            steps += 1
            live = [i for i, st in enumerate(states) if not st.is_over() and st.turn <= MAX_TURNS]
            check_states(games, live, [states[i] for i in live], every_seat=steps % 5 == 1)
            checked += len(live)
            actions = games.random_actions(rng, live)
            rewards, terminated, truncated = games.step(actions, live)
            for k, i in enumerate(live):
                state = states[i]
                before_alive = [state.alive(s) for s in range(4)]
                mover = state.to_move
                state.apply(action_to_step_id(mover, int(actions[k])))
                skipped = state.to_move >= 0 and state.turn > 0 and len(state.alive_seats()) > 1
                if skipped and state.to_move not in (
                    state.seats[(state.seats.index(mover) + j) % len(state.seats)] for j in range(2)
                ):
                    forfeits += 1
                expected = np.zeros(4, dtype=np.float32)
                for s in range(4):
                    if before_alive[s] and not state.alive(s):
                        expected[s] = -1.0
                        eliminations += 1
                if state.is_over() and state.winner() >= 0:
                    expected[state.winner()] = 1.0
                assert rewards[k].tolist() == expected.tolist(), format_spn(state)
                assert terminated[k] == state.is_over()
                assert truncated[k] == (not state.is_over() and state.turn > MAX_TURNS)
                truncations += int(truncated[k])
                assert games.spn(i) == format_spn(state)
            winners = games.winner()
            assert winners.tolist() == [st.winner() for st in states]
            done = [i for i, st in enumerate(states) if st.is_over() or st.turn > MAX_TURNS]
            fresh = random_starts(rng, players, 2 * len(done) + 2)[len(done) + 1 :]
            for i, state in zip(done, fresh, strict=False):
                states[i] = state
                games.set_state(i, state)
    assert checked >= 100_000
    assert forfeits >= 50 and eliminations >= 500 and truncations >= 5, (
        forfeits,
        eliminations,
        truncations,
    )


def test_perft_counts_through_the_batched_engine():
    """PERFT.md's counts (kept in ``test_perft.py``), depths 1 to 4."""
    games = BatchedGames(1)
    for spn, expected in PERFT:
        games.set_spn(0, spn)
        assert [games.perft(0, d) for d in range(1, 5)] == expected, spn


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthroughs_through_the_batched_engine(name):
    """Every recorded step replayed by the batched engine: the same SPN, legal steps, and
    checksum of its own observation planes and mask."""
    (_, spn, _, _), *steps = read(name)
    games = BatchedGames(1, len(from_spn(spn).seats), GOLDEN_MAX_TURNS)
    games.set_spn(0, spn)
    for step, spn, legal, digest in steps:
        seat = int(games.to_move([0])[0])
        (action,) = [
            a
            for a in np.flatnonzero(games.action_masks([0])[0])
            if step_text(action_to_step_id(seat, int(a))) == step
        ]
        games.step([action], [0])
        assert games.spn(0) == spn
        mask = games.action_masks([0])[0]
        seat = int(games.to_move([0])[0])
        steps_text = sorted(
            step_text(action_to_step_id(seat, int(a))) for a in np.flatnonzero(mask)
        )
        assert steps_text == sorted(legal.split()) if legal != "-" else not steps_text
        if seat < 0:
            assert digest == "-"
            continue
        planes = games.observations([0])[0]
        check = hashlib.sha256(planes.tobytes() + mask.astype(np.int8).tobytes())
        assert check.hexdigest()[:16] == digest, step


def test_autoreset_restarts_ended_games_with_as_many_players():
    games = BatchedGames(64, 3, max_turns=5)
    rng = np.random.default_rng(0)
    restarted = 0
    for _ in range(40):
        _, terminated, truncated = games.step(games.random_actions(rng), autoreset=True)
        ended = np.flatnonzero(terminated | truncated)
        restarted += ended.size
        for i in ended:
            assert games.spn(int(i)) == format_spn(State.initial(3))
        assert (games.to_move() >= 0).all()
    assert restarted >= 64


def test_bad_input_is_refused_naming_it():
    games = BatchedGames(3)
    before = games.games.copy()
    mask = games.action_masks()
    legal = int(np.flatnonzero(mask[0])[0])
    illegal = int(np.flatnonzero(~mask[1])[0])
    with pytest.raises(IllegalStepError, match=rf"illegal action {illegal} in game 1"):
        games.step([legal, illegal, legal])
    assert np.array_equal(games.games, before)  # nothing played
    with pytest.raises(ValueError, match="3 whole numbers"):
        games.step([0.5, 1, 2])
    with pytest.raises(ValueError, match="3 whole numbers"):
        games.step([legal, legal])
    with pytest.raises(IndexError, match=r"0\.\.2"):
        games.step([legal], [3])
    with pytest.raises(ValueError, match="once per call"):
        games.step([legal, legal], [0, 0])
    with pytest.raises(InvalidNotationError):
        games.set_spn(0, "S:e1")
    with pytest.raises(ValueError, match="num_players must be 2, 3 or 4"):
        BatchedGames(2, 5)
    with pytest.raises(ValueError, match="size must be"):
        BatchedGames(0)
    with pytest.raises(ValueError, match="not all in play"):
        games.observations([0], [1])  # seat W is not in a 2-player game


def scalar_turn_value(agent, state: State) -> float:
    """The evaluation, for its mover, of the position the scalar bot's planned turn ends in."""
    end = state.copy()
    for sid in agent.plan_turn(state.copy()):
        end.apply(sid)
    return evaluate(end, state.to_move)


def compiled_turn_value(bot: BatchedBot, state: State) -> float:
    games = BatchedGames(1, len(state.seats))
    games.set_state(0, state)
    while games.to_move()[0] >= 0 and games.turn()[0] == state.turn:
        games.step(bot.act_games(games, [0]), [0])
    return evaluate(games.state(0), state.to_move)


@pytest.mark.parametrize(
    ("name", "positions", "agreeing"), [("greedy", 30, 30), ("search:medium", 10, 9)]
)
def test_compiled_bots_choose_turns_as_good_as_the_scalar_bots(name, positions, agreeing):
    """From random 2- and 3-player positions, the compiled bot's whole turn ends in a
    position its mover values as the scalar bot's does (the bots differ only in how they
    break ties, which a search can carry into different values now and then)."""
    rng = np.random.default_rng(11)
    scalar = make_agent(name, seed=1)
    bot = BatchedBot(name, seed=1)
    same = 0
    for k in range(positions):
        games = BatchedGames(1, 2 + k % 2)
        for _ in range(int(rng.integers(8, 30))):
            if games.to_move()[0] < 0:
                games.reset()
            games.step(games.random_actions(rng))
        if games.to_move()[0] < 0:
            games.reset()
        state = games.state(0)
        # Equal up to rounding: sums of the same features in another order.
        same += abs(scalar_turn_value(scalar, state) - compiled_turn_value(bot, state)) < 1e-9
    assert same >= agreeing, same
