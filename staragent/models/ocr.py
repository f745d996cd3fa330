"""Scene-text readers. Every backend finds text lines in an RGB image (``detect``: quadrilaterals in
the image's pixels) and reads given lines (``recognize``), so that the index can detect on a small
frame and recognise only the lines that are new; ``read`` does both on one image and returns
``OcrLine``s with boxes as fractions of the frame, so results do not depend on the resolution the
frame was read at."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import numpy as np

from ..config import lane_threads
from ..records import OcrLine

Quad = np.ndarray
"""four corners (x, y) of a text line, clockwise from the top left, in pixels (float32, 4×2)"""


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


_LABEL_COLON = re.compile(r"(?<=[A-Za-z]):(?=[^\s/\\])")
_QUARTER_YEAR = re.compile(r"\b(Q[1-4])((?:19|20)\d\d)\b")
_GLUED_SMALL_WORD = re.compile(r"(?<=\s)(of|to|in|on|at|for|and|the|by|with|from)(?=[A-Z][a-z])")


def tidy_text(text: str) -> str:
    """Undo the commonest slips of recognisers on slides: the space after a label's colon
    ("Price:$249" -> "Price: $249"; clock times stay "14:35") and after a small word before a
    capital ("Head ofSales" -> "Head of Sales"; names like "DataForge" stay whole), and between a
    quarter and its year ("Q12020" -> "Q1 2020")."""
    text = _LABEL_COLON.sub(": ", str(text).strip())
    text = _QUARTER_YEAR.sub(r"\1 \2", text)  # "Q12020" -> "Q1 2020"
    return _GLUED_SMALL_WORD.sub(r"\1 ", text)


def detections_to_lines(found, width: int, height: int, min_score: float) -> list[OcrLine]:
    """``(polygon, text, score)`` triples as lines in reading order, dropping empty and unsure ones."""
    lines = [
        OcrLine(text=tidy_text(text), box=polygon_to_box(points, width, height), score=round(float(score), 4))
        for points, text, score in found
        if str(text).strip() and float(score) >= min_score
    ]
    return reading_order(lines)


def upscale_factor(height: int, min_height: int, max_factor: float = 2.0) -> float:
    """How much to enlarge a frame ``height`` pixels high before reading it: recognisers read small
    text but drop the spaces between its words."""
    return 1.0 if not min_height or height >= min_height else min(max_factor, min_height / height)


def crop_line(image: np.ndarray, quad: Quad, scale: float = 1.0) -> np.ndarray:
    """The text line inside ``quad``, straightened into an upright strip, enlarged by ``scale``."""
    import cv2

    quad = np.asarray(quad, np.float32)
    width = max(1, int(round(max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[2] - quad[3])) * scale)))
    height = max(1, int(round(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2])) * scale)))
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(quad, target)
    return cv2.warpPerspective(image, matrix, (width, height), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)


def read_image(reader, image: np.ndarray) -> list[OcrLine]:
    """Every line of text in one picture: detect, then recognise all that was found."""
    quads = reader.detect(image)
    texts = reader.recognize(image, quads) if quads else []
    height, width = image.shape[:2]
    return detections_to_lines([(q, t, s) for q, (t, s) in zip(quads, texts)], width, height, reader.min_score)


def _onnx_session(path: str, threads: int):
    """An onnxruntime CPU session whose idle threads sleep instead of spinning: the index runs
    other lanes beside OCR, and spinning threads burn the cores those lanes need."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.enable_cpu_mem_arena = False  # inputs change size with every text line
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


