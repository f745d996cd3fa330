"""Every expert backend through its real loading code (ModelPool -> loader -> library), with the
tiny random-weight models of tiny_models.py: shapes, devices, batching, reuse."""

import warnings
from pathlib import Path

import numpy as np
import pytest
from tiny_models import AUDIO_LABELS, patch_easyocr_checksums, tone

from staragent.config import load_settings
from staragent.errors import ModelUnavailable
from staragent.models.pool import ModelPool

RATE = 16_000


@pytest.fixture(scope="module")
def local_settings(tiny, tmp_path_factory):
    return load_settings(cache_dir=tmp_path_factory.mktemp("cache"), progress=False, **tiny.settings_overrides())


@pytest.fixture(scope="module")
def pool(local_settings):
    return ModelPool(local_settings)


def voice(seconds: float) -> np.ndarray:
    """Harmonics with a syllable-rate envelope: not speech, but shaped like it."""
    t = np.arange(int(seconds * RATE)) / RATE
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 4 * t)
    return (0.2 * envelope * sum(np.sin(2 * np.pi * f * t) / k for k, f in enumerate((180, 360, 540), 1))).astype(np.float32)


# ---------------------------------------------------------------- speech


def test_faster_whisper_transcribes_speech_spans_in_batches(pool, tiny):
    from staragent.models.whisper import FasterWhisperRecognizer

    asr = pool.get("asr")
    assert isinstance(asr, FasterWhisperRecognizer) and asr is pool.get("asr")
    assert asr.name == f"faster-whisper:{tiny.whisper}" and asr.batch_size == 4 and asr.multilingual
    sizes = []
    forward = asr._pipeline.forward
    asr._pipeline.forward = lambda features, *a, **k: sizes.append(len(features)) or forward(features, *a, **k)
    try:
        long_spans = [(0.5 + 24 * i, 18.5 + 24 * i) for i in range(6)]  # two never share a 30 s window
        long_lines = asr.transcribe(voice(145.0), long_spans)
        short_spans = [(0.5 + 6 * i, 2.5 + 6 * i) for i in range(12)]  # gaps too long to join as they are
        short_lines = asr.transcribe(voice(73.0), short_spans)
    finally:
        asr._pipeline.forward = forward
    assert sizes == [4, 2, 2]  # six long spans, four windows per forward pass; twelve short ones packed into two windows
    for lines, spans in ((long_lines, long_spans), (short_lines, short_spans)):
        assert lines, "the tiny model always says something"
        for line in lines:  # times are the video's, whatever window the words were heard in
            assert line.source == asr.name and line.language and line.start <= line.end
            for w in line.words or []:
                assert any(a - 0.05 <= w.start <= w.end <= b + 0.05 for a, b in spans), (w, spans)
    assert asr.transcribe(voice(3.0), []) == []


def test_the_index_decodes_speech_with_a_narrower_beam_on_the_cpu_unless_told(tiny, tmp_path):
    """Beam 3 on the CPU (faster, no worse on the dev readings), 5 on a GPU; a beam set by the user
    is used anywhere. The recogniser is built with the beam its device gets."""
    from staragent.models.specs import asr_beam_size

    def with_beam(beam: int):
        overrides = tiny.settings_overrides()
        return load_settings(cache_dir=tmp_path, progress=False, **{**overrides, "models": {**overrides["models"], "asr_beam_size": beam}})

    settings = with_beam(0)
    assert (asr_beam_size(settings, "cpu"), asr_beam_size(settings, "cuda:0")) == (3, 5)
    assert ModelPool(settings).get("asr").beam_size == 3
    told = with_beam(5)
    assert (asr_beam_size(told, "cpu"), ModelPool(told).get("asr").beam_size) == (5, 5)


