"""What every game's environments do for their ``render_mode`` (:class:`Renderer`): text for
``"ansi"``, a picture for ``"rgb_array"``, and that picture in a pygame window for
``"human"`` (:class:`HumanWindow`); each game supplies its text and its picture."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np


class HumanWindow:
    """A pygame window showing ``uint8[H, W, 3]`` pictures (``pip install
    'splut-env[human]'``); it follows the pictures' size."""

    def __init__(self, title: str = "splut-env", fps: int = 2) -> None:
        try:
            import pygame
        except ImportError as err:
            raise ImportError(
                "render_mode='human' needs pygame: pip install 'splut-env[human]'"
            ) from err
        self._pygame: Any = pygame
        self._screen = None
        self._clock = pygame.time.Clock()
        self._title = title
        self._fps = fps

    def show(self, frame: np.ndarray) -> None:
        pygame = self._pygame
        size = (frame.shape[1], frame.shape[0])
        if self._screen is None or self._screen.get_size() != size:
            pygame.display.init()
            pygame.display.set_caption(self._title)
            self._screen = pygame.display.set_mode(size)
        surface = pygame.surfarray.make_surface(frame.swapaxes(0, 1))
        self._screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        self._clock.tick(self._fps)

    def close(self) -> None:
        if self._screen is not None:
            self._pygame.display.quit()
            self._screen = None


class Renderer:
    """What an environment's ``render()`` does for its ``render_mode``: ``text(state)`` for
    ``"ansi"``, ``picture(state)`` for ``"rgb_array"`` and, shown in a :class:`HumanWindow`
    titled ``title``, for ``"human"``; a warning and ``None`` without a mode."""

    def __init__(
        self,
        render_mode: str | None,
        text: Callable[[Any], str],
        picture: Callable[[Any], np.ndarray],
        title: str,
        fps: int = 2,
    ) -> None:
        self.render_mode = render_mode
        self.fps = fps
        self._text, self._picture, self._title = text, picture, title
        self._window: HumanWindow | None = None

    def render(self, state: Any) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        if self.render_mode == "ansi":
            return self._text(state)
        frame = self._picture(state)
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            self._window = HumanWindow(self._title, fps=self.fps)
        self._window.show(frame)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None
