"""The agent registry (:mod:`tabletop.agents`, :data:`splut_env.players.PLAYERS`)
and the public names kept across the 0.3 layout."""

from __future__ import annotations

import subprocess
import sys

import pytest

import splut_env
from splut_env.batched.bots import CompiledAgent
from splut_env.envs.gym import SplutGymEnv
from splut_env.players import PLAYERS
from splut_env.players.bots import GreedyAgent, RandomAgent
from tabletop.agents import Agent, AgentRegistry
from training.config import parse_config


class Fixed(Agent):
    def __init__(self, seed=None):
        self.seed = seed

    def act(self, state, observation=None):
        return 0


def test_built_in_names_make_their_bots():
    assert set(splut_env.agent_names()) >= {"random", "greedy", "search:easy", "search:hard"}
    assert isinstance(splut_env.make_agent("random"), RandomAgent)
    assert isinstance(splut_env.make_agent("greedy"), GreedyAgent)
    hard = splut_env.make_agent("search:hard", seed=3)
    assert isinstance(hard, CompiledAgent) and hard.level == "hard"
    assert splut_env.make_agent("search:expert").name == "search:expert"


def test_best_names_give_the_documented_players(tmp_path, monkeypatch):
    """``best:Np`` is the player :data:`BEST` names for N players: a registered name (with
    its budget), or a checkpoint found from any working folder (the repository's
    checkpoints/), and a clear error when its file is gone."""
    from splut_env.players import BEST, best_spec

    for n in (2, 3, 4):
        agent = splut_env.make_agent(f"best:{n}p", seed=0)
        assert agent.name == BEST[n].rpartition("/")[2]
        assert best_spec(n).endswith(BEST[n])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(BEST, 2, "checkpoints/splut_2p.zip:shield")
    assert splut_env.make_agent("best:2p").name == "splut_2p.zip:shield"
    monkeypatch.setitem(BEST, 2, "checkpoints/missing_2p.zip:shield")
    with pytest.raises(ValueError, match=r"best:2p is 'checkpoints/missing_2p\.zip:shield'"):
        splut_env.make_agent("best:2p")
    monkeypatch.setitem(BEST, 2, "search:expert=900")
    assert splut_env.make_agent("best:2p").name == "search:expert=900"


def test_entry_points_are_imported_only_when_an_agent_is_made():
    code = (
        "import sys; import splut_env; from splut_env.players import PLAYERS; "
        "before = 'splut_env.players.bots' in sys.modules; PLAYERS.make('greedy'); "
        "print(before, 'splut_env.players.bots' in sys.modules, 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "False"]


def test_a_registry_of_another_game_needs_nothing_of_splut():
    registry = AgentRegistry({"fixed": f"{Fixed.__module__}:Fixed"})
    registry.register("also", Fixed)
    assert registry.names() == ["also", "fixed"]
    assert isinstance(registry.make("fixed", seed=4), Fixed) and registry.make("also", 5).seed == 5
    agent = Fixed()
    assert registry.make(agent) is agent
    with pytest.raises(ValueError, match=r"unknown agent 'nope'.*\['also', 'fixed'\]"):
        registry.make("nope")
    with pytest.raises(ValueError, match="an agent name must be a non-empty string"):
        registry.register("", Fixed)


class Budgeted(Fixed):
    def __init__(self, seed=None, budget=100):
        super().__init__(seed)
        self.budget = budget


def test_a_name_with_a_budget_passes_it_to_factories_that_take_one():
    registry = AgentRegistry({"search": Budgeted, "fixed": Fixed})
    assert registry.make("search").budget == 100
    agent = registry.make("search=250", seed=3)
    assert (agent.budget, agent.seed) == (250, 3)
    with pytest.raises(ValueError, match="agent 'fixed' takes no search budget"):
        registry.make("fixed=5")
    for bad in ("search=0", "search=many", "search=", "search=-3", "search=99999999"):
        with pytest.raises(ValueError, match=r"expected search=N with N a whole number from 1"):
            registry.make(bad)
    with pytest.raises(ValueError, match="unknown agent 'other=5'"):
        registry.make("other=5")
    expert = splut_env.make_agent("search:expert=1500", seed=2)
    assert expert.name == "search:expert=1500" and expert._bot.params[3] == 1500


def test_register_agent_adds_a_name_to_make_agent():
    splut_env.register_agent("test:fixed", Fixed)
    try:
        assert isinstance(splut_env.make_agent("test:fixed", seed=1), Fixed)
        assert "test:fixed" in splut_env.agent_names()
    finally:
        PLAYERS._factories.pop("test:fixed")


def test_learner_seat_is_the_old_name_of_learner_player():
    with pytest.warns(DeprecationWarning, match="learner_seat is now called learner_player"):
        env = SplutGymEnv(num_players=3, learner_seat=1)
    assert env.learner_player == 1
    _, info = env.reset(seed=0)
    assert (info["player"], info["seat"]) == (1, "W")
    with pytest.warns(DeprecationWarning):
        _, info = env.reset(seed=0, options={"learner_seat": 2})
    assert (info["player"], info["seat"]) == (2, "N")
    with pytest.raises(ValueError, match="not both"), pytest.warns(DeprecationWarning):
        env.reset(options={"learner_seat": 2, "learner_player": 1})


def test_old_configs_with_seat_weights_still_load():
    config = parse_config({"pool": {"seat_weights": [1, 3]}})
    assert config.pool.player_weights == [1.0, 3.0]