def test_speech_windows_pack_every_span_once_into_as_few_windows_as_fit():
    from staragent.models.asr import chunk_spans, speech_windows

    rng = np.random.default_rng(3)
    spans, t = [], 0.0
    for _ in range(200):  # sentences of 0.5-40 s, pauses of 0.1-9 s
        t += float(rng.uniform(0.1, 9.0))
        length = float(rng.uniform(0.5, 40.0))
        spans.append((t, t + length))
        t += length
    windows = speech_windows(spans, max_len=28.0, max_gap=2.0, separator=0.5)
    pieces = [p for w in windows for p in w]
    assert pieces == sorted(pieces) and all(b - a > 0 for a, b in pieces)
    for w in windows:  # what one window hears, the silences between its pieces included, fits in it
        assert sum(b - a for a, b in w) + 0.5 * (len(w) - 1) <= 28.0 + 1e-9
    for a, b in spans:  # every second of speech is in exactly one piece
        assert sum(max(0.0, min(b, d) - max(a, c)) for c, d in pieces) == pytest.approx(b - a)
    assert len(windows) < len(chunk_spans(spans, max_len=28.0, max_gap=2.0))


def test_speech_a_packed_window_ended_early_on_is_heard_again_alone(pool, monkeypatch):
    from staragent.records import SpeechLine, Word

    asr = pool.get("asr")
    calls = []

    def decode(audio, windows, options):  # stands in for a model that stops after a window's first piece
        calls.append(windows)
        lines = []
        for window in windows:
            a, b = window[0]
            lines.append(SpeechLine(start=a, end=b, text=f"heard {a:g}", source=asr.name, words=[Word(start=a, end=b, text=f"heard {a:g}")]))
        return lines

    monkeypatch.setattr(asr, "_decode", decode)
    spans = [(1.0, 9.0), (12.0, 20.0), (30.0, 31.0)]  # one window: the second piece is never heard in it
    lines = asr.transcribe(voice(40.0), spans)
    assert calls[0] == [spans] and calls[1] == [[(12.0, 20.0)]]  # the short third piece is not worth a second pass
    assert [line.text for line in lines] == ["heard 1", "heard 12"]


def test_whisper_detects_the_language_and_refines_or_translates_a_range(pool):
    refiner = pool.get("asr_refine")
    assert refiner.batch_size == 1 and refiner is not pool.get("asr")  # large-v3 role: unbatched, its own model
    from faster_whisper.tokenizer import _LANGUAGE_CODES

    refiner.options.update(max_new_tokens=12, temperature=0.0)  # random weights babble; keep it short
    detected = refiner.transcribe(voice(8.0), [(1.0, 7.0)])
    assert detected and {line.language for line in detected} <= set(_LANGUAGE_CODES)
    lines = refiner.transcribe(voice(8.0), [(1.0, 7.0)], language="fr", task="translate")
    assert lines, "the tiny model always says something"
    assert all(line.language == "fr" and 0.9 <= line.start <= line.end <= 7.2 for line in lines)
    with pytest.raises(ValueError, match="task"):
        refiner.transcribe(voice(2.0), task="summarise")


# ---------------------------------------------------------------- pictures


