"""Pieces several tools share: a time span as results carry it, and frames sampled from a range."""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import BaseModel, BeforeValidator, Field

from ..timecodes import POINT_WINDOW, format_range

RANGE_HELP = (
    'time range, e.g. "00:01:30-00:02:00" (also "1:30-2:00" or "90-120" in seconds); a single moment '
    f'such as "1:30" covers {POINT_WINDOW[0]:g} s before it to {POINT_WINDOW[1]:g} s after'
)


def _range_text(value):
    """Planners sometimes send a number of seconds where a range is text; read it as that moment."""
    if isinstance(value, bool):
        raise ValueError('a time range is text such as "1:30-2:00" or a number of seconds, not true/false')
    return str(value) if isinstance(value, (int, float)) else value


TimeRangeArg = Annotated[str, BeforeValidator(_range_text), Field(description=RANGE_HELP)]
"""The type of every tool's ``timestamp`` argument: a range (or a moment) as text, or seconds."""


class Span(BaseModel):
    """Where in the video something is: ``timestamp`` for people, ``start``/``end`` in seconds."""

    timestamp: str = Field(description="m:ss-m:ss (h:mm:ss past an hour)")
    start: float
    end: float


def span(start: float, end: float) -> dict:
    """The fields of a ``Span`` for ``[start, end)``, to splat into a result model."""
    return {"timestamp": format_range(start, end), "start": round(float(start), 3), "end": round(float(end), 3)}


def sample_times(index, start: float, end: float, max_frames: int) -> list[float]:
    """Moments worth looking at in ``[start, end)``: the middle of each stretch a keyframe stands
    for (one per distinct picture), thinned to ``max_frames``, or evenly spaced when the range
    holds no keyframe."""
    times = []
    for kf in index.keyframes_between(start, end):
        lo, hi = max(start, kf.time), min(end, kf.until)
        if hi > lo:
            times.append((lo + hi) / 2)
    if not times:
        times = [(start + end) / 2]
    if len(times) > max_frames:
        picks = np.linspace(0, len(times) - 1, max_frames).round().astype(int)
        times = [times[i] for i in sorted(set(picks))]
    return times


def frames_between(ctx, start: float, end: float, max_frames: int) -> list[tuple[float, np.ndarray]]:
    """RGB frames at ``sample_times`` of the loaded video."""
    from ..media import frames_at

    index = ctx.require_index()
    return frames_at(index.video_path, sample_times(index, start, end, max_frames))


def clip_frames(ctx, start: float, end: float, count: int) -> list[np.ndarray]:
    """``count`` RGB frames spread evenly over ``[start, end)`` (for models that watch motion)."""
    from ..media import frames_at

    step = (end - start) / count
    times = [start + step * (i + 0.5) for i in range(count)]
    return [image for _, image in frames_at(ctx.require_index().video_path, times)]


def ask_chat(chat, prompt: str, material: dict, **variables) -> str:
    """One exchange with a chat model (``ToolContext.chat_model()``): the instructions from ``prompts/<prompt>.md``, then the
    material as a JSON object (text from the video or the user is data, never instructions)."""
    import json

    from ..prompts import render

    return chat.reply(render(prompt, **variables), json.dumps(material, ensure_ascii=False))
