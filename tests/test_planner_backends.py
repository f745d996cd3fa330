"""The planner backends driving the real agent graph over the offline index: the local transformers
chat model (tiny Qwen3, its replies replaced by recorded text) retrying after a malformed call, an
OpenAI-compatible server (a local stub) that returns tool calls natively or as text, and the chat
engine under the pool's memory budget."""

import functools
import gc
import json
import operator
import weakref

import pytest
from openai_stub import StubServer
from tiny_models import scripted_generation

from staragent.agent.planners import make_chat_model
from staragent.agent.runner import VideoAgent
from staragent.config import load_settings
from staragent.errors import ModelUnavailable
from staragent.models.pool import ModelPool, ModelSpec
from staragent.models.specs import chat_spec, role_spec

QUESTION = "What does the coffee grinder cost?"
ANSWER = "The slide says the grinder costs $129.50 (0:00-0:10)."


def test_a_malformed_call_goes_back_to_the_model_which_retries(tiny, foreign, foreign_index, session_cache, monkeypatch):
    settings = load_settings(cache_dir=session_cache, progress=False, planner={"backend": "transformers", "model": str(tiny.qwen3), "max_tokens": 12})
    with VideoAgent(settings) as agent:
        prompts = scripted_generation(agent.pool.get("chat"), [
            'Let me search.\n<tool_call>{"name": "cross_modal_search", "arguments": {query: coffee grinder price}}',
            '<tool_call>\n{"name": "cross_modal_search", "arguments": {"query": "coffee grinder price", "k": 3}}\n</tool_call>',
            ANSWER,
        ], monkeypatch)
        answer = agent.ask(foreign.path, QUESTION)
    assert answer.answer == ANSWER  # not "Let me search."
    unreadable, search = answer.trajectory
    assert unreadable.tool == "cross_modal_search" and not unreadable.ok and "could not be read" in unreadable.error
    assert "{query: coffee grinder price}" in unreadable.args["unreadable"]
    assert search.ok and search.args == {"query": "coffee grinder price", "k": 3}
    assert "could not be read" in prompts[1] and "double quotes" in prompts[1]  # the model was told what was wrong
    wrote = 'Let me search.\n<tool_call>\n{"name": "cross_modal_search", "arguments": {query: coffee grinder price}}\n</tool_call>'
    assert f"<|im_start|>assistant\n{wrote}<|im_end|>" in prompts[1]  # ... and sees what it wrote
    assert "129.50" in prompts[2]


def test_unreadable_calls_still_count_against_the_step_budget(tiny, foreign, foreign_index, session_cache, monkeypatch):
    settings = load_settings(
        cache_dir=session_cache, progress=False, max_steps=2, planner={"backend": "transformers", "model": str(tiny.qwen3), "max_tokens": 12}
    )
    broken = "<tool_call>{name: cross_modal_search}</tool_call>"
    with VideoAgent(settings) as agent:
        scripted_generation(agent.pool.get("chat"), [broken, broken, broken], monkeypatch)
        answer = agent.ask(foreign.path, QUESTION)
    assert len(answer.trajectory) == 2 and not any(step.ok for step in answer.trajectory)
    assert "ran out of tool calls" in answer.answer


def test_reasoning_is_cut_only_where_the_template_opened_it(tiny, tmp_path, monkeypatch):
    settings = load_settings(cache_dir=tmp_path, models={"device": "cpu"}, planner={"backend": "transformers", "model": str(tiny.qwen3), "max_tokens": 2})
    chat = make_chat_model(settings, pool=ModelPool(settings))
    engine = chat.engine
    # a reasoning model's template: the generation prompt opens <think>, the model writes the rest
    opening = engine.tokenizer.chat_template + "{% if add_generation_prompt and enable_thinking %}<think>\n{% endif %}"
    monkeypatch.setattr(engine.tokenizer, "chat_template", opening)
    reply = "The slide names the speaker.\n</think>\n\nDr. Amara Singh."
    scripted_generation(engine, [reply, reply], monkeypatch)
    thought = chat.model_copy(update={"thinking": True}).invoke("Who speaks?")
    assert thought.content == "Dr. Amara Singh." and thought.response_metadata["reasoning"] == "The slide names the speaker."
    assert chat.invoke("Who speaks?").content == reply.strip()  # no block was opened: the tag is part of the answer


# ---------------------------------------------------------------- an OpenAI-compatible server


