"""What the page, the MCP server and the HTTP API share: which videos may be opened, uploads, the
token, one index build per video, the agent's steps as they happen, and kept conversations."""

import threading

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from staragent.access import TokenGate, check_binding
from staragent.agent.runner import Answered, ToolFinished, ToolStarted, VideoAgent
from staragent.agent.videos import VideoFolders
from staragent.config import load_settings
from staragent.errors import InputError
from staragent.index import builder
from staragent.index.stages import STAGES
from staragent.schema import Answer, Evidence
from staragent.ui import render
from staragent.ui.jobs import OpenJobs
from staragent.ui.pacing import batched


def test_only_videos_inside_the_allowed_folders_can_be_opened(tmp_path):
    inside = tmp_path / "videos"
    (inside / "talks").mkdir(parents=True)
    (inside / "talks" / "a.mp4").write_bytes(b"not really a video")
    (inside / "notes.txt").write_text("hello")
    secret = tmp_path / "secret.mp4"
    secret.write_bytes(b"private")
    (inside / "link.mp4").symlink_to(secret)
    folders = VideoFolders([inside], tmp_path / "cache" / "uploads")

    wanted = (inside / "talks" / "a.mp4").resolve()
    assert folders.resolve("talks/a.mp4") == wanted
    assert folders.resolve(str(wanted)) == wanted
    assert folders.resolve("talks/../talks/a.mp4") == wanted
    for bad in ["../secret.mp4", "talks/../../secret.mp4", str(secret), "link.mp4", "/etc/passwd", "notes.txt", "", "a.mp4\x00"]:
        with pytest.raises(InputError):
            folders.resolve(bad)
    assert folders.videos() == [wanted]


def test_a_single_video_can_be_allowed_on_its_own(tmp_path):
    video = tmp_path / "one.mp4"
    video.write_bytes(b"x")
    (tmp_path / "other.mp4").write_bytes(b"y")
    folders = VideoFolders([video])
    assert folders.resolve("one.mp4") == video.resolve()
    with pytest.raises(InputError):
        folders.resolve("other.mp4")


def test_uploads_are_typed_size_limited_and_kept_whole_in_the_cache(tmp_path):
    uploads = tmp_path / "cache" / "uploads"
    folders = VideoFolders([tmp_path / "videos"], uploads)
    data = b"\x00\x01" * 5000
    source = tmp_path / "incoming"
    source.write_bytes(data)
    with pytest.raises(InputError, match="limit"):
        folders.save_upload(source, "talk.mp4", 100, [".mp4"])
    with pytest.raises(InputError, match="accepted"):
        folders.save_upload(source, "talk.exe", 10**6, [".mp4"])
    kept = folders.save_upload(source, "../../my talk.mp4", 10**6, [".mp4"])
    assert kept.parent == uploads.resolve() and kept.suffix == ".mp4" and ".." not in kept.name
    assert kept.read_bytes() == data
    assert [p.name for p in uploads.iterdir()] == [kept.name]  # nothing half-written left beside it
    assert folders.resolve(kept.name) == kept  # an upload can be opened like any allowed video


def _hello(request):
    return PlainTextResponse("hello")


