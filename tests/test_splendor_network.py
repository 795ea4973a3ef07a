"""Splendor's networks: the ``mlp`` network kind of :mod:`tabletop.network` and
:mod:`tabletop.netplayer` (files of both kinds round-trip exactly, crafted files refused by
name), Splendor's player files, ``best:Np``, and files of one game refused by the others."""

from __future__ import annotations

import json
import pickle
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

import splendor_env
import splut_env
import talat_env
from splendor_env import rules
from splendor_env.encoding import NUM_ACTIONS, OBS_SHAPE, observation
from splendor_env.players import BEST, PLAYERS, YARDSTICK, best_spec
from splendor_env.players.checkpoint import LAYOUT, load_agent, load_checkpoint, network_save
from splut_env.players.checkpoint import CheckpointError
from tabletop.games import get_game
from tabletop.netplayer import Shape, load_player, save_player, shape_from_json
from tabletop.network import MLPNet, PlanesNet, build_policy
from tabletop.playerfile import PlayerFileError
from talat_env import rules as talat_rules
from talat_env.encoding import ACTION_PIXELS
from talat_env.encoding import NUM_ACTIONS as TALAT_ACTIONS
from talat_env.encoding import OBS_SHAPE as TALAT_OBS
from talat_env.encoding import observation as talat_observation
from talat_env.players.checkpoint import LAYOUT as TALAT_LAYOUT
from talat_env.players.checkpoint import network_save as talat_save

ROOT = Path(__file__).resolve().parent.parent
SPLUT_FILE = ROOT / "checkpoints" / "splut_2p.zip"
TALAT_FILE = ROOT / "checkpoints" / "talat_2p.zip"
MLP = Shape(value_hidden=(8,), kind="mlp", hidden=(32, 16))


