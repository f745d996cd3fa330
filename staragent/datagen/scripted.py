"""A deterministic stand-in for the writer model, for tests, CI and demos (``--model scripted``).

It is a LangChain chat model that reads the ``datagen_*`` prompt it is sent (the first message of the
conversation; a retry request after it is answered the same way) and replies in the JSON each stage
asks for, built from the spans in the prompt: summaries from the spans' first lines, scenarios from the
tasks on offer, questions about one span each, answers that quote the cited spans, criteria that quote
the answers. It writes nothing a span does not hold, so its datasets pass the automatic checks; it is
labelled ``scripted`` wherever its output goes and is never a measure of a real model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from ..bench import text as tx
from ..timecodes import clock_range, format_time, parse_time
from .taxonomy import DEFAULT_QUESTION_TYPES

SCRIPTED_WRITER_VERSION = "4"
_SPAN_LINE = re.compile(r"^\[S(\d+) ([\d:]+)-([\d:]+)\] (.*)$", re.MULTILINE)
_FIELD = re.compile(r"^(kind|task|tool|difficulty|turns): (.*)$", re.MULTILINE)


class _Span:
    def __init__(self, sid: int, start: float, end: float, body: str, screen_before: list[str]):
        self.id, self.start, self.end = sid, start, end
        self.said, self.screen, self.sounds = "", [], ""
        for part in body.split(" | "):
            if part.startswith("said: "):
                self.said = part[len("said: "):].strip('"')
            elif part.startswith("on screen: "):
                rest = part[len("on screen: "):]
                self.screen = list(screen_before) if rest == "(unchanged)" else re.findall(r'"([^"]*)"', rest)
            elif part.startswith("sounds: "):
                self.sounds = part[len("sounds: "):]

    @property
    def label(self) -> str:
        return f"S{self.id}"

    @property
    def when(self) -> str:
        return format_time(self.start)

    def kinds(self) -> set[str]:
        return {k for k, v in (("speech", self.said), ("screen", self.screen), ("sound", self.sounds)) if v}

    def statement(self) -> str:
        """What the span holds, quoted."""
        parts = []
        if self.said:
            parts.append(f'it is said "{self.said}"')
        if self.screen:
            parts.append("the screen shows " + " and ".join(f'"{t}"' for t in self.screen))
        if self.sounds:
            parts.append(f"there is a {self.sounds.split(';')[0].split(' (')[0]}")
        return "; ".join(parts)

    def topic(self) -> str:
        words = [w for w in tx.tokens(self.said or " ".join(self.screen) or self.sounds) if w not in tx.STOPWORDS and not w.isdigit()]
        return " ".join(words[:3])


def _spans(prompt: str) -> list[_Span]:
    out: list[_Span] = []
    for m in _SPAN_LINE.finditer(prompt):
        previous = out[-1].screen if out else []
        out.append(_Span(int(m.group(1)), parse_time(m.group(2)), parse_time(m.group(3)), m.group(4), previous))
    return out


def _section(prompt: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}[^\n]*\n(.*?)(?=^## |\Z)", prompt, re.MULTILINE | re.DOTALL)
    return match.group(1).strip() if match else ""


def _summary(prompt: str) -> dict:
    spans = _spans(prompt)
    return {"summary": " ".join(f"Around {s.when}, {s.statement()}." for s in spans[:4])}


def _scenarios(prompt: str) -> dict:
    tasks = re.findall(r"^- (\w+): ", _section(prompt, "Task catalogue"), re.MULTILINE)
    most = int(re.search(r"at most (\d+) scenarios", prompt).group(1))
    scenarios = []
    for i in range(0, min(len(tasks), 2 * most), 2):
        pair = tasks[i : i + 2]
        scenarios.append({"scenario": f"A viewer wants to check {' and '.join(p.replace('_', ' ') for p in pair)} in this video.", "tasks": pair})
    return {"scenarios": scenarios}


def _question_types(prompt: str) -> dict:
    line = re.search(r"^tasks: (.*)$", _section(prompt, "Scenario"), re.MULTILINE).group(1)
    tasks = [t.strip() for t in line.split(",") if t.strip()]
    return {"tasks": [{"task": t, "question_types": list(DEFAULT_QUESTION_TYPES.get(t, ("direct_fact",)))[:2]} for t in tasks]}


_PREFERENCE = {
    "audio_understanding": ("speech", "sound"), "entity_recognition": ("screen",), "quantitative_reasoning": ("screen", "speech"),
    "agentic_transcribe_speech": ("speech",), "agentic_translate_speech": ("speech",), "agentic_summarize_segment": ("speech",),
    "agentic_extract_scene_text": ("screen",), "agentic_translate_text": ("screen",), "agentic_extract_math_exp": ("screen",),
    "agentic_detect_audio_events": ("sound",),
}  # fmt: skip
_ASKING = {  # how a question about a span is put, by task (the rest ask plainly)
    "temporal_understanding": "When in the video does {topic} come up, and what is said or shown then?",
    "audio_understanding": "What can be heard around {when}?",
    "summarization": "What is the gist of what happens around {when}?",
    "entity_recognition": "What is named or shown on screen around {when}?",
}


def _pick(spans: list[_Span], task: str, taken: set[str], n: int) -> list[_Span]:
    wanted = _PREFERENCE.get(task, ("speech", "screen", "sound"))
    ordered = sorted(spans, key=lambda s: (not (s.kinds() & set(wanted)), s.start))
    fresh = [s for s in ordered if s.when not in taken]
    return (fresh + [s for s in ordered if s not in fresh])[:n]


def _question_about(span: _Span, task: str) -> str:
    if task in _ASKING:
        return _ASKING[task].format(when=span.when, topic=span.topic() or "that")
    if span.said:
        return f"What is said around {span.when} about {span.topic()}?"
    if span.screen:
        return f"What does the screen show around {span.when}?"
    return f"What sound can be heard around {span.when}?"


def _numbers(spans: list[_Span]) -> list[str]:
    found = []
    for s in spans:
        for text in [s.said, *s.screen]:
            found += [f"{n:g}" for n in tx.numbers(text, words=False)]
    return list(dict.fromkeys(found)) or ["1", "2"]


def _calls(tool: str, span: _Span, spans: list[_Span], turn: int) -> tuple[str, list[dict]]:
    stamp = clock_range(span.start, span.end)
    search = {"tool": "cross_modal_search", "arguments": {"query": span.topic() or "talk", "k": 3}}
    a, b = (_numbers(spans) + ["2"])[:2]
    simple = {
        "transcribe_speech": ("What exactly is said around {t}?", {"timestamp": stamp}),
        "translate_speech": ("What is said around {t}, in French?", {"timestamp": stamp, "to_lang": "fr"}),
        "extract_scene_text": ("What text is on the screen around {t}?", {"timestamp": stamp}),
        "extract_math_exp": ("Which expression is on the screen around {t}?", {"timestamp": stamp}),
        "detect_audio_events": ("Which sound is heard around {t}?", {"timestamp": stamp}),
        "detect_activities": ("What is going on around {t}?", {"timestamp": stamp}),
        "detect_faces": ("Who appears around {t}?", {"timestamp": stamp}),
        "summarize_segment": ("Can you sum up what happens around {t}?", {"timestamp": stamp}),
        "count_objects": ("How many people are visible around {t}?", {"timestamp": stamp, "object_query": "person"}),
        "object_detection": ("Which objects are visible around {t}?", {"timestamp": stamp, "categories": ["person"]}),
        "translate_text": ("How would the text on screen around {t} read in French?", {"text": (span.screen or [span.said])[0], "to_lang": "fr"}),
        "web_search": ("What does the web say about {topic}, mentioned around {t}?", {"query": span.topic() or "talk"}),
        "cross_modal_search": ("Where in the video does {topic} come up?", {"query": span.topic() or "talk", "k": 3}),
    }
    if tool == "calculator":
        return f"What do {a} and {b} from the video add up to?", [{"tool": "calculator", "arguments": {"expression": f"{a} + {b}"}}]
    if tool == "execute_code":
        return f"If you add {a} and {b} from the video with a short program, what comes out?", [
            {"tool": "execute_code", "arguments": {"code": f"print({a} + {b})", "language": "python"}}]
    if tool == "memory_tool":
        if turn == 0:
            return f"Please remember what is said or shown around {span.when}.", [search, {"tool": "memory_tool", "arguments": {"func": "add", "data": span.statement()[:200]}}]
        return "What did I ask you to remember?", [{"tool": "memory_tool", "arguments": {"func": "search", "data": "all"}}]
    question, args = simple.get(tool, simple["transcribe_speech"])
    call = {"tool": tool if tool in simple else "transcribe_speech", "arguments": args}
    calls = [call] if tool == "cross_modal_search" else [search, call]
    return question.format(t=span.when, topic=span.topic() or "this"), calls


def _questions(prompt: str) -> dict:
    fields = dict(_FIELD.findall(_section(prompt, "Question to write")))
    kind, task, turns = fields["kind"], fields["task"], int(fields["turns"])
    difficulty = int(fields["difficulty"])
    spans = _spans(prompt)
    written = _section(prompt, "Questions already written")
    taken = set(re.findall(r"around (\d+:\d\d)", written))
    chosen = _pick(spans, task, taken, turns)
    chosen += [chosen[-1]] * (turns - len(chosen))
    out = []
    for i, span in enumerate(chosen):
        turn: dict[str, Any] = {"difficulty": difficulty, "spans": [span.label], "conversation_role": "opener" if i == 0 else "deepener",
                                "modalities": sorted({"speech" if k == "speech" else "audio" if k == "sound" else "visual" for k in span.kinds()})}  # fmt: skip
        if kind == "agentic":
            turn["question"], turn["tool_calls"] = _calls(fields["tool"], span, spans, i)
        else:
            turn["question"] = _question_about(span, task) if i == 0 else f"And what comes up around {span.when}, about {span.topic() or 'that'}?"
        out.append(turn)
    return {"turns": out}


def _result_values(prompt: str) -> list[str]:
    """The computed results in the prompt's tool results (calculator ``result``, program output)."""
    values = []
    for line in _section(prompt, "Tool results").splitlines():
        _, _, body = line.partition(" -> ")
        try:
            data = json.loads(body)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            for key in ("result", "stdout"):
                if data.get(key) not in (None, ""):
                    values.append(str(data[key]).strip())
    return values