def test_serving_beyond_this_machine_needs_a_token_and_requests_must_carry_it():
    check_binding("127.0.0.1", None)
    check_binding("::1", None)
    with pytest.raises(InputError, match="token"):
        check_binding("0.0.0.0", None)
    check_binding("0.0.0.0", "s3cret")

    client = TestClient(TokenGate(Starlette(routes=[Route("/", _hello)]), "s3cret"))
    assert client.get("/").status_code == 401
    assert client.get("/", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/", headers={"Authorization": "Bearer s3cret"}).text == "hello"
    first = client.get("/?token=s3cret")  # a browser's first visit: the answer sets a cookie ...
    assert first.status_code == 200 and "staragent_token" in first.headers["set-cookie"]
    assert client.get("/").text == "hello"  # ... which the page's later requests carry


def test_timestamps_become_links_that_seek_but_the_videos_own_words_do_not():
    text = render.link_times("On screen at 0:00-0:10: “Doors open 19:30”, then said at 1:05 and again at 45:00.", duration=120)
    assert "[0:00-0:10](#t=0.00)" in text and "[1:05](#t=65.00)" in text
    assert "19:30](" not in text  # quoted: what the slide says, not a moment of the video
    assert "45:00](" not in text  # past the end of a two-minute video
    assert "<script>" not in render.link_times("<script>alert(1)</script> at 0:05")


def test_evidence_is_linked_with_thumbnails_beside_what_was_seen():
    answer = Answer(answer="The price is on screen at 0:05.", evidence=[
        Evidence(start=5, end=9, modality="ocr", text="Price: *$5*"),
        Evidence(start=5, end=9, modality="ocr", text="Sale"),
        Evidence(start=20, end=25, modality="speech", text="it costs five dollars"),
    ])
    shown = render.answer_markdown(answer, 60, lambda seconds: f"/frames/{seconds:.0f}.jpg")
    assert shown.count("(#t=5.00)") == 3 and "(#t=20.00)" in shown  # the answer's own time, and each piece of evidence
    assert shown.count("<img") == 1 and 'src="/frames/5.jpg"' in shown  # one thumbnail, for what was on screen
    assert r"\*$5\*" in shown  # the video's text is shown as written, not as Markdown


def test_the_agent_reports_each_tool_call_as_it_runs_then_the_answer(agent, foreign):
    events = list(agent.stream(foreign.path, "What is the price of the coffee grinder?"))
    assert isinstance(events[-1], Answered) and "129.50" in events[-1].answer.answer
    started = [e for e in events if isinstance(e, ToolStarted)]
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert started and [e.call_id for e in started] == [e.call_id for e in finished]
    for s in started:  # a call is announced before its result
        assert events.index(s) < next(i for i, e in enumerate(events) if isinstance(e, ToolFinished) and e.call_id == s.call_id)
    assert [f.step for f in finished] == events[-1].answer.trajectory


def test_steps_arriving_together_are_shown_in_one_update_without_holding_back_a_slow_one():
    slow_step_running, let_it_finish, closed = threading.Event(), threading.Event(), threading.Event()

    def steps():
        try:
            yield "search started"
            slow_step_running.set()
            let_it_finish.wait(30)
            yield from ("search finished", "read started", "read finished", "answer")
        finally:
            closed.set()

    updates = batched(steps(), interval=60)  # far longer than the test: nothing may wait for it
    assert next(updates) == ["search started"]  # shown while the step still runs
    assert slow_step_running.wait(10) and not let_it_finish.is_set()
    let_it_finish.set()
    assert list(updates) == [["search finished", "read started", "read finished", "answer"]]  # one update, sent at the end
    assert closed.is_set()


def test_a_failing_stream_fails_the_reader_and_a_page_that_leaves_stops_it():
    def failing():
        yield 1
        raise InputError("the question is empty")

    updates = batched(failing(), interval=0)
    assert next(updates) == [1]
    with pytest.raises(InputError, match="empty"):
        next(updates)

    stopped = threading.Event()

    def endless():
        try:
            while True:
                yield "step"
        finally:
            stopped.set()

    updates = batched(endless(), interval=0)
    assert next(updates)
    updates.close()
    assert stopped.wait(10)


def test_conversations_are_listed_and_resumable_after_a_restart(foreign, foreign_index, session_cache):
    settings = load_settings(cache_dir=session_cache, progress=False)
    with VideoAgent(settings) as agent:
        agent.ask(foreign.path, "What is the price of the coffee grinder?", thread_id="kept-a")
        agent.ask(foreign.path, "What was said right after that?", thread_id="kept-a")
        agent.ask(foreign.path, "How many visitors were there?", thread_id="kept-b")
    with VideoAgent(settings) as agent:  # as after a restart: only the SQLite store remains
        threads = {t.thread_id: t for t in agent.threads(foreign.path)}
        assert threads["kept-a"].turns == 2 and threads["kept-a"].title == "What is the price of the coffee grinder?"
        assert threads["kept-b"].turns == 1
        turns = agent.turns(foreign.path, "kept-a")
    assert [q for q, _ in turns] == ["What is the price of the coffee grinder?", "What was said right after that?"]
    first, second = turns[0][1], turns[1][1]
    assert "129.50" in first.answer and first.evidence and first.trajectory
    assert "Nairobi" in second.answer and [s.tool for s in second.trajectory] == ["transcribe_speech", "extract_scene_text"]


def test_requests_about_one_video_share_one_index_build(foreign, tmp_path, monkeypatch):
    builds = []
    run_stages = builder._run_stages
    monkeypatch.setattr(builder, "_run_stages", lambda *args: (builds.append(1), run_stages(*args)))
    with VideoAgent(load_settings(cache_dir=tmp_path / "cache", progress=False)) as agent:
        jobs = OpenJobs(agent)
        job = jobs.start(foreign.path)
        assert jobs.start(foreign.path) is job  # a second tab joins the first one's job
        sessions = []
        other = threading.Thread(target=lambda: sessions.append(agent.session(foreign.path)))  # e.g. an MCP request
        while job.total is None and not job.finished.is_set():
            job.finished.wait(0.05)
        other.start()
        job.finished.wait(300)
        other.join(300)
        assert job.state == "ready" and sessions == [agent.session(foreign.path)]
    assert builds == [1]
    assert [name for name, _ in job.stages] and {name for name, _ in job.stages} == {s.name for s in STAGES}
