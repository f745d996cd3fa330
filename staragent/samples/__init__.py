"""Synthetic long-form sample videos with known content, for demos, tests and benchmarks.

    from staragent.samples import generate_sample_video
    script = generate_sample_video("talk.mp4", minutes=30, seed=0)
    fact = script.facts[0]
    print(fact.question, "->", fact.answer, f"({fact.start:.0f}-{fact.end:.0f} s)")

A sample is a lecture-style sequence of text slides (prices, model numbers, people, dates, ...) with
espeak-ng narration, beeps, noise bursts, chimes, pauses and short ball animations. Every fact is
recorded with its time span, modality and a question it answers; ``build_script`` regenerates that
record from (minutes, seed) without rendering.
"""

from .generate import SamplePaths, generate_sample_video, sample_paths
from .layout import build_script
from .script import AudioEventSpec, Cue, Fact, SampleScript, Slide
from .subtitles import write_srt

__all__ = [
    "AudioEventSpec",
    "Cue",
    "Fact",
    "SamplePaths",
    "SampleScript",
    "Slide",
    "build_script",
    "generate_sample_video",
    "sample_paths",
    "write_srt",
]
