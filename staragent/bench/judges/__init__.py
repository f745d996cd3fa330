"""Judges: the heuristic rubric judge, and LLM judges over any LangChain chat model.

``make_judge(spec)``:

- ``heuristic`` — offline key-fact matching for rubric criteria (reported as heuristic);
- ``scripted`` — :class:`ScriptedChatModel`, a deterministic chat model for tests and demos;
- anything else — a chat backend spec ``BACKEND[:MODEL]`` (see :mod:`staragent.bench.chat`), so every
  chat backend of the project (OpenAI-compatible endpoints, local transformers, ...) can judge.

Every LLM judge call goes through :class:`JudgeClient` (cache, retries, bounded concurrency).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...prompts import render
from ..chat import decoding_of, endpoint_of, model_id_of
from ..harness_errors import JudgeSpecError
from ..sample_records import Criterion
from .client import JudgeCall, JudgeClient, JudgeIdentity
from .heuristic import HeuristicJudge
from .parsing import parse_criterion_verdict
from .scripted import SCRIPTED_VERSION, ScriptedChatModel, scripted_reply

__all__ = [
    "HeuristicJudge",
    "JudgeCall",
    "JudgeClient",
    "JudgeIdentity",
    "LLMJudge",
    "ScriptedChatModel",
    "make_judge",
    "scripted_reply",
]


class LLMJudge:
    """A judge backed by a chat model; all calls go through its :class:`JudgeClient`."""

    is_llm = True

    def __init__(self, client: JudgeClient):
        self.client = client
        self.identity = client.identity

    @classmethod
    def from_model(
        cls,
        model: Any,
        *,
        kind: str = "llm",
        spec: str = "",
        revision: str | None = None,
        cache_dir: str | Path | None = None,
        **client_options: Any,
    ) -> LLMJudge:
        identity = JudgeIdentity(
            kind=kind, model_id=model_id_of(model), revision=revision, decoding=decoding_of(model),
            endpoint=endpoint_of(model), spec=spec,
        )  # fmt: skip
        return cls(JudgeClient(model, identity, cache_dir, **client_options))

    @property
    def stats(self) -> dict[str, int]:
        return self.client.stats

    def ask(self, prompt: str, parse) -> JudgeCall:
        return self.client.ask(prompt, parse)

    def check_criterion(
        self, *, question: str, reference: str, answer: str, criterion: Criterion, history: list[dict] | None = None
    ) -> JudgeCall:
        prompt = render(
            "bench_rubric_criterion",
            question=question,
            reference=reference,
            answer=answer,
            criterion=criterion,
            history=history or [],
        )
        return self.ask(prompt, parse_criterion_verdict)


Judge = HeuristicJudge | LLMJudge


def make_judge(
    spec: str,
    settings: Any = None,
    *,
    cache_dir: str | Path | None = None,
    revision: str | None = None,
    max_concurrency: int = 4,
    max_retries: int = 2,
    backoff_s: float = 1.0,
) -> Judge:
    """Build the judge named by a ``--judge`` spec (see the module docstring)."""
    spec = (spec or "").strip()
    if not spec:
        raise JudgeSpecError("no judge given; pass --judge heuristic, scripted, or a chat backend spec")
    options = {"max_concurrency": max_concurrency, "max_retries": max_retries, "backoff_s": backoff_s}
    if spec == "heuristic":
        return HeuristicJudge()
    if spec == "scripted":
        return LLMJudge.from_model(
            ScriptedChatModel(), kind="scripted", spec=spec, revision=revision or SCRIPTED_VERSION,
            cache_dir=cache_dir, **options,
        )  # fmt: skip
    from ..chat import chat_model_from_spec, local_snapshot

    model = chat_model_from_spec(spec, settings, error=JudgeSpecError, role="judge", offline="--judge heuristic or --judge scripted")
    revision = _pinned_revision(revision, local_snapshot(model, settings), spec)
    return LLMJudge.from_model(model, kind="llm", spec=spec, revision=revision, cache_dir=cache_dir, **options)


def _pinned_revision(pinned: str | None, found: str | None, spec: str) -> str | None:
    """The judge's revision: the Hugging Face snapshot its weights were read from, which must agree with
    a revision pinned by ``--judge-revision``; else the pinned one."""
    if pinned and found and pinned != found:
        raise JudgeSpecError(
            f"--judge-revision {pinned} was asked for, but the judge {spec!r} reads its weights from snapshot "
            f"{found}; fetch that revision or pin {found}"
        )
    return found or pinned


def require_llm(judge: Judge, metric: str) -> LLMJudge:
    if not getattr(judge, "is_llm", False):
        raise JudgeSpecError(
            f"metric {metric!r} needs a language-model judge, not {judge.identity.kind!r}; "
            "pass --judge scripted (offline stand-in) or a chat backend spec"
        )
    return judge  # type: ignore[return-value]
