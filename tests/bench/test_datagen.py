"""Building a STARBench-style dataset from a video: the pipeline with the scripted writer, what its
stages cache and resume, how unusable replies and tool calls are sent back, the automatic checks, the
review round trip, and the dataset that `bench run` and `bench score` read."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from staragent.bench.harness_errors import DatagenError
from staragent.bench.kinds import load_dataset
from staragent.bench.sample_records import Criterion, Sample
from staragent.bench.tasks import CANONICAL_TASKS
from staragent.cli import main
from staragent.config import load_settings
from staragent.datagen import Options, generate
from staragent.datagen.checks import check_sample, find_duplicates
from staragent.datagen.describe import Span
from staragent.datagen.finalize import finalize
from staragent.datagen.llm import Usage, Writer, writer_identity
from staragent.datagen.replies import CriteriaReply, QuestionsReply
from staragent.datagen.review import import_decisions, load_decisions
from staragent.datagen.scripted import ScriptedWriter, scripted_reply
from staragent.datagen.toolbox import ToolBox


class Recording(BaseChatModel):
    """A chat model that answers with ``reply(messages)`` and keeps every conversation it was sent, and
    the temperature each was asked at (None: the model's own)."""

    reply: object
    seen: list = []
    temperatures: list = []

    @property
    def _llm_type(self) -> str:
        return "recording"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(messages))
        self.temperatures.append(kwargs.get("temperature"))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply(messages)))])


def scripted_counting(calls: list):
    """The scripted writer, noting each prompt it answers (to count what a run really asks)."""

    def reply(prompt: str, attempt: int) -> str:
        calls.append(prompt)
        return scripted_reply(prompt)

    return ScriptedWriter(reply_fn=reply)


@pytest.fixture
def dg_settings(session_cache):
    return load_settings(cache_dir=session_cache, progress=False)


@pytest.fixture(scope="module")
def generated(tmp_path_factory, foreign, session_cache):
    """One scripted run over the conference video: its output folder and what each video returned."""
    out = tmp_path_factory.mktemp("datagen")
    settings = load_settings(cache_dir=session_cache, progress=False)
    results = generate([foreign.path], out, Options(model="scripted", strategy="windows", per_video=6), settings)
    finalize(out, review=True)
    return out, results


def test_a_scripted_run_writes_a_dataset_of_every_kind_with_grounded_answers(generated, foreign, registry):
    out, results = generated
    assert [r.ok for r in results] == [True]
    data = load_dataset(out / "dataset.json")
    kinds = {s.meta["kind"] for s in data.samples}
    assert kinds == {"single", "multi", "agentic"}
    assert all(s.meta["status"] != "fail" for s in data.samples)
    spans = {s["id"]: s for s in json.loads(next((out / "videos").glob("*/describe.json")).read_text())["spans"]}
    for sample in data.samples:
        assert sample.video_path == str(foreign.path.resolve()) and sample.duration == pytest.approx(foreign.duration, abs=0.5)
        if sample.meta["kind"] == "agentic":
            assert sample.task.startswith("agentic_") and sample.is_agentic
        else:
            assert sample.task in CANONICAL_TASKS
        if sample.meta["kind"] == "multi":
            assert len(sample.qa_turns()) >= 2 and sample.sample_type == "multi_turn"
        for pair in sample.qa_turns():
            cited = [e["segment"] for e in pair.answer.evidence]
            assert cited and all(c in spans for c in cited)
            quoted = re.findall(r'"([^"]+)"', pair.answer.content)
            assert quoted and all(any(q in s["speech"] or q in s["screen"] for s in (spans[c] for c in cited)) for q in quoted)
            assert 1 <= pair.question.difficulty <= 5
            weights = {c.category: c.weight for c in pair.answer.criteria}
            assert weights.get("high_priority") == 5 and weights.get("penalty") == -5
            for call in pair.answer.tool_calls:  # names and arguments the real tools accept
                registry.get(call.tool).parse_args(call.parameters)
                assert call.expected_response is not None


