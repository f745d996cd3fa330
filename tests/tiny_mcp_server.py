"""A small MCP server that the tests start, over standard input and output or, with
``--http PORT``, over streamable HTTP. One of its tools clashes with a built-in one."""

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("tiny", log_level="WARNING")


@server.tool()
def count_words(text: str) -> dict:
    """Count the words in a text."""
    return {"words": len(text.split())}


@server.tool()
def opening_moment(video: str) -> dict:
    """Describe the first second of the video being discussed."""
    return {"moment": {"start": 0.0, "end": 1.0, "text": f"the opening of {Path(video).name}", "modality": "visual"},
            "bytes": Path(video).stat().st_size}


@server.tool()
def calculator(expression: str) -> str:
    """A second calculator: its name is taken by the built-in one."""
    return "42"


if __name__ == "__main__":
    if "--http" in sys.argv:
        server.run("streamable-http", port=int(sys.argv[sys.argv.index("--http") + 1]))
    else:
        server.run()
