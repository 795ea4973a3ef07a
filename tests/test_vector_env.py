"""The vector environment: the same episodes as the single-game Gymnasium env, batched and
compiled opponents, same-step autoreset, bad input, and MaskablePPO on top through the
stable-baselines3 adapter."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from splut_env.batched import BatchedGames
from splut_env.batched.bots import BatchedBot
from splut_env.encoding import action_mask, observation_planes
from splut_env.envs.gym import SplutGymEnv
from splut_env.envs.vector import SplutVectorEnv
from splut_env.rules import IllegalStepError
from tabletop.agents import Agent


class LowestAgent(Agent):
    """Plays its lowest legal action, one game at a time."""

    needs_observation = False
    name = "lowest"

    def act(self, state, observation=None):
        return int(np.flatnonzero(action_mask(state, state.to_move))[0])


class LowestBatchAgent(LowestAgent):
    """The same player, asked once for all its games."""

    batched = True
    needs_observation = True  # checks the planes are passed

    def act_batch(self, observations, action_masks):
        assert observations.shape == (len(action_masks), 22, 9, 9)
        return action_masks.argmax(axis=1)


def learner_actions(rng, masks):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_game_is_the_single_game_envs_episode(players):
    """Every game of the vector env goes through the same observations, rewards and ends
    as SplutGymEnv with the same learner seat, opponents and learner actions (one
    opponent asked game by game, one batched)."""
    opponents = [LowestAgent(), LowestBatchAgent(), LowestAgent()][: players - 1]
    envs = SplutVectorEnv(4, players, max_turns=40, opponents=opponents, learner_player=1)
    singles = [
        SplutGymEnv(players, max_turns=40, opponents=opponents, learner_player=1) for _ in range(4)
    ]
    obs, _ = envs.reset(seed=0)
    for i, env in enumerate(singles):
        single_obs, _ = env.reset(seed=i)
        assert np.array_equal(obs[i], single_obs)
    rng = np.random.default_rng(players)
    episodes = 0
    for _ in range(150):
        masks = envs.action_masks()
        for i, env in enumerate(singles):
            assert np.array_equal(masks[i], env.action_masks())
        actions = learner_actions(rng, masks)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        for i, env in enumerate(singles):
            single_obs, reward, term, trunc, _ = env.step(int(actions[i]))
            assert (rewards[i], terminated[i], truncated[i]) == (reward, term, trunc)
            if term or trunc:
                episodes += 1
                assert np.array_equal(infos["final_obs"][i], single_obs)
                assert infos["final_info"]["outcome"][i] == reward
                single_obs, _ = env.reset()
            assert np.array_equal(obs[i], single_obs)
    assert episodes >= 8


def test_observations_masks_and_autoreset():
    envs = SplutVectorEnv(8, 2, opponents="random")
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.single_observation_space.shape == (22, 9, 9)
    assert envs.action_space.shape == (8,)
    obs, infos = envs.reset(seed=3)
    assert obs.shape == (8, 22, 9, 9) and obs.dtype == np.float32
    assert set(infos["player"].tolist()) <= {0, 1}
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):
        masks = envs.action_masks()
        for i in range(8):
            state = envs.games.state(i)
            assert state.to_move == envs.seat[i]  # the learner is always to move
            assert np.array_equal(masks[i], action_mask(state, envs.seat[i]).astype(bool))
            assert np.array_equal(obs[i], observation_planes(state, envs.seat[i], 200))
        obs, rewards, terminated, truncated, infos = envs.step(learner_actions(rng, masks))
        done = terminated | truncated
        assert set(rewards.tolist()) <= {-1.0, 0.0, 1.0}
        assert np.array_equal(infos.get("_final_obs", np.zeros(8, bool)), done)
        ends += int(done.sum())
    assert ends >= 12


def test_learners_seat_is_drawn_per_game_and_seeded():
    a = SplutVectorEnv(16, 3)
    b = SplutVectorEnv(16, 3)
    first = a.reset(seed=5)[1]["player"]
    assert np.array_equal(first, b.reset(seed=5)[1]["player"])
    assert len(set(first.tolist())) == 3


def test_compiled_greedy_plays_the_greedy_opponent():
    envs = SplutVectorEnv(6, 2, opponents="greedy", learner_player=0)
    assert any(isinstance(entry, BatchedBot) for entry in envs._agents)
    envs.reset(seed=0)
    rng = np.random.default_rng(1)
    losses = 0
    for _ in range(200):
        _, rewards, *_ = envs.step(learner_actions(rng, envs.action_masks()))
        losses += int((rewards < 0).sum())
    assert losses >= 10  # a random learner loses to greedy


def test_other_agents_play_game_by_game_with_their_own_instance():
    envs = SplutVectorEnv(3, 2, opponents="checkpoints/splut_2p.zip:shield", learner_player=0)
    envs.reset(seed=0)
    rng = np.random.default_rng(2)
    for _ in range(5):
        envs.step(learner_actions(rng, envs.action_masks()))
    assert len({id(agent) for agent in envs._own.values()}) == 3


def test_illegal_actions_terminate_that_game_or_raise():
    envs = SplutVectorEnv(3, 2, learner_player=0)
    envs.reset(seed=0)
    masks = envs.action_masks()
    actions = masks.argmax(axis=1)
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    _, rewards, terminated, _, infos = envs.step(actions)
    assert rewards[1] == -1.0 and terminated.tolist() == [False, True, False]
    assert infos["final_info"]["illegal_action"].tolist() == [False, True, False]
    strict = SplutVectorEnv(2, 2, learner_player=0, illegal_action="raise")
    strict.reset(seed=0)
    bad = int(np.flatnonzero(~strict.action_masks()[0])[0])
    with pytest.raises(IllegalStepError, match=f"illegal action {bad} for the learner of game 0"):
        strict.step(np.array([bad, strict.action_masks()[1].argmax()]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 5}, "num_players must be 2, 3 or 4"),
        ({"learner_player": 2}, "learner_player must be None or a player index 0..1"),
        ({"illegal_action": "ignore"}, "illegal_action must be"),
        ({"opponents": ["random", "random"]}, "a list of 1 for 2 players"),
        ({"opponents": "nobody"}, "unknown agent 'nobody'"),
        ({"max_turns": 0}, "max_turns must be a whole number"),
        ({"opening_steps": -1}, "opening_steps must be a whole number of steps, 0 or more"),
        ({"opening_steps": 1.5}, "opening_steps must be a whole number of steps, 0 or more"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SplutVectorEnv(2, **kwargs)


@pytest.mark.parametrize("players", [2, 4])
def test_games_start_from_their_own_seeded_random_openings(players):
    """With ``opening_steps`` every game, at each reset and autoreset, starts after that many
    random steps: the positions differ from game to game, all wizards are on the board, and
    the same seed gives the same openings."""
    start = SplutVectorEnv(1, players).games.spn(0)
    spns = []
    for _ in range(2):
        envs = SplutVectorEnv(12, players, opening_steps=3, opponents="random")
        envs.reset(seed=5)
        spns.append([envs.spn(i) for i in range(12)])
        assert envs.games.alive().sum(axis=1).tolist() == [players] * 12
        assert (envs.games.turn() > 1).all()  # three steps are past the first turn
    assert spns[0] == spns[1] and start not in spns[0] and len(set(spns[0])) > 6
    ended = 0
    while not ended:
        _, _, term, trunc, _ = envs.step(envs.action_masks().argmax(axis=1))
        ended = int((term | trunc).sum())
        restarted = np.flatnonzero(term | trunc)
    assert all(envs.spn(int(i)) != start for i in restarted)


def test_a_game_that_ends_before_the_learners_first_step_is_drawn_again():
    """From 4 random steps, greedy sometimes kills the learner's wizard before it has
    stepped (21 times in these 6,400 steps when such games were kept): every game the
    learner is asked to act in has a legal step."""
    env = SplutVectorEnv(num_envs=64, opponents="greedy", opening_steps=4)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(100):
        masks = env.action_masks()
        assert masks.any(axis=1).all()
        assert (env.games.to_move() == env.seat).all()
        _, _, _, _, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        if "final_info" in infos:
            assert not infos["final_info"]["illegal_action"].any()


def test_bad_actions_and_options_are_named():
    envs = SplutVectorEnv(2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="2 whole numbers"):
        envs.step([1.5, 2])
    with pytest.raises(ValueError, match="2 whole numbers"):
        envs.step([1, 2, 3])
    with pytest.raises(ValueError, match="options may only hold"):
        envs.reset(options={"spn": "x"})


def test_maskable_ppo_trains_on_the_sb3_adapter():
    from sb3_contrib import MaskablePPO

    from splut_env.players.network import NetworkShape
    from training.sb3vec import SB3VecEnv

    vec = SB3VecEnv(SplutVectorEnv(8, 2, opponents=["greedy"]))
    masks = np.stack(vec.env_method("action_masks"))
    assert masks.shape == (8, 196)
    shape = NetworkShape(channels=8, blocks=1, features_dim=32)
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs=shape.policy_kwargs(),
    )
    model.learn(512)
    assert model.num_timesteps == 512
    obs = vec.reset()
    actions, _ = model.predict(obs, action_masks=np.stack(vec.env_method("action_masks")))
    assert all(masks_row[a] for masks_row, a in zip(vec.env.action_masks(), actions, strict=True))


def test_batched_games_and_vector_env_share_one_engine():
    envs = SplutVectorEnv(2)
    assert isinstance(envs.games, BatchedGames)
    envs.reset(seed=0)
    assert envs.spn(0) == envs.games.spn(0)


def test_a_policy_acts_on_a_batch_as_it_acts_alone():
    """Deterministic: the same action as ``act`` for each position; sampling: legal actions
    only, drawn as often as the policy's probabilities say."""
    import torch

    from splut_env.players.checkpoint import load_agent

    agent = load_agent("checkpoints/splut_2p.zip")
    games = BatchedGames(32, 2)
    rng = np.random.default_rng(4)
    for _ in range(9):
        games.step(games.random_actions(rng), autoreset=True)
    planes, masks = games.observations(), games.action_masks()
    batch = agent.act_batch(planes, masks)
    assert batch.tolist() == [agent.act(games.state(i)) for i in range(32)]
    agent.deterministic = False
    agent.reset(seed=0)
    draws = agent.act_batch(np.repeat(planes[:1], 4000, 0), np.repeat(masks[:1], 4000, 0))
    assert masks[0][draws].all()
    with torch.no_grad():
        dist = agent.policy.get_distribution(torch.as_tensor(planes[:1]), action_masks=masks[:1])
    probs = dist.distribution.probs[0].numpy()
    seen = np.bincount(draws, minlength=196) / 4000
    assert np.abs(seen - probs).max() < 0.03


