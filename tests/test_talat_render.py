"""Talat's render modes: the text diagram (``ansi``), the picture (``rgb_array``) and the
window (``human``)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from talat_env import rules
from talat_env.envs.aec import env as make_env
from talat_env.envs.gym import TalatGymEnv
from talat_env.envs.render import HEIGHT_PX, WIDTH_PX, Renderer, render_rgb

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

#: 2 players, white to move, gw frozen; black has captured five towers.
POSITION = (
    "2p wb:.wM6.../..bL3wS6./bS6wS4.../..bL6.bL4/..... bg:..bM4../....bM3/..bM6../..gS6.bS4/"
    "bS3gL4... gw*:....gL3/gM4gS4.gL6./....wL3/...wL6./wL4.... play w w=- "
    "b=gM3,gS3,wM3,wM4,wS3"
)


def test_rgb_array_is_a_picture_of_the_three_boards():
    frame = render_rgb(rules.from_text(POSITION))
    assert frame.dtype == np.uint8 and frame.shape == (HEIGHT_PX, WIDTH_PX, 3)
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 20
    # Towers in all three colours: near white, near black and grey fills.
    pixels = {tuple(p) for p in frame.reshape(-1, 3)}
    assert {(250, 250, 246), (34, 34, 38), (138, 138, 142)} <= pixels
    # The frozen board (gw) is drawn blue; the same position unfrozen has no blue squares.
    blue = (186, 206, 228)
    assert blue in pixels
    assert blue not in {tuple(p) for p in render_rgb(rules.initial_state(3)).reshape(-1, 3)}


def test_pictures_differ_when_the_position_does():
    state = rules.from_text(POSITION)
    after = rules.play(state, "wb:d4-c5")
    assert not np.array_equal(render_rgb(state), render_rgb(after))


def test_ansi_is_the_diagram_with_the_position_text():
    env = make_env(num_players=2, render_mode="ansi")
    env.reset(options={"position": POSITION})
    text = env.render()
    assert POSITION in text and "frozen" in text and "to move" in text


def test_gym_env_renders_too():
    env = TalatGymEnv(num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (HEIGHT_PX, WIDTH_PX, 3)
    env = TalatGymEnv(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    assert rules.to_text(env.game_state) in env.render()


def test_human_mode_opens_a_window_and_closes_it():
    pytest.importorskip("pygame")
    renderer = Renderer("human", fps=1000)
    assert renderer.render(rules.initial_state(2)) is None
    renderer.close()


def test_render_without_a_mode_warns_and_returns_nothing():
    with pytest.warns(UserWarning, match="render_mode"):
        assert Renderer(None).render(rules.initial_state(2)) is None
