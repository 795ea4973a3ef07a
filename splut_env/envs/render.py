"""Pictures of a position for the environments' render modes: an RGB image (Pillow), a
window (pygame), and the text diagram of :mod:`splut_env.rules.diagram` for ``"ansi"``.

Nothing here runs unless a render is asked for; Pillow and pygame are imported on first use.
"""

from __future__ import annotations

import numpy as np

from splut_env.rules.board import EMPTY, KINDS, NUM_SQUARES, ROCK, SQUARE_XY
from splut_env.rules.diagram import render_ansi, status_line
from splut_env.rules.engine import State
from tabletop import render

_RGB = {0: (214, 48, 49), 1: (9, 132, 227), 2: (0, 160, 90), 3: (240, 190, 0)}

CELL_PX = 56
MARGIN_PX = 30
STATUS_PX = 30


def render_rgb(state: State) -> np.ndarray:
    """An ``uint8[H, W, 3]`` picture of the board: seat colours, one shape per piece kind
    (wizard: triangle, troll: square, dwarf: circle), rocks as grey octagons (locked: dark
    with a cross; being levitated: purple ring), coordinates and a status line."""
    from PIL import Image, ImageDraw

    size = 9 * CELL_PX + 2 * MARGIN_PX
    img = Image.new("RGB", (size, size + STATUS_PX), (245, 240, 228))
    draw = ImageDraw.Draw(img)

    def box(sq: int) -> tuple[int, int, int, int]:
        f, r = SQUARE_XY[sq]
        x0 = MARGIN_PX + f * CELL_PX
        y0 = MARGIN_PX + (8 - r) * CELL_PX
        return x0, y0, x0 + CELL_PX, y0 + CELL_PX

    for sq in range(NUM_SQUARES):
        x0, y0, x1, y1 = box(sq)
        fill = (222, 205, 170) if (SQUARE_XY[sq][0] + SQUARE_XY[sq][1]) % 2 else (205, 186, 148)
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=fill, outline=(120, 100, 70))
    for i, ch in enumerate("abcdefghi"):
        x = MARGIN_PX + i * CELL_PX + CELL_PX // 2 - 3
        draw.text((x, size - MARGIN_PX + 8), ch, fill=(60, 60, 60))
        draw.text((x, 8), ch, fill=(60, 60, 60))
    for r in range(9):
        y = MARGIN_PX + (8 - r) * CELL_PX + CELL_PX // 2 - 6
        draw.text((10, y), str(r + 1), fill=(60, 60, 60))
        draw.text((size - MARGIN_PX + 10, y), str(r + 1), fill=(60, 60, 60))

    pad = CELL_PX // 7
    for sq in range(NUM_SQUARES):
        c = state.cells[sq]
        if c == EMPTY:
            continue
        x0, y0, x1, y1 = box(sq)
        x0, y0, x1, y1 = x0 + pad, y0 + pad, x1 - pad, y1 - pad
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        if c == ROCK:
            k = (x1 - x0) // 3
            octagon = [
                (x0 + k, y0),
                (x1 - k, y0),
                (x1, y0 + k),
                (x1, y1 - k),
                (x1 - k, y1),
                (x0 + k, y1),
                (x0, y1 - k),
                (x0, y0 + k),
            ]
            locked = (state.locked >> sq) & 1
            draw.polygon(
                octagon, fill=(90, 90, 90) if locked else (160, 160, 160), outline=(40, 40, 40)
            )
            if locked:
                draw.line((x0 + k, y0 + k, x1 - k, y1 - k), fill=(230, 230, 230), width=3)
                draw.line((x0 + k, y1 - k, x1 - k, y0 + k), fill=(230, 230, 230), width=3)
            if sq == state.lev:
                draw.ellipse((x0 - 3, y0 - 3, x1 + 3, y1 + 3), outline=(150, 40, 200), width=4)
            continue
        piece = c - 2
        colour = _RGB[piece // 3]
        kind = KINDS[piece % 3]
        outline = (30, 30, 30)
        if kind == "W":
            draw.polygon([(cx, y0), (x1, y1), (x0, y1)], fill=colour, outline=outline, width=2)
        elif kind == "T":
            draw.rectangle((x0 + 2, y0 + 2, x1 - 2, y1 - 2), fill=colour, outline=outline, width=2)
        else:
            draw.ellipse((x0 + 4, y0 + 4, x1 - 4, y1 - 4), fill=colour, outline=outline, width=2)
        draw.text((cx - 3, cy - 2 if kind == "W" else cy - 6), kind, fill=(255, 255, 255))
    draw.text((MARGIN_PX, size + 6), status_line(state), fill=(20, 20, 20))
    return np.asarray(img, dtype=np.uint8).copy()


class Renderer(render.Renderer):
    """What an environment's ``render()`` does for its ``render_mode``
    (:class:`tabletop.render.Renderer` with Splut!'s text and :func:`render_rgb`)."""

    def __init__(self, render_mode: str | None, fps: int = 2) -> None:
        super().__init__(render_mode, render_ansi, render_rgb, "Splut!", fps)


class HumanWindow(render.HumanWindow):
    """A pygame window showing :func:`render_rgb` pictures (``pip install
    'splut-env[human]'``)."""

    def __init__(self, title: str = "Splut!", fps: int = 2) -> None:
        super().__init__(title, fps)
