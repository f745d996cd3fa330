from __future__ import annotations

import threading
import time

import pytest

from staragent.bench.harness_errors import JudgeSpecError
from staragent.bench.judges import HeuristicJudge, LLMJudge, ScriptedChatModel, make_judge, require_llm
from staragent.bench.judges.client import JudgeClient, JudgeIdentity
from staragent.bench.judges.parsing import (
    parse_criterion_verdict,
    parse_dimension_scores,
    parse_pairwise,
    parse_rating,
)
from staragent.bench.sample_records import Criterion


def test_criterion_verdict_parsing():
    assert parse_criterion_verdict('{"criteria_met": true, "explanation": "ok"}') == {"criteria_met": True, "explanation": "ok"}
    fenced = '<think>{"criteria_met": true}</think>\nSure.\n```json\n{"criteria_met": "no", "reason": "missing"}\n```'
    assert parse_criterion_verdict(fenced) == {"criteria_met": False, "explanation": "missing"}
    assert parse_criterion_verdict("criteria_met: false because ...")["criteria_met"] is False
    assert parse_criterion_verdict("The answer is probably fine.") is None
    assert parse_criterion_verdict("") is None


def test_rating_parsing_takes_the_last_marker_in_range():
    assert parse_rating("Looks right. So rating=3") == {"rating": 3, "rationale": "Looks right."}
    assert parse_rating("first So rating=1 then corrected: So rating=2")["rating"] == 2
    assert parse_rating("so rating = [2]")["rating"] == 2
    assert parse_rating("So rating=4") is None
    assert parse_rating("rating: 3") is None


def test_pairwise_parsing():
    released = ("```[Accuracy]\nAccuracy is similar: [[A=B]]\n```\n```[Overall Judge]\nModel A is better: [[A>B]]\n```")
    assert parse_pairwise(released) == "A"
    assert parse_pairwise("...[[B>A]]...") == "B"
    assert parse_pairwise("```[Overall Judge]\nTie (both good)\n```") == "tie_good"
    assert parse_pairwise("```[Overall Judge]\nTie (both bad)\n```") == "tie_bad"
    assert parse_pairwise("```[Overall Judge]\nB\n```") == "B"
    assert parse_pairwise("Long analysis.\n\nModel B Wins!") == "B"
    assert parse_pairwise("[[A=B]]") == "tie"
    assert parse_pairwise("I cannot decide.") is None


def test_dimension_scores():
    dims = {"logic": ("LogicalConsistency", "Logical Consistency"), "acc": ("Accuracy",)}
    scales = {"logic": (0, 5), "acc": (0, 1)}
    text = "1. Logical Consistency: score: [4]. reason: [x]\n2. Accuracy: score: [1]. reason: Accuracy 5 would be wrong"
    assert parse_dimension_scores(text, dims, scales) == {"logic": 4.0, "acc": 1.0}
    assert parse_dimension_scores("1. LogicalConsistency: score: [7].", dims, scales) is None
    assert parse_dimension_scores("1. LogicalConsistency: score: [3].", dims, scales) is None


def _client(tmp_path, reply_fn, **kw):
    model = ScriptedChatModel(reply_fn=reply_fn)
    identity = JudgeIdentity(kind="scripted", model_id="m1", revision="r1", decoding={"temperature": 0.0})
    sleeps = []
    client = JudgeClient(model, identity, tmp_path / "cache", sleep=sleeps.append, **kw)
    return client, model, sleeps


def test_cache_hits_and_key_parts(tmp_path):
    client, model, _ = _client(tmp_path, lambda p: '{"criteria_met": true}')
    first = client.ask("prompt one", parse_criterion_verdict)
    second = client.ask("prompt one", parse_criterion_verdict)
    assert first.ok and not first.cached and second.cached and model.calls == 1
    assert client.stats["cache_hits"] == 1
    key = client.cache_key("prompt one")
    assert key != client.cache_key("prompt two")
    for change in ({"model_id": "m2"}, {"revision": "r2"}, {"decoding": {"temperature": 0.7}}):
        other = JudgeClient(model, client.identity.model_copy(update=change), tmp_path / "cache")
        assert other.cache_key("prompt one") != key


def test_unparsable_replies_are_retried_with_backoff_and_never_cached(tmp_path):
    replies = iter(["", "no verdict here", "still nothing"])
    client, model, sleeps = _client(tmp_path, lambda p: next(replies), max_retries=2, backoff_s=0.5)
    call = client.ask("p", parse_criterion_verdict)
    assert not call.ok and call.attempts == 3 and call.error == "reply could not be parsed"
    assert sleeps == [0.5, 1.0] and model.calls == 3
    assert not list((tmp_path / "cache").rglob("*.json"))
    # a later good reply is used (nothing bad was cached)
    client2, _, _ = _client(tmp_path, lambda p: '{"criteria_met": false}')
    assert client2.ask("p", parse_criterion_verdict).value["criteria_met"] is False