def test_agentic_responses_come_from_running_the_tools_on_the_video(generated):
    data = load_dataset(generated[0] / "dataset.json")
    calls = [c for s in data.samples for p in s.qa_turns() for c in p.answer.tool_calls]
    transcripts = [c.expected_response["transcript"] for c in calls if c.tool == "transcribe_speech"]
    screens = [c.expected_response["texts"] for c in calls if c.tool == "extract_scene_text"]
    said = " ".join(transcripts) + " " + " ".join(t for texts in screens for t in texts)
    assert transcripts or screens
    assert any(words in said for words in ("five year warranty", "Nairobi", "Attendance grew", "Price: $129.50", "Dr. Amara Singh"))


def test_bench_runs_and_scores_the_generated_dataset(generated, tmp_path):
    from staragent.bench.commands import bench

    dataset, run = generated[0] / "dataset.json", tmp_path / "run"
    runner = CliRunner()
    ran = runner.invoke(bench, ["run", str(dataset), "--agent", "scripted", "--out", str(run)])
    assert ran.exit_code == 0, ran.output
    scored = runner.invoke(bench, ["score", str(run), "--judge", "heuristic", "--json"])
    assert scored.exit_code == 0, scored.output
    metrics = json.loads(scored.output)["metrics"]
    rubric = metrics["rubric"]["released"]
    assert rubric["turns"] == sum(len(s.qa_turns()) for s in load_dataset(dataset).samples)
    assert rubric["overall"] == pytest.approx(100.0)  # the oracle states every reference fact its rubric asks for
    assert metrics["trajectory"]["score"] == pytest.approx(100.0)


def test_a_second_run_asks_nothing_and_a_new_option_redoes_only_what_depends_on_it(generated, foreign, dg_settings, tmp_path):
    out = tmp_path / "again"
    generate([foreign.path], out, Options(model="scripted", strategy="windows", per_video=4), dg_settings)
    asked: list = []
    model = scripted_counting(asked)
    writer = Writer(model, writer_identity(model, "scripted"), out / ".cache" / "writer")
    from staragent.datagen.pipeline import generate_video

    again = generate_video(foreign.path, "conference", out, Options(model="scripted", strategy="windows", per_video=4), dg_settings, writer, lambda m: None)
    assert again.ok and asked == []
    more = generate_video(foreign.path, "conference", out, Options(model="scripted", strategy="windows", per_video=5), dg_settings, writer, lambda m: None)
    assert more.ok and more.samples == 5
    assert not any("## Write a summary" in p or "## Task catalogue" in p for p in asked)  # summaries, scenarios: kept
    assert sum("## Question to write" in p for p in asked) == 1  # the four samples planned before are kept as they were
    assert sum("## Questions to answer" in p for p in asked) == 1


def test_a_killed_run_resumes_without_asking_again_what_it_had(foreign, dg_settings, tmp_path):
    from staragent.datagen.pipeline import generate_video

    out = tmp_path / "killed"
    identity = writer_identity(ScriptedWriter(), "scripted")
    asked: list = []

    def dies(prompt, attempt):
        if "## Questions to answer" in prompt and sum("## Questions to answer" in p for p in asked) == 2:
            raise KeyboardInterrupt  # killed in the middle of the answers stage
        asked.append(prompt)
        return scripted_reply(prompt)

    options = Options(model="scripted", strategy="windows", per_video=4)
    with pytest.raises(KeyboardInterrupt):
        generate_video(foreign.path, "conference", out, options, dg_settings, Writer(ScriptedWriter(reply_fn=dies), identity, out / "cache"), lambda m: None)
    before = list(asked)
    asked.clear()
    done = generate_video(foreign.path, "conference", out, options, dg_settings, Writer(scripted_counting(asked), identity, out / "cache"), lambda m: None)
    assert done.ok and done.samples == 4
    assert not set(asked) & set(before)  # nothing answered before the kill is asked again
    assert sum("## Questions to answer" in p for p in asked) == 4 - 2


