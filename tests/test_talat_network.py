"""Talat's networks: the ``steps`` policy head's action table, player files with either head,
and the imitation warm start (:mod:`training.imitation`)."""

from __future__ import annotations

import json
import random
import zipfile
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from tabletop.games import get_game
from tabletop.netplayer import Layout, Shape, load_player
from tabletop.network import build_policy
from tabletop.playerfile import PlayerFileError
from talat_env import rules
from talat_env.encoding import (
    ACTION_PIXELS,
    NUM_ACTIONS,
    OBS_SHAPE,
    PASS,
    PIXELS,
    PLANE_BOARD,
    PLANE_MOVABLE,
    PLANE_TOWERS,
    legal_actions,
    observation,
)
from talat_env.players.checkpoint import LAYOUT, load_checkpoint, network_save
from training import imitation


def test_each_action_is_read_on_the_square_it_is_played(n=None):
    rng = random.Random(3)
    seen_steps = seen_places = 0
    for game in range(12):
        state = rules.initial_state(2 + game % 2)
        while not state.is_over():
            seat = state.to_move
            planes = observation(state, seat)
            for action in legal_actions(state, seat):
                pixel = ACTION_PIXELS[action] % PIXELS
                if action == PASS:
                    assert ACTION_PIXELS[action] == -1
                elif action >= 675:  # a step or capture: from a tower this seat may move
                    assert planes[PLANE_MOVABLE].flat[pixel] == 1
                    seen_steps += 1
                else:  # a placement: on an empty square of a board
                    assert planes[PLANE_BOARD].flat[pixel] == 1
                    assert planes[PLANE_TOWERS : PLANE_TOWERS + 27, :, :].sum(0).flat[pixel] == 0
                    seen_places += 1
            state.apply(rng.choice(state.legal_ids()))
    assert seen_steps > 1000 and seen_places > 1000
    placed = [p for a, p in enumerate(ACTION_PIXELS) if a != PASS]
    assert len(set(placed)) == NUM_ACTIONS - 1  # one score per action


def _policy(head: str, stem: int = 3) -> tuple[Shape, torch.nn.Module]:
    torch.manual_seed(0)
    shape = Shape(8, 1, 16, (8,), head, stem=stem)
    return shape, build_policy(OBS_SHAPE, NUM_ACTIONS, shape.policy_kwargs(ACTION_PIXELS))


@pytest.mark.parametrize("head,stem", [("linear", 3), ("steps", 3), ("steps", 1)])
def test_a_player_file_of_either_head_plays_as_saved(tmp_path, head, stem):
    shape, policy = _policy(head, stem)
    path = network_save(policy, tmp_path / "p.zip", shape, 2)
    loaded = load_checkpoint(path)
    obs = torch.as_tensor(observation(rules.initial_state(2), 0))[None]
    with torch.no_grad():
        expected = policy.get_distribution(obs).distribution.logits
        got = loaded.policy.get_distribution(obs).distribution.logits
    assert torch.equal(expected, got)
    assert ("policy_head" in loaded.meta["network"]) == (head == "steps")
    assert loaded.meta["network"].get("stem", 3) == stem
    assert ("stem" in loaded.meta["network"]) == (stem == 1)  # older files read as before
    assert loaded.policy.features_extractor.stem[0].kernel_size == (stem, stem)
    assert type(loaded.policy.action_net).__name__ == (
        "StepLogits" if head == "steps" else "Linear"
    )


def _rewrite_meta(path, change) -> None:
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    name = next(n for n in members if n.endswith(".json"))
    meta = json.loads(members[name])
    change(meta)
    members[name] = json.dumps(meta).encode()
    with zipfile.ZipFile(path, "w") as z:
        for member, data in members.items():
            z.writestr(member, data)


def test_a_file_with_an_unknown_head_or_a_head_the_game_lacks_is_refused(tmp_path):
    shape, policy = _policy("steps")
    path = network_save(policy, tmp_path / "p.zip", shape, 2)
    _rewrite_meta(path, lambda meta: meta["network"].update(policy_head="conv9"))
    with pytest.raises(PlayerFileError, match=r"policy_head must be one of .*got 'conv9'"):
        load_checkpoint(path)
    for bad in (2, "1", True):
        path = network_save(policy, tmp_path / "s.zip", shape, 2)
        _rewrite_meta(path, lambda meta, bad=bad: meta["network"].update(stem=bad))
        with pytest.raises(PlayerFileError, match=r"network.stem must be one of \[3, 1\]"):
            load_checkpoint(path)
    path = network_save(policy, tmp_path / "q.zip", shape, 2)
    no_pixels = Layout(*[getattr(LAYOUT, f) for f in ("game", "version", "obs_shape")],
                       LAYOUT.num_actions, LAYOUT.player_counts)  # fmt: skip
    with pytest.raises(PlayerFileError, match="talat networks have no 'steps' policy head"):
        load_player(path, no_pixels)


