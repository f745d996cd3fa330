"""web_search: look something up on the web (DuckDuckGo and friends through the ``ddgs`` package).

It needs network access; without it the call fails with a plain error and the agent goes on without.
Titles and snippets are text from strangers: the planner receives them as quoted data."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..config import Settings
from ..errors import ToolError
from .base import Tool, ToolContext, ToolResult

MAX_QUERY_CHARS = 300


def make_client(settings: Settings):
    """The search client (tests replace this function; they never reach the network)."""
    from ddgs import DDGS

    return DDGS(timeout=int(settings.toolset.web.timeout))


def _why(exc: Exception) -> str:
    text = str(exc)
    lowered = text.lower()
    if any(w in lowered for w in ("dns", "resolve", "connect", "network", "unreachable", "timed out", "timeout")):
        return f"the web cannot be reached from here (no network access?): {text[:200]}"
    if "ratelimit" in lowered or "rate limit" in lowered or "202" in lowered:
        return "the search engine is rate-limiting requests; try again later"
    if "no results" in lowered:
        return "no results"
    return f"{type(exc).__name__}: {text[:200]}"


class WebPage(BaseModel):
    title: str
    snippet: str
    url: str | None = None


class WebResults(ToolResult):
    query: str
    results: list[WebPage]

    def summary(self) -> str:
        if not self.results:
            return f"no web results for {self.query!r}"
        return f"{len(self.results)} web results for {self.query!r}; first: {self.results[0].title[:80]}"


class WebSearch(Tool):
    name = "web_search"
    description = (
        "Search the web for background the video does not give (who someone is, what a term means, current "
        "facts). Returns titles, snippets and links. Use it only when the question needs outside knowledge."
    )
    needs_video = False

    class Args(BaseModel):
        query: str = Field(description="what to look up, in a few words")
        num_results: int = Field(5, ge=1, le=20, description="how many results to return")

    Result = WebResults

    def unavailable_reason(self, settings: Settings) -> str | None:
        return None if settings.toolset.web.enabled else "web search is turned off (toolset.web.enabled = false)"

    def run(self, ctx: ToolContext, args: Args) -> WebResults:
        query = args.query.strip()
        if not query:
            raise ToolError("web_search needs a query: what to look up")
        if len(query) > MAX_QUERY_CHARS:
            raise ToolError(f"the query is longer than {MAX_QUERY_CHARS} characters")
        cfg = ctx.settings.toolset.web
        try:
            rows = make_client(ctx.settings).text(query, region=cfg.region, max_results=min(args.num_results, cfg.max_results))
        except Exception as exc:  # ddgs raises its own and transport exceptions; all mean "no answer"
            reason = _why(exc)
            if reason == "no results":
                return WebResults(query=query, results=[])
            raise ToolError(f"web search failed: {reason}") from None
        pages = [
            WebPage(title=str(r.get("title") or "").strip(), snippet=str(r.get("body") or r.get("snippet") or "").strip(), url=r.get("href") or r.get("url"))
            for r in rows or []
        ]
        return WebResults(query=query, results=[p for p in pages if p.title or p.snippet][: args.num_results])