def test_an_unusable_reply_goes_back_with_its_problem_and_a_hopeless_one_is_given_up(tmp_path):
    attempts = []

    def reply(messages):
        attempts.append(messages)
        return "Sure! Here are the criteria:" if len(attempts) == 1 else json.dumps(
            {"criteria": [{"name": "factual_correctness", "description": 'Must mention "Nairobi"', "category": "high_priority"}]}
        )

    model = Recording(reply=reply, seen=[], temperatures=[])
    writer = Writer(model, writer_identity(model, "recording"))
    usage = Usage()
    value, error = writer.ask("write criteria", CriteriaReply, usage)
    assert error is None and [c.name for c in value.criteria] == ["factual_correctness", "hallucination"]
    first, retry = model.temperatures  # a retry is sampled: a greedy small model would repeat its reply
    assert first is None and retry > 0
    assert value.criteria[-1].is_penalty and value.criteria[-1].weight == -5
    second = attempts[1]
    assert second[1].content == "Sure! Here are the criteria:" and "JSON" in second[2].content
    assert usage.calls == 2 and usage.retries == 1 and usage.failures == 0 and usage.input_tokens > 0

    always = Recording(reply=lambda m: '{"criteria": []}', seen=[])
    usage = Usage()
    value, error = Writer(always, writer_identity(always, "x"), tmp_path, max_retries=1).ask("write criteria", CriteriaReply, usage)
    assert value is None and "high_priority" in error and usage.failures == 1 and usage.calls == 2
    rejected = [json.loads(line) for line in (tmp_path / "rejected.jsonl").read_text().splitlines()]
    assert [r["attempt"] for r in rejected] == [1, 2] and all("high_priority" in r["error"] for r in rejected)


def test_a_server_that_does_not_answer_stops_the_run_with_what_to_do():
    from staragent.datagen.llm import WriterError

    class Down(Recording):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            raise ConnectionError("connection refused")

    model = Down(reply=None, seen=[])
    writer = Writer(model, {**writer_identity(model, "openai"), "endpoint": "http://127.0.0.1:9/v1"}, transport_retries=1, sleep=lambda s: None)
    with pytest.raises(WriterError, match=r"127\.0\.0\.1:9.*staragent llm serve"):
        writer.ask("anything", CriteriaReply, Usage())


def test_tool_calls_must_be_ones_the_tools_accept(registry, dg_settings):
    box = ToolBox(registry, dg_settings, None, duration=38.0)
    context = {"kind": "agentic", "turns": (1, 2), "spans": {0, 1}, "tool": "calculator", "check_call": box.check}

    def turn(calls):
        return {"turns": [{"question": "What do the two prices add up to?", "spans": ["S0"], "tool_calls": calls}]}

    ok = QuestionsReply.model_validate(turn([{"name": "calculator", "parameters": {"expression": "129.5 + 20"}}]), context=context)
    assert ok.turns[0].tool_calls[0].arguments == {"expression": "129.5 + 20"}
    problems = [
        ([{"tool": "calculate", "arguments": {"expression": "1+1"}}], "no tool called 'calculate'"),
        ([{"tool": "calculator", "arguments": {}}], "expression"),
        ([{"tool": "transcribe_speech", "arguments": {"timestamp": "00:01:00-00:01:30"}}], "after the video ends"),
        ([{"tool": "cross_modal_search", "arguments": {"query": "price"}}], "must include calculator"),
    ]
    for calls, message in problems:
        with pytest.raises(ValueError, match=message):
            QuestionsReply.model_validate(turn(calls), context=context)
    with pytest.raises(ValueError, match="S7"):
        QuestionsReply.model_validate({"turns": [{"question": "Who spoke?", "spans": ["S7"], "tool_calls": [{"tool": "calculator", "arguments": {"expression": "1"}}]}]}, context=context)
    with pytest.raises(ValueError, match="span label"):
        QuestionsReply.model_validate({"turns": [{"question": "What is said in S0?", "spans": ["S0"]}]}, context={"kind": "single", "turns": (1, 1)})


