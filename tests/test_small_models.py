"""A language model planning through the agent graph against a stand-in OpenAI-compatible server:
a small model's retrieval step (planned by the rules) and its one reading call, or for more than a
lookup its short prompt, brief schemas and the tools chosen for its question,
answers sent back when they cite nothing or times outside the video, token counts per step, and a
server's faults (not there, dying mid-reply, not speaking JSON) as one clear message."""

import json
import socket
import sys

import pytest
from click.testing import CliRunner
from openai_stub import DROP, GARBAGE, StubServer

from staragent.agent import grounding, toolchoice
from staragent.agent.runner import VideoAgent
from staragent.agent.session import is_small_model
from staragent.cli import main
from staragent.config import load_settings
from staragent.errors import ModelUnavailable
from staragent.schema import TokenUsage

SMALL = "qwen2.5-coder-1.5b-instruct"
QUESTION = "What does the coffee grinder cost?"


def call(name, **args):
    return {"content": None, "tool_calls": [{"id": f"call_{name}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


def answer(text):
    return {"content": text}


def ask(url, cache, video, question=QUESTION, **planner):
    settings = load_settings(cache_dir=cache, progress=False, profile="openai", planner={"base_url": url, **planner})
    with VideoAgent(settings) as agent:
        return agent.ask(video, question)


def offered(request):
    return [t["function"]["name"] for t in request.get("tools", [])]


def read(text, *ids):
    return answer(json.dumps({"answer": text, "ids": list(ids)}))


def test_a_small_model_keeps_the_rules_answer_and_is_not_asked(foreign, foreign_index, session_cache):
    """Where the rules quote an answer, it stands: the bundled 1.5B model made such answers worse on
    balance (graph._read_by_model), so no call is made for them."""
    server = StubServer([read("Something else entirely.", 1)], model=SMALL)
    with server as url:
        reply = ask(url, session_cache, foreign.path)
        at_a_time = ask(url, session_cache, foreign.path, question="What is said at 0:12?")
    assert server.requests == []
    search, *rest = reply.trajectory
    # the retrieval, planned by the rules and made by the agent: the question's key words, then the best hit's scene
    assert search.tool == "cross_modal_search" and "grinder" in search.args["query"] and all(s.by_agent for s in reply.trajectory)
    assert {s.tool for s in rest} == {"transcribe_speech", "extract_scene_text"}
    assert "129.50" in reply.answer and [e for e in reply.evidence if "129.50" in e.text and e.start < 10]
    assert reply.tokens == TokenUsage()
    # no search for a question that names its time: that range is read
    assert {s.tool for s in at_a_time.trajectory} == {"transcribe_speech", "extract_scene_text"}
    assert all(s.by_agent and s.args["timestamp"] == "00:00:02-00:00:32" for s in at_a_time.trajectory)
    assert at_a_time.evidence and all(e.end >= 2 and e.start <= 32 for e in at_a_time.evidence)


def test_a_small_model_is_offered_the_summary_whenever_the_rules_read_an_overview_asked(foreign, foreign_index, session_cache):
    """"what is this clip showing?": the rules read an overview asked (a phrasing they know, which the
    fitted model alone may not), and the tools chosen for a small model must hold the summary for it,
    or its rules can only say that no tool offered can look it up."""
    server = StubServer([read("Something else entirely.", 1)], model=SMALL)
    with server as url:
        reply = ask(url, session_cache, foreign.path, question="what is this clip showing? no sound so im confused")
    assert "summarize_segment" in {s.tool for s in reply.trajectory}, [s.tool for s in reply.trajectory]
    assert "None of the tools" not in reply.answer, reply.answer


def test_where_neither_the_rules_nor_the_ranking_find_it_the_answer_says_only_the_pictures_could(foreign, foreign_index, session_cache):
    """Declining a question only the pictures answer (a colour) says why, not "not found"; no line
    ranks as holding a colour, so the model is not asked to guess one."""
    server = StubServer([read("It is blue.", 1)], model=SMALL)
    with server as url:
        reply = ask(url, session_cache, foreign.path, question="What colour is the butterfly?")
    assert server.requests == []
    assert not grounding.says_nothing_found(reply.answer) and "could not find" not in reply.answer and "blue" not in reply.answer, reply.answer


def test_a_small_model_reads_the_lines_once_where_the_rules_find_nothing(foreign, foreign_index, session_cache):
    # the rules find nothing about the "guest" (the video says "speaker"); the core's ranking is sure
    # the video holds the answer (a question the rules answer themselves never reaches the model)
    server = StubServer([read("Nairobi", 2), read("Nairobi", 2)], model=SMALL)
    with server as url:
        reply = ask(url, session_cache, foreign.path, question="What is the home city of the keynote guest?")
        other = ask(url, session_cache, foreign.path, question="Keynote guest: which place do they come from?")
    first, second = server.requests  # one call per question
    # no tool schemas, a short reply, and a system prompt that stays the same from question to question (the server caches it)
    assert "tools" not in first and first["max_tokens"] <= 200
    assert first["messages"][0] == second["messages"][0] and "never an instruction" in first["messages"][0]["content"]
    lines = first["messages"][-1]["content"]
    assert "keynote guest" in lines and "[1]" in lines and "[2]" in lines
    assert reply.answer.startswith("Nairobi") and reply.tokens == TokenUsage(input=100, output=10)
    assert [e for e in reply.evidence if "Nairobi" in e.text]  # the line it named, checked against the candidates
    assert "Nairobi" in other.answer


def test_a_small_model_is_not_asked_where_neither_the_rules_nor_the_ranking_find_the_answer(foreign, foreign_index, session_cache):
    """On questions whose answer is not in the video, a small model shown weak lines names a guess
    (blind round 34: a voice actor, a speech never played); where the rules found nothing and the
    core's ranking is unsure too, the rules' refusal stands and no call is made."""
    server = StubServer([read("Nairobi", 2)], model=SMALL)
    with server as url:
        reply = ask(url, session_cache, foreign.path, question="How tall is the speaker?")
    assert server.requests == []
    assert "Nairobi" not in reply.answer and reply.answer, reply.answer


def test_a_small_model_asked_for_more_than_a_lookup_plans_with_the_tools_its_question_needs(foreign, foreign_index, session_cache):
    question = "Can you summarise what the grinder part says?"
    server = StubServer([call("transcribe_speech", timestamp="0:10-0:20"), answer("A grinder review: it costs $129.50 (0:00-0:10).")], model=SMALL)
    with server as url:
        reply = ask(url, session_cache, foreign.path, question=question)
    assert not toolchoice.reads(question) and toolchoice.reads(QUESTION)
    first = server.requests[0]
    assert "summarize_segment" in offered(first) and "tool_choice" not in first and first["max_tokens"] <= 384
    assert all("title" not in json.dumps(t) for t in first["tools"])  # brief schemas
    system = first["messages"][0]["content"]
    assert "never an instruction" in system and len(system) < 2000
    assert any(s.tool == "transcribe_speech" and not s.by_agent and s.tokens == TokenUsage(input=100, output=10) for s in reply.trajectory)
    assert "129.50" in reply.answer


def test_a_large_model_sees_every_tool_with_its_full_schema(foreign, foreign_index, session_cache):
    server = StubServer([call("cross_modal_search", query="grinder"), answer("It costs $129.50 (0:00-0:10).")], model="gpt-4o")
    with server as url:
        ask(url, session_cache, foreign.path)
    assert len(offered(server.requests[0])) > 6 and "tool_choice" not in server.requests[0]
    assert any("title" in json.dumps(t) for t in server.requests[0]["tools"])


def test_an_answer_without_looking_is_sent_back_to_search(foreign, foreign_index, session_cache):
    server = StubServer([answer("The grinder costs $99."), call("cross_modal_search", query="grinder"), answer("It costs $129.50 (0:00-0:10).")], model="big-model")
    with server as url:
        reply = ask(url, session_cache, foreign.path)
    assert [s.tool for s in reply.trajectory] == ["cross_modal_search"] and not reply.trajectory[0].by_agent
    told = server.requests[1]["messages"][-1]
    assert told["role"] == "user" and "without looking at the video" in told["content"]
    assert "129.50" in reply.answer


def test_an_answer_that_never_looks_gets_a_search_made_for_it(foreign, foreign_index, session_cache):
    replies = [answer("About $99."), answer("Still $99."), answer("The slide says $129.50 (0:00-0:10).")]
    server = StubServer(replies, model="big-model")
    with server as url:
        reply = ask(url, session_cache, foreign.path, answer_retries=1)
    [step] = reply.trajectory
    assert step.tool == "cross_modal_search" and step.by_agent and step.args == {"query": QUESTION}
    assert "129.50" in reply.answer


def test_times_outside_the_video_are_sent_back_then_struck(foreign, foreign_index, session_cache):
    wrong = answer("The grinder is shown at 12:30 and costs $129.50.")
    server = StubServer([call("cross_modal_search", query="grinder"), wrong, wrong], model="big-model")
    with server as url:
        reply = ask(url, session_cache, foreign.path, answer_retries=1)
    told = server.requests[2]["messages"][-1]["content"]
    assert "0:38 long" in told and "12:30" in told  # the 38-second video
    assert "12:30" not in reply.answer and "$129.50" in reply.answer and "removed" in reply.answer


def test_times_quoted_from_the_video_or_the_user_are_not_citations():
    evidence = [{"start": 0.0, "end": 19.9}]
    slide = '{"tool": "extract_scene_text", "data": {"found": ["0:00-0:19 on screen: Departure: 15:15"]}}'
    ok = grounding.check_answer("It departs at 15:15 (0:00-0:19).", called_tools=True, duration=240, evidence=evidence, quoted=[slide])
    assert ok.ok
    unsupported = grounding.check_answer("It departs at 15:15 (2:10).", called_tools=True, duration=240, evidence=evidence, quoted=[slide])
    assert [m.text for m in unsupported.unsupported] == ["2:10"]
    asked = grounding.check_answer("Nothing happens at 9:00: the video is shorter.", called_tools=True, duration=240, evidence=[], quoted=["What happens at 9:00?"])
    assert asked.ok
    nothing = grounding.check_answer("It is 15:15.", called_tools=False, duration=240, evidence=[], quoted=[])
    assert not nothing.looked and [m.text for m in nothing.outside] == ["15:15"]


def test_a_call_to_an_unknown_tool_is_answered_and_the_model_goes_on(foreign, foreign_index, session_cache):
    server = StubServer([call("zoom_in", area="top"), call("cross_modal_search", query="grinder"), answer("$129.50 (0:00-0:10)")], model="big-model")
    with server as url:
        reply = ask(url, session_cache, foreign.path)
    unknown, search = reply.trajectory
    assert not unknown.ok and "no tool named 'zoom_in'" in unknown.error and search.ok
    assert "129.50" in reply.answer


def test_tools_are_chosen_for_the_question():
    everything = ["cross_modal_search", "transcribe_speech", "extract_scene_text", "calculator", "detect_audio_events", "summarize_segment",
                  "memory_tool", "web_search", "execute_code", "word_count"]
    assert "detect_audio_events" in toolchoice.choose("What sound is heard after the talk?", everything)
    assert "calculator" in toolchoice.choose("How much do the two items cost together?", everything)
    assert "word_count" in toolchoice.choose("Give me a word count of the narration", everything)  # a plug-in named by the question
    assert toolchoice.choose("Who is the speaker?", everything) == ["cross_modal_search", "transcribe_speech", "extract_scene_text"]
    assert all(len(toolchoice.choose(q, everything)) <= toolchoice.MAX_TOOLS for q in ("sum of the sounds, summarise, remember, translate online",))


def test_model_sizes_are_read_from_their_names():
    assert is_small_model("qwen2.5-coder-1.5b-instruct") and is_small_model("SmolLM2-135M-Instruct") and is_small_model("qwen2.5:0.5b")
    assert not is_small_model("Qwen/Qwen3-4B") and not is_small_model("gpt-4o-mini") and not is_small_model("llama-3.1-70b")


def test_a_small_models_prompt_is_a_fraction_of_the_full_one(foreign, foreign_index, session_cache, registry):
    size = {}
    for small in (False, True):
        settings = load_settings(cache_dir=session_cache, progress=False, planner={"small_model": small}, toolset={"offer": "all"})
        with VideoAgent(settings, chat_model=object()) as agent:
            session = agent.session(foreign.path)
            offered = toolchoice.choose(QUESTION, session.tools) if small else None
            size[small] = len(session.system_prompt(False, offered)) + len(json.dumps(session.tool_specs(offered)))
    assert size[True] < size[False] / 4
    memory = registry.get("memory_tool").brief_schema()["function"]["parameters"]
    assert set(memory["properties"]) == {"func", "data"} and memory["required"] == ["func"]


# ---------------------------------------------------------------- a server's faults


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_server_is_one_clear_error(foreign, foreign_index, session_cache):
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(ModelUnavailable, match=r"no OpenAI-compatible server answers at .*staragent llm serve"):
        ask(url, session_cache, foreign.path)
    with pytest.raises(ModelUnavailable, match=r"did not answer.*staragent llm serve"):
        ask(url, session_cache, foreign.path, openai_model="named")  # no /models asked: the first question fails
    result = CliRunner().invoke(main, ["--profile", "openai", "--cache-dir", str(session_cache), "--quiet", "ask", str(foreign.path), QUESTION],
                                env={"STARAGENT_PLANNER__BASE_URL": url})
    assert result.exit_code == 2 and result.output.startswith("error: ") and result.output.count("\n") == 1 and "staragent llm serve" in result.output


def test_a_server_dying_mid_reply_is_retried_then_reported(foreign, foreign_index, session_cache):
    server = StubServer([DROP, call("cross_modal_search", query="grinder"), answer("$129.50 (0:00-0:10)")], model="big-model")
    with server as url:
        assert "129.50" in ask(url, session_cache, foreign.path).answer  # the client asked again
    server = StubServer([DROP] * 3, model="big-model")
    with server as url, pytest.raises(ModelUnavailable, match="did not answer"):
        ask(url, session_cache, foreign.path)
    assert len(server.requests) == 3


def test_a_reply_that_is_not_json_is_one_clear_error(foreign, foreign_index, session_cache):
    server = StubServer([GARBAGE] * 3, model="big-model")
    with server as url, pytest.raises(ModelUnavailable, match="not an OpenAI chat completion"):
        ask(url, session_cache, foreign.path)


# ---------------------------------------------------------------- `staragent llm serve`, before a model runs


def serve(tmp_path, *args):
    return CliRunner().invoke(main, ["--cache-dir", str(tmp_path), "llm", "serve", *args])


def test_serve_refuses_a_port_in_use(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = serve(tmp_path, "--port", str(taken.getsockname()[1]))
    assert result.exit_code == 2 and "already in use" in result.output and "--port" in result.output


def test_serve_names_the_extra_when_no_model_is_installed(tmp_path, monkeypatch):
    from staragent.models import llm_server
    from staragent.models.packs import Pack, PackFile, Part

    absent = Pack("absent-chat", "chat", (("absent_part_a", "absent-part-a==1"), ("absent_part_b", "absent-part-b==1")),
                  (PackFile("m.gguf", (Part("absent_part_a", "a.bin"), Part("absent_part_b", "b.bin")), sha256="0" * 64, size=2),),
                  "test", "test", extra="llm")
    monkeypatch.setattr(llm_server, "CHAT_PACKS", (absent,))
    result = serve(tmp_path, "--port", str(free_port()))
    assert result.exit_code == 2 and "pip install 'staragent[llm]'" in result.output and "Traceback" not in result.output


def test_serve_refuses_a_file_that_is_not_gguf_or_a_missing_runtime(tmp_path, monkeypatch):
    (tmp_path / "weights.bin").write_bytes(b"PK\x03\x04 a zip, not a GGUF")
    result = serve(tmp_path, "--model", str(tmp_path / "weights.bin"), "--port", str(free_port()))
    assert result.exit_code == 2 and "not a GGUF file" in result.output
    result = serve(tmp_path, "--model", "no-such-model", "--port", str(free_port()))
    assert result.exit_code == 2 and "qwen2.5-coder-1.5b-instruct" in result.output  # the names it knows
    (tmp_path / "tiny.gguf").write_bytes(b"GGUF" + b"\0" * 64)
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # llama-cpp-python not installed
    result = serve(tmp_path, "--model", str(tmp_path / "tiny.gguf"), "--port", str(free_port()))
    assert result.exit_code == 2 and "pip install 'staragent[llm]'" in result.output


def test_an_overview_the_rules_made_stands_and_the_small_model_is_not_asked():
    """A summary the rules made with the summary tool cites no line of its own; a dozen ranked lines
    are no whole video for a small model to sum up (blind round 40: a rundown of the readings came
    back "not found"), so the overview stands."""
    from staragent.agent import graph
    from staragent.agent.guide import Guidance

    draft = "The whole video (2:40), from beginning to end: [0:00] Sonnet 1 [1:02] A Tale of Two Cities"
    kept = graph._read_by_model(None, {"messages": [], "video": {}}, "can u give me a rundown of the video", Guidance(calls=[], draft=draft, overview=True), {})
    assert kept["messages"][0].content == draft
