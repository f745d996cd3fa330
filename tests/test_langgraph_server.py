"""The HTTP API: `langgraph dev` (langgraph-cli[inmem]) serves the graph named in langgraph.json,
and a thread runs through it with the official SDK (langgraph_sdk), as another program would."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from browser import free_port, wait_http

ROOT = Path(__file__).parent.parent
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(foreign, foreign_index, session_cache, tmp_path_factory):
    langgraph = shutil.which("langgraph", path=str(Path(os.sys.executable).parent)) or shutil.which("langgraph")
    if langgraph is None:
        pytest.skip("langgraph-cli is not installed (pip install 'staragent[server]')")
    port = free_port()
    # The server reads the graph's path relative to where it runs and keeps its state there: run it
    # in a folder of its own holding the project's langgraph.json and (a link to) the package.
    work = tmp_path_factory.mktemp("langgraph-dev")
    shutil.copy(ROOT / "langgraph.json", work / "langgraph.json")
    (work / "staragent").symlink_to(ROOT / "staragent")
    env = {**os.environ, "STARAGENT_CACHE_DIR": str(session_cache), "STARAGENT_SERVE__VIDEO_DIRS": json.dumps([str(foreign.path.parent)]),
           "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGSMITH_TRACING": "false"}
    env.pop("LANGSMITH_API_KEY", None)
    with open(work / "server.log", "w") as log:
        process = subprocess.Popen([langgraph, "dev", "--config", "langgraph.json", "--port", str(port), "--no-browser", "--no-reload"],
                                   cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_http(f"http://127.0.0.1:{port}/ok", 180, process)
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(timeout=20)


def test_a_thread_runs_through_the_langgraph_server(server, foreign):
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=server)
    assert "staragent" in {a["graph_id"] for a in client.assistants.search()}
    thread = client.threads.create()
    context = {"video": str(foreign.path), "profile": "offline"}
    first = client.runs.wait(thread["thread_id"], "staragent", input={"messages": [{"role": "user", "content": "What is the price of the coffee grinder?"}]}, context=context)
    assert "129.50" in first["messages"][-1]["content"]
    assert any("129.50" in e["text"] and e["start"] < 10 for e in first["evidence"])  # the state carries the evidence with its times
    steps = [chunk.data for chunk in client.runs.stream(
        thread["thread_id"], "staragent", input={"messages": [{"role": "user", "content": "What was said right after that?"}]},
        context={"video": "conference.mp4"}, stream_mode=["custom", "values"]) if chunk.event in ("custom", "values")]
    assert any(isinstance(s, dict) and s.get("event") == "tool_started" for s in steps)  # tool calls stream as they run
    assert "Nairobi" in steps[-1]["messages"][-1]["content"]  # the thread remembered what "that" was
    # the server's store (langgraph.json's checkpointer) keeps the thread's latest state only, on disk
    assert len(client.threads.get_history(thread["thread_id"])) == 1


def test_the_langgraph_server_refuses_videos_outside_its_folders(server):
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=server)
    thread = client.threads.create()
    with pytest.raises(Exception, match="InputError"):
        client.runs.wait(thread["thread_id"], "staragent", input={"messages": [{"role": "user", "content": "What does it say?"}]},
                         context={"video": "../../../etc/passwd"})
