"""Fixtures for the benchmark-harness tests: shared third-party data (skipped when absent), a small
stand-in for the sample-video script, and an isolated cache directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import BaseModel

from staragent.bench.datasets import shared_data_dir


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("STARAGENT_CACHE_DIR", str(cache))
    monkeypatch.setenv("STARAGENT_CONFIG", str(cache / "none.toml"))
    yield


@pytest.fixture
def shared_data() -> Path:
    root = shared_data_dir()
    if not root.is_dir():
        pytest.skip(f"shared data not found at {root} (set STARAGENT_SHARED_DATA)")
    return root


# A local stand-in with exactly the fields of staragent.samples.SampleScript.
class Slide(BaseModel):
    index: int
    start: float
    end: float
    title: str
    lines: list[str]
    kind: str


class Cue(BaseModel):
    start: float
    end: float
    text: str


class AudioEventSpec(BaseModel):
    start: float
    end: float
    kind: str
    detail: str


class Fact(BaseModel):
    id: str
    modality: str
    start: float
    end: float
    text: str
    topic: str
    question: str
    answer: str
    keywords: list[str]


class SampleScript(BaseModel):
    seed: int
    minutes: float
    duration: float
    fps: int
    width: int
    height: int
    tts: bool
    slides: list[Slide]
    narration: list[Cue]
    audio_events: list[AudioEventSpec]
    facts: list[Fact]


def make_script() -> SampleScript:
    slides = [
        Slide(index=0, start=0, end=300, title="Kitchen gadgets", lines=["Espresso machine $249"], kind="price"),
        Slide(index=1, start=300, end=600, title="Blenders", lines=["Blender $89.50"], kind="price"),
        Slide(index=2, start=600, end=1200, title="Travel", lines=["Next meetup: Lisbon"], kind="text"),
        Slide(index=3, start=1200, end=2400, title="Wrap-up", lines=["Thanks"], kind="text"),
    ]
    facts = [
        Fact(id="f1", modality="ocr", start=20, end=280, text="Espresso machine $249", topic="espresso machine",
             question="What price is shown for the espresso machine?", answer="It is listed at $249.",
             keywords=["$249", "espresso machine"]),
        Fact(id="f2", modality="ocr", start=320, end=580, text="Blender $89.50", topic="blender",
             question="How much does the blender cost?", answer="The blender costs $89.50.",
             keywords=["$89.50", "blender"]),
        Fact(id="f3", modality="speech", start=640, end=648, text="Our next meetup is in Lisbon in May.",
             topic="next meetup", question="Where does the speaker say the next meetup will be?",
             answer="In Lisbon, in May.", keywords=["Lisbon", "May"]),
        Fact(id="f4", modality="audio", start=1250, end=1253, text="a bell rings twice", topic="bell",
             question="What sound is heard just after the wrap-up slide appears?", answer="A bell rings twice.",
             keywords=["bell", "twice"]),
        Fact(id="f5", modality="visual", start=1300, end=1310, text="a red umbrella on the desk", topic="umbrella",
             question="What object lies on the desk near the end?", answer="A red umbrella.",
             keywords=["umbrella", "red"]),
    ]  # fmt: skip
    return SampleScript(
        seed=3, minutes=40, duration=2400.0, fps=10, width=640, height=360, tts=False, slides=slides,
        narration=[Cue(start=640, end=648, text="Our next meetup is in Lisbon in May.")],
        audio_events=[AudioEventSpec(start=1250, end=1253, kind="bell", detail="a bell rings twice")],
        facts=facts,
    )  # fmt: skip


@pytest.fixture
def script() -> SampleScript:
    return make_script()


@pytest.fixture
def facts_file(tmp_path, script) -> Path:
    path = tmp_path / "talk.facts.json"
    path.write_text(script.model_dump_json(indent=1), encoding="utf-8")
    return path


@pytest.fixture
def subprocess_env() -> dict[str, str]:
    """Environment for a child Python that imports staragent from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2]) + os.pathsep + env.get("PYTHONPATH", "")
    return env
