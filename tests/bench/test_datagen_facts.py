"""Datagen's facts strategy (evidence first): distinct facts spread over the video and its kinds of
evidence, one writer call per fact, a repeated question or a failed check repaired by the next fact
rather than by asking again, and the yield's bookkeeping (passed, agentic, multi-turn)."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from staragent.bench.sample_records import Sample
from staragent.datagen.describe import Description, Span, windows_of
from staragent.datagen.drafting import FactDrafter, Slot, plan_slots, yield_of
from staragent.datagen.facts import facts_of, spread_order
from staragent.datagen.finalize import yield_summary
from staragent.datagen.llm import Usage, Writer, writer_identity

NOUNS = ["harbour", "lighthouse", "orchard", "glacier", "market", "castle", "bakery", "bridge", "chapel", "meadow", "quarry", "tavern", "mill", "forge", "abbey", "pier", "ferry", "garden", "library", "museum", "theatre", "station", "tower", "vineyard", "farm", "cottage", "canal", "dock", "barn", "pond", "brewery", "fountain", "gallery", "school", "hotel", "inn", "kiln", "lodge", "manor", "orangery", "pavilion", "rectory", "smithy", "tannery", "warehouse", "windmill", "yard", "zoo"]
RUBRIC = [{"name": "factual_correctness", "description": "Must mention {key}", "category": "high_priority"}]


def _video(minutes: int = 4) -> Description:
    """A talk with a line said every 10 s, a title card that stays up for its first minute, a bell at
    2:00 and a line said twice."""
    spans = []
    for i in range(minutes * 6):
        start = i * 10.0
        said = f"The {NOUNS[2 * i]} beside the {NOUNS[2 * i + 1]} opened in {1900 + i}"
        spans.append(Span(id=i, start=start, end=start + 9.0, speech=said, screen=["Readings from the coast"] if i < 6 else [],
                          sounds="bell" if start == 120.0 else ""))  # fmt: skip
    spans.append(Span(id=len(spans), start=minutes * 60.0, end=minutes * 60.0 + 5, speech=spans[3].speech))  # said again
    duration = minutes * 60.0 + 5
    return Description(video="talk.mp4", video_id="talk", duration=duration, index_dir="idx", spans=spans, windows=windows_of(spans, 3000))


def test_facts_are_distinct_and_the_first_ones_spread_over_the_video_and_its_kinds_of_evidence():
    desc = _video()
    facts = facts_of(desc)
    texts = [f.text for f in facts]
    assert texts.count("Readings from the coast") == 1  # a card that stays up is one fact
    assert texts.count(desc.spans[3].speech) == 1  # so is a line said twice
    assert {f.modality for f in facts} == {"speech", "screen", "sound"}
    order = spread_order(facts, desc.duration)
    assert sorted(f.id for f in order) == sorted(f.id for f in facts)  # every fact stays, as a reserve
    first = order[:8]
    quarters = {int(f.middle() // (desc.duration / 4)) for f in first}
    assert quarters == {0, 1, 2, 3}
    assert {f.modality for f in first} == {"speech", "screen", "sound"}  # the rare kinds are not left to the end


def test_the_plan_keeps_the_kinds_proportions_and_a_longer_plan_starts_with_the_shorter_one():
    six = plan_slots(["single", "multi", "agentic"], 6)
    assert [s.kind for s in six].count("single") == 3 and {s.kind for s in six} == {"single", "multi", "agentic"}
    assert plan_slots(["single", "multi", "agentic"], 9)[:6] == six
    assert [s.turns for s in six if s.kind == "multi"] == [2] * [s.kind for s in six].count("multi")


class Stub(BaseChatModel):
    """A writer answering ``reply(fact line, attempt)``, the fact read from the prompt; keeps the facts
    it was asked about."""

    reply: object
    asked: list = []

    @property
    def _llm_type(self) -> str:
        return "stub"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        prompt = str(messages[0].content)
        fact = prompt.split("## Fact to ask about", 1)[1].splitlines()[1]
        self.asked.append(fact)
        text = self.reply(fact, sum(1 for m in messages if m.type == "ai"))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def _quoted(fact_line: str) -> str:
    return re.search(r'"([^"]+)"', fact_line).group(1) if '"' in fact_line else fact_line.rsplit("sounds: ", 1)[-1]


def _faithful(question: str):
    """Replies that state the fact, asked with ``question`` (a template over the fact's time)."""

    def reply(fact_line: str, attempt: int) -> str:
        when = re.match(r"\[S\d+ ([\d:]+)", fact_line).group(1)
        words = _quoted(fact_line)
        criteria = [{**RUBRIC[0], "description": f"Must mention {words}"}]
        return json.dumps({"question": question.format(when=when, words=words), "answer": f"Around {when}: {words}.", "criteria": criteria})

    return reply


class Tools:
    """The toolbox seen by the drafter: accepts every call and reads the fact's span back."""

    def __init__(self, desc: Description):
        self.desc = desc
        self.calls = []

    def check(self, name, arguments):
        return arguments

    def run_calls(self, calls):
        self.calls += calls
        return [{"response": {"transcript": " ".join(s.text() for s in self.desc.spans)}, "verified": True, "note": None} for _ in calls]


def _drafter(desc: Description, model: BaseChatModel, **kw) -> FactDrafter:
    writer = Writer(model, writer_identity(model, "stub"), max_retries=0)
    usage = Usage()
    run = SimpleNamespace(
        ask=lambda prompt, reply_model, context=None: writer.ask(prompt, reply_model, usage, context),
        toolbox=Tools(desc), options=SimpleNamespace(min_support=0.5), writer=writer,
    )  # fmt: skip
    tasks = ["information_retrieval", "audio_understanding", "entity_recognition", "temporal_understanding"]
    return FactDrafter(run, desc, spread_order(facts_of(desc), desc.duration), tasks=tasks, tools=["transcribe_speech"], max_repairs=kw.get("max_repairs", 3))


def test_a_repeated_question_moves_on_to_the_next_fact_instead_of_asking_again():
    desc = _video()
    model = Stub(reply=_faithful("What is this part of the talk about?"), asked=[])  # the same words whatever the fact
    drafter = _drafter(desc, model)
    first = drafter.write(Slot("s00", "single", 3))
    second = drafter.write(Slot("s01", "single", 3))
    assert first is not None and first.meta.get("kind") == "single"
    outcomes = [(a.slot, a.outcome) for a in drafter.attempts]
    assert outcomes[0] == ("s00", "kept")
    assert [o for s, o in outcomes if s == "s01"] == ["duplicate"] * 4  # each repair is a new fact, never the same one again
    assert len(model.asked) == len(set(model.asked)) == 5
    assert second is not None  # its last draft is kept, to fail the checks in the open
    assert yield_of(drafter.attempts) == {"tried": 5, "kept": 1, "moved_on": {"duplicate": 4}}

    varied = Stub(reply=_faithful("What is said or shown around {when} about {words}?"), asked=[])
    drafter = _drafter(desc, varied)
    samples = [drafter.write(Slot(f"s{i:02d}", "single", 3)) for i in range(4)]
    assert all(a.kept for a in drafter.attempts) and len(varied.asked) == 4
    starts = [s.conversations[1].evidence[0]["start"] for s in samples]
    assert max(starts) - min(starts) > desc.duration / 2  # the samples are spread over the video


def test_an_unsupported_answer_is_repaired_by_the_next_fact_and_a_follow_up_takes_the_next_moment():
    desc = _video()
    faithful = _faithful("What is said or shown around {when} about {words}?")
    invented = {"count": 0}

    def reply(fact_line: str, attempt: int) -> str:
        if invented["count"] == 0:  # the first draft states what no span holds
            invented["count"] += 1
            return json.dumps({"question": "Who built the windmill?", "answer": "Engineers from Utrecht built the windmill in 1820.",
                               "criteria": [{**RUBRIC[0], "description": "Must mention Utrecht"}]})  # fmt: skip
        return faithful(fact_line, attempt)

    model = Stub(reply=reply, asked=[])
    drafter = _drafter(desc, model)
    sample = drafter.write(Slot("m00", "multi", 4))
    assert [a.outcome for a in drafter.attempts] == ["support", "kept", "kept"]
    assert sample.is_multi_turn and len(sample.qa_turns()) == 2
    opener, follow_up = (p.answer.evidence[0]["start"] for p in sample.qa_turns())
    assert opener < follow_up <= opener + 20  # the follow-up is about the next moment, not a random one
    agentic = drafter.write(Slot("a01", "agentic", 3))
    assert agentic.is_agentic and agentic.meta["tool"] == "transcribe_speech"
    assert agentic.qa_turns()[0].answer.tool_calls[0].expected_response is not None


def _row(kind: str, status: str, turns: int = 1, tool: bool = False) -> Sample:
    conversations = []
    for i in range(turns):
        calls = [{"tool": "transcribe_speech", "parameters": {"timestamp": "00:00:00-00:00:05"}}] if tool else []
        conversations += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}", "tool_calls": calls}]
    return Sample(sample_id=f"{kind}-{status}-{turns}", video_id="v", conversations=conversations,
                  sample_type="multi_turn" if turns > 1 else "single_turn", meta={"kind": kind, "status": status})  # fmt: skip


