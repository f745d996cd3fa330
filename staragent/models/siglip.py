"""SigLIP through open_clip: the image tower embeds keyframes while indexing, the text tower embeds
search queries, both L2-normalised into one space (so inner product is cosine similarity).

Images are resized with the same geometry as open_clip's own transform, and never go through PIL.
On the CPU, OpenCV resizes them (area interpolation when shrinking). On a GPU, the full frames are
copied over through pinned memory and resized there: the CPU only copies bytes,
so it keeps ahead of the model. Batches are queued without waiting for each other's results, so the
next batch is prepared while the GPU runs the last one.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from .torch_runtime import module_bytes, torch_dtype

_PRECISION = {"float32": "fp32", "float16": "pure_fp16", "bfloat16": "pure_bf16"}


def _geometry(h: int, w: int, size: tuple[int, int], mode: str) -> tuple[int, int, int, int]:
    """How an ``h`` x ``w`` picture becomes ``size``: ``(new_w, new_h, top, left)``. The picture is
    scaled to ``new_w`` x ``new_h``; ``squash`` stretches it to ``size``, ``shortest`` scales the short
    side and crops ``size`` at (top, left), ``longest`` scales the long side and is pasted at (top,
    left) on a filled canvas of ``size``."""
    height, width = size
    if mode == "squash":
        return width, height, 0, 0
    factor = (min if mode == "longest" else max)(width / w, height / h)
    new_w, new_h = max(1, round(w * factor)), max(1, round(h * factor))
    if mode == "longest":
        return new_w, new_h, (height - new_h) // 2, (width - new_w) // 2
    return new_w, new_h, (new_h - height) // 2, (new_w - width) // 2


def resize_for_model(image: np.ndarray, size: tuple[int, int], mode: str, fill: int = 0) -> np.ndarray:
    """``image`` (H, W, 3) uint8 as the model expects it (see ``_geometry``), resized with OpenCV:
    area interpolation when shrinking, bicubic when enlarging."""
    import cv2

    height, width = size
    h, w = image.shape[:2]
    new_w, new_h, top, left = _geometry(h, w, size, mode)
    shrinking = new_w * new_h < w * h
    scaled = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_CUBIC)
    if mode == "longest":
        out = np.full((height, width, 3), fill, np.uint8)
        out[top : top + new_h, left : left + new_w] = scaled
        return out
    return scaled[top : top + height, left : left + width]


def resize_tensor_for_model(frames, size: tuple[int, int], mode: str, fill: int = 0):
    """``frames`` (N, 3, H, W) float on any device, resized as ``resize_for_model`` does: averaged over
    each output pixel's footprint when shrinking, bicubic when enlarging, rounded and clipped to 0-255
    as 8-bit pixels would be. On natural pictures it is within a few levels of OpenCV."""
    import torch
    import torch.nn.functional as F

    height, width = size
    h, w = frames.shape[-2:]
    new_w, new_h, top, left = _geometry(h, w, size, mode)
    if new_w * new_h < w * h:  # averages over each output pixel's footprint, as OpenCV's area interpolation does
        scaled = F.interpolate(frames, size=(new_h, new_w), mode="area")
    else:
        scaled = F.interpolate(frames, size=(new_h, new_w), mode="bicubic", align_corners=False)
    scaled = scaled.round_().clamp_(0, 255)
    if mode == "longest":
        out = torch.full((frames.shape[0], 3, height, width), float(fill), device=frames.device, dtype=frames.dtype)
        out[..., top : top + new_h, left : left + new_w] = scaled
        return out
    return scaled[..., top : top + height, left : left + width]


def _same_shape_runs(images: list[np.ndarray]) -> list[tuple[tuple[int, ...], list[np.ndarray]]]:
    """Consecutive images of one shape, grouped, in order."""
    runs: list[tuple[tuple[int, ...], list[np.ndarray]]] = []
    for image in images:
        if runs and runs[-1][0] == image.shape:
            runs[-1][1].append(image)
        else:
            runs.append((image.shape, [image]))
    return runs


class SiglipEncoder:
    """An ``ImageTextEncoder`` (see ``interfaces``). ``resize_on_device`` (default: on a GPU) resizes
    keyframes where the model runs instead of with OpenCV on the CPU."""

    name = "siglip"

    def __init__(
        self, model_dir: Path, label: str, device: str = "cpu", dtype: str = "auto", batch_size: int = 32, resize_on_device: bool | None = None
    ):
        import open_clip
        import torch

        self.device = device
        self.resize_on_device = device.startswith("cuda") if resize_on_device is None else resize_on_device
        self.dtype = torch_dtype(dtype, device)
        self.batch_size = batch_size
        self.model_id = label
        source = f"local-dir:{Path(model_dir).resolve()}"
        precision = _PRECISION[str(self.dtype).removeprefix("torch.")]
        self.model = open_clip.create_model(source, device=device, precision=precision, load_weights=True).eval()
        self.tokenizer = open_clip.get_tokenizer(source)
        cfg = open_clip.get_model_preprocess_cfg(self.model)
        size = cfg.get("size", 224)
        self.image_size = (size, size) if isinstance(size, int) else tuple(size)
        self.resize_mode = cfg.get("resize_mode", "shortest")
        self.fill = int(cfg.get("fill_color", 0))
        self._mean = torch.tensor(cfg.get("mean", (0.5, 0.5, 0.5)), device=device, dtype=self.dtype).view(1, 3, 1, 1) * 255
        self._std = torch.tensor(cfg.get("std", (0.5, 0.5, 0.5)), device=device, dtype=self.dtype).view(1, 3, 1, 1) * 255
        with torch.inference_mode():
            self.dim = int(self.model.encode_text(self.tokenizer(["a"]).to(device)).shape[-1])
        self._lock = threading.Lock()

    def memory_bytes(self) -> int:
        return module_bytes(self.model)

    def _pixels(self, images: list[np.ndarray]):
        import torch

        images = [np.asarray(im, np.uint8)[..., :3] for im in images]
        if not self.resize_on_device:
            batch = np.stack([resize_for_model(im, self.image_size, self.resize_mode, self.fill) for im in images])
            tensor = torch.from_numpy(batch).to(self.device, non_blocking=True).permute(0, 3, 1, 2).to(self.dtype)
            return (tensor - self._mean) / self._std
        resized = []
        for shape, group in _same_shape_runs(images):  # a video's keyframes share one size: usually one run
            staged = torch.empty((len(group), *shape), dtype=torch.uint8, pin_memory=self.device.startswith("cuda"))
            for row, image in zip(staged, group):
                row.copy_(torch.from_numpy(image))  # one copy into pinned memory, nothing else on the CPU
            frames = staged.to(self.device, non_blocking=True).permute(0, 3, 1, 2).float()
            resized.append(resize_tensor_for_model(frames, self.image_size, self.resize_mode, self.fill))
        tensor = torch.cat(resized).to(self.dtype)
        return (tensor - self._mean) / self._std

    def embed_images(self, images: list[np.ndarray]) -> np.ndarray:
        """``(n, dim)`` float32, L2-normalised; RGB uint8 images of any size, ``batch_size`` per pass."""
        import torch

        if not images:
            return np.zeros((0, self.dim), np.float32)
        out = []
        with self._lock, torch.inference_mode():
            for i in range(0, len(images), self.batch_size):  # queued: no batch waits for the one before
                out.append(self.model.encode_image(self._pixels(images[i : i + self.batch_size]), normalize=True).float())
            return torch.cat(out).cpu().numpy()

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """``(n, dim)`` float32, L2-normalised, comparable with ``embed_images``."""
        import torch

        if not texts:
            return np.zeros((0, self.dim), np.float32)
        out = []
        with self._lock, torch.inference_mode():
            for i in range(0, len(texts), self.batch_size):
                tokens = self.tokenizer(list(texts[i : i + self.batch_size])).to(self.device)
                out.append(self.model.encode_text(tokens, normalize=True).float().cpu().numpy())
        return np.concatenate(out)