def test_easyocr_reads_with_boxes_as_fractions(pool, tiny, monkeypatch):
    from staragent.models.ocr import EasyOcrReader

    patch_easyocr_checksums(monkeypatch, tiny.easyocr_md5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reader = pool.get("ocr")
    assert not [w for w in caught if "quantization is deprecated" in str(w.message)]  # fp32 on the CPU, not torch's old int8 path
    assert isinstance(reader, EasyOcrReader) and reader.device == "cpu" and reader.memory_bytes() > 10 * 2**20
    reader.min_score = 0.0
    reader.options.update(text_threshold=0.0, low_text=0.0, link_threshold=0.0)  # random detector: accept anything
    image = np.full((180, 320, 3), 255, np.uint8)
    image[60:120, 40:280] = 0
    lines = reader.read(image)
    assert lines
    for line in lines:
        assert 0.0 <= line.box[0] <= line.box[2] <= 1.0 and 0.0 <= line.box[1] <= line.box[3] <= 1.0 and 0.0 <= line.score <= 1.0


def test_easyocr_reads_all_the_lines_of_a_frame_in_one_call_each_with_its_own_text(pool, tiny, monkeypatch):
    patch_easyocr_checksums(monkeypatch, tiny.easyocr_md5)
    reader = pool.get("ocr")
    calls = []

    def shade_of_each_box(canvas, horizontal_list, free_list, batch_size, detail):  # stands in for the random recogniser
        calls.append(len(horizontal_list))
        found = [([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], str(round(float(canvas[y0:y1, x0:x1].mean()))), 0.9)
                 for x0, x1, y0, y1 in horizontal_list]
        return found[::-1]  # in no particular order

    monkeypatch.setattr(reader._reader, "recognize", shade_of_each_box)
    image = np.full((360, 640, 3), 255, np.uint8)
    quads = []
    for (x, y, w, h), shade in zip(((10, 10, 300, 30), (50, 80, 120, 18), (5, 200, 600, 60), (400, 300, 90, 40)), (40, 90, 150, 210)):
        image[y : y + h, x : x + w] = shade
        quads.append(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32))
    together = reader.recognize(image, quads)
    assert calls == [4]  # one call, so a GPU recognises the lines in batches
    assert [abs(int(text) - shade) <= 3 for (text, _), shade in zip(together, (40, 90, 150, 210))] == [True] * 4
    assert together == [reader.recognize(image, [quad])[0] for quad in quads]


def test_easyocr_without_weights_says_where_to_get_them(tmp_path):
    settings = load_settings(cache_dir=tmp_path, profile="local", models={"easyocr_dir": str(tmp_path / "empty")})
    with pytest.raises(ModelUnavailable, match=r"craft_mlt_25k.pth, english_g2.pth .*empty.*github.com/JaidedAI/EasyOCR/releases"):
        ModelPool(settings).get("ocr")


def test_siglip_embeds_keyframes_in_batches_and_queries_in_the_same_space(pool):
    encoder = pool.get("vision")
    assert encoder.dim == 32 and encoder.batch_size == 4 and str(encoder.dtype) == "torch.float32"
    calls = []
    encode = encoder.model.encode_image
    encoder.model.encode_image = lambda pixels, **k: calls.append(tuple(pixels.shape)) or encode(pixels, **k)
    rng = np.random.default_rng(0)
    images = [rng.integers(0, 255, (90 + 7 * i, 160, 3), dtype=np.uint8) for i in range(10)]
    try:
        vectors = encoder.embed_images(images)
    finally:
        encoder.model.encode_image = encode
    assert [c[0] for c in calls] == [4, 4, 2] and calls[0][1:] == (3, 32, 32)
    assert vectors.shape == (10, 32) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    alone = encoder.embed_images(images[5:6])
    assert np.allclose(alone[0], vectors[5], atol=1e-5)  # a frame's vector does not depend on its batch
    queries = encoder.embed_texts(["a slide with a price", "a dog barking"])
    assert queries.shape == (2, 32) and np.allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    assert encoder.embed_images([]).shape == (0, 32)


@pytest.mark.parametrize("mode", ["squash", "shortest", "longest"])
def test_images_are_resized_as_open_clip_would(mode):
    from staragent.models.siglip import resize_for_model

    image = np.zeros((90, 160, 3), np.uint8)
    image[:, :80] = 255  # left half white
    out = resize_for_model(image, (32, 32), mode)
    assert out.shape == (32, 32, 3)
    if mode == "longest":  # letterboxed: black bars top and bottom
        assert out[0].max() == 0 and out[16, 2].min() == 255
    else:
        assert out[16, 2].min() == 255 and out[16, 29].max() == 0


