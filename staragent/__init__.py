"""staragent: chat with hour-long videos through a tool-using agent, and benchmark such agents.

    from staragent import VideoAgent
    answer = VideoAgent().ask("talk.mp4", "What price is shown for the espresso machine?")
    print(answer.answer, answer.evidence)
"""

from __future__ import annotations

from .version import __version__

__all__ = ["VideoAgent", "Settings", "StarAgentError", "__version__"]


def __getattr__(name: str):
    # Lazy, so that `import staragent` (and `staragent --help`) stays instant.
    if name == "VideoAgent":
        from .agent.runner import VideoAgent

        return VideoAgent
    if name == "Settings":
        from .config import Settings

        return Settings
    if name == "StarAgentError":
        from .errors import StarAgentError

        return StarAgentError
    raise AttributeError(name)
