"""Faces with OpenCV: YuNet finds them, SFace turns each into a feature vector, and the vectors are
compared with those of a user-supplied gallery of named faces. A face that matches nobody (or any
face when no recognizer or gallery is configured) is "unknown": names are never guessed.

Gallery layout: ``<gallery>/<name>.jpg`` or ``<gallery>/<name>/*.jpg`` (underscores read as
spaces), and optionally ``<gallery>/roles.json`` mapping names to roles (``{"Ana Ruiz": "host"}``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ModelUnavailable
from ..media import read_image
from .interfaces import FaceMatch

log = logging.getLogger("staragent.models")
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
UNKNOWN = "unknown"


@dataclass
class GalleryFace:
    name: str
    role: str | None
    feature: np.ndarray
    source: Path


def _required_file(path: Path | None, what: str, setting: str) -> Path:
    if path is None:
        raise ModelUnavailable(f"no {what} is configured; set {setting} to its ONNX file")
    path = Path(path).expanduser()
    if not path.is_file():
        raise ModelUnavailable(f"the {what} file {path} does not exist (setting {setting})")
    return path


def gallery_images(folder: Path) -> list[tuple[str, Path]]:
    """(name, image) pairs from a gallery folder."""
    found = []
    for entry in sorted(folder.iterdir()):
        if entry.is_dir():
            found += [(entry.name, p) for p in sorted(entry.iterdir()) if p.suffix.lower() in IMAGE_SUFFIXES]
        elif entry.suffix.lower() in IMAGE_SUFFIXES:
            found.append((entry.stem, entry))
    return [(name.replace("_", " ").strip(), path) for name, path in found]


class OpenCvFaces:
    def __init__(
        self,
        detector: Path | None,
        recognizer: Path | None = None,
        gallery: Path | None = None,
        score_threshold: float = 0.6,
        match_threshold: float = 0.363,
    ):
        import cv2

        self._cv2 = cv2
        detector = _required_file(detector, "face detector (YuNet)", "toolset.faces.detector")
        self._detector = self._create(cv2.FaceDetectorYN.create, detector, "face detector", (320, 320), score_threshold, 0.3, 100)
        self._recognizer = None
        if recognizer is not None:
            recognizer = _required_file(recognizer, "face recognizer (SFace)", "toolset.faces.recognizer")
            self._recognizer = self._create(cv2.FaceRecognizerSF.create, recognizer, "face recognizer")
        self.match_threshold = match_threshold
        self.gallery = self._load_gallery(Path(gallery).expanduser()) if gallery and self._recognizer is not None else []
        self.name = "opencv-yunet" + ("+sface" if self._recognizer is not None else "")

    def _create(self, factory, path: Path, what: str, *options):
        cv2 = self._cv2
        level = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)  # OpenCV 5 warns about DNN targets it ignores
        try:
            return factory(str(path), "", *options)
        except cv2.error as exc:
            raise ModelUnavailable(f"OpenCV cannot load the {what} {path}: {exc}") from None
        finally:
            cv2.utils.logging.setLogLevel(level)

    def _load_gallery(self, folder: Path) -> list[GalleryFace]:
        if not folder.is_dir():
            raise ModelUnavailable(f"the face gallery {folder} is not a folder (setting toolset.faces.gallery)")
        roles_file = folder / "roles.json"
        roles = json.loads(roles_file.read_text(encoding="utf-8")) if roles_file.exists() else {}
        faces = []
        for name, path in gallery_images(folder):
            bgr = np.ascontiguousarray(read_image(path)[..., ::-1])
            rows = self._detect(bgr)
            if len(rows) == 0:
                log.warning("no face found in gallery image %s; it is ignored", path)
                continue
            largest = max(rows, key=lambda r: r[2] * r[3])
            faces.append(GalleryFace(name, roles.get(name), self._feature(bgr, largest), path))
        if not faces:
            log.warning("the face gallery %s holds no usable face; every face will be 'unknown'", folder)
        return faces

    def _detect(self, bgr: np.ndarray) -> np.ndarray:
        height, width = bgr.shape[:2]
        self._detector.setInputSize((width, height))
        _, rows = self._detector.detect(bgr)
        return np.zeros((0, 15), np.float32) if rows is None else rows

    def _feature(self, bgr: np.ndarray, row: np.ndarray) -> np.ndarray:
        aligned = self._recognizer.alignCrop(bgr, row)
        return self._recognizer.feature(aligned).copy()

    def _best_match(self, feature: np.ndarray) -> tuple[GalleryFace | None, float]:
        best, best_score = None, -1.0
        for known in self.gallery:
            score = float(self._recognizer.match(feature, known.feature, self._cv2.FaceRecognizerSF_FR_COSINE))
            if score > best_score:
                best, best_score = known, score
        return best, best_score

    def identify(self, image: np.ndarray) -> list[FaceMatch]:
        bgr = np.ascontiguousarray(image[..., ::-1])
        height, width = bgr.shape[:2]
        matches = []
        for row in self._detect(bgr):
            x, y, w, h = (float(v) for v in row[:4])
            box = [round(max(0.0, x / width), 4), round(max(0.0, y / height), 4),
                   round(min(1.0, (x + w) / width), 4), round(min(1.0, (y + h) / height), 4)]
            detection_score = round(float(row[14]), 4)
            name, role, confidence = UNKNOWN, None, detection_score
            if self.gallery:
                known, similarity = self._best_match(self._feature(bgr, row))
                if known is not None and similarity >= self.match_threshold:
                    name, role, confidence = known.name, known.role, round(similarity, 4)
            matches.append(FaceMatch(name=name, role=role, confidence=confidence, detection_score=detection_score, box=box))
        return matches