def _answers(prompt: str) -> dict:
    spans = {s.label: s for s in _spans(prompt)}
    block = _section(prompt, "Questions to answer")
    cited = re.findall(r"\(spans the question was written from: ([^)]*)\)", block)
    results = _result_values(prompt)
    answers = []
    for labels in cited:
        chosen = [spans[x.strip()] for x in labels.split(",") if x.strip() in spans][:1] or list(spans.values())[:1]
        text = " ".join(f"Around {s.when}, {s.statement()}." for s in chosen)
        if results:
            text += f" The result is {results.pop(0)}."
        answers.append({"answer": text, "spans": [s.label for s in chosen]})
    return {"answers": answers}


def _criteria(prompt: str) -> dict:
    answer = re.search(r"^Reference answer: (.*)$", prompt, re.MULTILINE).group(1)
    facts = re.findall(r'"([^"]+)"', answer) + re.findall(r"The result is ([^ ]+?)\.?$", answer)
    facts = [f for f in facts if tx.content_words(f) or tx.numbers(f, words=False)]  # "On the" names nothing
    names = [("factual_correctness", "high_priority"), ("key_details", "medium_priority"), ("completeness", "low_priority")]
    criteria = [{"name": n, "description": f'Must mention "{f}"', "category": c, "is_penalty": False} for (n, c), f in zip(names, facts, strict=False)]
    if not criteria:
        criteria = [{"name": "factual_correctness", "description": f"Must mention {answer}", "category": "high_priority", "is_penalty": False}]
    criteria.append({"name": "hallucination", "description": "Must not include anything the video does not show or say", "category": "penalty", "is_penalty": True})
    return {"criteria": criteria}


