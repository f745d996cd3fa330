"""Expert-model benchmarks: SigLIP keyframe embedding, faster-whisper × real time, the video
refiner on a 60 s range, planner tokens/s, FAISS search.

    python benchmarks/run.py models        # CPU smoke check with tiny random models (part of `make bench`)
    python benchmarks/models.py --real     # on a GPU: the real architectures with random weights

``--real`` builds the published architectures (SigLIP ViT-SO400M-14 @ 384, Whisper small and
large-v3 converted to CTranslate2 float16, Qwen2.5-VL-7B, Qwen3-4B) with random weights, saves
them under ``.cache/bench/models/real`` (about 30 GB, built once) and loads them through the same
backends the agent uses. Speed and memory are those of the real models; what they say is noise.
Random weights never stop talking, so generation lengths are fixed and stated with each figure.
The tiny run checks the same code on a CPU and says nothing about real speed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the tiny-model builders
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # staragent itself, when not installed

from common import WORK, Timer, save, summary  # noqa: E402

RATE = 16_000
WHISPER_TOKENS = 128  # per 30 s window: about what real speech produces
SIZES = {
    "tiny": {"siglip": None, "whisper_small": {}, "whisper_large": {}, "vlm": {}, "chat": {}},
    "real": {
        "siglip": "ViT-SO400M-14-SigLIP-384",
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
    "tiny": {"frames": 64, "batch": 16, "audio_s": 120, "planner_tokens": 64, "faiss_rows": 2_000, "vlm_tokens": 32},
    "real": {"frames": 512, "batch": 64, "audio_s": 600, "planner_tokens": 256, "faiss_rows": 20_000, "vlm_tokens": 128},
}


def _device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _gpu_peak(reset: bool = False) -> float | None:
    import torch

    if not torch.cuda.is_available():
        return None
    if reset:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        return None
    torch.cuda.synchronize()
    return round(torch.cuda.max_memory_allocated() / 2**30, 2)


def _sync() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def build(size: str, root: Path) -> dict[str, Path]:
    """The models of ``size`` under ``root``, built on first use."""
    import tiny_models as tm
    import torch

    spec = SIZES[size]
    dtype = torch.bfloat16 if size == "real" else None
    quant = "float16" if size == "real" else None
    plan = {
        "siglip": lambda f: tm.tiny_siglip(f, builtin=spec["siglip"]),
        "whisper_small": lambda f: tm.tiny_whisper_ct2(f, spec["whisper_small"], quant),
        "whisper_large": lambda f: tm.tiny_whisper_ct2(f, spec["whisper_large"], quant),
        "vlm": lambda f: tm.tiny_qwen25_vl(f, spec["vlm"], dtype),
        "chat": lambda f: tm.tiny_qwen3(f, spec["chat"], dtype),
    }
    folders = {}
    for name, make in plan.items():
        folder = root / name
        if not (folder / ".built").exists():
            print(f"building {size} {name} ...", flush=True)
            make(folder)
            (folder / ".built").touch()
        folders[name] = folder
    return folders


# ---------------------------------------------------------------- measurements


def bench_siglip(folder: Path, device: str, work: dict) -> dict:
    from staragent.models.siglip import SiglipEncoder

    _gpu_peak(reset=True)
    encoder = SiglipEncoder(folder, "bench", device, "auto", batch_size=work["batch"])
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 255, (540, 960, 3), dtype=np.uint8) for _ in range(work["frames"])]  # keyframes as stored
    encoder.embed_images(frames[: work["batch"]])  # warm-up
    _sync()
    with Timer() as t:
        encoder.embed_images(frames)
        _sync()
    queries = [f"a slide about topic {i}" for i in range(50)]
    latencies = []
    for q in queries:
        started = time.perf_counter()
        encoder.embed_texts([q])
        _sync()
        latencies.append(time.perf_counter() - started)
    return {
        "frames": len(frames), "batch": work["batch"], "frames_per_s": len(frames) / t.seconds, "image_size": encoder.image_size,
        "dtype": str(encoder.dtype).removeprefix("torch."), "query_ms": summary([x * 1000 for x in latencies]),
        "weights_mb": encoder.memory_bytes() / 2**20, "gpu_peak_gb": _gpu_peak(),
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
        "model_file_mb": asr.memory_bytes() / 2**20,
    }


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
    }


def bench_planner(folder: Path, device: str, work: dict) -> dict:
    import torch

    from staragent.models.chat_engine import LocalChatEngine
    from staragent.prompts import render
    from staragent.tools import ToolRegistry

    _gpu_peak(reset=True)
    engine = LocalChatEngine(folder, "bench", device, "auto")
    registry = ToolRegistry.discover(plugins=False)
    tools = [registry.get(name).schema() for name in registry.names()]
    system = render("agent_system", video_name="talk.mp4", duration="58:12", capabilities="Speech comes from faster-whisper.", max_steps=6, over_budget=False, tool_names=registry.names())
    messages = [{"role": "system", "content": system}, {"role": "user", "content": "What price does the slide show for the grinder?"}]
    inputs = engine.prompt_ids(messages, tools, thinking=False).to(device)
    n = work["planner_tokens"]

    def generate(tokens: int):
        with torch.inference_mode():
            out = engine.model.generate(**inputs, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False)
        _sync()
        return out

    generate(4)  # warm-up
    with Timer() as first:  # prefill and the first token
        generate(1)
    with Timer() as total:
        out = generate(n)
    generated = out.shape[1] - inputs["input_ids"].shape[1]
    return {
        "prompt_tokens": int(inputs["input_ids"].shape[1]), "prefill_s": first.seconds, "new_tokens": int(generated),
        "decode_tokens_per_s": (generated - 1) / max(total.seconds - first.seconds, 1e-9), "total_s": total.seconds,
        "weights_gb": engine.memory_bytes() / 2**30, "gpu_peak_gb": _gpu_peak(),
    }


def bench_faiss(rows: int, dim: int = 1152, queries: int = 200) -> dict:
    from staragent.index.vectors import VectorStore, faiss_gpus, to_device

    rng = np.random.default_rng(0)
    store = VectorStore.build(rng.standard_normal((rows, dim)).astype(np.float32), list(range(rows)), {"modality": "visual"})
    gpu = faiss_gpus() > 0
    store = VectorStore(to_device(store._index, "auto"), store.meta)
    probes = rng.standard_normal((queries, dim)).astype(np.float32)
    latencies = []
    for q in probes:
        started = time.perf_counter()
        store.search(q, 50)
        latencies.append(time.perf_counter() - started)
    return {"rows": rows, "dim": dim, "k": 50, "gpu": gpu, "query_ms": summary([x * 1000 for x in latencies])}


def run(size: str) -> dict:
    device = _device()
    if size == "real" and device != "cuda":
        raise SystemExit("--real needs a CUDA GPU (the real-size models are measured on the GPU)")
    work = WORKLOAD[size]
    folders = build(size, WORK / "models" / size)
    results: dict = {"size": size, "device": device}
    steps = [
        ("siglip", lambda: bench_siglip(folders["siglip"], device, work)),
        ("whisper_small_batched", lambda: bench_whisper(folders["whisper_small"], device, True, work["audio_s"])),
        ("whisper_large_refine_60s", lambda: bench_whisper(folders["whisper_large"], device, False, 60.0)),
        ("refiner_60s", lambda: bench_refiner(folders["vlm"], device, work)),
        ("planner", lambda: bench_planner(folders["chat"], device, work)),
        ("faiss", lambda: bench_faiss(work["faiss_rows"])),
    ]
    for name, step in steps:
        print(f"{name} ...", flush=True)
        results[name] = step()
        print(f"  {results[name]}", flush=True)
        import gc

        gc.collect()
        if device == "cuda":
            import torch

            torch.cuda.empty_cache()
    return results


def main(*_args) -> dict:
    """The CPU smoke check (``benchmarks/run.py models``)."""
    data = run("tiny")
    data["command"] = "python benchmarks/run.py models"
    save("models_cpu_smoke", data)
    return data


if __name__ == "__main__":
    if "--real" in sys.argv:
        data = run("real")
        data["command"] = "python benchmarks/models.py --real"
        save("models_gpu", data)
        import report

        report.main()
    else:
        main()
