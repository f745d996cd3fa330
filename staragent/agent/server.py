"""The graph a LangGraph server runs (``langgraph.json`` names ``staragent/agent/server.py:graph``).

A server passes plain fields as the run context (``{"video": "/path/to/video.mp4", "profile":
"offline"}``); ``ServerContext`` opens the session from them on first use. The video must lie in the
folders the settings allow (``serve.video_dirs``, else the folder the server started in); requests
about one video share one session and one index build.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

# Absolute imports: LangGraph's server loads this file by path, not as a package member.
from staragent.agent.graph import AgentContext, build_graph
from staragent.agent.session import Session


@dataclass
class ServerContext(AgentContext):
    video: str | None = None
    profile: str | None = None

    def resolve(self) -> Session:
        if self.session is None:
            self.session = _server_session(self.video, self.profile)
        return self.session


def _server_session(video: str | None, profile: str | None) -> Session:
    from staragent.agent.videos import VideoFolders

    agent = _server_agent(profile)
    if video is None:
        return _videoless_session(profile)
    return agent.session(VideoFolders.from_settings(agent.settings).resolve(video))


@functools.cache
def _server_agent(profile: str | None):
    from staragent.agent.runner import VideoAgent
    from staragent.config import load_settings

    return VideoAgent(load_settings(profile=profile))


@functools.cache
def _videoless_session(profile: str | None) -> Session:
    from staragent.agent.session import open_session

    agent = _server_agent(profile)
    return open_session(None, agent.settings, pool=agent.pool)


graph = build_graph(context_schema=ServerContext)
