"""Load benchmark: many people asking at once through each of staragent's three servers.

For each server (`staragent mcp --http`, the LangGraph server of `langgraph dev`, and the page of
`staragent ui`), started fresh on a copy of a cache where two generated videos are already indexed:
CLIENTS clients ask questions about those two videos for SECONDS, each in a thread of its own, while
one more client has the server index a third video. Offline profile (rule planner, no LLM).

Measured: requests per second, latency percentiles, errors, the server's memory (RSS of its process
tree, sampled every few seconds) and, after the load, every client's thread read back: it must hold
exactly that client's questions, in order (for the page and MCP from the conversation store once the
server has stopped, as a restart would see it; for the LangGraph server from its own thread API).

    python perf/run.py load                                   # 20 clients, 120 s, all three servers
    python perf/run.py load --seconds 10 --clients 3 --servers mcp   # a smoke run

Traffic goes to 127.0.0.1 only; every loop is bounded in count and in time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from common import ROOT, WORK, percentile, save
from load_clients import Target, open_client

SERVERS = ("mcp", "langgraph", "page")
SAMPLE_EVERY_S = 2.0
MAX_QUESTIONS_PER_CLIENT = 10_000  # a bound beside the clock: no client loops without end
SETTLED_AFTER_S = 60.0  # memory is judged from here on ("flat after the first minute")
FLAT_TREND = 0.01  # growth a minute, as a share of the size at the settled mark, that still counts as flat
START_TIMEOUT_S = 180.0
QUESTIONS = {
    "conference": ["What is the price of the coffee grinder?", "Who is the keynote speaker?", "What was said right after that?",
                   "How many visitors came?", "Where is the grinder made?", "What room is the keynote in?"],
    "lecture": ["What equation is on the slide?", "What does the French sign say?", "What is said in French?",
                "What is the total on the slide?"],
}


@dataclass
class ClientRecord:
    """One asking client: what it sent, what came back, and what its thread held afterwards."""

    video: str
    sent: list[str] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)
    latencies_s: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    kept: list[str] | None = None
    check_error: str | None = None

    def intact(self) -> bool:
        """The thread holds this client's questions only, in the order asked, every answered one among them."""
        if self.kept is None:
            return False
        remaining = iter(self.sent)  # each ``in`` consumes the iterator up to the match: an order check
        return all(q in remaining for q in self.kept) and set(self.answered) <= set(self.kept)

    def lost(self) -> int:
        return len(set(self.answered) - set(self.kept or []))

    def foreign(self) -> int:
        return sum(1 for q in self.kept or [] if q not in set(self.sent))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(cache: Path, videos: Path, packs: Path, extra: dict | None = None) -> dict:
    env = {**os.environ, **(extra or {}), "STARAGENT_CACHE_DIR": str(cache), "STARAGENT_MODELS__PACK_CACHE": str(packs),
           "STARAGENT_SERVE__VIDEO_DIRS": json.dumps([str(videos)]), "GRADIO_ANALYTICS_ENABLED": "False",
           "HF_HUB_OFFLINE": "1", "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGSMITH_TRACING": "false", "PYTHONUNBUFFERED": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))  # this checkout's staragent
    env.pop("LANGSMITH_API_KEY", None)
    return env


def server_command(kind: str, videos: Path, port: int, work: Path) -> tuple[list[str], Path, str]:
    """The command line, the folder it runs in, and the URL that answers 200 once it is up."""
    base = f"http://127.0.0.1:{port}"
    if kind == "mcp":
        return [sys.executable, "-m", "staragent", "--quiet", "mcp", str(videos), "--http", "--port", str(port)], work, ""
    if kind == "page":
        return [sys.executable, "-m", "staragent", "--quiet", "ui", str(videos), "--port", str(port)], work, base + "/"
    if kind == "langgraph":
        # the server reads the graph's path relative to where it runs, and keeps its state there
        shutil.copy(ROOT / "langgraph.json", work / "langgraph.json")
        with contextlib.suppress(FileExistsError):
            (work / "staragent").symlink_to(ROOT / "staragent")
        langgraph = shutil.which("langgraph", path=str(Path(sys.executable).parent)) or shutil.which("langgraph")
        if langgraph is None:
            raise RuntimeError("langgraph-cli is not installed (pip install 'staragent[server]')")
        return [langgraph, "dev", "--config", "langgraph.json", "--port", str(port), "--no-browser", "--no-reload"], work, base + "/ok"
    raise ValueError(f"unknown server {kind!r}; pick from {', '.join(SERVERS)}")


