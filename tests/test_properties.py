"""Property-based tests over every kind of input a user hands us: SPN text, step text,
actions, training configs and checkpoint bytes. Whatever comes in, the answer is a result or
the documented ``ValueError`` subclass, never another exception. Examples are derandomised
with a fixed budget, so the module is deterministic and quick."""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import splut_env
from splut_env import rules
from splut_env.encoding import NUM_ACTIONS
from splut_env.envs.gym import SplutGymEnv
from splut_env.players.checkpoint import (
    META_NAME,
    WEIGHTS_NAME,
    CheckpointError,
    load_agent,
    save_player,
)
from splut_env.players.network import NetworkShape, build_policy
from splut_env.rules.notation import step_text
from training.config import ConfigError, TrainConfig, parse_config

SETTINGS = settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
POSITIONS = [
    rules.initial_spn(2),
    rules.initial_spn(3),
    rules.initial_spn(4),
    "S:e4,e3,d4 N:e6,e5,f6 R:a5,e1,e9,i5 N 12 3 - - -",
    "S:d2,f2,e2 N:f8,d8,e8 R:a5,e1,e9,i5 S 1000000 1 - - -",
]
SPN_PIECES = ["S:", "N:", "W:", "E:", "R:", "-", ",", " ", "x", "a5", "e1", "e9", "i5", "d2",
              "f2", "e2", "f8", "d8", "e8", "1", "2", "3", "0", "S", "N", "²", "٣", "\x00"]  # fmt: skip


def spn_like() -> st.SearchStrategy[str]:
    """Valid SPNs with one field replaced, fields shuffled, or glued from SPN-ish pieces."""
    mutated = st.builds(
        lambda spn, k, text: " ".join(text if i == k else f for i, f in enumerate(spn.split())),
        st.sampled_from(POSITIONS), st.integers(0, 11), st.text(max_size=12),
    )  # fmt: skip
    fields = st.sampled_from(sorted({f for spn in POSITIONS for f in spn.split()}))
    swapped = st.builds(
        lambda spn, k, field: " ".join(field if i == k else f for i, f in enumerate(spn.split())),
        st.sampled_from(POSITIONS), st.integers(0, 11), st.one_of(fields, st.integers(-9, 10**7).map(str)),
    )  # fmt: skip
    glued = st.lists(st.sampled_from(SPN_PIECES), max_size=40).map("".join)
    return st.one_of(st.text(max_size=80), mutated, swapped, glued)


@SETTINGS
@given(spn_like())
def test_spn_text_parses_to_a_round_trip_or_a_notation_error(text):
    try:
        state = rules.from_spn(text)
    except rules.InvalidNotationError:
        event("refused")
        return
    event("parsed")
    assert rules.to_spn(rules.from_spn(rules.to_spn(state))) == rules.to_spn(state)


@SETTINGS
@given(
    st.sampled_from(POSITIONS),
    st.one_of(
        st.text(max_size=8),
        st.builds("".join, st.lists(st.sampled_from("WTDnesw@xpabcdefghi0123456789 "), max_size=7)),
        st.sampled_from([step_text(i) for i in range(NUM_ACTIONS)]),
        st.sampled_from([step_text(i) for i in range(NUM_ACTIONS)]).map(lambda t: f" {t}\t"),
    ),
)
def test_step_text_plays_or_is_refused_by_name(spn, text):
    state = rules.from_spn(spn)
    try:
        after = rules.play(state, text)
    except (rules.InvalidNotationError, rules.IllegalStepError) as err:
        event(type(err).__name__)
        return
    event("played")
    assert text.strip() in rules.legal_steps(state) and rules.to_spn(state) == spn
    assert rules.to_spn(after) != spn


ACTIONS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(0, 195),
    st.floats(allow_nan=True),
    st.text(max_size=4),
    st.none(),
    st.booleans(),
    st.integers(0, 195).map(np.int64),
    st.integers(0, 195).map(lambda a: np.array([a])),
    st.lists(st.integers(0, 195), max_size=3),
)


@SETTINGS
@given(st.sampled_from([2, 3, 4]), st.lists(ACTIONS, min_size=1, max_size=12))
def test_actions_step_the_envs_or_are_refused(players, actions):
    raw = splut_env.raw_env(num_players=players)
    raw.reset()
    gym = SplutGymEnv(num_players=players, learner_player=0, illegal_action="raise")
    gym.reset(seed=0)
    for action in actions:
        if raw.agents:
            mover = raw.agent_selection
            try:
                raw.step(action)
            except splut_env.IllegalStepError:
                assert raw.agent_selection == mover  # a refused action changes nothing
        try:
            text = raw.action_to_step(action)
            assert isinstance(text, str)
        except ValueError:
            pass
        try:
            _, _, terminated, truncated, _ = gym.step(action)
        except splut_env.IllegalStepError:
            continue
        if terminated or truncated:
            gym.reset(seed=1)


