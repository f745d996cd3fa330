"""What the page shows, as Markdown and HTML: answers whose timestamps are links that seek the
player, evidence with keyframe thumbnails, tool steps, the indexing progress. Plain functions of
plain data, so they are tested without a browser.

A link to a moment is ``[1:05](#t=65.0)``; the page's script turns a click on any ``#t=`` link
into a seek of the player (see ``app.SEEK_SCRIPT``)."""

from __future__ import annotations

import html
import json
import re

from ..config import Settings
from ..schema import Answer, Evidence, TrajectoryStep
from ..timecodes import format_range, format_time, parse_time

_TIME = r"\d{1,2}:\d{2}(?::\d{2})?"
_TIMESTAMP = re.compile(rf"(?<![\d:.,$€£])({_TIME})(?:\s*[-–]\s*({_TIME}))?(?!\d|:\d)")
_QUOTED = re.compile(r"(“[^”]*”|\"[^\"]*\"|«[^»]*»)")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")
VISUAL_MODALITIES = ("ocr", "visual", "caption")
MODALITY_NAMES = {"speech": "said", "ocr": "on screen", "visual": "seen", "caption": "described", "audio": "heard",
                  "web": "web", "memory": "noted"}


def seek_link(start: float, end: float | None = None) -> str:
    label = format_range(start, end) if end is not None and end - start >= 1 else format_time(start)
    return f"[{label}](#t={start:.2f})"


def escape(text: str) -> str:
    """Text from the video (speech, on-screen text) shown as itself, never as Markdown or HTML."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=False)).replace("\n", " ")


def link_times(text: str, duration: float | None = None) -> str:
    """``text`` with every timestamp outside quotes made a link; quoted words are the video's own
    (a slide saying "doors open 19:30" is not a moment of the video), and so is a time past its end."""

    def linked(match: re.Match) -> str:
        try:
            start = parse_time(match.group(1))
            end = parse_time(match.group(2)) if match.group(2) else None
        except Exception:  # noqa: BLE001 - not a time after all (e.g. 7:75): leave it as written
            return match.group(0)
        if duration is not None and start > duration + 1:
            return match.group(0)
        return f"[{match.group(0)}](#t={start:.2f})" if end is None or end >= start else match.group(0)

    parts = _QUOTED.split(text)
    return "".join(escape(part) if i % 2 else _TIMESTAMP.sub(linked, escape(part)) for i, part in enumerate(parts))


def thumbnail(frame_url: str | None, seconds: float) -> str:
    if not frame_url:
        return ""
    return f'<img src="{frame_url}" alt="keyframe at {format_time(seconds)}" class="sa-thumb" width="160">'


def evidence_lines(evidence: list[Evidence], frame_url=None) -> str:
    """One line per piece of evidence: its time (a link), how it was found, what it says; a
    keyframe thumbnail beside what was seen or read on screen. ``frame_url(seconds)`` gives the
    thumbnail's address (None: no thumbnails)."""
    lines, shown = [], set()
    for e in evidence:
        how = MODALITY_NAMES.get(e.modality, e.modality)
        thumb = ""
        if e.modality in VISUAL_MODALITIES and frame_url and round(e.start, 1) not in shown:  # one picture per moment
            shown.add(round(e.start, 1))
            thumb = thumbnail(frame_url(e.start), e.start)
        lines.append(f"- {seek_link(e.start, e.end)} · {how} · “{escape(e.text)}”" + (f"<br>{thumb}" if thumb else ""))
    return "\n".join(lines)


ANSWER_MARK = '<span class="sa-answer"></span>'
"""Marks a message as an answer (not a tool step) for scripts that read the page."""


def answer_markdown(answer: Answer, duration: float | None = None, frame_url=None) -> str:
    text = ANSWER_MARK + link_times(answer.answer, duration)
    if answer.evidence:
        text += "\n\n**Evidence**\n\n" + evidence_lines(answer.evidence, frame_url)
    return text


def step_title(tool: str, args: dict) -> str:
    shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return f"{tool}({shown[:120] + '…' if len(shown) > 120 else shown})"


def step_message(call_id: str, tool: str, args: dict, step: TrajectoryStep | None = None, duration: float | None = None) -> dict:
    """A chat message for one tool call: open with a spinner while it runs, closed with its result after."""
    metadata = {"title": step_title(tool, args), "id": call_id, "status": "pending" if step is None else "done"}
    content = ""
    if step is not None:
        metadata["duration"] = round(step.latency_s, 2)
        if step.cached:
            metadata["log"] = "from memory"
        content = ("**failed:** " if not step.ok else "") + link_times(step.error or step.summary, duration)
    return {"role": "assistant", "content": content, "metadata": metadata}


def error_message(text: str) -> dict:
    return {"role": "assistant", "content": f"**Error:** {escape(text)}"}


BROWSER_CODECS = ("h264", "vp8", "vp9", "av1", "theora", "hevc")


def codec_note(codec: str | None) -> str:
    """A word for a video the browser's player will likely not show (answers are not affected)."""
    if not codec or codec in BROWSER_CODECS:
        return ""
    return f"Browsers rarely play {codec} video, so the player may stay blank; the answers and their timestamps still work."


def planner_description(settings: Settings) -> str:
    backend = settings.planner_backend
    if backend == "rules":
        return "rule planner (offline, no language model)"
    if backend == "transformers":
        return f"{settings.planner.model} (transformers)"
    if backend == "openai":
        return f"{settings.planner.openai_model} at {settings.planner.base_url or 'the OpenAI API'}"
    return backend


def header(settings: Settings) -> str:
    return (f"### staragent — chat with a video\nProfile **{settings.profile}** · planner **{escape(planner_description(settings))}**"
            " · click any timestamp to jump there")


def progress_html(video: str, stages: list[tuple[str, float]], done: int, total: int | None, state: str, note: str = "") -> str:
    """Indexing progress: a bar and the stages finished so far (``state``: running, ready, failed)."""
    name = html.escape(video)
    if state == "ready":
        head = f"<b>{name}</b> is ready: ask away."
    elif state == "failed":
        head = f"<b>{name}</b> could not be opened."
    else:
        head = f"Indexing <b>{name}</b>… {done}/{total} stages" if total else f"Opening <b>{name}</b>…"
    bar = f'<progress class="sa-progress" value="{done}" max="{total}"></progress>' if total and state == "running" else ""
    items = "".join(f"<li>{html.escape(stage)} <small>{seconds:.1f} s</small></li>" for stage, seconds in stages)
    extra = f'<div class="sa-note">{html.escape(note)}</div>' if note else ""
    return f'<div class="sa-status" data-state="{state}">{head}{bar}{extra}<ul class="sa-stages">{items}</ul></div>'


def thread_label(title: str, turns: int, updated: str) -> str:
    when = updated[:16].replace("T", " ")
    short = title if len(title) <= 60 else title[:59] + "…"
    return f"{short} · {turns} question{'s' if turns != 1 else ''} · {when}"