def wait_ready(port: int, url: str, process: subprocess.Popen, timeout: float = START_TIMEOUT_S) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode} before it was ready")
        try:
            if url:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return
            else:
                with socket.create_connection(("127.0.0.1", port), timeout=2):
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"the server did not answer within {timeout:.0f} s")


@contextlib.contextmanager
def running_server(kind: str, videos: Path, cache: Path, packs: Path, work: Path,
                   extra_env: dict | None = None) -> Iterator[tuple[Target, subprocess.Popen]]:
    port = free_port()
    work.mkdir(parents=True, exist_ok=True)
    command, cwd, ready_url = server_command(kind, videos, port, work)
    with open(work / "server.log", "w") as log:
        process = subprocess.Popen(command, cwd=cwd, env=server_env(cache, videos, packs, extra_env), stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            wait_ready(port, ready_url, process)
            yield Target(kind, f"http://127.0.0.1:{port}", cache), process
        finally:
            stop(process)


def stop(process: subprocess.Popen, grace: float = 20.0) -> None:
    """SIGTERM to the server's process group (langgraph dev has children), SIGKILL after ``grace``."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def tree_rss_mb(pid: int) -> float:
    import psutil

    root = psutil.Process(pid)
    total = 0
    for p in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total / 2**20


def sample_memory(pid: int, until: float, samples: list[tuple[float, float]], started: float) -> None:
    while time.monotonic() < until:  # bounded by the window's end
        with contextlib.suppress(Exception):
            samples.append((round(time.monotonic() - started, 1), round(tree_rss_mb(pid), 1)))
        time.sleep(SAMPLE_EVERY_S)


def memory_summary(samples: list[tuple[float, float]], seconds: float) -> dict:
    if not samples:
        return {"samples": [], "flat": None}
    mark = min(SETTLED_AFTER_S, seconds / 2)  # a short run is judged on its second half
    settled = [(t, mb) for t, mb in samples if t >= mark] or samples[-1:]
    at_mark = settled[0][1]
    trend = trend_mb_per_min(settled)
    return {
        "sample_every_s": SAMPLE_EVERY_S, "samples": samples, "start_mb": samples[0][1], "settled_after_s": mark,
        "at_settled_mb": at_mark, "end_mb": samples[-1][1], "max_mb": max(mb for _, mb in samples),
        "growth_after_settled_mb": round(max(mb for _, mb in settled) - at_mark, 1), "trend_mb_per_min": round(trend, 1),
        "flat": trend <= FLAT_TREND * at_mark,
    }


def trend_mb_per_min(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of RSS over time, in MB a minute."""
    if len(points) < 2:
        return 0.0
    mean_t = sum(t for t, _ in points) / len(points)
    mean_mb = sum(mb for _, mb in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    return 60 * sum((t - mean_t) * (mb - mean_mb) for t, mb in points) / spread if spread else 0.0


def ask_loop(client, record: ClientRecord, questions: list[str], number: int, deadline: float) -> None:
    for n in range(MAX_QUESTIONS_PER_CLIENT):
        if time.monotonic() >= deadline:
            return
        question = f"{questions[(number + n) % len(questions)]} (client {number}, question {n + 1})"
        record.sent.append(question)
        started = time.perf_counter()
        try:
            client.ask(question)
        except Exception as exc:  # every kind of failure counts, and the loop goes on
            record.errors.append(f"{type(exc).__name__}: {exc}"[:300])
            continue
        record.latencies_s.append(time.perf_counter() - started)
        record.answered.append(question)


def index_once(client, video: Path, report: dict) -> None:
    started = time.perf_counter()
    try:
        client.index(video)
        report.update(ok=True)
    except Exception as exc:
        report.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:300])
    report["seconds"] = round(time.perf_counter() - started, 2)


