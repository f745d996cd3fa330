"""Fact questions on real media: the dataset kind, the scoring rule (fact + cited span, refusals only
where expected), conversations asked live, and judge-free scoring from the command line."""

import json
import re

import pytest
from click.testing import CliRunner

from staragent.bench.agents import ScriptedAgent
from staragent.bench.commands import bench
from staragent.bench.execution import run_benchmark
from staragent.bench.kinds import load_dataset
from staragent.bench.rundir import read_records
from staragent.bench.scorers.factqa import check_answer
from staragent.schema import Evidence

CASES = {
    "about": "two videos",
    "videos": {"talk": {"file": "talk.mp4", "srt": None, "no_subtitles": True}},
    "cases": [
        {"id": "price", "video": "talk", "q": "How much is the grinder?", "any": [r"\$\s?249"], "span": [10.0, 20.0], "kind": "ocr"},
        {"id": "chat", "video": "talk", "chat": ["Who is speaking?", "What did she say next?"], "any": ["weather"], "span": None, "kind": "followup"},
        {"id": "none", "video": "talk", "q": "What colour is the car?", "any": [r"\bnot\b.{0,40}\b(show|say)"], "span": None, "kind": "absent"},
    ],
}


@pytest.fixture
def dataset_file(tmp_path):
    path = tmp_path / "qa.json"
    path.write_text(json.dumps(CASES))
    (tmp_path / "talk.mp4").write_bytes(b"not decoded by these tests")
    return path


def test_a_fact_needs_its_pattern_and_a_citation_inside_the_span():
    inside, outside = [Evidence(start=12, end=15, modality="ocr", text="$249")], [Evidence(start=30, end=35, modality="ocr", text="$249")]
    assert check_answer("It costs $249.", inside, [r"\$\s?249"], [10, 20], "ocr").right
    assert not check_answer("It costs $249.", outside, [r"\$\s?249"], [10, 20], "ocr").right
    assert not check_answer("It costs $199.", inside, [r"\$\s?249"], [10, 20], "ocr").right
    assert check_answer("it costs $249", [], [r"\$\s?249"], None, "ocr").right  # no span: the fact alone


def test_saying_nothing_was_found_is_wrong_unless_a_refusal_is_expected():
    pattern = [r"\bnot\b.{0,40}\b(shown|say|found)", "nothing"]
    refusal = "I found nothing about the car's colour; the video does not show it."
    assert check_answer(refusal, [], pattern, None, "absent").right
    assert not check_answer(refusal, [], pattern, None, "ocr").right
    hedged = "On screen at 0:12: “Price: $249”. The pictures themselves are not checked by this profile."
    assert check_answer(hedged, [], [r"\$249"], None, "ocr").right  # a caveat beside the fact is no refusal


def test_the_dev_set_shape_loads_as_fact_questions(dataset_file):
    dataset = load_dataset(dataset_file)
    assert dataset.kind == "factqa" and [s.sample_id for s in dataset.samples] == ["price", "chat", "none"]
    chat = dataset.samples[1]
    assert [p.question.content for p in chat.qa_turns()] == CASES["cases"][1]["chat"]
    assert chat.meta["history"] == "live" and chat.meta["scored_turn"] == 1 and chat.meta["no_subtitles"] is True
    assert chat.video_path == str(dataset_file.parent / "talk.mp4")


def test_a_bad_case_is_named(tmp_path):
    broken = {**CASES, "cases": [{"id": "x", "video": "elsewhere", "q": "Why?", "any": ["a"], "span": None, "kind": "ocr"}]}
    (tmp_path / "qa.json").write_text(json.dumps(broken))
    with pytest.raises(Exception, match="case 1 \\(x\\) names video 'elsewhere'"):
        load_dataset(tmp_path / "qa.json")


@pytest.mark.parametrize(
    ("case", "names"),
    [
        ({"q": "And then?", "chat": ["Who is speaking?"]}, "both 'q' and 'chat'"),  # which is scored would be a guess
        ({"chat": [{"q": "Who is speaking?"}, {"q": "And then?"}]}, "list of question strings"),
    ],
)
def test_a_follow_up_case_in_the_wrong_form_is_refused_with_the_form_to_use(tmp_path, case, names):
    broken = {**CASES, "cases": [{"id": "x", "video": next(iter(CASES["videos"])), "any": ["a"], "kind": "followup", **case}]}
    (tmp_path / "qa.json").write_text(json.dumps(broken))
    with pytest.raises(Exception, match=re.escape(names)):
        load_dataset(tmp_path / "qa.json")


class Conversant(ScriptedAgent):
    """Answers from a table, and remembers what each turn was given."""

    def __init__(self, answers, fail_once=None):
        super().__init__(lambda question, *_: answers[question], name="conversant", use_tools=False)
        self.seen, self.fail_once = [], fail_once

    def respond(self, video, history, question, *, sample, turn):
        self.seen.append((sample["sample_id"], turn, sample["bench"].get("thread"), [h["content"] for h in history]))
        if question == self.fail_once:
            self.fail_once = None
            raise KeyboardInterrupt  # the run is stopped in the middle of a conversation
        return super().respond(video, history, question, sample=sample, turn=turn)


ANSWERS = {
    "How much is the grinder?": "It costs $249.",
    "Who is speaking?": "Ana Ruiz.",
    "What did she say next?": "She talked about the weather.",
    "What colour is the car?": "The video does not show a car.",
}


def test_a_conversation_is_asked_live_in_one_thread_and_resumed_from_its_start(dataset_file, tmp_path):
    dataset = load_dataset(dataset_file)
    agent = Conversant(ANSWERS, fail_once="What did she say next?")
    with pytest.raises(KeyboardInterrupt):
        run_benchmark(dataset, agent, tmp_path / "run")
    first_thread = agent.seen[1][2]
    assert agent.seen[1][:2] == ("chat", 0) and first_thread and agent.seen[2][2] == first_thread
    assert agent.seen[2][3] == ["Who is speaking?", "Ana Ruiz."]  # the agent's own answer, not a reference
    run_benchmark(dataset, agent, tmp_path / "run")
    again = [s for s in agent.seen[3:] if s[0] == "chat"]
    assert [s[1] for s in again] == [0, 1] and again[0][2] != first_thread  # the whole conversation, afresh
    records = {r.key: r for r in read_records(tmp_path / "run" / "trajectories.jsonl")}
    assert records[("chat", 1)].answer == "She talked about the weather." and len(records) == 4


def test_fact_questions_are_scored_without_a_judge(dataset_file, tmp_path):
    dataset = load_dataset(dataset_file)
    answers = {**ANSWERS, "How much is the grinder?": "It costs $199."}
    run_benchmark(dataset, Conversant(answers), tmp_path / "run")
    result = CliRunner().invoke(bench, ["score", str(tmp_path / "run"), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)["metrics"]["factqa"]
    assert (summary["n"], summary["right"]) == (3, 2)
    assert summary["by_kind"]["ocr"]["right"] == 0 and summary["by_kind"]["followup"]["right"] == 1
    assert summary["by_video"]["talk"] == {"n": 3, "right": 2, "accuracy": 66.7}
