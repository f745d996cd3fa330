"""MCP both ways, through the official SDK: `staragent mcp` serving the agent (standard input and
output; streamable HTTP behind a token), and MCP servers plugged in as the agent's tools
(``toolset.mcp_servers``), with the same name-clash rule as entry-point plug-ins."""

import asyncio
import logging
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from browser import free_port
from click.testing import CliRunner
from test_agent import ScriptedModel

from staragent.agent.runner import VideoAgent
from staragent.cli import main
from staragent.config import load_settings
from staragent.tools import ToolRegistry

TINY_SERVER = str(Path(__file__).with_name("tiny_mcp_server.py"))


def wait_port(port: int, process: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port}")


@pytest.fixture
def served(tmp_path):
    """Start a server process; stopped after the test."""
    processes = []

    def start(*args):
        process = subprocess.Popen([sys.executable, *map(str, args)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(process)
        return process

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


def test_the_mcp_server_answers_over_stdio_with_timestamps_and_only_about_allowed_videos(foreign, foreign_index, session_cache):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "staragent", "--quiet", "--cache-dir", str(session_cache), "mcp", str(foreign.path.parent)])
    video = str(foreign.path)

    async def session():
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            listed = await client.call_tool("list_videos", {})
            price = await client.call_tool("ask", {"video": video, "question": "What is the price of the coffee grinder?", "thread": "mcp-1"})
            after = await client.call_tool("ask", {"video": "conference.mp4", "question": "What was said right after that?", "thread": "mcp-1"})
            hits = await client.call_tool("search", {"video": video, "query": "visitors", "k": 3})
            speech = await client.call_tool("transcribe_speech", {"video": video, "timestamp": "0:10-0:15"})
            outside = await client.call_tool("ask", {"video": "../../../etc/passwd", "question": "what does it say?"})
            absolute = await client.call_tool("search", {"video": "/etc/passwd", "query": "root"})
            return names, listed, price, after, hits, speech, outside, absolute

    names, listed, price, after, hits, speech, outside, absolute = asyncio.run(session())
    assert {"ask", "search", "index", "list_videos", "transcribe_speech", "cross_modal_search", "extract_scene_text"} <= names
    assert listed.structured_content["videos"] == [str(foreign.path.resolve())]
    answer = price.structured_content
    assert "129.50" in answer["answer"]
    cited = [e for e in answer["evidence"] if "129.50" in e["text"]]
    assert cited and cited[0]["start"] < 10 and cited[0]["timestamp"].startswith("0:0")
    assert "Nairobi" in after.structured_content["answer"]  # the thread carried "that" over
    assert hits.structured_content["hits"][0]["start"] >= 28 and hits.structured_content["hits"][0]["timestamp"]
    assert speech.structured_content["evidence"][0]["start"] == pytest.approx(11.0, abs=0.5)
    for refused in (outside, absolute):
        assert refused.is_error and "may open" in refused.content[0].text and "root:" not in refused.content[0].text


def test_the_mcp_server_over_http_needs_its_token(foreign, foreign_index, session_cache, served):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    process = served("-m", "staragent", "--quiet", "--cache-dir", session_cache, "mcp", foreign.path.parent, "--http", "--port", port, "--token", "s3cret")
    wait_port(port, process)
    url = f"http://127.0.0.1:{port}/mcp"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(urllib.request.Request(url, data=b"{}", headers={"Content-Type": "application/json"}), timeout=10)
    assert refused.value.code == 401

    async def session():
        async with httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"}, timeout=120) as http, \
                Client(streamable_http_client(url, http_client=http)) as client:
            return await client.call_tool("search", {"video": str(foreign.path), "query": "keynote speaker"})

    found = asyncio.run(session()).structured_content
    assert any("Amara" in e["text"] or "keynote" in e["text"].lower() for hit in found["hits"] for e in hit["evidence"])
    assert all(hit["timestamp"] and hit["end"] > hit["start"] for hit in found["hits"])


@pytest.mark.parametrize("command", ["mcp --http", "ui"])
def test_serving_beyond_this_machine_without_a_token_is_refused(command, tmp_path):
    result = CliRunner().invoke(main, ["--cache-dir", str(tmp_path), *command.split(), "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "token" in result.output


def test_an_mcp_servers_tools_join_the_agents_own(foreign, foreign_index, session_cache, caplog):
    settings = load_settings(cache_dir=session_cache, progress=False, toolset={"mcp_servers": {"tiny": {"command": [sys.executable, TINY_SERVER]}}})
    with caplog.at_level(logging.WARNING, logger="staragent.tools"):
        registry = ToolRegistry.discover(settings=settings)
    assert {"count_words", "opening_moment"} <= set(registry.names()) and "tiny" in registry.origins["count_words"]
    assert registry.origins["calculator"] == "built-in"  # the server's calculator is skipped, with a warning naming both
    assert any("calculator" in r.getMessage() and "built-in" in r.getMessage() for r in caplog.records)
    assert "video" not in registry.get("opening_moment").schema()["function"]["parameters"]["properties"]  # filled in, not chosen

    script = [{"name": "count_words", "args": {"text": "one two three"}}, {"name": "opening_moment", "args": {}}]
    with VideoAgent(settings, chat_model=ScriptedModel(script=script)) as agent:
        answer = agent.ask(foreign.path, "How many words, and how does it open?")
    assert [(s.tool, s.ok) for s in answer.trajectory] == [("count_words", True), ("opening_moment", True)]
    assert '"words": 3' in answer.trajectory[0].summary
    assert any(e.text == "the opening of conference.mp4" and e.start == 0 and e.end == 1 for e in answer.evidence)


def test_an_mcp_server_reached_by_url_works_too(foreign, foreign_index, session_cache, served):
    from staragent.agent.session import open_tool_context

    port = free_port()
    wait_port(port, served(TINY_SERVER, "--http", port))
    settings = load_settings(cache_dir=session_cache, progress=False, toolset={"mcp_servers": {"remote": {"url": f"http://127.0.0.1:{port}/mcp"}}})
    tool = ToolRegistry.discover(settings=settings).get("count_words")
    assert tool(open_tool_context(foreign.path, settings), {"text": "a b c d"}).data == {"words": 4}


def test_an_unreachable_mcp_server_is_skipped_with_a_warning(session_cache, caplog):
    settings = load_settings(cache_dir=session_cache, progress=False, toolset={"mcp_servers": {"gone": {"command": [sys.executable, "-c", "raise SystemExit(3)"]}}})
    with caplog.at_level(logging.WARNING, logger="staragent.tools"):
        registry = ToolRegistry.discover(settings=settings)
    assert "calculator" in registry and any("gone" in r.getMessage() for r in caplog.records)