def questions_for(video: Path) -> list[str]:
    return QUESTIONS.get(video.stem) or ["What is said in this video?", "What is shown on screen?"]


def run_server(kind: str, videos: list[Path], to_index: Path | None, cache: Path, packs: Path, work: Path,
               clients: int = 20, seconds: float = 120.0) -> dict:
    """Start one server, put it under load, read every client's thread back, and stop it."""
    folder = videos[0].parent
    records = [ClientRecord(video=str(videos[i % len(videos)])) for i in range(clients)]
    samples: list[tuple[float, float]] = []
    indexing: dict = {"video": str(to_index) if to_index else None}
    with running_server(kind, folder, cache, packs, work) as (target, process):
        for video in videos:  # each video's session opened before the clock starts
            warm = open_client(target, video, "warm-up")
            warm.ask(questions_for(video)[0])
            warm.close()
        opened = [open_client(target, Path(r.video), f"load-{i}") for i, r in enumerate(records)]
        indexer = open_client(target, videos[0], "indexer") if to_index else None
        started = time.monotonic()
        deadline = started + seconds
        workers = [threading.Thread(target=sample_memory, args=(process.pid, deadline, samples, started), daemon=True)]
        workers += [threading.Thread(target=ask_loop, args=(c, r, questions_for(Path(r.video)), i, deadline), daemon=True)
                    for i, (c, r) in enumerate(zip(opened, records, strict=True))]
        if indexer is not None:
            workers.append(threading.Thread(target=index_once, args=(indexer, to_index, indexing), daemon=True))
        for w in workers:
            w.start()
        for w in workers:  # a request started just before the deadline may run its full time limit
            w.join(max(0.0, deadline - time.monotonic()) + 150)
        elapsed = time.monotonic() - started
        if kind == "langgraph":  # its threads live in the server's memory
            check_threads(opened, records)
        for c in [*opened, *([indexer] if indexer else [])]:
            with contextlib.suppress(Exception):
                c.close()
        shutdown_started = time.perf_counter()
    stopped_s = time.perf_counter() - shutdown_started
    if kind != "langgraph":  # read from the store, as a restarted server would
        check_threads(opened, records)
    return summarise(kind, records, samples, indexing, clients, seconds, elapsed, stopped_s)


def check_threads(clients: list, records: list[ClientRecord]) -> None:
    for client, record in zip(clients, records, strict=True):
        try:
            record.kept = client.kept_questions()
        except Exception as exc:
            record.check_error = f"{type(exc).__name__}: {exc}"[:300]


def summarise(kind: str, records: list[ClientRecord], samples, indexing: dict, clients: int, seconds: float,
              elapsed: float, stopped_s: float) -> dict:
    latencies = [s for r in records for s in r.latencies_s]
    errors = [e for r in records for e in r.errors]
    answered = sum(len(r.answered) for r in records)
    return {
        "server": kind, "clients": clients, "seconds": seconds, "elapsed_s": round(elapsed, 1),
        "requests": answered + len(errors), "answered": answered, "errors": len(errors), "error_samples": sorted(set(errors))[:5],
        "requests_per_s": round(answered / elapsed, 2) if elapsed else None,
        "latency_s": {"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95), "p99": percentile(latencies, 0.99),
                      "max": max(latencies, default=None)},
        "threads": {"checked": sum(r.kept is not None for r in records), "intact": sum(r.intact() for r in records),
                    "lost_turns": sum(r.lost() for r in records), "foreign_turns": sum(r.foreign() for r in records),
                    "check_errors": sorted({r.check_error for r in records if r.check_error})[:3]},
        "memory": memory_summary(samples, seconds),
        "indexing": indexing,
        "stop_after_load_s": round(stopped_s, 2),
        "clients_detail": [{**asdict(r), "latencies_s": None, "intact": r.intact()} for r in records if not r.intact()][:3],
    }


