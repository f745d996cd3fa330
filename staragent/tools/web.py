"""web_search: look something up on the web (DuckDuckGo and friends through the ``ddgs`` package).

It needs network access; without it the call fails with a plain error and the agent goes on without.
Titles and snippets are text from strangers: the planner receives them as quoted data."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..config import Settings
from ..errors import ToolError
from ..limits import MAX_WEB_QUERY_CHARS
from .base import Tool, ToolContext, ToolResult


def make_client(settings: Settings):
    """The search client (tests replace this function; they never reach the network)."""
    from ddgs import DDGS

    return DDGS(timeout=int(settings.toolset.web.timeout))


def _is_no_results(exc: Exception) -> bool:
    """ddgs ends a search in which every engine answered but none found anything with a plain
    ``DDGSException("No results found.")`` (not a subclass): an empty answer, not a failure."""
    from ddgs.exceptions import DDGSException

    return type(exc) is DDGSException and str(exc).strip().lower().startswith("no results found")


def _why(exc: Exception) -> str:
    """What went wrong, in words, from the kind of exception ddgs (or the network below it) raised."""
    from ddgs.exceptions import RatelimitException, TimeoutException

    if isinstance(exc, RatelimitException):
        return "the search engine is rate-limiting requests; try again later"
    if isinstance(exc, (TimeoutException, TimeoutError)):
        return f"the search engines did not answer in time (no network access, or they are slow): {str(exc)[:200]}"
    # ddgs wraps every transport error (DNS, refused connection, TLS) in a plain DDGSException
    return f"the search engines could not be reached or answered with an error (no network access?): {str(exc)[:200]}"


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
        if len(query) > MAX_WEB_QUERY_CHARS:
            raise ToolError(f"the query is longer than {MAX_WEB_QUERY_CHARS} characters")
        from ddgs.exceptions import DDGSException

        cfg = ctx.settings.toolset.web
        try:
            rows = make_client(ctx.settings).text(query, region=cfg.region, max_results=min(args.num_results, cfg.max_results))
        except (DDGSException, OSError) as exc:  # the search's own failures; anything else is a bug and surfaces
            if _is_no_results(exc):
                return WebResults(query=query, results=[])
            raise ToolError(f"web search failed: {_why(exc)}") from None
        pages = [
            WebPage(title=str(r.get("title") or "").strip(), snippet=str(r.get("body") or r.get("snippet") or "").strip(), url=r.get("href") or r.get("url"))
            for r in rows or []
        ]
        return WebResults(query=query, results=[p for p in pages if p.title or p.snippet][: args.num_results])
