"""The page: a video player beside a chat with the agent (Gradio, mounted on a FastAPI app that
also serves the video and keyframe thumbnails).

Endpoints the page adds to Gradio's own:
- ``GET /staragent/video/{key}``: the video opened under ``key`` (byte ranges, for seeking);
- ``GET /staragent/frame/{key}/{seconds}.jpg``: a thumbnail of the keyframe on screen at that time.
Keys exist only for videos opened through the page (and so checked against the allowed folders).
"""

from __future__ import annotations

import functools
import gc
import hashlib
import logging
import threading
import uuid
from pathlib import Path

from ..agent.runner import Answered, ToolFinished, ToolStarted
from ..agent.videos import VideoFolders
from ..errors import StarAgentError
from . import render
from .gradio_import import import_gradio
from .jobs import OpenJobs
from .pacing import batched

log = logging.getLogger("staragent.ui")
POLL_SECONDS = 0.3
UPDATE_SECONDS = 0.15  # the chat is redrawn at most this often while the agent works (see pacing)

# A click on any "#t=SECONDS" link seeks the player there and plays (capture phase: before
# Gradio's own link handling, which would open a new tab).
SEEK_SCRIPT = """
<script>
window.addEventListener("click", function (event) {
  var link = event.target.closest ? event.target.closest('a[href^="#t="]') : null;
  if (!link) return;
  event.preventDefault();
  event.stopPropagation();
  var seconds = parseFloat(link.getAttribute("href").slice(3));
  var player = document.getElementById("sa-player");
  if (!player || isNaN(seconds)) return;
  player.currentTime = seconds;
  var playing = player.play && player.play();
  if (playing && playing.catch) playing.catch(function () {});
}, true);
</script>
"""

CSS = """
#sa-player { width: 100%; max-height: 60vh; background: #000; border-radius: 8px; }
#sa-chat img.sa-thumb { width: 160px !important; max-width: 160px !important; height: auto !important; border-radius: 4px; margin-top: 4px; }
.sa-stages { margin: 4px 0 0 0; padding: 0; list-style: none; }
.sa-stages li { display: inline-block; margin: 0 0.9em 0 0; }
.sa-stages li::before { content: "✓ "; color: #2a7; }
.sa-progress { width: 100%; }
"""


class Library:
    """The videos the page has opened, under opaque keys (the only way the media routes find a file)."""

    def __init__(self, folders: VideoFolders):
        self.folders = folders
        self._paths: dict[str, Path] = {}
        self._lock = threading.Lock()

    def key(self, path: Path) -> str:
        key = hashlib.sha256(str(path).encode()).hexdigest()[:16]
        with self._lock:
            self._paths[key] = path
        return key

    def path(self, key: str) -> Path | None:
        with self._lock:
            return self._paths.get(key)

    def choices(self) -> list[tuple[str, str]]:
        """The dropdown's entries: each video named relative to its folder, valued by its path."""
        out = []
        for path in self.folders.videos():
            root = next((r for r in self.folders.all_roots if r == path or r in path.parents), None)
            label = str(path.relative_to(root)) if root is not None and root != path else path.name
            if self.folders.uploads is not None and root == self.folders.uploads:
                label = f"uploaded: {label}"
            out.append((label, str(path)))
        return out


def player_html(key: str | None) -> str:
    if key is None:
        return '<div class="sa-empty">Pick a video or upload one.</div>'
    return f'<video id="sa-player" src="/staragent/video/{key}" controls preload="metadata" playsinline></video>'