def _mlp_policy(shape: Shape = MLP, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return build_policy(OBS_SHAPE, NUM_ACTIONS, shape.policy_kwargs())


def _positions(count: int = 6) -> np.ndarray:
    """Observations of a few positions of a random 3-player game, each from its mover."""
    rng = random.Random(2)
    state, out = rules.initial_state(3, 4), []
    while len(out) < count and not rules.is_over(state):
        out.append(observation(state, state.to_move))
        state.apply(rng.choice(state.legal_move_ids()))
    return np.stack(out)


def _logits(policy: torch.nn.Module, obs: np.ndarray) -> torch.Tensor:
    with torch.no_grad():
        return policy.get_distribution(torch.as_tensor(obs)).distribution.logits


def _rewrite_meta(path: Path, change) -> Path:
    with zipfile.ZipFile(path) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    name = next(n for n in members if n.endswith(".json"))
    meta = json.loads(members[name])
    change(meta)
    members[name] = json.dumps(meta).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for member, data in members.items():
            zf.writestr(member, data)
    return path


# --- the network kinds -------------------------------------------------------------------------


def test_an_mlp_policy_has_the_layers_its_shape_names():
    policy = _mlp_policy()
    net = policy.features_extractor
    assert isinstance(net, MLPNet) and net.features_dim == 16
    linear = [m for m in net.layers if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linear] == [(644, 32), (32, 16)]
    assert policy.action_net.in_features == 16 and policy.action_net.out_features == 77
    assert [
        m.out_features for m in policy.mlp_extractor.value_net if hasattr(m, "out_features")
    ] == [8]


def test_an_mlp_player_file_plays_exactly_as_saved(tmp_path):
    policy = _mlp_policy()
    path = network_save(policy, tmp_path / "p.zip", MLP, 3, steps=7)
    loaded = load_checkpoint(path)
    obs = _positions()
    assert torch.equal(_logits(policy, obs), _logits(loaded.policy, obs))
    for name, tensor in policy.state_dict().items():
        assert torch.equal(tensor, loaded.policy.state_dict()[name]), name
    assert loaded.meta["network"] == {"kind": "mlp", "hidden": [32, 16], "value_hidden": [8]}
    assert loaded.meta["game"] == "splendor" and loaded.num_players == 3
    assert loaded.meta["obs_shape"] == [644] and loaded.meta["num_actions"] == 77
    assert shape_from_json(loaded.meta["network"], "f") == MLP
    assert (LAYOUT.game, LAYOUT.version, LAYOUT.obs_shape, LAYOUT.num_actions) == (
        "splendor", 1, (644,), 77,
    )  # fmt: skip
    assert LAYOUT.player_counts == (2, 3, 4) and LAYOUT.kinds == ("mlp",)


def test_a_planes_player_file_still_round_trips_and_is_written_as_before(tmp_path):
    torch.manual_seed(1)
    shape = Shape(8, 1, 16, (8,), "steps")
    policy = build_policy(TALAT_OBS, TALAT_ACTIONS, shape.policy_kwargs(ACTION_PIXELS))
    path = talat_save(policy, tmp_path / "t.zip", shape, 2)
    loaded = load_player(path, TALAT_LAYOUT)
    assert isinstance(loaded.policy.features_extractor, PlanesNet)
    obs = torch.as_tensor(talat_observation(talat_rules.initial_state(2), 0))[None]
    assert torch.equal(_logits(policy, obs.numpy()), _logits(loaded.policy, obs.numpy()))
    # A planes network's metadata carries no kind (files written before kinds read the same).
    assert loaded.meta["network"] == {
        "channels": 8, "blocks": 1, "features_dim": 16, "value_hidden": [8],
        "policy_head": "steps",
    }  # fmt: skip
    _rewrite_meta(path, lambda meta: meta["network"].update(kind="planes"))
    assert load_player(path, TALAT_LAYOUT).meta["network"]["kind"] == "planes"


def test_the_shipped_talat_file_loads_as_before():
    player = talat_env.load_agent(str(TALAT_FILE))
    assert isinstance(player.policy.features_extractor, PlanesNet)


# --- crafted files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("network", "message"),
    [
        ({"kind": "transformer", "hidden": [8], "value_hidden": [8]},
         r"network.kind must be one of \['planes', 'mlp'\], got 'transformer'"),
        ({"kind": "mlp", "hidden": [8]}, "must be an object with kind, hidden and value_hidden"),
        ({"kind": "mlp", "hidden": [8], "value_hidden": [8], "channels": 4},
         "must be an object with kind, hidden and value_hidden"),
        ({"kind": "mlp", "hidden": [], "value_hidden": [8]}, "at least one layer size"),
        ({"kind": "mlp", "hidden": [8] * 9, "value_hidden": [8]},
         "network.hidden must be a list of at most 8 sizes"),
        ({"kind": "mlp", "hidden": "8", "value_hidden": [8]}, "network.hidden must be a list"),
        ({"kind": "mlp", "hidden": [10**9], "value_hidden": [8]},
         "network.hidden must be a whole number from 1 to 2048, got '1000000000'"),
        ({"kind": "mlp", "hidden": [True], "value_hidden": [8]},
         "network.hidden must be a whole number"),
        ({"kind": "mlp", "hidden": [8.0], "value_hidden": [8]},
         "network.hidden must be a whole number"),
        ({"kind": "mlp", "hidden": [8], "value_hidden": [0]},
         "network.value_hidden must be a whole number from 1 to 2048, got '0'"),
        ({"kind": "mlp", "hidden": [8], "value_hidden": [8] * 5},
         "network.value_hidden must be a list of at most 4 sizes"),
        ({"kind": "planes", "channels": 8, "blocks": 1, "features_dim": 16, "value_hidden": [8]},
         r"holds a network of kind 'planes'; splendor networks are of kind 'mlp'"),
        ({"kind": "mlp", "hidden": [32, 8], "value_hidden": [8]},
         r"policy.safetensors does not match the network in splendor_env.json"),
        ("mlp", "'network' must be an object"),
    ],
)  # fmt: skip
def test_a_crafted_network_is_refused_naming_the_file(tmp_path, network, message):
    path = network_save(_mlp_policy(), tmp_path / "crafted.zip", MLP, 2)
    _rewrite_meta(path, lambda meta: meta.update(network=network))
    with pytest.raises(PlayerFileError, match=message) as caught:
        load_checkpoint(path)
    assert "crafted.zip" in str(caught.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"layout_version": 0}, r"layout 1 \(77 actions, features \[644\]\)"),
        ({"obs_shape": [645]}, r"layout 1 \(77 actions, features \[644\]\)"),
        ({"num_actions": 76}, r"layout 1 \(77 actions, features \[644\]\)"),
        ({"num_players": 5}, r"num_players must be one of \[2, 3, 4\], got '5'"),
        ({"num_players": "2"}, r"num_players must be one of \[2, 3, 4\]"),
        ({"format_version": 1}, "unknown player-file format"),
        ({"game": "talat"}, r"its metadata names game 'talat'; expected 'splendor'"),
    ],
)
def test_a_file_for_another_layout_or_table_is_refused_naming_it(tmp_path, change, message):
    path = network_save(_mlp_policy(), tmp_path / "crafted.zip", MLP, 2)
    _rewrite_meta(path, lambda meta: meta.update(change))
    with pytest.raises(PlayerFileError, match=message) as caught:
        load_checkpoint(path)
    assert "crafted.zip" in str(caught.value)


