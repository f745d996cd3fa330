"""Scene-text readers. Every backend reads an RGB image and returns ``OcrLine``s with boxes as
fractions of the frame, so results do not depend on the resolution the frame was read at."""

from __future__ import annotations

import numpy as np

from ..records import OcrLine


def polygon_to_box(points, width: int, height: int) -> list[float]:
    xs = [float(p[0]) for p in points]
    ys = [float(p[1]) for p in points]
    return [
        round(max(0.0, min(xs) / width), 4),
        round(max(0.0, min(ys) / height), 4),
        round(min(1.0, max(xs) / width), 4),
        round(min(1.0, max(ys) / height), 4),
    ]


def reading_order(lines: list[OcrLine]) -> list[OcrLine]:
    """Top-to-bottom, then left-to-right, with lines on the same row kept together."""
    return sorted(lines, key=lambda line: (round(line.box[1] * 40), line.box[0]))


def upscale_for_ocr(image: np.ndarray, min_height: int, max_factor: float = 2.0) -> np.ndarray:
    """Enlarge small frames: recognisers read small text but drop the spaces between its words."""
    height = image.shape[0]
    if not min_height or height >= min_height:
        return image
    import cv2

    factor = min(max_factor, min_height / height)
    return cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)


class RapidOcrReader:
    """PP-OCR models run by onnxruntime (they ship inside rapidocr-onnxruntime's wheel)."""

    name = "rapidocr"

    def __init__(self, min_score: float = 0.5, min_height: int = 720):
        from rapidocr_onnxruntime import RapidOCR

        self._engine = RapidOCR()
        self.min_score = min_score
        self.min_height = min_height

    def read(self, image: np.ndarray) -> list[OcrLine]:
        image = upscale_for_ocr(image, self.min_height)
        height, width = image.shape[:2]
        bgr = np.ascontiguousarray(image[..., ::-1])
        result, _ = self._engine(bgr)
        lines = [
            OcrLine(text=str(text).strip(), box=polygon_to_box(points, width, height), score=round(float(score), 4))
            for points, text, score in (result or [])
            if str(text).strip() and float(score) >= self.min_score
        ]
        return reading_order(lines)