@pytest.mark.parametrize("mode", ["squash", "shortest", "longest"])
def test_resizing_where_the_model_runs_gives_the_pixels_opencv_gives(mode):
    import torch

    from staragent.models.siglip import resize_for_model, resize_tensor_for_model

    rng = np.random.default_rng(1)
    smooth = np.kron(rng.integers(0, 255, (9, 16, 3)), np.ones((10, 10, 1))).astype(np.uint8)  # 90x160 blocks: natural-ish edges
    for image, size in ((smooth, (32, 32)), (smooth[:20, :30], (48, 48))):  # shrinking, then enlarging
        expected = resize_for_model(image, size, mode).astype(np.float32)
        frames = torch.from_numpy(image).permute(2, 0, 1)[None].float()
        got = resize_tensor_for_model(frames, size, mode)[0].permute(1, 2, 0).numpy()
        assert got.shape == expected.shape and got.min() >= 0 and got.max() <= 255
        assert np.abs(got - expected).mean() < 6  # interpolation kernels differ a little, the picture does not


def test_siglip_vectors_do_not_depend_on_where_keyframes_are_resized(pool):
    encoder = pool.get("vision")
    rng = np.random.default_rng(2)
    images = [np.kron(rng.integers(0, 255, (9, 16, 3)), np.ones((10, 10, 1))).astype(np.uint8) for _ in range(6)]
    images.append(images[0][:60])  # a keyframe of another size in the same call
    on_cpu = encoder.embed_images(images)
    encoder.resize_on_device = True
    try:
        on_device = encoder.embed_images(images)
    finally:
        encoder.resize_on_device = False
    assert on_device.shape == on_cpu.shape == (7, 32)
    assert (np.sum(on_cpu * on_device, axis=1) > 0.99).all()  # cosine similarity, frame by frame


def test_video_refiner_samples_frames_inside_the_range(pool, foreign):
    from staragent.models.video_refiner import QwenVideoRefiner, sample_times

    refiner = pool.get("vlm")
    assert isinstance(refiner, QwenVideoRefiner)
    result = refiner.refine(foreign.path, 10.0, 20.0, "What is on the slide?")
    assert result.start == 10.0 and result.end == 20.0 and result.model == refiner.model_id and isinstance(result.text, str)
    assert len(result.frame_times) == 8 and all(10.0 <= t < 20.5 for t in result.frame_times)  # 10 s at 1 fps, capped at 8
    assert result.frame_times == sorted(result.frame_times)
    caption = refiner.refine(foreign.path, 0.0, 3.0)
    assert len(caption.frame_times) in (2, 3, 4) and caption.text is not None
    assert sample_times(0, 60, 1.0, 64) == [i + 0.5 for i in range(60)]
    assert len(sample_times(0, 600, 1.0, 64)) == 64 and len(sample_times(0, 0.5, 1.0, 64)) == 2
    assert len(sample_times(0, 5, 1.0, 64)) % 2 == 0  # frames go to the model in pairs


# ---------------------------------------------------------------- sounds


def test_audio_tagger_labels_clips_in_batches(pool, local_settings):
    tagger = pool.get("audio_tagger")
    assert tagger.labels == AUDIO_LABELS and not tagger.exclusive
    clips = [tone(2.0, 440), tone(1.0, 2000), np.zeros(0, np.float32)]
    tagger.batch_size = 2
    scores = tagger.scores(clips)
    assert scores.shape == (3, 5) and ((scores >= 0) & (scores <= 1)).all()
    tags = tagger.tag_batch(clips, top_k=3, threshold=0.0)
    assert [len(t) for t in tags] == [3, 3, 3]
    for found in tags:
        values = [score for _, score in found]
        assert values == sorted(values, reverse=True) and {label for label, _ in found} <= set(AUDIO_LABELS)
    assert tagger.tag(clips[0], top_k=5, threshold=1.01) == []


