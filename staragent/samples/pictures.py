"""The pictures: text slides drawn with Pillow, and frames of the moving-ball animation.

Slide text uses Pillow's bundled FreeType font (Aileron) at a size rapidocr reads back (32 px at
360p, never below 28 px), with gaps of two spaces between words: OCR tends to merge words set with
the font's own narrow space, and splits a line into pieces when the gaps are much wider.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from . import pools
from .script import Slide

TITLE_COLOUR = (255, 214, 102)
LINE_COLOUR = (255, 255, 255)
WORD_GAP = 2.0  # in widths of the font's space
MIN_LINE_PX = 28  # smaller line text is no longer read back reliably
MIN_TITLE_PX = 20


def _rgb(colour: str) -> tuple[int, int, int]:
    colour = colour.lstrip("#")
    return tuple(int(colour[i : i + 2], 16) for i in (0, 2, 4))


class SlidePainter:
    """Draws text slides at one frame size; fonts are loaded once per size."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        scale = min(width / 640, height / 360)
        self.margin = round(0.06 * width)
        self.title_px = max(MIN_TITLE_PX, round(38 * scale))
        self.line_px = max(MIN_LINE_PX, round(32 * scale))
        self._fonts: dict[int, ImageFont.FreeTypeFont] = {}

    def _font(self, size: int) -> ImageFont.FreeTypeFont:
        if size not in self._fonts:
            self._fonts[size] = ImageFont.load_default(size=size)
        return self._fonts[size]

    def _text_width(self, text: str, font: ImageFont.FreeTypeFont) -> float:
        words = text.split(" ")
        return sum(font.getlength(w) for w in words) + WORD_GAP * font.getlength(" ") * (len(words) - 1)

    def _fitting(self, texts: list[str], size: int, floor: int) -> ImageFont.FreeTypeFont:
        """The largest font up to ``size`` at which every text fits between the margins."""
        room = self.width - 2 * self.margin
        while size > floor and any(self._text_width(t, self._font(size)) > room for t in texts):
            size -= 1
        return self._font(size)

    def _draw_words(self, draw: ImageDraw.ImageDraw, x: float, y: float, text: str, font, fill) -> None:
        gap = WORD_GAP * font.getlength(" ")
        for word in text.split(" "):
            draw.text((x, y), word, font=font, fill=fill)
            x += font.getlength(word) + gap

    def paint(self, slide: Slide) -> np.ndarray:
        """The slide as an RGB array: title, an accent rule, then one fact per line."""
        image = Image.new("RGB", (self.width, self.height), _rgb(slide.background))
        draw = ImageDraw.Draw(image)
        title_font = self._fitting([slide.title], self.title_px, MIN_TITLE_PX)
        y = round(0.07 * self.height)
        self._draw_words(draw, self.margin, y, slide.title, title_font, TITLE_COLOUR)
        y += round(title_font.size * 1.35)
        draw.rectangle((self.margin, y, self.margin + self.width // 4, y + max(2, self.height // 90)), fill=TITLE_COLOUR)
        line_font = self._fitting(slide.lines, self.line_px, MIN_LINE_PX)
        y = max(y + round(0.6 * line_font.size), round(0.3 * self.height))
        for line in slide.lines:
            self._draw_words(draw, self.margin, y, line, line_font, LINE_COLOUR)
            y += round(line_font.size * 1.55)
        return np.asarray(image)


class BallAnimation:
    """A coloured ball crossing a plain background, one frame at a time."""

    def __init__(self, slide: Slide, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.background = np.empty((height, width, 3), np.uint8)
        self.background[:] = _rgb(pools.MOTION_BACKGROUND)
        self.radius = max(8, round(0.1 * height))
        size = 2 * self.radius + 1
        yy, xx = np.mgrid[:size, :size] - self.radius
        # Coverage of each pixel by the disc, for a smooth edge.
        self.alpha = np.clip(self.radius + 0.5 - np.hypot(xx, yy), 0.0, 1.0)[..., None]
        self.colour = np.array(pools.BALL_COLOURS[slide.ball], np.float32)
        self.leftward = slide.direction == "right-to-left"

    def frame(self, progress: float) -> np.ndarray:
        """The picture ``progress`` (0..1) of the way through the animation."""
        r = self.radius
        travel = progress if not self.leftward else 1.0 - progress
        cx = round(-r + travel * (self.width + 2 * r))
        cy = round(self.height / 2 - 0.2 * self.height * math.sin(math.pi * progress))  # a gentle arc
        out = self.background.copy()
        x0, y0 = cx - r, cy - r
        xs, ys = max(0, x0), max(0, y0)
        xe, ye = min(self.width, x0 + 2 * r + 1), min(self.height, y0 + 2 * r + 1)
        if xs < xe and ys < ye:
            a = self.alpha[ys - y0 : ye - y0, xs - x0 : xe - x0]
            region = out[ys:ye, xs:xe].astype(np.float32)
            out[ys:ye, xs:xe] = (region * (1 - a) + self.colour * a).astype(np.uint8)
        return out