def test_an_mlp_file_is_refused_by_a_game_whose_networks_are_planes(tmp_path):
    policy = build_policy(TALAT_OBS, TALAT_ACTIONS, MLP.policy_kwargs())
    path = save_player(policy, tmp_path / "mlp_talat.zip", TALAT_LAYOUT, MLP, 2)
    with pytest.raises(PlayerFileError, match=r"mlp_talat.zip' holds a network of kind 'mlp'"):
        load_player(path, TALAT_LAYOUT)
    with pytest.raises(ValueError, match="a Splendor network is an 'mlp'"):
        network_save(policy, tmp_path / "x.zip", Shape(), 2)


def test_loading_a_splendor_file_calls_no_unpickler(tmp_path, monkeypatch):
    path = network_save(_mlp_policy(), tmp_path / "p.zip", MLP, 2)

    def refuse(*_args, **_kwargs):
        raise AssertionError("an unpickler was called while loading a player file")

    for module, name in [
        (pickle, "load"),
        (pickle, "loads"),
        (pickle, "Unpickler"),
        (torch, "load"),
    ]:
        monkeypatch.setattr(module, name, refuse)
    assert load_checkpoint(path).num_players == 2


# --- files of other games ----------------------------------------------------------------------


def test_each_game_refuses_the_others_files_by_name(tmp_path):
    splendor_file = str(network_save(_mlp_policy(), tmp_path / "s.zip", MLP, 2))
    for other, title, game in [(SPLUT_FILE, "Splut!", "splut"), (TALAT_FILE, "Talat", "talat")]:
        expected = rf"plays {title} \(game '{game}'\); it cannot play Splendor \(game 'splendor'\)"
        for load in (splendor_env.make_agent, splendor_env.load_agent, load_checkpoint):
            with pytest.raises(PlayerFileError, match=expected):
                load(str(other))
    refused = r"plays Splendor \(game 'splendor'\); it cannot play"
    with pytest.raises(PlayerFileError, match=refused + " Talat"):
        talat_env.make_agent(splendor_file)
    with pytest.raises(PlayerFileError, match=refused + " Talat"):
        talat_env.load_agent(splendor_file)
    with pytest.raises(CheckpointError, match=refused + " Splut!"):
        splut_env.make_agent(splendor_file)


# --- playing ----------------------------------------------------------------------------------


def test_a_splendor_file_plays_legal_games_at_its_table_size(tmp_path):
    path = str(network_save(_mlp_policy(), tmp_path / "p.zip", MLP, 3))
    game = get_game("splendor")
    agents = [splendor_env.load_agent(path), splendor_env.make_agent(path, seed=1)]
    agents.append(load_agent(path, num_players=3, deterministic=False))
    record = game.play_game(agents, seed=4)
    assert rules.is_over(game.from_text(record.final_spn))
    with pytest.raises(PlayerFileError, match="was trained for 3 players, not 2"):
        splendor_env.load_agent(path, num_players=2)
    with pytest.raises(ValueError, match="trained for 3 players and cannot play at a table of 2"):
        game.play_game([agents[0], game.make_agent("random")], seed=1)


def test_best_plays_the_table_of_best_players(tmp_path, monkeypatch):
    for n in (2, 3, 4):
        assert best_spec(n) == BEST[n] == "search:fitted" != YARDSTICK
        assert PLAYERS.make(f"best:{n}p").name == "search:fitted"
    monkeypatch.chdir(tmp_path)
    shipped = tmp_path / "checkpoints" / "splendor_3p.zip"
    network_save(_mlp_policy(), shipped, MLP, 3)
    monkeypatch.setitem(BEST, 3, "checkpoints/splendor_3p.zip")
    assert best_spec(3) == "checkpoints/splendor_3p.zip" and best_spec(2) == "search:fitted"
    agent = splendor_env.make_agent("best:3p")
    assert agent.num_players == 3 and agent.name == "splendor_3p.zip"
    monkeypatch.setitem(BEST, 4, "checkpoints/splendor_4p.zip")
    with pytest.raises(ValueError, match=r"best:4p is 'checkpoints/splendor_4p\.zip'"):
        best_spec(4)
