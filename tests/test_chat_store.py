"""The conversation store: a thread keeps its latest state only, and a turn cut short is dropped
before the next question, so follow-ups keep working."""

import sqlite3

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from staragent.agent import graph as agent_graph
from staragent.agent.runner import CHAT_DB, VideoAgent
from staragent.config import load_settings


def _state(agent: VideoAgent, video, thread: str) -> dict:
    from staragent.agent.graph import build_graph

    config = {"configurable": {"thread_id": f"{agent.session(video).index.dir.name}/{thread}"}}
    return build_graph(agent._checkpointer()).get_state(config).values


def _checkpoints(cache, thread: str) -> int:
    with sqlite3.connect(cache / CHAT_DB) as db:
        return db.execute("SELECT count(*) FROM checkpoints WHERE thread_id LIKE ?", (f"%/{thread}",)).fetchone()[0]


def _dangling_calls(messages) -> list[str]:
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls if c["id"] not in answered]


def test_a_thread_keeps_one_checkpoint_and_resumes(foreign, foreign_index, session_cache):
    settings = load_settings(cache_dir=session_cache, progress=False)
    questions = ["How many visitors came?", "Who is the keynote speaker?", "What is the price of the coffee grinder?"]
    with VideoAgent(settings) as agent:
        chat = agent.chat(foreign.path, "t-store")
        for question in questions:
            chat.ask(question)
        assert _checkpoints(settings.cache_dir, "t-store") == 1
        kept = _state(agent, foreign.path, "t-store")
    assert [m.content for m in kept["messages"] if isinstance(m, HumanMessage)] == questions
    with VideoAgent(settings) as agent:
        again = agent.chat(foreign.path, "t-store").ask("What was said right after that?")
    assert "Nairobi" in again.answer  # right after the last answer: the grinder's price


@pytest.mark.parametrize("durability", ["exit", "sync"])
def test_a_turn_stopped_mid_tool_call_is_dropped_before_the_next(foreign, foreign_index, session_cache, monkeypatch, durability):
    """Ctrl-C while a tool runs: LangGraph saves the state on the way out ("exit"), or an older
    staragent had saved every step ("sync"); either way the thread holds a call without a result."""
    from staragent.agent import threads

    settings = load_settings(cache_dir=session_cache, progress=False)
    thread = f"t-cut-{durability}"
    with VideoAgent(settings) as agent:
        chat = agent.chat(foreign.path, thread)
        assert "129.50" in chat.ask("What is the price of the coffee grinder?").answer

        def interrupted(*args, **kwargs):
            raise KeyboardInterrupt

        monkeypatch.setattr(agent_graph, "_run_tool", interrupted)
        monkeypatch.setattr(threads, "DURABILITY", durability)
        with pytest.raises(KeyboardInterrupt):
            chat.ask("Who is the keynote speaker?")
        left = _state(agent, foreign.path, thread)
        assert _dangling_calls(left["messages"]) and isinstance(left["messages"][-1], AIMessage)
    monkeypatch.undo()
    with VideoAgent(settings) as agent:
        follow_up = agent.chat(foreign.path, thread).ask("What was said right after that?")
        kept = _state(agent, foreign.path, thread)
    assert "Nairobi" in follow_up.answer  # refers to the last answered turn: the grinder's price
    assert [m.content for m in kept["messages"] if isinstance(m, HumanMessage)] == [
        "What is the price of the coffee grinder?", "What was said right after that?"]
    assert not _dangling_calls(kept["messages"])
    last_question = max(i for i, m in enumerate(kept["messages"]) if isinstance(m, HumanMessage))
    assert len(kept["trajectory"]) == len([m for m in kept["messages"][last_question:] if isinstance(m, ToolMessage)])  # the last turn's steps