class RapidOcrReader:
    """PP-OCR models run by onnxruntime (they ship inside rapidocr-onnxruntime's wheel): the DB text
    detector and the CRNN recogniser, used separately. Video text is upright, so the angle
    classifier is not loaded. Lines are recognised one at a time: a batch is padded to its widest
    line, which on the CPU costs more than it saves."""

    name = "rapidocr"

    def __init__(self, min_score: float = 0.5, min_height: int = 720, threads: int = 0):
        from rapidocr_onnxruntime import RapidOCR
        from rapidocr_onnxruntime.ch_ppocr_det import TextDetector
        from rapidocr_onnxruntime.ch_ppocr_rec import TextRecognizer
        from rapidocr_onnxruntime.main import DEFAULT_CFG_PATH
        from rapidocr_onnxruntime.utils import read_yaml, update_model_path

        config = update_model_path(read_yaml(DEFAULT_CFG_PATH))
        threads = lane_threads(threads)
        self._detector = TextDetector(config["Det"])
        self._detector.infer.session = _onnx_session(config["Det"]["model_path"], threads)
        # detect at the size the caller gives (the index downscales frames); rapidocr's default
        # enlarges every image to 736 px on its short side, which makes a strip of a frame huge
        self._detector.limit_type, self._detector.limit_side_len = "max", 1 << 14
        # float32 constants keep the input normalisation in float32 (float64 takes twice as long)
        self._detector.mean, self._detector.std = (np.asarray(config["Det"][k], np.float32) for k in ("mean", "std"))
        self._recognizer = TextRecognizer(config["Rec"])
        self._recognizer.session.session = _onnx_session(config["Rec"]["model_path"], threads)
        self._recognizer.rec_batch_num = 1
        self._sorted = RapidOCR.sorted_boxes
        self.min_score = min_score
        self.min_height = min_height

    def detect(self, image: np.ndarray) -> list[Quad]:
        if min(image.shape[:2]) < 8:
            return []
        quads, _ = self._detector(np.ascontiguousarray(image[..., ::-1]))
        return [] if quads is None or not len(quads) else [np.asarray(q, np.float32) for q in self._sorted(quads)]

    def recognize(self, image: np.ndarray, quads: list[Quad]) -> list[tuple[str, float]]:
        if not quads:
            return []
        scale = upscale_factor(image.shape[0], self.min_height)
        bgr = np.ascontiguousarray(image[..., ::-1])
        found, _ = self._recognizer([crop_line(bgr, q, scale) for q in quads])
        return [(tidy_text(text), float(score)) for text, score, *_ in found]

    def read(self, image: np.ndarray) -> list[OcrLine]:
        return read_image(self, image)


# easyocr picks one recogniser per script; the first entry whose languages intersect wins (the
# same order easyocr checks them in), English alone has its own model, anything else is Latin.
_EASYOCR_SCRIPTS = (
    ({"th"}, "thai_g1"), ({"ch_tra"}, "zh_tra_g1"), ({"ch_sim"}, "zh_sim_g2"), ({"ja"}, "japanese_g2"), ({"ko"}, "korean_g2"),
    ({"ta"}, "tamil_g1"), ({"te"}, "telugu_g2"), ({"kn"}, "kannada_g2"), ({"bn", "as", "mni"}, "bengali_g1"),
    ({"ar", "fa", "ur", "ug"}, "arabic_g1"), ({"hi", "mr", "ne", "bh", "mai", "ang", "bho", "mah", "sck", "new", "gom", "sa", "bgc"}, "devanagari_g1"),
    ({"ru", "rs_cyrillic", "be", "bg", "uk", "mn", "abq", "ady", "kbd", "ava", "dar", "inh", "che", "lbe", "lez", "tab", "tjk"}, "cyrillic_g2"),
)
EASYOCR_RELEASES = "https://github.com/JaidedAI/EasyOCR/releases"


def easyocr_files(languages: list[str]) -> list[str]:
    """The weight files easyocr needs for ``languages``: the CRAFT detector and one recogniser."""
    from easyocr.config import recognition_models

    wanted = set(languages)
    key = "english_g2" if wanted == {"en"} else next((k for langs, k in _EASYOCR_SCRIPTS if wanted & langs), "latin_g2")
    generation = "gen2" if key.endswith("_g2") else "gen1"
    return ["craft_mlt_25k.pth", recognition_models[generation][key]["filename"]]


def easyocr_dir(configured) -> Path:
    from easyocr.config import MODULE_PATH

    return Path(configured).expanduser() if configured else Path(MODULE_PATH) / "model"


STRIP_GAP = 8  # blank pixels between the line strips stacked for one recognition call