def test_an_openai_server_with_or_without_a_tool_parser_drives_the_agent(foreign, foreign_index, session_cache):
    native = {"content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
        "name": "cross_modal_search", "arguments": json.dumps({"query": "coffee grinder price", "k": 3})}}]}
    # what vLLM without --tool-call-parser (or llama.cpp without --jinja) sends back
    as_text = {"content": '<tool_call>\n{"name": "extract_scene_text", "arguments": {"timestamp": "00:00:00-00:00:10"}}\n</tool_call>'}
    server = StubServer([native, as_text, {"content": ANSWER}])
    with server as url:
        settings = load_settings(cache_dir=session_cache, progress=False, profile="openai", planner={"base_url": url, "openai_model": "served-model"})
        with VideoAgent(settings) as agent:
            answer = agent.ask(foreign.path, QUESTION)
    assert [(s.tool, s.ok) for s in answer.trajectory] == [("cross_modal_search", True), ("extract_scene_text", True)]
    assert answer.answer == ANSWER and answer.tokens.input == 300
    assert all(request["tools"] for request in server.requests)
    last = server.requests[-1]["messages"]
    replayed = [m for m in last if m["role"] == "assistant"]
    assert replayed[1]["tool_calls"][0]["function"]["name"] == "extract_scene_text"  # the text call went back as a real one
    assert [m["tool_call_id"] for m in last if m["role"] == "tool"] == [replayed[0]["tool_calls"][0]["id"], replayed[1]["tool_calls"][0]["id"]]


def test_text_is_read_for_calls_only_when_tools_were_offered():
    server = StubServer([{"content": '{"name": "calculator", "arguments": {"expression": "1+1"}}'}] * 2)
    with server as url:
        chat = make_chat_model(load_settings(profile="openai", planner={"base_url": url}))
        plain = chat.invoke("Show me a tool call as JSON.")
        tooled = chat.bind_tools([{"type": "function", "function": {"name": "calculator", "parameters": {"type": "object", "properties": {}}}}]).invoke("1+1?")
    assert plain.tool_calls == [] and plain.content.startswith("{")
    assert [(c["name"], c["args"]) for c in tooled.tool_calls] == [("calculator", {"expression": "1+1"})]


CALCULATOR = {"type": "function", "function": {"name": "calculator", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}}
TEXT_CALL = {"content": '<tool_call>\n{"name": "calculator", "arguments": {"expression": "6*7"}}\n</tool_call>'}


def test_calls_in_the_text_are_read_whether_the_reply_is_invoked_or_streamed():
    server = StubServer([TEXT_CALL] * 2)
    with server as url:
        chat = make_chat_model(load_settings(profile="openai", planner={"base_url": url})).bind_tools([CALCULATOR])
        invoked = chat.invoke("6*7?")
        streamed = functools.reduce(operator.add, chat.stream("6*7?"))
    for reply in (invoked, streamed):
        assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("calculator", {"expression": "6*7"})] and reply.content == ""
    assert not any(request.get("stream") for request in server.requests)  # with tools, the whole reply is asked for


def stream_agent(settings, video, question):
    """Run the agent graph as LangGraph's server does (``stream_mode="messages"``); the last state."""
    from langchain_core.messages import HumanMessage

    from staragent.agent.graph import AgentContext, build_graph

    with VideoAgent(settings) as agent:
        context = AgentContext(session=agent.session(video))
        updates = build_graph().stream({"messages": [HumanMessage(question)], "steps": 0}, context=context, stream_mode=["messages", "values"])
        return [state for mode, state in updates if mode == "values"][-1]


def test_a_streaming_graph_reads_calls_in_the_text(foreign, foreign_index, session_cache):
    server = StubServer([{"content": TEXT_CALL["content"].replace("calculator", "cross_modal_search").replace('"expression": "6*7"', '"query": "grinder"')},
                         {"content": ANSWER}])
    with server as url:
        settings = load_settings(cache_dir=session_cache, progress=False, profile="openai", planner={"base_url": url})
        state = stream_agent(settings, foreign.path, QUESTION)
    assert [(s["tool"], s["ok"]) for s in state["trajectory"]] == [("cross_modal_search", True)]
    assert state["messages"][-1].content == ANSWER


def test_calls_written_after_the_step_budget_do_not_reach_the_answer(foreign, foreign_index, session_cache):
    server = StubServer([TEXT_CALL, TEXT_CALL])
    with server as url:
        settings = load_settings(cache_dir=session_cache, progress=False, profile="openai", max_steps=1, planner={"base_url": url})
        state = stream_agent(settings, foreign.path, "What is 6*7?")
    assert [request.get("stream", False) for request in server.requests] == [False, True]  # no tools offered: streamed
    assert "tools" not in server.requests[1]
    assert state["messages"][-1].content == "I ran out of tool calls before I could answer."


def test_an_unreadable_call_goes_back_as_text_not_as_a_nameless_call(foreign, foreign_index, session_cache):
    nameless = {"content": 'Let me compute.\n<tool_call>{"arguments": {"expression": "6*7"}}</tool_call>'}
    server = StubServer([nameless, {"content": "42"}])
    with server as url:
        settings = load_settings(cache_dir=session_cache, progress=False, profile="openai", planner={"base_url": url})
        with VideoAgent(settings) as agent:
            answer = agent.ask(foreign.path, "What is 6*7?")
    assert answer.answer == "42" and not answer.trajectory[0].ok
    assistant, error = server.requests[1]["messages"][-2:]
    assert assistant == {"role": "assistant", "content": 'Let me compute.\n<tool_call>\n{"arguments": {"expression": "6*7"}}\n</tool_call>'}
    assert error["role"] == "user" and "has no tool name" in json.loads(error["content"])["error"]
    assert not any(m["role"] == "tool" for m in server.requests[1]["messages"])