def test_backend_errors_are_retried(tmp_path):
    state = {"n": 0}

    def flaky(prompt):
        state["n"] += 1
        if state["n"] < 3:
            raise ConnectionError("server busy")
        return '{"criteria_met": true}'

    client, _, sleeps = _client(tmp_path, flaky, max_retries=2, backoff_s=1.0)
    call = client.ask("p", parse_criterion_verdict)
    assert call.ok and call.attempts == 3 and sleeps == [1.0, 2.0]


def test_concurrency_is_bounded(tmp_path):
    live, peak, lock = [0], [0], threading.Lock()

    def slow(prompt):
        with lock:
            live[0] += 1
            peak[0] = max(peak[0], live[0])
        time.sleep(0.05)
        with lock:
            live[0] -= 1
        return '{"criteria_met": true}'

    client, _, _ = _client(tmp_path, slow, max_concurrency=2)
    threads = [threading.Thread(target=client.ask, args=(f"p{i}", parse_criterion_verdict)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 2


def test_heuristic_judge_checks_key_facts_and_says_so():
    judge = HeuristicJudge()
    assert judge.identity.kind == "heuristic" and not judge.is_llm

    def met(description, answer, category="high_priority"):
        value = judge.check_criterion(question="q", reference="r", answer=answer,
                                      criterion=Criterion(description=description, category=category)).value  # fmt: skip
        assert value["heuristic"] is True
        return value["criteria_met"]

    assert met('Must mention the price "$1,299"', "It sells for $1,299 today.")
    assert met("Must mention that it costs 1299 dollars", "It sells for $1,299.")
    assert not met("Must mention that it costs 1299 dollars", "It sells for $1,199.")
    assert met("Must say it starts at 12:30", "It starts around 12:33.")
    assert not met("Must say it starts at 12:30", "It starts around 14:00.")
    assert met("Must mention that the chef adds fresh basil", "Then the chef added some fresh basil leaves.")
    assert not met("Must mention that the chef adds fresh basil", "The chef stirs the sauce.")
    assert met("Must mention there are three speakers", "Three speakers take part.")
    # penalties: violated only when the forbidden thing is named and said
    assert met("Must not include information not present in the video", "Anything at all.", "penalty")
    assert not met('Must not claim the price is "$99"', "It costs $99.", "penalty")
    assert met("Must not include made-up facts", "", "penalty")


@pytest.mark.parametrize(
    ("description", "answer", "expected"),
    [
        ('Must mention "3 January 2027"', "Room 3, on 5 March.", False),  # the day alone is not the date
        ('Must mention "3 January 2027"', "It opens on January 3rd, 2027.", True),
        ('Must mention "3 January 2027"', "It opens on 3 January.", False),  # the year is part of the fact
        ("Must give the date 3 January", "Room 3, on 5 March.", False),
        ("Must give the date 3 January", "On the 3rd of January.", True),
        ('Must mention "6 hours"', "It has 6 cells and lasts 4 hours.", False),  # the number without its unit
        ('Must mention "6 hours"', "The battery lasts six hours.", True),
        ("Must state that the battery lasts 6 hours", "It has 6 cells and lasts 4 hours.", False),
        ("Must state that the battery lasts 6 hours", "Six hours, it says.", True),
        ("Must mention a 20% discount", "Room 20 is discounted.", False),
        ("Must mention a 20% discount", "It is 20 percent off.", True),
        ('Must mention "February 2010"', "She joined in 2010.", False),
        ("Must mention 22 seats", "There are 22 of them.", True),  # "seats" is no unit: the number suffices
    ],
)
def test_the_heuristic_judge_wants_each_fact_whole(description, answer, expected):
    verdict = HeuristicJudge().check_criterion(
        question="q", reference="r", answer=answer, criterion=Criterion(description=description, category="high_priority")
    ).value
    assert verdict["criteria_met"] is expected, verdict["explanation"]


def test_final_answer_check_wants_the_reference_facts_whole():
    from staragent.bench.judges.heuristic import reference_verdict

    reference = "The launch is on 3 January 2027 and takes 6 hours. It is shown at about 0:40."
    assert reference_verdict(reference, "Launch: January 3, 2027; it takes six hours.")["criteria_met"]
    near_miss = reference_verdict(reference, "Room 3 at 6, on 5 March 2027, for 2 hours.")
    assert not near_miss["criteria_met"] and near_miss["explanation"] == "missing 3 January 2027, 6 hours"


def test_make_judge_specs():
    assert isinstance(make_judge("heuristic"), HeuristicJudge)
    scripted = make_judge("scripted")
    assert isinstance(scripted, LLMJudge) and scripted.identity.kind == "scripted"
    with pytest.raises(JudgeSpecError):
        make_judge("")
    with pytest.raises(JudgeSpecError, match="language-model judge"):
        require_llm(make_judge("heuristic"), "vdeval")


def test_other_backends_go_through_the_chat_model_factory(monkeypatch):
    import sys
    import types

    fake = types.ModuleType("staragent.agent.planners")
    built = {}

    def make_chat_model(settings, backend, **options):
        built["backend"], built["options"] = backend, options
        return ScriptedChatModel(model_name="served-judge", temperature=0.2)

    fake.make_chat_model = make_chat_model
    monkeypatch.setitem(sys.modules, "staragent.agent.planners", fake)
    judge = make_judge("openai:served-judge", revision="2025-01")
    assert built["backend"] == "openai" and built["options"] == {"model": "served-judge"}
    assert judge.identity.kind == "llm" and judge.identity.model_id == "served-judge"
    assert judge.identity.revision == "2025-01" and judge.identity.decoding["temperature"] == 0.2


def test_missing_chat_backends_give_a_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "staragent.agent.planners", None)
    with pytest.raises(JudgeSpecError, match="heuristic or --judge scripted"):
        make_judge("openai:gpt-4o-mini")


class ServedChatModel(ScriptedChatModel):
    """Replies like an OpenAI-compatible server: the served model name and system fingerprint in the metadata."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        from langchain_core.messages import AIMessage
        from langchain_core.outputs import ChatGeneration, ChatResult

        self.calls += 1
        metadata = {"model_name": "judge-model-2025-01-01", "system_fingerprint": f"fp_{self.calls % 2}"}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content='{"criteria_met": true}', response_metadata=metadata))])


def test_identity_records_what_the_server_reports_and_keeps_it_through_the_cache(tmp_path):
    judge = LLMJudge.from_model(ServedChatModel(model_name="judge-model"), cache_dir=tmp_path / "cache")
    judge.ask("prompt one", parse_criterion_verdict)
    judge.ask("prompt two", parse_criterion_verdict)
    assert judge.identity.served_models == ["judge-model-2025-01-01"]
    assert judge.identity.system_fingerprints == ["fp_1", "fp_0"]
    again = LLMJudge.from_model(ServedChatModel(model_name="judge-model"), cache_dir=tmp_path / "cache")
    assert again.ask("prompt one", parse_criterion_verdict).cached
    assert again.identity.served_models == ["judge-model-2025-01-01"] and again.identity.system_fingerprints == ["fp_1"]


def test_decoding_settings_name_separate_score_rows(facts_file, tmp_path):
    from staragent.bench.agents import make_agent
    from staragent.bench.execution import run_benchmark
    from staragent.bench.rundir import read_scores
    from staragent.bench.scoring import score_run
    from staragent.datagen.synthetic import load_synthetic

    run_benchmark(load_synthetic(facts_file).select(limit=2), make_agent("scripted"), tmp_path / "run")
    tags = []
    for temperature in (0.0, 0.7, 0.0):
        judge = LLMJudge.from_model(ServedChatModel(model_name="judge-model", temperature=temperature), cache_dir=tmp_path / "c")
        score_run(tmp_path / "run", judge, ["rubric"])
        tags.append(judge.identity.tag)
    assert tags[0] == tags[2] != tags[1] and "temperature0.7" in tags[1]
    rows = [r for r in read_scores(tmp_path / "run") if r["metric"] == "rubric"]
    by_tag = {tag: [r for r in rows if r["judge_tag"] == tag] for tag in set(tags)}
    assert len(by_tag) == 2 and len(by_tag[tags[0]]) == len(by_tag[tags[1]]) > 0  # re-scoring at 0.0 replaced only its own rows
    assert {r["judge"]["decoding"]["temperature"] for r in rows} == {0.0, 0.7}
    assert all(r["judge"]["served_models"] == ["judge-model-2025-01-01"] for r in rows)


def test_transformers_judge_loads_the_model_it_names_not_the_planner(tiny, tmp_path):
    import shutil

    from staragent.agent.planners.transformers import load_transformers_chat
    from staragent.config import load_settings
    from staragent.models.pool import ModelPool

    planner_dir = tiny.qwen3
    judge_dir = tmp_path / "judge-qwen3"
    shutil.copytree(planner_dir, judge_dir)  # the same tiny model saved a second time, under another path
    settings = load_settings(cache_dir=tmp_path / "c", progress=False, models={"device": "cpu"}, planner={"model": str(planner_dir)})
    judge = make_judge(f"transformers:{judge_dir}", settings, cache_dir=tmp_path / "cache")
    assert judge.client.model.engine.model_id == str(judge_dir)
    assert judge.identity.model_id == str(judge_dir) and judge.identity.spec == f"transformers:{judge_dir}"
    # in one pool the planner and the judge are two models under two roles
    pool = ModelPool(settings)
    planner = load_transformers_chat(settings, pool)
    named = load_transformers_chat(settings, pool, model=str(judge_dir))
    assert planner.engine.model_id == str(planner_dir) and named.engine.model_id == str(judge_dir)
    assert planner.engine is not named.engine and {"chat", f"chat:{judge_dir}"} <= set(pool.names())
    assert load_transformers_chat(settings, pool, model=str(planner_dir)).engine is planner.engine


def test_thinking_and_request_options_are_part_of_the_judge_identity(tmp_path):
    """A Qwen3 judge thinking or not, and one server's model with other request options or at another
    address, are different judges: other cache entries, other score rows."""
    from staragent.agent.planners.openai import OpenAICompatibleChat
    from staragent.agent.planners.transformers import TransformersChatModel
    from staragent.bench.chat import decoding_of

    def identity_of(model):
        return LLMJudge.from_model(model, cache_dir=tmp_path / "cache")

    thinking = identity_of(TransformersChatModel(pool=None, model_name="Qwen/Qwen3-4B", thinking=True))
    plain = identity_of(TransformersChatModel(pool=None, model_name="Qwen/Qwen3-4B", thinking=False))
    assert thinking.identity.decoding["thinking"] is True and plain.identity.decoding["thinking"] is False
    assert thinking.identity.tag != plain.identity.tag
    assert thinking.client.cache_key("p") != plain.client.cache_key("p")

    def served(**options):
        return identity_of(OpenAICompatibleChat(model="qwen3", api_key="unused", temperature=0.0, **options))

    base = served(base_url="http://gpu-a:8000/v1")
    kwargs = served(base_url="http://gpu-a:8000/v1", model_kwargs={"top_k": 20})
    other_host = served(base_url="http://gpu-b:8000/v1")
    assert base.identity.endpoint == "http://gpu-a:8000/v1" and "at_gpu-a_8000" in base.identity.tag
    assert kwargs.identity.decoding["model_kwargs"] == {"top_k": 20}
    assert "model_kwargs" not in base.identity.decoding  # an empty option is not a setting
    tags = {j.identity.tag for j in (base, kwargs, other_host)}
    keys = {j.client.cache_key("p") for j in (base, kwargs, other_host)}
    assert len(tags) == len(keys) == 3
    assert decoding_of(OpenAICompatibleChat(model="m", api_key="x", extra_body={"chat_template_kwargs": {"enable_thinking": False}}))[
        "extra_body"
    ] == {"chat_template_kwargs": {"enable_thinking": False}}


def _snapshot(root, commit="0123abcd"):
    """A Hugging Face cache holding one snapshot of org/judge (what snapshot_download leaves behind)."""
    repo = root / "models--org--judge"
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "config.json").write_text("{}")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    return repo / "snapshots" / commit


def test_a_local_judge_records_the_snapshot_it_was_read_from(tmp_path, monkeypatch):
    import sys
    import types

    from staragent.agent.planners.transformers import TransformersChatModel
    from staragent.bench.chat import local_snapshot

    folder = _snapshot(tmp_path / "hub")
    settings = types.SimpleNamespace(models=types.SimpleNamespace(hf_cache=str(tmp_path / "hub")))
    by_id = TransformersChatModel(pool=None, model_name="org/judge")
    assert local_snapshot(by_id, settings) == "0123abcd"
    assert local_snapshot(TransformersChatModel(pool=None, model_name=str(folder)), settings) == "0123abcd"
    plain = tmp_path / "my-judge"
    plain.mkdir()
    assert local_snapshot(TransformersChatModel(pool=None, model_name=str(plain)), settings) is None
    assert local_snapshot(ScriptedChatModel(), settings) is None

    fake = types.ModuleType("staragent.agent.planners")
    fake.make_chat_model = lambda settings, backend, **options: by_id
    monkeypatch.setitem(sys.modules, "staragent.agent.planners", fake)
    judge = make_judge("transformers:org/judge", settings)
    assert judge.identity.revision == "0123abcd" and "0123abcd" in judge.identity.tag
    assert make_judge("transformers:org/judge", settings, revision="0123abcd").identity.revision == "0123abcd"
    with pytest.raises(JudgeSpecError, match="--judge-revision feedbeef was asked for.*snapshot 0123abcd"):
        make_judge("transformers:org/judge", settings, revision="feedbeef")
