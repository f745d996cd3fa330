"""What dense text search embeds: passages cut from the segments, each tied to the segments it
came from, each distinct passage embedded once however many segments share it (a slide's text
over a minute of segments). A search hit on a passage counts for each of its segments.

Speech is embedded a segment at a time (its lines together: a spoken sentence leans on its
neighbours, and a question often spans two lines). On-screen text is embedded a line at a time (the
lines of a slide or a credits page are separate facts) and, where a segment shows several, all of
them together too (a title card's name and date answer one question together). Captions go a
segment at a time, sounds as each segment's labels together, what the picture models saw one
label at a time. On real media these units found more
than lines alone or segments alone (docs/performance.md).
"""

from __future__ import annotations

from ..records import Segment

DENSE_MODALITIES = ("speech", "ocr", "caption", "audio", "labels")
UNITS = {"speech": "segment", "ocr": "both"}
"""how speech and on-screen text are cut into passages: ``line``, ``segment`` or ``both``"""


def _add(found: dict[str, list[int]], text: str, segment: int) -> None:
    text = " ".join(text.split())
    if text and segment not in found.setdefault(text, []):
        found[text].append(segment)


def passages(segments: list[Segment], units: dict[str, str] | None = None) -> dict[str, list[tuple[str, list[int]]]]:
    """Per modality, ``(text, segment ids)`` for every distinct passage, in order of first use."""
    units = {**UNITS, **(units or {})}
    out: dict[str, dict[str, list[int]]] = {m: {} for m in DENSE_MODALITIES}
    for seg in segments:
        for modality, lines in (("speech", [x.text for x in seg.speech]), ("ocr", [x.text for x in seg.ocr])):
            if units[modality] in ("line", "both"):
                for line in lines:
                    _add(out[modality], line, seg.id)
            if units[modality] in ("segment", "both") and (len(lines) > 1 or units[modality] == "segment"):
                _add(out[modality], " ".join(lines), seg.id)
        if seg.caption:
            _add(out["caption"], seg.caption, seg.id)
        if seg.audio.tags:
            _add(out["audio"], "; ".join(seg.audio.tags), seg.id)
        for seen in seg.pictures:
            _add(out["labels"], seen, seg.id)
    return {m: list(found.items()) for m, found in out.items() if found}
