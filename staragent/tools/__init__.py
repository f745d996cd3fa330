"""Agent tools: one module per tool family, a registry with plug-in discovery, adapters."""

from .base import Tool, ToolContext, ToolResult
from .registry import ToolRegistry

__all__ = ["Tool", "ToolContext", "ToolResult", "ToolRegistry"]
