"""Pictures of a position for the environments' render modes: a text diagram for
``"ansi"`` (:func:`diagram`), an RGB image drawn with Pillow for ``"rgb_array"``
(:func:`render_rgb`) and a pygame window for ``"human"``.

Renders show the whole table as an onlooker of the full position would: reserved cards face
up (a ``*`` marks one reserved from a deck), deck sizes but not their cards. Nothing here
runs unless a render is asked for; Pillow and pygame are imported on first use.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from splendor_env.rules import State
from splendor_env.rules.components import (
    CARD_BONUS,
    CARD_COST,
    CARD_POINTS,
    COLOURS,
    NOBLE_NEEDS,
    NOBLE_POINTS,
    TOKENS,
)
from splendor_env.rules.notation import OVER, PHASE_NAMES, format_position
from tabletop import render

RENDER_MODES = ("human", "ansi", "rgb_array")

# --- text -----------------------------------------------------------------------------------


def card_label(card: int) -> str:
    """``"1 w0 (r2k1)"``-style text of a card: its id, bonus colour and points, cost."""
    cost = "".join(f"{COLOURS[c]}{v}" for c, v in enumerate(CARD_COST[card]) if v) or "free"
    return f"{card} {COLOURS[CARD_BONUS[card]]}{CARD_POINTS[card]} ({cost})"


def noble_label(noble: int) -> str:
    """``"#3 w3b3k3"``-style text of a noble: its id and the bonuses it requires."""
    need = "".join(f"{COLOURS[c]}{v}" for c, v in enumerate(NOBLE_NEEDS[noble]) if v)
    return f"#{noble} {need}"


def status_line(state: State) -> str:
    """Turn, round, who is to move and the phase, or the result."""
    n = state.num_players
    head = f"Splendor, {n} players, turn {state.turn} (round {state.turn // n + 1})"
    if state.phase == OVER:
        winners = state.winners()
        if len(winners) == 1:
            return f"{head}: game over, P{winners[0]} wins"
        if winners:
            return f"{head}: game over, shared win of {', '.join(f'P{w}' for w in winners)}"
        return f"{head}: game over, no winner"
    final = ", final round" if state.final else ""
    return f"{head}: P{state.to_move} to move, phase {PHASE_NAMES[state.phase]}{final}"


def diagram(state: State) -> str:
    """A text diagram of the position, the position text on its last line."""
    lines = [status_line(state)]
    supply = " ".join(f"{TOKENS[x]}{v}" for x, v in enumerate(state.supply))
    lines.append(f"supply   {supply}")
    lines.append("nobles   " + ("   ".join(noble_label(x) for x in state.nobles) or "-"))
    for level in (2, 1, 0):
        row = [card_label(c) if c else "-" for c in state.market[level]]
        lines.append(f"L{level + 1} [{len(state.decks[level]):2}]  " + " | ".join(row))
    for p in range(state.num_players):
        tokens = "".join(f"{TOKENS[x]}{v}" for x, v in enumerate(state.tokens[p]))
        bonus = "".join(f"{COLOURS[c]}{v}" for c, v in enumerate(state.bonus[p]))
        hand = ", ".join(
            card_label(c) + ("*" if b else "")
            for c, b in zip(state.hands[p], state.blind[p], strict=True)
        )
        owned = ",".join(f"#{x}" for x in sorted(state.owned[p])) or "-"
        mark = ">" if p == state.to_move else " "
        lines.append(
            f"{mark}P{p} {state.points[p]:2} pts  tokens {tokens}  bonus {bonus}  "
            f"cards {len(state.bought[p])}  nobles {owned}  hand {hand or '-'}"
        )
    lines.append(format_position(state))
    return "\n".join(lines)


# --- picture --------------------------------------------------------------------------------

_BACKGROUND = (28, 52, 44)
_PANEL = (44, 72, 62)
_INK = (240, 236, 222)
_DARK_INK = (30, 30, 30)
_CARD_BACK = (92, 64, 44)
#: Gem colours ``w b g r k`` and gold.
GEM_RGB = (
    (236, 236, 236),
    (40, 96, 200),
    (36, 150, 72),
    (204, 44, 44),
    (52, 44, 44),
    (232, 190, 40),
)
#: Card faces per level, and the noble tiles.
_CARD_FACE = ((226, 214, 176), (214, 196, 226), (188, 214, 232))
_NOBLE_FACE = (236, 206, 160)

CARD_W, CARD_H = 104, 132
GAP = 10
MARGIN = 16
WIDTH_PX = 2 * MARGIN + 5 * CARD_W + 4 * GAP + 3 * GAP + 150
_TITLE_H = 30
_NOBLE_H = 84
_PLAYER_H = 150


def height_px(num_players: int) -> int:
    """The picture's height for a table of ``num_players``."""
    return _TITLE_H + _NOBLE_H + 3 * (CARD_H + GAP) + num_players * (_PLAYER_H + GAP) + MARGIN


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType sizes
        return ImageFont.load_default()


