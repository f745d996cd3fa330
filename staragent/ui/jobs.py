"""Opening videos for the page: one background job per video, shared by every tab that asks for
it, so two people opening the same video wait for one index build and both watch its progress."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from ..errors import StarAgentError
from ..index.progress import StageProgress

log = logging.getLogger("staragent.ui")


class OpenJob:
    """Builds (or loads) one video's index and opens its session, recording progress as it goes."""

    def __init__(self, agent, video: Path):
        self.video = video
        self.stages: list[tuple[str, float]] = []
        self.done = 0
        self.total: int | None = None
        self.notes: list[str] = []
        self.error: str | None = None
        self.finished = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(agent,), name=f"open-{video.name}", daemon=True)
        self._thread.start()

    def _report(self, line: str) -> None:
        if isinstance(line, StageProgress):
            self.total = line.total
            if line.stage is not None:
                self.stages.append((line.stage, line.seconds))
                self.done = line.done
        else:
            self.notes.append(str(line))

    def _run(self, agent) -> None:
        try:
            agent.prepare(self.video, report=self._report)
        except StarAgentError as exc:
            self.error = str(exc)
        except Exception as exc:  # shown as a message on the page; the traceback goes to the log
            log.exception("opening %s failed", self.video)
            self.error = f"opening the video failed ({type(exc).__name__}); the server's log has the details"
        finally:
            self.finished.set()

    @property
    def state(self) -> str:
        if not self.finished.is_set():
            return "running"
        return "failed" if self.error else "ready"


class OpenJobs:
    def __init__(self, agent):
        self.agent = agent
        self._jobs: dict[Path, OpenJob] = {}
        self._lock = threading.Lock()

    def start(self, video: Path) -> OpenJob:
        """The job opening ``video``: the one under way or done, or a new one (also after a failure,
        so that fixing the cause and trying again works)."""
        with self._lock:
            job = self._jobs.get(video)
            if job is None or job.state == "failed":
                job = self._jobs[video] = OpenJob(self.agent, video)
            return job