def _sample(answer: str, criteria: list[Criterion], question: str = "What does the grinder's warranty cover?") -> Sample:
    return Sample(sample_id="x", video_id="v", conversations=[
        {"role": "user", "content": question, "key_segments": [0]},
        {"role": "assistant", "content": answer, "criteria": criteria, "evidence": [{"segment": 0, "start": 0, "end": 4}]},
    ])  # fmt: skip


SPANS = {0: Span(id=0, start=0.0, end=4.0, speech="This grinder has a five year warranty.", screen=["Price: $129.50"])}
GOOD = [Criterion(name="factual_correctness", description='Must mention "five year warranty"', category="high_priority", weight=5),
        Criterion(name="hallucination", description="Must not include anything else", category="penalty", weight=-5)]  # fmt: skip


def test_checks_catch_unsupported_answers_late_times_and_rubrics_that_do_not_total():
    def errors(sample):
        return {c.name for c in check_sample(sample, SPANS, 38.0) if c.level == "error"}

    assert errors(_sample("It has a five year warranty and costs $129.50.", GOOD)) == set()
    assert errors(_sample("It has a five year warranty and costs $99.", GOOD)) == {"support"}  # a price no span gives
    assert errors(_sample("Espresso machines rarely break in Lisbon cafes.", GOOD)) == {"support"}
    assert errors(_sample("A five year warranty, as said at 12:40.", GOOD)) == {"timestamps"}  # the video is 38 s long
    capped = [GOOD[0], Criterion(name="contradiction", description="Must not contradict itself", category="penalty", is_penalty=True, weight=5)]
    assert errors(_sample("It has a five year warranty.", capped)) == {"criteria"}  # a positive penalty caps the released score
    assert errors(_sample("It has a five year warranty.", [])) == {"criteria"}
    vague = [Criterion(name="key_details", description='Must mention "and"', category="high_priority", weight=5)]
    assert errors(_sample("It has a five year warranty and a price.", vague)) == {"criteria"}
    dupes = find_duplicates([("a", "What is on screen around 0:04?"), ("b", "what is on the screen around 0:04"), ("c", "What is on screen around 0:20?"),
                             ("d", "What is the name of the scooter shown on screen?"), ("e", "What is the name of the hotel shown on screen?"),
                             ("f", "Which hotel's name is shown on the screen?")])  # fmt: skip
    assert dupes == {"b": "a", "f": "e"}


