"""Running the page and the MCP server under uvicorn, so that they stop when asked.

uvicorn stops gracefully on SIGTERM or Ctrl-C: it waits for the requests in flight. A turn of the
agent runs in a worker thread that nothing can interrupt, and the MCP server's shutdown waits for
its tool calls, so a long turn (a slow LLM, a video being indexed) would hold the process for as
long as it runs. Here the requests in flight get ``GRACE_S`` to finish; whatever is still running
``STOP_WITHIN_S`` after the signal is abandoned and the process leaves. Nothing is lost that was
kept: a turn is written to the conversation store only when it ends, in one transaction (see
``agent.threads``), and an index build resumes where it stopped.
"""

from __future__ import annotations

import os
import sys
import threading

GRACE_S = 2.0
STOP_WITHIN_S = 4.0


def serve_until_stopped(app, host: str, port: int) -> None:
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            _leave_after(STOP_WITHIN_S)
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=GRACE_S)
    Server(config).run()
    if _unfinished_work():
        _leave()  # a turn still running in a worker thread would keep the interpreter from exiting


def _unfinished_work() -> bool:
    return any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread())


def _leave_after(seconds: float) -> None:
    timer = threading.Timer(seconds, _leave)
    timer.daemon = True
    timer.start()


def _leave() -> None:
    print("staragent: stopped; a question still being answered was dropped (ask it again)", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
