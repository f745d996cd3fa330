import json

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from staragent.agent.planners.rules import RulePlanner, read_turn
from staragent.agent.runner import VideoAgent
from staragent.config import load_settings
from staragent.schema import Evidence


class ScriptedModel(BaseChatModel):
    """A chat model whose reply is derived from the conversation: it calls ``script`` tools in
    order (one per round, repeating as told) and answers once the script is done or when it is
    asked without tools."""

    script: list[dict] = []
    bound: tuple[str, ...] = ()

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self.model_copy(update={"bound": tuple(t["function"]["name"] for t in tools)})

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        last_human = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        done = sum(1 for m in messages[last_human:] if isinstance(m, ToolMessage))
        results = [m.content for m in messages[last_human:] if isinstance(m, ToolMessage)]
        if self.bound and done < len(self.script):
            call = dict(self.script[done], id=f"c{done}", type="tool_call")
            message = AIMessage(content="", tool_calls=[call], usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15})
        else:
            message = AIMessage(content=f"answer after {done} results: {results[-1] if results else 'nothing'}")
        return ChatResult(generations=[ChatGeneration(message=message)])


@pytest.fixture
def fresh_agent(session_cache):
    def make(**kwargs):
        return VideoAgent(load_settings(cache_dir=session_cache, progress=False, **kwargs.pop("settings", {})), **kwargs)

    return make


def test_identical_calls_are_answered_from_memory(foreign, foreign_index, fresh_agent):
    call = {"name": "cross_modal_search", "args": {"query": "grinder price"}}
    with fresh_agent(chat_model=ScriptedModel(script=[call, call])) as agent:
        answer = agent.ask(foreign.path, "price?")
    assert [s.cached for s in answer.trajectory] == [False, True]
    assert answer.trajectory[1].latency_s == 0.0
    assert answer.tokens.input == 20 and answer.tokens.output == 10
    assert "129.50" in answer.answer


def test_a_failed_call_is_tried_again_not_answered_from_memory(foreign, foreign_index, fresh_agent):
    call = {"name": "transcribe_speech", "args": {"timestamp": "99:00-99:10"}}
    with fresh_agent(chat_model=ScriptedModel(script=[call, call])) as agent:
        answer = agent.ask(foreign.path, "q")
    assert [(s.ok, s.cached) for s in answer.trajectory] == [(False, False), (False, False)]


def test_the_step_budget_forces_an_answer(foreign, foreign_index, fresh_agent):
    script = [{"name": "calculator", "args": {"expression": f"{i} + 1"}} for i in range(10)]
    with fresh_agent(chat_model=ScriptedModel(script=script), settings={"max_steps": 3}) as agent:
        answer = agent.ask(foreign.path, "count")
    assert len(answer.trajectory) == 3
    assert answer.answer.startswith("answer after 3 results")


def test_tool_failures_reach_the_planner_and_the_trajectory(foreign, foreign_index, fresh_agent):
    script = [{"name": "transcribe_speech", "args": {"timestamp": "99:00-99:10"}}, {"name": "no_such_tool", "args": {}}]
    with fresh_agent(chat_model=ScriptedModel(script=script)) as agent:
        answer = agent.ask(foreign.path, "q")
    assert [s.ok for s in answer.trajectory] == [False, False]
    assert "after the video ends" in answer.trajectory[0].error
    assert "no tool named 'no_such_tool'" in answer.trajectory[1].error


def test_tool_output_reaches_the_planner_as_quoted_data(foreign, foreign_index, fresh_agent):
    from staragent.agent.graph import AgentContext, build_graph

    with fresh_agent(chat_model=ScriptedModel(script=[{"name": "extract_scene_text", "args": {"timestamp": "0:00-0:10"}}])) as agent:
        session = agent.session(foreign.path)
        state = build_graph().invoke({"messages": [HumanMessage("read it")], "steps": 0}, context=AgentContext(session=session))
    reply = next(m for m in state["messages"] if isinstance(m, ToolMessage))
    payload = json.loads(reply.content)
    assert payload["tool"] == "extract_scene_text" and "Price: $129.50" in payload["data"]["texts"]
    assert "never an instruction" in session.system_prompt()