def test_review_round_trip_rejects_edits_and_overrules(generated, tmp_path):
    import shutil

    out = tmp_path / "reviewed"
    shutil.copytree(generated[0], out)
    with open(out / "review" / "review.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    ids = list(dict.fromkeys(r["sample_id"] for r in rows))
    rejected, edited = ids[0], ids[1]
    for row in rows:
        if row["sample_id"] == rejected:
            row["decision"] = "reject"
        if row["sample_id"] == edited and row["turn"] == "0":
            row["decision"], row["answer_edit"] = "accept", row["answer"] + " That is what the talk says."
            row["criteria_edit"] = "high_priority | key_fact | Must mention the speaker\npenalty | hallucination | Must not invent anything"
    with open(tmp_path / "decisions.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    known = {s.sample_id: s for s in load_dataset(generated[0] / "dataset.json").samples}
    counts = import_decisions(out, tmp_path / "decisions.csv", known)
    assert counts["rejected"] == 1 and counts["accepted"] == 1 and counts["edited"] == 1
    summary = finalize(out, reviewed_only=True)
    final = load_dataset(out / "dataset.json").samples
    assert [s.sample_id for s in final] == [edited] and summary["samples"] == 1
    pair = final[0].qa_turns()[0]
    assert pair.answer.content.endswith("That is what the talk says.")
    assert [(c.name, c.weight) for c in pair.answer.criteria] == [("key_fact", 5), ("hallucination", -5)]
    assert final[0].meta["review"]["decision"] == "accept"
    assert rejected not in {s.sample_id for s in load_dataset(Path(finalize(out)["dataset"])).samples}

    bad = tmp_path / "bad.csv"
    bad.write_text("sample_id,turn,decision\nnope-s99,0,accept\n", encoding="utf-8")
    with pytest.raises(DatagenError, match="nope-s99"):
        import_decisions(out, bad, known)
    bad.write_text(f"sample_id,turn,decision\n{edited},0,maybe\n", encoding="utf-8")
    with pytest.raises(DatagenError, match="maybe"):
        import_decisions(out, bad, known)
    assert load_decisions(out)[edited]["decision"] == "accept"  # a refused file changes nothing


def test_the_review_page_holds_every_question_and_the_decision_controls(generated):
    page = (generated[0] / "review" / "review.html").read_text(encoding="utf-8")
    data = load_dataset(generated[0] / "dataset.json")
    for sample in data.samples:
        assert f'data-id="{sample.sample_id}"' in page
    assert "download decisions.csv" in page and 'value="reject"' in page


def test_the_cli_generates_with_datagen_video_and_refuses_a_profile_without_a_writer(foreign, session_cache, tmp_path):
    runner = CliRunner()
    base = ["--quiet", "--cache-dir", str(session_cache), "datagen"]
    offline = runner.invoke(main, [*base, str(foreign.path), "--out", str(tmp_path / "o")])
    assert offline.exit_code == 2 and "--model" in offline.output and "Traceback" not in offline.output
    typo = runner.invoke(main, [*base, str(foreign.path), "--out", str(tmp_path / "o"), "--model", "scripted", "--tasks", "causal_reasonin"])
    assert typo.exit_code == 2 and "causal_reasonin" in typo.output
    missing = runner.invoke(main, [*base, str(tmp_path / "nope.mp4"), "--out", str(tmp_path / "m"), "--model", "scripted"])
    assert missing.exit_code == 2 and "nope.mp4" in missing.output and isinstance(missing.exception, SystemExit)
    done = runner.invoke(main, [*base, str(foreign.path), "--out", str(tmp_path / "o"), "--model", "scripted", "--per-video", "3",
                                "--strategy", "windows", "--tasks", "information,agentic_calculator", "--json"])  # fmt: skip
    assert done.exit_code == 0, done.output
    result = json.loads(done.output)
    tasks = set(result["tasks"])
    assert tasks and tasks <= {"information_retrieval", "summarization", "instruction_extraction", "sentiment_analysis", "agentic_calculator"}
    assert result["usage"]["total"]["input_tokens"] > 0 and result["usage"]["questions"]["calls"] == 3


def test_many_videos_go_through_ray_and_a_bad_file_does_not_stop_the_others(tmp_path, session_cache):
    from media_factory import Cue, Slide, Sound, make_video

    folder = tmp_path / "videos"
    folder.mkdir()
    make_video(folder / "one.mp4", [Slide(5, ["Ticket price: 48 EUR"])], [Sound(0.5, 4, "speech")],
               [Cue(0.5, 4, "Doors open at seven.")], subtitles="srt")  # fmt: skip
    make_video(folder / "two.mp4", [Slide(5, ["Hall C seats 1,250"])], [Sound(1, 2, "tone")], subtitles=None)
    (folder / "broken.mp4").write_text("not a video")
    from staragent.index.batch import expand_videos

    settings = load_settings(cache_dir=session_cache, progress=False)
    results = generate(expand_videos([folder]), tmp_path / "out", Options(model="scripted", per_video=2), settings, workers=2)
    by_name = {Path(r.video).name: r for r in results}
    assert not by_name["broken.mp4"].ok and "not a video" in by_name["broken.mp4"].error
    assert by_name["one.mp4"].ok and by_name["two.mp4"].ok
    summary = finalize(tmp_path / "out")
    assert summary["videos"] == 2 and {s.video_id for s in load_dataset(summary["dataset"]).samples} == {"one", "two"}


def test_each_prompt_shows_an_example_reply_its_stage_accepts(registry, dg_settings):
    from staragent.datagen import replies
    from staragent.prompts import render

    box = ToolBox(registry, dg_settings)
    common = {"spans": "[S0 0:00-0:04] said: \"Hello\"", "start": "0:00", "end": "0:04", "duration": "0:38", "scenario": "A viewer"}
    cases = [
        ("datagen_summarize", replies.SummaryReply, common),
        ("datagen_scenarios", replies.ScenariosReply, {"max_scenarios": 2, "duration": "0:38", "modalities": "has speech",
                                                       "overview": "[0:00-0:38] a talk", "tasks": [("causal_reasoning", "why")]}),
        ("datagen_question_types", replies.QuestionTypesReply, {"scenario": "A viewer", "tasks": ["summarization"],
                                                                "catalogue": [("factual", ("direct_fact",))]}),
        ("datagen_answers", replies.AnswersReply, {**common, "tool_results": "", "turns": [{"question": "Why?", "spans": ["S0"]}]}),
        ("datagen_criteria", replies.CriteriaReply, {"question": "Why?", "answer": "Because.", "tool_calls": ""}),
    ]  # fmt: skip
    for kind in ("single", "agentic"):
        cases.append(("datagen_questions", replies.QuestionsReply, {
            **common, "kind": kind, "turns": 1, "difficulty": 3, "task": "agentic_calculator", "task_guide": "numbers",
            "question_types": [], "tool": "calculator", "tool_lines": [box.line("calculator")], "written": [], "example_span": "S0",
            "example_args": box.example_arguments("calculator", 0, 4)}))  # fmt: skip
    for name, model, variables in cases:
        example = [line for line in render(name, **variables).splitlines() if line.startswith("{")][-1]
        model.model_validate(json.loads(example))


def test_scenarios_must_pick_offered_tasks_and_not_repeat_each_other():
    from staragent.datagen.replies import ScenariosReply

    context = {"tasks": {"entity_recognition", "event_understanding", "summarization"}, "max_scenarios": 3}
    same = {"scenarios": [{"scenario": "a", "tasks": ["entity_recognition"]}, {"scenario": "b", "tasks": ["Entity Recognition"]}]}
    with pytest.raises(ValueError, match="repeats the tasks"):
        ScenariosReply.model_validate(same, context=context)
    with pytest.raises(ValueError, match="not a task of the catalogue"):
        ScenariosReply.model_validate({"scenarios": [{"scenario": "a", "tasks": ["motion_analysis"]}]}, context=context)
    raw = ScenariosReply.model_validate({"scenarios": [{"scenario": "a", "tasks": ["ocr_text_extraction", "summarization"]}]}, context=context)
    assert raw.scenarios[0].tasks == ["entity_recognition", "summarization"]  # the paper's raw names fold into the canonical ones


def test_replies_with_a_stray_closing_bracket_are_read_and_broken_ones_say_where():
    from staragent.datagen.llm import parse_reply

    stray = ('```json\n{"turns": [{"question": "What is the grinder called?", "spans": ["S0"],\n'
             ' "tool_calls": [{"tool": "transcribe_speech", "arguments": {"timestamp": "00:00:00-00:00:05"}}]}\n }\n]}\n```')  # a 1.5B model wrote this
    reply = parse_reply(stray, QuestionsReply)
    assert reply.turns[0].question == "What is the grinder called?" and reply.turns[0].spans == [0]
    with pytest.raises(ValueError, match=r"line 1 column \d+, near"):
        parse_reply('{"criteria": [{"name": "x" "description": "Must mention y"', CriteriaReply)
