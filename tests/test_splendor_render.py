"""Splendor's render modes: the text diagram (``ansi``), the picture (``rgb_array``) and the
window (``human``)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from test_splendor_notation import AFTER

from splendor_env import rules
from splendor_env.envs.aec import env as make_env
from splendor_env.envs.gym import SplendorGymEnv
from splendor_env.envs.render import (
    GEM_RGB,
    WIDTH_PX,
    Renderer,
    card_label,
    diagram,
    height_px,
    render_rgb,
)

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rgb_array_is_a_picture_of_the_table(n):
    frame = render_rgb(rules.initial_state(n, 0))
    assert frame.dtype == np.uint8 and frame.shape == (height_px(n), WIDTH_PX, 3)
    pixels = {tuple(p) for p in frame.reshape(-1, 3)}
    assert set(GEM_RGB) <= pixels  # every gem colour and gold is drawn
    assert len(pixels) > 50


def test_pictures_differ_when_the_position_does():
    state = rules.from_text(AFTER)
    after = rules.play(state, "take wbg")
    assert not np.array_equal(render_rgb(state), render_rgb(after))


def test_ansi_is_the_diagram_with_the_position_text():
    env = make_env(num_players=2, render_mode="ansi")
    env.reset(options={"position": AFTER})
    text = env.render()
    assert text == diagram(env.unwrapped.game_state)
    assert text.splitlines()[-1] == AFTER
    assert "P0 to move" in text and card_label(79) + "*" in text and card_label(31) in text
    assert "L3 [15]  " + card_label(71) + " | " in text


def test_card_labels_show_bonus_points_and_cost():
    assert card_label(1) == "1 w0 (r2k1)"


def test_gym_env_renders_too():
    env = SplendorGymEnv(num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (height_px(3), WIDTH_PX, 3)
    env = SplendorGymEnv(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    assert rules.to_text(env.game_state) in env.render()


def test_human_mode_opens_a_window_and_closes_it():
    pytest.importorskip("pygame")
    renderer = Renderer("human", fps=1000)
    assert renderer.render(rules.initial_state(2, 0)) is None
    renderer.close()


def test_render_without_a_mode_warns_and_returns_nothing():
    with pytest.warns(UserWarning, match="render_mode"):
        assert Renderer(None).render(rules.initial_state(2, 0)) is None