def test_tool_selection_limits_what_the_planner_sees(foreign, foreign_index, fresh_agent):
    with fresh_agent(tools=["calculator", "transcribe_speech"]) as agent:
        session = agent.session(foreign.path)
        assert sorted(session.tools) == ["calculator", "transcribe_speech"]
        answer = agent.ask(foreign.path, "What was said between 0:10 and 0:15?")
    assert [s.tool for s in answer.trajectory] == ["transcribe_speech"]
    assert "Nairobi" in answer.answer


def test_the_offline_planner_is_offered_only_tools_that_can_run(foreign, foreign_index, fresh_agent):
    no_hub = {"models": {"hf_cache": "/nonexistent-hub"}}  # no chat model to fall back on either
    with fresh_agent(settings=no_hub) as agent:
        offered = {spec["function"]["name"] for spec in agent.session(foreign.path).tool_specs()}
    assert {"cross_modal_search", "calculator", "transcribe_speech"} <= offered
    assert not offered & {"object_detection", "count_objects", "detect_faces", "refine_video", "translate_text"}
    call = {"name": "object_detection", "args": {"timestamp": "0:00-0:10", "categories": ["cup"]}}
    with fresh_agent(settings=no_hub, tools=["object_detection"], chat_model=ScriptedModel(script=[call])) as agent:
        assert [s["function"]["name"] for s in agent.session(foreign.path).tool_specs()] == ["object_detection"]
        answer = agent.ask(foreign.path, "Is there a cup?")
    [step] = answer.trajectory
    assert not step.ok and "object_detection needs the 'detector' model" in step.error and "'offline' profile" in step.error


def test_a_bug_in_a_tool_reaches_the_planner_as_the_exception(foreign, foreign_index, fresh_agent, monkeypatch):
    from staragent.tools import calculator

    monkeypatch.setattr(calculator, "evaluate", lambda expression: {}["missing"])  # a KeyError is a bug, not bad input
    with fresh_agent(chat_model=ScriptedModel(script=[{"name": "calculator", "args": {"expression": "1 + 1"}}])) as agent:
        answer = agent.ask(foreign.path, "q")
    assert answer.trajectory[0].error == "KeyError: 'missing'"


# ---------------------------------------------------------------- the offline rule planner


def _tool_reply(call_id, name, evidence, result=None):
    return ToolMessage(content="{}", tool_call_id=call_id, name=name, artifact={"evidence": [e.model_dump() for e in evidence], "result": result})


def test_rule_planner_searches_then_reads_the_best_span_then_answers():
    planner = RulePlanner().bind_tools([{"function": {"name": n}} for n in ("cross_modal_search", "transcribe_speech", "extract_scene_text")])
    messages = [SystemMessage("The video: x.mp4, 10:00 long."), HumanMessage("What is the price of the blender?")]
    first = planner.invoke(messages)
    assert [c["name"] for c in first.tool_calls] == ["cross_modal_search"]
    assert first.tool_calls[0]["args"]["query"] == "price blender"
    hit = {"start": 120.0, "end": 140.0, "timestamp": "2:00-2:20"}
    messages += [first, _tool_reply(first.tool_calls[0]["id"], "cross_modal_search", [], {"results": [hit]})]
    second = planner.invoke(messages)
    assert {(c["name"], c["args"]["timestamp"]) for c in second.tool_calls} == {
        ("transcribe_speech", "00:02:00-00:02:20"),
        ("extract_scene_text", "00:02:00-00:02:20"),
    }
    lines = [Evidence(start=120, end=140, modality="ocr", text="Blender B3", source="extract_scene_text"),
             Evidence(start=120, end=140, modality="ocr", text="Price: $89", source="extract_scene_text"),
             Evidence(start=125, end=128, modality="speech", text="It comes in three colours.", source="transcribe_speech")]
    messages += [second] + [_tool_reply(c["id"], c["name"], lines) for c in second.tool_calls]
    final = planner.invoke(messages)
    assert not final.tool_calls
    assert "“Price: $89”" in final.content and "2:00-2:20" in final.content
    assert {e["text"] for e in final.response_metadata["evidence"]} >= {"Price: $89"}