CONFIG_VALUES = st.one_of(
    st.integers(-5, 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.booleans(),
    st.none(),
    st.lists(st.one_of(st.floats(allow_nan=True), st.text(max_size=6)), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)
FIELDS = {
    "": [f for f in TrainConfig.__dataclass_fields__ if f not in ("ppo", "network", "pool",
         "reward", "pretrain", "eval")],
    "ppo": ["learning_rate", "clip_range", "gamma", "ent_coef", "vf_coef", "max_grad_norm",
            "batch_size", "n_steps"],
    "pool": ["p_latest", "p_past", "p_bots", "bots", "bot_weights", "player_weights"],
    "reward": ["shaping"],
    "pretrain": ["games", "explore", "learning_rate", "teacher"],
    "network": ["channels", "blocks", "features_dim"],
}  # fmt: skip


@st.composite
def configs(draw) -> dict:
    data: dict = {}
    for _ in range(draw(st.integers(1, 4))):
        section = draw(st.sampled_from(sorted(FIELDS)))
        key = draw(st.sampled_from(FIELDS[section]))
        value = draw(CONFIG_VALUES)
        (data.setdefault(section, {}) if section else data)[key] = value
    if draw(st.booleans()):
        data[draw(st.sampled_from(["ppo", "pool"]))] = draw(CONFIG_VALUES)
    return data


@SETTINGS
@given(configs())
def test_configs_are_accepted_checked_or_refused_by_field(data):
    try:
        config = parse_config(data)
    except ConfigError as err:
        assert str(err)
        event("refused")
        return
    event("accepted")
    numbers = [config.ppo.learning_rate, config.ppo.clip_range, config.ppo.ent_coef,
               config.reward.shaping, *config.pool.bot_weights, *config.pool.player_weights]  # fmt: skip
    assert all(math.isfinite(x) and x >= 0 for x in numbers)
    assert config.seed >= 0 and "/" not in config.name and not config.name.startswith(".")


@pytest.fixture(scope="module")
def checkpoint_bytes(tmp_path_factory) -> bytes:
    shape = NetworkShape(channels=4, blocks=1, features_dim=16, value_hidden=(8,))
    path = tmp_path_factory.mktemp("ckpt") / "small.zip"
    save_player(build_policy(shape), path, shape, num_players=2, max_turns=200)
    return path.read_bytes()


def _rezip(raw: bytes, change) -> bytes:
    """The checkpoint zip ``raw`` with ``change(name, data) -> data`` applied (valid CRCs)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as src, zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            dst.writestr(name, change(name, src.read(name)))
    return out.getvalue()


JSON_VALUES = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(), st.text(max_size=5)
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@SETTINGS
@given(data=st.data())
def test_damaged_checkpoints_load_or_are_refused_by_name(checkpoint_bytes, data, tmp_path_factory):
    raw = bytearray(checkpoint_bytes)
    how = data.draw(st.sampled_from(["zip bytes", "truncated", "metadata", "weights"]))
    if how == "zip bytes":
        for _ in range(data.draw(st.integers(1, 4))):
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    elif how == "truncated":
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    elif how == "metadata":
        meta = json.loads(zipfile.ZipFile(io.BytesIO(raw)).read(META_NAME))
        for _ in range(data.draw(st.integers(1, 2))):
            key = data.draw(st.sampled_from([*meta, "network", "extra"]))
            meta[key] = data.draw(JSON_VALUES)
        text = json.dumps(meta).encode()
        raw = _rezip(raw, lambda n, d: text if n == META_NAME else d)
    else:
        at, value = data.draw(st.integers(0, 4000)), data.draw(st.integers(0, 255))

        def flip(name: str, weights: bytes) -> bytes:
            if name != WEIGHTS_NAME:
                return weights
            out = bytearray(weights)
            out[at % len(out)] = value
            return bytes(out)

        raw = _rezip(raw, flip)
    path = Path(tmp_path_factory.getbasetemp()) / "damaged.zip"
    path.write_bytes(bytes(raw))
    try:
        agent = load_agent(str(path))
    except CheckpointError as err:
        assert "damaged.zip" in str(err)
        event(f"{how}: refused")
        return
    event(f"{how}: loaded")
    assert agent.meta["num_players"] in (2, 3, 4) and 1 <= agent.meta["max_turns"] <= 10**6
    assert agent.act(rules.initial_state(agent.meta["num_players"])) in range(NUM_ACTIONS)