def _config(games: int, teacher: str = "search:easy") -> SimpleNamespace:
    pretrain = SimpleNamespace(
        games=games, teacher=teacher, explore=0.2, epochs=30, batch_size=32,
        learning_rate=0.003, dagger_rounds=0, dagger_games=0, soft=False,
    )  # fmt: skip
    ppo = SimpleNamespace(gamma=0.99, vf_coef=0.5, max_grad_norm=0.5)
    return SimpleNamespace(num_players=2, max_turns=1000, seed=5, pretrain=pretrain, ppo=ppo)


def test_distillation_fits_the_teachers_probabilities(tmp_path):
    game = get_game("talat")
    shape, teacher_policy = _policy("steps", stem=3)
    for param in teacher_policy.parameters():  # a teacher with opinions, not near-uniform
        param.data.mul_(4)
    path = network_save(teacher_policy, tmp_path / "teacher.zip", shape, 2)
    config = _config(2)
    config.pretrain.epochs, config.pretrain.soft = 40, True
    data = imitation.generate(game, config, progress=False)
    teacher = imitation.teacher_network(game, str(path))
    obs, masks = imitation.float_obs(data, np.arange(len(data["masks"]))), data["masks"]
    targets = imitation.soft_targets(teacher, obs, masks)
    assert torch.allclose(targets.sum(1), torch.ones(len(masks)))
    assert not targets[~torch.as_tensor(masks)].any()  # nothing on an illegal move

    def divergence(student) -> float:
        with torch.no_grad():
            log_probs = imitation._forward(student, obs, masks)[1]
        kept = targets > 0
        return float((targets[kept] * (targets[kept].log() - log_probs[kept])).sum() / len(masks))

    _, student = _policy("steps", stem=1)  # another shape: a smaller, faster student
    before = divergence(student)
    imitation.fit(student, data, config, progress=False, teacher=teacher)
    after = divergence(student)
    assert after < 0.25 * before, (before, after)
    with pytest.raises(ValueError, match=r"needs a network teacher .* 'greedy' is a"):
        imitation.teacher_network(game, "greedy")


def test_imitation_data_do_not_depend_on_the_number_of_processes(monkeypatch):
    game = get_game("talat")
    together = imitation.generate(game, _config(3), progress=False)
    monkeypatch.setattr(imitation.os, "sched_getaffinity", lambda _: {0})
    alone = imitation.generate(game, _config(3), progress=False)
    assert together.keys() == alone.keys()
    for key in together:
        assert np.array_equal(together[key], alone[key]), key
    # The labels are the teacher's moves, legal where they were asked for.
    assert together["masks"][np.arange(len(together["actions"])), together["actions"]].all()
    # Values: the mover's result, discounted towards the end of the game.
    assert np.all(np.abs(together["values"]) <= 1) and np.abs(together["values"]).max() > 0.9


def test_imitation_learns_the_teachers_moves():
    game = get_game("talat")
    config = _config(2)
    data = imitation.generate(game, config, progress=False)
    _, policy = _policy("steps")
    metrics = imitation.fit(policy, data, config, progress=False)
    # From about 1 in 16 at the first epoch (the scores start near uniform).
    assert metrics["accuracy"] > 0.5 and metrics["policy_loss"] < 2.0, metrics


def test_the_small_shipped_network_is_the_distilled_shape_and_beats_random():
    from tabletop.match import play_game
    from talat_env import make_agent

    loaded = load_checkpoint("checkpoints/talat_2p_small.zip")
    network = loaded.meta["network"]
    assert (network["channels"], network["blocks"], network["stem"]) == (16, 3, 1)
    game = get_game("talat")
    for seat in (0, 1):
        agents = [make_agent("random", seed=seat), make_agent("checkpoints/talat_2p_small.zip")]
        if seat == 0:
            agents.reverse()
        record = play_game(game, agents, seed=seat)
        assert record.winner == seat, record.final_spn
