"""Loading Hugging Face checkpoints the way every backend here does: from local files only (the
Hugging Face cache or a folder), never downloading, with an error that says what to do."""

from __future__ import annotations

from typing import Any

from ..errors import ModelUnavailable


def load_pretrained(loader: Any, model_id: str, what: str, **kwargs) -> Any:
    """``loader.from_pretrained(model_id, local_files_only=True)``, or ``ModelUnavailable``."""
    try:
        return loader.from_pretrained(model_id, local_files_only=True, **kwargs)
    except (OSError, ValueError, KeyError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelUnavailable(
            f"cannot load the {what} {model_id!r} from local files ({reason}); fetch it once with "
            f"`huggingface-cli download {model_id}` or point the setting at a local folder"
        ) from None


def torch_dtype(device: str):
    """Half precision on a GPU, full precision on the CPU (where half is slow or unsupported)."""
    import torch

    return torch.float16 if device.startswith("cuda") else torch.float32


def to_device(batch: dict, device: str, dtype) -> dict:
    """Move a processor's output to ``device``; floating tensors also take the model's dtype."""
    out = {}
    for key, value in batch.items():
        if hasattr(value, "to"):
            value = value.to(device, dtype) if value.is_floating_point() else value.to(device)
        out[key] = value
    return out
