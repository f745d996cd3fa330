"""Shared fixtures. Media is generated here (see media_factory.py); nothing is downloaded."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from llm_server import serve as serve_llm  # noqa: E402
from media_factory import conference_video, lecture_video  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _isolated_config(monkeypatch, tmp_path_factory):
    """Tests never read the developer's ~/.config/staragent or STARAGENT_* variables."""
    for key in list(os.environ):
        if key.startswith("STARAGENT_"):
            monkeypatch.delenv(key)
    empty = tmp_path_factory.getbasetemp() / "empty-config.toml"
    empty.touch()
    monkeypatch.setenv("STARAGENT_CONFIG", str(empty))
    # model packs are assembled once for the whole session, whatever cache folder a test uses
    monkeypatch.setenv("STARAGENT_MODELS__PACK_CACHE", str(tmp_path_factory.getbasetemp() / "packs-cache"))


@pytest.fixture(scope="session")
def registry():
    """The built-in tools (no plug-ins)."""
    from staragent.tools import ToolRegistry

    return ToolRegistry.discover(plugins=False)


@pytest.fixture
def settings(tmp_path):
    from staragent.config import load_settings

    return load_settings(cache_dir=tmp_path / "cache", progress=False)


def pytest_collection_modifyitems(config, items):
    """Tests marked ``gpu`` need CUDA; without it they are skipped, not failed."""
    gpu_tests = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu_tests:
        return
    try:
        import torch

        has_cuda = torch.cuda.is_available()
    except ImportError:
        has_cuda = False
    if not has_cuda:
        for item in gpu_tests:
            item.add_marker(pytest.mark.skip(reason="needs a CUDA GPU"))


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    """Tiny random-weight stand-ins for every expert model (see tiny_models.py), built on first use."""
    from tiny_models import TinyModels

    return TinyModels(tmp_path_factory.mktemp("tiny-models"))


@pytest.fixture(scope="session")
def foreign(tmp_path_factory):
    """A 38-second conference video with WebVTT subtitles, built once per test session."""
    return conference_video(tmp_path_factory.mktemp("media") / "conference.mp4", subtitles="vtt")


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def foreign_index(foreign, session_cache):
    from staragent.config import load_settings
    from staragent.index.builder import build_index

    return build_index(foreign.path, load_settings(cache_dir=session_cache, progress=False))


@pytest.fixture(scope="session")
def agent(session_cache, foreign_index):
    from staragent.agent.runner import VideoAgent
    from staragent.config import load_settings

    with VideoAgent(load_settings(cache_dir=session_cache, progress=False)) as a:
        yield a


@pytest.fixture(scope="session")
def lecture(tmp_path_factory):
    """An 18-second video: maths on a slide, a French sign and narration, then three drawn faces."""
    return lecture_video(tmp_path_factory.mktemp("lecture") / "lecture.mp4", subtitles="srt")


@pytest.fixture(scope="session")
def lecture_index(lecture, session_cache):
    from staragent.config import load_settings
    from staragent.index.builder import build_index

    return build_index(lecture.path, load_settings(cache_dir=session_cache, progress=False))


@pytest.fixture(scope="session")
def tour(tmp_path_factory):
    """A 96-second 720p H.264 video drawn with Pillow's TrueType font, with an .srt (see tour_video)."""
    from media_factory import tour_video

    return tour_video(tmp_path_factory.mktemp("tour") / "tour.mp4")


@pytest.fixture(scope="session")
def llm_cache(tmp_path_factory):
    """The cache of the tests marked ``llm``: the assembled model and the indexes of their videos."""
    return tmp_path_factory.mktemp("llm-cache")


@pytest.fixture(scope="session")
def llm_server(llm_cache):
    """`staragent llm serve` with the bundled model, started once for every test marked ``llm``
    (see llm_server.py); skipped without the ``llm`` extra unless STARAGENT_REQUIRE_LLM=1."""
    yield from serve_llm(llm_cache)