def test_the_yield_counts_what_passed_and_how_many_of_those_are_agentic_and_multi_turn():
    samples = [_row("single", "pass"), _row("single", "fail"), _row("multi", "flagged", 2), _row("multi", "fail", 2),
               _row("agentic", "pass", tool=True), _row("agentic", "fail", tool=True)]  # fmt: skip
    assert yield_summary(samples) == {"generated": 6, "passed": 3, "passed_share": 0.5, "agentic": 1, "multi_turn": 1}
    assert yield_summary([]) == {"generated": 0, "passed": 0, "passed_share": 0.0, "agentic": 0, "multi_turn": 0}


def test_a_scripted_run_on_a_video_yields_every_kind_from_distinct_facts(foreign, session_cache, tmp_path):
    from staragent.config import load_settings
    from staragent.datagen import Options, generate
    from staragent.datagen.finalize import finalize

    out = tmp_path / "facts"
    results = generate([foreign.path], out, Options(model="scripted", per_video=6), load_settings(cache_dir=session_cache, progress=False))
    assert [r.ok for r in results] == [True] and set(results[0].usage) == {"describe", "facts", "drafts", "samples"}
    made = finalize(out)["yield"]
    assert made["generated"] == 6 and made["passed"] >= 5 and made["agentic"] >= 1 and made["multi_turn"] >= 1
    drafts = json.loads(next((out / "videos").glob("*/drafts.json")).read_text())
    facts = [a["fact"] for a in drafts["attempts"]]
    assert len(facts) == len(set(facts))  # no fact is asked about twice
    assert drafts["yield"]["tried"] == len(drafts["attempts"])