def _ink_on(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    return _DARK_INK if sum(rgb) > 380 else _INK


def _gem(draw: Any, x: int, y: int, r: int, kind: int, text: str, font: Any) -> None:
    """A round token of ``kind`` (0-5) centred on ``(x, y)`` with ``text`` on it."""
    rgb = GEM_RGB[kind]
    draw.ellipse((x - r, y - r, x + r, y + r), fill=rgb, outline=(0, 0, 0), width=1)
    draw.text((x, y), text, fill=_ink_on(rgb), font=font, anchor="mm")


def _card(
    draw: Any, x: int, y: int, card: int, fonts: tuple[Any, Any], w: int = CARD_W, h: int = CARD_H
) -> None:
    """A face-up card: points and bonus gem on top, its cost as gems below, its id."""
    small, big = fonts
    level = 0 if card <= 40 else 1 if card <= 70 else 2
    draw.rounded_rectangle((x, y, x + w, y + h), 8, fill=_CARD_FACE[level], outline=(0, 0, 0))
    bonus = CARD_BONUS[card]
    draw.rectangle((x + 1, y + 1, x + w - 1, y + 26), fill=GEM_RGB[bonus])
    points = CARD_POINTS[card]
    if points:
        draw.text((x + 8, y + 13), str(points), fill=_ink_on(GEM_RGB[bonus]), font=big, anchor="lm")
    draw.text(
        (x + w - 6, y + 13), f"#{card}", fill=_ink_on(GEM_RGB[bonus]), font=small, anchor="rm"
    )
    cost = [(c, v) for c, v in enumerate(CARD_COST[card]) if v]
    step = min(22, (h - 34) // max(len(cost), 1))
    for i, (c, v) in enumerate(cost):
        _gem(draw, x + 16, y + h - 14 - i * step, 10, c, str(v), small)


def _card_back(draw: Any, x: int, y: int, text: str, font: Any, w: int = CARD_W) -> None:
    draw.rounded_rectangle((x, y, x + w, y + CARD_H), 8, fill=_CARD_BACK, outline=(0, 0, 0))
    draw.text((x + w // 2, y + CARD_H // 2), text, fill=_INK, font=font, anchor="mm")


def render_rgb(state: State) -> np.ndarray:
    """A ``uint8[H, W, 3]`` picture of the position: the nobles on top; the three market
    rows (level 3 first) with their decks' sizes and every card's points, bonus and cost; the
    supply of tokens; each player's tokens, bonuses, points, nobles and reserved cards."""
    from PIL import Image, ImageDraw

    n = state.num_players
    img = Image.new("RGB", (WIDTH_PX, height_px(n)), _BACKGROUND)
    draw = ImageDraw.Draw(img)
    small, mid, big = _font(12), _font(14), _font(20)
    draw.text((MARGIN, 8), status_line(state), fill=_INK, font=mid)
    y = _TITLE_H
    for i, noble in enumerate(state.nobles):
        x = MARGIN + i * (CARD_W + GAP)
        draw.rounded_rectangle((x, y, x + CARD_W, y + _NOBLE_H - 8), 6, fill=_NOBLE_FACE)
        draw.text((x + 8, y + 6), str(NOBLE_POINTS), fill=_DARK_INK, font=big)
        draw.text((x + CARD_W - 6, y + 8), f"#{noble}", fill=_DARK_INK, font=small, anchor="ra")
        need = [(c, v) for c, v in enumerate(NOBLE_NEEDS[noble]) if v]
        for j, (c, v) in enumerate(need):
            bx = x + 10 + j * 30
            draw.rectangle((bx, y + 44, bx + 22, y + 68), fill=GEM_RGB[c], outline=(0, 0, 0))
            draw.text((bx + 11, y + 56), str(v), fill=_ink_on(GEM_RGB[c]), font=mid, anchor="mm")
    y += _NOBLE_H
    for row, level in enumerate((2, 1, 0)):
        top = y + row * (CARD_H + GAP)
        deck = len(state.decks[level])
        if deck:
            _card_back(draw, MARGIN, top, f"L{level + 1}: {deck}", mid)
        else:
            draw.rounded_rectangle(
                (MARGIN, top, MARGIN + CARD_W, top + CARD_H), 8, outline=_PANEL, width=2
            )
        for slot, card in enumerate(state.market[level]):
            x = MARGIN + (slot + 1) * (CARD_W + GAP) + GAP
            if card:
                _card(draw, x, top, card, (small, big))
    sx = MARGIN + 5 * (CARD_W + GAP) + 2 * GAP
    for kind, count in enumerate(state.supply):
        _gem(draw, sx + 40, y + 24 + kind * 62, 24, kind, str(count), big)
    y += 3 * (CARD_H + GAP)
    for p in range(n):
        top = y + p * (_PLAYER_H + GAP)
        outline = (232, 190, 40) if p == state.to_move else _PANEL
        draw.rectangle((MARGIN, top, WIDTH_PX - MARGIN, top + _PLAYER_H), fill=_PANEL)
        draw.rectangle((MARGIN, top, WIDTH_PX - MARGIN, top + _PLAYER_H), outline=outline, width=3)
        owned = ", ".join(f"#{x}" for x in sorted(state.owned[p]))
        draw.text(
            (MARGIN + 10, top + 8),
            f"P{p}   {state.points[p]} points   {len(state.bought[p])} cards"
            + (f"   nobles {owned}" if owned else ""),
            fill=_INK,
            font=mid,
        )
        for c in range(5):
            bx = MARGIN + 14 + c * 52
            draw.rectangle((bx, top + 36, bx + 40, top + 76), fill=GEM_RGB[c], outline=(0, 0, 0))
            draw.text(
                (bx + 20, top + 56),
                str(state.bonus[p][c]),
                fill=_ink_on(GEM_RGB[c]),
                font=big,
                anchor="mm",
            )
        for kind in range(6):
            _gem(
                draw, MARGIN + 34 + kind * 52, top + 112, 18, kind, str(state.tokens[p][kind]), mid
            )
        for h, (card, blind) in enumerate(zip(state.hands[p], state.blind[p], strict=True)):
            x = MARGIN + 330 + h * (CARD_W + GAP)
            _card(draw, x, top + 10, card, (small, mid), h=_PLAYER_H - 20)
            if blind:
                draw.text((x + CARD_W - 6, top + 36), "*", fill=_DARK_INK, font=big, anchor="rm")
    return np.asarray(img, dtype=np.uint8).copy()


class Renderer(render.Renderer):
    """What an environment's ``render()`` does for its ``render_mode``
    (:class:`tabletop.render.Renderer` with Splendor's text and :func:`render_rgb`)."""

    def __init__(self, render_mode: str | None, fps: int = 2) -> None:
        super().__init__(render_mode, diagram, render_rgb, "Splendor", fps)


class HumanWindow(render.HumanWindow):
    """A pygame window showing :func:`render_rgb` pictures (``pip install
    'splut-env[human]'``)."""

    def __init__(self, title: str = "Splendor", fps: int = 2) -> None:
        super().__init__(title, fps)
