"""Loading a checkpoint never runs code planted in it: a pickle payload in every member of a
shipped checkpoint (whole members, JSON entries, the safetensors header and data), refused
or not, creates nothing; and no unpickler is called on the way."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import pickle
import zipfile
from pathlib import Path

import pytest
import torch

from splut_env import make_agent
from splut_env.players.checkpoint import META_NAME, WEIGHTS_NAME, CheckpointError, load_agent
from training.average import OWN_KEYS

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints" / "splut_2p.zip"


class Payload:
    """Unpickling this makes the folder ``marker``: proof that planted code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _safetensors_variants(raw: bytes, pickled: bytes) -> list[bytes]:
    """The weights with the payload in the header's metadata, in place of a tensor's bytes,
    and in place of the whole header."""
    size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + size])
    header["__metadata__"] = {
        "payload": base64.b64encode(pickled).decode(),
        "raw": pickled.decode("latin-1"),
    }
    text = json.dumps(header).encode()
    with_meta = len(text).to_bytes(8, "little") + text + raw[8 + size :]
    data = bytearray(raw)
    data[8 + size : 8 + size + len(pickled)] = pickled
    as_header = len(pickled).to_bytes(8, "little") + pickled + raw[8 + size :]
    return [with_meta, bytes(data), as_header]


def poisoned(folder: Path, marker: Path) -> list[Path]:
    """Copies of the shipped checkpoint, each with the payload planted somewhere."""
    pickled = pickle.dumps(Payload(marker), protocol=2)
    serialized = {
        ":type:": "<class 'function'>",
        ":serialized:": base64.b64encode(pickled).decode(),
    }
    members = _members(SHIPPED)
    meta = json.loads(members[META_NAME])
    variants: list[dict[str, bytes]] = []
    for name in members:  # a whole member replaced by a pickle
        for protocol in (2, 5):
            variants.append({**members, name: pickle.dumps(Payload(marker), protocol=protocol)})
    for key in meta:  # every JSON entry, as sb3's serialized form and as raw pickle text
        for value in (serialized, pickled.decode("latin-1"), base64.b64encode(pickled).decode()):
            variants.append({**members, META_NAME: json.dumps({**meta, key: value}).encode()})
    for key in meta["network"]:
        network = {**meta["network"], key: serialized}
        variants.append({**members, META_NAME: json.dumps({**meta, "network": network}).encode()})
    for weights in _safetensors_variants(members[WEIGHTS_NAME], pickled):
        variants.append({**members, WEIGHTS_NAME: weights})
    torch_file = folder / "torch.pt"
    torch.save({"policy": Payload(marker)}, torch_file)  # a torch zip (pickle inside)
    variants.append({**members, WEIGHTS_NAME: torch_file.read_bytes()})
    # stable-baselines3's own trap: data["lr_schedule"][":serialized:"], and extra members
    sb3_data = json.dumps({"lr_schedule": serialized, "policy_class": serialized}).encode()
    variants.append({**members, "data": sb3_data})
    variants.append({"data": sb3_data, "policy.pth": pickled, META_NAME: members[META_NAME]})
    variants.append({**members, "pytorch_variables.pth": pickled})
    return [_zip(folder / f"poisoned_{i}.zip", v) for i, v in enumerate(variants)]


@pytest.fixture
def no_unpickling(monkeypatch):
    """Fail the test if anything calls an unpickler through the usual entry points."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("an unpickler was called while loading a checkpoint")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    monkeypatch.setattr(torch, "load", refuse)


def test_a_planted_pickle_payload_never_runs(tmp_path):
    marker = tmp_path / "payload_ran"
    pickle.loads(pickle.dumps(Payload(marker)))  # the payload works when unpickled ...
    assert marker.is_dir()
    marker.rmdir()
    files = poisoned(tmp_path, marker)
    loaded = []
    for k, path in enumerate(files):
        loaders = (
            [load_agent]
            if k % 8
            else [load_agent, make_agent, lambda p: load_agent(p, shield=True)]
        )
        for load in loaders:
            try:
                load(str(path))
                loaded.append(path.name)
            except CheckpointError:
                pass
            assert not marker.exists(), f"loading {path.name} ran planted code"  # ... never here
    # What may load: the free training facts (steps, run, seed, in an average the files
    # averaged: every key save_player does not write itself but reward_shaping, which the
    # loader checks; 3 plantings each), a safetensors header with extra metadata strings, and
    # tensor bytes overwritten (numbers stay numbers).
    free = set(json.loads(_members(SHIPPED)[META_NAME])) - set(OWN_KEYS) - {"reward_shaping"}
    assert len(set(loaded)) == 3 * len(free) + 2, sorted(set(loaded))


def test_loading_calls_no_unpickler(tmp_path, no_unpickling):
    agent = load_agent(str(SHIPPED))
    assert agent.meta["num_players"] == 2
    marker = tmp_path / "payload_ran"
    for path in poisoned(tmp_path, marker)[:12]:
        with contextlib.suppress(CheckpointError):
            load_agent(str(path))
    assert not marker.exists()
