"""Pictures of a position for the environments' render modes: an RGB image (Pillow) of the
three boards as a triangle, a window (pygame), and the text diagram of
:mod:`talat_env.rules.diagram` for ``"ansi"``.

Nothing here runs unless a render is asked for; Pillow and pygame are imported on first use.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tabletop import render
from talat_env.rules.board import (
    BOARD_COLOURS,
    BOARD_NAMES,
    CODE_COLOUR,
    CODE_TYPE,
    COLOUR_NAMES,
    COLOURS,
    FILES,
    TYPE_NAMES,
)
from talat_env.rules.diagram import status_line
from talat_env.rules.engine import State

RENDER_MODES = ("human", "ansi", "rgb_array")

CELL_PX = 56
BOARD_PX = 5 * CELL_PX
#: Room around a board for its coordinates and the colour labels of its two start lines.
PAD_PX = 34
HEADER_PX = 26
STATUS_PX = 64
WIDTH_PX = 2 * (BOARD_PX + 2 * PAD_PX) + 40
#: Where each board's top-left square corner goes: ``wb`` bottom left, ``bg`` bottom right,
#: ``gw`` on top between them.
_ORIGIN = {
    2: ((WIDTH_PX - BOARD_PX) // 2, HEADER_PX + PAD_PX),
    0: (20 + PAD_PX, HEADER_PX + BOARD_PX + 3 * PAD_PX + HEADER_PX),
    1: (WIDTH_PX - 20 - PAD_PX - BOARD_PX, HEADER_PX + BOARD_PX + 3 * PAD_PX + HEADER_PX),
}
HEIGHT_PX = _ORIGIN[0][1] + BOARD_PX + PAD_PX + STATUS_PX

_BACKGROUND = (236, 230, 214)
_SQUARES = ((214, 190, 150), (232, 214, 178))
_FROZEN_SQUARES = ((160, 186, 214), (186, 206, 228))
_INK = (40, 34, 28)
#: Tower fill, outline and label colours by tower colour.
_FILL = ((250, 250, 246), (34, 34, 38), (138, 138, 142))
_OUTLINE = ((60, 60, 60), (200, 200, 200), (40, 40, 40))
_LABEL = ((20, 20, 20), (245, 245, 245), (255, 255, 255))
#: Circumradius of a tower's outline, in cells, by height S, M, L.
_RADIUS = (0.19, 0.28, 0.36)
#: Corners by shape 3, 4, 6.
_CORNERS = (3, 4, 6)


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType sizes
        return ImageFont.load_default()


def _polygon(cx: float, cy: float, radius: float, corners: int) -> list[tuple[float, float]]:
    """A regular polygon around ``(cx, cy)`` standing on a flat side."""
    start = -math.pi / 2 if corners != 4 else -math.pi / 4
    if corners == 6:
        start = 0.0
    return [
        (
            cx + radius * math.cos(start + 2 * math.pi * k / corners),
            cy + radius * math.sin(start + 2 * math.pi * k / corners),
        )
        for k in range(corners)
    ]


def render_rgb(state: State) -> np.ndarray:
    """A ``uint8[H, W, 3]`` picture of the position: the three boards as a triangle (rank 5
    at the top of each, its rank-1 colour named below it and its rank-5 colour above),
    towers in their colour with their shape (triangle, square, hexagon) and size (small,
    medium, large) and labelled with their type; frozen boards blue and marked; the status,
    scores and piles below."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (WIDTH_PX, HEIGHT_PX), _BACKGROUND)
    draw = ImageDraw.Draw(img)
    small, label, big = _font(12), _font(13), _font(16)
    cells = state.cells
    for board in range(3):
        x0, y0 = _ORIGIN[board]
        up, down = BOARD_COLOURS[board]
        frozen = state.frozen[board]
        palette = _FROZEN_SQUARES if frozen else _SQUARES
        title = f"{BOARD_NAMES[board]}" + ("  FROZEN" if frozen else "")
        draw.text((x0 - PAD_PX + 6, y0 - PAD_PX - 16), title, fill=_INK, font=big)
        draw.text(
            (x0 + BOARD_PX // 2, y0 - 10),
            f"{COLOUR_NAMES[down]} ({COLOURS[down]}) start, moving down",
            fill=_INK,
            font=small,
            anchor="ms",
        )
        draw.text(
            (x0 + BOARD_PX // 2, y0 + BOARD_PX + 26),
            f"{COLOUR_NAMES[up]} ({COLOURS[up]}) start, moving up",
            fill=_INK,
            font=small,
            anchor="ms",
        )
        for r in range(5):
            for f in range(5):
                sx, sy = x0 + f * CELL_PX, y0 + (4 - r) * CELL_PX
                draw.rectangle(
                    (sx, sy, sx + CELL_PX - 1, sy + CELL_PX - 1),
                    fill=palette[(r + f) % 2],
                    outline=(120, 100, 70),
                )
        for i in range(5):
            draw.text(
                (x0 + i * CELL_PX + CELL_PX // 2, y0 + BOARD_PX + 3),
                FILES[i],
                fill=_INK,
                font=small,
                anchor="mt",
            )
            draw.text(
                (x0 - 6, y0 + (4 - i) * CELL_PX + CELL_PX // 2),
                str(i + 1),
                fill=_INK,
                font=small,
                anchor="rm",
            )
        if frozen:
            draw.rectangle(
                (x0 - 2, y0 - 2, x0 + BOARD_PX + 1, y0 + BOARD_PX + 1),
                outline=(40, 90, 170),
                width=3,
            )
        for sq in range(25):
            code = cells[board * 25 + sq]
            if not code:
                continue
            r, f = divmod(sq, 5)
            colour, kind = CODE_COLOUR[code], CODE_TYPE[code]
            cx = x0 + f * CELL_PX + CELL_PX / 2
            cy = y0 + (4 - r) * CELL_PX + CELL_PX / 2 + 5
            radius = _RADIUS[kind // 3] * CELL_PX
            draw.polygon(
                _polygon(cx, cy, radius, _CORNERS[kind % 3]),
                fill=_FILL[colour],
                outline=_OUTLINE[colour],
                width=2,
            )
            draw.text(
                (x0 + f * CELL_PX + 3, y0 + (4 - r) * CELL_PX + 1),
                COLOURS[colour] + TYPE_NAMES[kind],
                fill=_INK,
                font=label,
            )
    scores = state.scores()
    piles = "  ".join(f"{COLOURS[s]}={len(p)}" for s, p in enumerate(state.piles))
    score_text = (
        "scores: "
        + ", ".join(f"{COLOUR_NAMES[s]} {v}" for s, v in enumerate(scores))
        + f"   (captured: {piles})"
    )
    bottom = HEIGHT_PX - STATUS_PX + 8
    draw.text((20, bottom), status_line(state), fill=_INK, font=big)
    draw.text((20, bottom + 26), score_text, fill=_INK, font=label)
    if state.num_players == 2:
        draw.text(
            (WIDTH_PX - 20, bottom + 26),
            "grey: the Zihin",
            fill=_INK,
            font=label,
            anchor="ra",
        )
    return np.asarray(img, dtype=np.uint8).copy()


class Renderer(render.Renderer):
    """What an environment's ``render()`` does for its ``render_mode``
    (:class:`tabletop.render.Renderer` with Talat's text and :func:`render_rgb`)."""

    def __init__(self, render_mode: str | None, fps: int = 2) -> None:
        super().__init__(render_mode, str, render_rgb, "Talat", fps)


class HumanWindow(render.HumanWindow):
    """A pygame window showing :func:`render_rgb` pictures (``pip install
    'splut-env[human]'``)."""

    def __init__(self, title: str = "Talat", fps: int = 2) -> None:
        super().__init__(title, fps)
