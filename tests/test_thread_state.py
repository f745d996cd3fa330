"""A long conversation: the state each turn loads stops growing after the first few turns (its last
turns whole, earlier ones as question and answer), while the thread still reads back whole and in
order, and its answers, follow-ups included, are those of a thread that keeps every turn whole."""

import sqlite3

import pytest
from langchain_core.messages import HumanMessage, ToolMessage

from staragent.agent import compaction
from staragent.agent.runner import CHAT_DB, VideoAgent
from staragent.config import load_settings

# The load benchmark's questions about this video: a follow-up ("right after that") every sixth turn.
QUESTIONS = ["What is the price of the coffee grinder?", "Who is the keynote speaker?", "What was said right after that?",
             "How many visitors came?", "Where is the grinder made?", "What room is the keynote in?"]
TURNS = 30
COMPACT_TURN_BYTES = 2000
"""at most what a compacted turn (a question, an answer, the times it cited) adds to the state"""


def _questions(n: int) -> list[str]:
    return [QUESTIONS[i % len(QUESTIONS)] for i in range(n)]


def _state(agent: VideoAgent, video, thread: str) -> dict:
    from staragent.agent.graph import build_graph

    config = {"configurable": {"thread_id": f"{agent.session(video).index.dir.name}/{thread}"}}
    return build_graph(agent._checkpointer()).get_state(config).values


def _bytes(agent: VideoAgent, values: dict) -> int:
    """The state as the store keeps it (what the next turn loads)."""
    serde = agent._checkpointer().serde
    return sum(len(serde.dumps_typed(v)[1]) for v in values.values())


def _kept(answer) -> dict:
    """What a state without a transcript keeps of an answer (not how long it took)."""
    return answer.model_dump(exclude={"latency_s"})


def _whole(messages) -> int:
    """How many turns of ``messages`` still carry their tool results."""
    return sum(any(isinstance(m, ToolMessage) for m in turn) for turn in compaction.split_turns(messages))


def _run(agent: VideoAgent, video, thread: str, n: int) -> tuple[list, list[int], list[int]]:
    """Ask ``n`` questions in ``thread``: the answers, and after each turn the state's bytes and how
    many of its turns carry their tool results."""
    chat = agent.chat(video, thread)
    answers, sizes, results = [], [], []
    for question in _questions(n):
        answers.append(chat.ask(question))
        state = _state(agent, video, thread)
        sizes.append(_bytes(agent, state))
        results.append(_whole(state["messages"]))
    return answers, sizes, results


@pytest.fixture(scope="module")
def long_thread(foreign, foreign_index, session_cache):
    with VideoAgent(load_settings(cache_dir=session_cache, progress=False)) as agent:
        answers, sizes, results = _run(agent, foreign.path, "long", TURNS)
        state = _state(agent, foreign.path, "long")
    return answers, sizes, results, state


def test_the_state_a_turn_loads_stops_growing_with_the_thread(long_thread):
    _, sizes, results, state = long_thread
    six, last = sizes[5], sizes[-1]
    # every tool result of the first turns would add ~20 kB a turn; a compacted turn adds its question and answer
    assert last <= six + (TURNS - 6) * COMPACT_TURN_BYTES, sizes
    assert max(results) == compaction.FULL_TURNS + 1, results  # tool results of the turn and the few before it only
    assert [m.content for m in state["messages"] if isinstance(m, HumanMessage)] == _questions(TURNS)  # every question stays
    assert len(state["tool_memory"]) <= sum(len(a.trajectory) for a in long_thread[0][-compaction.FULL_TURNS:])


def test_a_long_thread_reads_back_whole_and_in_order_after_a_restart(long_thread, foreign, session_cache):
    answers = long_thread[0]
    with VideoAgent(load_settings(cache_dir=session_cache, progress=False)) as agent:
        turns = agent.turns(foreign.path, "long")
        listed = {t.thread_id: t for t in agent.threads(foreign.path)}["long"]
        history = agent.chat(foreign.path, "long").history()
    assert [q for q, _ in turns] == _questions(TURNS)
    assert [a for _, a in turns] == answers  # each as it was given: its evidence and its tool calls
    assert all(a.trajectory for _, a in turns[:-compaction.FULL_TURNS])  # compacted in the state, whole in the transcript
    assert listed.turns == TURNS and listed.title == QUESTIONS[0]
    assert [h["content"] for h in history[::2]] == _questions(TURNS)