def build_app(agent, folders: VideoFolders):
    """The FastAPI app serving the page and its media routes."""
    from fastapi import FastAPI, HTTPException
    from fastapi.responses import FileResponse, Response

    gr = import_gradio()
    settings = agent.settings
    library = Library(folders)
    jobs = OpenJobs(agent)
    app = FastAPI(title="staragent", docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/staragent/video/{key}")
    def video_file(key: str):
        path = library.path(key)
        if path is None:
            raise HTTPException(404, "no such video")
        return FileResponse(path, headers={"Cache-Control": "private, max-age=3600"})

    @app.get("/staragent/frame/{key}/{seconds}.jpg")
    def frame(key: str, seconds: float):
        path = library.path(key)
        if path is None or not agent.opened(path):
            raise HTTPException(404, "no such video")
        data = _thumbnail(agent.session(path).index, seconds)
        if data is None:
            raise HTTPException(404, "no keyframe at that time")
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "private, max-age=3600"})

    def frame_url(key: str):
        return lambda seconds: f"/staragent/frame/{key}/{seconds:.2f}.jpg"

    # ------------------------------------------------------------------ event handlers
    def on_load(request: gr.Request):
        choices = library.choices()
        wanted = request.query_params.get("video") if request is not None else None
        value = None
        if wanted:
            try:
                value = str(folders.resolve(wanted))
            except StarAgentError as exc:
                gr.Warning(str(exc))
        elif len(choices) == 1:
            value = choices[0][1]
        if value is not None and value not in [v for _, v in choices]:
            choices.append((Path(value).name, value))
        return gr.update(choices=choices, value=value)

    on_load.__annotations__["request"] = gr.Request  # this module's annotations are strings; Gradio needs the class

    def open_video(name, state):
        """Open the picked video: the player at once, then the index's progress until it is ready."""
        state = dict(state or {})
        if not name:
            yield player_html(None), "", gr.update(choices=[], value=None), [], {}
            return
        try:
            path = folders.resolve(name)
        except StarAgentError as exc:
            yield player_html(None), render.progress_html(str(name), [], 0, None, "failed", str(exc)), gr.update(), [], {}
            return
        key = library.key(path)
        state = {"video": str(path), "key": key, "thread": None}
        job = jobs.start(path)
        yield player_html(key), render.progress_html(path.name, job.stages, job.done, job.total, job.state), gr.update(choices=[], value=None), [], state
        while not job.finished.wait(POLL_SECONDS):
            yield gr.update(), render.progress_html(path.name, job.stages, job.done, job.total, "running"), gr.update(), gr.update(), state
        if job.error:
            yield gr.update(), render.progress_html(path.name, job.stages, job.done, job.total, "failed", job.error), gr.update(), [], state
            return
        note = render.codec_note(agent.session(path).index.manifest.media.get("video_codec"))
        yield gr.update(), render.progress_html(path.name, job.stages, job.done, job.total, "ready", note), _thread_choices(path, None), [], state

    def _thread_choices(path: Path, selected: str | None):
        try:
            threads = agent.threads(path)
        except StarAgentError:
            threads = []
        return gr.update(choices=[(render.thread_label(t.title, t.turns, t.updated), t.thread_id) for t in threads], value=selected)

    def upload(file, state):
        if file is None:
            return gr.update()
        try:
            kept = folders.save_upload(
                file if isinstance(file, str) else file.name, Path(getattr(file, "orig_name", None) or str(file)).name,
                int(settings.serve.max_upload_mb * 2**20), settings.serve.upload_types,
            )
        except StarAgentError as exc:
            gr.Warning(str(exc))
            return gr.update()
        return gr.update(choices=library.choices(), value=str(kept))

    def ask(question, history, state):
        history = list(history or [])
        question = (question or "").strip()
        if not question:
            yield "", history, state, gr.update()
            return
        if not state or not state.get("video"):
            yield "", [*history, {"role": "user", "content": render.escape(question)}, render.error_message("pick a video first")], state, gr.update()
            return
        path, key = Path(state["video"]), state["key"]
        if not agent.opened(path):
            yield question, [*history, render.error_message("the video is still being opened; ask again when it is ready")], state, gr.update()
            return
        state = {**state, "thread": state.get("thread") or uuid.uuid4().hex[:12]}
        duration = agent.session(path).index.duration
        history.append({"role": "user", "content": render.escape(question)})
        yield "", history, state, gr.update()
        shown: dict[str, int] = {}
        try:
            for events in batched(agent.stream(path, question, thread_id=state["thread"]), UPDATE_SECONDS):
                for event in events:
                    if isinstance(event, ToolStarted):
                        shown[event.call_id] = len(history)
                        history.append(render.step_message(event.call_id, event.tool, event.args))
                    elif isinstance(event, ToolFinished):
                        message = render.step_message(event.call_id, event.step.tool, event.step.args, event.step, duration)
                        if event.call_id in shown:
                            history[shown[event.call_id]] = message
                        else:
                            history.append(message)
                    elif isinstance(event, Answered):
                        history.append({"role": "assistant", "content": render.answer_markdown(event.answer, duration, frame_url(key))})
                yield "", history, state, gr.update()
        except StarAgentError as exc:
            history.append(render.error_message(str(exc)))
        except Exception as exc:  # never a traceback on the page
            log.exception("answering %r failed", question)
            history.append(render.error_message(f"something went wrong ({type(exc).__name__}); the server's log has the details"))
        for i, message in enumerate(history):  # a step left open by a failure is closed
            if (message.get("metadata") or {}).get("status") == "pending":
                history[i] = {**message, "metadata": {**message["metadata"], "status": "done"}}
        yield "", history, state, _thread_choices(path, state["thread"])

    def resume(thread_id, state):
        if not thread_id or not state or not state.get("video"):
            return gr.update(), state
        path, key = Path(state["video"]), state["key"]
        try:
            duration = agent.session(path).index.duration
            history = []
            for question, answer in agent.turns(path, thread_id):
                history.append({"role": "user", "content": render.escape(question)})
                for n, step in enumerate(answer.trajectory):
                    history.append(render.step_message(f"{thread_id}-{len(history)}-{n}", step.tool, step.args, step, duration))
                history.append({"role": "assistant", "content": render.answer_markdown(answer, duration, frame_url(key))})
        except StarAgentError as exc:
            return [render.error_message(str(exc))], state
        return history, {**state, "thread": thread_id}

    def new_thread(state):
        return [], {**(state or {}), "thread": None}, gr.update(value=None)

    # ------------------------------------------------------------------ layout
    with gr.Blocks(title="staragent") as page:
        state = gr.State({})
        gr.Markdown(render.header(settings), elem_id="sa-header")
        with gr.Row(equal_height=False):
            with gr.Column(scale=5):
                with gr.Row():
                    picker = gr.Dropdown(label="Video", choices=[], value=None, elem_id="sa-video", scale=4)
                    uploader = gr.UploadButton(
                        "Upload a video", file_types=list(settings.serve.upload_types), elem_id="sa-upload", scale=1, size="md",
                    )
                player = gr.HTML(player_html(None), elem_id="sa-player-box", js_on_load=None)
                status = gr.HTML("", elem_id="sa-status", js_on_load=None)
                with gr.Row():
                    threads = gr.Dropdown(label="Conversation (kept; pick one to resume it)", choices=[], value=None, elem_id="sa-threads", scale=4)
                    fresh = gr.Button("New conversation", elem_id="sa-new", scale=1)
            with gr.Column(scale=6):
                chat = gr.Chatbot(elem_id="sa-chat", height="70vh", buttons=["copy"], feedback_options=None, group_consecutive_messages=False)
                with gr.Row():
                    question = gr.Textbox(placeholder="Ask about the video…", show_label=False, elem_id="sa-question", scale=5, submit_btn=True)

        page.load(on_load, inputs=None, outputs=picker)
        picker.change(open_video, [picker, state], [player, status, threads, chat, state], concurrency_limit=None)
        uploader.upload(upload, [uploader, state], picker, concurrency_limit=4)
        question.submit(ask, [question, chat, state], [question, chat, state, threads], concurrency_limit=None)
        threads.input(resume, [threads, state], [chat, state])
        fresh.click(new_thread, [state], [chat, state, threads])

    gr.mount_gradio_app(
        app, page, path="/", head=SEEK_SCRIPT, css=CSS, footer_links=[], show_error=False,
        max_file_size=int(settings.serve.max_upload_mb * 2**20), allowed_paths=[],
        ssr_mode=False, mcp_server=False,  # no Node.js renderer, and no MCP server of Gradio's: `staragent mcp` is ours
        run_history=False,  # conversations are kept as threads; Gradio would also copy every run into the browser's storage
    )
    return app


