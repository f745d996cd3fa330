"""Importing Gradio without the parts of its import that the page never uses.

Gradio's import is most of the page's start (docs/performance.md), and two thirds of it on a small CPU
go to things a server never uses:

- each component class regenerates its type stub: Gradio parses the component's source file,
  rebuilds the ``.pyi`` beside it and writes it into the installed package when it differs (for
  editors' completion);
- each event listener's docstring is rendered through a Jinja template (for ``help()`` and the docs);
- the MCP SDK is imported to define Gradio's own MCP server class, which the page never starts
  (``staragent mcp`` is the project's MCP server, with its own import of the SDK);
- pandas is imported for the table and plot components and for the statistics of Gradio's
  monitoring page, none of which the page has (``serve`` also stops those statistics being
  recomputed after every event).

``import_gradio`` skips the first three while Gradio is being imported, and puts everything back
afterwards; pandas is then imported the first time something uses it.
Each skip applies only where Gradio still has the piece it names; a Gradio that changed them is
imported as it is, only slower. The collector is paused during the import too: it allocates
hundreds of thousands of objects that all live as long as the process, and scanning them again
and again as they are made is wasted work.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType


def _skip_stub_regeneration(module: ModuleType):
    """Each skip changes its module and returns what puts it back (None when it found nothing to skip)."""
    original = getattr(module, "create_or_modify_pyi", None)
    if not callable(original):
        return None
    module.create_or_modify_pyi = lambda *args, **kwargs: None
    return lambda: setattr(module, "create_or_modify_pyi", original)


def _skip_docstring_rendering(module: ModuleType):
    listener = getattr(module, "EventListener", None)
    original = getattr(listener, "__dict__", {}).get("set_doc")
    if not callable(original):
        return None
    listener.set_doc = lambda self, component: None
    return lambda: setattr(listener, "set_doc", original)


_SKIPS = {"gradio.component_meta": _skip_stub_regeneration, "gradio.events": _skip_docstring_rendering}
# Imported by Gradio at its start for components and statistics the page does not use: loaded when
# something first reaches into it (``importlib.util.LazyLoader``), which on this page is never.
_ON_FIRST_USE = {"pandas"}


class _Patcher(importlib.abc.MetaPathFinder):
    """Finds the modules named in ``_SKIPS`` as Python would, and applies the skip right after
    each module has run (before any component class is defined with it)."""

    def __init__(self):
        self.undo: list = []

    def find_spec(self, name, path, target=None):
        skip = _SKIPS.get(name)
        if skip is None and name not in _ON_FIRST_USE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        if skip is None:
            spec.loader = importlib.util.LazyLoader(spec.loader)
            return spec
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            if (undo := skip(module)) is not None:
                self.undo.append(undo)

        spec.loader.exec_module = exec_module
        return spec

    def restore(self) -> None:
        while self.undo:
            self.undo.pop()()


@contextlib.contextmanager
def _without_module(name: str):
    """``import name`` fails inside the block (unless it was imported before); afterwards it works."""
    if name in sys.modules:
        yield
        return
    sys.modules[name] = None  # type: ignore[assignment]  # makes the import raise ImportError
    try:
        yield
    finally:
        if sys.modules.get(name, ...) is None:
            del sys.modules[name]


def import_gradio() -> ModuleType:
    """``import gradio``, without the work above when this process has not imported it yet."""
    if "gradio" in sys.modules:
        return sys.modules["gradio"]
    patcher = _Patcher()
    sys.meta_path.insert(0, patcher)
    collecting = gc.isenabled()
    gc.disable()
    try:
        with _without_module("mcp"):
            import gradio
    finally:
        if collecting:
            gc.enable()
        sys.meta_path.remove(patcher)
        patcher.restore()
    return gradio