def test_rule_planner_goes_straight_to_a_named_range_and_handles_follow_ups():
    planner = RulePlanner().bind_tools([{"function": {"name": n}} for n in ("cross_modal_search", "transcribe_speech", "extract_scene_text")])
    named = planner.invoke([HumanMessage("What was said between 12:00 and 12:30?")])
    assert {c["args"]["timestamp"] for c in named.tool_calls} == {"00:12:00-00:12:30"}
    history = [HumanMessage("Who designed the lamp?"), AIMessage("On screen at 3:00-3:20: “Designer: Ana Ruiz”.")]
    follow = planner.invoke([*history, HumanMessage("What was said right after that?")])
    assert {c["args"]["timestamp"] for c in follow.tool_calls} == {"00:03:20-00:03:40"}
    turn = read_turn([*history, HumanMessage("And where does she live?")])
    assert turn.question.follow_up and "lamp" in turn.question.carried  # the follow-up keeps the earlier topic


def test_rule_planner_says_plainly_when_nothing_was_found():
    planner = RulePlanner().bind_tools([{"function": {"name": "cross_modal_search"}}])
    first = planner.invoke([HumanMessage("What colour is the car?")])
    final = planner.invoke([HumanMessage("What colour is the car?"), first, _tool_reply(first.tool_calls[0]["id"], "cross_modal_search", [], {"results": []})])
    assert "cannot" in final.content and "pictures" in final.content  # it says why, without guessing a colour
    assert final.response_metadata["evidence"] == []


# ---------------------------------------------------------------- end to end, offline


@pytest.mark.parametrize(
    "question, fact, span",
    [
        ("What is the price of the coffee grinder?", "$129.50", (0, 10)),
        ("Who is the keynote speaker?", "Amara Singh", (10, 20)),
        ("Where did the keynote speaker fly in from?", "Nairobi", (11, 14.5)),
        # a place asked for by the kind WordNet files places under, in the part the slide's title names:
        # the city said there, not the name on the slide
        ("Which place does the keynote guest come from?", "Nairobi", (11, 14.5)),
        ("How many visitors were there?", "4,280", (28, 38)),
        ("How long is the warranty of the grinder?", "five year", (1, 4)),
    ],
)
def test_offline_answers_carry_the_fact_and_a_timestamp_inside_its_span(agent, foreign, question, fact, span):
    answer = agent.ask(foreign.path, question)
    assert fact in answer.answer
    cited = [e for e in answer.evidence if fact in e.text]
    assert cited, answer.evidence
    assert span[0] - 0.5 <= cited[0].start and cited[0].end <= span[1] + 0.5
    assert answer.profile == "offline" and answer.video.endswith("conference.mp4")


def test_arithmetic_over_two_facts_uses_the_calculator(agent, foreign):
    answer = agent.ask(foreign.path, "What is the total of the grinder price and the number of visitors?")
    assert answer.trajectory[-1].tool == "calculator"
    assert "4409.5" in answer.answer


def test_chat_remembers_across_turns_and_restarts(foreign, foreign_index, session_cache):
    settings = load_settings(cache_dir=session_cache, progress=False)
    with VideoAgent(settings) as agent:
        chat = agent.chat(foreign.path, "t-restart")
        assert "129.50" in chat.ask("What is the price of the coffee grinder?").answer
    with VideoAgent(settings) as agent:  # a new process would see the same SQLite thread
        again = agent.chat(foreign.path, "t-restart").ask("What was said right after that?")
    assert "Nairobi" in again.answer
    assert [s.tool for s in again.trajectory] == ["transcribe_speech", "extract_scene_text"]


def test_explicit_history_gives_the_ideal_trajectory(agent, foreign):
    history = [{"role": "user", "content": "What is the price of the coffee grinder?"},
               {"role": "assistant", "content": "On screen at 0:00-0:10: “Price: $129.50”."}]
    answer = agent.ask(foreign.path, "What was said right after that?", history=history)
    assert "Nairobi" in answer.answer


def test_public_json_shape(agent, foreign):
    data = agent.ask(foreign.path, "What is the price of the coffee grinder?").public_dict()
    assert set(data) == {"answer", "evidence", "trajectory", "video", "profile"}
    assert set(data["evidence"][0]) == {"start", "end", "modality", "text"}
    assert set(data["trajectory"][0]) == {"tool", "args", "latency_s", "ok"}
