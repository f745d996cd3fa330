"""execute_code: run a short Python (or bash) program in the sandbox of ``staragent.sandbox`` and
return what it printed. The program gets no network, a throw-away working directory, no view of
our environment, processes or files (only the system's and Python's, read-only), and limits on
time, memory, processes, inputs and output; when no sandbox works on this machine the tool is not
offered at all, and a call is refused."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from ..config import Settings
from ..config import _config_file as config_file
from ..errors import ToolError
from ..limits import MAX_CODE_CHARS
from ..sandbox import runner as sandbox
from .base import Tool, ToolContext, ToolResult


class CodeResult(ToolResult):
    stdout: str
    stderr: str
    exit_code: int | None
    limit: str | None = Field(None, description="the sandbox limit that stopped the program, if one did")
    duration_s: float
    files: list[str] = Field(default_factory=list, description="files it wrote (deleted after the run)")

    def summary(self) -> str:
        head = f"exit {self.exit_code}" + (f", stopped by the {self.limit} limit" if self.limit else "")
        shown = (self.stdout or self.stderr).strip().replace("\n", " | ")
        return f"{head}: {shown[:130]}"


class ExecuteCode(Tool):
    name = "execute_code"
    description = (
        "Run a short program in a sandbox (no network, no files kept, a few seconds of CPU) and get its "
        "stdout and stderr. language: python or bash. inputs: optional JSON data, available to Python as the "
        "variable `inputs` and to both languages as the file inputs.json. Print what you need to see."
    )
    needs_video = False
    cacheable = False  # programs may read the clock or randomness
    data_args = ("inputs",)  # bounded by toolset.sandbox.max_inputs_bytes

    class Args(BaseModel):
        code: str = Field(description="the program")
        language: str = Field(description="python or bash")
        inputs: Any = Field(None, description="JSON data for the program (optional)")

        @field_validator("code")
        @classmethod
        def _code(cls, value: str) -> str:
            if not value.strip():
                raise ValueError("the code is empty")
            if len(value) > MAX_CODE_CHARS:
                raise ValueError(f"the code is longer than {MAX_CODE_CHARS} characters")
            return value

    Result = CodeResult

    def unavailable_reason(self, settings: Settings) -> str | None:
        cfg = settings.toolset.sandbox
        methods = ["unshare", "bwrap"] if cfg.method == "auto" else [cfg.method]
        problems = [sandbox.probe(m) for m in methods]
        return None if any(p is None for p in problems) else "no sandbox works here: " + "; ".join(problems)

    def run(self, ctx: ToolContext, args: Args) -> CodeResult:
        cfg = ctx.settings.toolset.sandbox
        language = sandbox.LANGUAGES.get(args.language.strip().lower())
        if language is None or (language == "bash" and not cfg.shell):
            offered = "python or bash" if cfg.shell else "python (bash is turned off)"
            raise ToolError(f"execute_code cannot run {args.language!r} (its language argument); it runs {offered}")
        # staragent's own cache and config are never in the sandbox's view; should a Python live above them, they show empty.
        hide = [*cfg.hide, str(ctx.settings.cache_dir), str(config_file().parent)]
        ran = sandbox.run_code(args.code, language, args.inputs, sandbox.Limits.from_settings(cfg), cfg.method, cfg.python, hide)
        return CodeResult(**ran.model_dump(exclude={"sandbox"}))