class EasyOcrReader:
    """easyocr (CRAFT detection + CRNN recognition, PyTorch), on the GPU when there is one. The
    weights are read from ``folder``; easyocr is never allowed to download them."""

    name = "easyocr"

    def __init__(self, languages: list[str], folder: Path, device: str = "cpu", min_score: float = 0.5, min_height: int = 720, batch_size: int = 16):
        import easyocr

        from ..errors import ModelUnavailable

        missing = [f for f in easyocr_files(languages) if not (folder / f).exists()]
        if missing:
            raise ModelUnavailable(
                f"easyocr weights {', '.join(missing)} for {languages} are not in {folder} (nothing is downloaded at run time); "
                f"fetch the zips from {EASYOCR_RELEASES} and unpack them there, or run "
                f"`python -c \"import easyocr; easyocr.Reader({languages!r})\"` once on a machine with network, "
                "or set STARAGENT_MODELS__EASYOCR_DIR"
            )
        try:
            # fp32 on the CPU: easyocr's int8 path goes through torch.ao.quantization, which torch deprecates
            reader = easyocr.Reader(
                list(languages), gpu=device if device.startswith("cuda") else False, model_storage_directory=str(folder),
                download_enabled=False, verbose=False, quantize=False, detector=False,
            )
            reader.quantize = False  # easyocr 1.7 keeps it as a one-element tuple, which the detector reads as true
            reader.setDetector("craft")
            self._reader = reader
        except (FileNotFoundError, ValueError) as exc:
            raise ModelUnavailable(f"easyocr could not load its models for {languages} from {folder}: {exc}") from None
        self.device = device
        self.min_score = min_score
        self.min_height = min_height
        self.batch_size = batch_size
        self.options: dict = {}
        """extra keyword arguments for easyocr's detector (thresholds, canvas size)"""
        self._lock = threading.Lock()  # easyocr keeps per-call state on the reader

    def memory_bytes(self) -> int:
        from .torch_runtime import module_bytes

        return module_bytes(getattr(self._reader, "detector", None), getattr(self._reader, "recognizer", None))

    def detect(self, image: np.ndarray) -> list[Quad]:
        if min(image.shape[:2]) < 8:
            return []
        with self._lock:
            horizontal, free = self._reader.detect(np.ascontiguousarray(image), **{"canvas_size": max(image.shape[:2]), **self.options})
        quads = [np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32) for x0, x1, y0, y1 in horizontal[0]]
        quads += [np.asarray(points, np.float32) for points in free[0]]
        return sorted(quads, key=lambda q: (float(q[0][1]), float(q[0][0])))

    def recognize(self, image: np.ndarray, quads: list[Quad]) -> list[tuple[str, float]]:
        import cv2

        if not quads:
            return []
        scale = upscale_factor(image.shape[0], self.min_height)
        strips = [cv2.cvtColor(crop_line(image, q, scale), cv2.COLOR_RGB2GRAY) for q in quads]
        # One call for all the strips, stacked on one canvas with a box each, so that on a GPU
        # easyocr recognises them in batches; one call per strip cost about 60 ms on an H100.
        tops = np.cumsum([0] + [strip.shape[0] + STRIP_GAP for strip in strips])
        canvas = np.full((int(tops[-1]), max(strip.shape[1] for strip in strips)), 255, np.uint8)
        boxes = []
        for strip, top in zip(strips, tops):
            canvas[top : top + strip.shape[0], : strip.shape[1]] = strip
            boxes.append([0, strip.shape[1], int(top), int(top) + strip.shape[0]])
        with self._lock:
            found = self._reader.recognize(canvas, horizontal_list=boxes, free_list=[], batch_size=self.batch_size, detail=1)
        by_top = {int(box[0][1]): (tidy_text(text), float(score)) for box, text, score in found}
        return [by_top.get(int(top), ("", 0.0)) for top in tops[:-1]]  # a strip easyocr skipped (no width) reads as nothing

    def read(self, image: np.ndarray) -> list[OcrLine]:
        return read_image(self, image)