def test_policies_asked_together_play_as_each_alone():
    """``PolicyAgent.act_batches`` runs policies of one shape as one stacked network: the
    same logits and actions as each policy's own ``act_batch``, weights changed in place
    are seen, and policies of other shapes are asked one by one."""
    import torch

    from splut_env.players.network import NetworkShape, PolicyAgent, PolicyStack, build_policy

    shape = NetworkShape(channels=8, blocks=1, features_dim=32)
    torch.manual_seed(0)
    policies = [build_policy(shape) for _ in range(3)]
    agents = [PolicyAgent(policy, f"p{k}") for k, policy in enumerate(policies)]
    games = BatchedGames(40, 2)
    rng = np.random.default_rng(1)
    for _ in range(7):
        games.step(games.random_actions(rng), autoreset=True)
    planes, masks = games.observations(), games.action_masks()
    parts = [slice(0, 5), slice(5, 25), slice(25, 40)]
    batches = [planes[part] for part in parts]

    def alone(agent, obs):
        with torch.no_grad():
            features = agent.policy.extract_features(torch.as_tensor(obs))
            return agent.policy.action_net(features).numpy()

    stack = PolicyStack.of(policies)
    assert stack is not None and PolicyStack.of(policies) is stack
    for agent, obs, logits in zip(agents, batches, stack.logits(batches), strict=True):
        assert np.allclose(logits, alone(agent, obs), atol=1e-5)
    together = PolicyAgent.act_batches(agents, batches, [masks[part] for part in parts])
    for agent, part, acts in zip(agents, parts, together, strict=True):
        assert acts.tolist() == agent.act_batch(planes[part], masks[part]).tolist()
        assert masks[part][np.arange(len(acts)), acts].all()

    policies[1].load_state_dict(build_policy(shape).state_dict())
    changed = PolicyStack.of(policies)
    assert changed is not stack
    assert np.allclose(changed.logits(batches)[1], alone(agents[1], batches[1]), atol=1e-5)

    other = PolicyAgent(build_policy(NetworkShape(channels=4, blocks=1, features_dim=16)), "q")
    assert PolicyStack.of([policies[0], other.policy]) is None
    mixed = PolicyAgent.act_batches([agents[0], other], batches[:2], [masks[0:5], masks[5:25]])
    assert mixed[1].tolist() == other.act_batch(batches[1], masks[5:25]).tolist()