def _rubric(answer: str) -> list[dict]:
    return _criteria(f"Reference answer: {answer}")["criteria"]


def _draft(prompt: str) -> dict:
    """The facts strategy: a question whose answer is the fact, the fact quoted, a rubric quoting it."""
    span = _spans(_section(prompt, "Fact to ask about"))[0]
    task = re.match(r"(\w+)", _section(prompt, "Task")).group(1)
    if _section(prompt, "Tool result"):
        question = _calls(task.removeprefix("agentic_"), span, [span], 0)[0]
    elif _section(prompt, "Conversation so far"):
        question = f"And what comes up around {span.when}, about {span.topic() or 'that'}?"
    else:
        question = _question_about(span, task)
    answer = f"Around {span.when}, {span.statement()}."
    return {"question": question, "answer": answer, "criteria": _rubric(answer)}


STAGE_HEADINGS: tuple[tuple[str, Callable[[str], dict]], ...] = (
    ("## Fact to ask about", _draft),
    ("## Write a summary", _summary),
    ("## Task catalogue", _scenarios),
    ("## Question type catalogue", _question_types),
    ("## Question to write", _questions),
    ("## Questions to answer", _answers),
    ("## Question and reference answer", _criteria),
)


def scripted_reply(prompt: str) -> str:
    """The scripted writer's reply to a rendered ``datagen_*`` prompt."""
    for heading, reply in STAGE_HEADINGS:
        if heading in prompt:
            return json.dumps(reply(prompt), ensure_ascii=False)
    return "This scripted writer has no reply for that prompt."


class ScriptedWriter(BaseChatModel):
    """Answers the first message of the conversation with ``reply_fn(prompt, attempt)`` (default: the
    scripted reply); ``attempt`` counts the retry requests after the prompt."""

    reply_fn: Callable[[str, int], str] | None = None
    model_name: str = f"scripted-writer-{SCRIPTED_WRITER_VERSION}"
    temperature: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "staragent-scripted-writer"

    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any
    ) -> ChatResult:
        prompt = str(messages[0].content) if messages else ""
        attempt = sum(1 for m in messages if m.type == "ai")
        reply = self.reply_fn(prompt, attempt) if self.reply_fn else scripted_reply(prompt)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])
