"""What a picture shows, coarsely, without a GPU: an ImageNet classifier's label and the faces in it.

EfficientNet-Lite0 (the ``efficientnet-lite0`` model pack, run with onnxruntime) sees the whole
frame squeezed to 224 × 224 and its centre square, and the two views' probabilities are averaged.
They are summed up WordNet's hierarchy (``imagenet.ImageNetHierarchy``), and the picture is
labelled with the most specific synset whose summed probability reaches the threshold; below it,
nothing is said. dlib's HOG face detector (built
into dlib, no weight file) counts frontal faces at least about 80 pixels tall (in a copy at
most 960 pixels wide), kept above a detection score.

Both thresholds were set on the dev media (docs/models.md): an animated film, a screencast and a
reading with slides.
"""

from __future__ import annotations

import importlib.util
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .imagenet import hierarchy

INPUT_SIZE = 224
"""EfficientNet-Lite0's training resolution"""
FACE_WIDTH = 960
"""wider pictures are narrowed to this for face detection (the default keyframes are this wide): HOG's
cost follows the pixels, and a face needs to be about 80 of these pixels tall. Found on a thread of
its own, faces at this width cost about what classifying the picture's two views does"""


@dataclass(frozen=True)
class PictureLabel:
    label: str
    """the synset's first name ("domestic cat")"""
    description: str
    """its names and the kinds above it, for search and for the answer"""
    score: float


@dataclass(frozen=True)
class FaceBox:
    box: tuple[float, float, float, float]
    """x0, y0, x1, y1 as fractions of the picture"""
    score: float


def prepare(image: np.ndarray, size: int = INPUT_SIZE) -> np.ndarray:
    """An RGB picture as the classifier's input: the whole frame resized to ``size`` square, in [-1, 1]."""
    from PIL import Image

    resized = Image.fromarray(np.asarray(image, np.uint8)).convert("RGB").resize((size, size), Image.BICUBIC)
    return (np.asarray(resized, np.float32).transpose(2, 0, 1) / 127.5) - 1.0


def centre_square(image: np.ndarray) -> np.ndarray:
    height, width = image.shape[:2]
    side = min(height, width)
    top, left = (height - side) // 2, (width - side) // 2
    return image[top : top + side, left : left + side]


class PictureLabeller:
    """``label`` a batch of RGB pictures; ``faces`` of one picture (empty without dlib)."""

    name = "efficientnet-lite0"

    def __init__(self, model: Path, *, threshold: float, face_threshold: float, threads: int = 1):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.threshold = threshold
        self.face_threshold = face_threshold
        self.hierarchy = hierarchy()
        self._sees_faces = importlib.util.find_spec("dlib") is not None
        self._detectors = threading.local()  # one detector object per thread: two threads driving one crash the process

    @staticmethod
    def views(images: list[np.ndarray]) -> np.ndarray:
        """The classifier's input for ``images`` seen whole; a caller may prepare it on another
        thread and hand it to ``label``."""
        return np.stack([prepare(i) for i in images])

    def probabilities(self, images: list[np.ndarray], whole_views: np.ndarray | None = None) -> np.ndarray:
        """Class probabilities per picture: the mean of the whole frame's and its centre square's
        (the pair was right more often than either alone on the dev media, docs/models.md). The
        square is classified, and prepared, only where it could matter: a mean reaches the threshold
        only where the whole frame's belief in some synset reaches ``2 × threshold - 1`` (the square
        adds at most 1), so elsewhere the whole frame's probabilities give the same answer (no label)."""
        if not images:
            return np.zeros((0, len(self.hierarchy.classes)), np.float32)
        whole = self._session.run(None, {"images": self.views(images) if whole_views is None else whole_views})[0]
        could = np.flatnonzero(self.hierarchy.strongest(whole) >= 2 * self.threshold - 1)
        if len(could):
            centre = self._session.run(None, {"images": np.stack([prepare(centre_square(images[i])) for i in could])})[0]
            whole[could] = (whole[could] + centre) / 2
        return whole

    def label(self, images: list[np.ndarray], whole_views: np.ndarray | None = None) -> list[PictureLabel | None]:
        """Each picture's label, None where the model is not sure enough; ``whole_views``: the
        pictures' ``views``, when prepared already."""
        found = self.hierarchy.best(self.probabilities(images, whole_views), self.threshold) if images else []
        return [None if f is None else PictureLabel(self.hierarchy.name(f[0]), self.hierarchy.describe(f[0]), round(f[1], 3)) for f in found]

    def faces(self, image: np.ndarray) -> list[FaceBox]:
        """Frontal faces, looked for in a grey copy at most ``FACE_WIDTH`` pixels wide (HOG on one
        channel costs about three quarters of HOG on three, and finds the same faces)."""
        if not self._sees_faces:
            return []
        from PIL import Image

        grey = Image.fromarray(np.asarray(image, np.uint8)).convert("L")
        if grey.width > FACE_WIDTH:
            grey = grey.resize((FACE_WIDTH, round(grey.height * FACE_WIDTH / grey.width)), Image.BILINEAR)
        if (detector := getattr(self._detectors, "hog", None)) is None:
            import dlib

            detector = self._detectors.hog = dlib.get_frontal_face_detector()
        boxes, scores, _ = detector.run(np.ascontiguousarray(grey, np.uint8), 0, 0.0)
        width, height = grey.size
        return [
            FaceBox((max(0.0, b.left() / width), max(0.0, b.top() / height), min(1.0, b.right() / width), min(1.0, b.bottom() / height)), round(float(s), 3))
            for b, s in zip(boxes, scores)
            if s >= self.face_threshold
        ]
