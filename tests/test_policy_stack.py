"""The core's networks (tabletop.network): one forward pass for a pool of them
(PolicyStack), the same logits as each network alone, for every kind the core builds; and
their sampler (GumbelCategorical)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tabletop.network import (
    GumbelCategorical,
    PolicyAgent,
    PolicyStack,
    build_policy,
    mlp_policy_kwargs,
    planes_policy_kwargs,
    split_largest,
)
from talat_env.encoding import ACTION_PIXELS, NUM_ACTIONS, OBS_SHAPE


def policies(kind: str, count: int) -> list:
    torch.manual_seed(0)
    if kind == "mlp":
        shape, actions, kwargs = (30,), 7, mlp_policy_kwargs((16, 8), (8,))
    else:
        pixels = tuple(ACTION_PIXELS) if kind.startswith("steps") else None
        shape, actions = OBS_SHAPE, NUM_ACTIONS
        stem = 1 if kind.endswith("1x1 stem") else 3
        kwargs = planes_policy_kwargs(8, 2, 16, (8,), pixels, stem=stem)
    made = [build_policy(shape, actions, kwargs) for _ in range(count)]
    for policy in made:  # untrained step scores start near zero: make them count
        with torch.no_grad():
            for tensor in policy.parameters():
                tensor.add_(0.1 * torch.randn_like(tensor))
    return made


@pytest.mark.parametrize("kind", ["linear", "steps", "steps, 1x1 stem", "mlp"])
def test_the_stack_gives_each_policy_its_own_logits(kind):
    pool = policies(kind, 3)
    rng = np.random.default_rng(1)
    shape = pool[0].observation_space.shape
    batches = [rng.random((n, *shape)).astype(np.float32) for n in (4, 1, 6)]
    stack = PolicyStack.of(pool)
    assert stack is not None
    agents = [PolicyAgent(policy, observe=lambda s: s) for policy in pool]
    for got, agent, batch in zip(stack.logits(batches), agents, batches, strict=True):
        np.testing.assert_allclose(got, agent.logits(batch), rtol=1e-4, atol=1e-4)


def test_the_agents_choose_as_they_would_alone_and_a_changed_policy_is_restacked():
    pool = policies("steps", 2)
    agents = [PolicyAgent(policy, observe=lambda s: s) for policy in pool]
    rng = np.random.default_rng(2)
    batches = [rng.random((n, *OBS_SHAPE)).astype(np.float32) for n in (3, 5)]
    masks = [rng.random((n, NUM_ACTIONS)) < 0.3 for n in (3, 5)]
    together = PolicyAgent.act_batches(agents, batches, masks)
    for agent, batch, mask, acts in zip(agents, batches, masks, together, strict=True):
        np.testing.assert_array_equal(acts, agent.act_batch(batch, mask))
        assert mask[np.arange(len(acts)), acts].all()
    first = PolicyStack.of(pool)
    with torch.no_grad():
        next(pool[0].parameters()).add_(1.0)
    assert PolicyStack.of(pool) is not first


def test_policies_of_different_shapes_are_not_stacked():
    assert PolicyStack.of([*policies("steps", 1), *policies("linear", 1)]) is None


def test_the_gumbel_sampler_draws_the_masked_distribution():
    torch.manual_seed(0)
    rows = 100_000
    dist = GumbelCategorical(6)
    dist.proba_distribution(torch.tensor([[0.0, 1.0, 2.0, -1.0, 0.5, 9.0]]).repeat(rows, 1))
    mask = np.ones((rows, 6), dtype=bool)
    mask[:, 5] = False  # the likeliest action, masked
    dist.apply_masking(mask)
    counts = torch.bincount(dist.sample(), minlength=6).numpy()
    assert counts[5] == 0
    probs = dist.distribution.probs[0].numpy()
    # within 5 standard deviations of the expected count, for every action
    assert np.all(np.abs(counts - rows * probs) <= 5 * np.sqrt(rows * probs * (1 - probs)) + 1)


def test_a_much_larger_batch_runs_alone_and_every_agent_chooses_as_alone():
    assert split_largest([64, 13, 12, 13, 11, 12]) == ([0], [1, 2, 3, 4, 5])
    assert split_largest([8, 7, 9]) == ([], [0, 1, 2])  # alike: one stacked pass
    assert split_largest([3, 100]) == ([1], [0])  # 100 + 3 + 16 rows < 2 × 100: no stack
    pool = policies("steps", 3)
    agents = [PolicyAgent(policy, observe=lambda s: s) for policy in pool]
    rng = np.random.default_rng(4)
    sizes = (2, 70, 3)
    batches = [rng.random((n, *OBS_SHAPE)).astype(np.float32) for n in sizes]
    masks = [rng.random((n, NUM_ACTIONS)) < 0.3 for n in sizes]
    together = PolicyAgent.act_batches(agents, batches, masks)
    for agent, batch, mask, acts in zip(agents, batches, masks, together, strict=True):
        np.testing.assert_array_equal(acts, agent.act_batch(batch, mask))
