"""The load benchmark's harness (perf/load.py), run briefly: three clients for a few seconds
against `staragent mcp --http`, with a fourth indexing a video meanwhile. Every question must be
answered and every thread read back must hold exactly its client's questions in order."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "perf"))
pytestmark = pytest.mark.slow


def test_a_short_load_on_the_mcp_server_answers_everything_and_keeps_threads_apart(foreign, foreign_index, lecture, lecture_index, tmp_path):
    from load import run_server
    from media_factory import spec_sheet_video

    videos = tmp_path / "videos"  # the server may open the videos of one folder
    videos.mkdir()
    for video in (foreign.path, lecture.path):
        for file in video.parent.glob(video.stem + ".*"):
            shutil.copy(file, videos / file.name)
    third = spec_sheet_video(videos / "sheet.mp4").path
    cache = tmp_path / "cache"
    for index in (foreign_index, lecture_index):
        shutil.copytree(index.dir, cache / "index" / index.dir.name)
    packs = Path(os.environ["STARAGENT_MODELS__PACK_CACHE"])
    result = run_server("mcp", [videos / foreign.path.name, videos / lecture.path.name], third, cache, packs, tmp_path / "work",
                        clients=3, seconds=4)
    assert result["errors"] == 0, result["error_samples"]
    assert result["answered"] >= 3
    assert result["threads"] == {"checked": 3, "intact": 3, "lost_turns": 0, "foreign_turns": 0, "check_errors": []}
    assert result["indexing"]["ok"], result["indexing"]
    assert result["memory"]["samples"]
