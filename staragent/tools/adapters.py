"""Expose staragent tools to other frameworks: LangChain ``StructuredTool`` (usable by any
LangChain/LangGraph agent)."""

from __future__ import annotations

import json

from .base import Tool, ToolContext


def to_structured_tool(tool: Tool, ctx: ToolContext):
    """A LangChain tool that runs ``tool`` against ``ctx`` and returns its result as JSON text."""
    from langchain_core.tools import StructuredTool

    def call(**kwargs) -> str:
        result = tool(ctx, kwargs)
        return json.dumps(result.model_dump(mode="json"), ensure_ascii=False)

    return StructuredTool.from_function(func=call, name=tool.name, description=tool.description, args_schema=tool.Args)