def test_audio_language_model_describes_or_answers(pool):
    model = pool.get("audio_lm")
    assert model.kind == "audioflamingo3"
    assert isinstance(model.refine(tone(3.0), "Is there a beep?"), str)
    assert isinstance(model.refine(tone(35.0)), str)  # longer than one 30 s encoder window
    assert "too short" in model.refine(np.zeros(100, np.float32))


def test_qwen2_audio_is_the_other_audio_language_model(tiny, tmp_path):
    settings = load_settings(cache_dir=tmp_path, profile="local", models={"audio_lm_model": str(tiny.qwen2_audio), "device": "cpu", "audio_lm_max_new_tokens": 6})
    model = ModelPool(settings).get("audio_lm")
    assert model.kind == "qwen2_audio" and isinstance(model.refine(tone(4.0), "What do you hear?"), str)


def test_audio_language_model_refuses_other_architectures(tiny, tmp_path):
    settings = load_settings(cache_dir=tmp_path, profile="local", models={"audio_lm_model": str(tiny.ast), "device": "cpu"})
    with pytest.raises(ModelUnavailable, match="audio-spectrogram-transformer.*Audio Flamingo 3 or Qwen2-Audio"):
        ModelPool(settings).get("audio_lm")


def test_resident_models_report_their_memory(pool):
    for role in ("asr", "vision", "vlm"):  # loaded here, so the report does not depend on which tests ran first
        pool.get(role)
    rows = {row["name"]: row for row in pool.report()}
    assert {"asr", "vision", "vlm"} <= set(rows)
    assert all(row["device"] == "cpu" for row in rows.values())
    assert rows["vision"]["weights_mb"] > 0 and rows["vlm"]["weights_mb"] > rows["vision"]["weights_mb"]
    assert rows["asr"]["weights_mb"] == round((Path(pool.get("asr")._model_file).stat().st_size) / 2**20, 1)


@pytest.mark.gpu
def test_models_go_to_the_gpu_in_half_precision(tiny, tmp_path):
    import torch

    overrides = tiny.settings_overrides()
    overrides["models"]["device"] = "auto"
    settings = load_settings(cache_dir=tmp_path, **overrides)
    gpu_pool = ModelPool(settings)
    encoder = gpu_pool.get("vision")
    assert encoder.device == "cuda" and next(encoder.model.parameters()).dtype in (torch.bfloat16, torch.float16)
    assert encoder.embed_images([np.zeros((64, 64, 3), np.uint8)]).dtype == np.float32
    chat = gpu_pool.get("chat")
    assert next(chat.model.parameters()).is_cuda
    assert {row["name"]: row for row in gpu_pool.report()}["vision"]["cuda_mb"] > 0
    assert gpu_pool.get("asr").compute_type == "float16"
    assert gpu_pool.memory_bytes("cuda:0") == gpu_pool.memory_bytes() > 0


def test_one_resident_model_serves_concurrent_callers(pool):
    import threading

    encoder = pool.get("vision")
    texts = [f"query number {i}" for i in range(8)]
    expected = encoder.embed_texts(texts)
    results = {}

    def ask(i):
        results[i] = pool.get("vision").embed_texts([texts[i]])[0]

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.allclose(results[i], expected[i], atol=1e-5) for i in range(8))
    assert [m.name for m in pool.loaded()].count("vision") == 1


def test_video_frames_are_sized_by_qwen_vl_utils_budget(pool):
    refiner = pool.get("vlm")
    frames = [(float(i), np.full((180, 320, 3), 40 * i, np.uint8)) for i in range(3)]
    video, metadata = refiner._video(frames, sample_fps=1.0)
    count, channels, height, width = video.shape
    assert (count, channels) == (4, 3)  # an odd count is padded: the model takes frames in pairs
    assert height % 28 == 0 and width % 28 == 0 and height * width <= refiner.max_pixels
    assert width > height and metadata["frames_indices"] == [0, 1, 2, 3] and metadata["fps"] == 1.0