def prepare(work: Path) -> tuple[list[Path], Path, Path, Path]:
    """Generated media (two videos to ask about, a third to index under load), the first two indexed
    into a base cache, outside any timed window."""
    sys.path.insert(0, str(ROOT / "tests"))
    from media_factory import conference_video, lecture_video, tour_video

    from staragent.config import load_settings
    from staragent.index.builder import build_index

    videos, base, packs = work / "videos", work / "base-cache", work / "packs"
    videos.mkdir(parents=True, exist_ok=True)
    made = {"conference.mp4": lambda p: conference_video(p, subtitles="vtt"),
            "lecture.mp4": lambda p: lecture_video(p, subtitles="srt"), "tour.mp4": tour_video}
    for name, make in made.items():
        if not (videos / name).exists():
            make(videos / name)
    asked = [videos / "conference.mp4", videos / "lecture.mp4"]
    os.environ["STARAGENT_MODELS__PACK_CACHE"] = str(packs)
    for video in asked:
        build_index(video, load_settings(cache_dir=base, progress=False))
    return asked, videos / "tour.mp4", base, packs


def fresh_cache(base: Path, into: Path) -> Path:
    """A copy of the base cache (the two indexes, no conversations) for one server's run."""
    shutil.rmtree(into, ignore_errors=True)
    shutil.copytree(base / "index", into / "index", ignore=shutil.ignore_patterns(".locks"))
    return into


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="perf/run.py load", description="Load on the three servers.")
    parser.add_argument("--seconds", type=float, default=120.0, help="length of the load on each server (default 120)")
    parser.add_argument("--clients", type=int, default=20, help="clients asking at once (default 20)")
    parser.add_argument("--servers", nargs="+", choices=SERVERS, default=list(SERVERS))
    parser.add_argument("--note", default="", help="what else ran on the machine, for the report (e.g. 'shared with 3 other jobs')")
    return parser.parse_args(argv)


def main(*argv: str) -> dict:
    options = parse(list(argv))
    work = WORK / "load"
    load_before = os.getloadavg()[0]
    asked, third, base, packs = prepare(work)
    results = {}
    for kind in options.servers:
        print(f"load: {kind}, {options.clients} clients, {options.seconds:.0f} s", flush=True)
        shutil.rmtree(work / kind, ignore_errors=True)  # langgraph dev reloads the threads it saved in its folder
        cache = fresh_cache(base, work / kind / "cache")
        results[kind] = run_server(kind, asked, third, cache, packs, work / kind, options.clients, options.seconds)
        r = results[kind]
        print(f"  {r['requests_per_s']} req/s, p50 {r['latency_s']['p50']:.3f} s, errors {r['errors']}, "
              f"threads intact {r['threads']['intact']}/{options.clients}, memory flat: {r['memory']['flat']}", flush=True)
    data = {
        "section": "load", "command": shlex.join(["python", "perf/run.py", "load", *argv]),
        "clients": options.clients, "seconds": options.seconds, "profile": "offline (rule planner, no LLM)",
        "videos": [v.name for v in asked], "indexed_under_load": third.name, "note": options.note,
        "load_average_before": load_before, "load_average_after": os.getloadavg()[0], "servers": results,
    }
    if options.clients == 20 and options.seconds >= 120 and set(options.servers) == set(SERVERS):
        save("load_cpu", data)  # only the full run is the published figure
    return data


if __name__ == "__main__":
    main(*sys.argv[1:])
