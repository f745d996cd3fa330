"""The offline benchmark: STARBench-format samples built from the script of the synthetic long video.

The sample-video generator (``staragent.samples``) writes, beside ``<stem>.mp4``, the script it rendered
as ``<stem>.facts.json`` (a ``SampleScript``: slides, narration, audio events and *facts* — things shown
on screen, said, or heard, each with a time span, a question, its answer and keywords). From a script
this module builds:

- **single-turn** samples, one per fact;
- **multi-turn** samples, 2-3 follow-up questions about facts on the same or adjacent slides (with a
  "when" follow-up where a pair needs a third turn);
- a few **agentic** samples with expected tool calls in the form of Table 7 of the STARBench paper
  (``timestamp`` as ``"HH:MM:SS-HH:MM:SS"``): the total of two prices (``cross_modal_search`` ->
  ``extract_scene_text`` -> ``calculator``), what was said (``cross_modal_search`` ->
  ``transcribe_speech``), and which sound was heard (``cross_modal_search`` -> ``detect_audio_events``).

Every answer carries a rubric derived from the fact's keywords: high priority for the first key phrase,
medium and low for the next ones (or the time), and the standard hallucination penalty. A key phrase is
the whole fact a keyword belongs to in the answer ("17 March 2027" for the keywords "17" and "March",
"6 hours" for "6"), quoted in the criterion, so the offline heuristic judge checks the whole fact.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from ..bench import keyfacts as kf
from ..bench import text as tx
from ..bench.harness_errors import DatasetError
from ..bench.sample_records import VIDEO_SUFFIXES, Criterion, Dataset, Sample, ToolCall, Turn
from ..fsutil import read_json, write_json
from ..timecodes import clock_range, format_time

MODALITY_TASK = {
    "ocr": "ocr_text_extraction",
    "speech": "information_retrieval",
    "audio": "audio_understanding",
    "visual": "visual_scene_understanding",
}
MODALITY_TAGS = {"ocr": ["visual"], "speech": ["speech"], "audio": ["audio"], "visual": ["visual"]}
SEARCH_MODALITY = {"ocr": "ocr", "speech": "speech", "audio": "audio", "visual": "visual"}
HALLUCINATION = "Must not include information that the video does not show or say"
# Only a line labelled "Price:" is the price of an item: "Revenue: $7.3 million" is money but no price,
# "Regular price: $440" comes with a discount, "Basic plan: $17 a month" is a rate. A magnitude word
# stays part of the amount.
_PRICE = re.compile(
    r"^\s*price:\s*(?P<symbol>[$€£])(?P<amount>\d[\d,]*(?:\.\d+)?)(?:\s+(?P<scale>thousand|million|billion))?\s*\.?\s*$",
    re.IGNORECASE,
)
_SCALES = {None: 1.0, "thousand": 1e3, "million": 1e6, "billion": 1e9}


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _facts(script: Any) -> list[Any]:
    return sorted(list(_get(script, "facts") or []), key=lambda f: float(_get(f, "start", 0.0)))


def _slide_of(script: Any, t: float) -> int | None:
    for slide in _get(script, "slides") or []:
        if float(_get(slide, "start")) <= t < float(_get(slide, "end")):
            return int(_get(slide, "index"))
    return None


def key_phrases(answer: str, keywords: list[str]) -> list[str]:
    """The keywords the answer states, each widened to the whole date or quantity of the answer it is
    part of ("3" of "3 January 2027" is that date), in keyword order, without repeats."""
    wholes = [f.text for f in kf.key_facts(answer) if f.kind != "number"]
    phrases: list[str] = []
    for keyword in keywords:
        if not tx.contains_phrase(answer, keyword):
            continue
        phrase = next((w for w in wholes if tx.contains_phrase(w, keyword)), keyword)
        if phrase not in phrases:
            phrases.append(phrase)
    return phrases


def fact_criteria(fact: Any) -> list[Criterion]:
    """Rubric of a fact: the key phrases the reference answer states (a reference must pass its own
    rubric), most important first; the time when fewer than three; the hallucination penalty."""
    answer = str(_get(fact, "answer", ""))
    keywords = [str(k) for k in (_get(fact, "keywords") or []) if str(k).strip()]
    names = [("factual_correctness", "high_priority"), ("key_details", "medium_priority"), ("completeness", "low_priority")]
    criteria = [
        Criterion(name=name, description=f'Must mention "{phrase}"', category=cat)
        for (name, cat), phrase in zip(names, key_phrases(answer, keywords)[:3], strict=False)
    ]
    if not criteria:
        criteria.append(
            Criterion(name="factual_correctness", description=f"Must state that {answer.strip().rstrip('.')}",
                      category="high_priority")
        )  # fmt: skip
    if len(criteria) < 3:
        start = float(_get(fact, "start", 0.0))
        criteria.append(
            Criterion(
                name="temporal_grounding",
                description=f"Places it in the video at about {format_time(start)}",
                category="low_priority",
            )
        )
    criteria.append(Criterion(name="hallucination", description=HALLUCINATION, category="penalty"))
    return criteria


VERB = {"ocr": "shown", "visual": "shown", "speech": "said", "audio": "heard"}


def reference_answer(fact: Any) -> str:
    """The fact's answer, grounded in time (the rubric's low-priority criterion asks for the time)."""
    answer = str(_get(fact, "answer")).strip()
    if answer and answer[-1] not in ".!?":
        answer += "."
    verb = VERB.get(str(_get(fact, "modality")), "shown")
    return f"{answer} It is {verb} at about {format_time(float(_get(fact, 'start', 0.0)))}."


def _turns_for_fact(fact: Any, *, role: str | None = None, difficulty: int = 2, segment: int | None = None) -> list[Turn]:
    modality = str(_get(fact, "modality", "visual"))
    return [
        Turn(
            role="user",
            content=str(_get(fact, "question")),
            difficulty=difficulty,
            modalities=MODALITY_TAGS.get(modality, ["visual"]),
            key_segments=[segment] if segment is not None else [],
            conversation_role=role,
            fact_id=str(_get(fact, "id")),
        ),
        Turn(role="assistant", content=reference_answer(fact), criteria=fact_criteria(fact)),
    ]


def _base(script: Any, sample_id: str, task: str, sample_type: str, conversations: list[Turn], video_path: str | None) -> Sample:
    seed, minutes = _get(script, "seed", 0), _get(script, "minutes", 0)
    return Sample(
        sample_id=sample_id,
        video_id=f"synthetic-s{seed}-{minutes}m",
        duration=float(_get(script, "duration", 0.0)) or None,
        sample_type=sample_type,
        scenario="A viewer of a long slide talk wants to look up things that were shown, said and heard in it.",
        task=task,
        conversations=conversations,
        video_path=video_path,
        meta={"synthetic": True, "seed": seed},
    )


def single_turn_samples(script: Any, video_path: str | None = None) -> list[Sample]:
    out = []
    for fact in _facts(script):
        modality = str(_get(fact, "modality", "visual"))
        segment = _slide_of(script, float(_get(fact, "start", 0.0)))
        out.append(
            _base(
                script, f"st-{_get(fact, 'id')}", MODALITY_TASK.get(modality, "information_retrieval"), "single_turn",
                _turns_for_fact(fact, segment=segment), video_path,
            )  # fmt: skip
        )
    return out


def multi_turn_samples(script: Any, video_path: str | None = None, max_samples: int = 6) -> list[Sample]:
    """Groups of 2-3 facts on the same or adjacent slides, asked one after another."""
    facts = _facts(script)
    groups: list[list[Any]] = []
    current: list[Any] = []
    for fact in facts:
        slide = _slide_of(script, float(_get(fact, "start", 0.0)))
        if current:
            last = _slide_of(script, float(_get(current[-1], "start", 0.0)))
            if slide is None or last is None or abs(slide - last) > 1 or len(current) == 3:
                if len(current) >= 2:
                    groups.append(current)
                current = []
        current.append(fact)
    if len(current) >= 2:
        groups.append(current)
    roles = ("opener", "deepener", "synthesizer")
    out = []
    for n, group in enumerate(groups[:max_samples]):
        conversations: list[Turn] = []
        for i, fact in enumerate(group):
            segment = _slide_of(script, float(_get(fact, "start", 0.0)))
            conversations += _turns_for_fact(fact, role=roles[i], difficulty=2 + i, segment=segment)
        if len(group) == 2:
            last = group[-1]
            when = format_time(float(_get(last, "start", 0.0)))
            conversations += [
                Turn(role="user", content="Roughly when in the video does that come up?", difficulty=3,
                     modalities=MODALITY_TAGS.get(str(_get(last, "modality")), ["visual"]), conversation_role="synthesizer"),
                Turn(role="assistant", content=f"Around {when}.", criteria=[
                    Criterion(name="factual_correctness", description=f"Gives a time of about {when}", category="high_priority"),
                    Criterion(name="temporal_error", description="Must not give a wrong time or order of events", category="penalty"),
                ]),
            ]  # fmt: skip
        modalities = {str(_get(f, "modality")) for f in group}
        task = "multimodal_synthesis" if len(modalities) > 1 else MODALITY_TASK.get(modalities.pop(), "information_retrieval")
        out.append(_base(script, f"mt-{n:02d}", task, "multi_turn", conversations, video_path))
    return out


class Price(NamedTuple):
    """A price read from an on-screen "Price:" line: as shown, its currency, its magnitude word, its value."""

    text: str
    symbol: str
    scale: str | None
    value: float  # in units: "$7.3 million" is 7,300,000


def _price(fact: Any) -> Price | None:
    """The price a fact shows, when its on-screen line is a "Price:" line (see ``_PRICE``)."""
    match = _PRICE.match(str(_get(fact, "text", "")))
    if match is None:
        return None
    symbol, amount = match.group("symbol"), match.group("amount")
    scale = match.group("scale").lower() if match.group("scale") else None
    shown = f"{symbol}{amount}" + (f" {scale}" if scale else "")
    return Price(shown, symbol, scale, float(amount.replace(",", "")) * _SCALES[scale])


def _money(amount: float, symbol: str, scale: str | None, cents: bool) -> str:
    """``amount`` (counted in ``scale``) as money: ``$1,817``, ``$338.50``, ``$10.7 million``."""
    if scale:
        text = f"{round(amount, 3):,g}"
    elif cents or not float(amount).is_integer():
        text = f"{amount:,.2f}"
    else:
        text = f"{amount:,.0f}"
    return f"{symbol}{text}" + (f" {scale}" if scale else "")


def _search(fact: Any, modality: str) -> ToolCall:
    span = clock_range(float(_get(fact, "start")), float(_get(fact, "end")))
    return ToolCall(
        tool="cross_modal_search",
        parameters={"query": str(_get(fact, "topic") or _get(fact, "question")), "modalities": [modality], "k": 5},
        expected_response={"timestamp": span, "results": [str(_get(fact, "text"))]},
    )


def agentic_samples(script: Any, video_path: str | None = None) -> list[Sample]:
    facts = _facts(script)
    out: list[Sample] = []
    priced, topics = [], set()
    for f in facts:  # two prices shown on screen, of two different things
        price = _price(f) if str(_get(f, "modality")) == "ocr" and _get(f, "kind", "lookup") == "lookup" else None
        if price and _get(f, "topic") not in topics:
            priced.append((f, price))
            topics.add(_get(f, "topic"))
    if len(priced) >= 2:
        (fa, pa), (fb, pb) = priced[0], priced[1]
        ra, rb = pa.text, pb.text
        scale = pa.scale if pa.scale == pb.scale else None  # add like with like: both in millions, else in units
        va, vb = pa.value / _SCALES[scale], pb.value / _SCALES[scale]
        total = _money(va + vb, pa.symbol, scale, cents="." in ra + rb)
        ta, tb = str(_get(fa, "topic") or "first item"), str(_get(fb, "topic") or "second item")
        calls = [
            _search(fa, "ocr"),
            ToolCall(tool="extract_scene_text", parameters={"timestamp": clock_range(float(_get(fa, "start")), float(_get(fa, "end")))},
                     expected_response={"texts": [str(_get(fa, "text"))]}),
            _search(fb, "ocr"),
            ToolCall(tool="extract_scene_text", parameters={"timestamp": clock_range(float(_get(fb, "start")), float(_get(fb, "end")))},
                     expected_response={"texts": [str(_get(fb, "text"))]}),
            ToolCall(tool="calculator", parameters={"expression": f"{va:g} + {vb:g}"}, expected_response={"result": round(va + vb, 6)}),
        ]  # fmt: skip
        answer = f"Together they cost {total}: {ra} for the {ta} and {rb} for the {tb}."
        conversations = [
            Turn(role="user", content=f"If I bought both the {ta} and the {tb} shown in the talk, what would they cost in total?",
                 difficulty=4, modalities=["visual"], conversation_role="opener"),
            Turn(role="assistant", content=answer, tool_calls=calls, criteria=[
                Criterion(name="factual_correctness", description=f'Must give the total "{total}"', category="high_priority"),
                Criterion(name="key_details", description=f'Must mention the price "{ra}"', category="medium_priority"),
                Criterion(name="completeness", description=f'Must mention the price "{rb}"', category="medium_priority"),
                Criterion(name="hallucination", description=HALLUCINATION, category="penalty"),
            ]),
        ]  # fmt: skip
        out.append(_base(script, "ag-total-price", "mathematical_reasoning", "single_turn", conversations, video_path))
    for modality, tool, key, task in (
        ("speech", "transcribe_speech", "transcript", "speech_transcription"),
        ("audio", "detect_audio_events", "description", "audio_understanding"),
    ):
        fact = next((f for f in facts if str(_get(f, "modality")) == modality), None)
        if fact is None:
            continue
        span = clock_range(float(_get(fact, "start")), float(_get(fact, "end")))
        response = {key: str(_get(fact, "text")), "timestamp": span} if key == "transcript" else {key: str(_get(fact, "text"))}
        calls = [_search(fact, SEARCH_MODALITY[modality]), ToolCall(tool=tool, parameters={"timestamp": span}, expected_response=response)]
        turns = _turns_for_fact(fact, role="opener", difficulty=3)
        turns[1] = turns[1].model_copy(update={"tool_calls": calls})
        out.append(_base(script, f"ag-{modality}-{_get(fact, 'id')}", task, "single_turn", turns, video_path))
    return out


def build_samples(script: Any, video_path: str | None = None) -> list[Sample]:
    """All synthetic samples for one script (any object or dict with the ``SampleScript`` fields)."""
    if not _facts(script):
        raise DatasetError("the sample-video script has no facts to ask about; regenerate it with staragent.samples")
    return single_turn_samples(script, video_path) + multi_turn_samples(script, video_path) + agentic_samples(script, video_path)


def build_dataset(script: Any, *, name: str = "synthetic", video_path: str | None = None, source: str = "") -> Dataset:
    return Dataset(name, "synthetic", source or name, build_samples(script, video_path), {"seed": _get(script, "seed")})


def load_script(path: str | Path) -> Any:
    """A ``SampleScript`` from ``<stem>.facts.json`` (the pydantic model when ``staragent.samples``
    provides it, the plain dict otherwise)."""
    data = read_json(path)
    try:
        from ..samples import SampleScript  # type: ignore[attr-defined]

        return SampleScript.model_validate(data)
    except (ImportError, AttributeError):
        return data


def load_synthetic(path: str | Path, name: str | None = None, **_: Any) -> Dataset:
    path = Path(path)
    script = load_script(path)
    stem = path.name[: -len(".facts.json")] if path.name.endswith(".facts.json") else path.stem
    video = next((path.parent / f"{stem}{s}" for s in VIDEO_SUFFIXES if (path.parent / f"{stem}{s}").is_file()), None)
    return Dataset(
        name or stem, "synthetic", str(path), build_samples(script, video.name if video else None),
        {"seed": _get(script, "seed"), "video": str(video) if video else None},
    )  # fmt: skip


def write_dataset(dataset: Dataset, path: str | Path) -> Path:
    """Write the samples as a STARBench JSON file (loadable with ``load_dataset``)."""
    path = Path(path)
    base = Path(dataset.source).parent if dataset.source and Path(dataset.source).exists() else None
    rows = []
    for sample in dataset.samples:
        row = sample.model_dump(mode="json", exclude_none=True)
        if sample.video_path and base is not None and not Path(sample.video_path).is_absolute():
            row["video_path"] = str((base / sample.video_path).resolve())
        rows.append(row)
    write_json(path, rows)
    return path
