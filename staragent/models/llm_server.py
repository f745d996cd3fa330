"""``staragent llm serve``: a bundled chat model (or any GGUF file) behind llama.cpp's
OpenAI-compatible server, so the agent can plan with a real LLM on a machine without a GPU.

The model is a pack (``bundled.CHAT_PACKS``), assembled once into the cache and checked against its
sha256 there, or a GGUF file named by path. The server is llama-cpp-python's ``[server]`` extra
(FastAPI under uvicorn), run in this process: the port is checked before the model loads, the base
URL and model id are printed once it accepts connections, and Ctrl-C or SIGTERM shut it down
gracefully (uvicorn finishes the request in flight, then returns here).
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..config import usable_cores
from ..errors import InputError, ModelUnavailable
from .bundled import CHAT_PACKS, PACKS
from .packs import Pack, pack_dir

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765
DEFAULT_CONTEXT = 8192
STOP_GRACE_S = 3
"""seconds a stopping server waits for the requests in flight"""
RUNTIME_HINT = "pip install 'staragent[llm]' (llama-cpp-python builds from source the first time: about 20 minutes on 2 cores)"


@dataclass(frozen=True)
class ServedModel:
    path: Path
    model_id: str
    """the name the server reports and clients send as ``model``"""
    pack: Pack | None = None


def resolve_model(spec: str | None, cache_dir: Path) -> ServedModel:
    """The model to serve: a chat pack by name, a GGUF file by path, or (``None``) the preferred
    chat pack that is installed. Packs are assembled and verified here, on first use."""
    if spec is None:
        installed = [p for p in CHAT_PACKS if not p.missing()]
        if not installed:
            preferred = CHAT_PACKS[0]
            raise ModelUnavailable(
                f"no bundled chat model is installed: {preferred.missing_hint()} (the {preferred.name} model, "
                f"{preferred.size / 2**30:.1f} GB), or pass --model FILE.gguf"
            )
        return _from_pack(installed[0], cache_dir)
    pack = PACKS.get(spec)
    if pack is not None and pack.role == "chat":
        return _from_pack(pack, cache_dir)
    path = Path(spec).expanduser()
    if not path.is_file():
        names = ", ".join(p.name for p in CHAT_PACKS)
        raise InputError(f"--model {spec}: no such file, and no bundled chat model has that name ({names})")
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != b"GGUF":
        raise InputError(f"--model {spec} is not a GGUF file (llama.cpp's format); convert it or pass one of: {', '.join(p.name for p in CHAT_PACKS)}")
    return ServedModel(path=path.resolve(), model_id=path.stem)


def _from_pack(pack: Pack, cache_dir: Path) -> ServedModel:
    [weights] = [f for f in pack.files if f.name.endswith(".gguf")]
    return ServedModel(path=pack_dir(pack, cache_dir) / weights.name, model_id=pack.name, pack=pack)


def check_port(host: str, port: int) -> None:
    """Refuse a port that is taken before spending seconds on loading the model."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: a socket in TIME_WAIT is no obstacle
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise InputError(f"port {port} on {host} is already in use (another server?); stop it or pass --port") from None
            raise InputError(f"cannot listen on {host}:{port} ({exc.strerror}); pass another --host or --port") from None


def base_url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    return f"http://{shown}:{port}/v1"


def serve(
    model: ServedModel,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    *,
    context: int = DEFAULT_CONTEXT,
    threads: int | None = None,
    verbose: bool = False,
    on_ready: Callable[[str], None] = print,
    on_stopped: Callable[[], None] = lambda: None,
) -> None:
    """Serve ``model`` until Ctrl-C or SIGTERM; ``on_ready(base_url)`` once it accepts requests,
    ``on_stopped()`` once it has shut down."""
    check_port(host, port)
    try:
        import uvicorn
        from llama_cpp.server.app import create_app
        from llama_cpp.server.settings import ModelSettings, ServerSettings
    except ImportError as exc:
        raise ModelUnavailable(f"staragent llm serve needs llama.cpp's server ({exc.name} is missing): {RUNTIME_HINT}") from None
    # Decoding runs on half the cores by default, as llama.cpp does: its threads wait for each other
    # at every token, so more threads than free cores make it many times slower on a busy machine
    # (measured here: 0.15 tokens/s with 2 threads against 1.5 with 1, on 2 shared cores). Reading
    # the prompt uses every core.
    settings = ModelSettings(
        model=str(model.path), model_alias=model.model_id, n_ctx=context, n_threads=threads or max(1, usable_cores() // 2),
        n_threads_batch=max(threads or 1, usable_cores()), verbose=verbose,
    )
    try:
        app = create_app(server_settings=ServerSettings(host=host, port=port), model_settings=[settings])
    except ValueError as exc:  # llama.cpp could not read the file
        fix = f"reinstall it: {model.pack.install_hint()} --force-reinstall" if model.pack else "check the file"
        raise ModelUnavailable(f"llama.cpp could not load {model.path} ({exc}); {fix}") from None

    class Server(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                on_ready(base_url(host, port))

        async def shutdown(self, sockets=None) -> None:
            # a reply cut off by the stop is expected, not an error to print with its traceback
            logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)
            await super().shutdown(sockets=sockets)

    config = uvicorn.Config(
        app, host=host, port=port, log_level="info" if verbose else "warning", access_log=verbose, timeout_graceful_shutdown=STOP_GRACE_S
    )
    server = Server(config)
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then raises the signal again for the handler it
    # found: with these, that second delivery is a no-op and serve() returns normally.
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run()
    except SystemExit:  # uvicorn exits when it cannot bind (the port was taken after the check)
        raise InputError(f"the server could not listen on {host}:{port}; pass another --port") from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    on_stopped()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        # A reply still being generated runs on in a worker thread that cannot be interrupted; the
        # process would wait for it before exiting. Nothing is left to save: leave now.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
