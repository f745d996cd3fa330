"""Expert-model benchmarks: SigLIP keyframe embedding, faster-whisper × real time, the video
refiner on a 60 s range, planner time to first token and tokens/s, vector search, every expert
resident in one ModelPool, and an estimate for indexing one hour of video.

    python perf/run.py models                 # CPU smoke check with tiny random models (part of `make bench`)
    python perf/models.py --real              # on a GPU: the real architectures with random weights
    python perf/models.py --real --only siglip,search --copy-to DIR   # some steps; results also copied to DIR

``--real`` builds the published architectures (SigLIP ViT-SO400M-14 @ 384, Whisper small and
large-v3 converted to CTranslate2 float16, Qwen2.5-VL-7B, Qwen3-4B) with random weights, drawn on
the GPU and saved under ``.cache/bench/models/real`` (about 40 GB, built once), and loads them
through the same backends the agent uses. Speed and memory are those of the real models; what they
say is noise. Random weights never stop talking, so generation lengths are fixed and stated with
each figure. Steps already measured are kept (``.cache/bench/models_real_partial.json``) and skipped
on the next run unless ``--again``; each step's result is written as soon as it is measured.
The tiny run checks the same code on a CPU and says nothing about real speed.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the tiny-model builders
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # staragent itself, when not installed

from common import RESULTS, WORK, Timer, machine, save, summary  # noqa: E402

RATE = 16_000
WHISPER_TOKENS = 128  # per 30 s window: about what real speech produces
SIZES = {
    "tiny": {"siglip": None, "siglip_224": None, "whisper_small": {}, "whisper_large": {}, "vlm": {}, "chat": {}},
    "real": {
        "siglip": "ViT-SO400M-14-SigLIP-384",
        "siglip_224": "ViT-SO400M-14-SigLIP",
        "whisper_small": dict(d_model=768, encoder_layers=12, decoder_layers=12, encoder_attention_heads=12, decoder_attention_heads=12,
                              encoder_ffn_dim=3072, decoder_ffn_dim=3072, num_mel_bins=80),
        "whisper_large": dict(d_model=1280, encoder_layers=32, decoder_layers=32, encoder_attention_heads=20, decoder_attention_heads=20,
                              encoder_ffn_dim=5120, decoder_ffn_dim=5120, num_mel_bins=128),
        "vlm": {
            "text_config": dict(vocab_size=152064, hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28,
                                num_key_value_heads=4, rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [16, 24, 24]}),
            "vision_config": dict(depth=32, hidden_size=1280, intermediate_size=3420, num_heads=16, out_hidden_size=3584, window_size=112,
                                  fullatt_block_indexes=[7, 15, 23, 31], tokens_per_second=2),
        },
        "chat": dict(vocab_size=151936, hidden_size=2560, intermediate_size=9728, num_hidden_layers=36, num_attention_heads=32,
                     num_key_value_heads=8, head_dim=128, max_position_embeddings=40960, rope_parameters={"rope_type": "default", "rope_theta": 1e6}),
    },
}
WORKLOAD = {  # how much work each size does per measurement
    "tiny": {"frames": 64, "batch": 16, "ocr_rounds": 3, "audio_s": 120, "planner_tokens": 16, "search_rows": (2_000,), "vlm_tokens": 32, "whisper_batches": (16,)},
    "real": {"frames": 1024, "batch": 64, "ocr_rounds": 20, "audio_s": 600, "planner_tokens": 128, "search_rows": (100_000, 1_000_000), "vlm_tokens": 128,
             "whisper_batches": (16, 32)},
}
KEYFRAME = (540, 960, 3)  # keyframes as the index stores them (960 wide)
PROMPTS = Path(__file__).parent / "results" / "prompt_size.json"  # prompt sizes counted with Qwen's own tokenizer


def _device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _gpu_peak(reset: bool = False) -> float | None:
    import torch

    if not torch.cuda.is_available():
        return None
    torch.cuda.synchronize()
    if reset:
        torch.cuda.reset_peak_memory_stats()
        return None
    return round(torch.cuda.max_memory_allocated() / 2**30, 2)


def _gpu_used_gb() -> float | None:
    """Memory in use on the GPU by every allocator (CTranslate2 keeps its own, outside torch's)."""
    import torch

    if not torch.cuda.is_available():
        return None
    free, total = torch.cuda.mem_get_info()
    return round((total - free) / 2**30, 2)


def _sync() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def build(size: str, root: Path, names: list[str]) -> dict[str, Path]:
    """The models ``names`` of ``size`` under ``root``, built on first use (on the GPU when there is one)."""
    import tiny_models as tm
    import torch

    spec = SIZES[size]
    real = size == "real"
    dtype = torch.bfloat16 if real else None
    quant = "float16" if real else None
    device = "cuda" if real else None
    plan = {
        "siglip": lambda f: tm.tiny_siglip(f, builtin=spec["siglip"], device=device),
        "siglip_224": lambda f: tm.tiny_siglip(f, builtin=spec["siglip_224"], device=device),
        "easyocr": lambda f: tm.tiny_easyocr(f),
        "whisper_small": lambda f: tm.tiny_whisper_ct2(f, spec["whisper_small"], quant, device),
        "whisper_large": lambda f: tm.tiny_whisper_ct2(f, spec["whisper_large"], quant, device),
        "vlm": lambda f: tm.tiny_qwen25_vl(f, spec["vlm"], dtype, device),
        "chat": lambda f: tm.tiny_qwen3(f, spec["chat"], dtype, device),
    }
    folders = {}
    for name in names:
        folder = root / name
        if not (folder / ".built").exists():
            print(f"building {size} {name} ...", flush=True)
            with Timer() as t:
                plan[name](folder)
            (folder / ".built").touch()
            print(f"  built in {t.seconds:.0f} s", flush=True)
            if real:
                torch.cuda.empty_cache()
        folders[name] = folder
    return folders


# ---------------------------------------------------------------- measurements


def bench_device(device: str) -> dict:
    """The two ceilings the other figures are read against: dense bf16 matrix products and memory copies."""
    import torch

    if device != "cuda":
        return {"device": device}
    a, b = (torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    for _ in range(3):
        a @ b
    _sync()
    with Timer() as t:
        for _ in range(10):
            a @ b
        _sync()
    src = torch.randn(2**28, device="cuda")  # 1 GiB
    dst = torch.empty_like(src)
    dst.copy_(src)
    _sync()
    with Timer() as c:
        for _ in range(10):
            dst.copy_(src)
        _sync()
    props = torch.cuda.get_device_properties(0)
    return {
        "name": props.name, "memory_gb": round(props.total_memory / 2**30, 1), "multiprocessors": props.multi_processor_count,
        "bf16_matmul_tflops": round(10 * 2 * 8192**3 / t.seconds / 1e12, 1), "copy_tb_per_s": round(10 * 2 * src.nbytes / c.seconds / 1e12, 2),
        "torch": torch.__version__, "cuda": torch.version.cuda, "transformers": _version("transformers"), "ctranslate2": _version("ctranslate2"),
        "open_clip": _version("open_clip_torch"),
    }


def _version(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


def _image_tower_gflops(encoder) -> float:
    """Forward FLOPs of the image tower per frame: two per weight per token, plus attention."""
    visual = encoder.model.visual
    params = sum(p.numel() for p in visual.parameters())
    grid = visual.grid_size if hasattr(visual, "grid_size") else (encoder.image_size[0] // 14, encoder.image_size[1] // 14)
    tokens = int(np.prod(grid))
    blocks = getattr(getattr(visual, "transformer", None), "resblocks", [])
    width = getattr(getattr(visual, "transformer", None), "width", 0)
    attention = 4 * tokens * tokens * width * len(blocks)  # scores and weighted sum
    return (2 * params * tokens + attention) / 1e9


def _keyframes(count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.integers(0, 255, KEYFRAME, dtype=np.uint8) for _ in range(count)]


def _frames_per_s(run, frames: list[np.ndarray], batch: int) -> float:
    run(frames[: batch * 2])  # warm-up
    _sync()
    with Timer() as t:
        run(frames)
        _sync()
    return len(frames) / t.seconds


def bench_siglip_options(folders: dict[str, Path], device: str, work: dict, ceilings: dict) -> dict:
    """Two ways past the 384 px tower's speed, each on the default path (queued, resized on the
    GPU): the image tower compiled with torch.compile (the same weights and precision; the time to
    compile is paid once per process), and SigLIP's 224 px sibling (another checkpoint, a third of
    the work). The compiled tower's vectors are compared with the eager ones."""
    import torch

    from staragent.models.siglip import SiglipEncoder

    batch, frames, tflops = work["batch"], _keyframes(work["frames"]), ceilings.get("bf16_matmul_tflops")
    options = {}
    for name in ("siglip", "siglip_224"):
        encoder = SiglipEncoder(folders[name], "bench", device, "auto", batch_size=batch)
        gflops = _image_tower_gflops(encoder)
        row = {"image_size": encoder.image_size, "gflops_per_frame": round(gflops, 1),
               "ceiling_frames_per_s": round(tflops * 1e3 / gflops, 1) if tflops else None,
               "eager_frames_per_s": _frames_per_s(encoder.embed_images, frames, batch)}
        eager = encoder.embed_images(frames[:batch])
        encoder.model.visual = torch.compile(encoder.model.visual)
        with Timer() as t:
            compiled = encoder.embed_images(frames[:batch])
            _sync()
        row["compile_seconds"] = round(t.seconds, 1)
        row["compiled_frames_per_s"] = _frames_per_s(encoder.embed_images, frames, batch)
        row["compiled_vs_eager_cosine_min"] = float((eager * compiled).sum(axis=1).min())
        options[name] = row
        del encoder
        _release(device)
    return options


def _slide(lines: int = 12) -> np.ndarray:
    """A keyframe like a slide: dark lines of text on a light background."""
    import cv2

    frame = np.full(KEYFRAME, 235, np.uint8)
    for row in range(lines):
        cv2.putText(frame, f"Line {row}: quarterly figures 2026", (40, 40 + row * 40), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 20), 2)
    return frame


def bench_ocr(folder: Path, device: str, work: dict) -> dict:
    """The local profile's on-screen text reader (EasyOCR: CRAFT detection, a CRNN recogniser) on
    the GPU, the real architectures with random weights: one detector run on a keyframe and one
    recognised line, each timed end to end (pre- and post-processing on the CPU included). Per hour
    of video: the counts of detector runs and recognised lines that the CPU pipeline benchmark's
    talk needed (the same gating decides them), times these."""
    import easyocr.easyocr
    import tiny_models as tm

    from staragent.models.ocr import EasyOcrReader

    md5 = tm.easyocr_published_md5()
    real = easyocr.easyocr.calculate_md5
    easyocr.easyocr.calculate_md5 = lambda path: md5.get(Path(path).name) or real(path)  # random weights, our own checksums
    try:
        reader = EasyOcrReader(["en"], folder, device)
    finally:
        easyocr.easyocr.calculate_md5 = real
    frame = _slide()
    quads = [np.array([[40, 12 + r * 40], [560, 12 + r * 40], [560, 50 + r * 40], [40, 50 + r * 40]], np.float32) for r in range(12)]
    reader.detect(frame), reader.recognize(frame, quads)  # warm-up
    detect = [_timed(lambda: reader.detect(frame)) for _ in range(work["ocr_rounds"])]
    recognise = [_timed(lambda: reader.recognize(frame, quads)) / len(quads) for _ in range(work["ocr_rounds"])]
    counts = json.loads((RESULTS / "pipeline_cpu.json").read_text())["index"]["info"]["ocr"]
    hour = (counts["detector_runs"] * float(np.median(detect)) + counts["lines_recognised"] * float(np.median(recognise))) / 1e3
    return {"keyframe": list(KEYFRAME), "detect_ms": summary(detect), "recognise_line_ms": summary(recognise),
            "detector_runs_per_hour": counts["detector_runs"], "lines_per_hour": counts["lines_recognised"], "seconds_per_hour": round(hour, 1),
            "weights_mb": reader.memory_bytes() / 2**20}


def bench_siglip(folder: Path, device: str, work: dict, ceilings: dict) -> dict:
    """Keyframes per second three ways: the old path (OpenCV resize, each batch waited for), the
    queued batches with OpenCV, and the default on a GPU (queued, resized on the GPU); and the image
    tower alone on ready tensors, the ceiling the others approach."""
    import torch

    from staragent.models.siglip import SiglipEncoder

    _gpu_peak(reset=True)
    batch = work["batch"]
    encoder = SiglipEncoder(folder, "bench", device, "auto", batch_size=batch)
    frames = _keyframes(work["frames"])

    def rate(run) -> float:
        return _frames_per_s(run, frames, batch)

    def per_batch(images):  # the path before: every batch's result fetched before the next batch is prepared
        for i in range(0, len(images), batch):
            encoder.embed_images(images[i : i + batch])

    variants = {}
    encoder.resize_on_device = False
    variants["cpu_resize_each_batch_waited_for"] = rate(per_batch)
    variants["cpu_resize_queued"] = rate(encoder.embed_images)
    encoder.resize_on_device = device == "cuda"
    variants["default"] = rate(encoder.embed_images)
    for other in (32, 128):  # 32 is the setting's default (models.vision_batch_size)
        encoder.batch_size = other
        variants[f"default_batch_{other}"] = rate(encoder.embed_images)
    encoder.batch_size = batch

    pixels = torch.randn(batch, 3, *encoder.image_size, device=device, dtype=encoder.dtype)
    with torch.inference_mode():
        encoder.model.encode_image(pixels)
        _sync()
        rounds = max(1, len(frames) // batch)
        with Timer() as t:
            for _ in range(rounds):
                encoder.model.encode_image(pixels)
            _sync()
    variants["image_tower_only"] = rounds * batch / t.seconds
    queries = [f"a slide about topic {i}" for i in range(50)]
    latencies = [_timed(lambda q=q: (encoder.embed_texts([q]), _sync())) for q in queries]
    gflops = _image_tower_gflops(encoder)
    tflops = ceilings.get("bf16_matmul_tflops")
    return {
        "frames": len(frames), "batch": batch, "image_size": encoder.image_size, "keyframe": list(KEYFRAME),
        "dtype": str(encoder.dtype).removeprefix("torch."), "frames_per_s": variants["default"], "variants_frames_per_s": variants,
        "gflops_per_frame": round(gflops, 1), "ceiling_frames_per_s": round(tflops * 1e3 / gflops, 1) if tflops else None,
        "query_ms": summary(latencies), "weights_mb": encoder.memory_bytes() / 2**20, "gpu_peak_gb": _gpu_peak(),
    }


def _speechlike(seconds: float) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 4 * t)
    return (0.2 * envelope * (np.sin(2 * np.pi * 180 * t) + 0.5 * np.sin(2 * np.pi * 360 * t))).astype(np.float32)


def bench_whisper(folder: Path, device: str, batched: bool, seconds: float, batch: int = 16) -> dict:
    from staragent.models.whisper import FasterWhisperRecognizer

    asr = FasterWhisperRecognizer(folder, "bench", device, "auto", batched=batched, batch_size=batch, beam_size=5 if not batched else 1)
    asr.options.update(max_new_tokens=WHISPER_TOKENS, temperature=0.0)
    audio = _speechlike(seconds)
    spans = [(0.0, seconds)]
    asr.transcribe(audio[: 30 * RATE], [(0.0, 30.0)])  # warm-up
    with Timer() as t:
        asr.transcribe(audio, spans, language="en")
    return {
        "audio_s": seconds, "seconds": t.seconds, "x_realtime": seconds / t.seconds, "batched": batched, "batch": asr.batch_size,
        "beam": asr.options.get("beam_size", asr.beam_size), "compute_type": asr.compute_type, "tokens_per_window": WHISPER_TOKENS,
        "model_file_mb": asr.memory_bytes() / 2**20, "gpu_used_gb": _gpu_used_gb(),
    }


def bench_whisper_small(folder: Path, device: str, work: dict) -> dict:
    runs = [bench_whisper(folder, device, True, work["audio_s"], batch) for batch in work["whisper_batches"]]
    best = max(runs, key=lambda r: r["x_realtime"])
    return {**best, "by_batch": {r["batch"]: round(r["x_realtime"], 1) for r in runs}}


def bench_whisper_torch(folder: Path, device: str, work: dict) -> dict:
    """The same Whisper small through transformers (float16, SDPA), batches of 30 s windows with a
    fixed number of tokens each: a stand-in where CTranslate2 cannot use this GPU."""
    import torch
    from transformers import WhisperForConditionalGeneration

    source = folder.with_name(folder.name + "-hf")
    dtype = torch.float16 if device == "cuda" else torch.float32
    model = WhisperForConditionalGeneration.from_pretrained(source, dtype=dtype, attn_implementation="sdpa").to(device).eval()
    windows = int(work["audio_s"] // 30)
    batch = max(work["whisper_batches"])
    features = torch.randn(batch, model.config.num_mel_bins, 3000, device=device, dtype=dtype)

    def generate(n: int):
        with torch.inference_mode():
            model.generate(input_features=features[:n], max_new_tokens=WHISPER_TOKENS, min_new_tokens=WHISPER_TOKENS, do_sample=False)
        _sync()

    generate(2)  # warm-up
    with Timer() as t:
        for start in range(0, windows, batch):
            generate(min(batch, windows - start))
    return {"audio_s": windows * 30, "seconds": t.seconds, "x_realtime": windows * 30 / t.seconds, "batch": batch,
            "dtype": str(dtype).removeprefix("torch."), "tokens_per_window": WHISPER_TOKENS, "backend": "transformers (not the project's)"}


def bench_refiner(folder: Path, device: str, work: dict) -> dict:
    from media_factory import Slide, make_video

    from staragent.models.video_refiner import QwenVideoRefiner

    video = WORK / "refiner_60s.mp4"
    if not video.exists():
        WORK.mkdir(parents=True, exist_ok=True)
        make_video(video, [Slide(10, [f"Slide {i}", f"Fact number {i * 7}"], (30 * i, 60, 90), moving_box=i % 2 == 1) for i in range(6)], subtitles=None)
    _gpu_peak(reset=True)
    refiner = QwenVideoRefiner(folder, "bench", device, "auto", fps=1.0, max_frames=64, max_new_tokens=work["vlm_tokens"])
    refiner.refine(video, 0.0, 4.0, "warm-up")
    _sync()
    with Timer() as t:
        result = refiner.refine(video, 0.0, 60.0)
        _sync()
    return {
        "range_s": 60.0, "frames": len(result.frame_times), "max_pixels": refiner.max_pixels, "new_tokens": work["vlm_tokens"],
        "seconds": t.seconds, "weights_gb": refiner.memory_bytes() / 2**30, "gpu_peak_gb": _gpu_peak(),
        "attention": getattr(refiner.model.config, "_attn_implementation", None),
    }


def prompt_sizes() -> dict[str, int]:
    """Today's planner prompt and the compact one a small model gets, in Qwen tokens, as
    ``perf/prompt_size.py`` counted them (Qwen3 and Qwen2.5 share the vocabulary)."""
    data = json.loads(PROMPTS.read_text())
    compact = [row["tokens"] for row in data["small"]]
    return {"full": int(data["full"]["tokens"]), "compact": int(round(sum(compact) / len(compact)))}


def bench_planner(folder: Path, device: str, work: dict) -> dict:
    """Time to first token and decoding speed at today's prompt size and at the compact one, with
    transformers' growing cache (the path before) and with the engine's default (on a GPU: a
    fixed-size cache, decoding steps compiled into CUDA graphs). The prompt is random token ids of
    the measured lengths: the stand-in tokenizer would count differently, and speed depends only on
    the count."""
    import torch

    from staragent.models.chat_engine import STATIC_CACHE_TOKENS, LocalChatEngine

    _gpu_peak(reset=True)
    engine = LocalChatEngine(folder, "bench", device, "auto")
    vocab = engine.model.config.vocab_size
    n = work["planner_tokens"]
    rng = np.random.default_rng(0)
    prompts = {}
    for label, length in prompt_sizes().items():
        ids = torch.tensor(rng.integers(0, vocab, (1, length)), device=device)
        prompts[label] = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    fixed = STATIC_CACHE_TOKENS if device == "cuda" else 0
    result: dict = {"new_tokens": n}
    for cache, tokens in (("growing_cache", 0), ("fixed_cache_graphs", fixed)):
        if cache == "fixed_cache_graphs" and not tokens:
            continue
        engine.static_cache_tokens, engine._static_cache = tokens, None

        def generate(inputs, count: int):
            out = engine.generate_ids(inputs, max_new_tokens=count, min_new_tokens=count)
            _sync()
            return out

        with Timer() as warm:  # the first call compiles where it compiles
            generate(prompts["full"], 8)
            generate(prompts["compact"], 8)
        rows = {"warm_up_s": warm.seconds}
        for label, inputs in prompts.items():
            firsts = []
            for _ in range(3):
                with Timer() as first:  # prefill and the first token
                    generate(inputs, 1)
                firsts.append(first.seconds)
            with Timer() as total:
                out = generate(inputs, n)
            ttft = sorted(firsts)[1]
            rows[label] = {
                "prompt_tokens": int(inputs["input_ids"].shape[1]), "first_token_s": ttft, "new_tokens": int(out.shape[0]),
                "decode_tokens_per_s": (int(out.shape[0]) - 1) / max(total.seconds - ttft, 1e-9), "total_s": total.seconds,
            }
        result[cache] = rows
    best = result.get("fixed_cache_graphs", result["growing_cache"])
    return {
        **result, "full": best["full"], "compact": best["compact"], "weights_gb": engine.memory_bytes() / 2**30, "gpu_peak_gb": _gpu_peak(),
        "attention": getattr(engine.model.config, "_attn_implementation", None),
    }


def bench_search(device: str, work: dict, dim: int = 1152, k: int = 50) -> dict:
    """Exact inner-product search over SigLIP-sized vectors: FAISS where it has a GPU build, else
    torch on the GPU (float16 vectors, float32 accumulation); the project's CPU FAISS index beside it."""
    import torch

    rows_out = []
    for rows in work["search_rows"]:
        gen = torch.Generator(device="cpu").manual_seed(0)
        base = torch.nn.functional.normalize(torch.randn(rows, dim, generator=gen), dim=1)
        probes = torch.nn.functional.normalize(torch.randn(200, dim, generator=gen), dim=1)
        row = {"rows": rows, "dim": dim, "k": k}
        if rows <= 100_000:  # the CPU index the project ships, for comparison
            row["cpu"], search = _cpu_search(base.numpy(), k)
            row["cpu_ms"] = summary([_timed(lambda q=q, search=search: search(q)) for q in probes[:50].numpy()])
        if device == "cuda":
            vectors = base.to("cuda", torch.float16)
            queries = probes.to("cuda", torch.float16)

            def one(q, vectors=vectors):
                torch.topk((vectors @ q).float(), k)
                _sync()

            for q in queries[:5]:
                one(q)
            row["gpu_torch_ms"] = summary([_timed(lambda q=q: one(q)) for q in queries])
            with Timer() as t:
                for _ in range(10):
                    torch.topk((queries[:64] @ vectors.T).float(), k, dim=1)
                _sync()
            row["gpu_torch_batch64_ms"] = t.seconds / 10 * 1000
            row["gpu_memory_gb"] = round(vectors.nbytes / 2**30, 2)
            row["gpu"] = "torch float16 matmul + topk"
            del vectors
        rows_out.append(row)
    return {"by_rows": rows_out}


def _cpu_search(vectors: np.ndarray, k: int):
    """The project's CPU index (FAISS, flat inner product); numpy's matrix product where FAISS is
    not installed (the GPU machine), which does the same arithmetic."""
    try:
        from staragent.index.vectors import VectorStore

        store = VectorStore.build(vectors, list(range(len(vectors))), {"modality": "visual"})
        return "faiss flat (the project's index)", lambda q: store.search(q, k)
    except ImportError:
        return "numpy matmul + argpartition", lambda q: np.argpartition(-(vectors @ q), k)[:k]


def _timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def bench_pool(folders: dict[str, Path], device: str) -> dict:
    """Every GPU expert of the local profile loaded into one ModelPool at once, through the
    settings a user would write: where each lands, what it takes, and the peak."""
    from staragent.config import load_settings
    from staragent.models.pool import ModelPool

    settings = load_settings(
        profile="local",
        models={"vision_model": str(folders["siglip"]), "asr_model": str(folders["whisper_small"]), "asr_refine_model": str(folders["whisper_large"]),
                "vlm_model": str(folders["vlm"])},
        planner={"backend": "transformers", "model": str(folders["chat"])},
    )
    pool = ModelPool(settings)
    _gpu_peak(reset=True)
    before = _gpu_used_gb()
    roles = ["vision", "asr", "asr_refine", "vlm", "chat"]
    with Timer() as t:
        for role in roles:
            pool.get(role)
    placed = [model.describe() for model in pool.loaded()]
    after = _gpu_used_gb()
    result = {
        "roles": placed, "load_seconds": t.seconds, "torch_peak_gb": _gpu_peak(),
        "gpu_used_gb": None if after is None else round(after - (before or 0), 2),
    }
    pool.unload()
    return result


def estimate_hour(results: dict) -> dict | None:
    """Indexing one hour of video on the local profile, from the measured throughputs: GPU stages
    (keyframes, speech, and on-screen text once the ``ocr`` step has measured EasyOCR there) run
    one after another on the one GPU; the CPU lanes (decoding, sound tags, and on-screen text until
    then) run beside them, at their measured 2-core cost as an upper bound."""
    sig, small = results.get("siglip"), results.get("whisper_small")
    if not sig or not small or "x_realtime" not in small:
        return None
    pipeline = json.loads((RESULTS / "pipeline_cpu.json").read_text())
    keyframes_talk = pipeline["index"]["info"]["frames"]["keyframes"] * 60 / pipeline["video"]["minutes"]
    stages = pipeline["index"]["stages"]
    ocr_on_gpu = (results.get("ocr") or {}).get("seconds_per_hour")
    cpu_lanes = pipeline["decode_floor"]["total_seconds"] + stages["audio_tags"] + (stages["ocr"] if ocr_on_gpu is None else 0)
    rows = {}
    for label, keyframes in (("talk (measured keyframes)", keyframes_talk), ("one keyframe per second", 3600)):
        gpu = keyframes / sig["frames_per_s"] + 3600 / small["x_realtime"] + (ocr_on_gpu or 0)
        rows[label] = {"keyframes": round(keyframes), "gpu_seconds": round(gpu, 1), "cpu_lane_seconds": round(cpu_lanes, 1),
                       "estimate_seconds": round(max(gpu, cpu_lanes), 1)}
    return {"hour_of_video": rows, "whisper_x_realtime": small["x_realtime"], "siglip_frames_per_s": sig["frames_per_s"],
            "ocr": "EasyOCR on the GPU, measured" if ocr_on_gpu is not None else "the CPU pipeline's OCR stage, estimated",
            "cpu_lanes_from": "perf/results/pipeline_cpu.json"}


STEPS = ("ceilings", "siglip", "whisper_small", "whisper_large", "search", "planner", "refiner", "ocr", "pool")
NEEDS = {"siglip": ["siglip"], "ocr": ["easyocr"], "siglip_options": ["siglip", "siglip_224"], "whisper_small": ["whisper_small"], "whisper_small_torch": ["whisper_small"], "whisper_large": ["whisper_large"], "refiner": ["vlm"], "planner": ["chat"],
         "pool": ["siglip", "whisper_small", "whisper_large", "vlm", "chat"]}


MEASURE = {  # step -> measure(model folders, device, workload, results so far)
    "ceilings": lambda folders, device, work, results: bench_device(device),
    "siglip": lambda folders, device, work, results: bench_siglip(folders["siglip"], device, work, results.get("ceilings", {})),
    "ocr": lambda folders, device, work, results: bench_ocr(folders["easyocr"], device, work),
    "siglip_options": lambda folders, device, work, results: bench_siglip_options(folders, device, work, results.get("ceilings", {})),
    "whisper_small": lambda folders, device, work, results: bench_whisper_small(folders["whisper_small"], device, work),
    "whisper_large": lambda folders, device, work, results: {
        **bench_whisper(folders["whisper_large"], device, False, 60.0),
        "batched_run": bench_whisper(folders["whisper_large"], device, True, work["audio_s"], 16),
    },
    "whisper_small_torch": lambda folders, device, work, results: bench_whisper_torch(folders["whisper_small"], device, work),
    "search": lambda folders, device, work, results: bench_search(device, work),
    "planner": lambda folders, device, work, results: bench_planner(folders["chat"], device, work),
    "refiner": lambda folders, device, work, results: bench_refiner(folders["vlm"], device, work),
    "pool": lambda folders, device, work, results: bench_pool(folders, device),
}


def run(size: str, only: list[str] | None = None, again: bool = False, copy_to: Path | None = None) -> dict:
    device = _device()
    if size == "real" and device != "cuda":
        raise SystemExit("--real needs a CUDA GPU (the real-size models are measured on the GPU)")
    work = WORKLOAD[size]
    partial = WORK / f"models_{size}_partial.json"
    results: dict = json.loads(partial.read_text()) if partial.exists() else {}
    results.pop("machine", None)
    results.update(size=size, device=device)
    for name in only or STEPS:
        if name in results and not again:
            print(f"{name}: measured before, kept", flush=True)
            continue
        folders = build(size, WORK / "models" / size, NEEDS.get(name, []))
        print(f"{name} ...", flush=True)
        step = MEASURE[name]
        try:
            value = step(folders, device, work, results)
        except Exception as error:  # one step failing (a missing library on the GPU machine) leaves the others measured
            value = {"error": f"{type(error).__name__}: {error}"}
        results[name] = value
        print(f"  {value}", flush=True)
        results["estimate"] = estimate_hour(results)
        WORK.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps({"machine": machine(), **results}, indent=2, default=str))
        if copy_to:
            copy_to.mkdir(parents=True, exist_ok=True)
            shutil.copy(partial, copy_to / partial.name)
        _release(device)
    return results


def _release(device: str) -> None:
    import gc

    gc.collect()
    if device == "cuda":
        import torch

        torch.cuda.empty_cache()


def main(*_args) -> dict:
    """The CPU smoke check (``perf/run.py models``): every default step, nothing kept from before."""
    (WORK / "models_tiny_partial.json").unlink(missing_ok=True)
    data = run("tiny")
    data["command"] = "python perf/run.py models"
    save("models_cpu_smoke", data)
    return data


if __name__ == "__main__":
    if "--real" in sys.argv:
        args = sys.argv[1:]
        only = args[args.index("--only") + 1].split(",") if "--only" in args else None
        copy_to = Path(args[args.index("--copy-to") + 1]) if "--copy-to" in args else None
        data = run("real", only, again="--again" in args, copy_to=copy_to)
        data["command"] = "python perf/models.py --real"
        save("models_gpu", data)
        import report

        report.main()
    else:
        main()