@functools.lru_cache(maxsize=512)
def _thumbnail_cached(index_dir: str, file: str, width: int = 240) -> bytes:
    import io

    from PIL import Image

    with Image.open(Path(index_dir) / "keyframes" / file) as image:
        image = image.convert("RGB")
        image.thumbnail((width, width))
        out = io.BytesIO()
        image.save(out, "JPEG", quality=80)
        return out.getvalue()


def _thumbnail(index, seconds: float) -> bytes | None:
    """The keyframe on screen at ``seconds`` (the last one starting before it), as a small JPEG."""
    frames = [k for k in index.keyframes if k.time <= seconds + 0.01 and k.file]
    if not frames:
        return None
    return _thumbnail_cached(str(index.dir), frames[-1].file)


def serve(agent, folders: VideoFolders, *, host: str = "127.0.0.1", port: int = 7860, token: str | None = None, echo=print) -> None:
    """Serve the page until interrupted."""
    import os

    cache = agent.settings.cache_dir
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # nothing leaves the machine
    # Gradio recomputes the statistics of its monitoring page (with pandas) after every event; the
    # page never shows them (monitoring is off), so they are never recomputed.
    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", str(2**62))
    os.environ.setdefault("GRADIO_TEMP_DIR", str(cache / "ui" / "incoming"))  # uploads land beside the cache: a move, not a copy
    from ..access import TokenGate
    from ..serving import serve_until_stopped

    # Nearly everything made while the page is built (Gradio's modules, the page's blocks) lives as
    # long as the server: the collector is paused meanwhile, and then told to leave those objects
    # out of its rounds, which otherwise walk them all again now and then, answers waiting.
    gc.disable()
    try:
        app = build_app(agent, folders)
        gc.freeze()
    finally:
        gc.enable()
    address = f"http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{port}/" + (f"?token={token}" if token else "")
    echo(f"staragent: the page for {folders.describe()} is at {address} (Ctrl-C stops)")
    serve_until_stopped(TokenGate(app, token) if token else app, host, port)