def test_a_long_thread_answers_as_one_that_keeps_every_turn_whole(long_thread, foreign, session_cache, monkeypatch):
    monkeypatch.setattr(compaction, "FULL_TURNS", 10_000)
    with VideoAgent(load_settings(cache_dir=session_cache, progress=False)) as agent:
        whole, sizes, _ = _run(agent, foreign.path, "long-whole", TURNS)
    assert sizes[-1] > 3 * long_thread[1][-1]  # what the bound saves
    compacted = long_thread[0]
    assert [a.answer for a in compacted] == [a.answer for a in whole]
    assert [a.evidence for a in compacted] == [a.evidence for a in whole]


def test_a_follow_up_after_many_turns_points_at_the_last_answer(long_thread, foreign, session_cache):
    with VideoAgent(load_settings(cache_dir=session_cache, progress=False)) as agent:
        chat = agent.chat(foreign.path, "long")
        assert "129.50" in chat.ask("What is the price of the coffee grinder?").answer
        assert "Nairobi" in chat.ask("What was said right after that?").answer  # said right after the price


def test_a_thread_written_whole_without_a_transcript_reads_back_and_is_kept_whole(foreign, foreign_index, session_cache, monkeypatch):
    """A thread an older staragent wrote: every turn whole in the state, no transcript."""
    from staragent.agent.transcript import TABLE

    settings = load_settings(cache_dir=session_cache, progress=False)
    with monkeypatch.context() as older:
        older.setattr(compaction, "begin_turn", lambda state: {"steps": 0})  # the graph before: lists kept every turn's
        with VideoAgent(settings) as agent:
            given, _, _ = _run(agent, foreign.path, "older", 6)
    # its runner sliced each turn's steps off the end of that list
    given = [a.model_copy(update={"trajectory": a.trajectory[before:]}) for a, before in zip(given, [0, *(len(a.trajectory) for a in given)])]
    with sqlite3.connect(settings.cache_dir / CHAT_DB) as db:
        db.execute(f"DELETE FROM {TABLE} WHERE thread_id LIKE ?", ("%/older",))
    with VideoAgent(settings) as agent:
        assert [_kept(a) for _, a in agent.turns(foreign.path, "older")] == [_kept(a) for a in given]  # read from the state
        given.append(agent.chat(foreign.path, "older").ask("How many visitors came?"))  # compacts the state
        state = _state(agent, foreign.path, "older")
        assert [_kept(a) for _, a in agent.turns(foreign.path, "older")] == [_kept(a) for a in given]  # from the transcript, filled before
    assert compaction.is_compact(compaction.split_turns(state["messages"])[0])


def test_a_server_run_starts_each_turn_afresh_and_answers_as_the_runner(long_thread, foreign, session_cache):
    """As the LangGraph server runs the graph: its own checkpointer, and only the question as input
    (no step count): each turn starts with the whole step budget and empty lists of its own."""
    from langgraph.checkpoint.memory import InMemorySaver

    from staragent.agent.graph import AgentContext, build_graph

    settings = load_settings(cache_dir=session_cache, progress=False)
    with VideoAgent(settings) as agent:
        graph = build_graph(InMemorySaver())
        context = AgentContext(session=agent.session(foreign.path))
        config = {"configurable": {"thread_id": "server"}}
        for question, given in zip(_questions(12), long_thread[0], strict=False):
            out = graph.invoke({"messages": [{"role": "user", "content": question}]}, config, context=context)
            assert out["messages"][-1].content == given.answer
            assert [s["tool"] for s in out["trajectory"]] == [s.tool for s in given.trajectory]
            assert 1 <= out["steps"] <= settings.max_steps
    assert _whole(out["messages"]) == compaction.FULL_TURNS + 1