# ---------------------------------------------------------------- the chat engine under a memory budget


def test_the_chat_model_does_not_keep_an_engine_the_pool_unloaded(tiny, tmp_path):
    settings = load_settings(
        cache_dir=tmp_path, models={"memory_budget_gb": 1e-6, "device": "cpu"}, planner={"backend": "transformers", "model": str(tiny.qwen3), "max_tokens": 2}
    )
    pool = ModelPool(settings)
    pool.register(ModelSpec("other", lambda s, d: bytearray(10)))
    chat = make_chat_model(settings, pool=pool)
    first = weakref.ref(pool.get("chat"))
    assert isinstance(chat.invoke("hello").content, str)
    pool.get("other")  # over the (tiny) budget: the chat engine is the least recently used and goes
    gc.collect()
    assert [m.name for m in pool.loaded()] == ["other"] and first() is None  # nobody holds the old copy
    assert isinstance(chat.invoke("hello again").content, str)  # loads again, into the pool
    assert sorted(m.name for m in pool.loaded()) == ["chat"]


def test_chat_models_load_into_any_pool_and_are_sized_before_loading(tiny, tmp_path):
    settings = load_settings(cache_dir=tmp_path, models={"device": "cpu"}, planner={"backend": "transformers", "model": str(tiny.qwen3), "max_tokens": 2})
    pool = ModelPool(settings, specs={})  # a pool that knows no models
    planner = make_chat_model(settings, pool=pool)
    judge = make_chat_model(settings, "transformers", pool=pool, model=f"{tiny.qwen3}/")  # another id: a role of its own
    assert (planner.role, judge.role) == ("chat", f"chat:{tiny.qwen3}/") and pool.names() == sorted([planner.role, judge.role])
    weights = sum(f.stat().st_size for f in tiny.qwen3.glob("*.safetensors"))
    assert chat_spec(str(tiny.qwen3)).size_hint(settings) == role_spec("chat").size_hint(settings) == weights
    missing = chat_spec("acme/no-such-chat").check(settings)
    assert "acme/no-such-chat" in missing and "hf download acme/no-such-chat" in missing


def test_a_rule_planner_profile_loads_no_chat_model_even_with_weights_here(registry, tiny, tmp_path):
    offline = load_settings(cache_dir=tmp_path, planner={"model": str(tiny.qwen3)})
    with pytest.raises(ModelUnavailable, match="no chat model in the 'offline' profile"):
        ModelPool(offline).get("chat")
    why = registry.get("translate_text").missing_models(offline)
    assert "STARAGENT_MODELS__CHAT=transformers" in why and "hf download" not in why
    for chosen in ({"planner": {"backend": "transformers", "model": str(tiny.qwen3)}}, {"models": {"chat": "transformers"}, "planner": {"model": str(tiny.qwen3)}}):
        assert registry.get("translate_text").missing_models(load_settings(cache_dir=tmp_path, **chosen)) is None


def test_a_fixed_size_cache_decodes_the_same_tokens_and_steps_aside_when_it_cannot(tiny, tmp_path, monkeypatch, caplog):
    import torch

    settings = load_settings(cache_dir=tmp_path, models={"device": "cpu"}, planner={"backend": "transformers", "model": str(tiny.qwen3), "static_cache_tokens": 64})
    engine = ModelPool(settings).get("chat")
    assert engine.static_cache_tokens == 64  # the setting reaches the engine (off by default on the CPU)
    torch.manual_seed(0)
    prompts = [torch.randint(0, engine.model.config.vocab_size, (1, n)) for n in (12, 40, 90)]  # the last does not fit with its reply

    def decode_all() -> list[list[int]]:
        return [engine.generate_ids({"input_ids": p, "attention_mask": torch.ones_like(p)}, max_new_tokens=8, min_new_tokens=8).tolist() for p in prompts]

    fixed = decode_all()
    assert engine._static_cache is not None and engine._static_cache.get_max_length() == 64
    engine.static_cache_tokens = 0
    growing = decode_all()
    assert fixed == growing and len({tuple(t) for t in growing}) > 1  # same tokens, and not one reply for every prompt

    engine.static_cache_tokens, engine._static_cache = 64, None
    generate = engine.model.generate

    def no_compiler(*args, **kwargs):
        if kwargs.get("past_key_values") is not None:
            raise RuntimeError("no C compiler for the decoding step")
        return generate(*args, **kwargs)

    monkeypatch.setattr(engine.model, "generate", no_compiler)
    with caplog.at_level("WARNING", logger="staragent.models"):
        assert decode_all() == growing  # answered without the cache
    assert engine.static_cache_tokens == 0 and "no C compiler" in caplog.text
